"""LongCat-Flash: `<longcat_tool_call>`, holding a JSON call object or key/value tags.

    <longcat_tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</longcat_tool_call>
    <longcat_tool_call>get_weather
    <longcat_arg_key>city</longcat_arg_key>
    <longcat_arg_value>Paris</longcat_arg_value>
    </longcat_tool_call>

LongCat's template writes the key/value form, GLM's with `longcat_`-prefixed tags (vLLM and
mlx-lm read both forms). This module owns the tags and the result envelope: a block is read by
GLM's reader (`glm.GlmReader`) with LongCat's tags, and its JSON form by the JSON call-object
reader (`json_values`). Calls are rendered as JSON.
"""

from __future__ import annotations

import json

from toolmend.core.reader import BlockContext, BlockReader
from toolmend.model import ToolCall
from toolmend.protocols.glm import GlmReader, KeyValueTags
from toolmend.protocols.json_values import CallValuesProtocol, CallValuesReader, call_format

OPEN = "<longcat_tool_call>"
CLOSE = "</longcat_tool_call>"
RESULT_OPEN = "<longcat_tool_response>"
RESULT_END = "</longcat_tool_response>"
TAGS = KeyValueTags(
    OPEN,
    CLOSE,
    "<longcat_arg_key>",
    "</longcat_arg_key>",
    "<longcat_arg_value>",
    "</longcat_arg_value>",
)


class LongCatProtocol(CallValuesProtocol):
    id = "longcat"
    summary = (
        "LongCat: <longcat_tool_call>NAME<longcat_arg_key>K</longcat_arg_key>"
        "<longcat_arg_value>V</longcat_arg_value></longcat_tool_call>, or a JSON call object"
    )
    opener = OPEN
    closer = CLOSE
    format = call_format(closers=(CLOSE,), reopeners=(OPEN,), block="a <longcat_tool_call> block")
    result_closers = (RESULT_END,)

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        def json_reader(ctx: BlockContext) -> BlockReader:
            return CallValuesReader(ctx, self.format, marker)

        return GlmReader(ctx, TAGS, json_reader)

    def render_call(self, call: ToolCall) -> str:
        return f"{OPEN}{json.dumps(self.call_object(call), ensure_ascii=False)}{CLOSE}"

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        return f"{RESULT_OPEN}{content}{RESULT_END}"


PROTOCOL = LongCatProtocol()
