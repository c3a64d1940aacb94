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
sends the same tools and a history that only grows. The guard's readings (`guard.replays`)
are one of those caches, so the guard's stage and the whole request are measured three ways:
`again` (the same history: every message read before), `next turn` (the history without its
last two messages read before, as an agent's next request finds it) and `cold` (no reading
kept: a worker's first request of a conversation). The last two have a step before each call
(clearing the readings, reading the shorter history), so each of their calls is timed alone
and the clock's own cost (an empty call timed alone) is taken off.

With `--count instructions` it runs itself under `valgrind --tool=callgrind` instead (as
`bench/pipeline_instructions.py` does: a marker call before and after each call) and gives each
stage's median instructions per call over `--repeats` calls (5 is plenty: they barely vary),
which a busy machine does not change.

    python bench/agent_request_cpu.py [--repeats 200] [--rounds 5] [--count cpu|instructions]

Measured (`--count instructions --repeats 5`, millions of instructions per call) before the
guard kept its readings (e81c42b) and with them (`guard.replays`):

    stage                      before    again   next turn   cold
    guard history               3.61     1.23      1.37      4.86
    whole request, 100 msgs     6.76     4.24      4.22      7.90

A kept reading costs what finding it costs: each message's pickle (0.61 M for this history),
the hash chain over them (0.10 M) and the guided copies (0.16 M); a cold request pays those
on top of the reading it always paid (the first request of a conversation on a worker).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from pipeline_instructions import (
    MARKER,
    InProcessProxy,
    answer_chunks,
    callgrind_segments,
    sse_reads,
)
from proxy_bench import MODEL, agent_conversation
from toolmend.server import wirejson
from toolmend.server.chat import (
    ChatPipeline,
    check_chat_body,
    guarded_history,
    parse_tools,
)
from toolmend.server.guarding import READINGS
from toolmend.server.requestlog import RequestRecord

ENDPOINT = "/v1/chat/completions"


def nothing() -> None:
    """The empty call whose timing alone is the clock's own cost."""


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


def best_mean_after(
    before: Callable[[], object], call: Callable[[], object], repeats: int, rounds: int
) -> float:
    """`best_mean` of `call` made after `before` each time, each call timed alone."""
    for _ in range(min(repeats, 20)):
        before()
        call()
    means = []
    for _ in range(rounds):
        gc.collect()
        spent = 0.0
        for _ in range(repeats):
            before()
            start = time.process_time()
            call()
            spent += time.process_time() - start
        means.append(spent / repeats)
    return min(means)


#: A stage: the step before each call (None: none), and the call.
Stage = tuple[Callable[[], object] | None, Callable[[], object]]


def stages(proxy: InProcessProxy, raw: bytes) -> dict[str, Stage]:
    """Each stage of the path to the upstream as a call on the same parsed request."""
    state = proxy.app.state.toolmend
    body = wirejson.loads(raw)
    rule = state.config.rule_for(body["model"])
    upstream = state.config.upstream(rule.upstream)
    tools = parse_tools(body)
    messages = body["messages"]

    def guard(history: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], Any]:
        return guarded_history(rule, history, tools, RequestRecord("r", ENDPOINT))

    def read_before() -> None:
        READINGS.clear()
        guard(messages[:-2])

    history, gate = guard(messages)
    pipeline = ChatPipeline(
        state, RequestRecord("r", ENDPOINT), body, rule, upstream, tools, history, {}, guard=gate
    )
    return {
        "parse body": (None, lambda: wirejson.loads(raw)),
        "check body": (None, lambda: check_chat_body(body)),
        "tools": (None, lambda: parse_tools(body)),
        "guard history, again": (None, lambda: guard(messages)),
        "guard history, next turn": (read_before, lambda: guard(messages)),
        "guard history, cold": (READINGS.clear, lambda: guard(messages)),
        "upstream body": (None, lambda: wirejson.dumps(pipeline.upstream_body(history))),
    }


def agent_bytes() -> int:
    """The agent request's size, for the figures' heading."""
    return len(json.dumps(agent_body()).encode())


def all_stages(proxy: InProcessProxy, loop: asyncio.AbstractEventLoop) -> dict[str, Stage]:
    """The stages, then the whole request (again, next turn, cold, and with two messages)."""
    reads = sse_reads(answer_chunks("text", 1))
    raw = json.dumps(agent_body()).encode()
    short = json.dumps(agent_body(2)).encode()
    prefix = json.dumps(agent_body(-2)).encode()

    def request(body: bytes) -> bytes:
        return loop.run_until_complete(proxy.request(ENDPOINT, body, list(reads)))

    def read_before() -> None:
        READINGS.clear()
        request(prefix)

    return {
        **stages(proxy, raw),
        "whole request, again": (None, lambda: request(raw)),
        "whole request, next turn": (read_before, lambda: request(raw)),
        "whole request, cold": (READINGS.clear, lambda: request(raw)),
        "whole request, 2 messages": (None, lambda: request(short)),
    }


def count_instructions(argv: list[str]) -> int:
    """Each stage's median instructions per call, read from callgrind's dumps of the child."""
    counted = callgrind_segments(__file__, argv)
    if counted is None:
        return 1
    totals, layout = counted
    calls = totals[1::2]  # a marker before and after each call: a call, a step, a call, ...
    print(f"agent request: {agent_bytes()} bytes; instructions, median per call")
    for name, repeats in json.loads(layout):
        print(f"  {name:<34} {statistics.median(calls[:repeats]):>11,.0f}")
        calls = calls[repeats:]
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--count", choices=("cpu", "instructions", "child"), default="cpu")
    args = parser.parse_args()
    if args.count == "instructions":
        return count_instructions(sys.argv[1:])
    proxy = InProcessProxy()
    loop = asyncio.new_event_loop()
    measured = all_stages(proxy, loop)
    if args.count == "child":
        for before, call in measured.values():
            for _ in range(3):  # the caches filled, as in `best_mean`
                if before is not None:
                    before()
                call()
            for _ in range(args.repeats):
                if before is not None:
                    before()
                MARKER()
                call()
                MARKER()
        print(json.dumps([[name, args.repeats] for name in measured]))
        return 0
    print(f"agent request: {agent_bytes()} bytes; µs CPU, best of {args.rounds} x {args.repeats}")
    clock = best_mean_after(nothing, nothing, args.repeats, args.rounds)
    for name, (before, call) in measured.items():
        if before is None:
            spent = best_mean(call, args.repeats, args.rounds)
        else:
            spent = best_mean_after(before, call, args.repeats, args.rounds) - clock
        print(f"  {name:<34} {spent * 1e6:8.1f}")
    loop.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
