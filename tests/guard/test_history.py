"""guard_history: a pure, deterministic rewrite of an OpenAI message history."""

from __future__ import annotations

import copy
import json
from typing import Any

from toolmend.guard import guard_history
from toolmend.guard.history import GUIDANCE_PREFIX, ORIGINAL_MARKER, HistoryGuard, edited

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        },
    }
]


def _history(*results: str, args: str = '{"path": "a.txt"}') -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "read a.txt"}]
    for n, result in enumerate(results):
        call = {
            "id": f"c{n}",
            "type": "function",
            "function": {"name": "read_file", "arguments": args},
        }
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": f"c{n}", "content": result})
    return messages


def _tool_contents(messages: list[dict[str, Any]]) -> list[str]:
    return [m["content"] for m in messages if m["role"] == "tool"]


def test_a_failing_result_is_replaced_by_guidance_with_the_original_under_it() -> None:
    out = _tool_contents(
        guard_history(_history("Error: ENOENT: no such file or directory"), tools=TOOLS)
    )
    assert out[0].startswith(GUIDANCE_PREFIX)
    assert "FILE_NOT_FOUND" in out[0]
    assert out[0].endswith(f"{ORIGINAL_MARKER}\nError: ENOENT: no such file or directory")


def test_successful_results_are_left_alone() -> None:
    messages = _history("hello world")
    assert guard_history(messages, tools=TOOLS) == messages


def test_a_tool_message_flagged_is_error_is_a_failure_so_its_retry_is_not_a_duplicate() -> None:
    # The Messages front-end carries a tool_result's `is_error` onto the chat `tool` message;
    # unflagged, the same unknown wording reads as a success and the retry as a duplicate call.
    unflagged = _history(*["The file m.py could not be opened."] * 2)
    assert "DUPLICATE_CALL" in _tool_contents(guard_history(unflagged, tools=TOOLS))[1]
    flagged = _history(*["The file m.py could not be opened."] * 2)
    for message in flagged:
        if message["role"] == "tool":
            message["is_error"] = True
    assert "DUPLICATE_CALL" not in _tool_contents(guard_history(flagged, tools=TOOLS))[1]


def test_unclassified_failures_pass_through_unchanged() -> None:
    messages = _history("Error: the frobnicator is sad")
    assert _tool_contents(guard_history(messages)) == ["Error: the frobnicator is sad"]


def test_the_input_is_never_mutated() -> None:
    messages = _history("Error: ENOENT: no such file or directory")
    before = copy.deepcopy(messages)
    guard_history(messages, tools=TOOLS)
    assert messages == before


def test_the_same_history_always_gives_the_same_output() -> None:
    messages = _history(*["Error: ENOENT: no such file or directory"] * 4)
    outs = {json.dumps(guard_history(messages, tools=TOOLS)) for _ in range(3)}
    assert len(outs) == 1


def test_guarding_a_guarded_history_changes_nothing() -> None:
    messages = _history("Error: ENOENT: no such file or directory", "Error: Permission denied")
    once = guard_history(messages, tools=TOOLS)
    assert guard_history(once, tools=TOOLS) == once


def test_counts_are_derived_from_the_history() -> None:
    err = "Error: ENOENT: no such file or directory, open 'a.txt'"
    messages = _history(err, err, err)
    out = _tool_contents(guard_history(messages, tools=TOOLS))
    assert [c.split(" | ")[1] for c in out] == ["occurrence 1", "occurrence 2", "occurrence 3"]
    assert "MODEL_STUCK_LOOP" in out[2]


def test_a_user_message_in_the_history_resets_the_count() -> None:
    err = "Error: ENOENT: no such file or directory"
    messages = _history(err, err)
    messages.insert(3, {"role": "user", "content": "try again"})
    out = _tool_contents(guard_history(messages, tools=TOOLS))
    assert [c.split(" | ")[1] for c in out] == ["occurrence 1", "occurrence 1"]


def test_exactly_one_guided_result_per_blocked_call() -> None:
    messages = _history("Error: arguments were not JSON", args='{"path":"a"}{"path":"b"}')
    out = guard_history(messages, tools=TOOLS)
    guided = [c for c in _tool_contents(out) if c.startswith(GUIDANCE_PREFIX)]
    assert len(guided) == 1 and guided[0].count(GUIDANCE_PREFIX) == 1
    assert "INVALID_JSON_ARGUMENTS" in guided[0]


def test_the_kept_original_is_truncated_and_secrets_are_masked() -> None:
    err = "Error: Permission denied. api_key=sk-abcdefghijklmnopqrstuv " + "x" * 5000
    content = _tool_contents(guard_history(_history(err), tools=TOOLS))[0]
    assert "sk-abcdefghijklmnop" not in content
    original = content.split(ORIGINAL_MARKER, 1)[1]
    assert len(original.encode("utf-8")) <= 520


def test_content_parts_lists_are_read_as_text() -> None:
    messages = _history("placeholder")
    messages[-1]["content"] = [{"type": "text", "text": "Error: ENOENT: no such file or directory"}]
    out = _tool_contents(guard_history(messages, tools=TOOLS))
    assert "FILE_NOT_FOUND" in out[0]


def test_a_result_without_a_known_call_is_still_classified() -> None:
    messages = [
        {"role": "tool", "tool_call_id": "zzz", "content": "Error: context_length_exceeded"}
    ]
    out = _tool_contents(guard_history(messages))
    assert "CONTEXT_OVERFLOW" in out[0]


# --- Anthropic Messages shape (the proxy's /v1/messages front-end) --------------------------

ANTHROPIC_TOOLS = [
    {
        "name": "Edit",
        "input_schema": {
            "type": "object",
            "properties": {
                "file_path": {"type": "string"},
                "old_string": {"type": "string"},
                "new_string": {"type": "string"},
            },
            "required": ["file_path", "old_string", "new_string"],
        },
    }
]
EDIT_INPUT = {"file_path": "a.py", "old_string": "x = 1", "new_string": "x = 2"}
NOT_FOUND = "<tool_use_error>String to replace not found in file.\nString: x = 1</tool_use_error>"


def _anthropic(*results: tuple[str, bool | None], name: str = "Edit") -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "change x"}]
    for n, (text, is_error) in enumerate(results):
        use = {"type": "tool_use", "id": f"toolu_{n}", "name": name, "input": EDIT_INPUT}
        messages.append({"role": "assistant", "content": [{"type": "text", "text": "ok"}, use]})
        block: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": f"toolu_{n}",
            "content": text,
        }
        if is_error is not None:
            block["is_error"] = is_error
        messages.append({"role": "user", "content": [block]})
    return messages


def _results(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        b
        for m in messages
        if isinstance(m.get("content"), list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]


def test_an_anthropic_tool_result_flagged_is_error_gets_guidance_in_place() -> None:
    history = _anthropic((NOT_FOUND, True))
    before = copy.deepcopy(history)
    out = guard_history(history, tools=ANTHROPIC_TOOLS)
    (result,) = _results(out)
    assert history == before
    assert result["is_error"] is True and result["tool_use_id"] == "toolu_0"
    assert result["content"].startswith(GUIDANCE_PREFIX)
    assert "DIFF_MATCH_FAILED" in result["content"] and "`Edit`" in result["content"]


def test_tool_use_error_text_is_a_failure_even_without_the_flag() -> None:
    (result,) = _results(guard_history(_anthropic((NOT_FOUND, None)), tools=ANTHROPIC_TOOLS))
    assert "DIFF_MATCH_FAILED" in result["content"]


def test_an_anthropic_success_is_returned_unchanged() -> None:
    ok = "The file a.py has been updated."
    (result,) = _results(guard_history(_anthropic((ok, False)), tools=ANTHROPIC_TOOLS))
    assert result["content"] == ok


def test_repeated_anthropic_failures_reach_the_loop_breaker() -> None:
    out = guard_history(_anthropic(*[(NOT_FOUND, True)] * 3), tools=ANTHROPIC_TOOLS)
    contents = [r["content"] for r in _results(out)]
    assert "occurrence 1" in contents[0] and "occurrence 2" in contents[1]
    assert "MODEL_STUCK_LOOP" in contents[2]


def test_an_anthropic_call_to_an_unknown_tool_is_answered_by_preflight() -> None:
    out = guard_history(
        _anthropic(("Error: No such tool available: Edti", True), name="Edti"),
        tools=ANTHROPIC_TOOLS,
    )
    (result,) = _results(out)
    assert "TOOL_NOT_FOUND" in result["content"] and "Did you mean `Edit`?" in result["content"]


def test_a_user_message_with_text_beside_tool_results_resets_the_counts() -> None:
    history = _anthropic((NOT_FOUND, True), (NOT_FOUND, True))
    history[-1]["content"].append({"type": "text", "text": "try again please"})
    history += _anthropic((NOT_FOUND, True))[1:]
    history[-2]["content"][1]["id"] = "toolu_9"
    history[-1]["content"][0]["tool_use_id"] = "toolu_9"
    contents = [r["content"] for r in _results(guard_history(history, tools=ANTHROPIC_TOOLS))]
    assert "occurrence 1" in contents[2]


def test_guarding_an_anthropic_history_twice_changes_nothing_more() -> None:
    once = guard_history(_anthropic((NOT_FOUND, True), (NOT_FOUND, True)), tools=ANTHROPIC_TOOLS)
    assert guard_history(once, tools=ANTHROPIC_TOOLS) == once


def test_a_toolcall_object_in_the_history_is_matched_to_its_result() -> None:
    from toolmend import ToolCall

    call = ToolCall(id="call_9", name="read_file", arguments={"path": "a.txt"})
    history = [
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {
            "role": "tool",
            "tool_call_id": "call_9",
            "content": "Error: ENOENT: no such file, open a",
        },
    ]
    guided = guard_history(history)
    assert "`read_file`" in guided[1]["content"]


def test_a_dict_call_marked_incomplete_is_blocked_as_truncated() -> None:
    from toolmend.guard import Interceptor

    call = {"id": "c1", "name": "write_file", "arguments": {"path": "a"}, "incomplete": True}
    guidance = Interceptor().preflight(call)
    assert guidance is not None and guidance.blocking
    assert guidance.category == "INVALID_JSON_ARGUMENTS"


def test_a_readings_edit_gives_an_equal_message_the_same_guided_copy() -> None:
    # The edit is plain data: applied to another message equal to the one read (a later
    # request's copy of it), it gives the copy the reading gave, and changes neither message.
    history = _anthropic((NOT_FOUND, True), ("done", None))
    history.append(
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_9", "content": NOT_FOUND},
                {"type": "text", "text": "and now?"},
            ],
        }
    )
    history += _history("Error: ENOENT: no such file or directory", "hello")[1:]
    reader = HistoryGuard(ANTHROPIC_TOOLS)
    edits = [reader.read_edit(message) for message in history]
    assert [type(e).__name__ for e in edits] == [
        *("NoneType", "NoneType", "tuple", "NoneType", "tuple", "tuple"),
        *("NoneType", "str", "NoneType", "str"),
    ]
    later = copy.deepcopy(history)
    assert [edited(m, e) for m, e in zip(later, edits, strict=True)] == guard_history(
        history, tools=ANTHROPIC_TOOLS
    )
    assert later == history
