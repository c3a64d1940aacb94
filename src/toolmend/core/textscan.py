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


class TextScanner:
    """Finds opening markers in text outside code spans; see the module docstring."""

    __slots__ = (
        "_fence_char",
        "_fence_len",
        "_first_chars",
        "_line_start",
        "_longer",
        "_markers",
        "_mask_code",
        "_mode",
        "_search",
        "matched",
    )

    def __init__(self, markers: Sequence[str], *, mask_code: bool = True) -> None:
        if any(not m for m in markers):
            raise ValueError("a TextScanner's markers must be non-empty strings")
        # No markers is allowed (e.g. a format whose markers are tool names, with no tools):
        # then nothing opens a block and the scanner only keeps the code mask.
        # Longest first, so a marker that is a prefix of another never shadows it.
        self._markers = tuple(sorted(set(markers), key=len, reverse=True))
        self._first_chars = "".join(sorted({m[0] for m in self._markers}))
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
        #: The marker found by the last `scan()` that returned a marker position.
        self.matched = ""

    def scan(self, buf: str, pos: int, final: bool) -> tuple[int, int | None]:
        """Classify `buf[pos:]`. Returns `(end, marker_at)`.

        `buf[pos:end]` is plain text that can be released now. When `marker_at` is not None it
        equals `end` and `self.matched` is the marker starting there. Otherwise the caller keeps
        `buf[end:]` for the next call (it could still become a marker or a code boundary).
        """
        n = len(buf)
        i = pos
        while i < n:
            if self._mode == _FENCE:
                i, done = self._scan_fence(buf, i, final)
                if not done:
                    return i, None
                continue
            if self._line_start and self._mask_code:
                decided, i = self._at_line_start(buf, i, final)
                if not decided:
                    return i, None
                if self._mode == _FENCE:
                    continue
            m = self._search.search(buf, i)
            if m is None:
                return self._hold_partial_marker(buf, i, n, final), None
            tok = m.group()
            start = m.start()
            if tok == "\n":
                self._line_start = True
                i = m.end()
                continue
            if tok[0] == "`" and self._mask_code:
                if m.end() == n and not final:
                    return start, None  # the run may still grow
                self._line_start = False
                end = self._inline_code_end(buf, m.end(), len(tok), final)
                if end is None:
                    return start, None  # still looking for the closer
                i = end
                continue
            longer = self._longer.get(tok)
            if longer and not final and is_proper_prefix(buf[start:], longer):
                return start, None  # a longer marker may still complete here
            self._line_start = False
            self.matched = tok
            return start, start
        return i, None

    def _hold_partial_marker(self, buf: str, i: int, n: int, final: bool) -> int:
        """Release all of `buf[i:]` except the longest suffix that is a marker's proper prefix."""
        cut = n if final else partial_marker_start(buf, i, n, self._markers, self._first_chars)
        if cut > i:
            self._line_start = False
        return cut

    def _at_line_start(self, buf: str, i: int, final: bool) -> tuple[bool, int]:
        """At a line start: open a fence if one starts here. Returns (decided, position)."""
        n = len(buf)
        j = i
        while j < n and j - i < 3 and buf[j] == " ":
            j += 1
        if j == n and not final:
            return False, i
        char = buf[j] if j < n else ""
        k = j
        while k < n and buf[k] == char and char in "`~":
            k += 1
        if k == n and k > j and not final:
            return False, i  # the run may still grow
        if k - j < 3:
            self._line_start = False  # no fence: backticks here are inline code, if anything
            return True, i
        if char == "`":
            # A backtick fence's info string has no backtick; else this is an inline span.
            eol = buf.find("\n", k)
            if eol == -1 and not final and n - i < MAX_FENCE_LINE_LOOKAHEAD:
                return False, i
            if "`" in buf[k : n if eol == -1 else eol]:
                self._line_start = False
                return True, i
        self._mode = _FENCE
        self._fence_char = char
        self._fence_len = k - j
        self._line_start = False
        return True, k

    def _scan_fence(self, buf: str, i: int, final: bool) -> tuple[int, bool]:
        """Inside a fenced block: find the closing line. Returns (position, left_the_fence)."""
        n = len(buf)
        while i < n:
            if self._line_start:
                m = _SPACES.match(buf, i)
                j = m.end() if m else i
                k = j
                while k < n and buf[k] == self._fence_char:
                    k += 1
                if k == n and not final:
                    return i, False  # undecided: the line may still be a closer
                if k - j >= self._fence_len:
                    eol = buf.find("\n", k)
                    rest = buf[k : n if eol == -1 else eol]
                    if rest.strip(" \t\r") == "":
                        if eol == -1 and not final:
                            return i, False
                        self._mode = _NORMAL
                        self._line_start = True
                        return (n if eol == -1 else eol + 1), True
                self._line_start = False
            eol = buf.find("\n", i)
            if eol == -1:
                return n, False
            i = eol + 1
            self._line_start = True
        return i, False

    def _inline_code_end(self, buf: str, i: int, ticks: int, final: bool) -> int | None:
        """Where an inline span opened by `ticks` backticks at `i` ends (after its closer).

        Returns `i` (the opener was literal) when no closer comes on this line or within the
        lookahead bound, and None when more input is needed to decide.
        """
        n = len(buf)
        j = i
        limit = i + MAX_INLINE_CODE_LOOKAHEAD
        while True:
            tick = buf.find("`", j, min(n, limit))
            eol = buf.find("\n", j, min(n, limit))
            if eol != -1 and (tick == -1 or eol < tick):
                return i
            if tick == -1:
                if n >= limit or final:
                    return i
                return None
            k = tick
            while k < n and buf[k] == "`":
                k += 1
            if k == n and not final:
                return None
            if k - tick == ticks:
                return k
            j = k
