"""The reader contract: what one wire format gives the streaming parser, and what it may ask.

A format gives three things (`ProtocolSyntax`): the literal markers that open its blocks, a
`BlockReader` whose `step` consumes a block and reports its calls, and the reader's verdict
when the stream ends inside a block (`EofVerdict`). Everything else (buffering, the code mask,
reasoning spans, ids, the schema gate, argument deltas, the fragment cap, conservation and the
truncation rule R1–R4) belongs to the parser (`core/engine.py`, `core/calls.py`).

Reasoning spans (`THINK`, and a format's `reasoning_spans`) are the parser's too: it never
hands their text to a reader.

One return contract for every reader: `step` returns the position up to which it consumed the
input. Returning the position it was given means it needs more input: the parser steps it
again when more arrives, and once more at the fragment cap before it takes it as stuck there, so
a step that only changed the reader's state (a header read whole) decides the same however the
input is split. After it ends the block (`end_block`, `fail_block`) or gives it back as text
(`revert`), the returned position is where the parser resumes scanning text.

This module holds only the contract; it never parses.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from re import Pattern
from typing import TYPE_CHECKING, Any, Literal

from toolmend.names import ToolResolver
from toolmend.schema_gate import Policy

if TYPE_CHECKING:
    from toolmend.core.argstream import ArgumentStream
    from toolmend.core.fastpath import ValueRun, ValueText
    from toolmend.model import Tool
    from toolmend.schema_gate import SchemaGate

#: A tag (an opening header such as `<invoke name="...">`) longer than this is not a tag: the
#: text is released as visible text instead of being held while waiting for a `>`.
MAX_TAG_LENGTH = 128

CUT_OFF = "the call was cut off before it was complete"
#: R3 for a body that is empty: nothing after the header shows the call was finished (its
#: parameters may have been about to follow), so only a closer, or a proper prefix of one,
#: right after the header completes it.
CUT_AFTER_HEADER = "the call was cut off right after its header, before its arguments"

#: Where an opening marker may open a block, from the loosest to the strictest: anywhere; at a
#: word boundary (the start of the output or after a blank); at the start of a line (or of the
#: output); only at the start of the visible output (nothing but blanks and reasoning before
#: it). Elsewhere the marker is text.
Anchor = Literal["anywhere", "word", "line", "output"]
ANCHORS: tuple[Anchor, ...] = ("anywhere", "word", "line", "output")
_ALLOWED_BEFORE: dict[Anchor, frozenset[str] | None] = {
    "anywhere": None,
    "word": frozenset(("", " ", "\t", "\r", "\n")),
    "line": frozenset(("", "\n")),
}


def anchor_holds(anchor: Anchor, before: str, *, blank_so_far: bool) -> bool:
    """Whether a marker anchored at `anchor` may open after `before`, the visible character
    just before it ("" at the start of the output, "\n" right after another block), when
    `blank_so_far` says whether only blanks and reasoning came before it."""
    if anchor == "output":
        return blank_so_far
    allowed = _ALLOWED_BEFORE[anchor]
    return allowed is None or before in allowed


@dataclass(frozen=True, slots=True)
class BodyStart:
    """How the body after an opening marker must begin for the marker to open a call: a bare
    `{` opens a JSON call only as `{"`, a bare list only as `[{` or `[name(`; prose is full of
    `{x}` and `[1, 2]`.

    The body opens a block when `opens` matches at its start; it may still when all of it
    that has arrived fullmatches `grows`; else (also at the end of the stream, or once
    `lookahead` characters have not told) the marker is text and scanning resumes right after
    it. At most `lookahead` characters are looked at, so the answer is the same however the
    input is split. `others` are starts any of which opens the block too (`auto`, where
    formats share a marker).

    A format declares it (`ProtocolSyntax.body_starts`) for a marker whose reader refuses every
    other body at once, by this same `verdict` (reverting with nothing consumed): the parser
    then asks it before it builds a reader, and a refused marker costs what a marker out of its
    anchor costs.
    """

    opens: Pattern[str]
    grows: Pattern[str]
    lookahead: int = MAX_TAG_LENGTH
    others: tuple[BodyStart, ...] = ()

    def verdict(self, buf: str, pos: int, end: int, final: bool) -> bool | None:
        """For the body at `buf[pos:end]` (nothing follows `end` when `final`): True when it
        opens a block, None while it may still, False when it does not."""
        stop = min(end, pos + self.lookahead)
        if self.opens.match(buf, pos, stop):
            return True
        undecided = (
            not final and stop - pos < self.lookahead and self.grows.fullmatch(buf, pos, stop)
        )
        verdict = None if undecided else False
        for other in self.others:
            answer = other.verdict(buf, pos, end, final)
            if answer:
                return True
            if answer is None:
                verdict = None
        return verdict

    @property
    def may_open(self) -> str:
        """A lookahead pattern matching at least wherever `verdict` is not False (where the
        body opens or may still, the lookahead bound aside): the text scanner's guard."""
        own = f"(?:{self.opens.pattern})|(?:{self.grows.pattern})\\Z"
        return "|".join((own, *(other.may_open for other in self.others)))

    @property
    def reach(self) -> int:
        """The most of the body any of its starts looks at."""
        return max((self.lookahead, *(other.reach for other in self.others)))

    @staticmethod
    def any_of(starts: Sequence[BodyStart]) -> BodyStart:
        """One start that opens a block when any of `starts` does (the same start once)."""
        unique = tuple(dict.fromkeys(starts))
        first, *rest = unique
        if not rest:
            return first
        return BodyStart(first.opens, first.grows, first.lookahead, (*first.others, *rest))


@dataclass(slots=True)
class EofVerdict:
    """What a reader says about its block when the stream ends inside it.

    `recoverable` is R1 and R3 (the schema gate then decides R4). `name` lets a reader report a
    readable name for a call it had not begun yet (its header was cut off: R1 fails).
    `arguments` are the best-effort arguments parsed so far.
    """

    recoverable: bool
    arguments: dict[str, Any] = field(default_factory=dict)
    reason: str = CUT_OFF
    name: str | None = None


@dataclass(frozen=True, slots=True)
class ReasoningSpan:
    """A span of reasoning: from `opener` to the first of `closers`. Its text is reasoning
    (`ReasoningDelta`), never scanned for calls; its markers are literal, found like any
    marker (outside code, whatever the split)."""

    opener: str
    closers: tuple[str, ...]


#: The reasoning span of every format: `<think>…</think>` (Qwen3, DeepSeek-R1 and many more).
THINK = ReasoningSpan("<think>", ("</think>",))


class BlockReader(ABC):
    """Reads one block of call markup for a format. See `BlockContext` for what it may ask."""

    @abstractmethod
    def step(self, buf: str, pos: int, end: int, final: bool) -> int:
        """Consume from `buf[pos:end]`; return the position consumed up to (see the module).

        Only `buf[pos:end]` may be read. `final` is True when nothing follows `end`.
        """

    @abstractmethod
    def at_eof(self) -> EofVerdict:
        """The stream ended inside this block (after a last `step` with `final=True`)."""


class BlockContext(ABC):
    """What a `BlockReader` may ask of the block it reads (the parser's call lifecycle).

    Positions (`at`) index the `buf` the current `step` was given.
    """

    protocol_id: str
    resolver: ToolResolver
    policy: Policy
    args: ArgumentStream
    #: The visible character just before the opening marker ("" at the start of the stream,
    #: "\n" right after another block). A format whose markers open only at some place declares
    #: it (`ProtocolSyntax.anchors`) instead of reading this.
    char_before_marker: str
    #: Nothing but blanks and reasoning came before the opening marker (no visible text and no
    #: other block): a format whose block counts only as the whole output checks this.
    blank_so_far: bool
    #: The parser's opening markers that open a block wherever they stand (no anchor, no
    #: body start): what, right after a block, is the next call's markup. A format whose block
    #: counts only when nothing but calls surround it checks what follows against these.
    block_openers: Sequence[str]

    @abstractmethod
    def begin_call(self, name: str) -> bool:
        """The call's name is read. False when it does not resolve (the reader then reverts)."""

    @abstractmethod
    def end_call(
        self,
        arguments: dict[str, Any] | None,
        *,
        at: int | None = None,
        error: str | None = None,
        repairs: Sequence[str] = (),
    ) -> None:
        """The current call ends at `buf[at]` (default: where the block ends).

        With `error` None the schema gate decides whether it is complete; else it is incomplete.
        Its `ToolCallEnd` is sent when the next call begins or the block ends, so wrapper markup
        after the call is accounted to it.
        """

    @abstractmethod
    def end_block(self) -> None:
        """The block ends where this `step` returns; text scanning resumes there."""

    @abstractmethod
    def revert(self, consumed: str, *, rescan: bool) -> None:
        """This was not call markup: the opening marker and `consumed` become text again.

        With `rescan`, `consumed` is scanned again as text (it may hold another marker); else it
        is released as literal text. The reader returns the position after `consumed`.
        """

    @abstractmethod
    def fail_block(self, raw: str, code: str, message: str, **metadata: Any) -> None:
        """Malformed complete markup with no usable call ends where this `step` returns.

        It is recorded in a diagnostic and not shown, unless the caller asked to keep failed
        markup: then the opening marker and `raw` (what the reader consumed) become text.
        """

    @abstractmethod
    def text(self, text: str) -> None:
        """Visible text the block holds (the content of a message written around its calls),
        sent now, in order with the block's calls; it stands for `len(text)` characters of the
        block's input (conservation), the rest of the block being its calls'."""

    @abstractmethod
    def pass_text(self) -> None:
        """From here to its end the block only passes its input on as `text`, as it reads it,
        holding nothing (a refused JSON value): the fragment cap, which bounds what a block
        holds, no longer cuts it off, so text that is no call is never dropped. The reader
        bounds such a run itself."""

    @abstractmethod
    def diagnostic(self, code: str, message: str, **metadata: Any) -> None:
        """Record something worth telling the caller (metadata only, never raw markup)."""

    @abstractmethod
    def stream_value(
        self,
        text: ValueText,
        *,
        raw: Sequence[list[str]] = (),
        decoded: Sequence[list[str]] = (),
    ) -> ValueRun:
        """A string value written as `text` declares streams now: the fast path (see
        `core/fastpath.py`) may take its plain chunks without calling the reader, appending
        them as written to each list in `raw` and decoded to each list in `decoded` and to
        `args`. Lasts until `stop_value()`; the reader must record exactly what it would."""

    @abstractmethod
    def stop_value(self) -> None:
        """The streaming value ended (or the reader now keeps text back itself)."""

    @abstractmethod
    def gate_for(self, tool_name: str) -> SchemaGate:
        """The schema gate of a declared tool (or of a schema-less one when tools=None)."""

    @property
    @abstractmethod
    def current_tool(self) -> Tool | None:
        """The resolved tool of the call in progress."""

    @abstractmethod
    def read_as(self, syntax: ProtocolSyntax) -> None:
        """The block is read by `syntax` from here on (for a reader that hands its block to
        another format's, as `auto` does): its id names the block's diagnostics, and its
        default policy (unless the caller chose one) and streaming rule apply."""


class ProtocolSyntax(ABC):
    """A format's hooks for the parser: its markers and its block reader."""

    id: str = ""
    #: Repairs applied by default (lenient) or validation only (strict).
    default_policy: Policy = Policy.LENIENT
    #: False when later input may still change earlier keys (e.g. last-wins duplicates), so
    #: argument deltas are only emitted once the call is final.
    incremental_arguments: bool = True
    #: The format's own reasoning spans, besides `THINK` (e.g. a thought channel).
    reasoning_spans: tuple[ReasoningSpan, ...] = ()

    @abstractmethod
    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        """Literal strings that may open a block."""

    def anchors(self, resolver: ToolResolver) -> Mapping[str, Anchor]:
        """The opening markers that open a block only at some place (`Anchor`); the others
        open anywhere. The parser enforces it, whatever the split: a marker elsewhere is text
        and no reader sees it."""
        return {}

    def body_starts(self, resolver: ToolResolver) -> Mapping[str, BodyStart]:
        """The opening markers that open a block only when their body begins as a
        `BodyStart` says (the parser asks it before building a reader; see there)."""
        return {}

    def reasoning(self) -> Sequence[ReasoningSpan]:
        """Every reasoning span the parser watches for: `THINK` and `reasoning_spans`."""
        return (THINK, *self.reasoning_spans)

    def token_openers(self) -> Sequence[str]:
        """Opening markers that the family's tokenizer holds as special tokens though they are
        not written like one (Qwen's and GLM's `<tool_call>`): a call they open at the end of
        an unclosed reasoning span is structural markup, recovered as special tokens are."""
        return ()

    @abstractmethod
    def closing_markers(self) -> Sequence[str]:
        """Literal strings that end a block; used to skip the rest of an overflowing one."""

    @abstractmethod
    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        """A reader for the block opened by `marker` (already consumed)."""

    def closing_markers_after(self, marker: str) -> Sequence[str]:
        """The closers of a block opened by `marker` (for formats whose closer depends on it)."""
        return self.closing_markers()

    def cut_markers(self, resolver: ToolResolver) -> Sequence[str]:
        """The opening markers that are markup only: the stream ending inside one of them (at
        least `MIN_CUT_MARKER` characters of it) strips the cut marker instead of showing it."""
        return self.opening_markers(resolver)
