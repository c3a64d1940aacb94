"""Streaming cost per protocol: a `write_file` call whose `content` is 1, 10, 50 and 500 KB.

Each protocol renders the call itself (`render_call`), and the text is fed to its stream parser
in 5-character deltas, with the tool's schema (full validation) and argument deltas on, as a
server relaying a model's stream would. The same text is also parsed in one piece (batch).
`auto` reads a mixed-format output: a small call in each of `AUTO_MIX`'s formats, then the
large call.

Goals (from the foundation issue): linear growth — 10x the input costs at most 11x the time —
and a 50 KB call in 5-character deltas in at most 20 ms per protocol on this machine. Reference
figures for the same workload on this kind of machine (hermes / qwen3-coder detectors of other
engines) are printed beside ours as ratios.

The `auto` row reads a mixed-format output: the same content split over one call in each of
`MIXED` (each rendered by its own protocol), one after another, read by the detector.

`--prose` measures instead `PROSE_KB` of prose with no call in it whose every line holds
braces and brackets (`{a: 1}`, `[1, 2]`, `{x}`), in the same deltas: what visible text costs a
format whose markers are a bare `{` or `[` (json, llama3-json, hermes' opener-less JSON, `auto`).

    python bench/stream_bench.py [--repeat ROUNDS] [--protocol ID ...] [--against DIR] [--prose]

`--against DIR` measures another checkout's `DIR/src` beside this one in the same run (each
round runs both, one after the other, in fresh processes) and prints each row's new/old ratio:

    git archive 6354b86 src | tar -x -C /tmp/old && python bench/stream_bench.py --against /tmp/old
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable

import toolmend
from toolmend.events import ToolCallDelta, ToolCallEnd

SIZES_KB = (1, 10, 50, 500)
#: The size of the `--prose` row, and the line it repeats.
PROSE_KB = 220
PROSE_LINE = "Set the map to {a: 1} and the list to [1, 2], then print {x} once it is done.\n"
DELTA = 5
GOAL_50KB_MS = 20.0
GOAL_GROWTH = 11.0  # time ratio allowed for 10x input
#: Seconds for the 50 KB workload, measured on this kind of machine (foundation issue).
REFERENCE_50KB_S = {
    "SGLang 0.5.23 hermes detector": ("hermes", 39.0),
    "vLLM 0.33 hermes parser": ("hermes", 0.64),
    "vLLM 0.33 qwen3_coder parser": ("qwen3-coder", 0.11),
}

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "write_file",
            "description": "Write a file.",
            "parameters": {
                "type": "object",
                "properties": {
                    "file_path": {"type": "string"},
                    "content": {"type": "string"},
                },
                "required": ["file_path", "content"],
                "additionalProperties": False,
            },
        },
    }
]


#: The formats of the `auto` row's mixed output, one call each.
MIXED = (
    "hermes",
    "harmony",
    "functionary-v3.1",
    "deepseek-v3.2",
    "qwen3-coder",
    "gemma4",
    "kimi-k2",
    "llama3-json",
)


def content_of(kb: int, parts: int = 1) -> str:
    line = '    value = compute(alpha, beta) if alpha < beta else beta  # keep <tags> & "q"\n'
    text = line * (kb * 1024 // len(line) + 1)
    return text[: kb * 1024 // parts]


def rendered(protocol: str, kb: int) -> tuple[str, list[str]]:
    """The model output of the `protocol` row at `kb` KB, and the content of each call in it.

    `auto` cannot render: its row is one call in each of the `MIXED` formats (the content
    split between them), each written by its own protocol."""
    formats = MIXED if protocol == "auto" else (protocol,)
    content = content_of(kb, len(formats))
    calls = []
    for i, fmt in enumerate(formats):
        arguments = {"file_path": f"src/app{i}.py", "content": content}
        call = toolmend.ToolCall(id=f"call_{i}", name="write_file", arguments=arguments)
        calls.append(toolmend.get_protocol(fmt).render_call(call))
    text = "I will write the file now.\n" + "\n".join(calls) + "\nDone."
    return text, [content] * len(formats)


def cpu_seconds(run: Callable[[], None]) -> float:
    """CPU time of one run: CPU time, because this machine's cores are shared and wall time
    counts the waits for them."""
    gc.collect()
    start = time.process_time()
    run()
    return time.process_time() - start


def calibration_loop() -> None:
    """A fixed pure-Python workload: how fast this machine runs the interpreter right now."""
    total = 0
    for i in range(1_000_000):
        total += i


def prose() -> str:
    """`PROSE_KB` of brace-heavy prose holding no call (`--prose`)."""
    return (PROSE_LINE * (PROSE_KB * 1024 // len(PROSE_LINE) + 1))[: PROSE_KB * 1024]


def workloads(
    protocol: str, with_prose: bool = False
) -> list[tuple[int, int, Callable[[], None], Callable[[], None]]]:
    """(KB, deltas, streamed run, batch run) for each size (or for the prose, `with_prose`)."""
    proto = toolmend.get_protocol(protocol)
    rows = []
    for kb in (PROSE_KB,) if with_prose else SIZES_KB:
        text, contents = (prose(), []) if with_prose else rendered(protocol, kb)
        deltas = [text[i : i + DELTA] for i in range(0, len(text), DELTA)]

        def streamed(deltas: list[str] = deltas, contents: list[str] = contents) -> None:
            # Like a relaying server: each delta's events are handled and dropped; only the
            # end event is kept, to check the result.
            parser = proto.stream_parser(TOOLS, id_prefix="c")
            ends = []
            for delta in deltas:
                for event in parser.feed(delta):
                    if isinstance(event, ToolCallEnd):
                        ends.append(event)
            ends += [e for e in parser.finish() if isinstance(e, ToolCallEnd)]
            assert all(e.call.executable for e in ends), protocol
            assert [e.call.arguments["content"] for e in ends] == contents, protocol

        def batch(text: str = text, calls: int = len(contents)) -> None:
            result = toolmend.parse(text, protocol, TOOLS)
            assert len(result.tool_calls) == calls
            assert calls or result.text == text, protocol  # the prose stays text, whole
            assert all(c.executable for c in result.tool_calls)

        rows.append((kb, len(deltas), streamed, batch))
    return rows


def floor_run(n: int) -> Callable[[], None]:
    """The relaying loop of `n` deltas around a parser that does nothing but return one new
    delta event each: what any parser written in Python costs at the least."""
    deltas = ["x" * DELTA] * n

    def run() -> None:
        for delta in deltas:
            for event in [ToolCallDelta("c", 0, delta)]:
                if isinstance(event, ToolCallEnd):
                    raise AssertionError

    return run


def peak_memory_mb(protocol: str, kb: int) -> float:
    """Peak traced allocation while streaming the `kb` call (text itself excluded)."""
    proto = toolmend.get_protocol(protocol)
    text = rendered(protocol, kb)[0]
    deltas = [text[i : i + DELTA] for i in range(0, len(text), DELTA)]
    tracemalloc.start()
    parser = proto.stream_parser(TOOLS)
    for delta in deltas:
        parser.feed(delta)  # events dropped, as a relaying server does
    parser.finish()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def measure(
    rows: dict[str, list[tuple[int, int, Callable[[], None], Callable[[], None]]]], repeat: int
) -> tuple[dict[tuple[str, int, str], float], list[float]]:
    """The best CPU seconds of every row over `repeat` rounds, and the calibration times."""
    floor = floor_run(10_000)
    best: dict[tuple[str, int, str], float] = {}
    calibrations = []
    # Rounds over every row, rather than all repeats of one row in a row: this machine's speed
    # shifts for seconds at a time, and this way every row is measured across all of it.
    for _ in range(repeat):
        calibrations.append(cpu_seconds(calibration_loop))
        samples = [("floor", 0, "stream", floor)]
        for protocol, workload in rows.items():
            for kb, _, streamed, batch in workload:
                samples += [(protocol, kb, "stream", streamed), (protocol, kb, "batch", batch)]
        for protocol, kb, kind, run in samples:
            seconds = cpu_seconds(run)
            key = (protocol, kb, kind)
            best[key] = min(seconds, best.get(key, seconds))
    return best, calibrations


def one_round(
    src: str, protocols: list[str], with_prose: bool
) -> dict[tuple[str, int, str], float]:
    """One round of this benchmark run on the toolmend of `src`, in a fresh process."""
    command = [sys.executable, __file__, "--repeat", "1", "--json"]
    if with_prose:
        command.append("--prose")
    for protocol in protocols:
        command += ["--protocol", protocol]
    env = {**os.environ, "PYTHONPATH": src}
    done = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
    report = json.loads(done.stdout)
    if not os.path.samefile(os.path.dirname(os.path.dirname(report["module"])), src):
        raise SystemExit(f"{src}: the subprocess imported {report['module']}")
    return {(p, kb, kind): s for p, kb, kind, s in report["best"]}


def side_by_side(against: str, protocols: list[str], repeat: int, with_prose: bool) -> None:
    """Old (`against`) and new, round by round in the same run, as ratios."""
    here = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
    old_src = os.path.join(os.path.abspath(against), "src")
    best: dict[str, dict[tuple[str, int, str], float]] = {"old": {}, "new": {}}
    for _ in range(repeat):
        for label, src in (("old", old_src), ("new", here)):
            for key, seconds in one_round(src, protocols, with_prose).items():
                best[label][key] = min(seconds, best[label].get(key, seconds))
    print(f"old: {old_src}\nnew: {here}\n{repeat} rounds, best CPU ms of each row")
    print(
        f"{'protocol':<14}{'KB':>5}{'stream old':>12}{'new':>9}{'ratio':>7}"
        f"{'batch old':>11}{'new':>9}{'ratio':>7}"
    )
    for protocol in protocols:
        for kb in (PROSE_KB,) if with_prose else SIZES_KB:
            cells = []
            for kind in ("stream", "batch"):
                old, new = best["old"][protocol, kb, kind], best["new"][protocol, kb, kind]
                cells.append(f"{old * 1e3:>10.2f}{new * 1e3:>9.2f}{new / old:>7.2f}")
            print(f"{protocol:<14}{kb:>5}  " + "  ".join(cells))


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--repeat", type=int, default=7, help="rounds; each row keeps its best")
    args.add_argument("--protocol", action="append", help="only these protocols")
    args.add_argument("--against", metavar="DIR", help="also measure DIR/src, side by side")
    args.add_argument("--prose", action="store_true", help="brace-heavy prose, no calls")
    args.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    opts = args.parse_args()
    protocols = opts.protocol or [*toolmend.protocols(), "auto"]
    if opts.against:
        side_by_side(opts.against, protocols, opts.repeat, opts.prose)
        return
    rows = {protocol: workloads(protocol, opts.prose) for protocol in protocols}
    best, calibrations = measure(rows, opts.repeat)
    if opts.json:
        print(json.dumps({"module": toolmend.__file__, "best": [[*k, s] for k, s in best.items()]}))
        return
    print(
        f"calibration: 1e6 Python additions in {min(calibrations) * 1e3:.1f} ms at best,"
        f" {max(calibrations) * 1e3:.1f} ms at worst, over {opts.repeat} rounds"
    )
    print(
        f"floor: 10,000 deltas through a do-nothing Python parser in"
        f" {best['floor', 0, 'stream'] * 1e3:.1f} ms"
    )
    print(
        f"{'protocol':<14}{'KB':>5}{'deltas':>9}{'stream ms':>11}{'us/delta':>10}"
        f"{'batch ms':>10}{'growth':>8}"
    )
    verdicts = []
    for protocol, workload in rows.items():
        previous = None
        for kb, n, _, _ in workload:
            stream_s, batch_s = best[protocol, kb, "stream"], best[protocol, kb, "batch"]
            growth = f"{stream_s / previous:.1f}x" if previous else ""
            print(
                f"{protocol:<14}{kb:>5}{n:>9}{stream_s * 1e3:>11.2f}"
                f"{stream_s / n * 1e6:>10.2f}{batch_s * 1e3:>10.2f}{growth:>8}"
            )
            previous = stream_s
        if not opts.prose:
            at_50, at_500 = best[protocol, 50, "stream"], best[protocol, 500, "stream"]
            verdicts.append((protocol, at_50, at_500 / at_50))
    if opts.prose:
        return
    print()
    for protocol, at_50, growth in verdicts:
        memory = peak_memory_mb(protocol, 500)
        print(
            f"{protocol:<14} 50 KB {at_50 * 1e3:6.2f} ms (goal <= {GOAL_50KB_MS:.0f}):"
            f" {'yes' if at_50 * 1e3 <= GOAL_50KB_MS else 'NO '};"
            f" 50->500 KB {growth:4.1f}x (goal <= {GOAL_GROWTH:.0f}x):"
            f" {'yes' if growth <= GOAL_GROWTH else 'NO '};"
            f" peak memory at 500 KB {memory:.1f} MB"
        )
    print()
    for label, (protocol, seconds) in REFERENCE_50KB_S.items():
        if protocol in rows:
            ours = best[protocol, 50, "stream"]
            print(
                f"50 KB vs {label} ({seconds:g} s): toolmend {protocol} {ours * 1e3:.2f} ms,"
                f" {seconds / ours:,.0f}x faster"
            )


if __name__ == "__main__":
    main()
