"""`auto`: detect the format from the call markup itself, block by block.

Every registered protocol's opening markers are watched at once. A marker owned by one protocol
hands the block to that protocol's reader; a marker several protocols share (`<tool_call>` opens
both Hermes JSON and Qwen3-Coder XML; a tool-name tag opens both morph-xml and yaml-xml) is
decided on the body after it: each format says "mine", "maybe" or "not mine"
(`TextProtocol.claims`), in the order of `DETECTION_ORDER`. The block is then read as that
format reads it: its policy (unless the caller chose one), its duplicate rule, and its id on
the block's diagnostics and calls (`BlockContext.read_as`). This module holds only that
dispatch; it parses nothing itself and cannot render (a prompt needs one chosen format).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, TypeVar

from toolmend.core.reader import (
    ANCHORS,
    Anchor,
    BlockContext,
    BlockReader,
    BodyStart,
    EofVerdict,
    ReasoningSpan,
    anchor_holds,
)
from toolmend.model import Tool, ToolCall, ToolmendError
from toolmend.names import ToolResolver
from toolmend.protocols.base import MAX_DETECTION_LOOKAHEAD, Claim, TextProtocol

#: Preference when several formats accept the same block. antml comes before anthropic-xml: the
#: same markup, read with Claude-Code-style tolerance. Functionary v3.1 claims only a
#: `<function=NAME>` whose body opens with JSON, so it asks before Qwen3-Coder. Glimmer claims
#: only a `<|start|>` whose header opens an ATEM block, so it asks before harmony.
DETECTION_ORDER = (
    "glimmer",
    "hermes",
    "functionary-v3.1",
    "qwen3-coder",
    "glm45",
    "antml",
    "anthropic-xml",
    "gemma4",
    "kimi-xtml",
    "morph-xml",
    "yaml-xml",
)

#: The member list by registered ids (the registry is fixed in a process, but a test may add a
#: format to it): building it loads every member, asked three times per parser started.
_MEMBERS: dict[tuple[str, ...], list[TextProtocol]] = {}
MAX_MEMBER_SETS = 8
_V = TypeVar("_V")


@dataclass(frozen=True, slots=True)
class _MarkerTables:
    """What every parser `auto` starts asks for, merged over the members: their opening
    markers, the loosest anchor of each, their cut markers, and the body starts of the
    markers whose every owner declares one (any of them opens the block)."""

    opening: tuple[str, ...]
    anchors: Mapping[str, Anchor]
    cut: tuple[str, ...]
    starts: Mapping[str, BodyStart]


#: The merged tables by member set and declared tool names (a member's markers depend on the
#: resolver only through them: `TextProtocol.opening_markers`). Merging asks each of the ~26
#: formats for its markers, anchors and cut markers, about 300 µs per parser on this machine,
#: paid by every streamed answer before its first chunk; a request's tools are mostly the
#: agent's same few from one turn to the next. Bounded in entries and in the characters of the
#: names a key holds (a tool set with longer names is merged afresh each time).
_TABLES: dict[tuple[object, ...], _MarkerTables] = {}
MAX_TABLE_SETS = 256
MAX_TABLE_KEY_CHARS = 8192
#: The members' reasoning spans merged, by member set (they do not depend on the tools).
_SPANS: dict[tuple[str, ...], tuple[ReasoningSpan, ...]] = {}
#: The token openers of the members, per registered set (asked by every parser auto starts).
_TOKENS: dict[tuple[str, ...], tuple[str, ...]] = {}


def _remember(cache: dict[Any, _V], key: object, value: _V, bound: int) -> _V:
    """`value`, kept in `cache` under `key`; the oldest entries go once it holds more than
    `bound` (a process may meet many tool sets, and each key holds their names)."""
    cache[key] = value
    while len(cache) > bound:
        cache.pop(next(iter(cache)), None)
    return value


class AutoProtocol(TextProtocol):
    id = "auto"
    summary = "detect the format of each call block among all registered protocols"

    def __init__(self, members: tuple[str, ...] | None = None) -> None:
        #: The formats watched (None: every registered one).
        self._only = members

    def _known(self) -> tuple[str, ...]:
        if self._only is not None:
            return self._only
        from toolmend.protocols import protocols

        return tuple(protocols())  # the registered ids, `auto` not among them

    def _members(self, known: tuple[str, ...] | None = None) -> list[TextProtocol]:
        from toolmend.protocols import get_protocol

        known = self._known() if known is None else known
        cached = _MEMBERS.get(known)  # asked several times by every parser auto starts
        if cached is None:
            ordered = [p for p in DETECTION_ORDER if p in known]
            ordered += [p for p in known if p not in ordered and p != self.id]
            cached = _remember(_MEMBERS, known, [get_protocol(p) for p in ordered], MAX_MEMBER_SETS)
        return cached

    def owners(self, marker: str, resolver: ToolResolver) -> list[TextProtocol]:
        return [p for p in self._members() if marker in p.opening_markers(resolver)]

    def _tables(self, resolver: ToolResolver) -> _MarkerTables:
        known = self._known()
        names = () if resolver.accepts_any else tuple(resolver.names())
        key = (known, resolver.accepts_any, names)
        tables = _TABLES.get(key)
        if tables is None:
            tables = _merge_tables(self._members(known), resolver)
            if sum(map(len, names)) <= MAX_TABLE_KEY_CHARS:
                _remember(_TABLES, key, tables, MAX_TABLE_SETS)
        return tables

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return self._tables(resolver).opening

    def anchors(self, resolver: ToolResolver) -> Mapping[str, Anchor]:
        return self._tables(resolver).anchors

    def reasoning(self) -> Sequence[ReasoningSpan]:
        known = self._known()
        spans = _SPANS.get(known)
        if spans is None:
            members = self._members(known)
            union = tuple(dict.fromkeys(s for proto in members for s in proto.reasoning()))
            spans = _remember(_SPANS, known, union, MAX_MEMBER_SETS)
        return spans

    def token_openers(self) -> Sequence[str]:
        known = self._known()
        tokens = _TOKENS.get(known)
        if tokens is None:
            members = self._members(known)
            union = tuple(dict.fromkeys(t for proto in members for t in proto.token_openers()))
            tokens = _remember(_TOKENS, known, union, MAX_MEMBER_SETS)
        return tokens

    def cut_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return self._tables(resolver).cut

    def body_starts(self, resolver: ToolResolver) -> Mapping[str, BodyStart]:
        return self._tables(resolver).starts

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
        before, blank = ctx.char_before_marker, ctx.blank_so_far
        owners = [
            p
            for p in self.owners(marker, ctx.resolver)
            if anchor_holds(
                p.anchors(ctx.resolver).get(marker, "anywhere"), before, blank_so_far=blank
            )
        ]
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


def _merge_tables(members: Sequence[TextProtocol], resolver: ToolResolver) -> _MarkerTables:
    opening: dict[str, None] = {}
    cut: dict[str, None] = {}
    # A marker is anchored as loosely as its loosest owner anchors it (`new_reader` then asks
    # only the owners whose anchor holds where it opened).
    loosest: dict[str, Anchor] = {}
    # The body starts of each marker's owners (None once an owner declares none: then any
    # body may be that owner's, and only its reader can tell). Every owner is counted, even
    # one whose anchor will not hold where the marker stands: a start refuses less that way.
    starts: dict[str, list[BodyStart] | None] = {}
    for proto in members:
        anchors = proto.anchors(resolver)
        markers = proto.opening_markers(resolver)
        own_starts = proto.body_starts(resolver)
        opening.update(dict.fromkeys(markers))
        cut.update(dict.fromkeys(proto.cut_markers(resolver)))
        for marker in markers:
            anchor = anchors.get(marker, "anywhere")
            if marker not in loosest or ANCHORS.index(anchor) < ANCHORS.index(loosest[marker]):
                loosest[marker] = anchor
            known = starts.setdefault(marker, [])
            start = own_starts.get(marker)
            starts[marker] = None if known is None or start is None else [*known, start]
    return _MarkerTables(
        tuple(opening),
        MappingProxyType({m: a for m, a in loosest.items() if a != "anywhere"}),
        tuple(cut),
        MappingProxyType({m: BodyStart.any_of(s) for m, s in starts.items() if s}),
    )


def _adopt(proto: TextProtocol, marker: str, ctx: BlockContext) -> BlockReader:
    ctx.read_as(proto)
    return proto.new_reader(marker, ctx)


class DispatchReader(BlockReader):
    """Waits until the formats sharing the marker have said whose the body is, then hands over.

    The formats are asked in `DETECTION_ORDER` (`TextProtocol.claims`) on at most
    `MAX_DETECTION_LOOKAHEAD` characters of the body: the first that says `MINE` reads the
    block, once every format before it has said `NOT_MINE`. A `MAYBE` waits for more text; at
    the end of the stream or past the lookahead it counts as `NOT_MINE`. When none claims the
    body, the first format reads it (and finds it is not a call). The body waited over stays
    unconsumed (the chosen reader reads it), and what is looked at is bounded, so a body fed
    one character at a time stays linear and the choice depends on the text only.
    """

    def __init__(self, marker: str, owners: list[TextProtocol], ctx: BlockContext) -> None:
        self.marker = marker
        self.owners = owners
        self.ctx = ctx
        self.chosen: BlockReader | None = None

    def _choose(self, body: str, decided: bool) -> BlockReader | None:
        for owner in self.owners:
            claim = owner.claims(self.marker, body)
            if claim is Claim.MINE:
                break
            if claim is Claim.MAYBE and not decided:
                return None
        else:
            owner = self.owners[0]
        self.chosen = _adopt(owner, self.marker, self.ctx)
        return self.chosen

    def step(self, buf: str, pos: int, end: int, final: bool) -> int:
        reader = self.chosen
        if reader is None:
            stop = min(end, pos + MAX_DETECTION_LOOKAHEAD)
            reader = self._choose(buf[pos:stop], final or stop - pos >= MAX_DETECTION_LOOKAHEAD)
            if reader is None:
                return pos  # the body cannot tell the format yet
        return reader.step(buf, pos, end, final)

    def at_eof(self) -> EofVerdict:
        reader = self.chosen or self._choose("", True)
        assert reader is not None
        return reader.at_eof()


PROTOCOL = AutoProtocol()

#: The detectors over chosen formats, by their ids (a process asks for few such sets).
_DETECTORS: dict[tuple[str, ...], AutoProtocol] = {}


def detector(ids: Sequence[str]) -> TextProtocol:
    """`auto` over the formats `ids` only (each registered, checked by the caller): one parser
    watching all their markers at once, a shared marker decided as `auto` decides it. Reading
    several formats costs then what reading one costs (one marker search per delta)."""
    key = tuple(ids)
    found = _DETECTORS.get(key)
    if found is None:
        found = _remember(_DETECTORS, key, AutoProtocol(key), MAX_MEMBER_SETS)
    return found
