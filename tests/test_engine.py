"""Behaviour of the shared streaming engine that no single protocol owns."""

from __future__ import annotations

import pytest

import toolmend
from support import assert_conserved, check_all_invariants, run_chunks
from toolmend.events import Diagnostic, ToolCallEnd

TOOLS = [{"name": "a", "parameters": {"type": "object", "properties": {"x": {"type": "string"}}}}]


def test_a_fragment_cut_off_after_the_last_call_of_a_block_is_dropped_and_recorded() -> None:
    text = '<function_calls>\n<invoke name="a">\n<parameter name="x">1</parameter>\n</invoke>\n<invoke na'
    events = run_chunks("antml", [text], TOOLS)
    [end] = [e for e in events if isinstance(e, ToolCallEnd)]
    assert end.call.executable and end.call.arguments == {"x": "1"}
    [diag] = [e for e in events if isinstance(e, Diagnostic)]
    assert diag.code == "truncated_fragment_dropped"
    assert set(diag.metadata) == {"protocol", "retained_length"}
    assert_conserved(text, events)
    check_all_invariants("antml", text, TOOLS)


def test_a_header_cut_off_after_its_name_ends_that_call_incomplete() -> None:
    text = '<function_calls>\n<invoke name="a">\n<parameter name="x">1</parameter>\n</invoke>\n<invoke name="a"'
    result = toolmend.parse(text, "antml", TOOLS)
    assert [(c.executable, c.incomplete) for c in result.tool_calls] == [
        (True, False),
        (False, True),
    ]
    check_all_invariants("antml", text, TOOLS)


def test_feeding_after_finish_is_a_caller_error() -> None:
    parser = toolmend.stream_parser("hermes")
    parser.finish()
    with pytest.raises(RuntimeError, match="finish"):
        parser.feed("x")


def test_feeding_bytes_is_a_caller_error() -> None:
    with pytest.raises(TypeError, match="str"):
        toolmend.stream_parser("hermes").feed(b"x")  # type: ignore[arg-type]


def test_finish_twice_returns_nothing_more() -> None:
    parser = toolmend.stream_parser("hermes")
    assert parser.feed("hello") + parser.finish() != []
    assert parser.finish() == []
