"""Scanning visible text for the opening markers of tool calls, with code left alone.

`TextScanner` owns two things that every protocol and leak recovery share:

* the marker search: find the earliest opening marker outside code, and hold back only the
  longest suffix that could still grow into a marker (everything before it is released at once);
* the code mask: inline backtick spans and fenced blocks (>= 3 backticks or tildes at line start,
  <= 3 leading spaces, longer closers accepted, CRLF handled) are text in which no marker counts.

Cost: every character is classified once. What is held back between feeds is bounded by named
constants (a partial marker, an undecided backtick run, an undecided fence line, an inline span
still looking for its closer), so re-reading it on the next feed keeps the total cost linear.
The scanner never interprets markers and never decides what a call is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

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
    buf: str, start: int, end: int, markers: Sequence[str], first_chars: str
) -> int:
    """Where the longest suffix of `buf[start:end]` that is a proper prefix of a marker begins.

    Returns `end` when no suffix could grow into a marker. Only the last `len(longest) - 1`
    characters are looked at, so the cost per call is bounded by the marker length.
    """
    if not markers:
        return end
    longest = max(len(m) for m in markers)
    for j in range(max(start, end - longest + 1), end):
        if buf[j] in first_chars and is_proper_prefix(buf[j:end], markers):
            return j
    return end


_SPACES = re.compile(r" {0,3}")
#: A run of one fence or code character, by character (matched from where counting resumes).
_RUNS = {"`": re.compile("`*"), "~": re.compile("~*")}
_LINE_BLANKS = re.compile(r"[ \t\r]*")


def _end_of(pattern: re.Pattern[str], buf: str, pos: int) -> int:
    """Where `pattern`, which matches the empty string, stops matching from `pos`."""
    return pattern.match(buf, pos).end()  # type: ignore[union-attr]  # it matches ""


# What the scanner was deciding when it held text back (`TextScanner._memo`'s first item).
_LINE_OPENER, _TICK_RUN, _INLINE_SPAN, _FENCE_CLOSER = range(4)


class TextScanner:
    """Finds opening markers in text outside code spans; see the module docstring.

    Held-back text is not re-read: when `scan()` holds text back it records how far it already
    looked into it (`_memo`, offsets from the held start), and the next `scan()`, which starts at
    that held text as the contract says, resumes there. So a run of 20,000 backticks fed one at a
    time costs 20,000 steps, not 200 million.
    """

    __slots__ = (
        "_cut_markers",
        "_fence_char",
        "_fence_len",
        "_first_chars",
        "_line_start",
        "_longer",
        "_longest",
        "_markers",
        "_mask_code",
        "_memo",
        "_mode",
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
    ) -> None:
        if any(not m for m in markers):
            raise ValueError("a TextScanner's markers must be non-empty strings")
        # No markers is allowed (e.g. a format whose markers are tool names, with no tools):
        # then nothing opens a block and the scanner only keeps the code mask.
        # Longest first, so a marker that is a prefix of another never shadows it.
        self._markers = tuple(sorted(set(markers), key=len, reverse=True))
        self._longest = len(self._markers[0]) if self._markers else 0
        self._first_chars = "".join(sorted({m[0] for m in self._markers}))
        #: The markers a cut-off prefix of counts as markup (`cut_marker`); default: all.
        self._cut_markers = self._markers if cut_markers is None else tuple(cut_markers)
        #: For a marker that begins a longer one: the longer ones (to wait for at a boundary).
        self._longer = {
            m: tuple(o for o in self._markers if len(o) > len(m) and o.startswith(m))
            for m in self._markers
        }
        alternatives = [re.escape(m) for m in self._markers]
        if mask_code:
            alternatives += ["`+", "\n"]
        self._search = re.compile("|".join(alternatives) or "(?!)")
        self._mask_code = mask_code
        self._mode = _NORMAL
        self._line_start = True
        self._fence_char = ""
        self._fence_len = 0
        #: (what, held length, offsets...) of the text the last `scan()` held back, or None.
        self._memo: tuple[int, ...] | None = None
        #: The marker found by the last `scan()` that returned a marker position.
        self.matched = ""
        #: After a final `scan()`: the length of the cut-off marker the text ends in (a proper
        #: prefix of a marker, at least `MIN_CUT_MARKER` long), else 0. It is inside the text
        #: released; the caller decides what it is (the parser strips and records it).
        self.cut_marker = 0

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
            if self._mode == _FENCE:
                i, done = self._scan_fence(buf, i, final, _resumed(memo, _FENCE_CLOSER))
                memo = None
                if not done:
                    return i, None
                continue
            if self._line_start and self._mask_code:
                decided, i = self._at_line_start(buf, i, final, _resumed(memo, _LINE_OPENER))
                memo = None
                if not decided:
                    return i, None
                if self._mode == _FENCE:
                    continue
            run = _resumed(memo, _TICK_RUN)
            span = _resumed(memo, _INLINE_SPAN)
            memo = None
            if run is not None:  # the held backtick run at `i`, counted up to `run[0]`
                start, tok_end = i, _end_of(_RUNS["`"], buf, i + run[0])
                tok = "`"
            elif span is not None:  # the held inline span at `i`: its opener is `span[0]` long
                start, tok_end = i, i + span[0]
                tok = "`"
            else:
                m = self._search.search(buf, i)
                if m is None:
                    return self._hold_partial_marker(buf, i, n, final), None
                tok, start, tok_end = m.group(), m.start(), m.end()
            if tok == "\n":
                self._line_start = True
                i = tok_end
                continue
            if tok[0] == "`" and self._mask_code:
                if tok_end == n and not final:
                    self._memo = (_TICK_RUN, n - start, n - start)
                    return start, None  # the run may still grow
                self._line_start = False
                ticks = tok_end - start
                resume = tok_end if span is None else i + span[1]
                end, looked = self._inline_code_end(buf, tok_end, ticks, resume, final)
                if end is None:
                    self._memo = (_INLINE_SPAN, n - start, ticks, looked - start)
                    return start, None  # still looking for the closer
                i = end
                continue
            longer = self._longer.get(tok)
            ahead = buf[start : start + self._longest]  # no more can matter, so copy no more
            if longer and not final and is_proper_prefix(ahead, longer):
                return start, None  # a longer marker may still complete here
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

    def _at_line_start(
        self, buf: str, i: int, final: bool, memo: tuple[int, ...] | None
    ) -> tuple[bool, int]:
        """At a line start: open a fence if one starts here. Returns (decided, position).

        `memo` (offsets from `i`): where the run of fence characters starts, how far it was
        counted, and how far its info string was searched, when this line was held before.
        """
        n = len(buf)
        if memo is not None:
            j, k, looked = i + memo[0], i + memo[1], i + memo[2]
        else:
            j = _end_of(_SPACES, buf, i)
            if j == n and not final:
                return False, i
            k = looked = j
        char = buf[j] if j < n else ""
        if char in _RUNS:
            k = _end_of(_RUNS[char], buf, k)
        if k == n and k > j and not final:
            self._memo = (_LINE_OPENER, n - i, j - i, k - i, k - i)
            return False, i  # the run may still grow
        if k - j < 3:
            self._line_start = False  # no fence: backticks here are inline code, if anything
            return True, i
        if char == "`":
            # A backtick fence's info string has no backtick; else this is an inline span.
            # Only the first `MAX_FENCE_LINE_LOOKAHEAD` characters of the line decide, however
            # much of it is there: the same decision whether it came whole or in pieces.
            limit = i + MAX_FENCE_LINE_LOOKAHEAD
            looked = max(looked, k)
            eol = buf.find("\n", looked, limit)
            stop = min(n, limit) if eol == -1 else eol
            if buf.find("`", looked, stop) != -1:
                self._line_start = False
                return True, i
            if eol == -1 and not final and n < limit:
                self._memo = (_LINE_OPENER, n - i, j - i, k - i, n - i)
                return False, i
        self._mode = _FENCE
        self._fence_char = char
        self._fence_len = k - j
        self._line_start = False
        return True, k

    def _scan_fence(
        self, buf: str, i: int, final: bool, memo: tuple[int, ...] | None
    ) -> tuple[int, bool]:
        """Inside a fenced block: find the closing line. Returns (position, left_the_fence).

        `memo` (offsets from `i`): where the held line's run starts, how far it was counted
        and how far the blanks after it were read.
        """
        n = len(buf)
        while i < n:
            if self._line_start:
                if memo is not None:
                    j, k, looked = i + memo[0], i + memo[1], i + memo[2]
                    memo = None
                else:
                    j = _end_of(_SPACES, buf, i)
                    k = looked = j
                k = _end_of(_RUNS[self._fence_char], buf, k)
                if k == n and not final:
                    self._memo = (_FENCE_CLOSER, n - i, j - i, k - i, k - i)
                    return i, False  # undecided: the line may still be a closer
                if k - j >= self._fence_len:
                    blank_end = _end_of(_LINE_BLANKS, buf, max(k, looked))
                    if blank_end == n and not final:
                        self._memo = (_FENCE_CLOSER, n - i, j - i, k - i, n - i)
                        return i, False
                    if blank_end == n or buf[blank_end] == "\n":
                        self._mode = _NORMAL
                        self._line_start = True
                        return min(n, blank_end + 1), True
                self._line_start = False
            eol = buf.find("\n", i)
            if eol == -1:
                return n, False
            i = eol + 1
            self._line_start = True
        return i, False

    def _inline_code_end(
        self, buf: str, i: int, ticks: int, resume: int, final: bool
    ) -> tuple[int | None, int]:
        """Where an inline span opened by `ticks` backticks at `i` ends (after its closer).

        The search for the closer starts at `resume` (what is before it was searched already).
        Returns `(i, _)` (the opener was literal) when no closer comes on this line or within
        the lookahead bound, and `(None, looked)` when more input is needed to decide, with
        `looked` the position the search resumes from next time.
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
                    return i, j
                return None, stop
            k = _end_of(_RUNS["`"], buf, tick)
            if k == n and not final:
                return None, tick
            if k - tick == ticks:
                return k, k
            j = k


def _resumed(memo: tuple[int, ...] | None, what: int) -> tuple[int, ...] | None:
    """The offsets of `memo` when it was recorded by the step `what`, else None."""
    if memo is None or memo[0] != what:
        return None
    return memo[2:]
