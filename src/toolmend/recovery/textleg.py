"""The text-scanning leg: one choice's `delta.content` through the selected stream parsers.

Owns the parsers of one choice: the formats chosen are read by one parser that watches all
their markers at once (`protocols.auto.detector`: `["kimi-xtml", "kimi-k2"]` reads both formats
for what one costs, a marker they share decided as `auto` decides it); a list that names `auto`
is a chain instead (each parser reads the visible text the one before it left). Turns their
events into `Piece`s in source order: visible text, reasoning, finished calls and parser
diagnostics. Reasoning the model wrote into `delta.content` (`<think>…</think>`, Kimi's think
channel, a format's own reasoning span: the parsers keep it apart as `ReasoningDelta`s) becomes
reasoning, as agents expect of a reasoning model (`reasoning_content` on the chunk), never
visible text. A call written inside it is never executable; it is still reported, as a rejected
call, by a second parser that reads only the reasoning (so logs show what the model tried).
Stray channel markers are stripped silently (the parser's own marker grammar decides what a
marker is). Code spans and fences are masked by the parsers themselves.

Never: sees `reasoning_content`, native tool calls or the request's history; builds wire
chunks; decides whether a call is emitted (the stream does, at the choice's end).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Literal, Protocol

from toolmend.api import stream_parser
from toolmend.events import (
    Diagnostic,
    Event,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
)
from toolmend.model import Tool, ToolCall
from toolmend.protocols import AUTO
from toolmend.protocols.auto import detector
from toolmend.recovery.diagnostics import XTML_MARKER_STRIPPED

#: The parser's code for the markup a stripped marker consumed (follows the marker's record).
MARKUP_STRIPPED = "markup_stripped"

PieceKind = Literal["text", "reasoning", "call", "diagnostic", "thinking"]


@dataclass(slots=True)
class Piece:
    """One thing the leg read, in source order.

    `text` for "text"/"reasoning"; `call` for "call" (`in_reasoning` when read inside
    reasoning); `event` for "diagnostic"; "thinking" marks the start of a reasoning span found
    in the text.
    """

    kind: PieceKind
    protocol: str
    text: str = ""
    call: ToolCall | None = None
    event: Diagnostic | None = None
    in_reasoning: bool = False


class EventParser(Protocol):
    """What the leg needs of a stream parser: the public `feed` / `finish`."""

    def feed(self, chunk: str) -> list[Event]: ...

    def finish(self) -> list[Event]: ...


ParserFactory = Callable[[], EventParser]


class _Stage:
    """One parser of the chain: whether it is inside a call (and which format read it) or a
    reasoning span, and the parser that reads that span's text only to report its calls.

    `protocol` names the stage where no event names a format (its first, for a detector)."""

    __slots__ = (
        "call_protocol",
        "in_call",
        "in_think",
        "new_parser",
        "parser",
        "protocol",
        "reasoning_reader",
        "swallow_strip",
    )

    def __init__(self, protocol: str, new_parser: ParserFactory) -> None:
        self.protocol = protocol
        self.new_parser = new_parser
        self.parser = new_parser()
        self.in_call = False  # a call started and has not ended (nor given way to text)
        self.call_protocol = ""  # the format that read that call (under `auto`, the detected)
        self.in_think = False
        self.reasoning_reader: EventParser | None = None
        self.swallow_strip = False


def _parsers(protocols: Sequence[str], tools: list[Tool] | None) -> list[tuple[str, ParserFactory]]:
    """The stages' formats and parser factories: one detector over several formats (one marker
    search per delta, as for one format), or a chain when `auto` is listed (it reads every
    format already, so what it is chained with reads only what `auto` leaves)."""
    if len(protocols) > 1 and AUTO not in protocols:
        return [(protocols[0], partial(detector(protocols).stream_parser, tools))]
    return [(p, partial(stream_parser, p, tools)) for p in protocols]


#: While a call is being read, its text goes to the parsers in pieces of at least this many
#: characters instead of one piece per chunk: nothing of a call is emitted before its end, so
#: only the visible text right after a call waits (for at most this much more input), and the
#: parser's per-feed cost is paid about once per 50 chunks instead of once per chunk.
CALL_BATCH = 256


class TextLeg:
    """The parsers of one choice's visible text; `feed(text)` / `finish()` return `Piece`s."""

    __slots__ = ("_stages", "batch", "finished", "room")

    def __init__(self, protocols: Sequence[str], tools: list[Tool] | None) -> None:
        self._stages = [_Stage(p, new_parser) for p, new_parser in _parsers(protocols, tools)]
        #: While some parser of the chain is inside a call, its text waits in `batch` (see
        #: `CALL_BATCH`); `room` is how many more characters may wait before the parsers read
        #: them (0 outside a call: `room` is also the "inside a call" state).
        #: A piece shorter than `room` may be appended by the caller itself (and `room` reduced
        #: by its length) instead of going through `feed`: nothing of it is read yet.
        self.batch: list[str] = []
        self.room = 0
        self.finished = False

    def feed(self, text: str) -> str | list[Piece]:
        """The pieces `text` completes; just the visible text (a str) when that is all."""
        if self.room:
            self.batch.append(text)
            if len(text) < self.room:
                self.room -= len(text)
                return ""
            text = "".join(self.batch)
            self.batch.clear()
            self.room = CALL_BATCH
        # The common case, once per chunk and parser: only visible text or a call's progress,
        # the text one parser leaves going on to the next.
        for stage in self._stages:
            if stage.in_think:
                out: list[Piece] = []
                self._run(self._stages.index(stage), text, out)
                return out
            events = stage.parser.feed(text)
            text = ""
            for event in events:
                kind = type(event)
                if kind is TextDelta:
                    text += event.text  # type: ignore[union-attr]
                elif kind is ToolCallStart:
                    self._call_started(stage, event)  # type: ignore[arg-type]
                elif kind is not ToolCallDelta:
                    out = []
                    # Replays the events above (to the same state) and routes them all.
                    self._route(self._stages.index(stage), events, out)
                    return out
            if not text:
                break
            if stage.in_call and type(events[-1]) is TextDelta:
                self._in_call_of(stage, False)  # text after a call's start: it gave way
        return text

    def drain(self) -> list[Piece]:
        """What the text batched so far completes: it arrived before whatever ends the stream,
        so a call it closes was complete then (an error does not cut it)."""
        out: list[Piece] = []
        if self.batch and not self.finished:
            text = "".join(self.batch)
            self.batch.clear()
            self.room = CALL_BATCH
            self._run(0, text, out)
        return out

    def finish(self) -> list[Piece]:
        """End of this choice's text: flush every parser once, in chain order."""
        if self.finished:
            return []
        out = self.drain()
        self.finished = True
        for i, stage in enumerate(self._stages):
            self._route(i, stage.parser.finish(), out)
            self._end_reasoning(stage, out)
        return out

    def _run(self, i: int, text: str, out: list[Piece]) -> None:
        if i == len(self._stages):
            if text:
                out.append(Piece("text", self._stages[-1].protocol, text))
            return
        self._route(i, self._stages[i].parser.feed(text), out)

    def _route(self, i: int, events: list[Event], out: list[Piece]) -> None:
        stage = self._stages[i]
        for event in events:
            if isinstance(event, TextDelta):
                if stage.in_call:
                    self._in_call_of(stage, False)
                self._run(i + 1, event.text, out)
            elif isinstance(event, ReasoningDelta):
                self._reasoning(stage, event, out)
            elif isinstance(event, ToolCallStart):
                self._call_started(stage, event)
            elif isinstance(event, ToolCallEnd):
                self._in_call_of(stage, False)
                out.append(Piece("call", stage.call_protocol or stage.protocol, call=event.call))
            elif isinstance(event, Diagnostic):
                self._diagnostic(stage, event, out)

    def _call_started(self, stage: _Stage, event: ToolCallStart) -> None:
        # The format that read the call (under `auto`, the one detected) names it.
        stage.call_protocol = event.protocol or stage.protocol
        self._in_call_of(stage, True)

    def _in_call_of(self, stage: _Stage, in_call: bool) -> None:
        stage.in_call = in_call
        if not (in_call or any(s.in_call for s in self._stages)):
            self.room = 0
        elif not self.room:
            self.room = CALL_BATCH

    def _reasoning(self, stage: _Stage, event: ReasoningDelta, out: list[Piece]) -> None:
        """Reasoning text, or a span's marker (markup only): opens or closes the span."""
        if event.text:
            out.append(Piece("reasoning", stage.protocol, event.text))
            if stage.reasoning_reader is not None:
                self._reasoning_calls(stage, stage.reasoning_reader.feed(event.text), out)
        elif not stage.in_think:
            stage.in_think = True
            stage.reasoning_reader = stage.new_parser()
            out.append(Piece("thinking", stage.protocol))
        else:
            self._end_reasoning(stage, out)

    def _end_reasoning(self, stage: _Stage, out: list[Piece]) -> None:
        stage.in_think = False
        reader, stage.reasoning_reader = stage.reasoning_reader, None
        if reader is not None:
            self._reasoning_calls(stage, reader.finish(), out)

    def _reasoning_calls(self, stage: _Stage, events: list[Event], out: list[Piece]) -> None:
        for event in events:
            if isinstance(event, ToolCallEnd):
                out.append(Piece("call", stage.protocol, call=event.call, in_reasoning=True))

    def _diagnostic(self, stage: _Stage, event: Diagnostic, out: list[Piece]) -> None:
        if event.code == XTML_MARKER_STRIPPED:
            stage.swallow_strip = True  # stray markers are stripped silently
            return
        if event.code == MARKUP_STRIPPED and stage.swallow_strip:
            stage.swallow_strip = False
            return
        stage.swallow_strip = False
        out.append(Piece("diagnostic", event.protocol or stage.protocol, event=event))
