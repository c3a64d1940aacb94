"""The one streaming parser every text protocol runs on (sans-IO: `feed()` / `finish()`).

`StreamParser` is the state machine: it owns the input buffer, the text / block / skip states,
the marker scan with the code mask (through `TextScanner`), the fragment cap, and the fast path
that takes a streamed string value's plain chunks without calling its reader
(`core/fastpath.py`). What happens to calls (ids, the schema gate, argument deltas,
conservation, R1–R4) is the call lifecycle's (`core/calls.py`); what a format supplies is the
reader contract's (`core/reader.py`). Batch parsing is this parser fed one chunk; there is no
second parser.

A marker that is a bare character of prose (`{`, `[`) opens a block only where its format's
`BodyStart` does not refuse what follows it: a refused one is text before any reader is built,
exactly as its reader's own refusal would leave it, and the text scanner's one-search path
passes over it (its guard), so prose full of `{x}` costs what prose costs. A refused body that
begins a JSON value (`BodyStart.data`: a list whose first item is no call, `[1, {"name": …}]`)
is data: text to the value's end, passed over by `RefusedJson` (no reader, no marker scan), so
no call-shaped object inside it is read as a call.

Its public surface is `feed`, `finish` and read-only state (`protocol_id`, `policy`,
`resolver`, `finished`).

Reasoning is never scanned for calls, with one exception seen in users' reports (Kimi K2
Thinking behind llama.cpp): when the output ends inside a reasoning span that never closed, and
that span ends with complete calls written in a format's special-token markup (`<|…|>`,
`<｜…｜>`, `[TOOL_CALLS]`, or a marker its tokenizer holds as one token, `token_openers`:
never prose or code), those calls are recovered with a
`call_in_unclosed_reasoning` diagnostic. To decide it without re-reading, each such opener in
the span starts a probe (`CallProbe`: the same parser, reading on from the opener as if it
were text), and the span's text from the first opener whose probe still lives is held back (at
most the fragment cap) instead of being released as reasoning. A probe dies as soon as what
follows its opener can no longer be only complete calls (text, a call that cannot run); held
text before the first live probe is released at once, so reasoning never stalls behind a token
it merely mentions. A closer releases the rest as reasoning, unread.

Cost: every character is consumed once. The buffer holds only what is not consumed yet (a
held-back partial marker or escape); readers keep what they need of consumed text themselves,
bounded by the fragment cap.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Literal, TypedDict

from toolmend.core.argstream import json_string_text
from toolmend.core.calls import ENDED, OPEN, Block
from toolmend.core.fastpath import MAX_PENDING
from toolmend.core.jsonskip import RefusedJson
from toolmend.core.reader import (
    DATA,
    MAX_TAG_LENGTH,
    BlockReader,
    ProtocolSyntax,
    anchor_holds,
)
from toolmend.core.textscan import TextScanner
from toolmend.events import (
    Diagnostic,
    Event,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
)
from toolmend.model import CallIdFactory, Tool
from toolmend.names import ToolResolver
from toolmend.schema_gate import Policy

#: A retained call fragment larger than this ends the call incomplete: it bounds the memory one
#: runaway or adversarial call can hold (1 MiB of characters).
DEFAULT_MAX_FRAGMENT = 1024 * 1024
#: At most this many special-token openers of a reasoning span are probed at once (each live
#: probe reads the held text once more); an opener beyond them while they live is not probed.
MAX_REASONING_CALL_STARTS = 8
#: An opening marker that is a model's special token, not a word a human writes: `<|…|>`,
#: `<|…>`, `<｜…｜>` or `[UPPER_CASE]`.
_SPECIAL_TOKEN = re.compile(r"<[|｜][^<>\s]*>|\[[A-Z][A-Z_]*\]")


def is_special_token(marker: str) -> bool:
    """Whether `marker` is written in special-token syntax (see `_SPECIAL_TOKEN`)."""
    return _SPECIAL_TOKEN.fullmatch(marker) is not None


@functools.lru_cache(maxsize=256)
def special_tokens(markers: tuple[str, ...], tokens: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The markers in special-token syntax or among a format's `tokens` (`token_openers`),
    once per marker set (every parser asks)."""
    return tuple(m for m in markers if is_special_token(m) or m in tokens)


class ParserOptions(TypedDict, total=False):
    """The caller's choices for one parser (every entry point passes these through as they are).

    `policy`: "strict" (validate only) or "lenient" (validation-gated repairs); default: the
    protocol's own. `max_fragment`: largest call in characters (default 1 MiB).
    `keep_failed_markup`: show a failed call's markup as text. `id_prefix` / `seed`:
    deterministic call ids. `reasoning="open"`: the output begins inside reasoning (a template
    that writes `<think>` into the prompt), so text up to the first reasoning closer is reasoning.
    """

    policy: Policy | str | None
    max_fragment: int
    keep_failed_markup: bool
    id_prefix: str | None
    seed: int | str | None
    reasoning: Literal["open"] | None


_TEXT, _BLOCK, _SKIP, _REASON, _DATA = 0, 1, 2, 3, 4


def prepare(syntax: ProtocolSyntax) -> None:
    """Build now what every parser of `syntax` shares (its text scanner's compiled patterns,
    cached by marker set), so that a protocol's first parse costs what every later one does.
    A format whose markers are tool names gets its scanner on its first parse with them."""
    StreamParser(syntax)


class StreamParser:
    """Sans-IO streaming parser for one protocol; see the module docstring."""

    __slots__ = (
        "_anchors",
        "_base",
        "_block",
        "_block_start",
        "_body_starts",
        "_buf",
        "_data",
        "_finished",
        "_fragment_end",
        "_held",
        "_held_length",
        "_marker",
        "_max_fragment",
        "_mode",
        "_out",
        "_probes",
        "_reader",
        "_reason_closers",
        "_reasoning",
        "_reasoning_calls",
        "_scanner",
        "_skipper",
        "_syntax",
    )

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
        reasoning: Literal["open"] | None = None,
        mask_code: bool = True,
    ) -> None:
        if max_fragment < MAX_TAG_LENGTH:
            raise ValueError(f"max_fragment must be at least {MAX_TAG_LENGTH} characters")
        self._syntax = syntax
        resolver = ToolResolver(tools)
        self._max_fragment = max_fragment
        self._out: list[Event] = []
        self._block = Block(
            syntax,
            resolver,
            self._out,
            policy=Policy(policy) if policy is not None else None,
            keep_failed_markup=keep_failed_markup,
            ids=CallIdFactory(prefix=id_prefix, seed=seed),
        )
        if reasoning not in (None, "open"):
            raise ValueError(f"reasoning must be None or 'open', got {reasoning!r}")
        markers = tuple(syntax.opening_markers(resolver))
        #: Opening marker -> where it may open a block (markers not named open anywhere).
        self._anchors = syntax.anchors(resolver)
        #: Opening marker -> how its body must begin (`BodyStart`), asked before a reader is
        #: built; only where what it looks at stays within the fragment cap the reader has.
        body_starts = syntax.body_starts(resolver)
        self._body_starts = {
            marker: start
            for marker, start in body_starts.items()
            if len(marker) + start.reach <= max_fragment
        }
        self._block.block_openers = tuple(
            m for m in dict.fromkeys(markers) if m not in self._anchors and m not in body_starts
        )
        #: Reasoning opener -> its closers.
        self._reasoning = {span.opener: span.closers for span in syntax.reasoning()}
        #: The opening markers that are special tokens, watched for inside reasoning.
        self._reasoning_calls = special_tokens(markers, tuple(syntax.token_openers()))
        #: Reasoning text held from the first live probe's opener on, its length, and the
        #: probes of the openers in it (in order).
        self._held: list[str] = []
        self._held_length = 0
        self._probes: list[CallProbe] = []
        self._reason_closers: tuple[str, ...] = ()
        self._scanner = TextScanner(
            [*markers, *self._reasoning],
            mask_code=mask_code,
            cut_markers=syntax.cut_markers(resolver),
            guards={
                marker: start.may_open
                for marker, start in self._body_starts.items()
                if marker not in self._reasoning
            },
        )
        #: The scanner of the rest of an oversized block, or of a reasoning span, for its closer.
        self._skipper: TextScanner | None = None
        #: The data value being passed over as text (`BodyStart.data`).
        self._data: RefusedJson | None = None
        self._buf = ""
        self._base = 0  # absolute input offset of self._buf[0]
        self._mode = _TEXT
        self._reader: BlockReader | None = None
        self._marker = ""
        self._block_start = 0  # absolute offset where the current block's marker began
        self._fragment_end = max_fragment  # the fragment cap's absolute offset for this block
        self._finished = False
        if reasoning == "open":
            closers = {c: None for span in syntax.reasoning() for c in span.closers}
            self._mode = _REASON
            self._skipper = self._reasoning_scanner(tuple(closers))

    # ------------------------------------------------------------------ read-only state

    @property
    def protocol_id(self) -> str:
        return self._syntax.id

    @property
    def policy(self) -> Policy:
        """The policy calls are checked under (the caller's, else the protocol's default)."""
        return self._block.chosen_policy or self._syntax.default_policy

    @property
    def resolver(self) -> ToolResolver:
        """The declared tools and how names resolve to them."""
        return self._block.resolver

    @property
    def finished(self) -> bool:
        return self._finished

    # ----------------------------------------------------------------- public, sans-IO surface

    def feed(self, chunk: str) -> list[Event]:
        """Consume `chunk`; return the events it completes."""
        block = self._block
        run = block.run
        if run is None or not chunk:
            if self._mode == _TEXT and chunk and type(chunk) is str and not self._finished:
                # Prose the scanner releases whole, or whole but for a marker's possible start
                # at its end, held as `scan` would hold it, or up to and through a marker its
                # body start refuses (`_bare_marker`): what `_run` would do, without it.
                text = self._buf + chunk if self._buf else chunk
                cut = self._scanner.plain_extent(text)
                if cut == len(text):
                    self._buf = ""
                elif cut >= 0:
                    text, self._buf = text[:cut], text[cut:]
                    if not cut:
                        return []
                else:
                    self._buf = ""
                    return self._feed_past_refused(text)
                self._base += cut
                block.attributed = self._base
                block.char_before_marker = text[-1]
                if block.blank_so_far and not text.isspace():
                    block.blank_so_far = False
                return [TextDelta(text)]
            return self._feed_reader(chunk)
        # The fast path (`core/fastpath.py`): a string value streams, and its plain text is
        # taken here, without its reader. This runs once per streamed delta, so it is written
        # for speed.
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
        args = block.args
        if args.in_string and text:
            # `ArgumentStream.string_delta` inlined, and the first test of `json_string_text`:
            # two calls fewer per delta.
            if not (text.isascii() and text.isprintable()) or '"' in text or "\\" in text:
                text = json_string_text(text)
            args.pieces.append(text)
            events: list[Event] = [ToolCallDelta(args.call_id, args.index, text)]
        else:
            events = []
        if rest and not (len(rest) <= MAX_PENDING and run.pending.fullmatch(rest)):
            # Not only what the reader would hold back anyway (that waits for more): read it.
            self._out += events
            self._run(final=False)
            return self._take()
        return events

    def _feed_past_refused(self, text: str) -> list[Event]:
        """`feed()`'s fast path for `text` (all of the buffer) whose prose holds markers: each
        one its body start refuses (`_bare_marker`) is text with the prose before it, one
        whose body has not told yet is held from there; the rest goes as the fast path or
        `_run` take it."""
        events: list[Event] = []
        while True:
            cut, held = self._bare_marker(text)
            if cut < 0:
                return events + self._feed_reader(text)
            if held:
                text, self._buf = text[:cut], text[cut:]
                if cut:
                    self._release_text(text, events)
                return events
            self._release_text(text[:cut], events)
            text = text[cut:]
            cut = self._scanner.plain_extent(text)
            if cut >= 0:
                if cut < len(text):
                    text, self._buf = text[:cut], text[cut:]
                if cut:
                    self._release_text(text, events)
                return events

    def _release_text(self, text: str, events: list[Event]) -> None:
        """`text` (not empty) is visible text: `feed()`'s fast path for prose."""
        block = self._block
        self._base += len(text)
        block.attributed = self._base
        block.char_before_marker = text[-1]
        if block.blank_so_far and not text.isspace():
            block.blank_so_far = False
        events.append(TextDelta(text))

    def _bare_marker(self, text: str) -> tuple[int, bool]:
        """The first marker in `text` (all of the buffer) after plain text, when one search
        and its body start tell what `_run` would do with it: `(end, False)` when the start
        refuses its body (`{x}`: text up to `end`, the marker's), `(at, True)` while the body
        has not told (the marker at `at` is held from there); `(-1, False)` when only `_run`
        can tell. A marker with an anchor (or that opens reasoning) is left to `_run`."""
        if not self._body_starts:
            return -1, False
        at = self._scanner.plain_to_marker(text)
        if at < 0:
            return -1, False
        marker = self._scanner.matched
        start = self._body_starts.get(marker)
        if start is None or marker in self._anchors or marker in self._reasoning:
            return -1, False
        end = at + len(marker)
        opens = start.outcome(text, end, len(text), False)
        if opens is None:
            return at, True
        return (end, False) if opens is False else (-1, False)

    def _feed_reader(self, chunk: str) -> list[Event]:
        """`feed()` when no fast-path run takes the chunk: the reader (or the text scanner)
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
        if self._mode == _REASON and self._held:
            self._settle_unclosed_reasoning()
        if self._mode == _BLOCK:
            assert self._reader is not None
            self._block.base = self._base
            self._block.settle_at_eof(self._reader, self._base + len(self._buf))
            self._leave_block()
        elif self._mode == _SKIP:
            self._end_skip(len(self._buf))
        self._finished = True
        self._block.run = None  # so that feed() after finish() reaches its check
        # Last, so that where it lands never depends on how the input was split.
        self._out += schema_alias_notes(self.resolver.tools, self._syntax.id)
        return self._take()

    # --------------------------------------------------------------------- the state machine

    def _take(self) -> list[Event]:
        out = self._out[:]
        self._out.clear()  # the list object is shared with the call's ArgumentStream
        return out

    def _run(self, final: bool) -> None:
        buf = self._buf
        pos = 0
        block = self._block
        # The reader at the cap that consumed nothing and was stepped again, and where.
        looked_again: tuple[BlockReader, int] | None = None
        while True:
            if self._mode == _TEXT:
                end, marker_at = self._scanner.scan(buf, pos, final)
                cut = self._scanner.cut_marker
                if cut:
                    end -= cut  # a marker cut off by the end of the stream: not text
                if end > pos:
                    self._out.append(TextDelta(buf[pos:end]))
                    block.attributed = self._base + end
                    block.char_before_marker = buf[end - 1]
                    if block.blank_so_far and not buf[pos:end].isspace():
                        block.blank_so_far = False
                pos = end
                if cut:
                    self._out.append(
                        Diagnostic(
                            "truncated_marker_dropped",
                            "the stream ended inside an opening marker",
                            self._syntax.id,
                            {"retained_length": cut},
                            cut,
                        )
                    )
                    block.attributed = self._base + end + cut
                    pos += cut
                if marker_at is None:
                    break
                marker = self._scanner.matched
                if marker in self._reasoning:
                    self._open_reasoning(marker)
                elif marker in self._anchors and not anchor_holds(
                    self._anchors[marker], block.char_before_marker, blank_so_far=block.blank_so_far
                ):
                    # Not where this marker may open a block: it is text, read by no reader.
                    self._marker_as_text(pos, marker)
                elif marker in self._body_starts:
                    start = self._body_starts[marker]
                    opens = start.outcome(buf, pos + len(marker), len(buf), final)
                    if opens is None:
                        break  # held from the marker on until its body tells
                    if opens is True:
                        self._open_block(pos, marker)
                    else:
                        # A body no call begins with: what its reader's revert would give.
                        self._marker_as_text(pos, marker)
                        if opens == DATA:  # and a value it begins is text to its end, unread
                            self._mode = _DATA
                            self._data = RefusedJson(1, in_string=False)
                else:
                    self._open_block(pos, marker)
                pos += len(marker)
            elif self._mode == _BLOCK:
                reader = self._reader
                assert reader is not None
                n = len(buf)
                # The fragment cap: the reader never sees input past it.
                end = min(n, self._fragment_end - self._base)
                block.base = self._base
                new_pos = reader.step(buf, pos, end, final and end == n)
                outcome = block.outcome
                if outcome != OPEN:
                    if outcome == ENDED:
                        block.close(self._base + new_pos)
                        self._leave_block()
                        pos = new_pos
                    else:
                        buf, pos = self._apply_revert(buf, new_pos)
                    continue
                if end < n:
                    if pos < new_pos < end:
                        pos = new_pos  # read on: only a reader stuck at the cap overflows
                        continue
                    if new_pos == pos and looked_again != (reader, self._base + pos):
                        # A step that consumed nothing may have changed the reader's mind
                        # (a header read whole, a fence found to hold no call): below the cap
                        # the next feed steps it again, so here too, before it counts as stuck.
                        looked_again = (reader, self._base + pos)
                        continue
                    if block.passing_text:
                        self._fragment_end = self._base + n  # holds nothing: no cap to keep
                    else:
                        self._overflow(new_pos)
                    pos = new_pos
                    continue
                if new_pos == pos or new_pos >= n:
                    pos = new_pos
                    break
                pos = new_pos
            elif self._mode == _REASON:
                pos, done = self._step_reasoning(buf, pos, final)
                if not done:
                    break
            elif self._mode == _DATA:
                pos, done = self._step_data(buf, pos)
                if not done:
                    break
            else:
                pos, done = self._step_skip(buf, pos, final)
                if not done:
                    break
        self._buf = buf[pos:]
        self._base += pos

    def _step_data(self, buf: str, pos: int) -> tuple[int, bool]:
        """Release the data value's text up to its end (all that is here, if it goes on)."""
        data = self._data
        assert data is not None
        end, done = data.skip(buf, pos, len(buf))
        if end > pos:
            block = self._block
            self._out.append(TextDelta(buf[pos:end]))
            block.attributed = self._base + end
            block.char_before_marker = buf[end - 1]
        if done:
            # What follows reads as after a block (as after a value its reader refused).
            self._block.char_before_marker = "\n"
            self._mode = _TEXT
            self._data = None
        return end, done

    def _marker_as_text(self, pos: int, marker: str) -> None:
        """The marker at `buf[pos]` opens no block: it is text, and scanning goes on after it
        (as after a reverted block: `Block.leave`, `_apply_revert`)."""
        block = self._block
        self._out.append(TextDelta(marker))
        block.attributed = self._base + pos + len(marker)
        block.char_before_marker = marker[-1]
        block.blank_so_far = False

    # --------------------------------------------------------------------------- reasoning

    def _open_reasoning(self, opener: str) -> None:
        """A reasoning span opens: its text is reasoning up to its closer, read by no reader."""
        self._out.append(ReasoningDelta("", len(opener)))
        self._block.attributed += len(opener)
        self._mode = _REASON
        self._skipper = self._reasoning_scanner(self._reasoning[opener])

    def _reasoning_scanner(self, closers: Sequence[str]) -> TextScanner:
        """The scanner of a reasoning span: its closers, and the special-token openers."""
        self._reason_closers = tuple(closers)
        return TextScanner((*closers, *self._reasoning_calls), mask_code=False)

    def _step_reasoning(self, buf: str, pos: int, final: bool) -> tuple[int, bool]:
        """Release reasoning text up to the span's closer (holding only a partial closer, and
        the tail from a special-token opener on)."""
        scanner = self._skipper
        assert scanner is not None
        end, marker_at = scanner.scan(buf, pos, final)
        cut = scanner.cut_marker  # a marker cut off by the end of the stream: markup
        if end - cut > pos:
            self._reasoning_text(buf[pos : end - cut])
        if cut:
            if self._held:
                self._reasoning_text(buf[end - cut : end])
            else:
                self._out.append(ReasoningDelta("", cut))
        if marker_at is None:
            if not self._held:
                self._block.attributed = self._base + end
            return end, False
        marker = scanner.matched
        stop = marker_at + len(marker)
        if marker not in self._reason_closers:  # a closer that is also an opener closes
            self._hold_reasoning_call(marker)
            return stop, True
        self._release_held()
        self._out.append(ReasoningDelta("", len(marker)))
        self._block.attributed = self._base + stop
        self._block.char_before_marker = "\n"
        self._mode = _TEXT
        self._skipper = None
        return stop, True

    def _reasoning_text(self, text: str) -> None:
        """Reasoning text: out at once, or held while a probe reads a possible call in it.

        Held text is given to the probes in pieces up to the fragment cap, each followed by
        releasing what dead probes held: the probes then meet the same text at the same held
        length whatever the chunking, and watching stops only when a live probe has read the
        cap whole (split-invariance)."""
        while text:
            if not self._held:
                self._out.append(ReasoningDelta(text))
                return
            room = self._max_fragment - self._held_length
            if room <= 0:
                self._stop_watching(text)
                return
            self._hold(text[:room])
            self._release_dead()
            text = text[room:]

    def _hold(self, text: str) -> None:
        """Hold `text` after the held reasoning, and let every probe read it."""
        self._held.append(text)
        self._held_length += len(text)
        for probe in self._probes:
            probe.feed(text)

    def _hold_reasoning_call(self, marker: str) -> None:
        """A special-token opener inside reasoning: probe it, and hold the text from it on."""
        if self._held_length + len(marker) > self._max_fragment:
            self._stop_watching(marker)
            return
        start = self._held_length
        self._hold(marker)
        if len(self._probes) < MAX_REASONING_CALL_STARTS:
            resolver = self._block.resolver
            probe = CallProbe(
                start,
                StreamParser(
                    self._syntax,
                    None if resolver.accepts_any else resolver.tools,
                    policy=self._block.chosen_policy,
                    max_fragment=self._max_fragment,
                ),
            )
            probe.feed(marker)
            self._probes.append(probe)
        self._release_dead()

    def _stop_watching(self, text: str) -> None:
        """Too long to be a call: reasoning, and no more watching in this span."""
        self._release_held()
        self._reasoning_text(text)
        self._skipper = TextScanner(self._reason_closers, mask_code=False)

    def _release_dead(self) -> None:
        """Release the held text before the first live probe's opener as reasoning."""
        self._probes = [p for p in self._probes if p.alive]
        if not self._probes:
            self._release_held()
            return
        first = self._probes[0].start
        if first:
            text = "".join(self._held)
            self._out.append(ReasoningDelta(text[:first]))
            self._block.attributed += first
            self._held = [text[first:]]
            self._held_length -= first
            for probe in self._probes:
                probe.start -= first

    def _release_held(self) -> None:
        """The held reasoning text is reasoning after all (the span closed, or it is too long)."""
        if self._held:
            text = "".join(self._held)
            self._held.clear()
            self._held_length = 0
            self._probes.clear()
            self._out.append(ReasoningDelta(text))
            self._block.attributed += len(text)

    def _settle_unclosed_reasoning(self) -> None:
        """The stream ended inside reasoning with a held tail: read it as calls when, from one
        of its special-token openers on, it is nothing but complete calls (and blanks)."""
        held = "".join(self._held)
        probes = list(self._probes)
        self._held.clear()
        self._held_length = 0
        self._probes.clear()
        for probe in probes:
            start = probe.start
            if probe.finish():
                if start:
                    self._out.append(ReasoningDelta(held[:start]))
                    self._block.attributed += start
                self._out.append(
                    Diagnostic(
                        "call_in_unclosed_reasoning",
                        "the output ended inside reasoning that ends with a tool call; "
                        "the call was recovered",
                        self._syntax.id,
                        {},
                        0,
                    )
                )
                # Read the tail as text would have been read: the same machinery, once.
                self._mode = _TEXT
                self._skipper = None
                self._buf = held[start:] + self._buf
                self._base -= len(held) - start
                self._run(final=True)
                return
        self._out.append(ReasoningDelta(held))
        self._block.attributed += len(held)

    # ------------------------------------------------------------------------------ blocks

    def _open_block(self, pos: int, marker: str) -> None:
        self._marker = marker
        self._block_start = self._base + pos
        self._fragment_end = self._block_start + self._max_fragment
        self._mode = _BLOCK
        block = self._block
        block.read_as(self._syntax)
        block.open(self._block_start)
        self._reader = self._syntax.new_reader(self._marker, block)

    def _apply_revert(self, buf: str, pos: int) -> tuple[str, int]:
        block = self._block
        consumed, rescan = block.reverted
        block.leave()
        self._leave_block()
        self._out.append(TextDelta(self._marker))
        block.char_before_marker = self._marker[-1]
        if rescan:
            # Put the consumed text back in front of the unconsumed rest and scan it again.
            rest = buf[pos:]
            new_buf = consumed + rest
            self._base = self._base + pos - len(consumed)
            block.attributed = self._base
            return new_buf, 0
        if consumed:
            self._out.append(TextDelta(consumed))
            block.char_before_marker = consumed[-1]
        block.attributed = self._base + pos
        return buf, pos

    def _leave_block(self) -> None:
        self._mode = _TEXT
        self._reader = None
        self._block.outcome = OPEN

    # ------------------------------------------------------------------- bounds and the end

    def _overflow(self, at: int) -> None:
        """The block outgrew the fragment cap: end it incomplete and skip to its closer."""
        assert self._reader is not None
        self._block.overflow(self._reader, self._base + at, self._max_fragment)
        self._mode = _SKIP
        self._reader = None
        self._skipper = TextScanner(
            self._syntax.closing_markers_after(self._marker), mask_code=False
        )

    def _step_skip(self, buf: str, pos: int, final: bool) -> tuple[int, bool]:
        assert self._skipper is not None
        end, marker_at = self._skipper.scan(buf, pos, final)
        if marker_at is None:
            # No closer in what is here: wait for more, or at the end let `finish` end the skip.
            # (Saying "go on" here at the end ran the loop forever.)
            return end, False
        stop = marker_at + len(self._skipper.matched)
        self._end_skip(stop)
        return stop, True

    def _end_skip(self, stop: int) -> None:
        block = self._block
        length = self._base + stop - block.attributed
        if length > 0:
            self._out.append(
                Diagnostic(
                    "overflow_skipped",
                    "the rest of an oversized call was discarded",
                    self._syntax.id,
                    {},
                    length,
                )
            )
        block.attributed = self._base + stop
        self._mode = _TEXT
        self._skipper = None


class CallProbe:
    """One special-token opener inside reasoning, read on as if it were text (see the module):
    alive while what follows it may still be nothing but complete, executable calls."""

    __slots__ = ("alive", "calls", "parser", "start")

    def __init__(self, start: int, parser: StreamParser) -> None:
        #: Where its opener begins in the parser's held reasoning text.
        self.start = start
        self.parser = parser
        self.alive = True
        self.calls = 0

    def feed(self, text: str) -> None:
        if self.alive:
            self._check(self.parser.feed(text))

    def finish(self) -> bool:
        """The stream ended: whether the text from the opener on is only complete calls."""
        if self.alive:
            self._check(self.parser.finish())
        return self.alive and self.calls > 0

    def _check(self, events: list[Event]) -> None:
        for e in events:
            if isinstance(e, ToolCallEnd):
                self.calls += e.call.executable
                self.alive = self.alive and e.call.executable
            elif isinstance(e, ReasoningDelta) or (isinstance(e, TextDelta) and e.text.strip()):
                self.alive = False


def schema_alias_notes(tools: Sequence[Tool], protocol: str) -> list[Diagnostic]:
    """One `tool_schema_type_alias` diagnostic per tool whose schema wrote type aliases
    (`"float"`, `"int"`, …) that toolmend read as the JSON Schema types they mean."""
    return [
        Diagnostic(
            "tool_schema_type_alias",
            f"tool {tool.name!r}: its schema's type names were read as JSON Schema types "
            f"({'; '.join(tool.type_aliases)})",
            protocol,
            {"tool": tool.name, "aliases": list(tool.type_aliases)},
        )
        for tool in tools
        if tool.type_aliases
    ]
