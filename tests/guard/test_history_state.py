"""The guard's state handed back after a history decides as a replay of the whole history does.

`HistoryGuard` reads a history once; the answers to calls made after it (`guard.answers`, the
proxy's `CallGate`) read only the call and its result on a fork of that state. The reference
here is the replay the answers made before: `guard_history` over the history with the call and
its result appended, read from the end. Generated histories mix duplicates, failures that repeat
up to the loop breaker, preflight findings, unknown tools, reused ids, user messages and results
that never came, so the loop breaker and the duplicate-call detection are compared where they
fire.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolmend.guard import guard_history
from toolmend.guard.answers import blocking_guidance, rejected_guidance, result_guidance
from toolmend.guard.history import HistoryGuard, checker_for
from toolmend.model import ToolCall, coerce_tools
from toolmend.server.guarding import CallGate, guard_request

TOOLS = coerce_tools(
    [
        {
            "type": "function",
            "function": {
                "name": "read",
                "parameters": {
                    "type": "object",
                    "properties": {"path": {"type": "string"}},
                    "required": ["path"],
                },
            },
        },
        {
            "type": "function",
            "function": {
                "name": "bash",
                "parameters": {
                    "type": "object",
                    "properties": {"command": {"type": "string"}, "cwd": {"type": "string"}},
                    "required": ["command"],
                },
            },
        },
    ]
)
NAMES = ["read", "bash", "nope", "mcp__srv__gone"]
ARGUMENTS = [
    '{"path": "a.py"}',
    '{"path": "b.py"}',
    '{"command": "npm test"}',
    '{"command": "ls", "cwd": {"path": "/repo"}}',
    '{"path": 7}',
    '{"path": "a.py"',
    '{"path": "a.py"}{"path": "b.py"}',
    "{}",
]
IDS = ["call_1", "call_2", "call_3", "call_4"]
RESULTS = [
    "ok",
    "def main():\n    return 1\n" * 20,
    "Error: ENOENT: no such file or directory, open '/repo/src/missing.ts'",
    "bash: line 1: pnpm: command not found\nexit code 127",
    "Error: oldString not found in content",
    "Invalid input for tool read: missing required parameter 'path'",
    'Traceback (most recent call last):\n  File "x.py", line 1\nValueError: bad value',
    "",
]
TEXTS = ["", "Let me look.", '<tool_call>\n{"name": "read"}\n</tool_call>']

calls = st.builds(
    lambda call_id, name, arguments: {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    },
    st.sampled_from(IDS),
    st.sampled_from(NAMES),
    st.sampled_from(ARGUMENTS),
)
assistant = st.builds(
    lambda text, made: {"role": "assistant", "content": text, "tool_calls": made},
    st.sampled_from(TEXTS),
    st.lists(calls, min_size=1, max_size=2),
)
result = st.builds(
    lambda call_id, text: {"role": "tool", "tool_call_id": call_id, "content": text},
    st.sampled_from(IDS),
    st.sampled_from(RESULTS),
)
user = st.just({"role": "user", "content": "Keep going."})
plain_answer = st.just({"role": "assistant", "content": "Done."})
#: Mostly a call followed by its result (the shape that repeats), with the rest mixed in.
turn = st.one_of(
    st.tuples(assistant, result).map(list),
    st.tuples(assistant).map(list),
    st.tuples(result).map(list),
    st.tuples(user).map(list),
    st.tuples(plain_answer).map(list),
)
histories = st.lists(turn, max_size=14).map(lambda turns: [m for t in turns for m in t])


def replayed(
    history: Sequence[Mapping[str, Any]],
    call: Mapping[str, Any],
    result_text: str,
    *,
    restate: bool = False,
) -> str:
    """The answer as the replay gave it: the whole history again, the call and result after."""
    call_id = str(call.get("id") or "")
    tail: list[dict[str, Any]] = []
    if restate or not last_assistant_holds(history, call_id):
        tail.append({"role": "assistant", "content": "", "tool_calls": [call]})
    tail.append({"role": "tool", "tool_call_id": call_id, "content": result_text})
    content = guard_history([*history, *tail], tools=TOOLS)[-1]["content"]
    return content if isinstance(content, str) else result_text


def last_assistant_holds(history: Sequence[Mapping[str, Any]], call_id: str) -> bool:
    for message in reversed(history):
        if message.get("role") == "assistant":
            made = message.get("tool_calls")
            return isinstance(made, list) and any(c.get("id") == call_id for c in made)
    return False


def replayed_blocking(history: Sequence[Mapping[str, Any]], call: Mapping[str, Any]) -> str | None:
    answer = replayed(history, call, "")
    return answer if answer.startswith("[toolmend guidance v") else None


def replayed_rejected(
    history: Sequence[Mapping[str, Any]], call: Mapping[str, Any], problem: str | None
) -> str:
    found = replayed_blocking(history, call)
    if found is not None:
        return found
    if problem is not None:
        return replayed(history, call, problem)
    arguments = call["function"]["arguments"]
    opened = arguments.rstrip()[:-1] if arguments else "{"
    cut = {**call, "function": {**call["function"], "arguments": opened}}
    return replayed(history, cut, "", restate=True)


@settings(max_examples=200, deadline=None)
@given(histories, st.lists(calls, min_size=1, max_size=3))
def test_calls_after_a_history_are_answered_as_the_replay_of_the_whole_history_answers_them(
    history: list[dict[str, Any]], made: list[dict[str, Any]]
) -> None:
    state = HistoryGuard(TOOLS)
    state.read_all(history)
    for call in made:  # one state answers every call of an answer, each alone
        assert blocking_guidance(state, call) == replayed_blocking(history, call)
        assert rejected_guidance(state, call, problem="bad arguments") == replayed_rejected(
            history, call, "bad arguments"
        )
        assert rejected_guidance(state, call) == replayed_rejected(history, call, None)
        for text in ("ok", RESULTS[2]):
            expected = replayed(history, call, text)
            assert result_guidance(state, call, text) == (None if expected == text else expected)


@settings(max_examples=100, deadline=None)
@given(histories, calls)
def test_answering_a_call_leaves_the_state_as_it_was(
    history: list[dict[str, Any]], call: dict[str, Any]
) -> None:
    state = HistoryGuard(TOOLS)
    state.read_all(history)
    for _ in range(3):  # the same duplicate asked about again is still only a candidate
        assert blocking_guidance(state, call) == replayed_blocking(history, call)
    later = [{"role": "tool", "tool_call_id": "call_1", "content": RESULTS[3]}]
    assert state.after(later).read(later[0]) == guard_history(history + later * 2, TOOLS)[-1]
    assert state.read_all(later) == guard_history(history + later, TOOLS)[len(history) :]


@settings(max_examples=100, deadline=None)
@given(histories, calls)
def test_the_proxy_gate_decides_on_the_handed_back_state_as_on_the_replayed_history(
    history: list[dict[str, Any]], call: dict[str, Any]
) -> None:
    guarded, _, state = guard_request(history, TOOLS)
    assert guarded == guard_history(history, TOOLS)
    arguments = call["function"]["arguments"]
    try:
        parsed = json.loads(arguments)
    except ValueError:
        parsed = None
    executable = isinstance(parsed, dict)
    made = ToolCall(
        id=call["id"],
        name=call["function"]["name"],
        arguments=parsed if executable else {},
        incomplete=not executable,
        error=None if executable else "arguments are not one JSON object",
    )
    verdict = CallGate(state).check(made)
    entry = {
        "id": made.id,
        "type": "function",
        "function": {"name": made.name, "arguments": made.arguments_json()},
    }
    if executable:
        blocked = replayed_blocking(history, entry)
        assert verdict.allowed is (blocked is None)
        assert verdict.guidance == (blocked or "")
    else:
        assert not verdict.allowed
        assert verdict.guidance == replayed_rejected(history, entry, None)


def test_a_retry_after_a_failure_is_not_a_duplicate_but_a_third_identical_call_is() -> None:
    call = {"id": "call_1", "type": "function", "function": {"name": "read", "arguments": "{}"}}
    read = {**call, "function": {"name": "read", "arguments": '{"path": "a.py"}'}}
    history = [
        {"role": "user", "content": "Read a.py."},
        {"role": "assistant", "content": "", "tool_calls": [read]},
        {"role": "tool", "tool_call_id": "call_1", "content": RESULTS[2]},
    ]
    state = HistoryGuard(TOOLS)
    state.read_all(history)
    assert blocking_guidance(state, {**read, "id": "call_2"}) is None
    succeeded = [
        *history,
        {"role": "assistant", "content": "", "tool_calls": [{**read, "id": "call_2"}]},
        {"role": "tool", "tool_call_id": "call_2", "content": "ok"},
    ]
    again = {**read, "id": "call_3"}
    blocked = blocking_guidance(HistoryGuard(TOOLS).after(succeeded), again)
    assert blocked is not None and "DUPLICATE" in blocked.split("\n", 1)[0]
    assert blocked == replayed_blocking(succeeded, again)


def test_a_failure_repeated_past_the_threshold_meets_the_loop_breaker_on_the_state() -> None:
    bash = {"type": "function", "function": {"name": "bash", "arguments": '{"command": "pnpm i"}'}}
    history: list[dict[str, Any]] = [{"role": "user", "content": "Install the dependencies."}]
    for n in range(3):
        history.append(
            {"role": "assistant", "content": "", "tool_calls": [{**bash, "id": f"c{n}"}]}
        )
        history.append({"role": "tool", "tool_call_id": f"c{n}", "content": RESULTS[3]})
    state = HistoryGuard(TOOLS)
    guarded = state.read_all(history)
    assert "MODEL_STUCK_LOOP" in guarded[-1]["content"].split("\n", 1)[0]
    call = {**bash, "id": "c3"}
    answer = result_guidance(state, call, RESULTS[3])
    assert answer is not None and "MODEL_STUCK_LOOP" in answer.split("\n", 1)[0]
    assert answer == replayed(history, call, RESULTS[3])


def test_the_checker_is_built_once_per_tool_list_and_afresh_for_dicts() -> None:
    assert checker_for(TOOLS) is checker_for(list(TOOLS))
    specs = [{"name": "read", "parameters": {"type": "object"}}]
    assert checker_for(specs) is not checker_for(specs)
    assert checker_for(None).tools is None
