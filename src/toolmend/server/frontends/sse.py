"""Server-sent-event framing for the named-event grammars (Anthropic Messages, Responses).

Both grammars send `event: <type>` then `data: <json>` and a blank line; the event name is
always the payload's own `type`, so a frame is built from the payload alone. This module only
frames; it never decides which events a stream contains.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolmend.server import wirejson


def sse_frame(event: Mapping[str, Any]) -> bytes:
    """One SSE frame for `event`, named by its `type` (compact JSON, UTF-8 kept; the proxy's
    codec, orjson, writes an event about seven times faster than `json`)."""
    return b"event: %s\ndata: %s\n\n" % (str(event["type"]).encode(), wirejson.dumps(event))
