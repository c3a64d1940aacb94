"""Kimi K2: calls in a section of special tokens, JSON arguments after `functions.NAME:IDX`.

    <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0
    <|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>

Owns the markers (the section also spelled `tool_call_section`, as vLLM reads it), the header
rule (`tool_name`: the `functions.` prefix and the `:IDX` index are optional, an index
after a dot is refused) and rendering.
The reading is `json_args.HeaderJsonReader`'s; a call opener without its section opens a block
too. Never: reads Kimi K3's XTML channels (`kimi_xtml`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from toolmend.core.reader import BlockContext, BlockReader
from toolmend.model import Tool, ToolCall, canonical_json
from toolmend.names import ToolResolver
from toolmend.protocols.base import TextProtocol, declare_tools
from toolmend.protocols.json_args import HeaderJsonReader, HeaderJsonSyntax

SECTION_BEGIN = "<|tool_calls_section_begin|>"
SECTION_END = "<|tool_calls_section_end|>"
SECTION_VARIANTS = ("<|tool_call_section_begin|>",)
SECTION_END_VARIANTS = ("<|tool_call_section_end|>",)
CALL_BEGIN = "<|tool_call_begin|>"
ARGUMENT_BEGIN = "<|tool_call_argument_begin|>"
CALL_END = "<|tool_call_end|>"
RESULT_OPEN = "<|im_system|>tool<|im_middle|>"
RESULT_END = "<|im_end|>"

_HEADER = re.compile(
    rf"\s*(?:functions\.)?([^\s:<>{{}}]+?)(?::\d+)?\s*{re.escape(ARGUMENT_BEGIN)}\s*\Z"
)


#: A name ending in `.IDX`: the index written with the wrong separator (`functions.f.0`), so
#: what the name is cannot be told (vLLM skips such a call).
_MISPLACED_INDEX = re.compile(r"\.\d+\Z")


def tool_name(header: str) -> str | None:
    """The tool named by `functions.NAME:IDX<|tool_call_argument_begin|>`."""
    m = _HEADER.match(header)
    if m is None or _MISPLACED_INDEX.search(m.group(1)):
        return None
    return m.group(1)


SYNTAX = HeaderJsonSyntax(
    parse_header=tool_name,
    call_openers=(CALL_BEGIN,),
    call_closers=(CALL_END,),
    block_closers=(SECTION_END, *SECTION_END_VARIANTS),
    breakers=(SECTION_BEGIN, *SECTION_VARIANTS),
)


class KimiK2Protocol(TextProtocol):
    id = "kimi-k2"
    aliases = ("kimi_k2",)
    result_closers = (RESULT_END,)
    summary = "Kimi K2 tokens: <|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{...}"

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return (SECTION_BEGIN, *SECTION_VARIANTS, CALL_BEGIN)

    def closing_markers(self) -> Sequence[str]:
        return (SECTION_END, *SECTION_END_VARIANTS, CALL_END)

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        return HeaderJsonReader(SYNTAX, marker, ctx)

    def render_tools(self, tools: Sequence[Tool]) -> str:
        return (
            declare_tools(tools)
            + "To call functions, write a tool-call section; in it, each call names the "
            "function and a running index, then its arguments as one JSON object:\n"
            f"{SECTION_BEGIN}{CALL_BEGIN}functions.<function-name>:0{ARGUMENT_BEGIN}"
            f"{{<arguments as JSON>}}{CALL_END}{SECTION_END}"
        )

    def render_call(self, call: ToolCall) -> str:
        body = canonical_json(call.arguments)
        return (
            f"{SECTION_BEGIN}{CALL_BEGIN}functions.{call.name}:0{ARGUMENT_BEGIN}{body}"
            f"{CALL_END}{SECTION_END}"
        )

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        # Kimi K2's own template writes a tool message this way.
        return f"{RESULT_OPEN}## Return of functions.{name}:0\n{content}{RESULT_END}"


PROTOCOL = KimiK2Protocol()
