"""Llama 3.x and 4 JSON calls: `{"name": …, "parameters": {…}}`, after `<|python_tag|>` or bare,
several separated by `;`.

    <|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}; {"name": …}
    {"type": "function", "name": "get_weather", "parameters": {"city": "Paris"}}

Owns the markers and the `ipython` result turn of Llama's template. Reading is `json_values`':
a bare object is read under the false-positive guard (its name resolves against the tools, or
with `tools=None` it is the whole output). Never: reads Llama's pythonic calls (`pythonic`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from toolmend.core.reader import BlockContext, BlockReader
from toolmend.model import ToolCall
from toolmend.names import ToolResolver
from toolmend.protocols.json_values import CallValuesProtocol, CallValuesReader, call_format

PYTHON_TAG = "<|python_tag|>"
END_OF_MESSAGE = ("<|eom_id|>", "<|eot_id|>")
#: A bare JSON value's first character: the marker of a bare call, read under the guard.
BARE = ("{", "[")
RESULT_OPEN = "<|start_header_id|>ipython<|end_header_id|>\n\n"


class Llama3JsonProtocol(CallValuesProtocol):
    id = "llama3-json"
    aliases = ("llama3", "llama4-json", "llama3_json")
    summary = 'Llama 3/4 JSON: {"name": ..., "parameters": {...}}, bare or after <|python_tag|>'
    opener = PYTHON_TAG
    format = call_format(closers=END_OF_MESSAGE, reopeners=(PYTHON_TAG,), block="a python_tag call")
    arguments_key = "parameters"
    result_closers = ("<|eot_id|>",)
    bare_markers = BARE

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return (PYTHON_TAG, *BARE)

    def cut_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return (PYTHON_TAG,)

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        if marker in BARE:
            return CallValuesReader(ctx, self.format, marker, bare=True, prime=marker)
        return CallValuesReader(ctx, self.format, marker)

    def render_call(self, call: ToolCall) -> str:
        return json.dumps(self.call_object(call), ensure_ascii=False)

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        return f"{RESULT_OPEN}{content}<|eot_id|>"


PROTOCOL = Llama3JsonProtocol()
