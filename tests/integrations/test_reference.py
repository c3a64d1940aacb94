"""The conformance table through the engine the proxy runs: `recover_response`,
`recover_stream` and `guard_history` called directly. Every adapter's test expects these same
values, so an adapter that drifts from the engine fails against the same table."""

from __future__ import annotations

import pytest

import toolmend

from .scenarios import (
    FIRST_FAILURE,
    SCENARIOS,
    THIRD_FAILURE,
    TOOLS,
    chunks,
    completion,
    expected,
    failing_history,
    header,
    outcome,
)


def folded(stream: list[dict]) -> dict:
    """A streamed reply accumulated the way an agent does (calls by index)."""
    calls: dict[int, dict] = {}
    message: dict = {"content": "", "toolmend_rejected_calls": []}
    for chunk in stream:
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            message["content"] += delta.get("content") or ""
            message["toolmend_rejected_calls"] += delta.get("toolmend_rejected_calls") or []
            for call in delta.get("tool_calls") or []:
                entry = calls.setdefault(call["index"], {"function": {"name": "", "arguments": ""}})
                entry["function"]["name"] += call["function"].get("name") or ""
                entry["function"]["arguments"] += call["function"].get("arguments") or ""
    message["tool_calls"] = [calls[i] for i in sorted(calls)]
    return message


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_the_engine_gives_the_tables_calls_whole_and_streamed(scenario):
    whole = outcome(
        toolmend.recover_response(completion(scenario), tools=TOOLS)["choices"][0]["message"]
    )
    streamed = outcome(folded(list(toolmend.recover_stream(chunks(scenario), tools=TOOLS))))
    assert {k: whole[k] for k in ("calls", "rejected")} == expected(scenario)
    assert {k: streamed[k] for k in ("calls", "rejected")} == expected(scenario)
    if scenario.text is not None:
        assert whole["text"] == streamed["text"] == scenario.text


def test_the_engine_guards_the_repeated_failure_up_to_the_loop_breaker():
    guarded = toolmend.guard_history(failing_history(3), tools=TOOLS)
    assert header(guarded[2]["content"]).startswith(FIRST_FAILURE)
    assert header(guarded[-1]["content"]).startswith(THIRD_FAILURE)
