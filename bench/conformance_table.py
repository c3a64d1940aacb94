"""The corpus conformance table: per format, cases passed / cases with expectations, named and
under `auto`, and the cases where a call was returned that upstream says should not exist.

    python bench/conformance_table.py            # the table (markdown)
    python bench/conformance_table.py --details  # and every failing case with what was read
    python bench/conformance_table.py --write    # rewrite tests/corpus/conformance.exceptions.json

`--write` keeps the reason of every case still failing, drops the cases that pass now, and
lists a new failure as "format not implemented" when its format has no protocol yet, else as
UNEXPLAINED (the conformance test refuses that until a real reason is written).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from conformance import (
    EXCEPTIONS_FILE,
    MODES,
    NOT_IMPLEMENTED,
    UNEXPLAINED,
    all_outcomes,
    load_exceptions,
    named_protocols,
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--details", action="store_true", help="list every failing case")
    ap.add_argument("--write", action="store_true", help="rewrite the exceptions list")
    opts = ap.parse_args()
    old = load_exceptions()
    new: dict[str, dict[str, str]] = {mode: {} for mode in MODES}
    table: dict[str, dict[str, list[int]]] = defaultdict(lambda: {m: [0, 0, 0] for m in MODES})
    failures = []
    for case, mode, result in all_outcomes():
        row = table[case["format"]][mode]
        row[1] += 1
        if result.passed:
            row[0] += 1
            continue
        row[2] += result.spurious
        failures.append((mode, case["id"], case["format"], result.detail))
        if named_protocols(case) is None:
            new[mode][case["id"]] = NOT_IMPLEMENTED
        else:
            # Under auto, a case decided as it is named keeps the named reason.
            kept = [old[mode].get(case["id"]), mode == "auto" and new["named"].get(case["id"])]
            reason = next((r for r in kept if r and r not in (NOT_IMPLEMENTED, UNEXPLAINED)), "")
            new[mode][case["id"]] = reason or UNEXPLAINED
    print("| format | named | auto | spurious calls (named / auto) |")
    print("|---|---:|---:|---:|")
    totals = {m: [0, 0, 0] for m in MODES}
    for fmt in sorted(table, key=lambda f: (-table[f]["named"][1], f)):
        cells = []
        for mode in MODES:
            passed, total, spurious = table[fmt][mode]
            cells.append(f"{passed}/{total}")
            added = (passed, total, spurious)
            totals[mode] = [a + b for a, b in zip(totals[mode], added, strict=True)]
        spur = f"{table[fmt]['named'][2]} / {table[fmt]['auto'][2]}"
        print(f"| {fmt} | {cells[0]} | {cells[1]} | {spur} |")
    cells = [f"{p}/{t} ({100 * p / t:.1f}%)" for p, t, _ in (totals[m] for m in MODES)]
    print(f"| **all** | {cells[0]} | {cells[1]} | {totals['named'][2]} / {totals['auto'][2]} |")
    if opts.details:
        for mode, case_id, fmt, detail in failures:
            print(f"{mode:5} {case_id} [{fmt}] {detail}")
    if opts.write:
        EXCEPTIONS_FILE.write_text(json.dumps(new, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
