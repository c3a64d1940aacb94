"""Front-end cost in instructions: the served proxy under callgrind, per endpoint, load-free.

Wall-clock figures on a shared machine say as much about the load as about the code; callgrind
counts the instructions the proxy process executes, which the load does not change. This runs
`toolmend serve` (one worker, uvloop and httptools, recovery and guard on, the requests of
`bench/frontends_bench.py`) under `valgrind --tool=callgrind`, with a scripted upstream and the
client in this process, and counts for each endpoint, over `--repeats` requests each:

- **before the first event**, in three windows: the request up to the upstream request (read,
  translated, guarded, sent); what the proxy does while the upstream prefills (its response
  head and role chunk: a front-end's opening events are written here); the first text chunk
  to its event. The first and the last are the first event's critical path (what a client
  waits for beyond the model); the upstream holds its stream at each window's end, so a
  window ends once the proxy has gone idle;
- **per chunk**: what one more text chunk of the answer costs, the rest of the stream (its
  remaining text chunks, the end, the request log) read at two lengths, the difference divided
  by the difference in chunks; and the same with `--streams` streams at once (the served
  benchmark's CPU per chunk is read at 64), whole streams at two lengths;
- **the stream's end**: the rest of the stream less its text chunks.

The upstream sends each text chunk once the client has the one before (`LockstepUpstream`), so
each upstream read brings one chunk, as at the served benchmark's pace, and its other chunks
`--pace-ms` apart; the proxy's idle work over a window (uvicorn's tick, ten times a second) is
measured on its own and taken off each window by its length. Every figure is the median of its
repeats; the front-ends' are also printed as multiples of chat's.

`--endpoints` picks the rows (`agent` is the chat endpoint with `bench/proxy_bench.py`'s
agent request: 100 messages, 9 tools, about 60 KB); `--server relay` counts
`bench/minimal_relay.py` instead of toolmend, the floor the hop itself costs (its chat rows only).

    python bench/frontends_instructions.py [--chunks 10,90] [--repeats 3] [--streams 16]
        [--endpoints chat,agent,messages,responses] [--server toolmend|relay]

Needs valgrind (`callgrind_control` with it). A run takes a few minutes.
"""

from __future__ import annotations

import argparse
import asyncio
import glob
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import aiohttp
from aiohttp import web

from frontends_bench import ENDPOINTS, PROMPT, Endpoint
from proxy_bench import MODEL, SENTENCE, agent_conversation, process
from toolmend.server.demo.scripted import Answer, stream_chunks
from toolmend.server.loopback import free_port

#: How long the proxy is given to finish a window's work before the window is read (it logs
#: the request after the stream's last write; under callgrind that takes tens of ms).
SETTLE_SECONDS = 0.5
STARTUP_SECONDS = 1800.0
#: How a stream is known to the upstream: a tag the client adds to its prompt.
TAG = re.compile(rb"#stream-[0-9]+")


def agent_endpoint() -> Endpoint:
    """The chat endpoint with the proxy bench's agent request (its user turn opens with the
    prompt, so it can be tagged)."""
    messages, tools = agent_conversation()
    messages[1] = {**messages[1], "content": f"{PROMPT} {messages[1]['content']}"}
    body = {
        "model": MODEL,
        "stream": True,
        "stream_options": {"include_usage": True},
        "tools": tools,
        "messages": messages,
    }
    chat = ENDPOINTS[0]
    return Endpoint("agent", chat.path, json.dumps(body).encode(), chat.is_text)


#: Every row `--endpoints` can pick, by name; the relay serves the chat path only.
ROWS = {endpoint.name: endpoint for endpoint in (*ENDPOINTS, agent_endpoint())}
RELAY_ROWS = ("chat", "agent")
RELAY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "minimal_relay.py")


def tagged(endpoint: Endpoint, tag: str) -> bytes:
    """The endpoint's request body with `tag` in its prompt."""
    return endpoint.body.replace(PROMPT.encode(), f"{PROMPT} {tag}".encode())


@dataclass
class Lockstep:
    """One stream's lockstep: the client's count of answer-text events and its signal."""

    texts_seen: int = 0
    seen: asyncio.Event = field(default_factory=asyncio.Event)

    def saw_text(self) -> None:
        self.texts_seen += 1
        self.seen.set()

    async def wait_for(self, texts: int) -> None:
        while self.texts_seen < texts:
            self.seen.clear()
            await self.seen.wait()


@dataclass
class Gate:
    """Where a held stream stops: the upstream says it is there and waits for `release`."""

    reached: asyncio.Event = field(default_factory=asyncio.Event)
    released: asyncio.Event = field(default_factory=asyncio.Event)

    async def stop(self) -> None:
        self.reached.set()
        await self.released.wait()
        self.released.clear()

    async def wait(self) -> None:
        await self.reached.wait()
        self.reached.clear()

    def release(self) -> None:
        self.released.set()


@dataclass
class LockstepUpstream:
    """A chat/completions server that streams the scripted answer's text chunks in lockstep
    with the client: a text chunk goes out once the client has the event of the one before,
    so every upstream read of the proxy brings exactly one chunk, however slow the proxy runs
    (under callgrind, on a loaded machine). Its other chunks (the finish reason and the usage)
    go `pace` apart. A stream is known by the tag in its prompt (`tagged`). With `hold`, a
    stream stops at `gate` three times: when its request arrived (before the response's
    head), after its role chunk, and after its first text chunk."""

    pace: float
    chunks: int = 20
    hold: bool = True
    gate: Gate = field(default_factory=Gate)
    streams: dict[bytes, Lockstep] = field(default_factory=dict)

    async def handle(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        body = json.loads(raw)
        tag = TAG.search(raw)
        lockstep = self.streams[tag.group() if tag else b""]
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        answer = Answer(content=SENTENCE * self.chunks, chunk_size=len(SENTENCE))
        if self.hold:
            await self.gate.stop()
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        texts_sent = 0
        for sent, chunk in enumerate(stream_chunks(answer, include_usage)):
            is_text = bool(chunk["choices"] and chunk["choices"][0]["delta"].get("content"))
            if self.hold and sent in (1, 2):  # after the role chunk, after the first text
                await self.gate.stop()
            if is_text and texts_sent:
                await lockstep.wait_for(texts_sent)
            elif sent:
                await asyncio.sleep(self.pace)
            texts_sent += is_text
            await response.write(b"data: %s\n\n" % json.dumps(chunk).encode())
        await response.write(b"data: [DONE]\n\n")
        return response

    async def models(self, request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [{"id": "paced", "object": "model"}]})

    async def serve(self, port: int) -> web.AppRunner:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self.handle)
        app.router.add_get("/v1/models", self.models)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", port).start()
        return runner


class Callgrind:
    """The proxy's process under callgrind: zero its counters, dump them, read a dump's total."""

    def __init__(self, pid: int, out_dir: str, keep: str | None) -> None:
        self.pid = pid
        self.dumps = os.path.join(out_dir, f"callgrind.out.{pid}.*")  # the file per dump
        self.keep = keep

    async def _control(self, flag: str) -> None:
        proc = await asyncio.create_subprocess_exec(
            "callgrind_control",
            flag,
            str(self.pid),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        await proc.wait()

    async def instrument(self) -> None:
        await self._control("--instr=on")

    async def zero(self) -> float:
        await self._control("-z")
        return time.perf_counter()

    async def dump(self, label: str = "") -> tuple[int, float]:
        """The instructions since the last zero or dump, and when the dump was taken; the dump
        is kept under `label` in the `--keep` folder when there is one, else removed."""
        await self._control("-d")
        taken = time.perf_counter()
        total = 0
        for path in glob.glob(self.dumps):
            total += _total(path)
            if self.keep and label:
                shutil.move(path, os.path.join(self.keep, f"{label}.callgrind"))
            else:
                os.unlink(path)
        return total, taken


def _total(path: str) -> int:
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if line.startswith(("totals:", "summary:")):
                return int(line.split()[1])
    raise RuntimeError(f"no totals in {path}")


async def events(response: aiohttp.ClientResponse) -> AsyncIterator[bytes]:
    """The `data:` payloads of an SSE response."""
    buffer = b""
    async for raw in response.content.iter_any():
        buffer += raw
        *frames, buffer = buffer.split(b"\n\n")
        for frame in frames:
            for line in frame.split(b"\n"):
                if line.startswith(b"data: "):
                    yield line[6:]


#: The windows of one held stream, in order: the request up to the upstream request; the
#: upstream's head and role chunk (what the proxy does while the model prefills); the first
#: text chunk to its event; the rest of the stream.
WINDOWS = ("to_upstream", "while_waiting", "first_text", "rest")


async def one_request(
    session: aiohttp.ClientSession,
    url: str,
    endpoint: Endpoint,
    upstream: LockstepUpstream,
    grind: Callgrind | None = None,
    label: str = "",
    tag: str = "#stream-0",
) -> dict[str, tuple[int, float]]:
    """One stream; with `grind` (and the upstream holding), its `WINDOWS`: each one's
    instructions, idle work not yet taken off, and its length in seconds."""
    lockstep = upstream.streams[tag.encode()] = Lockstep()
    first_text = asyncio.Event()
    headers = {"Content-Type": "application/json", "Authorization": "Bearer sk-bench"}

    async def read() -> None:
        async with session.post(url, data=tagged(endpoint, tag), headers=headers) as response:
            response.raise_for_status()
            async for data in events(response):
                if data != b"[DONE]" and endpoint.is_text(json.loads(data)):
                    lockstep.saw_text()
                    first_text.set()

    windows: dict[str, tuple[int, float]] = {}
    started = await grind.zero() if grind else time.perf_counter()
    reading = asyncio.ensure_future(read())
    if grind is not None:
        for name in WINDOWS[:3]:
            await upstream.gate.wait()
            if name == "first_text":
                await first_text.wait()
            await asyncio.sleep(SETTLE_SECONDS)
            total, taken = await grind.dump(f"{label}-{name}")
            windows[name] = (total, taken - started)
            started = taken
            upstream.gate.release()
    await reading
    del upstream.streams[tag.encode()]
    if grind is not None:
        await asyncio.sleep(SETTLE_SECONDS)
        total, taken = await grind.dump(f"{label}-rest")
        windows["rest"] = (total, taken - started)
    return windows


@dataclass
class Rig:
    """What every measurement of one run shares: the client, the proxy under callgrind, the
    upstream, the two answer lengths and the proxy's idle rate (instructions per second)."""

    session: aiohttp.ClientSession
    proxy: str
    grind: Callgrind
    upstream: LockstepUpstream
    lengths: list[int]
    idle_rate: float = 0.0

    def net(self, total: float, seconds: float) -> float:
        """A window's instructions less the idle work of its length."""
        return total - self.idle_rate * seconds


async def one_stream_figures(rig: Rig, endpoint: Endpoint, repeats: int) -> dict[str, float]:
    """Each window's instructions, and per chunk, one stream at a time."""
    seen: dict[str, list[float]] = {name: [] for name in WINDOWS[:3]}
    rests: dict[int, list[float]] = {n: [] for n in rig.lengths}
    rig.upstream.hold = True
    for n in rig.lengths:
        rig.upstream.chunks = n
        for repeat in range(repeats):
            label = f"{endpoint.name}-{n}-{repeat}"
            url = rig.proxy + endpoint.path
            windows = await one_request(rig.session, url, endpoint, rig.upstream, rig.grind, label)
            net = {name: rig.net(*window) for name, window in windows.items()}
            for name in WINDOWS[:3]:
                seen[name].append(net[name])
            rests[n].append(net["rest"])
    low, high = rig.lengths
    rest_low, rest_high = statistics.median(rests[low]), statistics.median(rests[high])
    per_chunk = (rest_high - rest_low) / (high - low)
    row = {name: statistics.median(values) for name, values in seen.items()}
    row["before"] = row["to_upstream"] + row["while_waiting"] + row["first_text"]
    row["critical"] = row["to_upstream"] + row["first_text"]
    row["per_chunk"] = per_chunk
    row["end"] = rest_low - per_chunk * (low - 1)
    return row


async def concurrent_per_chunk(rig: Rig, endpoint: Endpoint, streams: int) -> float:
    """Per chunk with `streams` streams at once: their whole runs at two lengths, the
    difference over the difference in chunks."""
    rig.upstream.hold = False
    totals: list[float] = []
    url = rig.proxy + endpoint.path
    for n in rig.lengths:
        rig.upstream.chunks = n
        started = await rig.grind.zero()
        await asyncio.gather(
            *(
                one_request(rig.session, url, endpoint, rig.upstream, tag=f"#stream-{k}")
                for k in range(streams)
            )
        )
        await asyncio.sleep(SETTLE_SECONDS)
        total, ended = await rig.grind.dump(f"{endpoint.name}-{n}-x{streams}")
        totals.append(rig.net(total, ended - started))
    return (totals[1] - totals[0]) / (rig.lengths[1] - rig.lengths[0]) / streams


async def measure(
    proxy: str,
    grind: Callgrind,
    upstream: LockstepUpstream,
    lengths: list[int],
    repeats: int,
    streams: int,
    endpoints: list[Endpoint],
) -> None:
    await grind.instrument()
    # A connection per request: uvicorn closes an idle one after 5 s, which a pooled client
    # would then reuse (and every endpoint pays the same for a new connection).
    connector = aiohttp.TCPConnector(limit=streams * 2, force_close=True)
    async with aiohttp.ClientSession(connector=connector) as session:
        rig = Rig(session, proxy, grind, upstream, lengths)
        upstream.chunks, upstream.hold = lengths[0], False
        for endpoint in endpoints:  # warm every path (imports, caches)
            for _ in range(2):
                await one_request(session, proxy + endpoint.path, endpoint, upstream)
        start = await grind.zero()
        await asyncio.sleep(5)
        idle, end = await grind.dump()
        rig.idle_rate = idle / (end - start)
        print(
            f"idle: {rig.idle_rate / 1e3:.1f} K instructions per second, taken off every window\n"
        )
        figures: dict[str, dict[str, float]] = {}
        for endpoint in endpoints:
            row = figures[endpoint.name] = await one_stream_figures(rig, endpoint, repeats)
            if streams > 1:
                row["concurrent"] = await concurrent_per_chunk(rig, endpoint, streams)
            print(
                f"{endpoint.name}: "
                + ", ".join(f"{key} {value / 1e3:.1f} K" for key, value in row.items()),
                flush=True,
            )
    report(figures, streams)


#: The report's columns: a figure's key, its heading, its unit.
COLUMNS = (
    ("to_upstream", "to the upstream request", 1e6),
    ("while_waiting", "while the upstream prefills", 1e6),
    ("first_text", "first text chunk to its event", 1e6),
    ("critical", "first event's critical path", 1e6),
    ("before", "before the first event", 1e6),
    ("per_chunk", "per text chunk", 1e3),
    ("concurrent", "per text chunk at {streams} streams", 1e3),
    ("end", "the stream's end", 1e6),
)


def report(figures: dict[str, dict[str, float]], streams: int) -> None:
    """One row per endpoint, the others' figures also as multiples of the first row's."""
    first = next(iter(figures))
    chat = figures[first]
    columns = [c for c in COLUMNS if c[0] in chat]
    heads = [
        f"{head.format(streams=streams)} ({'M' if unit == 1e6 else 'K'})"
        for _, head, unit in columns
    ]
    print("\n| endpoint | " + " | ".join(heads) + " |")
    print("|---|" + "---:|" * len(columns))
    for name, row in figures.items():
        cells = []
        for key, _, unit in columns:
            ratio = "" if name == first else f" ({row[key] / chat[key]:.3f}x)"
            cells.append(f"{row[key] / unit:.{3 if unit == 1e6 else 1}f}{ratio}")
        print(f"| {name} | " + " | ".join(cells) + " |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", default="10,90", help="two answer lengths, in text chunks")
    parser.add_argument("--repeats", type=int, default=3, help="requests per endpoint and length")
    parser.add_argument("--pace-ms", type=float, default=50.0, help="pace of the non-text chunks")
    parser.add_argument("--keep", help="a folder to keep every window's callgrind dump in")
    parser.add_argument(
        "--streams", type=int, default=16, help="concurrent streams for the per-chunk figure"
    )
    parser.add_argument(
        "--endpoints", default="chat,messages,responses", help=f"rows, of {', '.join(ROWS)}"
    )
    parser.add_argument(
        "--server",
        choices=("toolmend", "relay"),
        default="toolmend",
        help="what is counted: `toolmend serve`, or the minimal relay (bench/minimal_relay.py)",
    )
    args = parser.parse_args()
    names = args.endpoints.split(",")
    unknown = [name for name in names if name not in ROWS]
    if unknown:
        parser.error(f"unknown endpoints {unknown}; choose from {', '.join(ROWS)}")
    if args.server == "relay" and any(name not in RELAY_ROWS for name in names):
        parser.error(f"the relay serves {', '.join(RELAY_ROWS)} only")
    endpoints = [ROWS[name] for name in names]
    lengths = sorted(int(n) for n in args.chunks.split(","))
    if len(lengths) != 2 or lengths[0] < 2:
        parser.error("--chunks takes two lengths of at least 2")
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        print("valgrind (callgrind) is not installed", file=sys.stderr)
        return 2
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    return asyncio.run(
        run(
            lengths,
            args.repeats,
            args.pace_ms / 1000,
            args.keep,
            args.streams,
            endpoints,
            args.server == "relay",
        )
    )


async def run(
    lengths: list[int],
    repeats: int,
    pace: float,
    keep: str | None,
    streams: int,
    endpoints: list[Endpoint],
    relay: bool,
) -> int:
    up_port, proxy_port = free_port(), free_port()
    upstream = LockstepUpstream(pace)
    runner = await upstream.serve(up_port)
    with tempfile.TemporaryDirectory() as scratch:
        config = os.path.join(scratch, "toolmend.toml")
        with open(config, "w", encoding="utf-8") as handle:
            handle.write(f'[frontends]\nresponse_store = "sqlite://{scratch}/responses.sqlite3"\n')
        server = (
            [sys.executable, RELAY]
            if relay
            else [
                *(sys.executable, "-m", "toolmend", "serve", "--config", config),
                *("--log-file", os.devnull),
            ]
        )
        serve = [
            *("valgrind", "--tool=callgrind", "--dump-instr=no", "--compress-strings=no"),
            "--instr-atstart=no",  # start-up uninstrumented (several times faster), then on
            f"--callgrind-out-file={scratch}/callgrind.out.%p",
            *server,
            *("--port", str(proxy_port), "--upstream", f"http://127.0.0.1:{up_port}/v1"),
        ]
        probe = f"http://127.0.0.1:{proxy_port}/healthz"
        try:
            with process(serve, probe, startup_seconds=STARTUP_SECONDS) as proxy:
                grind = Callgrind(proxy.pid, scratch, keep)
                base = f"http://127.0.0.1:{proxy_port}"
                await measure(base, grind, upstream, lengths, repeats, streams, endpoints)
        finally:
            await runner.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
