"""GigaChat 3 and 3.1: one JSON call object after a function-call header, to the message's end.

    <|message_sep|>\n\nfunction call<|role_sep|>\n{"name": "f", "arguments": {…}}</s>   (3)
    <|function_call|>{"name": "f", "arguments": {…}}</s>                                 (3.1)

Owns the markers: the two headers; `<|message_sep|>`, which opens the header's message in
GigaChat 3, and `</s>`, which ends it, are the template's markup (removed). Reading and
rendering are `json_values`' (the block ends where the JSON value ends, or at `</s>`). Never:
reads the role names of other messages (a header names the function-call role only).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from toolmend.core.reader import BlockContext, BlockReader
from toolmend.model import ToolCall
from toolmend.names import ToolResolver
from toolmend.protocols.base import MarkupOnlyReader
from toolmend.protocols.json_values import CallValuesProtocol, call_format

MESSAGE_SEP = "<|message_sep|>"
ROLE_SEP = "<|role_sep|>"
HEADER_V3 = f"function call{ROLE_SEP}"
HEADER_V31 = "<|function_call|>"
END = "</s>"


class GigaChat3Protocol(CallValuesProtocol):
    id = "gigachat3"
    aliases = ("gigachat", "gigachat3.1")
    summary = 'GigaChat 3/3.1: <|function_call|>{"name": ..., "arguments": {...}}'
    opener = HEADER_V31
    closer = END
    format = call_format(
        closers=(END,), reopeners=(HEADER_V31, HEADER_V3), block="a GigaChat function call"
    )
    result_closers = (MESSAGE_SEP,)

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return (HEADER_V31, HEADER_V3, MESSAGE_SEP)

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        if marker == MESSAGE_SEP:
            return MarkupOnlyReader(ctx)
        return super().new_reader(marker, ctx)

    def render_call(self, call: ToolCall) -> str:
        return f"{HEADER_V31}{json.dumps(self.call_object(call), ensure_ascii=False)}{END}"

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        return f"{MESSAGE_SEP}\n\nfunction result{ROLE_SEP}\n{content}"


PROTOCOL = GigaChat3Protocol()
