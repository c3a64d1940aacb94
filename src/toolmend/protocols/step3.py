"""Step-3 (StepFun): invokes with the `steptml:` prefix, between special tokens.

    <｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke
    name="get_weather"><steptml:parameter name="city">Paris</steptml:parameter>
    </steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>

The invoke family's wire format (`toolmend.protocols.invoke_xml`) with the one prefix
`steptml:` reads each call; the special tokens around the invokes are markup only (removed
wherever they stand, so an invoke without them reads the same), and so is the `<｜tool_sep｜>`
written between two calls and the tool's name on its own line between a call's header and its
invoke (`function<｜tool_sep｜>NAME\n<steptml:invoke …>`, as vLLM's Step-3 tests write it).
A value of an undeclared key written as a JSON number, boolean, null, array or object is that
value (Step-3's template writes non-strings as JSON, as MiniMax-M2's does; SGLang's gateway
reads them so); declared keys follow the schema. Owns the tokens and rendering.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from toolmend.core.keyrules import DuplicateRule
from toolmend.core.reader import MAX_TAG_LENGTH, BlockContext, BlockReader, EofVerdict
from toolmend.core.textscan import is_proper_prefix
from toolmend.model import ToolCall
from toolmend.names import ToolResolver
from toolmend.protocols.base import MarkupOnlyReader
from toolmend.protocols.invoke_xml import InvokeFormat, InvokeProtocol, render_invoke
from toolmend.schema_gate import Policy

PREFIX = "steptml:"
CALLS_BEGIN = "<｜tool_calls_begin｜>"
CALLS_END = "<｜tool_calls_end｜>"
CALL_BEGIN = "<｜tool_call_begin｜>"
CALL_END = "<｜tool_call_end｜>"
TOOL_SEP = "<｜tool_sep｜>"
#: A call's type and separator, written before its invoke.
CALL_HEADER = f"{CALL_BEGIN}function{TOOL_SEP}"
TOKENS = (CALLS_BEGIN, CALLS_END, CALL_BEGIN, CALL_END, TOOL_SEP)
INVOKE = f"<{PREFIX}invoke"
#: What may stand between a call's header and its invoke: the tool's name on its own line.
_NAME_LINE = re.compile(r"[^\s<>]*[ \t]*(?:\r?\n)?[ \t]*")

FORMAT = InvokeFormat(
    id="step3",
    summary='Step-3: <｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="NAME">'
    '<steptml:parameter name="KEY">VALUE</steptml:parameter></steptml:invoke>',
    wrap_output=False,
    policy=Policy.LENIENT,
    duplicates=DuplicateRule.LAST_WINS,
    missing_angle=False,
    prefixes=(PREFIX,),
    wrappers=(),
    undeclared_json=True,
)


class CallHeaderReader(BlockReader):
    """`function<｜tool_sep｜>` and, before the invoke, the tool's name on its own line: markup.

    Whatever else follows the header is scanned as text; the name and the invoke's opening are
    looked for within `MAX_TAG_LENGTH` characters, so the decision is the same however the text
    is split."""

    def __init__(self, ctx: BlockContext) -> None:
        self.ctx = ctx

    def step(self, buf: str, pos: int, end: int, final: bool) -> int:
        limit = min(end, pos + MAX_TAG_LENGTH)
        m = _NAME_LINE.match(buf, pos, limit)
        k = m.end() if m is not None else pos
        # The whole opening within the bound: a stream that stops at the bound decides the same.
        if buf.startswith(INVOKE, k, limit):
            self.ctx.end_block()
            return k
        undecided = k == end or is_proper_prefix(buf[k:end], (INVOKE,))
        if undecided and not final and end - pos < MAX_TAG_LENGTH:
            return pos
        self.ctx.end_block()  # no invoke after a name: the header alone is markup
        return pos

    def at_eof(self) -> EofVerdict:
        return EofVerdict(recoverable=True)


class Step3Protocol(InvokeProtocol):
    aliases = ("step-3", "step3-tool")

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return (*super().opening_markers(resolver), CALL_HEADER, *TOKENS)

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        if marker == CALL_HEADER:
            return CallHeaderReader(ctx)
        if marker in TOKENS:
            return MarkupOnlyReader(ctx)
        return super().new_reader(marker, ctx)

    def render_call(self, call: ToolCall) -> str:
        invoke = render_invoke(call, PREFIX)
        return f"{CALLS_BEGIN}{CALL_HEADER}{invoke}{CALL_END}{CALLS_END}"


PROTOCOL = Step3Protocol(FORMAT)
