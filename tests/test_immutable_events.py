"""A `ToolCallEnd` hands the consumer a call nothing can change afterwards."""

from __future__ import annotations

import dataclasses

import pytest

import toolmend
from toolmend.events import ToolCallEnd

WEATHER = [{"name": "get_weather", "parameters": {"type": "object"}}]
CALL = '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>'


def _end_event() -> tuple[ToolCallEnd, toolmend.ToolCall]:
    parser = toolmend.stream_parser("hermes", WEATHER, id_prefix="call_")
    (end,) = [e for e in parser.feed(CALL) if isinstance(e, ToolCallEnd)]
    return end, dataclasses.replace(end.call)


def test_the_call_of_an_end_event_cannot_be_reassigned() -> None:
    end, _ = _end_event()
    with pytest.raises(dataclasses.FrozenInstanceError):
        end.call.arguments = {}  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        end.call.incomplete = True  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        end.call = toolmend.ToolCall("x", "y")  # type: ignore[misc]


def test_more_input_after_an_end_event_leaves_its_call_as_it_was() -> None:
    parser = toolmend.stream_parser("hermes", WEATHER, id_prefix="call_")
    (end,) = [e for e in parser.feed(CALL) if isinstance(e, ToolCallEnd)]
    before = dataclasses.replace(end.call, arguments=dict(end.call.arguments))
    parser.feed(CALL.replace("Oslo", "Bergen") + " and ")
    parser.finish()
    assert end.call == before


def test_a_parse_result_holds_the_calls_its_end_events_carried() -> None:
    result = toolmend.parse(CALL, "hermes", WEATHER)
    (call,) = result.tool_calls
    with pytest.raises(dataclasses.FrozenInstanceError):
        call.error = "changed"  # type: ignore[misc]
    assert call.executable
