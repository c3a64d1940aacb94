"""LongCat-Flash: one JSON call object in `<longcat_tool_call>…</longcat_tool_call>`.

    <longcat_tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</longcat_tool_call>

Owns the tags and the result envelope; reading is `json_values`'. Never: reads LongCat's
key/value argument tags (`<longcat_arg_key>`), a key/value-tag format.
"""

from __future__ import annotations

import json

from toolmend.model import ToolCall
from toolmend.protocols.json_values import CallValuesProtocol, call_format

OPEN = "<longcat_tool_call>"
CLOSE = "</longcat_tool_call>"
RESULT_OPEN = "<longcat_tool_response>"
RESULT_END = "</longcat_tool_response>"


class LongCatProtocol(CallValuesProtocol):
    id = "longcat"
    summary = 'LongCat: <longcat_tool_call>{"name": ..., "arguments": {...}}</longcat_tool_call>'
    opener = OPEN
    closer = CLOSE
    format = call_format(closers=(CLOSE,), reopeners=(OPEN,), block="a <longcat_tool_call> block")
    result_closers = (RESULT_END,)

    def render_call(self, call: ToolCall) -> str:
        return f"{OPEN}{json.dumps(self.call_object(call), ensure_ascii=False)}{CLOSE}"

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        return f"{RESULT_OPEN}{content}{RESULT_END}"


PROTOCOL = LongCatProtocol()
