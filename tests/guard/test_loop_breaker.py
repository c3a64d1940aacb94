"""Occurrences and the loop breaker: counting, resets, duplicates, task isolation, history parity."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolmend.guard import Interceptor, InterceptorConfig, guard_history
from toolmend.guard.history import GUIDANCE_PREFIX
from toolmend.model import ToolmendError

MISSING = "Missing value for required parameter 'path'. Please retry with complete response."
NOT_FOUND = "ENOENT: no such file or directory, open 'a.txt'"


def _call(name: str = "read_file", **args: Any) -> dict[str, Any]:
    return {"name": name, "arguments": args}


def test_first_occurrence_gets_the_specific_correction() -> None:
    g = Interceptor().on_error(_call(), MISSING)
    assert (g.category, g.occurrence, g.disposition) == ("PARAM_MISSING", 1, "correct_once")


def test_second_occurrence_is_strengthened() -> None:
    i = Interceptor()
    i.on_error(_call(), MISSING)
    g = i.on_error(_call(), MISSING)
    assert g.occurrence == 2 and "Re-read the tool schema now" in g.render()


def test_third_occurrence_opens_the_circuit_without_asking_the_user() -> None:
    i = Interceptor()
    for _ in range(2):
        i.on_error(_call(), MISSING)
    g = i.on_error(_call(), MISSING)
    assert (g.category, g.occurrence, g.disposition) == ("MODEL_STUCK_LOOP", 3, "change_strategy")
    assert "[MODEL_STUCK_LOOP]" in g.render() and "?" not in g.render()


def test_the_circuit_stays_open_after_three() -> None:
    i = Interceptor()
    for _ in range(4):
        g = i.on_error(_call(), MISSING)
    assert (g.category, g.occurrence) == ("MODEL_STUCK_LOOP", 4)


def test_a_success_of_the_same_tool_resets_the_count() -> None:
    i = Interceptor()
    i.on_error(_call(), MISSING)
    assert i.on_result(_call(path="a"), "file text") is None
    assert i.on_error(_call(), MISSING).occurrence == 1


def test_a_user_message_resets_the_count() -> None:
    i = Interceptor()
    i.on_error(_call(), MISSING)
    i.on_user_message()
    assert i.on_error(_call(), MISSING).occurrence == 1


def test_a_changed_fingerprint_resets_the_count() -> None:
    i = Interceptor()
    i.on_error(_call(), MISSING)
    i.on_error(_call(), MISSING)
    assert i.on_error(_call(), NOT_FOUND).occurrence == 1


def test_numbers_in_the_error_do_not_change_the_fingerprint() -> None:
    i = Interceptor()
    i.on_error(_call(), "SyntaxError: Unexpected token } in JSON at position 5")
    g = i.on_error(_call(), "SyntaxError: Unexpected token } in JSON at position 91")
    assert g.occurrence == 2


def test_failures_of_different_tools_are_counted_apart() -> None:
    i = Interceptor()
    i.on_error(_call("read_file"), NOT_FOUND)
    i.on_error(_call("list_files"), NOT_FOUND)
    assert i.on_error(_call("read_file"), NOT_FOUND).occurrence == 2


def test_tasks_are_isolated() -> None:
    i = Interceptor()
    i.on_error(_call(), MISSING, task="a")
    i.on_error(_call(), MISSING, task="a")
    assert i.on_error(_call(), MISSING, task="b").occurrence == 1
    assert i.on_error(_call(), MISSING, task="a").occurrence == 3


def test_an_ended_task_starts_from_zero() -> None:
    i = Interceptor()
    i.on_error(_call(), MISSING, task="t")
    i.end_task("t")
    assert i.on_error(_call(), MISSING, task="t").occurrence == 1


def test_task_state_is_bounded() -> None:
    i = Interceptor(config=InterceptorConfig(max_tasks=2))
    for task in ("a", "b", "c"):
        i.on_error(_call(), MISSING, task=task)
    assert list(i.tasks) == ["b", "c"]


def test_the_second_identical_call_is_discarded_as_duplicate() -> None:
    i = Interceptor()
    assert i.preflight(_call(path="a.txt")) is None
    g = i.preflight(_call(path="a.txt"))
    assert g is not None and g.blocking
    assert (g.category, g.disposition) == ("DUPLICATE_CALL", "discard_duplicate")


def test_argument_key_order_does_not_make_calls_different() -> None:
    i = Interceptor()
    i.preflight({"name": "grep", "arguments": '{"a": 1, "b": 2}'})
    g = i.preflight({"name": "grep", "arguments": {"b": 2, "a": 1}})
    assert g is not None and g.category == "DUPLICATE_CALL"


def test_a_different_call_in_between_means_no_duplicate() -> None:
    i = Interceptor()
    i.preflight(_call(path="a"))
    i.preflight(_call(path="b"))
    assert i.preflight(_call(path="a")) is None


def test_retrying_after_a_failure_is_not_a_duplicate() -> None:
    i = Interceptor()
    i.preflight(_call(path="a"))
    i.on_error(_call(path="a"), "Request timed out")
    assert i.preflight(_call(path="a")) is None


def test_the_duplicate_threshold_is_configurable() -> None:
    i = Interceptor(config=InterceptorConfig(duplicate_threshold=3))
    assert i.preflight(_call(path="a")) is None
    assert i.preflight(_call(path="a")) is None
    assert i.preflight(_call(path="a")) is not None


def test_exempt_tools_are_never_duplicates() -> None:
    i = Interceptor(config=InterceptorConfig(duplicate_exempt_tools=frozenset({"poll"})))
    i.preflight(_call("poll"))
    assert i.preflight(_call("poll")) is None


def test_repeated_duplicates_reach_the_stuck_loop_directive() -> None:
    i = Interceptor()
    i.preflight(_call(path="a"))
    got = [i.preflight(_call(path="a")) for _ in range(3)]
    assert [g.category for g in got if g] == [
        "DUPLICATE_CALL",
        "DUPLICATE_CALL",
        "MODEL_STUCK_LOOP",
    ]


def test_the_stuck_threshold_is_configurable() -> None:
    i = Interceptor(config=InterceptorConfig(stuck_after=2))
    i.on_error(_call(), MISSING)
    assert i.on_error(_call(), MISSING).category == "MODEL_STUCK_LOOP"


def test_invalid_thresholds_are_refused_with_a_clear_message() -> None:
    with pytest.raises(ToolmendError, match="duplicate_threshold"):
        InterceptorConfig(duplicate_threshold=1)
    with pytest.raises(ToolmendError, match="max_bytes"):
        InterceptorConfig(max_bytes=10)


# --- history-derived counts equal the state object's counts ----------------------------

ERRORS = [MISSING, NOT_FOUND, "Command timed out after 2m 0.0s", "Error: oldString not found"]
TOOLS = ["read_file", "edit", "bash"]

step = st.one_of(
    st.tuples(st.just("user")),
    st.tuples(
        st.just("call"),
        st.sampled_from(TOOLS),
        st.sampled_from(["a", "b"]),
        st.one_of(st.none(), st.sampled_from(ERRORS)),
    ),
)


def _replay(
    steps: list[tuple[Any, ...]],
) -> tuple[list[tuple[str, int] | None], list[dict[str, Any]]]:
    """Drive an Interceptor and build the equivalent OpenAI history."""
    interceptor = Interceptor()
    seen: list[tuple[str, int] | None] = []
    messages: list[dict[str, Any]] = [{"role": "system", "content": "s"}]
    for n, item in enumerate(steps):
        if item[0] == "user":
            interceptor.on_user_message()
            messages.append({"role": "user", "content": "go on"})
            continue
        _, name, arg, error = item
        call = {
            "id": f"c{n}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps({"path": arg})},
        }
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        content = "ok: done" if error is None else error
        pre = interceptor.preflight(call)
        if pre is not None and pre.blocking:
            seen.append((pre.category, pre.occurrence))
        else:
            g = interceptor.on_result(call, content)
            seen.append((g.category, g.occurrence) if g and not g.passthrough else None)
        messages.append({"role": "tool", "tool_call_id": f"c{n}", "content": content})
    return seen, messages


def _from_history(messages: list[dict[str, Any]]) -> list[tuple[str, int] | None]:
    out: list[tuple[str, int] | None] = []
    for m in guard_history(messages):
        if m["role"] != "tool":
            continue
        content = m["content"]
        if not content.startswith(GUIDANCE_PREFIX):
            out.append(None)
            continue
        header = content.split("\n", 1)[0].split()
        out.append((header[3], int(header[7])))
    return out


@settings(max_examples=150, deadline=None)
@given(st.lists(step, max_size=14))
def test_history_derived_counts_equal_the_state_object_counts(steps: list[tuple[Any, ...]]) -> None:
    seen, messages = _replay(steps)
    assert _from_history(messages) == seen
