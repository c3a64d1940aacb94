"""toolmend: reliable LLM tool calling.

Text tool-call protocols (render, parse, stream), schema-gated argument repair, tool-name
resolution and error interception, behind one small public surface.
"""

from toolmend.events import (
    Diagnostic,
    Event,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
)
from toolmend.model import (
    ParseResult,
    Tool,
    ToolCall,
    ToolmendError,
    ToolSchemaError,
    UnknownProtocolError,
)

__all__ = [
    "Diagnostic",
    "Event",
    "ParseResult",
    "TextDelta",
    "Tool",
    "ToolCall",
    "ToolCallDelta",
    "ToolCallEnd",
    "ToolCallStart",
    "ToolSchemaError",
    "ToolmendError",
    "UnknownProtocolError",
]
