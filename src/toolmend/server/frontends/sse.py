"""Server-sent-event framing for the named-event grammars (Anthropic Messages, Responses).

Both grammars send `event: <type>` then `data: <json>` and a blank line; the event name is
always the payload's own `type`, so a frame is built from the payload alone. A `FrameTemplate`
is the frame of one event shape whose values change from event to event (a text delta's text,
its sequence number): the bytes around them are written once, the values on each use, the same
bytes `sse_frame` gives. This module only frames; it never decides which events a stream
contains.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from toolmend.server import wirejson

#: Frame heads kept, one per event type: the grammars name a few dozen types, so this bound
#: is only a guard against an unbounded cache.
MAX_HEADS = 256
_heads: dict[str, bytes] = {}


def sse_frame(event: Mapping[str, Any]) -> bytes:
    """One SSE frame for `event`, named by its `type` (compact JSON, UTF-8 kept; the proxy's
    codec, orjson, writes an event about seven times faster than `json`). The `event:` line
    and the `data: ` before the JSON are built once per type."""
    kind = event["type"]
    head = _heads.get(kind)
    if head is None:
        head = b"event: %s\ndata: " % str(kind).encode()
        if len(_heads) < MAX_HEADS:
            _heads[kind] = head
    return head + wirejson.dumps(event) + b"\n\n"


#: What stands in an event given to `FrameTemplate` where a value goes (no client text is in a
#: template's event: its fields are the writer's own).
SLOT = "\x00slot\x00"
_SLOT_JSON = wirejson.dumps(SLOT)


class FrameTemplate:
    """`sse_frame` of `event` with each `SLOT` in it filled by a value given later.

    A text delta is nearly every event of an answer, and building its dicts and writing them
    as JSON cost about twice what writing its text alone does. JSON writes a value the same
    wherever it stands, so the frame is the template's fixed bytes around each value's JSON.
    """

    __slots__ = ("head", "middle", "tail")

    def __init__(self, event: Mapping[str, Any]) -> None:
        """`event`: one or two `SLOT` values, in the order `fill` and `fill2` take them."""
        parts = sse_frame(event).split(_SLOT_JSON)
        if len(parts) not in (2, 3):
            raise ValueError("a frame template takes one or two slots")
        #: The fixed bytes before, between and after the values: a writer's hot path may
        #: write `head + orjson.dumps(value) + tail` itself (a Python call less per chunk),
        #: and calls `fill` for what orjson refuses.
        self.head = parts[0]
        self.middle = parts[1] if len(parts) == 3 else b""
        self.tail = parts[-1]

    def fill(self, value: Any) -> bytes:
        """The frame of a one-slot template (what orjson refuses is written by the proxy's
        codec, as `sse_frame` does)."""
        try:
            return self.head + orjson.dumps(value) + self.tail
        except TypeError:
            return self.head + wirejson.dumps(value) + self.tail

    def fill2(self, first: Any, second: Any) -> bytes:
        """The frame of a two-slot template."""
        try:
            return self.head + orjson.dumps(first) + self.middle + orjson.dumps(second) + self.tail
        except TypeError:
            values = wirejson.dumps(first), wirejson.dumps(second)
            return b"".join((self.head, values[0], self.middle, values[1], self.tail))
