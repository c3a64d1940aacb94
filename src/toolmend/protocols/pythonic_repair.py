"""Rewrites pythonic call source Python cannot parse into source it can, naming each repair.

Models writing pythonic calls (Llama 3.2/4, LFM2, OLMo 3) put in string literals what a Python
string may not hold as written: raw line breaks (a multi-line shell command) and NUL, and
numbers Python 3 refuses (`month=07`). vLLM's LFM2 tests hold each of these as real model
output. A value may also hold its own quote unescaped (`command='sed -n '1,5p' f'`): there the
string's end is a guess, since more than one reading parses.

`repaired(source, guess=...)` makes one pass over the source and returns the rewritten source
with the repairs it made, or None when it changed nothing:

* without `guess`, strings end where Python ends them; raw line breaks, carriage returns and
  NUL inside them are escaped (`raw-control-in-string`), and leading zeros of an integer
  outside them dropped (`leading-zero-integer`). Both keep exactly what was written;
* with `guess`, a quote ends its string only where call syntax follows it (`,` and the next
  argument, `)` and the end of the call, `:`, `]`, `}`); any other is escaped
  (`unescaped-quote-in-string`). The result is marked `guess`: the caller flags such calls
  and never runs them.

It never parses calls (`pythonic` does, with `ast`), never looks up tools, and never evaluates
anything. Cost: one pass, jumping (`str.find`, one compiled pattern outside strings) from one quote,
backslash or zero to the next and escaping the text between in C: linear in the source, with
Python-level work per such character, not per character.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

RAW_CONTROL = "raw-control-in-string"
LEADING_ZERO = "leading-zero-integer"
OWN_QUOTE = "unescaped-quote-in-string"

#: Outside a string: where one opens, or zeros before an integer's digits (they lead it when
#: no word character or `.` stands before them: `07`, not `a07`, `1.07` or `1e07`).
_OUTSIDE = re.compile(r"'''|\"\"\"|['\"]|0+(?=[1-9]\d*(?![\w.]))")
_NUMBER_PART = re.compile(r"[\w.]")
#: Inside a string, the text between escapes and quotes (found with `str.find`) has its raw
#: control characters escaped with `str.replace`: both in C, whatever the text holds.
_CONTROLS = (("\n", "\\n"), ("\r", "\\r"), ("\x00", "\\x00"))
#: How many blanks after a quote the guess looks past: bounded, so that every quote costs a
#: bounded look-ahead and the pass stays linear.
MAX_BLANKS = 64
_BLANKS = rf"[ \t]{{0,{MAX_BLANKS}}}"
#: What follows a quote that ends a string in a call (the guess): blanks, then call syntax.
_ENDS_STRING = re.compile(
    rf"{_BLANKS}(?:"
    rf",{_BLANKS}(?:[A-Za-z_][\w.-]*[ \t]*[=(]|['\"\[{{\d-]|$)"
    rf"|\){_BLANKS}(?:[,\]\n]|$)"
    r"|[:\]}]"
    r"|$)"
)


@dataclass(frozen=True)
class Repaired:
    """Source rewritten so that Python parses it, and what was done to it."""

    source: str
    repairs: tuple[str, ...]
    #: A repair chose between readings (where a string ends): the calls must not run.
    guess: bool


def repaired(source: str, *, guess: bool) -> Repaired | None:
    """`source` with the repairs of the module docstring made, or None when none applied."""
    out: list[str] = []
    made: dict[str, None] = {}
    at = 0
    end = len(source)
    while at < end:
        m = _OUTSIDE.search(source, at)
        if m is None:
            break
        out.append(source[at : m.start()])
        token = m.group()
        if token.startswith("0"):
            if m.start() and _NUMBER_PART.match(source, m.start() - 1):
                out.append(token)  # inside a name or a number: as written
            else:
                made[LEADING_ZERO] = None
            at = m.end()
            continue
        if len(token) == 3:  # a triple-quoted string may hold line breaks and quotes
            close = source.find(token, m.end())
            stop = end if close < 0 else close + 3
            out.append(source[m.start() : stop])
            at = stop
            continue
        out.append(token)
        at = _string(source, m.end(), token, out, made, guess)
    out.append(source[at:])
    if not made:
        return None
    return Repaired("".join(out), tuple(made), guess and OWN_QUOTE in made)


def _string(
    source: str, at: int, quote: str, out: list[str], made: dict[str, None], guess: bool
) -> int:
    """Copies the string opened before `source[at]` to `out`, repaired; returns where the
    text after it starts (the end of the source when it never closes)."""
    end = len(source)
    q = -1  # the next quote, found once and kept while the copy has not reached it
    while True:
        if q < at:
            q = source.find(quote, at)
            if q < 0:
                q = end
        b = source.find("\\", at, q)
        if b >= 0:  # an escape pair, as written (it may be `\\'`, which is no closer)
            _plain(source[at:b], out, made)
            out.append(source[b : b + 2])
            at = b + 2
            continue
        _plain(source[at:q], out, made)
        if q == end:
            return end
        at = q + 1
        if not guess or _ENDS_STRING.match(source, at):
            out.append(quote)
            return at
        made[OWN_QUOTE] = None
        out.append("\\" + quote)


def _plain(text: str, out: list[str], made: dict[str, None]) -> None:
    """String content without escapes or quotes: its raw control characters escaped."""
    for raw, escaped in _CONTROLS:
        if raw in text:
            made[RAW_CONTROL] = None
            text = text.replace(raw, escaped)
    out.append(text)
