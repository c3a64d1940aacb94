"""The Anthropic Messages streaming grammar, checked event by event, and the SDK's own reading.

Grammar (docs.anthropic.com, "Streaming Messages"): `message_start`; then any number of blocks,
each `content_block_start`, deltas of its own kind, `content_block_stop`, with indices 0, 1, …;
`ping` anywhere; one `message_delta`; `message_stop` last.
"""

from __future__ import annotations

from typing import Any

from anthropic.lib.streaming._messages import accumulate_event
from anthropic.types import RawMessageStreamEvent
from pydantic import TypeAdapter

_EVENT = TypeAdapter(RawMessageStreamEvent)
_DELTAS_OF = {
    "text": {"text_delta"},
    "thinking": {"thinking_delta", "signature_delta"},
    "tool_use": {"input_json_delta"},
    "server_tool_use": {"input_json_delta"},
}


def check_grammar(events: list[dict[str, Any]]) -> None:
    """Raises AssertionError at the first event out of the documented order or shape."""
    assert events and events[0]["type"] == "message_start", "the stream opens with message_start"
    assert events[-1]["type"] == "message_stop", "the stream ends with message_stop"
    open_block: tuple[int, str] | None = None
    next_index = 0
    deltas = 0
    for event in events:
        kind = event["type"]
        if kind == "ping":  # a keep-alive the SDK skips; not part of its event union
            assert event == {"type": "ping"}
            continue
        _EVENT.validate_python(event)
        if kind == "content_block_start":
            assert open_block is None, "a block starts while another is open"
            assert event["index"] == next_index, "block indices run 0, 1, 2, …"
            open_block = (event["index"], event["content_block"]["type"])
            next_index += 1
        elif kind == "content_block_delta":
            assert open_block is not None and event["index"] == open_block[0], (
                "delta outside its block"
            )
            allowed = _DELTAS_OF.get(open_block[1], set())
            assert event["delta"]["type"] in allowed, "delta of another kind"
        elif kind == "content_block_stop":
            assert open_block is not None and event["index"] == open_block[0], (
                "stop of a closed block"
            )
            open_block = None
        elif kind == "message_delta":
            assert open_block is None, "message_delta while a block is open"
            deltas += 1
    assert deltas == 1, "exactly one message_delta"


def sdk_message(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The message the official SDK's stream accumulator builds from these events."""
    snapshot = None
    bufs: dict[int, bytes] = {}
    for event in events:
        if event["type"] in ("ping", "error"):
            continue
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=bufs)  # type: ignore[arg-type]
    assert snapshot is not None
    return snapshot.model_dump(exclude_none=True)
