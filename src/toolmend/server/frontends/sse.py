"""Server-sent-event framing for the named-event grammars (Anthropic Messages, Responses).

Both grammars send `event: <type>` then `data: <json>` and a blank line; the event name is
always the payload's own `type`, so a frame is built from the payload alone. This module only
frames; it never decides which events a stream contains.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

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
