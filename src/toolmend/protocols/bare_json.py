"""Bare JSON calls: a call object or a list of them, with no marker (xLAM and many fine-tunes).

    [{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_time", …}]
    Sure. {"function": "get_weather", "args": {"city": "Paris"}}

Owns nothing but its place in the registry and rendering (a JSON list, xLAM's shape). Reading is
`json_values`' under the false-positive guard: the JSON must look like a call from its first
key, its name must resolve against the tools, and with `tools=None` it is a call only when it
is the whole output.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from toolmend.core.reader import BlockContext, BlockReader
from toolmend.model import ToolCall
from toolmend.names import ToolResolver
from toolmend.protocols.json_values import CallValuesProtocol, CallValuesReader

BARE = ("{", "[")


class BareJsonProtocol(CallValuesProtocol):
    id = "json"
    aliases = ("bare-json", "json-list", "xlam")
    summary = 'bare JSON: [{"name": ..., "arguments": {...}}], alone or (named tools) in prose'
    result_closers = ("</tool_result>",)
    bare_markers = BARE

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return BARE

    def cut_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return ()

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        return CallValuesReader(ctx, self.format, marker, bare=True, prime=marker)

    def render_call(self, call: ToolCall) -> str:
        return json.dumps([self.call_object(call)], ensure_ascii=False)

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        return f"<tool_result>{content}</tool_result>"


PROTOCOL = BareJsonProtocol()
