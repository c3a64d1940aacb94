"""toolmend: reliable LLM tool calling.

Text tool-call protocols (render, parse, stream), schema-gated argument repair, tool-name
resolution and error interception, behind one small public surface.
"""

from toolmend.api import parse, stream_parser
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
from toolmend.protocols import get_protocol, protocols
from toolmend.schema_gate import GateResult, Policy, SchemaGate

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
    "GateResult",
    "Policy",
    "SchemaGate",
    "get_protocol",
    "parse",
    "protocols",
    "stream_parser",
]
