"""glimmer: Muse Glimmer's messages, a recipient header and an ATEM invoke block.

    <|start|>assistant to=self<|message|>Check the city first.<|eom|>
    <|start|>assistant to=get_weather<|message|><atem:function_calls>
    <atem:invoke name="get_weather">
    <atem:parameter name="city">Paris</atem:parameter>
    </atem:invoke>
    </atem:function_calls><|eom|>

As Ollama's `glimmer` parser and llama.cpp's Muse Glimmer template read it. The generation
prompt ends in `<|start|>assistant`, so an output starts at its first header (` to=…`). A
message ends at `<|eom|>`, `<|eot|>` or the next `<|start|>`; one addressed `to=self` is
reasoning. A call is an ATEM block, the invoke family's markup with the `atem:` prefix
(`toolmend.protocols.invoke_xml`), that opens a message: right after `<|message|>`, whatever the
recipient says (models fumble it: `to=muse`, `to=user`, none at all), named by its invoke. A
block inside a message's prose (an answer quoting the syntax) stays text. An invoke may address a
tool through the namespace derived from its own name (`read.read` for `read`: the template
offers recipients `NS.*`, NS the first dot-component of each declared name); any other unknown
name stays text. A `<|message|>` the model fumbles into the invoke name (`name="read<|message|>"`,
echoing its header `to=read<|message|>`) is not the name's. Values are typed by the schema,
whitespace kept. It holds no markup parsing of its own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from toolmend.core.keyrules import DuplicateRule
from toolmend.core.reader import (
    MAX_TAG_LENGTH,
    BlockContext,
    BlockReader,
    EofVerdict,
    ReasoningSpan,
)
from toolmend.core.textscan import skip_blanks
from toolmend.model import Tool, ToolCall
from toolmend.names import ToolResolver
from toolmend.protocols.base import Claim, MarkupOnlyReader
from toolmend.protocols.invoke_xml import (
    InvokeFormat,
    InvokeProtocol,
    InvokeReader,
    _Opening,
    escape_text,
)
from toolmend.schema_gate import Policy

START = "<|start|>"
MESSAGE = "<|message|>"
END_MESSAGE = "<|eom|>"
END_TURN = "<|eot|>"
PREFIX = "atem:"
WRAPPER = f"<{PREFIX}function_calls>"
CLOSE = f"</{PREFIX}function_calls>"
#: A call block opens a message: the wrapper right after the header's `<|message|>`.
OPENING = MESSAGE + WRAPPER
#: Every message ends at one of these (the next `<|start|>` is an implicit end).
MESSAGE_ENDS = (END_MESSAGE, END_TURN, START)
MAX_END = max(map(len, MESSAGE_ENDS))
#: The role of the model's messages, and a header as far as a recipient (`to=NAME`, or none).
ROLE = "assistant"
RECIPIENT = " to="
_HEADER = re.compile(rf"{ROLE}(?:{RECIPIENT}[^\s<]*)?")
_RECIPIENT_NAME = re.compile(r"[^\s<]*")
#: A header longer than this is not one: a recipient of 64 characters fits.
MAX_HEADER = 2 * MAX_TAG_LENGTH
#: The header of an answer (the first message of an output, after the generation prompt's
#: `<|start|>assistant`), markup only.
ANSWER = f"to=user{MESSAGE}"
#: Reasoning: a message addressed to the model itself.
SELF_RECIPIENT = "to=self"
SELF = ReasoningSpan(SELF_RECIPIENT + MESSAGE, MESSAGE_ENDS)
#: Where a header is read from: `<|start|>`, or the header's rest after a reasoning message
#: whose end (the next `<|start|>`) the reasoning span took.
#: (`assistant ` without the recipient's `to=`: harmony's decoded-away calls open at
#: `to=functions.`, which a marker holding `to=` would take from it.)
HEADERS = (START, f"{ROLE} ", ROLE + MESSAGE, ANSWER)


def header_lead(marker: str) -> str:
    """What of a header, from its role on, the marker `marker` (one of `HEADERS`) holds."""
    if marker == START:
        return ""
    return f"{ROLE} {marker}" if marker == ANSWER else marker


FORMAT = InvokeFormat(
    id="glimmer",
    summary='Muse Glimmer: to=NAME<|message|><atem:function_calls><atem:invoke name="NAME">'
    '<atem:parameter name="KEY">VALUE</atem:parameter>…',
    wrap_output=True,
    policy=Policy.LENIENT,
    duplicates=DuplicateRule.LAST_WINS,
    missing_angle=False,
    wrapper=f"{PREFIX}function_calls",
    prefixes=(PREFIX,),
    wrappers=(WRAPPER,),
    name_noise=(MESSAGE,),
)


def namespaced_name(name: str, resolver: ToolResolver) -> str:
    """`name`, or the declared tool it addresses through that tool's own namespace: `NS.TOOL`
    where TOOL is declared and NS is TOOL's first dot-component (`read.read`, `repo.repo.read`).
    Any other name is returned as it is (and resolves, or stays text, as every name does)."""
    namespace, dot, tool = name.partition(".")
    addressed = dot and tool.partition(".")[0] == namespace
    if addressed and resolver.resolve(name) is None and resolver.resolve(tool) is not None:
        return tool
    return name


class GlimmerReader(InvokeReader):
    """The invoke reader over one ATEM block, its invoke names read through the namespaces."""

    def _begin(self, op: _Opening, buf: str, pos: int, final: bool) -> tuple[int, bool]:
        if op.name is not None:
            op.name = namespaced_name(op.name, self.ctx.resolver)
        return super()._begin(op, buf, pos, final)


class HeaderReader(BlockReader):
    """A message from its header (`assistant`, a recipient or none), then the call block it
    opens, read by `GlimmerReader`; any other message is not this reader's.

    The header is read from `<|start|>`, or from the `assistant` a reasoning message's end left
    (`<|start|>` also ends a message: the reasoning span takes it): `lead` is what of the header
    the marker held."""

    def __init__(self, fmt: InvokeFormat, marker: str, ctx: BlockContext) -> None:
        self.ctx = ctx
        self.lead = header_lead(marker)
        self.block = GlimmerReader(fmt, WRAPPER, ctx)
        self.opened = False
        self.searched = 0  # how far past the header the block's closer was looked for

    def step(self, buf: str, pos: int, end: int, final: bool) -> int:
        if self.opened:
            return self.block.step(buf, pos, end, final)
        stop = min(end, pos + MAX_HEADER)
        header = self.lead + buf[pos:stop]
        claim = header_claim(header)
        if claim is Claim.MAYBE and not final and stop - pos < MAX_HEADER:
            return pos
        if claim is not Claim.MINE:
            return self._not_a_call(header, pos)
        at = pos + header.index(OPENING) + len(OPENING) - len(self.lead)
        if header.startswith(f"{ROLE}{RECIPIENT}user{MESSAGE}"):
            whole = self._whole_message(buf, at, end, final)
            if whole is None:
                return pos
            if not whole:
                return self._not_a_call(header, pos)
        self.opened = True
        self.block.lead_in = buf[pos:at]  # the header: text again if the block turns out none
        return self.block.step(buf, at, end, final)

    def _whole_message(self, buf: str, at: int, end: int, final: bool) -> bool | None:
        """Whether the block from `at` is its message's whole body: its wrapper closes, then
        only blanks before the message's end (or the output's). None: not known yet.

        An answer to the user that is one ATEM block is a call whose recipient the model
        fumbled; a block with prose around it is the answer quoting the syntax. The search
        resumes where it stopped, so the text is looked at once."""
        close = buf.find(CLOSE, at + self.searched, end)
        if close < 0:
            self.searched = max(0, end - len(CLOSE) + 1 - at)
            return False if final else None
        j = skip_blanks(buf, close + len(CLOSE), end)
        tail = buf[j : j + MAX_END]
        if any(tail.startswith(token) for token in MESSAGE_ENDS):
            return True
        if final:
            return j == end
        return None if any(token.startswith(tail) for token in MESSAGE_ENDS) else False

    def _not_a_call(self, header: str, pos: int) -> int:
        """A message that opens no call block: an answer's header is markup, removed; the
        header of reasoning is removed up to its `to=self<|message|>`, which the parser reads
        as reasoning; anything else is text."""
        m = _HEADER.match(header)
        if m is None or not header.startswith(MESSAGE, m.end()):
            self.ctx.revert("", rescan=True)
            return pos
        self.ctx.end_block()
        self_at = m.end() - len(SELF_RECIPIENT)
        at = self_at if header.startswith(SELF.opener, self_at) else m.end() + len(MESSAGE)
        return pos + max(0, at - len(self.lead))

    def at_eof(self) -> EofVerdict:
        return self.block.at_eof() if self.opened else EofVerdict(recoverable=False)


def header_claim(body: str) -> Claim:
    """Whether `body` (a header from its role on) is an assistant header opening a call block:
    `assistant`, ` to=RECIPIENT` or none, then `<|message|><atem:function_calls>`. `MAYBE`
    while what has arrived could still grow into one."""
    if not body.startswith(ROLE):
        return Claim.MAYBE if ROLE.startswith(body) else Claim.NOT_MINE
    rest = body[len(ROLE) :]
    if not rest.startswith(RECIPIENT):
        return Claim.MAYBE if RECIPIENT.startswith(rest) else _opening_claim(rest)
    name = _RECIPIENT_NAME.match(rest, len(RECIPIENT))
    assert name is not None  # the pattern matches the empty name too
    if name.end() == len(rest):
        return Claim.MAYBE  # the recipient may go on
    return _opening_claim(rest[name.end() :])


def _opening_claim(rest: str) -> Claim:
    if rest.startswith(OPENING):
        return Claim.MINE
    return Claim.MAYBE if OPENING.startswith(rest) else Claim.NOT_MINE


class GlimmerProtocol(InvokeProtocol):
    reasoning_spans = (SELF,)
    result_closers = ("</tool_output>", END_MESSAGE, END_TURN, START)

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        # `<|start|>` too: under `auto` it is also harmony's, and a message's header comes
        # before its `<|message|>`.
        return (OPENING, *HEADERS, END_MESSAGE, END_TURN)

    def closing_markers(self) -> Sequence[str]:
        return (CLOSE,)

    def claims(self, marker: str, body: str) -> Claim:
        if marker in HEADERS:
            return header_claim(header_lead(marker) + body)
        return Claim.MINE

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        if marker in HEADERS:
            return HeaderReader(self.format, marker, ctx)
        if marker != OPENING:
            return MarkupOnlyReader(ctx)  # a message's end token
        return GlimmerReader(self.format, WRAPPER, ctx)

    def render_tools(self, tools: Sequence[Tool]) -> str:
        # The invoke family's declaration and syntax, then where Glimmer puts the block and
        # where its results come back.
        return (
            super()
            .render_tools(tools)
            .replace(
                "Each result comes back in a <function_results> block.",
                f"Address a call to its tool: {START}assistant to=NAME{MESSAGE}, then the block, "
                f"then {END_MESSAGE}. Each result comes back in a <tool_output> message.",
            )
        )

    def render_call(self, call: ToolCall) -> str:
        return f"{START}assistant to={call.name}{MESSAGE}{super().render_call(call)}{END_MESSAGE}"

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        tool = escape_text(name).replace('"', "&quot;")
        return (
            f'{START}tool {tool}{MESSAGE}<tool_output name="{tool}">\n{content}\n'
            f"</tool_output>{END_TURN}"
        )


PROTOCOL = GlimmerProtocol(FORMAT)
