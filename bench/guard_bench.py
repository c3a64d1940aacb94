"""Guard cost: classifying real error texts, and `guard_history` replayed as a proxy does.

The proxy calls `guard_history` on every request, over the whole history, so its cost per
request matters more than one classification. Measured here:

- `classify_error` per real error text (`tests/guard/data/real_errors.json`), uncached;
- one hostile 200 KB error text, uncached (the wordings read a bounded head and tail);
- `guard_history` over a 200-message history with 50 failed results, first call against the
  next calls (the plain-string classifications are cached), printed as a ratio;
- `guard_history` over a 60 KB agent history (reads, edits and commands, 7 failed results) as
  the proxy's agent request carries it (its tools kept as `Tool` objects), warm, in CPU time
  (a loaded machine stretches wall time several-fold): per request, and per guided result
  against the same history with the failures turned into successes;
- the gate of a call the model makes after that history (`blocking_guidance`, as the proxy's
  `CallGate` asks it for every call of an answer): on the guard's state handed back after the
  history, against a replay of the whole history per call, side by side, in CPU time.

    python bench/guard_bench.py [--repeat ROUNDS]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from toolmend.guard import guard_history
from toolmend.guard.answers import blocking_guidance
from toolmend.guard.classify import DEFAULT_CLASSIFIER, _classify_string
from toolmend.guard.history import HistoryGuard
from toolmend.model import coerce_tools

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


#: The failed results of the agent history: one of each kind an agent meets most.
AGENT_ERRORS = [
    "Error: File not found: src/app/settings.py",
    "<tool_use_error>String to replace not found in file.\nString: def save():</tool_use_error>",
    (
        'Traceback (most recent call last):\n  File "/app/run.py", line 9, in main\n'
        "    import yaml\nModuleNotFoundError: No module named 'yaml'"
    ),
    (
        "Command executed in terminal within working directory '/home/dev/app'. Exit code: 1\n"
        "Output:\nFAILED tests/test_api.py::test_create - assert 404 == 201\n1 failed, 12 passed"
    ),
    "Invalid input for tool edit_file: missing required parameter 'path'",
    "MCP error -32602: Tool search_code not found",
    "Error: EACCES: permission denied, open '/etc/hosts'",
]
AGENT_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "parameters": {
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "old_string": {"type": "string"},
                    "command": {"type": "string"},
                },
            },
        },
    }
    for name in ("read_file", "edit_file", "execute_command")
]


def agent_history(target_bytes: int = 60_000, failing: bool = True) -> list[dict[str, Any]]:
    """An agent's history of about `target_bytes` of JSON: file reads of ~3 KB each, and every
    third call an edit whose result is one of `AGENT_ERRORS` (or a success, with `failing`
    off)."""
    body = "\n".join(f"    line {i}: value = compute({i})  # error case {i}" for i in range(40))
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a coding agent. " * 40},
        {"role": "user", "content": "Fix the failing tests in the API module."},
    ]
    n = 0
    while len(json.dumps(messages)) < target_bytes:
        name = ("read_file", "edit_file", "execute_command")[n % 3]
        args = json.dumps({"path": f"src/mod{n}.py", "old_string": f"x = {n}"})
        function = {"name": name, "arguments": args}
        call = {"id": f"call_{n}", "type": "function", "function": function}
        messages.append({"role": "assistant", "content": f"Module {n}.", "tool_calls": [call]})
        error = n % 3 == 1 and n // 3 < len(AGENT_ERRORS)
        result = AGENT_ERRORS[n // 3] if error and failing else f"# src/mod{n}.py\n{body}"
        messages.append({"role": "tool", "tool_call_id": f"call_{n}", "content": result})
        n += 1
    return messages


def cpu_per_call(messages: list[dict[str, Any]], rounds: int, calls: int = 40) -> float:
    """Best CPU seconds of one warm `guard_history` call over `rounds` rounds of `calls`, the
    tools given as the same `Tool` objects every time (the proxy keeps them per worker)."""
    tools = coerce_tools(AGENT_TOOLS)
    guard_history(messages, tools=tools)
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        for _ in range(calls):
            guard_history(messages, tools=tools)
        best = min(best, (time.process_time() - start) / calls)
    return best


def cpu_per_gate(
    messages: list[dict[str, Any]], rounds: int, calls: int = 40
) -> tuple[float, float]:
    """Best CPU seconds of one call's gate after `messages`: on the handed-back state, and
    replaying the history (the tools kept as `Tool` objects, as the proxy keeps them)."""
    tools = coerce_tools(AGENT_TOOLS)
    state = HistoryGuard(tools).after(messages)
    function = {"name": "read_file", "arguments": '{"path": "src/next.py"}'}
    call = {"id": "call_next", "type": "function", "function": function}
    best = [float("inf"), float("inf")]
    for _ in range(rounds):
        for slot, history in enumerate((state, messages)):
            start = time.process_time()
            for _ in range(calls):
                blocking_guidance(history, call, tools)
            best[slot] = min(best[slot], (time.process_time() - start) / calls)
    return best[0], best[1]


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

    failed, passed = agent_history(), agent_history(failing=False)
    guided = sum(
        a["content"] != b["content"]
        for a, b in zip(failed, guard_history(failed, tools=AGENT_TOOLS), strict=True)
    )
    rounds = max(5, 5 * args.repeat)
    with_failures, without = cpu_per_call(failed, rounds), cpu_per_call(passed, rounds)
    print(
        f"guard_history, 60 KB agent history ({len(failed)} messages, {guided} guided results): "
        f"{with_failures * 1e6:.0f} us CPU per request, {without * 1e6:.0f} us without the "
        f"failures: {(with_failures - without) / max(guided, 1) * 1e6:.0f} us per guided result"
    )
    handed, replayed = cpu_per_gate(failed, rounds)
    print(
        f"the gate of one call after that history: {handed * 1e6:.0f} us CPU on the handed-back "
        f"state, {replayed * 1e6:.0f} us replaying the history ({replayed / handed:.0f}x)"
    )


if __name__ == "__main__":
    main()
