"""The proxy's cost: a direct connection and toolmend side by side, against one paced upstream.

The upstream is the scripted model server in its own process, pacing 200 text chunks 5 ms
apart. The proxy is `toolmend serve` in its own process (native mode, recovery and guard on,
the request carrying tools), so its CPU time is read from /proc alone. The load generator is
an aiohttp client in this process. Measured, in one run:

- time to first chunk at concurrency 1 (p50, p99), direct and through the proxy, and the
  difference (what the proxy adds);
- throughput (chunks per second over all streams) at 1, 16 and 64 concurrent streams, as a
  ratio of the proxy's to the direct one;
- the proxy's CPU time per chunk relayed (over the 64-stream runs);
- the same first-chunk figures for a realistic agent request: an OpenCode-shaped conversation
  of 100 messages with 9 tools, about 60 KB of JSON, several failed tool results among them
  (the guard reads the whole history on every request).

A minimal relay (`bench/minimal_relay.py`: Starlette under uvicorn and one pooled aiohttp
session, the upstream's bytes streamed back untouched) runs as the next row: the floor the hop
itself costs on this machine, beside toolmend's figures. LiteLLM's proxy runs as a last row when
it starts (`pip install 'litellm[proxy]'`); it is given its bundled price list so it fetches
nothing (`unshare -n` makes sure of it on Linux).

Goals (from the proxy issue): at most 1.5 ms added to first-chunk p50, at least 0.95x direct
throughput at 64 streams, at most 60 µs CPU per chunk, at most 3 ms added to first-chunk p50
for the agent request.

    python bench/proxy_bench.py [--requests N] [--seconds S]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import aiohttp

from toolmend.server.loopback import free_port

CHUNKS = 200
PACE_MS = 5.0
CONCURRENCY = (1, 16, 64)
MODEL = "paced"
GOAL_ADDED_P50_MS = 1.5
GOAL_THROUGHPUT_64 = 0.95
GOAL_CPU_PER_CHUNK_US = 60.0
GOAL_AGENT_ADDED_P50_MS = 3.0
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
RELAY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "minimal_relay.py")
#: LiteLLM reads its bundled model price list instead of fetching one; its master key is the
#: one the load generator sends (it refuses to start without one); its upstream key is a
#: placeholder (the scripted upstream checks none).
LITELLM_ENV = {
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_MASTER_KEY": "sk-bench",
    "OPENAI_API_KEY": "sk-bench",
}
SENTENCE = "The proxy relays this sentence as one chunk of plain answer text. "

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}


# --------------------------------------------------------------------------- the upstream


def serve_upstream(port: int) -> None:
    """Run the paced scripted upstream on 127.0.0.1:`port` (this process, until killed)."""
    import uvicorn

    from toolmend.server.demo.scripted import Answer, Script, ScriptedUpstream

    content = SENTENCE * CHUNKS
    answer = Answer(content=content, chunk_size=len(SENTENCE), pace_ms=PACE_MS)
    scripted = ScriptedUpstream({MODEL: Script(answer)})
    scripted.received = _Discard()
    uvicorn.run(scripted.app(), host="127.0.0.1", port=port, log_level="warning", access_log=False)


class _Discard(list[dict[str, Any]]):
    """The benchmark's upstream keeps no request log (it would grow for the whole run)."""

    def append(self, item: dict[str, Any]) -> None:
        return None


# --------------------------------------------------------------------------- processes


class DidNotStart(RuntimeError):
    """A server process ended before it answered its probe."""


def wait_until_up(
    url: str, proc: subprocess.Popen[bytes] | None = None, seconds: float = 90
) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            urllib.request.urlopen(url, timeout=2).close()
            return
        except urllib.error.HTTPError:
            return  # it answers
        except (urllib.error.URLError, ConnectionError):
            if proc is not None and proc.poll() is not None:
                raise DidNotStart(f"{proc.args[0]} exited with {proc.returncode}") from None
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


@contextmanager
def process(
    args: list[str],
    probe: str,
    extra_env: dict[str, str] | None = None,
    startup_seconds: float = 90,
) -> Iterator[subprocess.Popen[bytes]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TOOLMEND_", "PROMETHEUS_"))}
    env.update(extra_env or {})
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until_up(probe, proc, startup_seconds)
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process, from /proc."""
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    utime, stime = int(fields[11]), int(fields[12])
    return (utime + stime) / CLOCK_TICKS


# --------------------------------------------------------------------------- the client


@dataclass
class StreamResult:
    first_chunk: float  # seconds from sending to the first text chunk
    chunks: int


async def one_stream(
    session: aiohttp.ClientSession, base: str, body: bytes, model_field: str
) -> StreamResult:
    started = time.perf_counter()
    first: float | None = None
    chunks = 0
    async with session.post(
        f"{base}/chat/completions",
        data=body,
        headers={"Content-Type": "application/json", "Authorization": "Bearer sk-bench"},
    ) as response:
        response.raise_for_status()
        buffer = b""
        async for raw in response.content.iter_any():
            buffer += raw
            *events, buffer = buffer.split(b"\n\n")
            for event in events:
                data = event.removeprefix(b"data: ")
                if data == b"[DONE]":
                    continue
                chunk = json.loads(data)
                for choice in chunk.get("choices") or ():
                    if (choice.get("delta") or {}).get("content"):
                        chunks += 1
                        if first is None:
                            first = time.perf_counter() - started
    if first is None:
        raise RuntimeError(f"no text arrived from {base} ({model_field})")
    return StreamResult(first, chunks)


def request_body(model: str, messages: list[dict[str, Any]], tools: list[Any]) -> bytes:
    return json.dumps(
        {"model": model, "messages": messages, "tools": tools, "stream": True}
    ).encode()


async def first_chunks(base: str, body: bytes, model: str, requests: int) -> list[float]:
    async with aiohttp.ClientSession() as session:
        await one_stream(session, base, body, model)  # warm the connection and the caches
        return [(await one_stream(session, base, body, model)).first_chunk for _ in range(requests)]


async def throughput(
    base: str, body: bytes, model: str, streams: int, rounds: int
) -> tuple[float, int]:
    """(text chunks per second, chunks) over `streams` concurrent streams, `rounds` each."""
    connector = aiohttp.TCPConnector(limit=streams * 2)
    async with aiohttp.ClientSession(connector=connector) as session:
        await one_stream(session, base, body, model)

        async def worker() -> int:
            total = 0
            for _ in range(rounds):
                total += (await one_stream(session, base, body, model)).chunks
            return total

        started = time.perf_counter()
        counts = await asyncio.gather(*(worker() for _ in range(streams)))
        return sum(counts) / (time.perf_counter() - started), sum(counts) + CHUNKS


# --------------------------------------------------------------------------- the agent request


def agent_conversation() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """An OpenCode-shaped conversation: 100 messages, 9 tools, failed results among them."""

    def tool(name: str, description: str, **props: str) -> dict[str, Any]:
        properties = {k: {"type": v, "description": f"The {k} to use."} for k, v in props.items()}
        return {
            "type": "function",
            "function": {
                "name": name,
                "description": description,
                "parameters": {
                    "type": "object",
                    "properties": properties,
                    "required": list(props)[:1],
                    "additionalProperties": False,
                },
            },
        }

    tools = [
        tool("bash", "Run a shell command in the project.", command="string", timeout="integer"),
        tool("read", "Read a file.", filePath="string", offset="integer", limit="integer"),
        tool("write", "Write a file.", filePath="string", content="string"),
        tool(
            "edit",
            "Replace text in a file.",
            filePath="string",
            oldString="string",
            newString="string",
        ),
        tool("glob", "Find files by pattern.", pattern="string", path="string"),
        tool("grep", "Search file contents.", pattern="string", path="string", include="string"),
        tool("list", "List a directory.", path="string"),
        tool("todowrite", "Update the todo list.", todos="array"),
        tool("webfetch", "Fetch a URL.", url="string", format="string"),
    ]
    code = "".join(
        f"    line {i}: value = compute(alpha, beta)  # a line of the file\n" for i in range(16)
    )
    failures = [
        "Error: ENOENT: no such file or directory, open '/repo/src/missing.ts'",
        "Error: oldString not found in content",
        "bash: line 1: pnpm: command not found\nexit code 127",
    ]
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are opencode, an interactive CLI coding agent. " * 40},
        {
            "role": "user",
            "content": "Fix the failing tests in the parser module and explain the change.",
        },
    ]
    calls = [
        ("read", {"filePath": "/repo/src/parser.ts"}),
        ("grep", {"pattern": "parseArgs", "path": "/repo/src"}),
        ("bash", {"command": "npm test -- parser"}),
        ("edit", {"filePath": "/repo/src/parser.ts", "oldString": "a < b", "newString": "a <= b"}),
        ("list", {"path": "/repo/src"}),
    ]
    i = 0
    while len(messages) < 100:
        name, arguments = calls[i % len(calls)]
        call_id = f"call_{i:03d}"
        messages.append(
            {
                "role": "assistant",
                "content": "Let me look at that." if i % 3 == 0 else "",
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": name, "arguments": json.dumps(arguments)},
                    }
                ],
            }
        )
        result = failures[i % len(failures)] if i % 7 == 3 else code
        messages.append({"role": "tool", "tool_call_id": call_id, "content": result})
        i += 1
    return messages[:100], tools


# --------------------------------------------------------------------------- reporting


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f}"


@dataclass
class Target:
    name: str
    base: str
    model: str
    pid: int | None


async def measure(targets: list[Target], requests: int, rounds: int) -> None:
    messages = [{"role": "user", "content": "Tell me about the proxy."}]
    agent_messages, agent_tools = agent_conversation()
    print(
        f"agent request: {len(agent_messages)} messages, {len(agent_tools)} tools, "
        f"{len(request_body(MODEL, agent_messages, agent_tools)) / 1024:.0f} KB of JSON"
    )
    print(
        f"upstream: {CHUNKS} chunks {PACE_MS:g} ms apart; first chunk over {requests} "
        f"requests at concurrency 1; throughput over {rounds} streams per worker\n"
    )
    direct = targets[0]
    results: dict[str, dict[str, float]] = {}
    for target in targets:
        body = request_body(target.model, messages, [WEATHER])
        agent_body = request_body(target.model, agent_messages, agent_tools)
        row: dict[str, float] = {}
        firsts = await first_chunks(target.base, body, target.model, requests)
        row["p50"], row["p99"] = percentile(firsts, 0.5), percentile(firsts, 0.99)
        agent = await first_chunks(target.base, agent_body, target.model, requests)
        row["agent_p50"], row["agent_p99"] = percentile(agent, 0.5), percentile(agent, 0.99)
        for streams in CONCURRENCY:
            cpu_before = cpu_seconds(target.pid) if target.pid else 0.0
            rate, relayed = await throughput(target.base, body, target.model, streams, rounds)
            row[f"tp{streams}"] = rate
            if target.pid and streams == CONCURRENCY[-1]:
                row["cpu_us"] = (cpu_seconds(target.pid) - cpu_before) / relayed * 1e6
        results[target.name] = row
    base = results[direct.name]
    header = (
        "| path | first chunk p50 / p99 (ms) | added p50 / p99 (ms) | agent request p50 / p99 (ms) "
        "| agent added p50 (ms) | throughput 1 / 16 / 64 (x direct) | CPU per chunk (µs) |"
    )
    print(header)
    print("|" + "---|" * 7)
    for target in targets:
        row = results[target.name]
        ratios = " / ".join(f"{row[f'tp{n}'] / base[f'tp{n}']:.3f}" for n in CONCURRENCY)
        cpu = f"{row['cpu_us']:.1f}" if "cpu_us" in row else "-"
        print(
            f"| {target.name} | {ms(row['p50'])} / {ms(row['p99'])} "
            f"| {ms(row['p50'] - base['p50'])} / {ms(row['p99'] - base['p99'])} "
            f"| {ms(row['agent_p50'])} / {ms(row['agent_p99'])} "
            f"| {ms(row['agent_p50'] - base['agent_p50'])} | {ratios} | {cpu} |"
        )
    direct_rates = " / ".join(f"{base[f'tp{n}']:.0f}" for n in CONCURRENCY)
    print(f"\ndirect throughput: {direct_rates} chunks/s")
    proxy = results["toolmend"]
    relay = results.get("minimal relay")
    if relay is not None:
        print(
            f"toolmend over the minimal relay: first chunk p50 {ms(proxy['p50'] - relay['p50'])} "
            f"ms, agent request p50 {ms(proxy['agent_p50'] - relay['agent_p50'])} ms, "
            f"CPU per chunk {proxy['cpu_us'] / relay['cpu_us']:.2f}x"
        )
    checks = [
        (
            "added first-chunk p50",
            (proxy["p50"] - base["p50"]) * 1000,
            GOAL_ADDED_P50_MS,
            "ms",
            False,
        ),
        ("throughput at 64", proxy["tp64"] / base["tp64"], GOAL_THROUGHPUT_64, "x", True),
        ("CPU per chunk", proxy["cpu_us"], GOAL_CPU_PER_CHUNK_US, "µs", False),
        (
            "agent added p50",
            (proxy["agent_p50"] - base["agent_p50"]) * 1000,
            GOAL_AGENT_ADDED_P50_MS,
            "ms",
            False,
        ),
    ]
    print()
    for label, value, goal, unit, at_least in checks:
        held = value >= goal if at_least else value <= goal
        bound = ">=" if at_least else "<="
        print(f"{'PASS' if held else 'MISS'}  {label}: {value:.3f} {unit} (goal {bound} {goal:g})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=40, help="first-chunk samples per row")
    parser.add_argument("--rounds", type=int, default=2, help="streams per worker for throughput")
    parser.add_argument("--upstream-only", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.upstream_only:
        serve_upstream(args.upstream_only)
        return 0
    up_port, proxy_port = free_port(), free_port()
    upstream_url = f"http://127.0.0.1:{up_port}/v1"
    me = os.path.abspath(__file__)
    with process([sys.executable, me, "--upstream-only", str(up_port)], f"{upstream_url}/models"):
        serve = [
            sys.executable,
            "-m",
            "toolmend",
            "serve",
            "--port",
            str(proxy_port),
            "--upstream",
            upstream_url,
            "--log-file",
            os.devnull,
        ]
        relay_port = free_port()
        relay = [sys.executable, RELAY, "--port", str(relay_port), "--upstream", upstream_url]
        with (
            process(serve, f"http://127.0.0.1:{proxy_port}/healthz") as proxy,
            process(relay, f"http://127.0.0.1:{relay_port}/healthz") as relay_proc,
        ):
            targets = [
                Target("direct", upstream_url, MODEL, None),
                Target("toolmend", f"http://127.0.0.1:{proxy_port}/v1", MODEL, proxy.pid),
                Target("minimal relay", f"http://127.0.0.1:{relay_port}/v1", MODEL, relay_proc.pid),
            ]
            litellm = shutil.which("litellm")
            if litellm is None:
                print("LiteLLM is not installed: its row is left out.")
                asyncio.run(measure(targets, args.requests, args.rounds))
                return 0
            lite_port = free_port()
            lite = [
                litellm,
                "--model",
                f"openai/{MODEL}",
                "--api_base",
                upstream_url,
                "--port",
                str(lite_port),
            ]
            try:
                with process(
                    lite, f"http://127.0.0.1:{lite_port}/health/liveliness", LITELLM_ENV
                ) as lite_proc:
                    targets.append(
                        Target(
                            "LiteLLM",
                            f"http://127.0.0.1:{lite_port}",
                            f"openai/{MODEL}",
                            lite_proc.pid,
                        )
                    )
                    asyncio.run(measure(targets, args.requests, args.rounds))
            except DidNotStart as exc:
                print(
                    f"LiteLLM's proxy did not start ({exc}; is `litellm[proxy]` installed?): "
                    "its row is left out."
                )
                asyncio.run(measure(targets, args.requests, args.rounds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
