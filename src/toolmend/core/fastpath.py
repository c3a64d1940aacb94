"""The fast path for streamed string values: a format declares how a value is written, once.

A long argument (a file being written) arrives in thousands of small deltas. While a reader
streams a string value, it declares the value's syntax as a `ValueText`: the literal `stops`
that end it and its `Escapes` (JSON backslashes, XML entities). From that the parser's `feed()`
takes each chunk that is certainly plain value text without calling the reader, at a few
function calls per delta. This module compiles the declaration into the patterns that decide
it (cached), and holds the `ValueRun` state of one streaming value. The loop that applies a run
to a fed chunk is in `StreamParser.feed` (`core/engine.py`), its only user. A reader without a
run is still correct and linear; the fast path only skips work.

What the patterns promise, for every chunk (the held-back rest of the buffer, then the new
chunk): `verbatim` finds nothing in it only when it is value text that decodes to itself;
`plain` matches a prefix only when that prefix is value text whatever follows (a stop's first
character is plain only where the characters present rule out every stop); `pending` matches a
rest the reader would only hold back (a proper prefix of a stop, an unfinished escape, held
layout), at most `MAX_PENDING` characters, which waits in the buffer for the next chunk.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

#: A run keeps at most this much unread input waiting (its `pending` rest) instead of calling
#: the reader, so a long run of it cannot make each feed copy a growing buffer.
MAX_PENDING = 64


@dataclass(frozen=True, slots=True)
class Escapes:
    """How a format escapes text inside a string value.

    `starts`: the literal texts that begin an escape (never plain by themselves); `complete`: a
    regex of one complete escape, without capturing groups (each one doubles a match's cost);
    `unfinished`: a regex of an escape still being written at the end of a chunk; `decode`:
    reads a text holding complete escapes (None: the escapes stand for themselves).
    """

    starts: tuple[str, ...]
    complete: str
    unfinished: str = ""
    decode: Callable[[str], str] | None = None
    #: The first characters of `starts`, computed once: every streamed value asks for them.
    start_chars: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "start_chars", "".join(sorted({s[0] for s in self.starts})))


NO_ESCAPES = Escapes((), "")


@dataclass(frozen=True)
class ValueText:
    """How one format writes a string value: where it ends and what is not plain in it.

    `stops`: literal texts that end the value (its closer, and any marker that would end it);
    `escapes`: its escape syntax; `held`: characters the reader keeps back at the end of a
    chunk (layout such as a final newline it may trim before the closer); `trailing`: layout
    the reader keeps back only when a possible stop follows it (it waits with that stop);
    `hold`: characters whose trailing run the reader keeps back from the argument stream (text
    that may turn out to be structure), shared with the run through `ValueRun.held`.
    """

    stops: tuple[str, ...]
    escapes: Escapes = NO_ESCAPES
    held: str = ""
    trailing: str = ""
    hold: str = ""

    #: The compiled patterns (see the module docstring), built when the declaration is: a
    #: format declares its values at import, so no parse pays for compiling them.
    plain: re.Pattern[str] = field(init=False, repr=False, compare=False)
    pending: re.Pattern[str] = field(init=False, repr=False, compare=False)
    verbatim: re.Pattern[str] = field(init=False, repr=False, compare=False)
    #: What every `ValueRun` of it copies: `plain`, the decoder, the escapes' first characters
    #: (`decode` runs only on text holding one), `hold`, `pending`, `verbatim`.
    run_fields: tuple[
        re.Pattern[str],
        Callable[[str], str] | None,
        str,
        str,
        re.Pattern[str],
        re.Pattern[str],
    ] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        e = self.escapes
        plain = plain_text_pattern(
            (*self.stops, *e.starts), held=self.held, allowed=e.complete, hold=self.hold
        )
        pending = pending_pattern(
            self.stops,
            held="".join(sorted(set(self.held + self.trailing + self.hold))),
            extra=e.unfinished,
        )
        verbatim = verbatim_pattern(
            self.stops, exclude=e.start_chars, held=self.held, hold=self.hold
        )
        object.__setattr__(self, "plain", plain)
        object.__setattr__(self, "pending", pending)
        object.__setattr__(self, "verbatim", verbatim)
        run = (plain, e.decode, e.start_chars, self.hold, pending, verbatim)
        object.__setattr__(self, "run_fields", run)


class ValueRun:
    """One streaming value's fast-path state (made by `BlockContext.stream_value`).

    `sinks` get plain text as written, `decoded_sinks` its decoded text. `held` is the trailing
    run of `hold` characters kept back from the argument stream, shared with the reader. Every
    streamed value makes one, so it is built from its `ValueText`'s precomputed `run_fields`
    in one step.
    """

    __slots__ = (
        "all_sinks",
        "decode",
        "decoded_sinks",
        "escape",
        "held",
        "hold",
        "pattern",
        "pending",
        "sinks",
        "verbatim",
    )

    def __init__(
        self, text: ValueText, sinks: tuple[list[str], ...], decoded_sinks: tuple[list[str], ...]
    ) -> None:
        self.pattern, self.decode, self.escape, self.hold, self.pending, self.verbatim = (
            text.run_fields
        )
        self.sinks = sinks
        self.decoded_sinks = decoded_sinks
        #: `sinks` then `decoded_sinks`: where a verbatim chunk (its own decoding) goes.
        self.all_sinks = sinks + decoded_sinks
        self.held = ""


@lru_cache(maxsize=256)
def verbatim_pattern(
    stops: tuple[str, ...], *, exclude: str = "", held: str = "", hold: str = ""
) -> re.Pattern[str]:
    """The search that finds what keeps a chunk from being taken as it is.

    It finds where a stop may begin (its first character followed by the second character of
    one, or at the end of the chunk), an `exclude` character (one that begins an escape), a
    `held` character at the end of the chunk and a chunk made of `hold` characters only.
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
    stops: tuple[str, ...], *, held: str = "", allowed: str = "", hold: str = ""
) -> re.Pattern[str]:
    """The pattern of a chunk prefix that is value text as written.

    The value ends at any of the literal `stops`: the text holds none and does not end in a
    proper prefix of one. `allowed` is a regex of sequences that are plain anyway, tried first
    (complete escapes). The text does not end in a character of `held` and is not made of
    `hold` characters only.
    """
    firsts = sorted({s[0] for s in stops})
    alternatives = [allowed] if allowed else []
    special = "".join(firsts) + held
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
    """A rest that a reader only holds back: `held` characters, then a proper prefix of a stop,
    or `held` characters then `extra` (an unfinished escape)."""
    prefixes = sorted({s[:i] for s in stops for i in range(1, len(s))}, key=len, reverse=True)
    lead = f"[{re.escape(held)}]*" if held else ""
    alternatives = [f"{lead}(?:{'|'.join(map(re.escape, prefixes))})?" if prefixes else lead]
    if extra:
        alternatives.append(f"{lead}(?:{extra})")
    return re.compile("|".join(a for a in alternatives if a) or "(?!)")
