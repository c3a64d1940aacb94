"""Scanning visible text for the opening markers of tool calls, with code left alone.

`TextScanner` owns two things that every protocol and leak recovery share:

* the marker search: find the earliest opening marker outside code, and hold back only the
  longest suffix that could still grow into a marker (everything before it is released at once);
* the code mask: inline backtick spans and fenced blocks (>= 3 backticks or tildes at line start,
  <= 3 leading spaces, longer closers accepted, CRLF handled) are text in which no marker counts.
  A marker that is itself a fence opener (```` ```tool_code ````: a fence some models write
  their calls in) counts only there, at a line start and as the line's whole info string;
  anywhere else it is code like any fence.

Cost: every character is classified once. What is held back between feeds is bounded by named
constants (a partial marker, an undecided fence line's info string, an inline span still looking
for its closer) and never re-read; runs of backticks, tildes or blanks are released as they come
and only counted, so no feed copies or scans a growing buffer.
The scanner never interprets markers and never decides what a call is.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence

#: An inline code span must close within this many characters on its line, else its opening
#: backticks are literal text. Bounds what is held back while waiting for a closer.
MAX_INLINE_CODE_LOOKAHEAD = 2048
#: At the end of the stream, text ending in a proper prefix of a marker at least this long
#: (`<|clo`, `<tool_c`) is a marker cut off by the end, not prose: `<`, `<t`, `<|` are ordinary
#: in code and prose, four characters of a marker are not. See `TextScanner.cut_marker`; only
#: markers that are markup only count (a tool-name tag `<get_weather>` is a word, too).
MIN_CUT_MARKER = 4
#: A fence opener line longer than this is decided without seeing its end (a backtick fence's
#: info string may not contain backticks; past this length we stop waiting to find out).
MAX_FENCE_LINE_LOOKAHEAD = 512

_NORMAL, _FENCE = 0, 1


_BLANKS = re.compile(r"[ \t\r\n]*")


def skip_blanks(buf: str, pos: int, end: int) -> int:
    """The position after the spaces, tabs and line breaks at `buf[pos:end]`."""
    return _BLANKS.match(buf, pos, end).end()  # type: ignore[union-attr]  # it matches ""


def is_proper_prefix(text: str, literals: Sequence[str]) -> bool:
    """`text` is a proper prefix of one of `literals`: more input may still complete it."""
    return any(len(x) > len(text) and x.startswith(text) for x in literals)


def partial_marker_start(
    buf: str, start: int, end: int, markers: Sequence[str], first_chars: str | None = None
) -> int:
    """Where the longest suffix of `buf[start:end]` that is a proper prefix of a marker begins.

    Returns `end` when no suffix could grow into a marker. Only the last `len(longest) - 1`
    characters are looked at, and only where one of `first_chars` (default: the markers' first
    characters) stands (found by one regex search each), each tested by one set lookup: this
    runs at the end of every fed chunk of prose, so its cost per call is bounded by the marker
    length and is mostly one search.
    """
    if not markers:
        return end
    prefixes, longest, firsts = _marker_prefixes(
        markers if isinstance(markers, tuple) else tuple(markers)
    )
    firsts = firsts if first_chars is None else first_chars
    j = max(start, end - longest + 1)
    if len(firsts) == 1:  # most closers: one `str.find` per candidate, no pattern
        j = buf.find(firsts, j, end)
        while j >= 0:
            if buf[j:end] in prefixes:
                return j
            j = buf.find(firsts, j + 1, end)
        return end
    search = _any_of(firsts).search
    hit = search(buf, j, end)
    while hit is not None:
        j = hit.start()
        if buf[j:end] in prefixes:
            return j
        hit = search(buf, j + 1, end)
    return end


def find_closer(
    buf: str, pos: int, end: int, closers: tuple[str, ...], *, final: bool = False
) -> tuple[int, str]:
    """The first of `closers` in `buf[pos:end]`: `(where it begins, which one)`.

    When none is there, `(stop, "")`: the text before `stop` can be released now, and
    `buf[stop:end]` is the longest suffix that could still grow into a closer, held back until
    more input arrives (none when `final`: then `stop` is `end`). This is the one way a reader
    holds back a possibly partial closer at the end of a chunk; split anywhere, the closer is
    found where it is and never released as text. At the same position the closer listed first
    wins. Cost: one `str.find` (one closer), one regex search over the new text (several), or
    over a long text dense in the closers' first characters one `str.find` per closer up to
    the first closer (`_first_by_finds`), then at most `len(longest closer)` characters looked
    at.
    """
    if len(closers) == 1:
        closer = closers[0]
        at = buf.find(closer, pos, end)
        if at >= 0:
            return at, closer
    else:
        if end - pos > FIND_SPAN and _dense_in_starts(buf, pos, closers):
            at, closer = _first_by_finds(buf, pos, end, closers)
            longest = _closer_search(closers)[1]
        else:
            search, longest = _closer_search(closers)
            m = search(buf, pos, end)
            at, closer = (m.start(), m.group()) if m is not None else (-1, "")
        if closer:
            # A closer inside a longer one (`"` in `<|"|>`): a cut-off longer closer that
            # begins earlier may still complete, and would then be the first. It begins in
            # the last `longest - 1` characters, so only a closer found there is in doubt.
            if not final and at > end - longest:
                held = partial_marker_start(buf, pos, end, closers)
                if held < at:
                    return held, ""
            return at, closer
    return (end if final else partial_marker_start(buf, pos, end, closers)), ""


#: Past this many characters `find_closer` may look for several closers with one `str.find`
#: each rather than one regex search (`_dense_in_starts` decides), and the first this many
#: characters are its sample of the text. A long value (a file being written, read in one
#: piece) is most of what a batch parse reads.
FIND_SPAN = 1024
#: A regex search costs about as much per character that begins a closer, where it tries its
#: alternatives, as this many characters cost one `str.find` (measured here on CPython 3.11:
#: about 0.019 µs per stop against 0.00035 µs per character and closer).
STOP_COST_IN_FINDS = 53


def _dense_in_starts(buf: str, pos: int, closers: tuple[str, ...]) -> bool:
    """Whether `buf` from `pos` holds the closers' first characters so often that one
    `str.find` per closer costs less than one regex search, which stops at each of them: true
    of markup written as a value (`<` every few characters), false of code or prose (a `<`
    now and then), where the search is about three times faster. Judged on the first
    `FIND_SPAN` characters; either way the cost stays linear, at worst about three times the
    other way's."""
    stop = pos + FIND_SPAN
    starts = sum(buf.count(c, pos, stop) for c in _marker_prefixes(closers)[2])
    return starts * STOP_COST_IN_FINDS > (len(closers) - 1) * FIND_SPAN


def _first_by_finds(buf: str, pos: int, end: int, closers: tuple[str, ...]) -> tuple[int, str]:
    """The first of `closers` in `buf[pos:end]` as its regex search finds it (the closer
    listed first winning at one position), or `(-1, "")`: one `str.find` per closer, each
    stopping at the best closer found so far. It looks window by window (each twice as wide as
    the last), so the cost stays linear in how far the first closer is, not in the text left."""
    start, width = pos, FIND_SPAN
    while start < end:
        stop = min(end, start + width)
        best, found = stop, ""  # closers beginning in buf[start:stop]
        for closer in closers:
            at = buf.find(closer, start, min(end, best + len(closer) - 1))
            if 0 <= at < best:
                best, found = at, closer
        if found:
            return best, found
        start, width = stop, width * 2
    return -1, ""


def closers(*literals: str) -> tuple[str, ...]:
    """Declare, at import, closers a reader passes to `find_closer`: their search is compiled
    now rather than on a parse's first use (the way a `ValueText` is)."""
    if len(literals) > 1:
        _closer_search(literals)
    _marker_prefixes(literals)
    return literals


@functools.lru_cache(maxsize=256)
def _closer_search(
    literals: tuple[str, ...],
) -> tuple[Callable[[str, int, int], re.Match[str] | None], int]:
    """`find_closer`'s search for any of `literals` (the first listed winning at one
    position) and their longest length, in one cache lookup (cached like `_marker_prefixes`):
    a reader asks at every value and every fed chunk."""
    pattern = re.compile("|".join(map(re.escape, literals)))
    return pattern.search, max(map(len, literals))


@functools.lru_cache(maxsize=256)
def _marker_prefixes(markers: tuple[str, ...]) -> tuple[frozenset[str], int, str]:
    """Every proper prefix of `markers`, the longest marker's length and their first characters.

    Cached: a process has a few fixed marker sets (one per protocol and `auto`), asked about
    on every feed.
    """
    prefixes = frozenset(m[:k] for m in markers for k in range(1, len(m)))
    firsts = "".join(sorted({m[0] for m in markers}))
    return prefixes, max(len(m) for m in markers), firsts


@functools.lru_cache(maxsize=256)
def _any_of(chars: str) -> re.Pattern[str]:
    """A pattern matching any one of `chars` (cached like `_marker_prefixes`)."""
    return re.compile("[" + re.escape(chars) + "]") if chars else re.compile("(?!)")


#: Characters of a marker's start that `plain_extent` looks for (the first is not enough: `a`
#: begins the missing-angle `antml:invoke`, and `and` must not send prose the long way).
EVENTFUL_PREFIX = 4


@functools.lru_cache(maxsize=256)
def _eventful(
    markers: tuple[str, ...], mask_code: bool, guards: tuple[tuple[str, str], ...] = ()
) -> re.Pattern[str]:
    """A pattern found wherever a marker could begin (its first `EVENTFUL_PREFIX` characters,
    or a part of them that the text ends in) and, when code is masked, at a backtick or a line
    break.

    The alternatives are written as a trie (`<(?:\\|(?:c(?:a|\\Z)|...)|t(?:o|\\Z))|...`): `re`
    tries a flat alternation's branches one after another at every candidate position, so with
    `auto`'s ~70 markers a prose delta full of `t`s cost about 3.7 µs; the trie tries one
    branch per character (0.9 µs). Only where a match begins matters, and whether it is a
    marker's proper prefix ending the text (`plain_extent`), so a branch that already matches
    whatever follows keeps none of its longer ones (such a match needs the scan). Every
    top-level branch begins with a literal character, so `re` skips ahead by that set.

    A short marker with a guard (`TextScanner`'s `guards`) is found only where its guard, a
    lookahead, matches what follows it.
    """
    short = _short_markers(markers, mask_code)
    guarded = {marker: guard for marker, guard in guards if marker in short}
    root: _Trie = {}
    for marker in markers:
        if marker not in guarded:
            _trie_add(root, marker[:EVENTFUL_PREFIX], _ANYTHING)
        for k in range(1, min(len(marker), EVENTFUL_PREFIX)):
            _trie_add(root, marker[:k], _AT_END)
    if mask_code:
        _trie_add(root, "`", _ANYTHING)
        _trie_add(root, "\n", _ANYTHING)
    branches = _trie_branches(root)
    branches += [f"{re.escape(m)}(?={guard})" for m, guard in sorted(guarded.items())]
    return re.compile("|".join(branches) or "(?!)")


@functools.lru_cache(maxsize=256)
def _short_markers(markers: tuple[str, ...], mask_code: bool) -> frozenset[str]:
    """The markers `_eventful` matches whole, that no longer marker begins with: where it finds
    one of them first, `scan` finds that marker (`TextScanner.plain_to_marker`)."""
    return frozenset(
        m
        for m in markers
        if len(m) <= EVENTFUL_PREFIX
        and not any(o != m and o.startswith(m) for o in markers)
        and not (mask_code and m[0] in "`\n")
    )


def _overlapped(marker: str, markers: tuple[str, ...]) -> bool:
    """Whether another marker may begin inside `marker`. The parser passes a refused marker
    whole, where a search that misses it resumes at its second character: only a marker
    nothing begins inside is guarded in `scan`'s search."""
    return any(
        other.startswith(marker[k:]) or marker[k:].startswith(other)
        for k in range(1, len(marker))
        for other in markers
    )


def _guarded_search(marker: str, guard: str, longer: tuple[str, ...]) -> str:
    """`scan`'s search for a guarded `marker`: where its guard matches what follows, or where
    the text ends inside one of the `longer` markers it begins."""
    rests: _Trie = {}
    for other in longer:
        rest = other[len(marker) :]
        for k in range(len(rest)):
            _trie_add(rests, rest[:k], _AT_END)
    inside = "|".join(_trie_branches(rests))
    return (
        f"{re.escape(marker)}(?={guard}|{inside})" if inside else f"{re.escape(marker)}(?={guard})"
    )


#: A trie of literal prefixes: a character leads to a subtrie; `_ANYTHING` marks a prefix found
#: whatever follows it, `_AT_END` one found only where the text ends.
_Trie = dict[str, "_Trie | bool"]
_ANYTHING, _AT_END = "", "\\Z"


def _trie_add(node: _Trie, text: str, mark: str) -> None:
    for char in text:
        child = node.setdefault(char, {})
        assert isinstance(child, dict)
        node = child
    node[mark] = True


def _trie_branches(node: _Trie) -> list[str]:
    """The alternatives of the pattern `node` stands for (sorted, so the pattern is stable)."""
    if _ANYTHING in node:
        return [""]
    branches = []
    for char, child in sorted(node.items()):
        if isinstance(child, dict):
            rest = _trie_branches(child)
            tail = rest[0] if len(rest) == 1 else "(?:" + "|".join(rest) + ")"
            branches.append(re.escape(char) + tail)
    if _AT_END in node:
        branches.append(r"\Z")
    return branches


#: What `_scan_plan` returns (see there).
_ScanPlan = tuple[
    tuple[str, ...],
    int,
    str,
    tuple[str, ...],
    dict[str, tuple[str, ...]],
    re.Pattern[str],
    re.Pattern[str],
]


@functools.lru_cache(maxsize=256)
def _scan_plan(
    markers: tuple[str, ...],
    mask_code: bool,
    cut_markers: tuple[str, ...] | None,
    guards: tuple[tuple[str, str], ...] = (),
) -> _ScanPlan:
    """What a `TextScanner` of `markers` reads with, built once per marker set (cached like
    `_marker_prefixes`: every parser of one protocol shares it, so constructing a parser
    compiles nothing). Never mutated.

    Returns the markers (longest first, so a marker that is a prefix of another never shadows
    it), the longest's length, their first characters, the markers a cut-off prefix of counts
    as markup (`cut_marker`; default: all), for a marker that begins longer ones those (to wait
    for at a boundary), the search for markers and code boundaries, and `_eventful`.
    """
    if any(not m for m in markers):
        raise ValueError("a TextScanner's markers must be non-empty strings")
    # No markers is allowed (e.g. a format whose markers are tool names, with no tools):
    # then nothing opens a block and the scanner only keeps the code mask.
    ordered = tuple(sorted(set(markers), key=len, reverse=True))
    longer = {m: tuple(o for o in ordered if len(o) > len(m) and o.startswith(m)) for m in ordered}
    firsts = "".join(sorted({m[0] for m in ordered}))
    _any_of(firsts)  # what `partial_marker_start` searches with, compiled with the rest
    # A guarded marker is searched for only where its guard matches (as in `_eventful`), or
    # where the text ends inside a longer marker it begins (`[TOOL` of `[TOOL_CALLS]`, which
    # `scan` waits for): prose full of refused `{x}` is then one search, not a stop at every
    # brace.
    guarded = dict(guards)
    alternatives = [
        _guarded_search(m, guarded[m], longer[m])
        if m in guarded and not (mask_code and m[0] in "`\n") and not _overlapped(m, ordered)
        else re.escape(m)
        for m in ordered
    ]
    if mask_code:
        # "``*", not "`+": when every alternative begins with a literal character, `re`
        # skips ahead by that character set, 3-4x faster over prose than trying each
        # alternative at each position.
        alternatives += ["``*", "\n"]
    return (
        ordered,
        len(ordered[0]) if ordered else 0,
        firsts,
        ordered if cut_markers is None else cut_markers,
        longer,
        re.compile("|".join(alternatives) or "(?!)"),
        _eventful(ordered, mask_code, guards),
    )


@functools.lru_cache(maxsize=256)
def _fenced_plan(
    markers: tuple[str, ...],
    mask_code: bool,
    cut_markers: tuple[str, ...] | None,
    guards: tuple[tuple[str, str], ...] = (),
) -> tuple[tuple[str, ...], _ScanPlan]:
    """The markers that open a fence (longest first), and `_scan_plan` of the others: a
    scanner starts per parser, and `auto`'s parser has about 70 markers to sort out."""
    fences = tuple(m for m in markers if mask_code and m.startswith("`"))
    rest = tuple(m for m in markers if m not in fences)
    plan = _scan_plan(rest, mask_code, cut_markers, guards)
    return tuple(sorted(set(fences), key=len, reverse=True)), plan


_SPACES = re.compile(r" {0,3}")
#: A run of one fence or code character, by character (matched from where counting resumes).
_RUNS = {"`": re.compile("`*"), "~": re.compile("~*")}
_LINE_BLANKS = re.compile(r"[ \t\r]*")


def _end_of(pattern: re.Pattern[str], buf: str, pos: int) -> int:
    """Where `pattern`, which matches the empty string, stops matching from `pos`."""
    return pattern.match(buf, pos).end()  # type: ignore[union-attr]  # it matches ""


# What the scanner keeps between feeds. A run of backticks or tildes is text whatever it turns
# out to be, so it is released as it comes and only counted (`TextScanner._run`); text that may
# still change meaning is held back and `_memo` says how far it was already looked into.
_TICK_RUN, _LINE_OPENER, _FENCE_CLOSER, _CLOSER_BLANKS = range(4)  # `_run` kinds
_HELD_INFO, _HELD_SPAN = range(2)  # `_memo` kinds


class TextScanner:
    """Finds opening markers in text outside code spans; see the module docstring.

    Nothing is read twice: a run of backticks, tildes or closer blanks is released as it comes
    and only counted (`_run`), and held-back text (an inline span's content, a fence line's info
    string, both bounded) records how far it was searched (`_memo`), so the next `scan()`, which
    starts at that held text as the contract says, resumes there. 20,000 backticks fed one at a
    time cost 20,000 steps and hold nothing.

    `guards` maps a marker (a bare `{`) to a lookahead its following text must match for the
    scanner to see it: the caller takes that marker as text elsewhere (the parser's
    `BodyStart`), so prose full of `{x}` stays one search, in `plain_extent` and
    `plain_to_marker` (short markers) and in `scan` (any marker nothing begins inside). A guard
    may match more than where the marker opens, never less: where it matches, the marker is
    reported and the caller decides.
    """

    __slots__ = (
        "_call_fences",
        "_cut_markers",
        "_eventful",
        "_fence_char",
        "_fence_hit",
        "_fence_len",
        "_first_chars",
        "_line_start",
        "_longer",
        "_longest",
        "_markers",
        "_mask_code",
        "_memo",
        "_mode",
        "_run",
        "_search",
        "cut_marker",
        "matched",
    )

    def __init__(
        self,
        markers: Sequence[str],
        *,
        mask_code: bool = True,
        cut_markers: Sequence[str] | None = None,
        guards: Mapping[str, str] | None = None,
    ) -> None:
        #: Markers that open a fence: found only at a line start, by the fence logic.
        self._call_fences, plan = _fenced_plan(
            tuple(markers),
            mask_code,
            None if cut_markers is None else tuple(cut_markers),
            tuple(sorted(guards.items())) if guards else (),
        )
        #: A call fence found at a line start: (where it begins, the marker).
        self._fence_hit: tuple[int, str] | None = None
        (
            self._markers,
            self._longest,
            self._first_chars,
            self._cut_markers,
            self._longer,
            self._search,
            self._eventful,
        ) = plan
        self._mask_code = mask_code
        self._mode = _NORMAL
        self._line_start = True
        self._fence_char = ""
        self._fence_len = 0
        #: A run still growing at the end of the last feed: (kind, char, length, line used).
        self._run: tuple[int, str, int, int] | None = None
        #: (kind, held length, ...) of the text the last `scan()` held back, or None.
        self._memo: tuple[int, ...] | None = None
        #: The marker found by the last `scan()` that returned a marker position.
        self.matched = ""
        #: After a final `scan()`: the length of the cut-off marker the text ends in (a proper
        #: prefix of a marker, at least `MIN_CUT_MARKER` long), else 0. It is inside the text
        #: released; the caller decides what it is (the parser strips and records it).
        self.cut_marker = 0

    def plain_extent(self, text: str) -> int:
        """How much of `text` (the whole buffer, passed back as `scan` asks) `scan` would
        release as plain text, ending in the state it is in now; -1 when only `scan` can tell.

        `len(text)` when no character of it can begin a marker, a code span or a line;
        less when all that can is a proper prefix of a marker at its very end (at most
        `EVENTFUL_PREFIX` characters, what `scan` would hold back too: the caller keeps it for
        the next call). Needs no run or held text pending, outside fences, not at a line
        start. One search, for the prose delta that is most of a stream."""
        if self._run is not None or self._memo is not None or self._mode != _NORMAL:
            return -1
        if self._line_start:
            return -1
        # Prose ending in `a`, `t` or `f` (`antml:invoke`, `to=functions.`, `functools[`) is
        # most of the text that is not plain whole: its tail is held here, not by a full scan.
        m = self._eventful.search(text)
        if m is None:
            return len(text)
        tail = m.group()
        at_end = m.end() == len(text) and tail not in self._longer  # and not a whole marker
        return m.start() if at_end and tail in _marker_prefixes(self._markers)[0] else -1

    def plain_to_marker(self, text: str) -> int:
        """Where in `text` (the whole buffer, as for `plain_extent`) `scan` would find a marker
        after nothing but plain text, when one search tells: a whole marker of at most
        `EVENTFUL_PREFIX` characters that no longer one extends (a bare `{`). Then
        `matched` is that marker, as `scan` leaves it; else -1 (only `scan` can tell).
        The conditions of `plain_extent` hold here too."""
        if self._run is not None or self._memo is not None or self._mode != _NORMAL:
            return -1
        if self._line_start:
            return -1
        m = self._eventful.search(text)
        if m is None or m.group() not in _short_markers(self._markers, self._mask_code):
            return -1
        self.matched = m.group()
        return m.start()

    def scan(self, buf: str, pos: int, final: bool) -> tuple[int, int | None]:
        """Classify `buf[pos:]`. Returns `(end, marker_at)`.

        `buf[pos:end]` is plain text that can be released now. When `marker_at` is not None it
        equals `end` and `self.matched` is the marker starting there. Otherwise the caller keeps
        `buf[end:]` for the next call (it could still become a marker or a code boundary) and
        passes it back at `pos` (followed by new input) next time.
        """
        n = len(buf)
        i = pos
        memo, self._memo = self._memo, None
        self.cut_marker = 0
        if memo is not None and n - pos < memo[1]:
            memo = None  # not the held text (a caller that did not pass it back): look again
        while i < n:
            if self._run is not None:
                i, held = self._continue_run(buf, i, final)
                if held:
                    return i, None
                continue
            if self._mode == _FENCE:
                i, held = self._scan_fence(buf, i, final)
                if held:
                    return i, None
                continue
            if self._line_start and self._mask_code:
                i, held = self._at_line_start(buf, i, final, _resumed(memo, _HELD_INFO))
                memo = None
                if self._fence_hit is not None:
                    start, self.matched = self._fence_hit
                    self._fence_hit = None
                    return start, start
                if held:
                    return i, None
                if self._line_start or self._mode == _FENCE or self._run is not None:
                    continue
            span = _resumed(memo, _HELD_SPAN)
            memo = None
            if span is not None:  # the held content of an inline span opened by span[0] ticks
                i, held = self._inline_span(buf, i, span[0], i + span[1], final)
                if held:
                    return i, None
                continue
            m = self._search.search(buf, i)
            if m is None:
                return self._hold_partial_marker(buf, i, n, final), None
            tok, start, tok_end = m.group(), m.start(), m.end()
            if tok == "\n":
                self._line_start = True
                i = tok_end
                continue
            if tok[0] == "`":
                self._line_start = False
                if tok_end == n and not final:
                    self._run = (_TICK_RUN, "`", tok_end - start, 0)
                    return n, None  # the run may still grow: counted, not held
                i, held = self._inline_span(buf, tok_end, tok_end - start, tok_end, final)
                if held:
                    return i, None
                continue
            longer = self._longer.get(tok)
            ahead = buf[start : start + self._longest]  # no more can matter, so copy no more
            if longer and not final and is_proper_prefix(ahead, longer):
                return start, None  # a longer marker may still complete here
            if not final and n - start < self._longest:
                # A marker that began before this one and runs past it may still complete
                # (`call:` inside a `<tool_call:opensource>` still coming): the earlier marker
                # wins when the text comes whole, so it must win when it comes in pieces.
                earlier = partial_marker_start(buf, i, n, self._markers, self._first_chars)
                if earlier < start:
                    return earlier, None
            self._line_start = False
            self.matched = tok
            return start, start
        return i, None

    def _hold_partial_marker(self, buf: str, i: int, n: int, final: bool) -> int:
        """Release all of `buf[i:]` except the longest suffix that is a marker's proper prefix."""
        if final:
            cut = partial_marker_start(buf, i, n, self._cut_markers, self._first_chars)
            self.cut_marker = n - cut if n - cut >= MIN_CUT_MARKER else 0
            cut = n
        else:
            cut = partial_marker_start(buf, i, n, self._markers, self._first_chars)
        if cut > i:
            self._line_start = False
        return cut

    # ------------------------------------------------------------------------------ runs

    def _continue_run(self, buf: str, i: int, final: bool) -> tuple[int, bool]:
        """Count more of the run that was still growing; decide what it is once it ends."""
        assert self._run is not None
        kind, char, length, used = self._run
        n = len(buf)
        if kind == _CLOSER_BLANKS:
            self._run = None
            return self._after_closer_run(buf, i, final)
        k = _end_of(_RUNS[char], buf, i)
        length += k - i
        if k == n and not final:
            self._run = (kind, char, length, used + k - i)
            return n, False
        self._run = None
        if kind == _TICK_RUN:
            return self._inline_span(buf, k, length, k, final)
        if kind == _LINE_OPENER:
            return self._decide_opener(buf, k, char, length, used + k - i, k, final)
        if length >= self._fence_len:  # _FENCE_CLOSER
            return self._after_closer_run(buf, k, final)
        self._line_start = False
        return k, False

    # --------------------------------------------------------------------- fences, spans

    def _at_line_start(
        self, buf: str, i: int, final: bool, memo: tuple[int, ...] | None
    ) -> tuple[int, bool]:
        """At a line start: open a fence if one starts here. Returns (position, held).

        `memo`: a backtick fence line held while its info string is read (run length, line
        characters before the info string, how far it was searched).
        """
        if memo is not None:
            return self._decide_opener(buf, i, "`", memo[0], memo[1], i + memo[2], final)
        n = len(buf)
        j = _end_of(_SPACES, buf, i)
        if j == n and not final:
            return i, True  # at most three spaces
        if self._call_fences and j < n and buf[j] == "`":
            decided = self._call_fence(buf, j, final)
            if decided is not None:
                return i, decided
        char = buf[j] if j < n else ""
        if char not in _RUNS:
            self._line_start = False  # no fence here: the rest of the line is ordinary
            return i, False
        k = _end_of(_RUNS[char], buf, j)
        if k == n and not final:
            self._run = (_LINE_OPENER, char, k - j, k - i)
            return n, False  # the run may still grow: counted, not held
        return self._decide_opener(buf, k, char, k - j, k - i, k, final)

    def _call_fence(self, buf: str, j: int, final: bool) -> bool | None:
        """A call fence opening at `buf[j]`: found (`_fence_hit` set, False), undecided (True:
        hold the line), or not one (None: the line is read as usual)."""
        n = len(buf)
        for marker in self._call_fences:
            after = j + len(marker)
            if buf.startswith(marker, j):
                if after == n and not final:
                    return True  # the info string may go on (`tool_codes`)
                if after == n or buf[after] in " \t\r\n":
                    self._fence_hit = (j, marker)
                    self._line_start = False
                    return False
            elif not final and after > n and marker.startswith(buf[j:n]):
                return True
        return None

    def _decide_opener(
        self, buf: str, k: int, char: str, length: int, used: int, looked: int, final: bool
    ) -> tuple[int, bool]:
        """A run of `length` `char`s ended at `k`, `used` characters into its line."""
        self._line_start = False
        if length < 3:  # no fence: backticks here open an inline span, if anything
            return self._inline_span(buf, k, length, k, final) if char == "`" else (k, False)
        if char == "`":
            # A backtick fence's info string has no backtick; else this is an inline span. Only
            # the first `MAX_FENCE_LINE_LOOKAHEAD` characters of the line decide, however much
            # of it is there: the same decision whether it came whole or in pieces.
            n = len(buf)
            limit = k + max(0, MAX_FENCE_LINE_LOOKAHEAD - used)
            looked = max(looked, k)
            eol = buf.find("\n", looked, limit)
            stop = min(n, limit) if eol == -1 else eol
            if buf.find("`", looked, stop) != -1:
                return self._inline_span(buf, k, length, k, final)
            if eol == -1 and not final and n < limit:
                self._line_start = True  # still deciding this line
                self._memo = (_HELD_INFO, n - k, length, used, n - k)
                return k, True
        self._mode = _FENCE
        self._fence_char = char
        self._fence_len = length
        return k, False

    def _scan_fence(self, buf: str, i: int, final: bool) -> tuple[int, bool]:
        """Inside a fenced block: find the closing line. Returns (position, held)."""
        n = len(buf)
        while i < n and self._mode == _FENCE and self._run is None:
            if self._line_start:
                j = _end_of(_SPACES, buf, i)
                if j == n and not final:
                    return i, True  # at most three spaces
                k = _end_of(_RUNS[self._fence_char], buf, j)
                if k == n and k > j and not final:
                    self._run = (_FENCE_CLOSER, self._fence_char, k - j, 0)
                    return n, False  # the run may still grow: counted, not held
                self._line_start = False
                if k - j >= self._fence_len:
                    i, held = self._after_closer_run(buf, k, final)
                    if held:
                        return i, True
                    continue
            eol = buf.find("\n", i)
            if eol == -1:
                return n, False
            i = eol + 1
            self._line_start = True
        return i, False

    def _after_closer_run(self, buf: str, k: int, final: bool) -> tuple[int, bool]:
        """After a run long enough to close the fence: only blanks may end its line."""
        n = len(buf)
        blank_end = _end_of(_LINE_BLANKS, buf, k)
        if blank_end == n and not final:
            self._run = (_CLOSER_BLANKS, "", 0, 0)
            return n, False  # blanks are text either way: released, the decision waits
        if blank_end == n or buf[blank_end] == "\n":
            self._mode = _NORMAL
            self._line_start = True
            return min(n, blank_end + 1), False
        self._line_start = False  # not a closer: fence content
        return blank_end, False

    def _inline_span(
        self, buf: str, i: int, ticks: int, resume: int, final: bool
    ) -> tuple[int, bool]:
        """The content of an inline span opened by `ticks` backticks starts at `i`.

        Returns (after the closer, False) when a closer of exactly `ticks` backticks ends on
        this line within the lookahead bound; (i, False) when none can (the opener was
        literal, and what follows is ordinary text); (i, True) when more input is needed: the
        content is held and the search resumes where it stopped (`resume` next time).
        """
        n = len(buf)
        limit = i + MAX_INLINE_CODE_LOOKAHEAD
        stop = min(n, limit)
        j = resume
        eol = buf.find("\n", j, stop)
        if eol != -1:
            stop = eol
        while True:
            tick = buf.find("`", j, stop)
            if tick == -1:
                if eol != -1 or n >= limit or final:
                    return i, False
                self._memo = (_HELD_SPAN, n - i, ticks, stop - i)
                return i, True
            k = _end_of(_RUNS["`"], buf, tick)
            if k > limit:
                return i, False  # no closer can end inside the lookahead any more
            if k == n and not final:
                self._memo = (_HELD_SPAN, n - i, ticks, tick - i)
                return i, True
            if k - tick == ticks:
                return k, False
            j = k


def _resumed(memo: tuple[int, ...] | None, what: int) -> tuple[int, ...] | None:
    """The offsets of `memo` when it was recorded by the step `what`, else None."""
    if memo is None or memo[0] != what:
        return None
    return memo[2:]
