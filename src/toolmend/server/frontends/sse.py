"""Server-sent-event framing for the named-event grammars (Anthropic Messages, Responses).

Both grammars send `event: <type>` then `data: <json>` and a blank line; the event name is
always the payload's own `type`, so a frame is built from the payload alone. This module only
frames; it never decides which events a stream contains.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

#: One encoder for every frame: `json.dumps` with options builds a new one per call.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def sse_frame(event: Mapping[str, Any]) -> bytes:
    """One SSE frame for `event`, named by its `type` (compact JSON, UTF-8 kept)."""
    return f"event: {event['type']}\ndata: {_ENCODER.encode(event)}\n\n".encode()
