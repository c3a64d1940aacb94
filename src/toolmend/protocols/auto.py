"""`auto`: detect the format from the call markup itself, block by block.

Every registered protocol's opening markers are watched at once. A marker owned by one protocol
hands the block to that protocol's reader; a marker several protocols share (`<tool_call>` opens
both Hermes JSON and Qwen3-Coder XML; a tool-name tag opens both morph-xml and yaml-xml) is
decided by the first non-blank character of the body (`TextProtocol.accepts_body`), in the order
of `DETECTION_ORDER`. This module holds only that dispatch; it parses nothing itself and cannot
render (a prompt needs one chosen format).
"""

from __future__ import annotations

from collections.abc import Sequence

from toolmend.core.reader import (
    MAX_TAG_LENGTH,
    BlockContext,
    BlockReader,
    EofVerdict,
    ReasoningSpan,
)
from toolmend.core.textscan import skip_blanks
from toolmend.model import Tool, ToolCall, ToolmendError
from toolmend.names import ToolResolver
from toolmend.protocols.base import TextProtocol

#: Preference when several formats accept the same block. antml comes before anthropic-xml: the
#: same markup, read with Claude-Code-style tolerance.
DETECTION_ORDER = (
    "hermes",
    "qwen3-coder",
    "antml",
    "anthropic-xml",
    "gemma4",
    "kimi-xtml",
    "morph-xml",
    "yaml-xml",
)
#: A body that starts with more blanks than this is decided as a blank body (the first
#: format that accepts one), whatever follows: the blanks are not held back any longer. No
#: format's body begins that far after its marker (qwen3-coder's prelude gives up sooner).
MAX_UNDECIDED_BLANKS = MAX_TAG_LENGTH


class AutoProtocol(TextProtocol):
    id = "auto"
    summary = "detect the format of each call block among all registered protocols"

    def _members(self) -> list[TextProtocol]:
        from toolmend.protocols import get_protocol, protocols

        known = [p for p in protocols() if p != self.id]
        ordered = [p for p in DETECTION_ORDER if p in known]
        ordered += [p for p in known if p not in ordered]
        return [get_protocol(p) for p in ordered]

    def owners(self, marker: str, resolver: ToolResolver) -> list[TextProtocol]:
        return [p for p in self._members() if marker in p.opening_markers(resolver)]

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        markers: dict[str, None] = {}
        for proto in self._members():
            markers.update(dict.fromkeys(proto.opening_markers(resolver)))
        return tuple(markers)

    def reasoning(self) -> Sequence[ReasoningSpan]:
        spans: dict[ReasoningSpan, None] = {}
        for proto in self._members():
            spans.update(dict.fromkeys(proto.reasoning()))
        return tuple(spans)

    def cut_markers(self, resolver: ToolResolver) -> Sequence[str]:
        markers: dict[str, None] = {}
        for proto in self._members():
            markers.update(dict.fromkeys(proto.cut_markers(resolver)))
        return tuple(markers)

    def closing_markers(self) -> Sequence[str]:
        closers: dict[str, None] = {}
        for proto in self._members():
            closers.update(dict.fromkeys(proto.closing_markers()))
        return tuple(closers)

    def closing_markers_after(self, marker: str) -> Sequence[str]:
        closers: dict[str, None] = {}
        for proto in self._members():
            closers.update(dict.fromkeys(proto.closing_markers_after(marker)))
        return tuple(closers)

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        owners = self.owners(marker, ctx.resolver)
        if len(owners) == 1:
            return _adopt(owners[0], marker, ctx)
        return DispatchReader(marker, owners, ctx)

    def _cannot_render(self) -> ToolmendError:
        return ToolmendError("'auto' only parses; rendering needs a chosen protocol id")

    def render_tools(self, tools: Sequence[Tool]) -> str:
        raise self._cannot_render()

    def render_call(self, call: ToolCall) -> str:
        raise self._cannot_render()

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        raise self._cannot_render()


def _adopt(proto: TextProtocol, marker: str, ctx: BlockContext) -> BlockReader:
    ctx.read_as(proto)
    return proto.new_reader(marker, ctx)


class DispatchReader(BlockReader):
    """Waits for the first non-blank character of the body, then hands over to its format.

    The blanks it waits over stay unconsumed (the chosen reader reads them), so it counts how
    many it has seen (each feed looks only at the new input) and waits over at most
    `MAX_UNDECIDED_BLANKS` of them: a long run of blanks fed one character at a time stays
    linear.
    """

    def __init__(self, marker: str, owners: list[TextProtocol], ctx: BlockContext) -> None:
        self.marker = marker
        self.owners = owners
        self.ctx = ctx
        self.chosen: BlockReader | None = None
        self.blanks_seen = 0  # blanks at the start of the unconsumed body already looked at

    def _choose(self, first_char: str) -> BlockReader:
        owner = next(
            (p for p in self.owners if p.accepts_body(self.marker, first_char)), self.owners[0]
        )
        self.chosen = _adopt(owner, self.marker, self.ctx)
        return self.chosen

    def step(self, buf: str, pos: int, end: int, final: bool) -> int:
        reader = self.chosen
        if reader is None:
            stop = min(end, pos + MAX_UNDECIDED_BLANKS + 1)
            i = skip_blanks(buf, min(stop, pos + self.blanks_seen), stop)
            if i - pos > MAX_UNDECIDED_BLANKS:
                reader = self._choose("")  # a body of blanks: decided as it is, held no longer
            elif i == end and not final:
                self.blanks_seen = i - pos
                return pos  # nothing but blanks yet: cannot tell the format
            else:
                reader = self._choose(buf[i] if i < end else "")
        return reader.step(buf, pos, end, final)

    def at_eof(self) -> EofVerdict:
        reader = self.chosen or self._choose("")
        return reader.at_eof()


PROTOCOL = AutoProtocol()
