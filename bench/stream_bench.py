"""Streaming cost per protocol: a `write_file` call whose `content` is 1, 10, 50 and 500 KB.

Each protocol renders the call itself (`render_call`), and the text is fed to its stream parser
in 5-character deltas, with the tool's schema (full validation) and argument deltas on, as a
server relaying a model's stream would. The same text is also parsed in one piece (batch).
The `auto` row reads a mixed-format output: the same content split over one call in each of
`MIXED` (each rendered by its own protocol), one after another, read by the detector.

Goals (foundation issue, and every protocol's row in the native-formats issue): linear growth
(10x the input costs at most 11x the time, 50 -> 500 KB) and a 50 KB call in 5-character
deltas in at most 20 ms per protocol on this machine; with `--against`, every row the old
checkout also has within 10% of its figure (the seam issue). The exit status is 1 when a goal
fails. Reference figures for the 50 KB workload on this kind of machine (hermes / qwen3-coder
detectors of other engines) are printed beside ours as ratios.

How it measures, so that one run on a shared machine, whose speed shifts for seconds at a
time, gives a stable answer:

- CPU time (`time.process_time`), not wall time, which counts the waits for a core.
- A sample is many runs of a row: 100 KB of input for the smaller rows (a 1 KB row runs 100
  times, 10 KB 10 times), 500 KB for the 50 and 500 KB rows (50 KB 10 times, 500 KB once), and
  a row's figure is its sample's time divided by its runs. A sub-millisecond row is not one
  reading of the clock, and the 50 -> 500 KB growth compares samples of the same length.
- Rounds (`--repeat`, default 7): each round is a fresh process that first runs every
  protocol's 1 KB rows once untimed (the first parse pays for lazy imports and pattern
  compiles; under `auto`, every protocol's), then takes one sample of every row, a protocol's
  rows one after the other (its 50 and 500 KB rows back to back), in reversed order every other
  round. Every row keeps its best round; none is dropped.
- `--against DIR` measures another checkout's `DIR/src` in the same run: every round runs old
  and new in fresh processes (new's rows that old has too in a process that reads only old's
  protocols, `protocol_groups`), which goes first alternating from round to round, and the
  rows both checkouts have (its protocols that the old one has too) are printed side by side as
  new/old ratios. The goals table is the new checkout's, every protocol of it.
- `--instructions` counts instead of timing: the same processes run under valgrind's callgrind
  (one run of each row, `PYTHONHASHSEED=0`), which counts the instructions of each row's run
  alone (counting is on only inside `operator.call`, through which every run is made). The
  count does not depend on the machine's load; its tables are the same, in millions of
  instructions, and the 20 ms goal is not checked. Needs valgrind and a Python whose C functions
  have symbols. A round of every protocol takes some minutes.

`--prose` measures instead `PROSE_KB` of prose with no call in it whose every line holds
braces and brackets (`{a: 1}`, `[1, 2]`, `{x}`), in the same deltas: what visible text costs a
format whose markers are a bare `{` or `[` (json, llama3-json, hermes' opener-less JSON, `auto`).

    python bench/stream_bench.py [--repeat ROUNDS] [--protocol ID ...] [--against DIR]
                                 [--instructions] [--prose]

    git archive 288768b src | tar -x -C /tmp/old && python bench/stream_bench.py --against /tmp/old
"""

from __future__ import annotations

import argparse
import gc
import glob
import json
import operator
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable

import toolmend
from toolmend.events import ToolCallDelta, ToolCallEnd

SIZES_KB = (1, 10, 50, 500)
#: The input of a timed sample of the 50 and 500 KB rows: the 50 KB row runs 10 times in one,
#: so the growth compares samples of the same length.
SAMPLE_KB = 500
#: The input of a timed sample of the smaller rows (a 1 KB row runs 100 times in one): enough
#: that a sub-millisecond row is not one reading of the clock.
SMALL_SAMPLE_KB = 100
#: The size of the `--prose` row, and the line it repeats.
PROSE_KB = 220
PROSE_LINE = "Set the map to {a: 1} and the list to [1, 2], then print {x} once it is done.\n"
DELTA = 5
GOAL_50KB_MS = 20.0
GOAL_GROWTH = 11.0  # time ratio allowed for 10x input
GOAL_AGAINST = 1.10  # new/old ratio allowed for a row the old checkout has
#: The deltas of the floor row: a do-nothing parser's relaying loop.
FLOOR_DELTAS = 10_000
#: Seconds for the 50 KB workload, measured on this kind of machine (foundation issue).
REFERENCE_50KB_S = {
    "SGLang 0.5.23 hermes detector": ("hermes", 39.0),
    "vLLM 0.33 hermes parser": ("hermes", 0.64),
    "vLLM 0.33 qwen3_coder parser": ("qwen3-coder", 0.11),
}
#: The callgrind options of `--instructions`: counting is on only inside `operator.call`'s C
#: function (`_operator_call`), and each call's count is dumped to its own file.
CALLGRIND = (
    "valgrind",
    "--tool=callgrind",
    "--collect-atstart=no",
    "--toggle-collect=_operator_call",
    "--dump-after=_operator_call",
)

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

#: A row: (protocol, KB, "stream" or "batch"); the floor row is ("floor", 0, "stream").
Row = tuple[str, int, str]
FLOOR: Row = ("floor", 0, "stream")


def content_of(kb: int, parts: int = 1) -> str:
    line = '    value = compute(alpha, beta) if alpha < beta else beta  # keep <tags> & "q"\n'
    text = line * (kb * 1024 // len(line) + 1)
    return text[: kb * 1024 // parts]


def formats_of(protocol: str) -> tuple[str, ...]:
    """The formats whose `render_call` writes the `protocol` row's output."""
    return MIXED if protocol == "auto" else (protocol,)


def rendered(protocol: str, kb: int) -> tuple[str, list[str]]:
    """The model output of the `protocol` row at `kb` KB, and the content of each call in it.

    `auto` cannot render: its row is one call in each of the `MIXED` formats (the content
    split between them), each written by its own protocol."""
    formats = formats_of(protocol)
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


def sizes(with_prose: bool) -> tuple[int, ...]:
    return (PROSE_KB,) if with_prose else SIZES_KB


def runs_per_sample(kb: int) -> int:
    """How many runs of a `kb` KB row make one timed sample."""
    if not kb:  # the floor
        return SAMPLE_KB * 1024 // (DELTA * FLOOR_DELTAS)
    return max(1, (SAMPLE_KB if kb >= 50 else SMALL_SAMPLE_KB) // kb)


def deltas_of(text: str) -> list[str]:
    return [text[i : i + DELTA] for i in range(0, len(text), DELTA)]


def workloads(protocol: str, with_prose: bool) -> list[tuple[Row, Callable[[], None]]]:
    """The streamed and the batch run of each of the `protocol` row's sizes."""
    proto = toolmend.get_protocol(protocol)
    rows: list[tuple[Row, Callable[[], None]]] = []
    for kb in sizes(with_prose):
        text, contents = (prose(), []) if with_prose else rendered(protocol, kb)
        deltas = deltas_of(text)

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

        rows += [((protocol, kb, "stream"), streamed), ((protocol, kb, "batch"), batch)]
    return rows


def floor_run() -> None:
    """The relaying loop of `FLOOR_DELTAS` deltas around a parser that does nothing but return
    one new delta event each: what any parser written in Python costs at the least."""
    for delta in ["x" * DELTA] * FLOOR_DELTAS:
        for event in [ToolCallDelta("c", 0, delta)]:
            if isinstance(event, ToolCallEnd):
                raise AssertionError


def repeated(run: Callable[[], None], times: int) -> Callable[[], None]:
    def sample() -> None:
        for _ in range(times):
            run()

    return sample


def peak_memory_mb(protocol: str, kb: int) -> float:
    """Peak traced allocation while streaming the `kb` call (text itself excluded)."""
    proto = toolmend.get_protocol(protocol)
    deltas = deltas_of(rendered(protocol, kb)[0])
    tracemalloc.start()
    parser = proto.stream_parser(TOOLS)
    for delta in deltas:
        parser.feed(delta)  # events dropped, as a relaying server does
    parser.finish()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def one_round(protocols: list[str], with_prose: bool, reverse: bool, count: bool) -> None:
    """One round in this process (`--child`): prints the JSON the parent reads.

    Timing, each row's value is CPU seconds per run; counting (under callgrind), every run
    goes through `operator.call`, and `order` names the row of each callgrind dump."""
    known = set(toolmend.protocols())
    measured = [p for p in protocols if set(formats_of(p)) <= known]
    rows: list[tuple[Row, Callable[[], None]]] = [(FLOOR, floor_run)]
    for protocol in measured:
        rows += workloads(protocol, with_prose)
    for (_, kb, _), run in rows:
        if kb == min(sizes(with_prose)):
            run()  # untimed: lazy imports and pattern compiles
    if reverse:
        rows.reverse()
    report: dict[str, object] = {"module": toolmend.__file__, "protocols": measured}
    if count:
        for _, run in rows:
            gc.collect()
            operator.call(run)
        report["order"] = [row for row, _ in rows]
    else:
        report["calibration"] = cpu_seconds(calibration_loop)
        report["rows"] = [
            [*row, cpu_seconds(repeated(run, runs_per_sample(row[1]))) / runs_per_sample(row[1])]
            for row, run in rows
        ]
    print(json.dumps(report))


class Checkout:
    """One checkout's `src`, measured round by round in fresh processes; every row keeps its
    best value (CPU seconds per run, or instructions)."""

    def __init__(self, label: str, src: str) -> None:
        self.label, self.src = label, src
        self.best: dict[Row, float] = {}
        self.calibrations: list[float] = []
        self.protocols: list[str] = []

    def measure(self, protocols: list[str], with_prose: bool, reverse: bool, count: bool) -> None:
        command = [sys.executable, os.path.abspath(__file__), "--child"]
        command += ["--prose"] * with_prose + ["--reverse"] * reverse + ["--instructions"] * count
        for protocol in protocols:
            command += ["--protocol", protocol]
        env = {**os.environ, "PYTHONPATH": self.src, "PYTHONHASHSEED": "0"}
        with tempfile.TemporaryDirectory(prefix="stream_bench.") as dumps:
            if count:
                command = [*CALLGRIND, f"--callgrind-out-file={dumps}/cg.out", *command]
            done = subprocess.run(command, env=env, capture_output=True, text=True)
            if done.returncode:
                raise SystemExit(f"{self.label}: {' '.join(command)}\n{done.stderr}")
            report = json.loads(done.stdout)
            values = counted(report["order"], dumps) if count else report["rows"]
        if not os.path.samefile(os.path.dirname(os.path.dirname(report["module"])), self.src):
            raise SystemExit(f"{self.src}: the subprocess imported {report['module']}")
        self.protocols = list(dict.fromkeys([*self.protocols, *report["protocols"]]))
        if "calibration" in report:
            self.calibrations.append(report["calibration"])
        for protocol, kb, kind, value in values:
            row = (protocol, kb, kind)
            self.best[row] = min(value, self.best.get(row, value))


def counted(order: list[list[object]], dumps: str) -> list[list[object]]:
    """The rows of `order` with the instructions of their callgrind dumps (one per run)."""
    files = sorted(glob.glob(f"{dumps}/cg.out.*"), key=lambda f: int(f.rsplit(".", 1)[1]))
    totals = []
    for name in files:
        with open(name) as dump:
            totals += [int(line.split()[1]) for line in dump if line.startswith("totals:")]
    if len(totals) != len(order) or not all(totals):
        raise SystemExit(
            f"callgrind dumped {len(totals)} counts for {len(order)} runs: does this Python's"
            " binary have the symbol _operator_call?"
        )
    return [[*row, total] for row, total in zip(order, totals, strict=True)]


class Units:
    """How a table prints a row's value: milliseconds of CPU, or millions of instructions."""

    def __init__(self, count: bool) -> None:
        self.count = count
        self.name = "M instructions" if count else "CPU ms"
        self.scale = 1e-6 if count else 1e3

    def __call__(self, value: float) -> float:
        return value * self.scale


def side_by_side(old: Checkout, new: Checkout, with_prose: bool, units: Units) -> list[str]:
    """Prints the rows both checkouts have as new/old ratios; returns the rows over the goal."""
    print(f"{'protocol':<14}{'KB':>5}{'stream old':>12}{'new':>9}{'ratio':>7}", end="")
    print(f"{'batch old':>11}{'new':>9}{'ratio':>7}")
    failures = []
    for protocol in (p for p in new.protocols if p in old.protocols):
        for kb in sizes(with_prose):
            cells = []
            for kind in ("stream", "batch"):
                was, now = old.best[protocol, kb, kind], new.best[protocol, kb, kind]
                cells.append(f"{units(was):>10.2f}{units(now):>9.2f}{now / was:>7.2f}")
                if now / was > GOAL_AGAINST:
                    failures.append(f"{protocol} {kb} KB {kind} {now / was:.2f}x of old")
            print(f"{protocol:<14}{kb:>5}  " + "  ".join(cells))
    return failures


def goals_table(new: Checkout, with_prose: bool, units: Units) -> list[str]:
    """Prints every protocol's rows, growth and verdicts; returns the goals that fail."""
    best = new.best
    print(
        f"{'protocol':<14}{'KB':>5}{'deltas':>9}{'stream':>10}{'per delta':>11}"
        f"{'batch':>10}{'growth':>8}"
    )
    # per delta: thousands of instructions, or microseconds
    per_delta, delta_scale = ("k instr", 1e-3) if units.count else ("µs", 1e6)
    for protocol in new.protocols:
        previous = None
        for kb in sizes(with_prose):
            stream, batch = best[protocol, kb, "stream"], best[protocol, kb, "batch"]
            n = len(deltas_of(prose() if with_prose else rendered(protocol, kb)[0]))
            growth = f"{stream / previous:.1f}x" if previous else ""
            print(
                f"{protocol:<14}{kb:>5}{n:>9}{units(stream):>10.2f}"
                f"{stream / n * delta_scale:>8.2f} {per_delta:<2}"
                f"{units(batch):>10.2f}{growth:>8}"
            )
            previous = stream
    if with_prose:
        return []
    print()
    failures = []
    for protocol in new.protocols:
        at_50 = best[protocol, 50, "stream"]
        growth = best[protocol, 500, "stream"] / at_50
        verdicts = [f"50->500 KB {growth:4.1f}x (goal <= {GOAL_GROWTH:.0f}x)"]
        if growth > GOAL_GROWTH:
            failures.append(f"{protocol} grows {growth:.1f}x from 50 to 500 KB")
        if units.count:
            verdicts.insert(0, f"50 KB {units(at_50):7.2f} M instructions")
        else:
            ms = at_50 * 1e3
            verdicts.insert(0, f"50 KB {ms:6.2f} ms (goal <= {GOAL_50KB_MS:.0f})")
            verdicts.append(f"peak memory at 500 KB {peak_memory_mb(protocol, 500):.1f} MB")
            if ms > GOAL_50KB_MS:
                failures.append(f"{protocol} 50 KB in {ms:.2f} ms")
        print(f"{protocol:<14} " + "; ".join(verdicts))
    if not units.count:
        print()
        for label, (protocol, seconds) in REFERENCE_50KB_S.items():
            if protocol in new.protocols:
                ours = best[protocol, 50, "stream"]
                print(
                    f"50 KB vs {label} ({seconds:g} s): toolmend {protocol} {ours * 1e3:.2f} ms,"
                    f" {seconds / ours:,.0f}x faster"
                )
    return failures


def protocol_groups(
    checkout: Checkout, checkouts: list[Checkout], protocols: list[str]
) -> list[list[str]]:
    """The protocols `checkout` measures in one fresh process each, this round.

    With `--against`, the new checkout measures the rows the old one has in a process that
    reads only the old one's protocols, and its other protocols in a second process: a process
    that has read every protocol runs some rows of the same code up to 17% slower than one that
    read the old checkout's eight (hermes and gemma4 10 KB batch, best of 5, same commit), which
    is that process's state, not the code's. The old checkout, measured first, names them."""
    old = checkouts[0] if len(checkouts) > 1 else None
    if old is None or checkout is old or not old.protocols:
        return [protocols]
    common = [p for p in protocols if p in old.protocols]
    rest = [p for p in protocols if p not in old.protocols]
    return [group for group in (common, rest) if group]


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--repeat", type=int, default=7, help="rounds; each row keeps its best")
    args.add_argument("--protocol", action="append", help="only these protocols")
    args.add_argument("--against", metavar="DIR", help="also measure DIR/src, side by side")
    args.add_argument("--instructions", action="store_true", help="count, under callgrind")
    args.add_argument("--prose", action="store_true", help="brace-heavy prose, no calls")
    args.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args.add_argument("--reverse", action="store_true", help=argparse.SUPPRESS)
    opts = args.parse_args()
    protocols = opts.protocol or [*toolmend.protocols(), "auto"]
    if opts.child:
        one_round(protocols, opts.prose, opts.reverse, opts.instructions)
        return
    if opts.instructions and not shutil.which("valgrind"):
        raise SystemExit("--instructions needs valgrind")
    here = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
    new = Checkout("new", here)
    checkouts = [new]
    if opts.against:
        checkouts.insert(0, Checkout("old", os.path.join(os.path.abspath(opts.against), "src")))
    rounds = 1 if opts.instructions else opts.repeat
    for i in range(rounds):
        for checkout in checkouts if i % 2 == 0 else checkouts[::-1]:
            for group in protocol_groups(checkout, checkouts, protocols):
                checkout.measure(group, opts.prose, i % 2 == 1, opts.instructions)
    units = Units(opts.instructions)
    if opts.instructions:
        print("instructions (callgrind, one run of each row; independent of the machine's load)")
    else:
        print(
            f"{rounds} rounds, best of each row, per run; samples of {SMALL_SAMPLE_KB} KB of"
            f" input ({SAMPLE_KB} KB for the 50 and 500 KB rows)"
        )
    for checkout in checkouts:
        print(f"{checkout.label}: {checkout.src}", end="")
        if checkout.calibrations:
            low, high = min(checkout.calibrations), max(checkout.calibrations)
            print(f"; calibration (1e6 additions) {low * 1e3:.1f} to {high * 1e3:.1f} ms", end="")
        floor = units(checkout.best[FLOOR])
        print(f"; floor ({FLOOR_DELTAS:,} deltas, do-nothing parser) {floor:.2f} {units.name}")
    failures = []
    if opts.against:
        print(f"\nnew against old, {units.name} per run")
        failures += side_by_side(checkouts[0], new, opts.prose, units)
    print(f"\nevery protocol of new, {units.name} per run")
    failures += goals_table(new, opts.prose, units)
    print()
    print("goals not met: " + "; ".join(failures) if failures else "every goal met")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
