"""Stream events: what a streaming parser hands back from `feed()` and `finish()`, and the
`ParseResult` that `collect` folds them into.

Small records, in the manner of h11's events; treat them as read-only. The per-delta ones are
not frozen because a frozen dataclass costs three times as much to build and a stream makes one
per delta; `ToolCallEnd` and the `ToolCall` it carries are frozen (one per call), so the call a
consumer holds is never changed under it. They carry no raw markup of failed
calls: a `Diagnostic` holds a code, a message and small metadata (lengths, counts, names), never
the fragment itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from toolmend.model import JSONDict, ToolCall


@dataclass(slots=True)
class TextDelta:
    """Visible text, in order."""

    text: str


@dataclass(slots=True)
class ReasoningDelta:
    """Reasoning text, in order: the inside of a reasoning span (`<think>…</think>`, or a span
    the format declares), which is never scanned for calls.

    `markup_length` counts the span's own markers (opener, closer) this event accounts for, so
    every input character is accounted for (conservation); the markers are not in `text`.
    """

    text: str
    markup_length: int = 0


@dataclass(slots=True)
class ToolCallStart:
    """A call's name resolved: from here on `id` names this call until its `ToolCallEnd`.

    `protocol` is the format that read the call (under `auto`, the one detected)."""

    id: str
    name: str
    index: int
    protocol: str | None = None


@dataclass(slots=True)
class ToolCallDelta:
    """More of the call's canonical arguments JSON; the concatenation is always a prefix of it."""

    id: str
    index: int
    arguments_delta: str


@dataclass(frozen=True, slots=True)
class ToolCallEnd:
    """The call is over. `call.incomplete` says whether it may be executed.

    `source_length` is how many input characters the call consumed, so every input character is
    accounted for (conservation).
    """

    call: ToolCall
    index: int
    source_length: int


@dataclass(slots=True)
class Diagnostic:
    """Something the model did that the caller may want to know about; never a raw fragment.

    `stripped_length` counts input characters this diagnostic accounts for that appear neither as
    text nor inside a call (a dropped fragment, a stripped marker).
    """

    code: str
    message: str
    protocol: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    stripped_length: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "message": self.message,
            "protocol": self.protocol,
            "metadata": dict(self.metadata),
            "stripped_length": self.stripped_length,
        }


Event = TextDelta | ReasoningDelta | ToolCallStart | ToolCallDelta | ToolCallEnd | Diagnostic


def coalesce(events: Iterable[Event]) -> list[Event]:
    """Merge adjacent `TextDelta`s, adjacent `ReasoningDelta`s and adjacent deltas of one call:
    the split-invariant view."""
    out: list[Event] = []
    pending: list[str] = []  # text or argument pieces of the run being merged
    run: TextDelta | ReasoningDelta | ToolCallDelta | None = None
    markup = 0  # the markup length of a reasoning run

    def close_run() -> None:
        if run is None:
            return
        joined = "".join(pending)
        if isinstance(run, TextDelta):
            out.append(TextDelta(joined))
        elif isinstance(run, ReasoningDelta):
            out.append(ReasoningDelta(joined, markup))
        else:
            out.append(ToolCallDelta(run.id, run.index, joined))
        pending.clear()

    for event in events:
        if isinstance(event, TextDelta):
            if not event.text:
                continue
            if not isinstance(run, TextDelta):
                close_run()
                run = event
            pending.append(event.text)
        elif isinstance(event, ReasoningDelta):
            if not (event.text or event.markup_length):
                continue
            if not isinstance(run, ReasoningDelta):
                close_run()
                run, markup = event, 0
            pending.append(event.text)
            markup += event.markup_length
        elif isinstance(event, ToolCallDelta):
            if not event.arguments_delta:
                continue
            if not (isinstance(run, ToolCallDelta) and run.id == event.id):
                close_run()
                run = event
            pending.append(event.arguments_delta)
        else:
            close_run()
            run = None
            out.append(event)
    close_run()
    return out


@dataclass(slots=True)
class ParseResult:
    """What `toolmend.parse` returns: visible text, the calls found, diagnostics, and the
    reasoning text (never scanned for calls)."""

    text: str
    tool_calls: list[ToolCall]
    diagnostics: list[Diagnostic]
    reasoning: str = ""

    def to_dict(self) -> JSONDict:
        out: JSONDict = {
            "text": self.text,
            "tool_calls": [c.to_dict() for c in self.tool_calls],
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }
        if self.reasoning:  # the key appears only when there is reasoning
            out["reasoning"] = self.reasoning
        return out


def collect(events: Iterable[Event]) -> ParseResult:
    """Fold a complete event sequence into a `ParseResult`."""
    text: list[str] = []
    reasoning: list[str] = []
    calls: list[ToolCall] = []
    diagnostics: list[Diagnostic] = []
    for event in events:  # the kinds most events are, first
        if isinstance(event, TextDelta):
            text.append(event.text)
        elif isinstance(event, ToolCallDelta):
            continue
        elif isinstance(event, ToolCallEnd):
            calls.append(event.call)
        elif isinstance(event, Diagnostic):
            diagnostics.append(event)
        elif isinstance(event, ReasoningDelta):
            reasoning.append(event.text)
    return ParseResult(
        text="".join(text),
        tool_calls=calls,
        diagnostics=diagnostics,
        reasoning="".join(reasoning),
    )
