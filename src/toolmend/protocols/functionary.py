"""Functionary (MeetKai): a recipient names the tool, its arguments follow as one JSON object.

    <function=get_weather>{"city": "Paris"}</function>                      v3.1 (Llama 3.1)
    <tool_call><function=get_weather>[call_1]{"city": "Paris"}</function></tool_call>
    >>>all\nLet me look.>>>get_weather\n{"city": "Paris"}                    v3 / v3.2
    <|from|>assistant\n<|recipient|>get_weather\n<|content|>{"city": "Paris"}<|stop|>   v2

Owns the three versions' markers, header rules (`v31_tool_name`, `v3_tool_name`,
`v2_tool_name`), what marks text (`>>>all`, the `all` recipient: markup, removed) and
rendering; the reading is `json_args.HeaderJsonReader`'s. v3's generation prompt ends with
`>>>`, so an output begins inside its first recipient: `all` and a line break (text follows)
or a declared tool's name and a line break (its JSON follows), read so only at the very start
of the output (with `tools=None` only the `all` recipient: no name marks a call). Under `auto`
a `<function=` or `<tool_call><function=` whose body opens with JSON (or a `[call id]`) is
v3.1's, one whose body opens with a tag is Qwen3-Coder's (`claims`). Never: reads v3.1's
`<|python_tag|>` code (Llama 3 JSON's marker).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from toolmend.core.reader import Anchor, BlockContext, BlockReader
from toolmend.model import Tool, ToolCall, canonical_json
from toolmend.names import ToolResolver
from toolmend.protocols.base import Claim, MarkupOnlyReader, TextProtocol, declare_tools
from toolmend.protocols.json_args import HeaderJsonReader, HeaderJsonSyntax, header_name_by

FUNCTION = "<function="
FUNCTION_END = "</function>"
TOOL_CALL = "<tool_call>"
TOOL_CALL_END = "</tool_call>"
RECIPIENT = ">>>"
#: The line breaks a recipient line ends with (a model trained on Windows text writes CRLF).
LINE_ENDS = ("\n", "\r\n")
#: v3's recipient of text (what follows is for the user), one marker so that it is removed.
TEXT_RECIPIENTS = tuple(">>>all" + end for end in LINE_ENDS)
#: The same, at the start of an output whose prompt wrote the `>>>`.
LEADING_TEXT_RECIPIENTS = tuple("all" + end for end in LINE_ENDS)
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
_V3_VIABLE = re.compile(rf"{_NAME}[ \t]*(?:\r?\n\s*|\r)?|")  # a `\r` may wait for its `\n`
_V2_HEADER = re.compile(
    rf"\s*(?:assistant\s*{re.escape(V2_RECIPIENT)})?\s*({_NAME})\s*{re.escape(CONTENT)}\s*\Z"
)


v31_tool_name = header_name_by(_V31_HEADER)
v3_tool_name = header_name_by(_V3_HEADER)
v2_tool_name = header_name_by(_V2_HEADER)

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


class FunctionaryProtocol(TextProtocol):
    """One Functionary version: the markers that open its calls, the markers that are markup
    only (removed), its header syntax, and how it writes a call and a result."""

    syntax: HeaderJsonSyntax
    call_markers: tuple[str, ...]
    #: Markers of text (a recipient of text, an end token): removed, recorded as markup.
    markup_markers: tuple[str, ...] = ()
    closers: tuple[str, ...]
    #: A call as the version writes it, with `{name}` and `{arguments}` (JSON).
    call_shape: str
    #: What the tools prompt says before showing `call_shape`.
    instruction: str
    #: The turn a result is fed back in, with `{name}` and `{content}`.
    result_shape: str

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return (*self.call_markers, *self.markup_markers)

    def closing_markers(self) -> Sequence[str]:
        return self.closers

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        if marker in self.markup_markers:
            return MarkupOnlyReader(ctx)
        return HeaderJsonReader(self.syntax, marker, ctx)

    def render_tools(self, tools: Sequence[Tool]) -> str:
        shape = self.call_shape.format(name="<function-name>", arguments="{<arguments as JSON>}")
        return f"{declare_tools(tools)}{self.instruction}:\n{shape}"

    def render_call(self, call: ToolCall) -> str:
        return self.call_shape.format(name=call.name, arguments=canonical_json(call.arguments))

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        return self.result_shape.format(name=name, content=content)


class FunctionaryV31Protocol(FunctionaryProtocol):
    id = "functionary-v3.1"
    aliases = ("functionary_v3.1", "functionary-llama-3.1", "functionary-v3-llama3.1")
    summary = 'Functionary v3.1: <function=NAME>{"city": "Paris"}</function>'
    result_closers = (TURN_END, HEADER_START)
    syntax = V31
    call_markers = (FUNCTION, TOOL_CALL)
    closers = (FUNCTION_END, TOOL_CALL_END)
    call_shape = FUNCTION + "{name}>{arguments}" + FUNCTION_END
    instruction = "To call a function, write its name and its arguments as one JSON object"
    result_shape = HEADER_START + "ipython<|end_header_id|>\n\n{content}" + TURN_END

    def claims(self, marker: str, body: str) -> Claim:
        if marker == FUNCTION:
            return _v31_body_claim(body)
        rest = body.lstrip(" \t\r\n")
        if len(rest) < len(FUNCTION):
            return Claim.MAYBE if FUNCTION.startswith(rest) else Claim.NOT_MINE
        if not rest.startswith(FUNCTION):
            return Claim.NOT_MINE
        return _v31_body_claim(rest[len(FUNCTION) :])


class FunctionaryV3Protocol(FunctionaryProtocol):
    id = "functionary-v3"
    aliases = ("functionary_v3", "functionary-v3.2", "functionary_v3.2")
    summary = 'Functionary v3/v3.2: >>>all\\nTEXT>>>NAME\\n{"city": "Paris"}'
    result_closers = (TURN_END, HEADER_START)
    syntax = V3
    call_markers = (RECIPIENT,)
    markup_markers = TEXT_RECIPIENTS
    closers = (RECIPIENT,)
    call_shape = RECIPIENT + "{name}\n{arguments}"
    instruction = (
        "Begin every part of your answer with its recipient: >>>all and a line break for text "
        "to the user, or >>> with a function's name and a line break, then its arguments as "
        "one JSON object"
    )
    result_shape = HEADER_START + "tool<|end_header_id|>\n\n{content}" + TURN_END

    def _leading(self, resolver: ToolResolver) -> tuple[str, ...]:
        """The first recipient without its `>>>`: `all`, or a declared tool's name, and its
        line break."""
        names = [n for n in resolver.names() if re.fullmatch(_NAME, n)]
        return (*LEADING_TEXT_RECIPIENTS, *(name + end for name in names for end in LINE_ENDS))

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return (*super().opening_markers(resolver), *self._leading(resolver))

    def anchors(self, resolver: ToolResolver) -> Mapping[str, Anchor]:
        return dict.fromkeys(self._leading(resolver), "output")

    def cut_markers(self, resolver: ToolResolver) -> Sequence[str]:
        # A tool's name is a word: an output ending in one ("I would use get_weather") shows it.
        leading = set(self._leading(resolver))
        return tuple(m for m in self.opening_markers(resolver) if m not in leading)

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        if marker in LEADING_TEXT_RECIPIENTS:
            return MarkupOnlyReader(ctx)
        if marker in (*self.call_markers, *self.markup_markers):
            return super().new_reader(marker, ctx)
        return HeaderJsonReader(self.syntax, RECIPIENT, ctx, header=marker)


class FunctionaryV2Protocol(FunctionaryProtocol):
    id = "functionary-v2"
    aliases = ("functionary_v2",)
    summary = 'Functionary v2: <|from|>assistant\\n<|recipient|>NAME\\n<|content|>{"city": ...}'
    result_closers = (STOP, FROM)
    syntax = V2
    call_markers = (FROM,)
    markup_markers = (V2_TEXT, STOP)  # a text message's header, and a message's end
    closers = (STOP, FROM)
    call_shape = f"{FROM}assistant\n{V2_RECIPIENT}{{name}}\n{CONTENT}{{arguments}}{STOP}"
    instruction = (
        "Write each message with its sender and recipient; to call a function, address it and "
        "give its arguments as one JSON object"
    )
    result_shape = f"{FROM}{{name}}\n{V2_RECIPIENT}all\n{CONTENT}{{content}}{STOP}"


V31_PROTOCOL = FunctionaryV31Protocol()
V3_PROTOCOL = FunctionaryV3Protocol()
V2_PROTOCOL = FunctionaryV2Protocol()
