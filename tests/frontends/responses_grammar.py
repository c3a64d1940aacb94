"""The Responses streaming grammar, checked event by event, and the SDK's own reading of it.

Grammar (platform.openai.com, "Streaming API responses"): `response.created`, then items, each
`response.output_item.added` … `response.output_item.done` with its own `output_index`
(0, 1, …, fixed for the item's life), deltas only for the open item, and one terminal event
(`response.completed`, `.incomplete` or `.failed`) after every item is done. Every event has a
`sequence_number`, increasing from 0.
"""

from __future__ import annotations

from typing import Any

from openai import omit
from openai.lib.streaming.responses._responses import ResponseStreamState
from openai.types.responses import Response, ResponseStreamEvent
from pydantic import TypeAdapter

_EVENT = TypeAdapter(ResponseStreamEvent)
TERMINAL = ("response.completed", "response.incomplete", "response.failed")


def check_grammar(events: list[dict[str, Any]]) -> dict[str, Any]:
    """Raises AssertionError at the first event out of order; returns the final response."""
    assert events[0]["type"] == "response.created"
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    assert events[-1]["type"] in TERMINAL
    assert sum(e["type"] in TERMINAL for e in events) == 1
    open_index: int | None = None
    added = 0
    state = ResponseStreamState(input_tools=omit, text_format=omit)
    for event in events:
        state.handle_event(_EVENT.validate_python(event))
        kind = event["type"]
        if kind == "response.output_item.added":
            assert open_index is None, "an item is added while another is open"
            assert event["output_index"] == added, "output_index runs 0, 1, 2, …"
            open_index = event["output_index"]
            added += 1
        elif kind == "response.output_item.done":
            assert event["output_index"] == open_index, "done for an item that is not open"
            open_index = None
        elif "output_index" in event:
            assert event["output_index"] == open_index, f"{kind} outside its item"
    assert open_index is None, "every item is done before the terminal event"
    final = events[-1]["response"]
    Response.model_validate(final)
    assert [item["id"] for item in final["output"]] == [
        e["item"]["id"] for e in events if e["type"] == "response.output_item.done"
    ]
    return dict(final)
