"""Front-end cost: `/v1/messages` and `/v1/responses` beside `/v1/chat/completions` and direct.

The machinery of `bench/proxy_bench.py`: its paced scripted upstream in its own process (200
text chunks 5 ms apart), `toolmend serve` in its own process (native mode, recovery and guard
on, the request carrying a tool), so the proxy's CPU time is read from /proc alone, and an
aiohttp load generator in this process. For the upstream direct (chat) and for each endpoint
through toolmend:

- the time each endpoint adds to the first answer event at concurrency 1 (the first content
  chunk on chat, the first `text_delta` on Messages, the first `response.output_text.delta` on
  Responses), paired: each round runs `--requests` cycles of one request direct and one
  through every endpoint back to back, the order rotated every cycle, and an endpoint's added
  time is its first event less direct's in the same cycle (p50 and p99 of the pairs);
- throughput (answer-text events per second over all streams) at 64 concurrent streams, as a
  ratio to direct's;
- the proxy's CPU time per upstream chunk over those 64-stream runs.

Goals (from the front-end issue): the front-ends' added first-event time and CPU per chunk
within 1.2x of the chat endpoint's, and throughput at 64 streams at least 0.95x direct.
Each goal is printed with PASS or MISS, twice: over every round's pairs pooled (first events:
the median of all pairs; load figures: the best round's, the least disturbed on a shared
machine), and per round with the median over the rounds. A first-event ratio is a ratio of
medians of pairs, never a difference of two medians taken minutes apart (on a loaded machine
those moved by more than the ~1 ms being measured).

    python bench/frontends_bench.py [--requests N] [--rounds R]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import aiohttp

from proxy_bench import CHUNKS, MODEL, WEATHER, cpu_seconds, percentile, process
from toolmend.server.loopback import free_port

STREAMS = 64
GOAL_FRONTEND_X_CHAT = 1.2
GOAL_THROUGHPUT_64 = 0.95
PROMPT = "Tell me about the proxy."
ANTHROPIC_WEATHER = {
    "name": WEATHER["function"]["name"],
    "description": WEATHER["function"]["description"],
    "input_schema": WEATHER["function"]["parameters"],
}
RESPONSES_WEATHER = {"type": "function", **WEATHER["function"]}

IsAnswerText = Callable[[dict[str, Any]], bool]


@dataclass(frozen=True)
class Endpoint:
    name: str
    path: str
    body: bytes
    is_text: IsAnswerText


def _chat_text(event: dict[str, Any]) -> bool:
    return any((c.get("delta") or {}).get("content") for c in event.get("choices") or ())


ENDPOINTS = (
    Endpoint(
        "chat",
        "/v1/chat/completions",
        json.dumps(
            {
                "model": MODEL,
                "stream": True,
                # The front-ends always ask for the usage chunk (their last event carries it),
                # so the chat and direct rows ask too: every row streams the same chunks.
                "stream_options": {"include_usage": True},
                "tools": [WEATHER],
                "messages": [{"role": "user", "content": PROMPT}],
            }
        ).encode(),
        _chat_text,
    ),
    Endpoint(
        "messages",
        "/v1/messages",
        json.dumps(
            {
                "model": MODEL,
                "max_tokens": 4096,
                "stream": True,
                "tools": [ANTHROPIC_WEATHER],
                "messages": [{"role": "user", "content": PROMPT}],
            }
        ).encode(),
        lambda event: event.get("type") == "content_block_delta",
    ),
    Endpoint(
        "responses",
        "/v1/responses",
        json.dumps(
            {
                "model": MODEL,
                "stream": True,
                "store": False,
                "tools": [RESPONSES_WEATHER],
                "input": PROMPT,
            }
        ).encode(),
        lambda event: event.get("type") == "response.output_text.delta",
    ),
)


async def one_stream(
    session: aiohttp.ClientSession, url: str, endpoint: Endpoint
) -> tuple[float, int]:
    """Seconds to the first answer-text event, and the answer-text events read."""
    started = time.perf_counter()
    first: float | None = None
    texts = 0
    headers = {"Content-Type": "application/json", "Authorization": "Bearer sk-bench"}
    async with session.post(url, data=endpoint.body, headers=headers) as response:
        response.raise_for_status()
        buffer = b""
        async for raw in response.content.iter_any():
            buffer += raw
            *events, buffer = buffer.split(b"\n\n")
            for event in events:
                data = next(
                    (line[6:] for line in event.split(b"\n") if line.startswith(b"data: ")), None
                )
                if data is None or data == b"[DONE]":
                    continue
                if endpoint.is_text(json.loads(data)):
                    texts += 1
                    if first is None:
                        first = time.perf_counter() - started
    if first is None:
        raise RuntimeError(f"no answer text arrived from {url}")
    return first, texts


async def first_events(
    upstream: str, proxy: str, requests: int
) -> tuple[list[float], dict[str, list[float]]]:
    """Direct's first-event times, and each endpoint's added time to its first event, paired:
    `requests` cycles, each a request direct and one through every endpoint back to back, in
    an order rotated every cycle (no endpoint always runs first, or right after another), each
    endpoint's time less direct's of the same cycle. A load that drifts over the run moves
    both sides of a pair, so the median of the pairs holds still where a difference of two
    medians taken minutes apart does not."""
    targets = [(upstream, ENDPOINTS[0], "direct")] + [(proxy, e, e.name) for e in ENDPOINTS]
    connector = aiohttp.TCPConnector(limit=STREAMS * 2)
    direct: list[float] = []
    added: dict[str, list[float]] = {e.name: [] for e in ENDPOINTS}
    async with aiohttp.ClientSession(connector=connector) as session:
        for base, endpoint, _ in targets:  # warm the connections and the caches
            await one_stream(session, base + endpoint.path, endpoint)
        for cycle in range(requests):
            shift = cycle % len(targets)
            times: dict[str, float] = {}
            for base, endpoint, name in targets[shift:] + targets[:shift]:
                times[name] = (await one_stream(session, base + endpoint.path, endpoint))[0]
            direct.append(times["direct"])
            for name, values in added.items():
                values.append(times[name] - times["direct"])
    return direct, added


async def load(base: str, endpoint: Endpoint, pid: int | None) -> dict[str, float]:
    """Throughput over `STREAMS` concurrent streams and, through the proxy, its CPU per chunk."""
    connector = aiohttp.TCPConnector(limit=STREAMS * 2)
    async with aiohttp.ClientSession(connector=connector) as session:
        url = base + endpoint.path
        await one_stream(session, url, endpoint)  # warm the connection
        cpu_before = cpu_seconds(pid) if pid else 0.0
        started = time.perf_counter()
        counts = await asyncio.gather(*(one_stream(session, url, endpoint) for _ in range(STREAMS)))
        elapsed = time.perf_counter() - started
        cpu = (cpu_seconds(pid) - cpu_before) if pid else 0.0
    row = {"tp64": sum(n for _, n in counts) / elapsed}
    if pid:
        row["cpu_us"] = cpu / (STREAMS * CHUNKS) * 1e6
    return row


@dataclass
class Round:
    """One round's figures: the paired first events, then each path's load."""

    direct_first: list[float]
    added: dict[str, list[float]]
    direct_load: dict[str, float]
    loads: dict[str, dict[str, float]]


def report(rounds: list[Round]) -> None:
    """The table: first events over every round's pairs, load figures the best round's (the
    lowest CPU, the highest throughput: on a shared machine the least disturbed one)."""
    direct_first = [t for r in rounds for t in r.direct_first]
    direct_tp = max(r.direct_load["tp64"] for r in rounds)
    print(
        "| path | added first event p50 / p99 (ms, paired) | throughput at 64 "
        "(x direct) | CPU per chunk (µs) |"
    )
    print("|" + "---|" * 4)
    d50, d99 = percentile(direct_first, 0.5) * 1e3, percentile(direct_first, 0.99) * 1e3
    print(f"| direct | first event {d50:.2f} / {d99:.2f} | 1.000 | - |")
    for name in rounds[0].loads:
        added = [t for r in rounds for t in r.added[name]]
        tp = max(r.loads[name]["tp64"] for r in rounds)
        cpu = min(r.loads[name]["cpu_us"] for r in rounds)
        print(
            f"| {name} | {percentile(added, 0.5) * 1e3:.2f} / {percentile(added, 0.99) * 1e3:.2f}"
            f" | {tp / direct_tp:.3f} | {cpu:.1f} |"
        )
    print("\nover every round's pairs:\n")
    pooled = Round(
        direct_first,
        {name: [t for r in rounds for t in r.added[name]] for name in rounds[0].added},
        {"tp64": direct_tp},
        {
            name: {
                "tp64": max(r.loads[name]["tp64"] for r in rounds),
                "cpu_us": min(r.loads[name]["cpu_us"] for r in rounds),
            }
            for name in rounds[0].loads
        },
    )
    for label, value in ratios(pooled).items():
        print(f"{verdict(label, value)} {label}: {value:.3f}")


def ratios(one: Round) -> dict[str, float]:
    """The goal figures: the front-ends' added first event (the median of its pairs) and CPU
    as multiples of the chat endpoint's, every endpoint's 64-stream throughput as a multiple
    of direct's."""
    chat_added = max(statistics.median(one.added["chat"]), 1e-6)
    chat_cpu = one.loads["chat"]["cpu_us"]
    out: dict[str, float] = {}
    for name in ("messages", "responses"):
        out[f"{name} added first-event p50 (x chat)"] = (
            statistics.median(one.added[name]) / chat_added
        )
        out[f"{name} CPU per chunk (x chat)"] = one.loads[name]["cpu_us"] / chat_cpu
    for name, row in one.loads.items():
        out[f"{name} throughput at 64 (x direct)"] = row["tp64"] / one.direct_load["tp64"]
    return out


def verdict(label: str, value: float) -> str:
    """PASS or MISS for one figure of `ratios` against its goal."""
    if "throughput" in label:
        return "PASS" if value >= GOAL_THROUGHPUT_64 else "MISS"
    return "PASS" if value <= GOAL_FRONTEND_X_CHAT else "MISS"


def report_rounds(per_round: list[dict[str, float]]) -> None:
    print("\nper round, and the median over the rounds:\n")
    for label in per_round[0]:
        values = [r[label] for r in per_round]
        median = statistics.median(values)
        rounds = " ".join(f"{v:.3f}" for v in values)
        print(f"{verdict(label, median)} {label}: median {median:.3f} (rounds {rounds})")


async def measure(upstream: str, proxy: str, pid: int, requests: int, rounds: int) -> None:
    print(
        f"upstream: {CHUNKS} chunks 5 ms apart; first event over {requests} paired cycles a "
        f"round at concurrency 1; throughput over {STREAMS} streams; {rounds} rounds\n"
    )
    done: list[Round] = []
    for _ in range(rounds):
        direct_first, added = await first_events(upstream, proxy, requests)
        direct_load = await load(upstream, ENDPOINTS[0], None)
        loads = {e.name: await load(proxy, e, pid) for e in ENDPOINTS}
        done.append(Round(direct_first, added, direct_load, loads))
    report(done)
    report_rounds([ratios(one) for one in done])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--requests", type=int, default=40, help="paired first-event cycles per round"
    )
    parser.add_argument("--rounds", type=int, default=3, help="rounds over every endpoint")
    args = parser.parse_args()
    up_port, proxy_port = free_port(), free_port()
    upstream_url = f"http://127.0.0.1:{up_port}"
    proxy_bench = os.path.join(os.path.dirname(os.path.abspath(__file__)), "proxy_bench.py")
    upstream_cmd = [sys.executable, proxy_bench, "--upstream-only", str(up_port)]
    with tempfile.TemporaryDirectory() as scratch:
        config = os.path.join(scratch, "toolmend.toml")
        with open(config, "w", encoding="utf-8") as handle:
            handle.write(f'[frontends]\nresponse_store = "sqlite://{scratch}/responses.sqlite3"\n')
        serve = [
            *(sys.executable, "-m", "toolmend", "serve", "--config", config),
            *("--port", str(proxy_port), "--upstream", f"{upstream_url}/v1"),
            *("--log-file", os.devnull),
        ]
        with (
            process(upstream_cmd, f"{upstream_url}/v1/models"),
            process(serve, f"http://127.0.0.1:{proxy_port}/healthz") as proxy,
        ):
            base = f"http://127.0.0.1:{proxy_port}"
            asyncio.run(measure(upstream_url, base, proxy.pid, args.requests, args.rounds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
