"""Step-3 (StepFun): invokes with the `steptml:` prefix, between special tokens.

    <｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke
    name="get_weather"><steptml:parameter name="city">Paris</steptml:parameter>
    </steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>

The invoke family's wire format (`toolmend.protocols.invoke_xml`) with the one prefix
`steptml:` reads each call; the special tokens around the invokes are markup only (removed
wherever they stand, so an invoke without them reads the same). Owns the tokens and rendering.
"""

from __future__ import annotations

from collections.abc import Sequence

from toolmend.core.keyrules import DuplicateRule
from toolmend.core.reader import BlockContext, BlockReader
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
#: A call's type and separator, written before its invoke.
CALL_HEADER = f"{CALL_BEGIN}function<｜tool_sep｜>"
TOKENS = (CALLS_BEGIN, CALLS_END, CALL_HEADER, CALL_BEGIN, CALL_END)

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
)


class Step3Protocol(InvokeProtocol):
    aliases = ("step-3", "step3-tool")

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return (*super().opening_markers(resolver), *TOKENS)

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        if marker in TOKENS:
            return MarkupOnlyReader(ctx)
        return super().new_reader(marker, ctx)

    def render_call(self, call: ToolCall) -> str:
        invoke = render_invoke(call, PREFIX)
        return f"{CALLS_BEGIN}{CALL_HEADER}{invoke}{CALL_END}{CALLS_END}"


PROTOCOL = Step3Protocol(FORMAT)
