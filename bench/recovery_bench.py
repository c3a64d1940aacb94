"""Leak recovery's cost over the wire format, side by side with what it wraps.

Two goals (the leak-recovery issue):

1. A 50 KB leaked call in 5-character `delta.content` chunks costs at most 1.5x the bare stream
   parser on the same text, and stays linear (50 -> 500 KB: at most 11x the time). The call is
   `stream_bench`'s `write_file` call, rendered by the model family's format, with prose around
   it; the bare parser is the one recovery selects for that model, fed the same 5-character
   pieces; recovery is fed the same pieces as `chat.completion.chunk` dicts built beforehand.
2. Prose without markup, 10,000 chunks: at most 3 µs of CPU per chunk above a pass-through that
   only copies each chunk dict.

CPU time, best of several rounds (this machine's cores are shared; see `stream_bench`).

    python bench/recovery_bench.py [--repeat ROUNDS]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import toolmend
from stream_bench import DELTA, TOOLS, calibration_loop, content_of, cpu_seconds

GOAL_RATIO = 1.5
GOAL_GROWTH = 11.0
GOAL_PROSE_US = 3.0
PROSE_CHUNKS = 10_000
#: model id -> the format its leaked call is written in (the family default recovery picks).
FAMILIES = {
    "claude-opus-4-1": "antml",
    "kimi-k2-instruct": "kimi-xtml",
    "qwen3-coder-30b": "auto",
}
#: The format that writes the call for a model read by `auto`.
WRITTEN_AS = {"antml": "antml", "kimi-xtml": "kimi-xtml", "auto": "hermes"}


def chunk(text: str, model: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-bench",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": model,
        "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}],
    }


def pieces_of(text: str) -> list[str]:
    return [text[i : i + DELTA] for i in range(0, len(text), DELTA)]


def leaked_call(protocol: str, kb: int) -> str:
    call = toolmend.ToolCall(
        id="call_1", name="write_file", arguments={"file_path": "a.py", "content": content_of(kb)}
    )
    markup = toolmend.get_protocol(WRITTEN_AS[protocol]).render_call(call)
    return f"I'll write the file now.\n\n{markup}\n\nDone."


def bare_run(protocol: str, pieces: list[str]) -> Callable[[], None]:
    def run() -> None:
        parser = toolmend.stream_parser(protocol, TOOLS)
        for piece in pieces:
            parser.feed(piece)
        parser.finish()

    return run


def recovery_run(model: str, chunks: list[dict[str, Any]]) -> Callable[[], None]:
    def run() -> None:
        for _ in toolmend.recover_stream(chunks, tools=TOOLS, model=model):
            pass

    return run


def passthrough_run(chunks: list[dict[str, Any]]) -> Callable[[], None]:
    def run() -> None:
        for c in chunks:
            dict(c)

    return run


def best(runs: dict[str, Callable[[], None]], rounds: int) -> dict[str, float]:
    """Each run's best CPU time over `rounds` rounds, the runs interleaved in every round."""
    out = {name: float("inf") for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            out[name] = min(out[name], cpu_seconds(run))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=7, help="rounds; each row keeps its best")
    args = ap.parse_args()

    calibration = [cpu_seconds(calibration_loop) for _ in range(3)]
    print(
        f"calibration loop: {min(calibration) * 1e3:.1f} ms best, "
        f"{max(calibration) * 1e3:.1f} ms worst"
    )

    runs: dict[str, Callable[[], None]] = {}
    for model, protocol in FAMILIES.items():
        for kb in (50, 500):
            pieces = pieces_of(leaked_call(protocol, kb))
            chunks = [chunk(p, model) for p in pieces]
            runs[f"bare {protocol} {kb}"] = bare_run(protocol, pieces)
            runs[f"recovery {model} {kb}"] = recovery_run(model, chunks)
    prose = pieces_of("The quick brown fox jumps over the lazy dog, again and again. " * 900)[
        :PROSE_CHUNKS
    ]
    for model, protocol in FAMILIES.items():
        runs[f"prose {model}"] = recovery_run(model, [chunk(p, model) for p in prose])
        runs[f"prose bare {protocol}"] = bare_run(protocol, prose)
    runs["prose passthrough"] = passthrough_run([chunk(p, "m") for p in prose])
    times = best(runs, args.repeat)

    print(
        "\n50 KB leaked call, 5-character chunks "
        f"(recovery / bare parser; goal <= {GOAL_RATIO}x, growth <= {GOAL_GROWTH:.0f}x)"
    )
    print(
        "| model | format | bare 50 KB (ms) | recovery 50 KB (ms) | ratio | recovery 50 -> 500 KB |"
    )
    print("|---|---|---:|---:|---:|---:|")
    goals: list[tuple[str, float, float]] = []
    for model, protocol in FAMILIES.items():
        bare = times[f"bare {protocol} 50"]
        rec = times[f"recovery {model} 50"]
        growth = times[f"recovery {model} 500"] / rec
        print(
            f"| {model} | {protocol} | {bare * 1e3:.1f} | {rec * 1e3:.1f} "
            f"| {rec / bare:.2f}x | {growth:.1f}x |"
        )
        goals.append(
            (f"{model}: 50 KB leaked call, recovery / bare parser", rec / bare, GOAL_RATIO)
        )
        goals.append((f"{model}: 50 -> 500 KB growth", growth, GOAL_GROWTH))

    floor = times["prose passthrough"]
    print(
        f"\nprose, {PROSE_CHUNKS} chunks "
        f"(goal <= {GOAL_PROSE_US} µs per chunk above the pass-through)"
    )
    print(f"pass-through that copies each chunk dict: {floor * 1e3:.1f} ms")
    print("| model | recovery (ms) | µs per chunk above pass-through | of which the bare parser |")
    print("|---|---:|---:|---:|")
    for model, protocol in FAMILIES.items():
        rec = times[f"prose {model}"]
        bare = times[f"prose bare {protocol}"]
        above = (rec - floor) / PROSE_CHUNKS * 1e6
        print(f"| {model} | {rec * 1e3:.1f} | {above:.2f} | {bare / PROSE_CHUNKS * 1e6:.2f} |")
        goals.append((f"{model}: prose, µs per chunk above the pass-through", above, GOAL_PROSE_US))
    print()
    for label, value, goal in goals:
        print(f"{'PASS' if value <= goal else 'MISS'}  {label}: {value:.2f} (goal <= {goal:g})")


if __name__ == "__main__":
    main()
