"""Incremental structural scanning of JSON-like argument text that arrives in pieces.

`JsonScan` follows strings, nesting and value boundaries of one or more values as they stream,
so a protocol can tell a closing marker outside a string from the same characters inside one,
and can stream a string value before it ends. It reports structure through overridable hooks;
it never decides what a value means, and builds no value itself: JSON readers decode the
retained text once, at the end; a language without a decoder (Gemma's) builds its values in
its hooks.

What it reads is an `ArgumentLanguage`: JSON by default; a language may add string forms
(`<|"|>raw<|"|>`, `'single'`), bare keys (`city:`) and bare words as values (`city:Paris`).

Cost: each character is looked at once. Inside a JSON string the scanner jumps from one `"` or
`\\` to the next; only an incomplete escape (at most 12 characters, a surrogate pair) is held
back. Other forms jump from one closer, backslash or stop marker to the next.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from toolmend.core.textscan import closers, find_closer, partial_marker_start, skip_blanks

#: The characters that end plain text inside a JSON string.
STRING_SPECIAL = re.compile(r'["\\]')
_VALID_ESCAPE = re.compile(r'\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})')
_HIGH_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}$")
_WS = " \t\r\n"


def decode_string_piece(raw: str) -> str | None:
    """Decode the inside of a JSON string literal (complete escapes only); None if invalid.

    A raw control character (a newline models write unescaped) is read as itself, with or
    without an escape beside it: pieces are cut wherever chunks end, so the decoding of each
    must not depend on what else shares its piece.
    """
    if "\\" not in raw:
        return raw
    try:
        value = json.loads('"' + raw + '"', strict=False)
    except ValueError:
        return None
    return value if isinstance(value, str) else None


@dataclass(frozen=True)
class StringForm:
    """One way a language writes a string: from `opener` to `closer`.

    `escapes`: a backslash takes the character after it along (kept raw; a key is decoded as
    JSON's). `values_only`: where a key is due, the opener is text of a bare key. `stops_end`:
    a stop marker inside ends the block (otherwise it is text of the string, reported by
    `on_stop_in_string`). `tail`: a token that, right after the closer, is taken with it
    (reported by `on_string_tail`).
    """

    opener: str
    closer: str
    escapes: bool = True
    values_only: bool = False
    stops_end: bool = False
    tail: str = ""


#: JSON's string: `"…"` with backslash escapes.
JSON_STRING = StringForm('"', '"')


@dataclass(frozen=True)
class ArgumentLanguage:
    """What `JsonScan` reads: JSON, or JSON with more string forms and bare tokens.

    `bare_keys`: a key may be written without quotes, up to its `:`. `bare_words`: a value may
    be a bare word, up to the next `,`, `}`, `]`, stop marker or multi-character opener (a
    one-character quote, a `:` or a brace inside it is text); `on_scalar` gets it.
    """

    strings: tuple[StringForm, ...] = (JSON_STRING,)
    bare_keys: bool = False
    bare_words: bool = False

    def prepare(self, stop_markers: Sequence[str]) -> ArgumentLanguage:
        """Compile now (at import, as `closers` does) the searches a `JsonScan` of this
        language with these stop markers reads with, rather than on a parse's first use."""
        _plan(self, tuple(stop_markers))
        return self


#: Plain JSON (the scanner's own fast path).
JSON = ArgumentLanguage()

#: What `JsonScan.expecting` answers: a key, the `:` after one, or a value comes next.
KEY, COLON, VALUE = range(3)
_BARE_KEY, _BARE_WORD = 1, 2


@dataclass(frozen=True)
class _Plan:
    """A language's searches, compiled once per (language, stop markers)."""

    language: ArgumentLanguage
    stops: tuple[str, ...]
    token: re.Pattern[str] = field(init=False)  # a token at a position
    key_end: re.Pattern[str] = field(init=False)
    word_end: re.Pattern[str] = field(init=False)
    markers: tuple[str, ...] = field(init=False)  # what a chunk's end may hold back
    longest: int = field(init=False)  # the longest marker's length
    forms: dict[str, StringForm] = field(init=False)
    ends: dict[str, tuple[str, ...]] = field(init=False)  # per opener: what a find stops at

    def __post_init__(self) -> None:
        forms = self.language.strings
        openers = sorted((f.opener for f in forms), key=len, reverse=True)
        long_openers = [o for o in openers if len(o) > 1]
        key_openers = [f.opener for f in forms if not f.values_only]

        def alternatives(literals: Sequence[str], chars: str) -> re.Pattern[str]:
            return re.compile("|".join([*map(re.escape, literals), f"[{re.escape(chars)}]"]))

        put = object.__setattr__
        put(self, "token", alternatives([*self.stops, *openers], "{}[]:,"))
        put(self, "key_end", alternatives([*self.stops, *key_openers], ":,{}[]"))
        put(self, "word_end", alternatives([*self.stops, *long_openers], ",}]"))
        put(self, "markers", (*self.stops, *long_openers))
        put(self, "longest", max(map(len, self.markers), default=0))
        put(self, "forms", {f.opener: f for f in forms})
        ends = {
            f.opener: closers(f.closer, *(("\\",) if f.escapes else ()), *self.stops) for f in forms
        }
        put(self, "ends", ends)


@lru_cache(maxsize=256)
def _json_plan(stops: tuple[str, ...]) -> tuple[re.Pattern[str], str, int]:
    """JSON's search for `stops` (once per stop set: a reader is made per block), the stops'
    first characters and the longest stop's length."""
    alternatives = "|".join(re.escape(m) for m in stops)
    # Stop markers first: one that begins with a structural character (`[/TOOL]`,
    # `[TOOL_CALLS]`) is the marker, not an array.
    special = re.compile((f"{alternatives}|" if alternatives else "") + r'["{}\[\]:,]')
    return special, "".join(sorted({m[0] for m in stops})), max(map(len, stops), default=0)


@lru_cache(maxsize=64)
def _plan(language: ArgumentLanguage, stops: tuple[str, ...]) -> _Plan:
    return _Plan(language, stops)


class JsonScan:
    """Scans argument text piece by piece; subclasses override the `on_*` hooks."""

    __slots__ = (
        "_bare",
        "_first_chars",
        "_longest_stop",
        "_plan",
        "_scalar",
        "_special",
        "_stop_markers",
        "_tail",
        "cursor",
        "decided",
        "expect_key",
        "in_string",
        "key_pieces",
        "stack",
        "string_form",
        "string_is_key",
    )

    def __init__(self, stop_markers: Sequence[str] = (), language: ArgumentLanguage = JSON) -> None:
        self._stop_markers = tuple(stop_markers)
        #: The compiled searches of a language other than JSON (None: JSON's own loop).
        self._plan = None if language is JSON else _plan(language, self._stop_markers)
        #: The form of the string in progress (or the last one read).
        self.string_form = JSON_STRING
        self._bare = 0  # a bare key or word in progress (`_BARE_KEY`, `_BARE_WORD`)
        self._tail = ""  # a string's optional tail, still undecided
        self._special, self._first_chars, self._longest_stop = _json_plan(self._stop_markers)
        self.stack: list[str] = []  # "{" or "[" per open container
        self.expect_key: list[bool] = []  # per open container: an object awaiting a key
        self.in_string = False
        self.string_is_key = False
        self.key_pieces: list[str] = []
        self._scalar: list[str] = []
        #: Buffer position just after the token whose hook is running.
        self.cursor = 0
        #: Set by a hook that has seen enough (the block is not a call): `scan` stops right
        #: after that token, at the same place however the input was split.
        self.decided = False

    @property
    def depth(self) -> int:
        return len(self.stack)

    # Hooks ------------------------------------------------------------------------------
    def on_key(self, key: str) -> None:
        """An object key at `self.depth` was read."""

    def on_string_start(self) -> None:
        """A string value begins at `self.depth`."""

    def on_string_piece(self, raw: str) -> None:
        """Raw (still escaped, escapes complete) text of the string value in progress."""

    def on_string_end(self) -> None:
        """The string value in progress ended."""

    def on_open(self, char: str) -> None:
        """A container opened; `self.depth` already counts it."""

    def on_close(self, char: str) -> None:
        """A container closed; `self.depth` no longer counts it."""

    def on_scalar(self, raw: str) -> None:
        """A number, literal or other bare token at `self.depth` ended."""

    def on_raw(self, raw: str) -> None:
        """Every consumed character, in order (for capturing a value's text)."""

    # Hooks of languages other than JSON ----------------------------------------------------
    def expecting(self) -> int:
        """What comes next here, `KEY`, `COLON` or `VALUE`: it decides whether a bare token or
        a string is a key, and whether a `:` is structure (a bare word may hold one). A hook
        that builds values knows best; by default, JSON's rule."""
        return KEY if self.expect_key and self.expect_key[-1] else VALUE

    def on_separator(self, char: str) -> None:
        """A structural `:` or `,` was read."""

    def on_key_invalid(self, raw: str) -> None:
        """A quoted key holds an invalid escape (JSON reads it as the empty key)."""
        self.on_key("")

    def on_stop_in_string(self, marker: str) -> None:
        """A stop marker inside a string (of a form whose stops do not end it), kept as text."""

    def on_string_tail(self) -> None:
        """The form's tail followed the string's closer and was taken with it."""

    # State --------------------------------------------------------------------------------
    @property
    def between_tokens(self) -> bool:
        """Nothing is in progress: no string, bare token or undecided tail."""
        return not (self.in_string or self._bare or self._tail)

    def end_bare(self) -> None:
        """The input ended inside a bare token: it is complete as it stands."""
        if self._bare:
            self._end_bare()

    # Scanning ---------------------------------------------------------------------------
    def scan(self, buf: str, pos: int, end: int, final: bool) -> tuple[int, str | None]:
        """Consume `buf[pos:end]`. Returns `(pos, stop)`.

        `stop` is a stop marker found outside strings at the returned position (not consumed);
        otherwise the scanner stopped at `end` or held back an incomplete escape or marker.
        """
        if self._plan is not None:
            return self._scan_language(buf, pos, end, final)
        while pos < end and not self.decided:
            if self.in_string:
                pos = self._scan_string(buf, pos, end, final)
                if self.in_string:
                    return pos, None
                continue
            m = self._special.search(buf, pos, end)
            stop_at = end if m is None else m.start()
            if (
                not final
                and self._stop_markers
                and (m is None or end - stop_at < self._longest_stop)
            ):
                # A cut-off stop marker at the end that begins at or before the structural
                # character (`[TOOL_CALLS]` cut to `[TOOL`, `</seed:tool_call>` to `</seed:t`):
                # wait for it rather than read its characters as JSON.
                held = partial_marker_start(buf, pos, end, self._stop_markers, self._first_chars)
                if m is None or held <= stop_at < end:
                    m, stop_at = None, held
            if stop_at > pos:
                gap = buf[pos:stop_at]
                self.on_raw(gap)
                if self._scalar or gap.strip(_WS):
                    self._scalar.append(gap)
                pos = stop_at
            if m is None:
                return pos, None
            tok = m.group()
            if len(tok) > 1 or tok not in '"{}[]:,':
                self._flush_scalar()
                return pos, tok
            self.on_raw(tok)
            pos = self.cursor = m.end()
            self._structural(tok)
        return pos, None

    def _flush_scalar(self) -> None:
        if self._scalar:
            raw = "".join(self._scalar).strip(_WS)
            self._scalar.clear()
            if raw:
                self.on_scalar(raw)

    def _structural(self, tok: str) -> None:
        if tok == '"':
            self._flush_scalar()
            self.in_string = True
            self.string_is_key = bool(self.expect_key) and self.expect_key[-1]
            if not self.string_is_key:
                self.on_string_start()
            return
        if tok == ":":
            self._flush_scalar()
            if self.expect_key:
                self.expect_key[-1] = False
            return
        if tok == ",":
            self._flush_scalar()
            if self.stack and self.stack[-1] == "{":
                self.expect_key[-1] = True
            return
        if tok in "{[":
            self._flush_scalar()
            self.stack.append(tok)
            self.expect_key.append(tok == "{")
            self.on_open(tok)
            return
        # "}" or "]"; a closer with nothing open is stray text and reported as nothing
        self._flush_scalar()
        if self.stack:
            self.stack.pop()
            self.expect_key.pop()
            self.on_close(tok)

    def _scan_string(self, buf: str, pos: int, end: int, final: bool) -> int:
        m = STRING_SPECIAL.search(buf, pos, end)
        if m is None:
            self._string_piece(buf[pos:end])
            return end
        i = m.start()
        if m.group() == '"':
            self._string_piece(buf[pos:i])
            self.on_raw('"')
            self.in_string = False
            self.cursor = i + 1
            if self.string_is_key:
                key = decode_string_piece("".join(self.key_pieces))
                self.key_pieces.clear()
                self.on_key(key if key is not None else "")
            else:
                self.on_string_end()
            return i + 1
        # A backslash: consume up to and including the complete escape after it.
        if i + 1 >= end:
            if final:
                self._string_piece(buf[pos:end])
                return end
            self._string_piece(buf[pos:i])
            return i
        width = 6 if buf[i + 1] == "u" else 2
        if buf[i + 1] == "u" and i + 6 <= end and _HIGH_SURROGATE_ESCAPE.match(buf, i, i + 6):
            # Keep a surrogate pair together: its low half is another 6-character escape.
            if i + 12 <= end or final:
                width = 12 if buf.startswith("\\u", i + 6) else 6
            else:
                self._string_piece(buf[pos:i])
                return i
        if i + width > end and not final:
            self._string_piece(buf[pos:i])
            return i
        stop = min(i + width, end)
        if pos < i and not _VALID_ESCAPE.match(buf, i, stop):
            # An invalid escape decodes to nothing: the text before it is its own piece, as
            # it is when a chunk ends at the backslash (the result must not depend on that).
            self._string_piece(buf[pos:i])
            pos = i
        self._string_piece(buf[pos:stop])
        return stop

    def _string_piece(self, raw: str) -> None:
        if not raw:
            return
        self.on_raw(raw)
        if self.string_is_key:
            self.key_pieces.append(raw)
        else:
            self.on_string_piece(raw)

    # Languages other than JSON --------------------------------------------------------------
    def _scan_language(self, buf: str, pos: int, end: int, final: bool) -> tuple[int, str | None]:
        plan = self._plan
        assert plan is not None
        while pos < end and not self.decided:
            if self.in_string:
                pos, stop = self._scan_form(plan, buf, pos, end, final)
                if stop is not None or self.in_string:
                    return pos, stop
                continue
            if self._tail:
                tail = self._tail
                if buf.startswith(tail, pos, end):
                    self._tail = ""
                    self.on_raw(tail)
                    pos = self.cursor = pos + len(tail)
                    self.on_string_tail()
                    continue
                if not final and end - pos < len(tail) and tail.startswith(buf[pos:end]):
                    return pos, None
                self._tail = ""
                continue
            if self._bare:
                pos, stop = self._scan_bare(plan, buf, pos, end, final)
                if stop is not None or self._bare:
                    return pos, stop
                continue
            i = skip_blanks(buf, pos, end)
            if i > pos:
                self.on_raw(buf[pos:i])
                pos = i
                if pos >= end:
                    return pos, None
            m = plan.token.match(buf, pos, end)
            if (
                not final
                and end - pos < plan.longest
                and (m is None or len(m.group()) == 1)
                and partial_marker_start(buf, pos, end, plan.markers) == pos
            ):
                return pos, None  # a cut-off marker (`<|"` of `<|"|>`, `[TOOL` of `[TOOL_CALLS]`)
            if m is None:
                self._bare = self._bare_kind(plan, self.expecting())
                continue
            tok = m.group()
            if tok in plan.stops:
                return pos, tok
            where = self.expecting()
            form = plan.forms.get(tok)
            if form is not None and not (form.values_only and where == KEY):
                self.on_raw(tok)
                pos = self.cursor = m.end()
                self.in_string = True
                self.string_form = form
                self.string_is_key = where == KEY
                if not self.string_is_key:
                    self.on_string_start()
                continue
            if form is not None or (tok == ":" and where == VALUE and plan.language.bare_words):
                # The first character of a bare token (`{'a':1}`'s `'a'`, `{a::b}`'s `:b`).
                self._bare = self._bare_kind(plan, where)
                self.on_raw(tok)
                self._scalar.append(tok)
                pos = m.end()
                continue
            self.on_raw(tok)
            pos = self.cursor = m.end()
            self._structural(tok)
            if tok in ":,":
                self.on_separator(tok)
        return pos, None

    @staticmethod
    def _bare_kind(plan: _Plan, where: int) -> int:
        return _BARE_KEY if where == KEY and plan.language.bare_keys else _BARE_WORD

    def _scan_bare(
        self, plan: _Plan, buf: str, pos: int, end: int, final: bool
    ) -> tuple[int, str | None]:
        """A bare key (up to a structural character or a key's opener) or a bare word."""
        if self._bare == _BARE_KEY:
            search = plan.key_end
        else:
            search = plan.word_end if plan.language.bare_words else plan.token
        m = search.search(buf, pos, end)
        stop_at = end if m is None else m.start()
        if not final and (m is None or end - stop_at < plan.longest):
            held = partial_marker_start(buf, pos, end, plan.markers)
            if m is None or held <= stop_at < end:
                m, stop_at = None, held
        if stop_at > pos:
            piece = buf[pos:stop_at]
            self.on_raw(piece)
            self._scalar.append(piece)
        if m is None:
            return stop_at, None
        self._end_bare(m.group())
        return stop_at, None

    def _end_bare(self, stopper: str = "") -> None:
        """Report the bare token: a key when a `:` follows it, else a scalar (where a key is
        due, one without its `:`)."""
        raw = "".join(self._scalar).strip(_WS)
        self._scalar.clear()
        key = self._bare == _BARE_KEY and stopper == ":"
        self._bare = 0
        if key:
            self.on_key(raw)
        elif raw:
            self.on_scalar(raw)

    def _scan_form(
        self, plan: _Plan, buf: str, pos: int, end: int, final: bool
    ) -> tuple[int, str | None]:
        """Inside a string of a form other than JSON's fast one: up to its closer."""
        form = self.string_form
        ends = plan.ends[form.opener]
        while True:
            stop, tok = find_closer(buf, pos, end, ends, final=final)
            if stop > pos:
                self._string_piece(buf[pos:stop])
                pos = stop
            if not tok:
                return pos, None
            if tok == form.closer:
                self.on_raw(tok)
                pos = self.cursor = stop + len(tok)
                self.in_string = False
                if self.string_is_key:
                    raw = "".join(self.key_pieces)
                    self.key_pieces.clear()
                    key = decode_string_piece(raw) if form.escapes else raw
                    if key is None:
                        self.on_key_invalid(raw)
                    else:
                        self.on_key(key)
                else:
                    self.on_string_end()
                self._tail = form.tail
                return pos, None
            if tok == "\\":
                if stop + 1 >= end and not final:
                    return pos, None
                pair = buf[pos : min(pos + 2, end)]
                self._string_piece(pair)
                pos += len(pair)
                continue
            if form.stops_end:
                return pos, tok
            self.on_stop_in_string(tok)
            self._string_piece(tok)
            pos += len(tok)
