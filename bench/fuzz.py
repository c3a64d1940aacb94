"""The grammar fuzzer's long run: N seeded inputs through every protocol and `auto`.

Each input (`tests/fuzzing.py`: pieces of every protocol's markup, escapes, fences, reasoning
tags, value text, slices of rendered calls and long runs of one character) is parsed whole and
in random chunks (a share of the short ones also one character at a time, `--by-char`) by every
protocol and `auto`, a share of inputs under a small fragment cap (`fuzzing.SMALL_CAPS`, named
in the failure as `max_fragment`). A failure
is an exception, a result that depends on the split, a character not conserved, argument
deltas that are not a prefix of the final arguments, an executable call that does not validate,
an input that takes more than `MAX_CPU_SECONDS_PER_INPUT` (time bounded per input), or a parser
that never returns (`hang`: `fuzzing.HANG_CPU_SECONDS` of CPU per protocol, so a loop ends as a
failure instead of stalling the run). Failures other than `slow` and `hang` are shrunk; all are
written, one JSON object a line, to `--failures`.

    python bench/fuzz.py [--inputs 1000000] [--seed 0] [--failures fuzz-failures.jsonl]

Progress (inputs, failures, rate) is printed every `--every` inputs; the last line is the figure.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from fuzzing import Failure, check, generate, same_failure, shrink

#: An input (at most a few thousand characters, 9 parsers, 2-3 feeds each) taking more CPU
#: time than this is a failure: linear parsing does it in milliseconds.
MAX_CPU_SECONDS_PER_INPUT = 2.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=0, help="the first input's seed")
    parser.add_argument("--every", type=int, default=10_000, help="progress line interval")
    parser.add_argument("--failures", type=Path, default=Path("fuzz-failures.jsonl"))
    parser.add_argument(
        "--by-char", type=float, default=0.2, help="share of short inputs also fed 1 char at a time"
    )
    args = parser.parse_args(argv)
    failures = 0
    kinds: dict[str, int] = {}
    start = time.monotonic()
    slowest = 0.0
    done = 0
    with args.failures.open("a") as log:
        for seed in range(args.seed, args.seed + args.inputs):
            rng = random.Random(seed)
            text = generate(rng)
            began = time.process_time()
            failure = check(text, rng, by_char_share=args.by_char)
            spent = time.process_time() - began
            slowest = max(slowest, spent)
            if failure is None and spent > MAX_CPU_SECONDS_PER_INPUT:
                failure = Failure("all", "slow", f"{spent:.2f} s CPU for {len(text)} characters")
            done += 1
            if failure is not None:
                failures += 1
                key = f"{failure.protocol}:{failure.kind}"
                kinds[key] = kinds.get(key, 0) + 1
                small = text
                if failure.kind not in ("slow", "hang"):  # each try of these takes seconds
                    small = shrink(text, same_failure(failure, seed))
                record = {"seed": seed, **failure.__dict__, "input": small}
                log.write(json.dumps(record, ensure_ascii=False) + "\n")
                log.flush()
            if done % args.every == 0 or done == args.inputs:
                elapsed = time.monotonic() - start
                print(
                    f"inputs {done} failures {failures} rate {done / elapsed:.0f}/s "
                    f"slowest {slowest * 1000:.0f} ms CPU elapsed {elapsed:.0f} s kinds {kinds}",
                    flush=True,
                )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
