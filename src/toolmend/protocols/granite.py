"""IBM Granite 3.x: `<|tool_call|>` then a JSON list of call objects.

    <|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]

Owns the marker and the result role of Granite's template; reading and rendering are
`json_values`' (the block ends where the JSON list ends).
"""

from __future__ import annotations

from toolmend.protocols.json_values import CallValuesProtocol, call_format

TOOL_CALL = "<|tool_call|>"
RESULT_OPEN = "<|start_of_role|>tool_response<|end_of_role|>"
RESULT_END = "<|end_of_text|>"


class GraniteProtocol(CallValuesProtocol):
    id = "granite"
    summary = 'Granite: <|tool_call|>[{"name": ..., "arguments": {...}}]'
    opener = TOOL_CALL
    format = call_format(reopeners=(TOOL_CALL,), block="a <|tool_call|> list")
    result_closers = (RESULT_END,)

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        return f"{RESULT_OPEN}{content}{RESULT_END}"


PROTOCOL = GraniteProtocol()
