"""The proxy's own work per upstream chunk, in process, without sockets: instructions or CPU time.

`bench/frontends_instructions.py` counts the served proxy (uvicorn, the sockets, the event
loop's wake-ups); this counts only what toolmend's code does with a chunk. Each endpoint's
request goes through the real app (`create_app`'s `ProxyApp`, its handler, its pipeline, its
streaming response) as an ASGI call in this process: the request body comes from a `receive`
that hands it over whole, the upstream is the real `UpstreamStream` over a stand-in aiohttp
response whose `readany` returns one SSE event per read (as a paced upstream's reads bring
them), and `send` keeps the body's writes. Native mode, `auto` recovery, the guard on, one
self-correction allowed: the served benches' settings.

Three answers (`--kinds`), each streamed at two lengths (`--chunks`, N1 and N2 chunks of its
growing part), the cost per chunk being the difference over the difference in chunks:

- `text`: plain text deltas (a sentence a chunk);
- `hermes`: a call leaked as Hermes markup in the text, its `content` argument growing a few
  words a chunk (recovery holds that text back and reads it as a call);
- `native`: a native tool call whose arguments arrive in fragments, one a chunk.

With `--count instructions` (the default) the script runs itself under
`valgrind --tool=callgrind`, dumping the counters at a marker call (`os.getppid`, which nothing
else here calls) between runs, and reads each run's instructions from its dump; every figure
is the median of `--repeats`, after one warm-up run of the same answer. With
`--count cpu` it reads `time.process_time` instead (best of `--repeats`, quick and noisy).

    python bench/pipeline_instructions.py [--endpoints chat,messages,responses]
        [--kinds text,hermes,native] [--chunks 20,120] [--repeats 3] [--count instructions|cpu]

Measured (`--kinds text,native`, instructions per chunk) before and after a chunk of one
choice skipped recovery's general way over many choices (`RecoveredStream.send_on`): chat
native 76,126 -> 66,345 (messages 66,860, responses 67,022 after); chat text 60,417 -> 60,171
(unchanged: text chunks take recovery's text lane; runs differ by about 1%).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

from toolmend.server.app import create_app, warm_up
from toolmend.server.chat import ServerState
from toolmend.server.config import Limits, ServerConfig, Upstream
from toolmend.server.requestlog import RequestLog
from toolmend.server.upstream import UpstreamClient, UpstreamStream

MODEL = "paced"
PROMPT = "Write the notes file."
SENTENCE = "The proxy relays this sentence as one chunk of plain answer text. "
WORDS = "lorem ipsum dolor sit "
WRITE_FILE = {
    "name": "write_file",
    "description": "Write a file.",
    "parameters": {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    },
}
ENDPOINT_BODIES: dict[str, tuple[str, dict[str, Any]]] = {
    "chat": (
        "/v1/chat/completions",
        {
            "model": MODEL,
            "stream": True,
            "stream_options": {"include_usage": True},
            "tools": [{"type": "function", "function": WRITE_FILE}],
            "messages": [{"role": "user", "content": PROMPT}],
        },
    ),
    "messages": (
        "/v1/messages",
        {
            "model": MODEL,
            "max_tokens": 4096,
            "stream": True,
            "tools": [
                {
                    "name": WRITE_FILE["name"],
                    "description": WRITE_FILE["description"],
                    "input_schema": WRITE_FILE["parameters"],
                }
            ],
            "messages": [{"role": "user", "content": PROMPT}],
        },
    ),
    "responses": (
        "/v1/responses",
        {
            "model": MODEL,
            "stream": True,
            "store": False,
            "tools": [{"type": "function", **WRITE_FILE}],
            "input": PROMPT,
        },
    ),
}
#: Where the process dumps its counters (callgrind's `--dump-before`): between two runs.
MARKER = os.getppid
MARKER_SYMBOL = "getppid"


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-bench",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": MODEL,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def answer_chunks(kind: str, n: int) -> list[dict[str, Any]]:
    """The upstream's chunks of one answer whose growing part is `n` chunks long."""
    out = [_chunk({"role": "assistant", "content": ""})]
    if kind == "text":
        out += [_chunk({"content": SENTENCE}) for _ in range(n)]
        finish = "stop"
    elif kind == "hermes":
        out.append(_chunk({"content": "I will write it.\n"}))
        opening = '<tool_call>{"name": "write_file", "arguments": {"path": "notes.txt", '
        out.append(_chunk({"content": opening + '"content": "'}))
        out += [_chunk({"content": WORDS}) for _ in range(n)]
        out.append(_chunk({"content": '"}}</tool_call>'}))
        finish = "stop"
    elif kind == "native":
        head = {"index": 0, "id": "call_1", "type": "function"}
        head["function"] = {"name": "write_file", "arguments": '{"path": "notes.txt", '}
        out.append(_chunk({"tool_calls": [head]}))
        more = [{"index": 0, "function": {"arguments": '"content": "'}}]
        out.append(_chunk({"tool_calls": more}))
        for _ in range(n):
            out.append(_chunk({"tool_calls": [{"index": 0, "function": {"arguments": WORDS}}]}))
        out.append(_chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"}'}}]}))
        finish = "tool_calls"
    else:
        raise ValueError(f"unknown answer kind {kind!r}")
    out.append(_chunk({}, finish))
    usage = {"prompt_tokens": 20, "completion_tokens": n, "total_tokens": 20 + n}
    out.append({**_chunk({}), "choices": [], "usage": usage})
    return out


def sse_reads(chunks: list[dict[str, Any]]) -> list[bytes]:
    """One read per event, as a paced upstream's reads bring them, then `[DONE]`."""
    reads = [b"data: %s\n\n" % json.dumps(chunk).encode() for chunk in chunks]
    return [*reads, b"data: [DONE]\n\n"]


class _Content:
    """The stand-in for aiohttp's `StreamReader`: each `readany` returns the next read."""

    def __init__(self, reads: list[bytes]) -> None:
        self._reads = iter(reads)
        self._exception: BaseException | None = None

    async def readany(self) -> bytes:
        if self._exception is not None:
            raise self._exception
        return next(self._reads, b"")

    def set_exception(self, exc: BaseException) -> None:
        self._exception = exc


class _Response:
    """The stand-in for `aiohttp.ClientResponse`: a 200 whose body is `reads`."""

    status = 200

    def __init__(self, reads: list[bytes]) -> None:
        self.content = _Content(reads)
        self.closed = False

    def close(self) -> None:
        self.closed = True


class ScriptedClient(UpstreamClient):
    """The worker's upstream client with every stream answered by `reads`, no socket."""

    def __init__(self) -> None:
        super().__init__()
        self.reads: list[bytes] = []

    async def open_stream(
        self, upstream: Upstream, body: Any, headers: dict[str, str], limits: Limits
    ) -> UpstreamStream:
        loop = asyncio.get_running_loop()
        response: Any = _Response(self.reads)
        return UpstreamStream(upstream, response, limits, loop.time())


class InProcessProxy:
    """The app, its state made without its lifespan, called as an ASGI app."""

    def __init__(self) -> None:
        config = ServerConfig(upstreams=(Upstream("bench", "http://127.0.0.1:9/v1"),))
        self.client = ScriptedClient()
        self.app = create_app(config)
        self.app.state.toolmend = ServerState(config, self.client, RequestLog(os.devnull))
        warm_up()

    async def request(self, path: str, body: bytes, reads: list[bytes]) -> bytes:
        """The response body of one request whose upstream answers `reads`."""
        self.client.reads = reads
        scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "root_path": "",
            "query_string": b"",
            "headers": [
                (b"host", b"127.0.0.1"),
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
            "client": ("127.0.0.1", 1),
            "server": ("127.0.0.1", 4000),
        }
        given = False
        never = asyncio.get_running_loop().create_future()

        async def receive() -> dict[str, Any]:
            nonlocal given
            if not given:
                given = True
                return {"type": "http.request", "body": body, "more_body": False}
            await never  # the client stays: the response's watcher waits here
            raise AssertionError("unreachable")

        written: list[bytes] = []
        status: list[int] = []

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])
            else:
                written.append(message.get("body", b""))

        await self.app(scope, receive, send)
        if status != [200]:
            raise RuntimeError(f"{path} answered {status}: {b''.join(written)[:300]!r}")
        return b"".join(written)


def check_answer(kind: str, endpoint: str, out: bytes) -> None:
    """The stream carries what the answer holds (a bench of a broken path measures nothing)."""
    expected = SENTENCE.strip().encode() if kind == "text" else b"write_file"
    if expected not in out:
        raise RuntimeError(f"{endpoint}/{kind}: the stream lacks {expected!r}: {out[-400:]!r}")


def measure(args: argparse.Namespace) -> dict[tuple[str, str], list[tuple[int, float]]]:
    """Each (endpoint, kind)'s runs as (chunks, CPU seconds); under callgrind the marker
    calls split the counters between runs."""
    small, large = args.chunks
    proxy = InProcessProxy()
    loop = asyncio.new_event_loop()
    runs: dict[tuple[str, str], list[tuple[int, float]]] = {}
    for endpoint in args.endpoints:
        path, body = ENDPOINT_BODIES[endpoint]
        raw = json.dumps(body).encode()
        for kind in args.kinds:
            reads = {n: sse_reads(answer_chunks(kind, n)) for n in (small, large)}
            check_answer(
                kind, endpoint, loop.run_until_complete(proxy.request(path, raw, reads[small]))
            )
            got = runs[(endpoint, kind)] = []
            for _ in range(args.repeats):
                for n in (small, large):
                    gc.collect()
                    MARKER()
                    start = time.process_time()
                    loop.run_until_complete(proxy.request(path, raw, list(reads[n])))
                    got.append((n, time.process_time() - start))
            MARKER()
    loop.close()
    return runs


def per_chunk(values: list[tuple[int, float]], pick: Callable[[list[float]], float]) -> float:
    small = [v for n, v in values if n == min(n for n, _ in values)]
    large = [v for n, v in values if n == max(n for n, _ in values)]
    chunks = max(n for n, _ in values) - min(n for n, _ in values)
    return (pick(large) - pick(small)) / chunks


def callgrind_segments(script: str, argv: list[str]) -> tuple[list[int], str] | None:
    """Run `script argv --count child` under callgrind, its counters dumped at each `MARKER`
    call: the instructions of each segment (dump 1 ends at the first marker), and the child's
    last line of output (the layout of its runs); None when the child failed (its error is
    shown)."""
    with tempfile.TemporaryDirectory() as out_dir:
        prefix = os.path.join(out_dir, "callgrind.out")
        command = [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={prefix}",
            f"--dump-before={MARKER_SYMBOL}",
            "--dump-instr=no",
            sys.executable,
            os.path.abspath(script),
            *argv,
            "--count",
            "child",
        ]
        child = subprocess.run(command, capture_output=True, text=True)
        if child.returncode != 0:
            sys.stderr.write(child.stderr[-3000:])
            return None
        dumps = sorted(glob.glob(prefix + ".*"), key=lambda p: int(p.rsplit(".", 1)[1]))
        return [_total(path) for path in dumps], child.stdout.strip().splitlines()[-1]


def run_under_callgrind(args: argparse.Namespace, argv: list[str]) -> int:
    counted = callgrind_segments(__file__, argv)
    if counted is None:
        return 1
    totals, layout_line = counted
    layout = json.loads(layout_line)
    # Dump 1 ends at the first marker (start-up); then each run, and one marker between
    # answers (a segment of nothing but the loop's step to the next answer).
    index = 1
    results: dict[tuple[str, str], list[tuple[int, float]]] = {}
    for key, ns in layout:
        results[(key[0], key[1])] = [(n, float(totals[index + i])) for i, n in enumerate(ns)]
        index += len(ns) + 1
    report(args, results, "instructions", statistics.median)
    return 0


def _total(path: str) -> int:
    with open(path) as handle:
        for line in handle:
            if line.startswith(("totals:", "summary:")):
                return int(line.split()[1])
    raise RuntimeError(f"no total in {path}")


def report(
    args: argparse.Namespace,
    results: dict[tuple[str, str], list[tuple[int, float]]],
    unit: str,
    pick: Callable[[list[float]], float],
) -> None:
    small, large = args.chunks
    scale, label = (1.0, "instructions") if unit == "instructions" else (1e6, "µs CPU")
    print(f"per upstream chunk ({label}; chunks {small} and {large}, {args.repeats} repeats)")
    print(f"{'endpoint':<10} " + " ".join(f"{kind:>10}" for kind in args.kinds))
    chat = {
        kind: per_chunk(results[("chat", kind)], pick)
        for kind in args.kinds
        if ("chat", kind) in results
    }
    for endpoint in args.endpoints:
        row = [per_chunk(results[(endpoint, kind)], pick) * scale for kind in args.kinds]
        print(f"{endpoint:<10} " + " ".join(f"{value:>10.0f}" for value in row))
        if endpoint != "chat" and chat:
            ratios = [
                per_chunk(results[(endpoint, kind)], pick) / chat[kind] for kind in args.kinds
            ]
            print(f"{'  x chat':<10} " + " ".join(f"{r:>10.2f}" for r in ratios))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--endpoints", default="chat,messages,responses")
    parser.add_argument("--kinds", default="text,hermes,native")
    parser.add_argument("--chunks", default="20,120", help="the two lengths, N1,N2")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--count", choices=("instructions", "cpu", "child"), default="instructions")
    args = parser.parse_args()
    args.endpoints = [e for e in args.endpoints.split(",") if e]
    args.kinds = [k for k in args.kinds.split(",") if k]
    args.chunks = sorted(int(n) for n in args.chunks.split(","))
    unknown = set(args.endpoints) - set(ENDPOINT_BODIES)
    if unknown or len(args.chunks) != 2 or args.chunks[0] == args.chunks[1]:
        parser.error("endpoints: chat,messages,responses; chunks: two different lengths")
    if args.count == "instructions":
        return run_under_callgrind(args, sys.argv[1:])
    runs = measure(args)
    if args.count == "child":  # the layout of the runs, for the parent to read the dumps by
        layout = [[list(key), [n for n, _ in values]] for key, values in runs.items()]
        print(json.dumps(layout))
        return 0
    report(args, runs, "cpu", min)
    return 0


if __name__ == "__main__":
    sys.exit(main())
