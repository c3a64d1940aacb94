"""Functionary (MeetKai): a recipient names the tool, its arguments follow as one JSON object.

    <function=get_weather>{"city": "Paris"}</function>                      v3.1 (Llama 3.1)
    <tool_call><function=get_weather>[call_1]{"city": "Paris"}</function></tool_call>
    >>>all\nLet me look.>>>get_weather\n{"city": "Paris"}                    v3 / v3.2
    <|from|>assistant\n<|recipient|>get_weather\n<|content|>{"city": "Paris"}<|stop|>   v2

Owns the three versions' markers, header rules (`v31_tool_name`, `v3_tool_name`,
`v2_tool_name`), what marks text (`>>>all`, the `all` recipient: markup, removed) and
rendering; the reading is `json_args.HeaderJsonReader`'s. Under `auto` a `<function=` or
`<tool_call><function=` whose body opens with JSON (or a `[call id]`) is v3.1's, one whose body
opens with a tag is Qwen3-Coder's (`claims`). Never: reads v3.1's `<|python_tag|>` code
(Llama 3 JSON's marker), or output that begins inside a v3 recipient (the generation prompt's
`>>>`): such output has no marker to tell it from prose.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from toolmend.core.reader import BlockContext, BlockReader
from toolmend.model import Tool, ToolCall, canonical_json
from toolmend.names import ToolResolver
from toolmend.protocols.base import Claim, MarkupOnlyReader, TextProtocol, declare_tools
from toolmend.protocols.json_args import HeaderJsonReader, HeaderJsonSyntax, HeaderParser

FUNCTION = "<function="
FUNCTION_END = "</function>"
TOOL_CALL = "<tool_call>"
TOOL_CALL_END = "</tool_call>"
RECIPIENT = ">>>"
#: v3's recipient of text (what follows is for the user), one marker so that it is removed.
TEXT_RECIPIENT = ">>>all\n"
FROM = "<|from|>"
V2_RECIPIENT = "<|recipient|>"
CONTENT = "<|content|>"
STOP = "<|stop|>"
V2_TEXT = f"{FROM}assistant\n{V2_RECIPIENT}all\n{CONTENT}"
#: The Llama 3.1 header of the turn a result is fed back in (v3.1's `ipython`, v3's `tool`).
HEADER_START = "<|start_header_id|>"
TURN_END = "<|eot_id|>"

_NAME = r"[^\s<>{}\[\]=]+"

#: `NAME>`, then an optional call id in brackets (LocalAI's tag-with-JSON shape).
_V31_HEADER = re.compile(rf"({_NAME})\s*>\s*(?:\[[^\s\[\]{{}}<>]*\]\s*)?\Z")
_V31_VIABLE = re.compile(rf"{_NAME}\s*(?:>\s*(?:\[[^\s\[\]{{}}<>]*\]?\s*)?)?|")
#: `NAME` and its line break: the name follows `>>>` directly.
_V3_HEADER = re.compile(rf"({_NAME})[ \t]*\r?\n\s*\Z")
_V3_VIABLE = re.compile(rf"{_NAME}[ \t]*(?:\r?\n\s*)?|")
_V2_HEADER = re.compile(
    rf"\s*(?:assistant\s*{re.escape(V2_RECIPIENT)})?\s*({_NAME})\s*{re.escape(CONTENT)}\s*\Z"
)


def _name_by(pattern: re.Pattern[str]) -> HeaderParser:
    """The header parser that reads the tool name as `pattern`'s first group."""

    def tool_name(header: str) -> str | None:
        m = pattern.match(header)
        return m.group(1) if m else None

    return tool_name


v31_tool_name = _name_by(_V31_HEADER)
v3_tool_name = _name_by(_V3_HEADER)
v2_tool_name = _name_by(_V2_HEADER)

V31 = HeaderJsonSyntax(
    parse_header=v31_tool_name,
    call_openers=(FUNCTION,),
    call_closers=(FUNCTION_END,),
    block_closers=(TOOL_CALL_END,),
    header_viable=_V31_VIABLE,
)
V3 = HeaderJsonSyntax(
    parse_header=v3_tool_name,
    call_openers=(RECIPIENT,),
    header_viable=_V3_VIABLE,
    single_call=True,
)
V2 = HeaderJsonSyntax(parse_header=v2_tool_name, call_openers=(FROM,), call_closers=(STOP,))

#: After `<function=`: a name, `>`, then the first character of the body.
_V31_BODY = re.compile(rf"{_NAME}\s*>\s*(\S)?")


def _v31_body_claim(body: str) -> Claim:
    """v3.1's when the function's body opens with JSON or a call id, not with a tag."""
    m = _V31_BODY.match(body)
    if m is None:
        viable = _V31_VIABLE.fullmatch(body) is not None
        return Claim.MAYBE if viable else Claim.NOT_MINE
    first = m.group(1)
    if first is None:
        return Claim.MAYBE
    return Claim.MINE if first in "{[" else Claim.NOT_MINE


class FunctionaryV31Protocol(TextProtocol):
    id = "functionary-v3.1"
    aliases = ("functionary_v3.1", "functionary-llama-3.1", "functionary-v3-llama3.1")
    summary = 'Functionary v3.1: <function=NAME>{"city": "Paris"}</function>'
    result_closers = (TURN_END, HEADER_START)

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return (FUNCTION, TOOL_CALL)

    def closing_markers(self) -> Sequence[str]:
        return (FUNCTION_END, TOOL_CALL_END)

    def claims(self, marker: str, body: str) -> Claim:
        if marker == FUNCTION:
            return _v31_body_claim(body)
        rest = body.lstrip(" \t\r\n")
        if len(rest) < len(FUNCTION):
            return Claim.MAYBE if FUNCTION.startswith(rest) else Claim.NOT_MINE
        if not rest.startswith(FUNCTION):
            return Claim.NOT_MINE
        return _v31_body_claim(rest[len(FUNCTION) :])

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        return HeaderJsonReader(V31, marker, ctx)

    def render_tools(self, tools: Sequence[Tool]) -> str:
        return (
            declare_tools(tools)
            + "To call a function, write its name and its arguments as one JSON object:\n"
            f"{FUNCTION}<function-name>>{{<arguments as JSON>}}{FUNCTION_END}"
        )

    def render_call(self, call: ToolCall) -> str:
        return f"{FUNCTION}{call.name}>{canonical_json(call.arguments)}{FUNCTION_END}"

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        return f"{HEADER_START}ipython<|end_header_id|>\n\n{content}{TURN_END}"


class FunctionaryV3Protocol(TextProtocol):
    id = "functionary-v3"
    aliases = ("functionary_v3", "functionary-v3.2", "functionary_v3.2")
    summary = 'Functionary v3/v3.2: >>>all\\nTEXT>>>NAME\\n{"city": "Paris"}'
    result_closers = (TURN_END, HEADER_START)

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return (RECIPIENT, TEXT_RECIPIENT)

    def closing_markers(self) -> Sequence[str]:
        return (RECIPIENT,)

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        if marker == TEXT_RECIPIENT:
            return MarkupOnlyReader(ctx)
        return HeaderJsonReader(V3, marker, ctx)

    def render_tools(self, tools: Sequence[Tool]) -> str:
        return (
            declare_tools(tools)
            + "Begin every part of your answer with its recipient: >>>all and a line break for "
            "text to the user, or >>> with a function's name and a line break, then its "
            "arguments as one JSON object:\n"
            f"{RECIPIENT}<function-name>\n{{<arguments as JSON>}}"
        )

    def render_call(self, call: ToolCall) -> str:
        return f"{RECIPIENT}{call.name}\n{canonical_json(call.arguments)}"

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        return f"{HEADER_START}tool<|end_header_id|>\n\n{content}{TURN_END}"


class FunctionaryV2Protocol(TextProtocol):
    id = "functionary-v2"
    aliases = ("functionary_v2",)
    summary = 'Functionary v2: <|from|>assistant\\n<|recipient|>NAME\\n<|content|>{"city": ...}'
    result_closers = (STOP, FROM)

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return (FROM, V2_TEXT, STOP)

    def closing_markers(self) -> Sequence[str]:
        return (STOP, FROM)

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        if marker in (V2_TEXT, STOP):
            return MarkupOnlyReader(ctx)  # a text message's header, or its end
        return HeaderJsonReader(V2, marker, ctx)

    def render_tools(self, tools: Sequence[Tool]) -> str:
        return (
            declare_tools(tools)
            + "Write each message with its sender and recipient; to call a function, address "
            "it and give its arguments as one JSON object:\n"
            f"{FROM}assistant\n{V2_RECIPIENT}<function-name>\n{CONTENT}{{<arguments as JSON>}}"
            f"{STOP}"
        )

    def render_call(self, call: ToolCall) -> str:
        return (
            f"{FROM}assistant\n{V2_RECIPIENT}{call.name}\n{CONTENT}"
            f"{canonical_json(call.arguments)}{STOP}"
        )

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        return f"{FROM}{name}\n{V2_RECIPIENT}all\n{CONTENT}{content}{STOP}"


V31_PROTOCOL = FunctionaryV31Protocol()
V3_PROTOCOL = FunctionaryV3Protocol()
V2_PROTOCOL = FunctionaryV2Protocol()
