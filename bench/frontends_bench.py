"""Front-end cost: `/v1/messages` and `/v1/responses` against `/v1/chat/completions`, side by side.

One paced scripted upstream (5 ms per chunk, 200 chunks) on loopback, one toolmend proxy
(recovery and guard on) in front of it, each served by uvicorn in its own thread of this
process. For each endpoint, and for the upstream direct:

* added time to the first answer event (p50, p99, over `--requests` sequential requests):
  the first content chunk on chat, the first `text_delta` on Messages, the first
  `response.output_text.delta` on Responses, minus the same figure direct;
* proxy CPU per upstream chunk: the proxy thread's own run time (from /proc, so the client
  and the upstream are not counted) over a batch of 16 streams, divided by the chunks; the
  best of `--rounds` rounds taken in turn over the endpoints;
* throughput at `--streams` concurrent streams, as a ratio to direct.

The issue's goals: the front-ends' added first-event time and CPU per chunk within 1.2x of the
chat endpoint's, throughput at 64 streams at least 0.95x direct. Run:
`python bench/frontends_bench.py` (about a minute); it prints one table.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp

from toolmend.server import create_app
from toolmend.server.config import ServerConfig, Upstream
from toolmend.server.demo.scripted import Answer, Script, ScriptedUpstream
from toolmend.server.frontends.response_store import SQLiteResponseStore
from toolmend.server.loopback import LoopbackServer

CHUNKS = 200
PACE_MS = 5.0
WORD = "word "
PROMPT = "write a long answer"


def _bodies(model: str) -> dict[str, tuple[str, dict[str, Any], Callable[[dict[str, Any]], bool]]]:
    """Per endpoint: path, streaming body, and whether an event is the first answer text."""
    return {
        "chat": (
            "/v1/chat/completions",
            {"model": model, "stream": True, "messages": [{"role": "user", "content": PROMPT}]},
            lambda e: bool((e.get("choices") or [{}])[0].get("delta", {}).get("content")),
        ),
        "messages": (
            "/v1/messages",
            {
                "model": model,
                "max_tokens": 4096,
                "stream": True,
                "messages": [{"role": "user", "content": PROMPT}],
            },
            lambda e: e.get("type") == "content_block_delta",
        ),
        "responses": (
            "/v1/responses",
            {"model": model, "stream": True, "store": False, "input": PROMPT},
            lambda e: e.get("type") == "response.output_text.delta",
        ),
    }


async def _one(
    session: aiohttp.ClientSession, url: str, body: dict[str, Any], first: Callable[..., bool]
) -> tuple[float, int]:
    """Seconds to the first answer event, and the number of data events read."""
    start = time.perf_counter()
    ttfe = -1.0
    events = 0
    async with session.post(url, json=body) as response:
        response.raise_for_status()
        async for raw in response.content:
            line = raw.decode().strip()
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            events += 1
            if ttfe < 0 and first(json.loads(line[6:])):
                ttfe = time.perf_counter() - start
    return ttfe, events


def _thread_cpu_ns(server: LoopbackServer) -> int:
    tid = server._thread.native_id  # the proxy's own thread
    return int(Path(f"/proc/self/task/{tid}/schedstat").read_text().split()[0])


async def _measure(
    base: str, path: str, body: dict[str, Any], first: Callable[..., bool], args: argparse.Namespace
) -> dict[str, float]:
    url = base + path
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as session:
        await _one(session, url, body, first)  # warm up
        ttfes = [(await _one(session, url, body, first))[0] for _ in range(args.requests)]
        start = time.perf_counter()
        results = await asyncio.gather(
            *(_one(session, url, body, first) for _ in range(args.streams))
        )
        elapsed = time.perf_counter() - start
    ttfes.sort()
    return {
        "ttfe_p50": statistics.median(ttfes) * 1000,
        "ttfe_p99": ttfes[min(len(ttfes) - 1, int(len(ttfes) * 0.99))] * 1000,
        "throughput": sum(n for _, n in results) / elapsed,
    }


async def _cpu_per_chunk(
    proxy: LoopbackServer, path: str, body: dict[str, Any], first: Callable[..., bool]
) -> float:
    url = proxy.url + path
    async with aiohttp.ClientSession() as session:
        before = _thread_cpu_ns(proxy)
        await asyncio.gather(*(_one(session, url, body, first) for _ in range(16)))
        used = _thread_cpu_ns(proxy) - before
    return used / 1000 / (16 * CHUNKS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--streams", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    answer = Answer(content=WORD * CHUNKS, chunk_size=len(WORD), pace_ms=PACE_MS)
    upstream = ScriptedUpstream({"paced": Script(answer)})
    with LoopbackServer(upstream.app()) as model_server:
        config = ServerConfig(
            upstreams=(Upstream("paced", f"{model_server.url}/v1"),), log_file=os.devnull
        )
        app = create_app(config)
        app.state.response_store = SQLiteResponseStore(":memory:")
        with LoopbackServer(app) as proxy:
            bodies = _bodies("paced")
            direct = asyncio.run(_measure(model_server.url, *bodies["chat"], args))
            rows = {}
            for name, (path, body, first) in bodies.items():
                rows[name] = asyncio.run(_measure(proxy.url, path, body, first, args))
            # CPU: rounds over every endpoint in turn, each endpoint's best round (the machine
            # is shared; the best round is the one least disturbed).
            for _ in range(args.rounds):
                for name, (path, body, first) in bodies.items():
                    cpu = asyncio.run(_cpu_per_chunk(proxy, path, body, first))
                    rows[name]["cpu_us"] = min(rows[name].get("cpu_us", cpu), cpu)
    print(f"direct: first event p50 {direct['ttfe_p50']:.2f} ms, p99 {direct['ttfe_p99']:.2f} ms")
    header = "endpoint    +p50 ms  +p99 ms  CPU µs/chunk  x chat CPU  tput x direct  tput x chat"
    print(header)
    chat_cpu = rows["chat"]["cpu_us"]
    chat_tput = rows["chat"]["throughput"]
    for name, row in rows.items():
        added50 = row["ttfe_p50"] - direct["ttfe_p50"]
        added99 = row["ttfe_p99"] - direct["ttfe_p99"]
        ratio = row["throughput"] / direct["throughput"]
        print(
            f"{name:<10} {added50:8.2f} {added99:8.2f} {row['cpu_us']:13.1f} "
            f"{row['cpu_us'] / chat_cpu:11.2f} {ratio:14.3f} {row['throughput'] / chat_tput:12.3f}"
        )


if __name__ == "__main__":
    main()
