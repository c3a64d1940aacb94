"""IBM Granite 3.x: `<|tool_call|>` then a JSON list of call objects; Granite 20B FC: each call
object after its own `<function_call>`.

    <|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]
    <tool_call> [{"name": "get_weather", "arguments": {"city": "Paris"}}]
    <function_call> {"name": "get_weather", "arguments": {"city": "Paris"}} <function_call> {…}

Granite 3.0 writes the `<|tool_call|>` token, Granite 3.1 the same as the string `<tool_call>`
(no closer either way).

Owns the markers and the result role of Granite's template; reading and rendering are
`json_values`' (the block ends where the JSON value ends, or at the next marker).
"""

from __future__ import annotations

from collections.abc import Sequence

from toolmend.names import ToolResolver
from toolmend.protocols.json_values import CallValuesProtocol, call_format

TOOL_CALL = "<|tool_call|>"
TOOL_CALL_STRING = "<tool_call>"
FUNCTION_CALL = "<function_call>"
RESULT_OPEN = "<|start_of_role|>tool_response<|end_of_role|>"
RESULT_END = "<|end_of_text|>"


class GraniteProtocol(CallValuesProtocol):
    id = "granite"
    summary = 'Granite: <|tool_call|>[{"name": ..., "arguments": {...}}]'
    opener = TOOL_CALL
    format = call_format(
        reopeners=(TOOL_CALL, TOOL_CALL_STRING, FUNCTION_CALL), block="a <|tool_call|> list"
    )
    result_closers = (RESULT_END,)

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return (TOOL_CALL, TOOL_CALL_STRING, FUNCTION_CALL)

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        return f"{RESULT_OPEN}{content}{RESULT_END}"


PROTOCOL = GraniteProtocol()
