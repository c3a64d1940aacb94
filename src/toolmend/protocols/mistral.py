"""Mistral: `[TOOL_CALLS]`, then the v11+ `NAME[ARGS]{…}` or the older list of call objects.

    [TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}[TOOL_CALLS]get_time[ARGS]{}   v11 and later
    [TOOL_CALLS]get_weather[CALL_ID]a1b2c3d4e[ARGS]{"city": "Paris"}             with a call id
    [TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}]        before v11
    [TOOL_CALLS]get_weather{"city": "Paris"}                                     no [ARGS] marker

Owns the markers, the header rule (`tool_name`) and rendering in the v11 syntax; results go
back as `[TOOL_RESULTS]{"call_id": …, "content": …}[/TOOL_RESULTS]` with the content JSON-encoded
(so it cannot close its envelope). The reading is `json_args.HeaderJsonReader`'s, handing a
block of call objects to `json_values`. `[THINK]…[/THINK]` is a reasoning span (the parser's).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from toolmend.core.reader import BlockContext, BlockReader, ReasoningSpan
from toolmend.model import Tool, ToolCall, canonical_json
from toolmend.names import ToolResolver
from toolmend.protocols.base import TextProtocol, declare_tools
from toolmend.protocols.json_args import HeaderJsonReader, HeaderJsonSyntax
from toolmend.protocols.json_values import CallValuesReader, call_format

TOOL_CALLS = "[TOOL_CALLS]"
TOOL_CALLS_END = "[/TOOL_CALLS]"
ARGS = "[ARGS]"
CALL_ID = "[CALL_ID]"
RESULTS = "[TOOL_RESULTS]"
RESULTS_END = "[/TOOL_RESULTS]"
#: Magistral's (and Devstral's, Mistral Small 3.2's) reasoning span.
THINK = "[THINK]"
THINK_END = "[/THINK]"

_HEADER = re.compile(r"\s*([^\s\[\]{}<>]+)\s*(?:\[CALL_ID\]\s*[^\s\[\]{}]*\s*)?(?:\[ARGS\])?\s*\Z")

#: Every beginning of a header: a name, then bracketed markers and a call id.
_HEADER_START = re.compile(r"\s*[^\s\[\]{}<>]*\s*(?:\[[A-Z_]*(?:\][^\s\[\]{}]*\s*)?)*")


def tool_name(header: str) -> str | None:
    """The tool named by `NAME[ARGS]`, `NAME[CALL_ID]ID[ARGS]` or a bare `NAME`."""
    m = _HEADER.match(header)
    return m.group(1) if m else None


#: Before v11: a list of call objects after the marker, closed by `[/TOOL_CALLS]` or not.
LEGACY = call_format(
    closers=(TOOL_CALLS_END,), reopeners=(TOOL_CALLS,), block="a [TOOL_CALLS] list"
)

SYNTAX = HeaderJsonSyntax(
    parse_header=tool_name,
    call_openers=(TOOL_CALLS,),
    block_closers=(TOOL_CALLS_END,),
    header_viable=_HEADER_START,
    objects_reader=lambda ctx, marker: CallValuesReader(ctx, LEGACY, marker),
)


class MistralProtocol(TextProtocol):
    id = "mistral"
    aliases = ("mistral-v11", "mistral_v11", "magistral", "devstral")
    summary = 'Mistral: [TOOL_CALLS]NAME[ARGS]{...} (v11+) or [TOOL_CALLS] [{"name": ...}]'
    result_closers = (RESULTS_END,)
    reasoning_spans = (ReasoningSpan(THINK, (THINK_END,)),)

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return (TOOL_CALLS,)

    def closing_markers(self) -> Sequence[str]:
        return (TOOL_CALLS_END, TOOL_CALLS)

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        return HeaderJsonReader(SYNTAX, marker, ctx)

    def render_tools(self, tools: Sequence[Tool]) -> str:
        return (
            declare_tools(tools)
            + "To call a function, write [TOOL_CALLS], its name, [ARGS] and its arguments as "
            "one JSON object; repeat for each call:\n"
            f"{TOOL_CALLS}<function-name>{ARGS}{{<arguments as JSON>}}"
        )

    def render_call(self, call: ToolCall) -> str:
        return f"{TOOL_CALLS}{call.name}{ARGS}{canonical_json(call.arguments)}"

    def render_result(self, call_id: str, name: str, content: str) -> str:
        # The envelope's closer does not begin with `<`: the content is made inert by its
        # JSON encoding (`wrap_result`), not by `inert_closers`.
        return self.wrap_result(call_id, name, content)

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        body = json.dumps({"call_id": call_id, "content": content}, ensure_ascii=False)
        # `\/` is JSON for `/`: the content reads the same and holds no `[/TOOL_RESULTS]`.
        return f"{RESULTS}{body.replace('[/', '[' + chr(92) + '/')}{RESULTS_END}"


PROTOCOL = MistralProtocol()
