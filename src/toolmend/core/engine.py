"""The one streaming parser every text protocol runs on (sans-IO: `feed()` / `finish()`).

`StreamParser` owns what all protocols share: the input buffer, the text/markup state machine,
the code mask (through `TextScanner`), call ids and indices, the schema gate and argument
deltas, the fragment cap, conservation accounting and the truncation rule at `finish()`:

    A call cut off by the end of the stream is completed iff R1 its opening marker is complete,
    R2 its name resolves, R3 its body is complete except for a missing closing marker (or a
    proper prefix of it) and trailing whitespace, and R4 its arguments validate. A call with a
    resolving name that is not recoverable ends `incomplete` with an error and best-effort
    arguments; a nameless fragment is dropped with a metadata-only diagnostic. The raw
    truncated fragment never appears as text or in a diagnostic.

A protocol contributes only its wire format: the opening markers, and a `BlockReader` that reads
one block of markup (one call, or a wrapper holding several) through the narrow `BlockContext`
interface below. Batch parsing is this parser fed one chunk; there is no second parser.

Cost: every character is consumed once. The buffer holds only what is not consumed yet (a
held-back partial marker or escape); readers keep what they need of consumed text themselves,
bounded by the fragment cap.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, TypedDict

from toolmend.core.argstream import ArgumentStream, json_string_text
from toolmend.core.textscan import TextScanner
from toolmend.events import (
    Diagnostic,
    Event,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
)
from toolmend.jsontext import MAX_NESTING, nesting_exceeds, normalize_value
from toolmend.model import CallIdFactory, Tool, ToolCall, canonical_json
from toolmend.names import ToolResolver
from toolmend.schema_gate import Policy, SchemaGate

#: A retained call fragment larger than this ends the call incomplete: it bounds the memory one
#: runaway or adversarial call can hold (1 MiB of characters).
DEFAULT_MAX_FRAGMENT = 1024 * 1024
#: A tag (an opening header such as `<invoke name="...">`) longer than this is not a tag: the
#: text is released as visible text instead of being held while waiting for a `>`.
MAX_TAG_LENGTH = 128
#: A plain-text run keeps at most this much unread input waiting (its `pending` rest) instead
#: of calling the reader, so a long run of it cannot make each feed copy a growing buffer.
MAX_PENDING = 64


class ParserOptions(TypedDict, total=False):
    """The caller's choices for one parser (every entry point passes these through as they are).

    `policy`: "strict" (validate only) or "lenient" (validation-gated repairs); default: the
    protocol's own. `max_fragment`: largest call in characters (default 1 MiB).
    `keep_failed_markup`: show a failed call's markup as text. `id_prefix` / `seed`:
    deterministic call ids.
    """

    policy: Policy | str | None
    max_fragment: int
    keep_failed_markup: bool
    id_prefix: str | None
    seed: int | str | None


CUT_OFF = "the call was cut off before it was complete"


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


#: The `verbatim` test of a run that has none: it finds something in every chunk.
_NOTHING_VERBATIM = re.compile("")


@dataclass(slots=True)
class PlainTextRun:
    """A reader's standing promise, while it streams a string value, that lets `feed()` skip it.

    While set, when what the reader would read next (the held-back rest of the buffer, then the
    new chunk) fully matches `pattern`, that text is text of the value: the parser appends it as
    written to each list in `sinks`, its decoded text to each list in `decoded_sinks` and to the
    argument stream, without calling the reader. The decoded text is `decode(text)`, or the text
    itself when `decode` is None; `decode` must read every text the pattern matches (a pattern
    admits only complete escapes or entities). The lists must end up holding exactly what the
    reader would have recorded. This keeps a long argument streamed in small deltas at a few
    function calls per delta. `plain_text_pattern` builds the pattern of a value that ends at
    literal stops. When only a prefix of the text matches, that prefix is taken the same way and
    the rest goes to the reader, or waits in the buffer when it fully matches `pending`
    (`pending_pattern`, at most `MAX_PENDING` characters). So a pattern must decide each
    character from the characters present (a prefix it matches is value text whatever follows):
    a lookahead may only accept what is itself value text.

    With `hold`, the trailing run of `hold` characters of the decoded text is kept back from the
    argument stream (text that may still turn out to be structure) in `held`, and streamed
    before the next text; the pattern must not match a text made of `hold` characters only. The
    reader keeps its own held-back text in `held` too, so both paths share it.

    `verbatim` (`verbatim_pattern`) is a cheaper test tried first: a chunk in which its search
    finds nothing is plain and decodes to itself, so it goes to every sink as it is, with neither
    `pattern` nor `decode` run.
    """

    pattern: re.Pattern[str]
    sinks: tuple[list[str], ...]
    decode: Callable[[str], str] | None = None
    decoded_sinks: tuple[list[str], ...] = ()
    #: `decode` runs only on text holding this (a JSON backslash, an XML ampersand): most chunks
    #: hold no escape, and skipping the call is most of the hot path's saving.
    escape: str = ""
    hold: str = ""
    held: str = ""
    #: A rest the reader would only hold back (a possible start of a stop, an unfinished
    #: escape): kept unread after the plain part of a chunk instead of calling the reader.
    pending: re.Pattern[str] | None = None
    verbatim: re.Pattern[str] = field(default_factory=lambda: _NOTHING_VERBATIM)
    #: `sinks` then `decoded_sinks`: where a verbatim chunk (its own decoding) goes.
    all_sinks: tuple[list[str], ...] = field(init=False)

    def __post_init__(self) -> None:
        self.all_sinks = self.sinks + self.decoded_sinks


@lru_cache(maxsize=256)
def verbatim_pattern(
    stops: tuple[str, ...], *, exclude: str = "", held: str = "", hold: str = ""
) -> re.Pattern[str]:
    """The `PlainTextRun.verbatim` test of a run whose value ends at the literal `stops`.

    It finds where a stop may begin (its first character followed by the second character of
    one, or at the end of the chunk), an `exclude` character (one that begins an escape or is
    never plain), a `held` character at the end of the chunk (one the reader must see with what
    follows) and a chunk made of `hold` characters only (the run's `hold`): the arguments mean
    what they mean to `plain_text_pattern`. A chunk it finds
    nothing in must be one the run's `pattern` matches whole and its `decode` leaves as it is.
    """
    seconds: dict[str, set[str]] = {}
    for stop in stops:
        seconds.setdefault(stop[0], set()).add(stop[1:2])
    always = set(exclude) | {first for first, after in seconds.items() if "" in after}
    found = [f"[{re.escape(''.join(sorted(always)))}]"] if always else []
    for first, after in sorted(seconds.items()):
        if first not in always:
            found.append(f"{re.escape(first)}(?=[{re.escape(''.join(sorted(after)))}]|\\Z)")
    if held:
        found.append(f"[{re.escape(held)}]\\Z")
    if hold:
        found.append(f"\\A[{re.escape(hold)}]+\\Z")
    return re.compile("|".join(found))


@lru_cache(maxsize=256)
def plain_text_pattern(
    stops: tuple[str, ...], *, held: str = "", allowed: str = "", exclude: str = "", hold: str = ""
) -> re.Pattern[str]:
    """The pattern of a whole chunk that a reader would take as value text, as written.

    The value ends at any of the literal `stops`: the chunk holds none and does not end in a
    proper prefix of one, so a stop's first character is plain only where what follows it inside
    the chunk rules out every stop. `exclude` characters are never plain by themselves;
    `allowed` is a regex of sequences that are plain anyway, tried first (complete escapes or
    entities, which the run's `decode` reads); it should have no capturing group, which would
    double the cost of every match. The chunk does not end in a character of `held`
    (text the reader holds back, such as a newline it may trim), and is not made of `hold`
    characters only (the run's `hold`).
    """
    firsts = sorted({s[0] for s in stops})
    alternatives = [allowed] if allowed else []
    special = "".join(firsts) + exclude + held
    alternatives.append(f"[^{re.escape(special)}]++" if special else r"[\s\S]++")
    if held:
        # One at a time, so a match can give a trailing held character back to the tail check.
        alternatives.append(f"[{re.escape(held)}]")
    for first in firsts:
        rests = sorted({s[1:] for s in stops if s[0] == first}, key=len, reverse=True)
        if "" in rests:
            continue  # a one-character stop: never plain
        starts = sorted({r[:i] for r in rests for i in range(len(r))}, key=len, reverse=True)
        inside = "|".join(map(re.escape, rests))
        at_end = "|".join(map(re.escape, starts))
        alternatives.append(f"{re.escape(first)}(?!{inside}|(?:{at_end})\\Z)")
    head = f"(?![{re.escape(hold)}]*\\Z)" if hold else ""
    tail = f"(?<![{re.escape(held)}])" if held else ""
    # Each alternative is possessive or fixed-width, so a failed match backtracks linearly. The
    # outer repeat is not possessive: CPython 3.11 mistracks groups of `allowed` inside one.
    return re.compile(f"{head}(?:{'|'.join(alternatives)})+{tail}")


@lru_cache(maxsize=256)
def pending_pattern(stops: tuple[str, ...], *, held: str = "", extra: str = "") -> re.Pattern[str]:
    """A rest that a reader only holds back: `held` characters, then a proper prefix of a stop.

    `extra` is a regex of other such rests (an unfinished escape or entity).
    """
    prefixes = sorted({s[:i] for s in stops for i in range(1, len(s))}, key=len, reverse=True)
    lead = f"[{re.escape(held)}]*" if held else ""
    alternatives = [f"{lead}(?:{'|'.join(map(re.escape, prefixes))})?" if prefixes else lead]
    if extra:
        alternatives.append(f"{lead}(?:{extra})")
    return re.compile("|".join(a for a in alternatives if a) or "(?!)")


class BlockReader(ABC):
    """Reads one block of call markup for a protocol. See `BlockContext` for what it may do."""

    @abstractmethod
    def step(self, buf: str, pos: int, end: int, final: bool) -> int:
        """Consume from `buf[pos:end]`; return the new position (== pos when it needs more).

        Only `buf[pos:end]` may be read. `final` is True when nothing follows `end`.
        """

    @abstractmethod
    def at_eof(self) -> EofVerdict:
        """The stream ended inside this block (after a last `step` with `final=True`)."""


class BlockContext(ABC):
    """What a `BlockReader` may ask of the parser running it."""

    protocol_id: str
    resolver: ToolResolver
    policy: Policy
    args: ArgumentStream
    #: The visible character just before the opening marker ("" at the start of the stream,
    #: "\n" right after another block), for formats whose markers need a word boundary.
    char_before_marker: str
    #: Whether calls of this block stream argument deltas before they close (set from the
    #: block's protocol; a dispatching reader sets it for the protocol it picks).
    incremental_arguments: bool

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
    def end_block(self, at: int) -> None:
        """The block ends at `buf[at]`; text scanning resumes there."""

    @abstractmethod
    def revert(self, consumed: str, *, rescan: bool) -> None:
        """This was not call markup: the opening marker and `consumed` become text again.

        With `rescan`, `consumed` is scanned again as text (it may hold another marker); else it
        is released as literal text. The reader returns the position after `consumed`.
        """

    @abstractmethod
    def fail_block(self, at: int, raw: str, code: str, message: str, **metadata: Any) -> None:
        """Malformed complete markup with no usable call ends at `buf[at]`.

        It is recorded in a diagnostic and not shown, unless the caller asked to keep failed
        markup: then the opening marker and `raw` (what the reader consumed) become text.
        """

    @abstractmethod
    def diagnostic(self, code: str, message: str, **metadata: Any) -> None:
        """Record something worth telling the caller (metadata only, never raw markup)."""

    @abstractmethod
    def set_plain_text_run(self, run: PlainTextRun | None) -> None:
        """Promise (or stop promising) that matching chunks are plain string text."""

    @abstractmethod
    def gate_for(self, tool_name: str) -> SchemaGate:
        """The schema gate of a declared tool (or of a schema-less one when tools=None)."""

    @abstractmethod
    def read_as(self, syntax: ProtocolSyntax) -> None:
        """This block is read by `syntax` (a detector picked it): its id names the block's
        diagnostics and calls, its policy applies unless the caller chose one, and its
        `incremental_arguments`. The parser's own return when the block ends."""

    @property
    @abstractmethod
    def current_tool(self) -> Tool | None:
        """The resolved tool of the call in progress."""


class ProtocolSyntax(ABC):
    """A protocol's wire-format hooks for the parser: its markers and its block reader."""

    id: str = ""
    #: Repairs applied by default (lenient) or validation only (strict).
    default_policy: Policy = Policy.LENIENT
    #: False when later input may still change earlier keys (e.g. last-wins duplicates), so
    #: argument deltas are only emitted once the call is final.
    incremental_arguments: bool = True

    @abstractmethod
    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        """Literal strings that may open a block."""

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


_TEXT, _BLOCK, _SKIP = 0, 1, 2


class StreamParser(BlockContext):
    """Sans-IO streaming parser for one protocol; see the module docstring."""

    def __init__(
        self,
        syntax: ProtocolSyntax,
        tools: Sequence[Tool] | None = None,
        *,
        policy: Policy | str | None = None,
        max_fragment: int = DEFAULT_MAX_FRAGMENT,
        keep_failed_markup: bool = False,
        id_prefix: str | None = None,
        seed: int | str | None = None,
        mask_code: bool = True,
    ) -> None:
        if max_fragment < MAX_TAG_LENGTH:
            raise ValueError(f"max_fragment must be at least {MAX_TAG_LENGTH} characters")
        self.syntax = syntax
        self.protocol_id = syntax.id
        self.resolver = ToolResolver(tools)
        self.policy = Policy(policy) if policy is not None else syntax.default_policy
        self._chosen_policy = policy is not None  # the caller's: no block's format overrides it
        self._parser_policy = self.policy
        self.max_fragment = max_fragment
        self.keep_failed_markup = keep_failed_markup
        self._ids = CallIdFactory(prefix=id_prefix, seed=seed)
        self._gates: dict[tuple[str, Policy], SchemaGate] = {}
        self._scanner = TextScanner(
            syntax.opening_markers(self.resolver),
            mask_code=mask_code,
            cut_markers=syntax.cut_markers(self.resolver),
        )
        self._skipper: TextScanner | None = None
        self._out: list[Event] = []
        self._buf = ""
        self._base = 0  # absolute input offset of self._buf[0]
        self._mode = _TEXT
        self._reader: BlockReader | None = None
        self._marker = ""
        self._block_start = 0  # absolute offset where the current block's marker began
        self._fragment_end = max_fragment  # the fragment cap's absolute offset for this block
        self._attributed = 0  # absolute offset up to which input is accounted for
        self._call: ToolCall | None = None
        self._call_index = -1
        self._pending_end: tuple[ToolCall, int, int] | None = None  # call, index, end offset
        self._next_index = 0
        self._revert: tuple[str, bool] | None = None
        self._block_end: int | None = None
        self._finished = False
        self._current_tool: Tool | None = None
        self._plain_run: PlainTextRun | None = None
        self.char_before_marker = ""
        self.incremental_arguments = syntax.incremental_arguments
        self.args = ArgumentStream(SchemaGate(None), self._out, "", -1, incremental=False)

    # ----------------------------------------------------------------- public, sans-IO surface

    def feed(self, chunk: str) -> list[Event]:
        """Consume `chunk`; return the events it completes."""
        run = self._plain_run
        if run is None or not chunk:
            return self._feed_reader(chunk)
        # A string value streams (`PlainTextRun`): value text is taken here, without its reader.
        # This runs once per streamed delta, so it is written for speed.
        try:
            # What the reader would read next: the held-back rest, if any, then the chunk.
            text = self._buf + chunk if self._buf else chunk
            verbatim = run.verbatim.search(text) is None
        except TypeError:
            return self._feed_reader(chunk)  # not a str: refused there
        base = self._base + len(text)
        if base > self._fragment_end:
            return self._feed_reader(chunk)
        if verbatim:
            # The hot path: the text is value text as it is (no pattern, no decoder).
            self._base = base
            rest = ""
            for sink in run.all_sinks:
                sink.append(text)
        else:
            m = run.pattern.match(text)
            cut = 0 if m is None else m.end()
            if cut < len(text) and run.hold and not text[:cut].rstrip(run.hold):
                cut = 0  # a prefix that is all held-back tail vouches for nothing
            text, rest = text[:cut], text[cut:]
            if text:
                self._base += cut
                for sink in run.sinks:
                    sink.append(text)
                if run.decode is not None and run.escape in text:
                    text = run.decode(text)
                for sink in run.decoded_sinks:
                    sink.append(text)
        self._buf = rest
        if run.hold and text:  # the text is not all held characters
            if text[-1] in run.hold:
                kept = text.rstrip(run.hold)
                text, run.held = run.held + kept, text[len(kept) :]
            elif run.held:
                text, run.held = run.held + text, ""
        args = self.args
        if args.in_string and text:
            # `ArgumentStream.string_delta` inlined, and the first test of `json_string_text`:
            # two calls fewer per delta.
            if not (text.isascii() and text.isprintable()) or '"' in text or "\\" in text:
                text = json_string_text(text)
            args.pieces.append(text)
            events: list[Event] = [ToolCallDelta(args.call_id, args.index, text)]
        else:
            events = []
        if rest and not (len(rest) <= MAX_PENDING and run.pending and run.pending.fullmatch(rest)):
            # Not only what the reader would hold back anyway (that waits for more): read it.
            self._out += events
            self._run(final=False)
            return self._take()
        return events

    def _feed_reader(self, chunk: str) -> list[Event]:
        """`feed()` when no plain-text run takes the chunk: the reader (or the text scanner)
        reads it."""
        if self._finished:
            raise RuntimeError("feed() after finish()")
        if not isinstance(chunk, str):
            raise TypeError(f"feed() takes str, got {type(chunk).__name__}")
        if chunk:
            self._buf += chunk
            self._run(final=False)
        return self._take()

    def finish(self) -> list[Event]:
        """The stream ended: flush text, settle an open block (R1–R4), return the last events."""
        if self._finished:
            return []
        self._run(final=True)
        if self._mode == _BLOCK:
            self._settle_at_eof()
        elif self._mode == _SKIP:
            self._end_skip(len(self._buf))
        self._finished = True
        self._plain_run = None  # so that feed() after finish() reaches its check
        return self._take()

    # --------------------------------------------------------------------- the state machine

    def _take(self) -> list[Event]:
        out = self._out[:]
        self._out.clear()  # the list object is shared with the call's ArgumentStream
        return out

    def _run(self, final: bool) -> None:
        buf = self._buf
        pos = 0
        while True:
            if self._mode == _TEXT:
                end, marker_at = self._scanner.scan(buf, pos, final)
                cut = self._scanner.cut_marker
                if cut:
                    end -= cut  # a marker cut off by the end of the stream: not text
                if end > pos:
                    self._out.append(TextDelta(buf[pos:end]))
                    self._attributed = self._base + end
                    self.char_before_marker = buf[end - 1]
                pos = end
                if cut:
                    self._out.append(
                        Diagnostic(
                            "truncated_marker_dropped",
                            "the stream ended inside an opening marker",
                            self.protocol_id,
                            {"retained_length": cut},
                            cut,
                        )
                    )
                    self._attributed = self._base + end + cut
                    pos += cut
                if marker_at is None:
                    break
                self._open_block(pos)
                pos += len(self._marker)
            elif self._mode == _BLOCK:
                reader = self._reader
                assert reader is not None
                n = len(buf)
                # The fragment cap: the reader never sees input past it.
                end = min(n, self._fragment_end - self._base)
                new_pos = reader.step(buf, pos, end, final and end == n)
                if self._revert is not None:
                    buf, pos = self._apply_revert(buf, new_pos)
                    continue
                if self._block_end is not None:
                    pos = self._block_end
                    self._block_end = None
                    continue
                if end < n:
                    self._overflow(new_pos)
                    pos = new_pos
                    continue
                if new_pos == pos or new_pos >= n:
                    pos = new_pos
                    break
                pos = new_pos
            else:
                pos, done = self._step_skip(buf, pos, final)
                if not done:
                    break
        self._buf = buf[pos:]
        self._base += pos

    def _open_block(self, pos: int) -> None:
        self._marker = self._scanner.matched
        self._block_start = self._base + pos
        self._fragment_end = self._block_start + self.max_fragment
        self._attributed = self._block_start
        self._mode = _BLOCK
        self.incremental_arguments = self.syntax.incremental_arguments
        self._reader = self.syntax.new_reader(self._marker, self)

    def _apply_revert(self, buf: str, pos: int) -> tuple[str, int]:
        assert self._revert is not None
        consumed, rescan = self._revert
        self._revert = None
        self._leave_block()
        self._out.append(TextDelta(self._marker))
        self.char_before_marker = self._marker[-1]
        if rescan:
            # Put the consumed text back in front of the unconsumed rest and scan it again.
            rest = buf[pos:]
            new_buf = consumed + rest
            self._base = self._base + pos - len(consumed)
            self._attributed = self._base
            return new_buf, 0
        if consumed:
            self._out.append(TextDelta(consumed))
            self.char_before_marker = consumed[-1]
        self._attributed = self._base + pos
        return buf, pos

    def _leave_block(self) -> None:
        self.protocol_id = self.syntax.id
        self.policy = self._parser_policy
        self._plain_run = None
        self.char_before_marker = "\n"
        self._mode = _TEXT
        self._reader = None
        self._call = None

    # ------------------------------------------------------------ BlockContext: for readers

    @property
    def current_tool(self) -> Tool | None:
        return self._current_tool

    def gate_for(self, tool_name: str) -> SchemaGate:
        gate = self._gates.get((tool_name, self.policy))
        if gate is None:
            tool = self.resolver.resolve(tool_name)
            gate = self._gates[tool_name, self.policy] = SchemaGate(
                None if self.resolver.accepts_any else tool, self.policy
            )
        return gate

    def read_as(self, syntax: ProtocolSyntax) -> None:
        self.protocol_id = syntax.id
        self.incremental_arguments = syntax.incremental_arguments
        if not self._chosen_policy:
            self.policy = syntax.default_policy

    def begin_call(self, name: str) -> bool:
        tool = self.resolver.resolve(name)
        if tool is None:
            code = "ambiguous_tool" if self.resolver.is_ambiguous(name) else "unknown_tool"
            self.diagnostic(
                code,
                f"tool name {name[:64]!r} does not resolve to "
                + ("exactly one declared tool" if code == "ambiguous_tool" else "a declared tool"),
                name=name[:64],
            )
            return False
        self._flush_pending_end()
        index = self._next_index
        self._next_index += 1
        self._call = ToolCall(id=self._ids.next_id(), name=tool.name)
        self._call_index = index
        self._current_tool = tool
        gate = self.gate_for(tool.name)
        self.args = ArgumentStream(
            gate, self._out, self._call.id, index, incremental=self.incremental_arguments
        )
        self._out.append(ToolCallStart(self._call.id, tool.name, index, self.protocol_id))
        return True

    def end_call(
        self,
        arguments: dict[str, Any] | None,
        *,
        at: int | None = None,
        error: str | None = None,
        repairs: Sequence[str] = (),
    ) -> None:
        call = self._call
        assert call is not None, "end_call() without begin_call()"
        if arguments is not None and nesting_exceeds(arguments):
            arguments = {}
            error = f"the arguments are nested more than {MAX_NESTING} levels deep"
        args = arguments if arguments is not None else {}
        if error is None:
            # The gate normalises lone surrogates itself and records it (`surrogate:KEY`).
            result = self.gate_for(call.name).check(args)
            call.arguments = result.arguments
            call.repairs = [*repairs, *result.repairs]
            call.error = result.error
            call.incomplete = result.error is not None
        else:
            call.arguments = normalize_value(args)
            call.repairs = list(repairs)
            call.error = error
            call.incomplete = True
        if not self.args.finish(canonical_json(call.arguments)):
            self.diagnostic(
                "argument_stream_diverged",
                "streamed argument deltas are not a prefix of the final arguments; "
                "use the arguments of the end event",
                call_id=call.id,
            )
        stop = -1 if at is None else self._base + at
        self._pending_end = (call, self._call_index, stop)
        self._call = None
        self._current_tool = None

    def _flush_pending_end(self, block_end: int | None = None) -> None:
        """Send the pending `ToolCallEnd`, accounting input up to its end (or the block's)."""
        if self._pending_end is None:
            return
        call, index, stop = self._pending_end
        self._pending_end = None
        if block_end is not None:
            stop = block_end
        assert stop >= 0, "end_call() without `at` in a block that holds more calls"
        self._out.append(ToolCallEnd(call, index, stop - self._attributed))
        self._attributed = stop

    def end_block(self, at: int) -> None:
        stop = self._base + at
        if self._pending_end is not None:
            self._flush_pending_end(stop)
        elif stop > self._attributed:
            self._out.append(
                Diagnostic(
                    "markup_stripped",
                    "protocol markup without a call was removed from the text",
                    self.protocol_id,
                    {},
                    stop - self._attributed,
                )
            )
            self._attributed = stop
        self._leave_block()
        self._block_end = at

    def revert(self, consumed: str, *, rescan: bool) -> None:
        assert self._pending_end is None, "revert() after a call of the block has ended"
        self._revert = (consumed, rescan)

    def fail_block(self, at: int, raw: str, code: str, message: str, **metadata: Any) -> None:
        self._flush_pending_end()
        stop = self._base + at
        if self.keep_failed_markup:
            self.diagnostic(code, message, **metadata)
            self._revert = (raw, False)
            return
        self._out.append(
            Diagnostic(code, message, self.protocol_id, metadata, stop - self._attributed)
        )
        self._attributed = stop
        self._leave_block()
        self._block_end = at

    def diagnostic(self, code: str, message: str, **metadata: Any) -> None:
        self._out.append(Diagnostic(code, message, self.protocol_id, metadata))

    def set_plain_text_run(self, run: PlainTextRun | None) -> None:
        self._plain_run = run

    # ------------------------------------------------------------------- bounds and the end

    def _overflow(self, at: int) -> None:
        """The block outgrew the fragment cap: end it incomplete and skip to its closer."""
        assert self._reader is not None
        self._plain_run = None
        verdict = self._reader.at_eof()
        limit = self.max_fragment
        if self._call is not None:
            self.end_call(
                verdict.arguments,
                error=f"the call exceeded {limit} characters and was cut off",
            )
        self.diagnostic("fragment_overflow", "a call fragment exceeded the size cap", limit=limit)
        if self._pending_end is not None:
            self._flush_pending_end(self._base + at)
        self._mode = _SKIP
        self._reader = None
        self._skipper = TextScanner(
            self.syntax.closing_markers_after(self._marker), mask_code=False
        )
        self._current_tool = None

    def _step_skip(self, buf: str, pos: int, final: bool) -> tuple[int, bool]:
        assert self._skipper is not None
        end, marker_at = self._skipper.scan(buf, pos, final)
        if marker_at is None:
            return end, final
        stop = marker_at + len(self._skipper.matched)
        self._end_skip(stop)
        return stop, True

    def _end_skip(self, stop: int) -> None:
        length = self._base + stop - self._attributed
        if length > 0:
            self._out.append(
                Diagnostic(
                    "overflow_skipped",
                    "the rest of an oversized call was discarded",
                    self.protocol_id,
                    {},
                    length,
                )
            )
        self._attributed = self._base + stop
        self._mode = _TEXT
        self._skipper = None

    def _settle_at_eof(self) -> None:
        """Apply R1–R4 to the block the stream ended in."""
        assert self._reader is not None
        end = len(self._buf)
        verdict = self._reader.at_eof()
        ended_call_stop = self._pending_end[2] if self._pending_end is not None else -1
        # A header cut off after its name (R1 fails); a call before it in the block ends at its
        # own end (`begin_call` sends it).
        cut_header = self._call is None and verdict.name is not None
        if (
            cut_header
            and (self._pending_end is None or ended_call_stop >= 0)
            and self.begin_call(verdict.name or "")
        ):
            verdict.recoverable = False
            if verdict.reason == CUT_OFF:
                verdict.reason = "the call was cut off inside its opening marker"
        if self._call is not None:
            if verdict.recoverable:
                self.end_call(verdict.arguments)
            else:
                self.end_call(verdict.arguments, error=verdict.reason)
            self.end_block(end)
            return
        if self._pending_end is not None:
            if verdict.recoverable or ended_call_stop < 0:
                self.end_block(end)
                return
            # Cut off after the block's last call, before another call's name was readable.
            self._flush_pending_end()
        retained = self._base + end - self._attributed
        self._out.append(
            Diagnostic(
                "truncated_fragment_dropped",
                "the stream ended inside call markup with no readable tool name",
                self.protocol_id,
                {"protocol": self.protocol_id, "retained_length": retained},
                retained,
            )
        )
        self._attributed = self._base + end
        self._leave_block()
