"""What the proxy does with an agent's request before its first upstream byte, stage by stage.

`bench/proxy_bench.py` measures the agent request (`agent_conversation`: OpenCode-shaped, 100
messages, 9 tools, about 60 KB) over sockets, where the wall clock of a shared machine is noisy.
This runs the same body in process and reads `time.process_time` over many repetitions, for
each stage of the chat endpoint's path to the upstream (the functions `chat._serve` calls, in
its order) and for the whole request through the real app (`pipeline_instructions`'
`InProcessProxy`: the ASGI call, the pipeline, a one-sentence scripted answer), beside the same
request with only its first two messages (what the history's length costs).

A stage's figure is the best of `--rounds` means over `--repeats` calls, after warm-up calls
that fill the per-worker caches, as a worker serving one agent has them filled: the agent
sends the same tools and a history that only grows.

    python bench/agent_request_cpu.py [--repeats 200] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import sys
import time
from collections.abc import Callable
from typing import Any

from pipeline_instructions import InProcessProxy, answer_chunks, sse_reads
from proxy_bench import MODEL, agent_conversation
from toolmend.server import wirejson
from toolmend.server.chat import (
    ChatPipeline,
    check_chat_body,
    guarded_history,
    parse_tools,
)
from toolmend.server.requestlog import RequestRecord

ENDPOINT = "/v1/chat/completions"


def agent_body(messages: int | None = None) -> dict[str, Any]:
    history, tools = agent_conversation()
    return {
        "model": MODEL,
        "stream": True,
        "stream_options": {"include_usage": True},
        "tools": tools,
        "messages": history[:messages],
    }


def best_mean(call: Callable[[], object], repeats: int, rounds: int) -> float:
    """The lowest mean CPU seconds of one call over `rounds` rounds of `repeats` calls."""
    for _ in range(min(repeats, 20)):
        call()
    means = []
    for _ in range(rounds):
        gc.collect()
        start = time.process_time()
        for _ in range(repeats):
            call()
        means.append((time.process_time() - start) / repeats)
    return min(means)


def stages(proxy: InProcessProxy, raw: bytes) -> dict[str, Callable[[], object]]:
    """Each stage of the path to the upstream as a call on the same parsed request."""
    state = proxy.app.state.toolmend
    body = wirejson.loads(raw)
    rule = state.config.rule_for(body["model"])
    upstream = state.config.upstream(rule.upstream)
    tools = parse_tools(body)
    history, guard = guarded_history(rule, body["messages"], tools, RequestRecord("r", ENDPOINT))
    pipeline = ChatPipeline(
        state, RequestRecord("r", ENDPOINT), body, rule, upstream, tools, history, {}, guard=guard
    )
    return {
        "parse body": lambda: wirejson.loads(raw),
        "check body": lambda: check_chat_body(body),
        "tools": lambda: parse_tools(body),
        "guard history": lambda: guarded_history(
            rule, body["messages"], tools, RequestRecord("r", ENDPOINT)
        ),
        "upstream body": lambda: wirejson.dumps(pipeline.upstream_body(history)),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    proxy = InProcessProxy()
    loop = asyncio.new_event_loop()
    reads = sse_reads(answer_chunks("text", 1))
    raw = json.dumps(agent_body()).encode()
    short = json.dumps(agent_body(2)).encode()
    print(f"agent request: {len(raw)} bytes; µs CPU, best of {args.rounds} x {args.repeats}")
    for name, call in stages(proxy, raw).items():
        print(f"  {name:<28} {best_mean(call, args.repeats, args.rounds) * 1e6:8.1f}")
    for name, body in (("whole request, 100 messages", raw), ("whole request, 2 messages", short)):

        def request(body: bytes = body) -> bytes:
            return loop.run_until_complete(proxy.request(ENDPOINT, body, list(reads)))

        print(f"  {name:<28} {best_mean(request, args.repeats, args.rounds) * 1e6:8.1f}")
    loop.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
