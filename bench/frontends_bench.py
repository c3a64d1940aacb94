"""Front-end cost: `/v1/messages` and `/v1/responses` beside `/v1/chat/completions` and direct.

The machinery of `bench/proxy_bench.py`: its paced scripted upstream in its own process (200
text chunks 5 ms apart), `toolmend serve` in its own process (native mode, recovery and guard
on, the request carrying a tool), so the proxy's CPU time is read from /proc alone, and an
aiohttp load generator in this process. For the upstream direct (chat) and for each endpoint
through toolmend:

- time to the first answer event at concurrency 1 (p50, p99 over `--requests`): the first
  content chunk on chat, the first `text_delta` on Messages, the first
  `response.output_text.delta` on Responses; the added time is the figure minus direct's;
- throughput (answer-text events per second over all streams) at 64 concurrent streams, as a
  ratio to direct's;
- the proxy's CPU time per upstream chunk over those 64-stream runs.

Goals (from the front-end issue): the front-ends' added first-event time and CPU per chunk
within 1.2x of the chat endpoint's, and throughput at 64 streams at least 0.95x direct.
Each goal is printed with PASS or MISS. The endpoints are measured in turn, `--rounds` times,
and each figure is the best of its rounds (on a shared machine the best round is the least
disturbed one). Each round's ratios are printed too, taken within the round (its endpoints ran
minutes apart at most, so a load that drifts over the run moves both sides of a ratio), with
their median over the rounds and the goals checked against those medians.

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


async def run(base: str, endpoint: Endpoint, requests: int, pid: int | None) -> dict[str, float]:
    url = base + endpoint.path
    connector = aiohttp.TCPConnector(limit=STREAMS * 2)
    async with aiohttp.ClientSession(connector=connector) as session:
        await one_stream(session, url, endpoint)  # warm the connection and the caches
        firsts = [(await one_stream(session, url, endpoint))[0] for _ in range(requests)]
        cpu_before = cpu_seconds(pid) if pid else 0.0
        started = time.perf_counter()
        counts = await asyncio.gather(*(one_stream(session, url, endpoint) for _ in range(STREAMS)))
        elapsed = time.perf_counter() - started
        cpu = (cpu_seconds(pid) - cpu_before) if pid else 0.0
    row = {
        "p50": percentile(firsts, 0.5),
        "p99": percentile(firsts, 0.99),
        "tp64": sum(n for _, n in counts) / elapsed,
    }
    if pid:
        row["cpu_us"] = cpu / (STREAMS * CHUNKS) * 1e6
    return row


def best(rows: list[dict[str, float]]) -> dict[str, float]:
    """Each figure's best over the rounds: the lowest time and CPU, the highest throughput."""
    return {key: (max if key == "tp64" else min)(row[key] for row in rows) for key in rows[0]}


def report(direct: dict[str, float], rows: dict[str, dict[str, float]]) -> None:
    print(
        "| path | first event p50 / p99 (ms) | added p50 / p99 (ms) | throughput at 64 "
        "(x direct) | CPU per chunk (µs) |"
    )
    print("|" + "---|" * 5)
    print(f"| direct | {direct['p50'] * 1e3:.2f} / {direct['p99'] * 1e3:.2f} | - | 1.000 | - |")
    for name, row in rows.items():
        added50, added99 = (row["p50"] - direct["p50"]) * 1e3, (row["p99"] - direct["p99"]) * 1e3
        print(
            f"| {name} | {row['p50'] * 1e3:.2f} / {row['p99'] * 1e3:.2f} | {added50:.2f} / "
            f"{added99:.2f} | {row['tp64'] / direct['tp64']:.3f} | {row['cpu_us']:.1f} |"
        )
    print()
    for label, value in ratios(direct, rows).items():
        print(f"{verdict(label, value)} {label}: {value:.3f}")


def ratios(direct: dict[str, float], rows: dict[str, dict[str, float]]) -> dict[str, float]:
    """One round's goal figures: the front-ends' added first event and CPU as multiples of the
    chat endpoint's, every endpoint's 64-stream throughput as a multiple of direct's."""
    chat = rows["chat"]
    chat_added = max(chat["p50"] - direct["p50"], 1e-6)
    out: dict[str, float] = {}
    for name in ("messages", "responses"):
        out[f"{name} added first-event p50 (x chat)"] = (
            rows[name]["p50"] - direct["p50"]
        ) / chat_added
        out[f"{name} CPU per chunk (x chat)"] = rows[name]["cpu_us"] / chat["cpu_us"]
    for name, row in rows.items():
        out[f"{name} throughput at 64 (x direct)"] = row["tp64"] / direct["tp64"]
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
        f"upstream: {CHUNKS} chunks 5 ms apart; first event over {requests} requests at "
        f"concurrency 1; throughput over {STREAMS} streams; best of {rounds} rounds\n"
    )
    direct_rounds: list[dict[str, float]] = []
    proxied: dict[str, list[dict[str, float]]] = {e.name: [] for e in ENDPOINTS}
    for _ in range(rounds):
        direct_rounds.append(await run(upstream, ENDPOINTS[0], requests, None))
        for endpoint in ENDPOINTS:
            proxied[endpoint.name].append(await run(proxy, endpoint, requests, pid))
    report(best(direct_rounds), {name: best(rows) for name, rows in proxied.items()})
    report_rounds(
        [
            ratios(direct, {name: rows[i] for name, rows in proxied.items()})
            for i, direct in enumerate(direct_rounds)
        ]
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=30, help="first-event samples per row")
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
