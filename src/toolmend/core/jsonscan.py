"""Incremental structural scanning of JSON text that arrives in pieces.

`JsonScan` follows strings, nesting and value boundaries of one or more JSON values as they
stream, so a protocol can tell a closing marker outside a string from the same characters inside
one, and can stream a string value before it ends. It reports structure through overridable
hooks; it never builds the final value (the protocol decodes the retained text once, at the end)
and never decides what a value means.

Cost: each character is looked at once. Inside a string the scanner jumps from one `"` or `\\` to
the next; only an incomplete escape (at most 12 characters, a surrogate pair) is held back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from toolmend.core.textscan import partial_marker_start

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


class JsonScan:
    """Scans JSON text piece by piece; subclasses override the `on_*` hooks."""

    __slots__ = (
        "_first_chars",
        "_longest_stop",
        "_scalar",
        "_special",
        "_stop_markers",
        "cursor",
        "decided",
        "expect_key",
        "in_string",
        "key_pieces",
        "stack",
        "string_is_key",
    )

    def __init__(self, stop_markers: Sequence[str] = ()) -> None:
        self._stop_markers = tuple(stop_markers)
        self._first_chars = "".join({m[0] for m in self._stop_markers})
        self._longest_stop = max(map(len, self._stop_markers), default=0)
        stops = "|".join(re.escape(m) for m in self._stop_markers)
        # Stop markers first: one that begins with a structural character (`[/TOOL]`,
        # `[TOOL_CALLS]`) is the marker, not an array.
        self._special = re.compile((f"{stops}|" if stops else "") + r'["{}\[\]:,]')
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

    # Scanning ---------------------------------------------------------------------------
    def scan(self, buf: str, pos: int, end: int, final: bool) -> tuple[int, str | None]:
        """Consume `buf[pos:end]`. Returns `(pos, stop)`.

        `stop` is a stop marker found outside strings at the returned position (not consumed);
        otherwise the scanner stopped at `end` or held back an incomplete escape or marker.
        """
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
