"""toolmend: reliable LLM tool calling.

Text tool-call protocols (render, parse, stream), schema-gated argument repair, tool-name
resolution and error interception, behind one small public surface.
"""

from toolmend.api import parse, stream_parser
from toolmend.errors import (
    CannotRenderError,
    ToolmendError,
    ToolSchemaError,
    UnknownProtocolError,
)
from toolmend.events import (
    Diagnostic,
    Event,
    ParseResult,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
)
from toolmend.guard import (
    Classification,
    Guidance,
    Interceptor,
    InterceptorConfig,
    ResultVerdict,
    classify_error,
    classify_result,
    guard_history,
    json_error_reminder,
)
from toolmend.model import Tool, ToolCall
from toolmend.protocols import get_protocol, protocols
from toolmend.recovery import arecover_stream, recover_response, recover_stream
from toolmend.schema_gate import GateResult, Policy, SchemaGate

__all__ = [
    "CannotRenderError",
    "Classification",
    "Diagnostic",
    "Event",
    "GateResult",
    "Guidance",
    "Interceptor",
    "InterceptorConfig",
    "ParseResult",
    "Policy",
    "ReasoningDelta",
    "ResultVerdict",
    "SchemaGate",
    "TextDelta",
    "Tool",
    "ToolCall",
    "ToolCallDelta",
    "ToolCallEnd",
    "ToolCallStart",
    "ToolSchemaError",
    "ToolmendError",
    "UnknownProtocolError",
    "arecover_stream",
    "classify_error",
    "classify_result",
    "get_protocol",
    "guard_history",
    "json_error_reminder",
    "parse",
    "protocols",
    "recover_response",
    "recover_stream",
    "stream_parser",
]
