"""Bare JSON calls: a call object or a list of them, with no marker (xLAM and many fine-tunes).

    [{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_time", …}]
    Sure. {"function": "get_weather", "args": {"city": "Paris"}}
    ```json
    [{"name": "get_weather", "arguments": {"city": "Paris"}}]
    ```

Owns its place in the registry, rendering (a JSON list, xLAM's shape) and the fenced form.
Reading is `json_values`' under the false-positive guard: the JSON must look like a call from
its first key, its name must resolve against the tools, and with `tools=None` it is a call only
when it is the whole output. A ```` ```json ```` fence (found by the scanner only at a line
start) is read only as the first thing in the visible output, blanks and reasoning aside;
anywhere else, or holding no call, it is text to its closing fence (code, never scanned), and
with `tools=None` only blanks may follow its closing fence. xLAM also writes its list after
Mistral's `[TOOL_CALLS]` or inside Hermes' `<tool_call>…</tool_call>` (as vLLM's xLAM parser
reads it): those markers make the JSON a call wherever they stand, read as Mistral's and Hermes'
readers read them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from toolmend.core.reader import BlockContext, BlockReader
from toolmend.model import ToolCall
from toolmend.names import ToolResolver
from toolmend.protocols.base import Claim, claim_by_first_char
from toolmend.protocols.hermes import CLOSE as TOOL_CALL_END
from toolmend.protocols.hermes import OPEN as TOOL_CALL
from toolmend.protocols.hermes import hermes_reader
from toolmend.protocols.json_values import CallValuesProtocol, CallValuesReader, call_format
from toolmend.protocols.mistral import LEGACY, TOOL_CALLS

BARE = ("{", "[")
FENCE = "```json"
FENCE_CLOSE = "```"
_FENCED = call_format(closers=(FENCE_CLOSE,), block="a ```json fence")


class FencedCallsReader(CallValuesReader):
    """A ```` ```json ```` fence: its JSON read as bare calls, at the start of the output.

    What is not a call (or not at the start) is the whole fence as text, read to its closing
    line and never scanned, so that its closing backticks are not taken for a fence opening.
    """

    def __init__(self, ctx: BlockContext) -> None:
        super().__init__(ctx, _FENCED, FENCE, bare=True)
        self.guarded = True  # a value may open with `{` or `[`: the JSON scan decides
        self.not_a_call = False  # decided here, by `blank_so_far`, whatever the tools
        #: Not a call: the rest of the fence is read as text.
        self.to_closer = not ctx.blank_so_far

    def step(self, buf: str, pos: int, end: int, final: bool) -> int:
        if self.to_closer:
            return self._rest_of_fence(buf, pos, end, final)
        return super().step(buf, pos, end, final)

    def _revert(self, at: int, *, rescan: bool = False) -> int:
        self.to_closer = True
        self.not_a_call = False
        return at

    def _rest_of_fence(self, buf: str, pos: int, end: int, final: bool) -> int:
        k = buf.find("\n" + FENCE_CLOSE, pos, end)
        if k < 0:
            cut = end if final else max(pos, end - len(FENCE_CLOSE))
            self.consumed.append(buf[pos:cut])
            if final:
                super()._revert(end)
            return cut
        stop = k + 1 + len(FENCE_CLOSE)
        self.consumed.append(buf[pos:stop])
        return super()._revert(stop)

    def _end(self, at: int, *, closed: bool = False) -> int:
        if self.deferred is not None and not self.after_close:
            self.after_close = True  # the whole-output rule: decided by what follows
            return at
        return super()._end(at, closed=closed)


class BareJsonProtocol(CallValuesProtocol):
    id = "json"
    aliases = ("bare-json", "json-list", "xlam")
    summary = 'bare JSON: [{"name": ..., "arguments": {...}}], alone or (named tools) in prose'
    result_closers = ("</tool_result>",)
    bare_markers = BARE

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return (*BARE, FENCE, TOOL_CALLS, TOOL_CALL)

    def closing_markers_after(self, marker: str) -> Sequence[str]:
        if marker == FENCE:
            return (FENCE_CLOSE,)
        if marker == TOOL_CALLS:
            return (*LEGACY.closers, *LEGACY.reopeners)
        if marker == TOOL_CALL:
            return (TOOL_CALL_END,)
        return self.closing_markers()

    def cut_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return (TOOL_CALLS, TOOL_CALL)

    def claims(self, marker: str, body: str) -> Claim:
        if marker in (TOOL_CALLS, TOOL_CALL):
            return claim_by_first_char(body, "[{")  # (a name there is another format's)
        return Claim.MINE

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        if marker == FENCE:
            return FencedCallsReader(ctx)
        if marker == TOOL_CALLS:
            return CallValuesReader(ctx, LEGACY, marker)
        if marker == TOOL_CALL:
            return hermes_reader(ctx)
        return CallValuesReader(ctx, self.format, marker, bare=True, prime=marker)

    def render_call(self, call: ToolCall) -> str:
        return json.dumps([self.call_object(call)], ensure_ascii=False)

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        return f"<tool_result>{content}</tool_result>"


PROTOCOL = BareJsonProtocol()
