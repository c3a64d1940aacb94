"""Guard cost: classifying real error texts, and `guard_history` replayed as a proxy does.

The proxy calls `guard_history` on every request, over the whole history, so its cost per
request matters more than one classification. Measured here:

- `classify_error` per real error text (`tests/guard/data/real_errors.json`), uncached;
- one hostile 200 KB error text, uncached (the wordings read a bounded head and tail);
- `guard_history` over a 200-message history with 50 failed results, first call against the
  next calls (the plain-string classifications are cached), printed as a ratio.

    python bench/guard_bench.py [--repeat ROUNDS]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from toolmend.guard import guard_history
from toolmend.guard.classify import DEFAULT_CLASSIFIER, _classify_string

DATA = Path(__file__).parent.parent / "tests" / "guard" / "data" / "real_errors.json"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "edit_file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "old_string": {"type": "string"}},
                "required": ["path", "old_string"],
            },
        },
    }
]


def history(errors: list[str], turns: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "fix the bug"}]
    for n in range(turns):
        args = json.dumps({"path": f"f{n}.py", "old_string": f"x = {n}"})
        call = {
            "id": f"c{n}",
            "type": "function",
            "function": {"name": "edit_file", "arguments": args},
        }
        result = errors[n % len(errors)] if n % 2 == 0 else f"edited f{n}.py"
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": f"c{n}", "content": result})
    return messages


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rows = json.loads(DATA.read_text(encoding="utf-8"))
    texts = [r["text"] for r in rows if r["kind"] == "error"]

    start = time.perf_counter()
    for _ in range(args.repeat):
        for text in texts:
            DEFAULT_CLASSIFIER.classify(text)
    per_text = (time.perf_counter() - start) / (args.repeat * len(texts))
    print(f"classify_error, {len(texts)} real texts: {per_text * 1e6:.0f} us per text (uncached)")

    hostile = "Error: " + "a " * 100_000
    start = time.perf_counter()
    DEFAULT_CLASSIFIER.classify(hostile)
    print(f"one 200 KB error text: {(time.perf_counter() - start) * 1e3:.1f} ms (uncached)")

    messages = history(texts[:50], 100)
    _classify_string.cache_clear()
    start = time.perf_counter()
    guard_history(messages, tools=TOOLS)
    first = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(args.repeat):
        guard_history(messages, tools=TOOLS)
    again = (time.perf_counter() - start) / args.repeat
    print(
        f"guard_history, {len(messages)} messages: first {first * 1e3:.1f} ms, "
        f"next {again * 1e3:.1f} ms (ratio {first / again:.1f}x)"
    )


if __name__ == "__main__":
    main()
