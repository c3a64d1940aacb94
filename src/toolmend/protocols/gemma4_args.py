"""Gemma 4's argument language: `{key:<|"|>text<|"|>,n:1,flag:true,obj:{a:1},list:[1,2]}`.

This module owns reading that language into JSON values, piece by piece (`GemmaArgScan`) or in
one go (`decode_arguments`), and the few repairs real Gemma 4 output needs:

* strings live between `<|"|>` delimiters and are raw (no escapes); JSON `"..."` strings and
  single-quoted `'...'` values are accepted too (the latter as a recorded repair, dropping a
  stray `<|"|>` right after the closing quote);
* keys are bare words (`location:`), or quoted either way;
* bare values are JSON literals (`42`, `true`, `null`) or else bare words, read as strings;
* a string left open at the end of the call is closed (a `}` or `]` right before the end is
  structure, not text), and then a missing final `}` is added;
* a bare value of a property the schema types as string may hold `,` and `}`: it runs to the
  next `,known_key:` or the end of the object (schema-gated; never without a schema);
* a missing final `}` alone is never added: only after another repair made the object plausible.

A call terminator (`<tool_call|>`, `<turn|>`) inside an open string is text of that string; its
position is remembered so that a caller can retry the call as if it had ended there.

It never looks up tools (callers pass the property names it needs), never validates against a
schema, and never decides whether a call is complete: that is the protocol's and the gate's.
Cost: each character is looked at once per scan; inside a string the scanner jumps from one
`<`, quote or backslash to the next. Repairs rescan the retained text once, only when needed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolmend.core.keyrules import TRAILING_COMMA, TRAILING_COMMA_ERROR, duplicate_key_error
from toolmend.core.textscan import closers, find_closer, skip_blanks

STRING_DELIMITER = '<|"|>'
CALL_CLOSE = "<tool_call|>"
TURN_END = "<turn|>"
#: What ends a call block. Inside an open string they are text (see the module docstring).
TERMINATORS = (CALL_CLOSE, TURN_END)

_WS = " \t\r\n"
_JSON_LITERAL = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")
# Characters a bare value may start with and still be read as a JSON literal (upstream's rule
# for which values the schema-gated raw-string repair leaves alone).
_LITERAL_START = frozenset("-0123456789tfn")
_GEMMA_STOPS = closers(STRING_DELIMITER, *TERMINATORS)
#: What ends plain text inside a JSON string or a single-quoted one.
_QUOTED_STOPS = closers('"', "\\", *TERMINATORS)
_SINGLE_STOPS = closers("'", "\\", *TERMINATORS)
_BARE_SEARCH = re.compile(r"[,}\]<]")
_KEY_SEARCH = re.compile(r"[:,{}\[\]\"<]")

# Scanner modes.
_STRUCT, _GEMMA, _QUOTED, _SINGLE, _AFTER_SINGLE, _BARE, _KEY = range(7)
# What the innermost container expects next.
_VALUE, _KEYPOS, _COLON, _AFTER = range(4)


class GemmaArgScan:
    """Reads one argument object as it arrives; subclasses (or callers) override the hooks.

    Hooks fire for the top-level object only (`depth == 1`), except `on_bare_word` (any depth).
    After the first anomaly (`broken`), no value hook fires again: later values are not read
    with certainty.
    """

    def __init__(self, *, allow_repair: bool = True) -> None:
        #: The policy's answer to repairs that lose nothing (a trailing comma: `keyrules`).
        self.allow_repair = allow_repair
        self.stack: list[dict[str, Any] | list[Any]] = []
        self.expect: list[int] = []
        self.keys: list[str | None] = []  # per container: the key whose value is being read
        self.commas: list[bool] = []  # per container: a comma was just read
        self.mode = _STRUCT
        self.pieces: list[str] = []  # the token in progress (string content, bare text)
        self.string_is_key = False
        #: Every consumed character, in order. Only ever appended to, also by a caller that
        #: streams plain string text past the scanner (see `raw_len`).
        self.raw: list[str] = []
        self._raw_len = 0  # the length of `raw[: self._counted]`
        self._counted = 0
        self.value: dict[str, Any] | None = None  # the object, once its `}` is read
        self.error: str | None = None  # the first anomaly (the object is then not clean)
        self.repairs: list[str] = []
        self.ignored_close_at = -1  # raw offset of the first terminator inside a string
        #: (key, raw offset right after its `:`) of top-level bare words, for the raw repair.
        self.bare_values: list[tuple[str, int]] = []
        self._colon_at = 0
        self._string_start = 0  # index in `raw` where the open `<|"|>` string's content starts
        self._expect_top = True  # nothing read yet: the next token must be `{`
        self._streaming = False  # the open `<|"|>` string reports its text through the hooks

    # Hooks ----------------------------------------------------------------------------------
    def on_string_open(self, key: str) -> None:
        """A `<|"|>` string value of top-level `key` begins."""

    def on_string_text(self, text: str) -> None:
        """More content of that string."""

    def on_string_terminator(self) -> None:
        """A call terminator appeared inside that string (it is kept as text)."""

    def on_value(self, key: str, value: Any, streamed: bool) -> None:
        """A top-level value is complete (`streamed`: it was a `<|"|>` string)."""

    def on_bare_word(self) -> None:
        """A bare word was read as a string: a repair may still read it differently."""

    def on_broken(self) -> None:
        """The first anomaly: what follows is best effort."""

    # State ----------------------------------------------------------------------------------
    @property
    def depth(self) -> int:
        return len(self.stack)

    @property
    def done(self) -> bool:
        return self.value is not None

    @property
    def broken(self) -> bool:
        return self.error is not None

    @property
    def in_string(self) -> bool:
        return self.mode in (_GEMMA, _QUOTED, _SINGLE)

    def raw_text(self) -> str:
        return "".join(self.raw)

    @property
    def raw_len(self) -> int:
        """How many characters were consumed (each piece of `raw` is counted once)."""
        raw = self.raw
        if self._counted < len(raw):
            self._raw_len += sum(map(len, raw[self._counted :]))
            self._counted = len(raw)
        return self._raw_len

    def _take(self, text: str) -> None:
        if text:
            self.raw.append(text)

    def _break(self, message: str) -> None:
        if self.error is None:
            self.error = message
            self.on_broken()

    def _top_key(self) -> str | None:
        if self.depth == 1 and isinstance(self.stack[0], dict) and self.expect[0] == _VALUE:
            return self.keys[0]
        return None

    # Scanning -------------------------------------------------------------------------------
    def scan(self, buf: str, pos: int, end: int, final: bool) -> tuple[int, str | None]:
        """Consume `buf[pos:end]`. Returns `(pos, terminator)`.

        Stops after the object's closing `}` (`done`), before a terminator found outside strings
        (returned, not consumed), or where more input is needed.
        """
        while pos < end and not self.done:
            mode = self.mode
            if mode == _GEMMA:  # the hot path first: inside a long string value
                pos, need = self._gemma(buf, pos, end, final)
                if need:
                    return pos, None
            elif mode == _STRUCT:
                pos, stop, need = self._structural(buf, pos, end, final)
                if stop is not None:
                    return pos, stop
                if need:
                    return pos, None
            elif mode in (_QUOTED, _SINGLE):
                pos, stop, need = self._quoted(buf, pos, end, final)
                if stop is not None:
                    return pos, stop
                if need:
                    return pos, None
            elif mode == _AFTER_SINGLE:
                rest = buf[pos:end]
                if rest.startswith(STRING_DELIMITER):
                    self._take(STRING_DELIMITER)
                    pos += len(STRING_DELIMITER)
                    self.repairs.append("dangling-string-delimiter")
                elif STRING_DELIMITER.startswith(rest) and not final:
                    return pos, None
                self.mode = _STRUCT
            else:
                pos, stop, need = self._bare(buf, pos, end, final)
                if stop is not None:
                    return pos, stop
                if need:
                    return pos, None
        return pos, None

    def _marker_at(self, buf: str, i: int, end: int, final: bool) -> tuple[str | None, bool]:
        """The delimiter or terminator starting at `buf[i]` ("<"), or whether more is needed."""
        for marker in _GEMMA_STOPS:
            if buf.startswith(marker, i, end):
                return marker, False
        rest = buf[i:end]
        if not final and any(m.startswith(rest) for m in _GEMMA_STOPS):
            return None, True
        return None, False

    def _structural(
        self, buf: str, pos: int, end: int, final: bool
    ) -> tuple[int, str | None, bool]:
        """Between tokens: read one structural token or start a value/key token.

        Returns `(pos, terminator, needs_more_input)`.
        """
        i = skip_blanks(buf, pos, end)
        self._take(buf[pos:i])
        if i >= end:
            return i, None, True
        c = buf[i]
        delimiter = False
        if c == "<":
            marker, need = self._marker_at(buf, i, end, final)
            if need:
                return i, None, True
            if marker in TERMINATORS:
                return i, marker, False
            delimiter = marker == STRING_DELIMITER
        if self._expect_top:
            # Before the object: anything but `{` (a string delimiter too) is read inside an
            # object assumed open, so no value is ever read without a container.
            self._expect_top = False
            if c != "{":
                self._break("the arguments must be an object in braces")
                self._push("{")
                return i, None, False
        expect = self.expect[-1] if self.expect else _VALUE
        if c in "{[":
            self._take(c)
            if expect in (_KEYPOS, _AFTER):
                self._break(f"unexpected {c!r}")
            self._push(c)
            self.mode = _STRUCT
            return i + 1, None, False
        if c in "}]":
            self._take(c)
            self._close(c)
            return i + 1, None, False
        if c == ",":
            self._take(c)
            if expect != _AFTER:
                self._break("a value is missing before ','")
            self.commas[-1] = True
            self.expect[-1] = _KEYPOS if isinstance(self.stack[-1], dict) else _VALUE
            return i + 1, None, False
        if c == ":" and expect == _COLON:
            self._take(c)
            self.expect[-1] = _VALUE
            self._colon_at = self.raw_len
            return i + 1, None, False
        if expect == _COLON:
            self._break("':' is missing after a key")
            self.expect[-1] = _VALUE
            self._colon_at = self.raw_len  # where the value begins, for the raw-string repair
        elif expect == _AFTER:
            self._break("',' is missing between values")
            self.expect[-1] = _KEYPOS if isinstance(self.stack[-1], dict) else _VALUE
        expect = self.expect[-1]
        if delimiter:  # checked like any other value or key: after its `:` or `,`
            self._take(STRING_DELIMITER)
            self._open_string(_GEMMA)
            return i + len(STRING_DELIMITER), None, False
        if c == '"':
            self._take(c)
            self._open_string(_QUOTED)
            return i + 1, None, False
        if c == "'" and expect == _VALUE:
            self._take(c)
            self._open_string(_SINGLE)
            return i + 1, None, False
        self.mode = _KEY if expect == _KEYPOS else _BARE
        self.pieces = []
        if self.mode == _BARE and self._top_key() is not None and c not in _LITERAL_START:
            self.bare_values.append((self._top_key() or "", self._colon_at))
        return i, None, False

    def string_text(self) -> str:
        """The content of the open `<|"|>` string so far (it is kept once, in `raw`)."""
        return "".join(self.raw[self._string_start :])

    def _open_string(self, mode: int) -> None:
        self.mode = mode
        self.pieces = []
        self._string_start = len(self.raw)
        self.string_is_key = bool(self.expect) and self.expect[-1] == _KEYPOS
        self._streaming = False
        if mode == _GEMMA and not self.string_is_key:
            key = self._top_key()
            if key is not None and not self.broken:
                self._streaming = True
                self.on_string_open(key)

    def _gemma(self, buf: str, pos: int, end: int, final: bool) -> tuple[int, bool]:
        """Inside a `<|"|>` string: everything up to the next `<|"|>` is text."""
        while True:
            stop, marker = find_closer(buf, pos, end, _GEMMA_STOPS, final=final)
            if stop > pos:
                text = buf[pos:stop]
                self.raw.append(text)
                if self._streaming:
                    self.on_string_text(text)
                pos = stop
            if not marker:
                return pos, True
            if marker == STRING_DELIMITER:
                text = self.string_text()
                self._take(marker)
                self._end_string(text, streamed=True)
                return stop + len(marker), False
            if self.ignored_close_at < 0:
                self.ignored_close_at = self.raw_len
            if self._streaming:
                self._streaming = False
                self.on_string_terminator()
            self._take(marker)
            pos = stop + len(marker)

    def _quoted(self, buf: str, pos: int, end: int, final: bool) -> tuple[int, str | None, bool]:
        """Inside a JSON `"..."` string or a single-quoted value (escapes kept raw)."""
        single = self.mode == _SINGLE
        stops = _SINGLE_STOPS if single else _QUOTED_STOPS
        while True:
            stop, tok = find_closer(buf, pos, end, stops, final=final)
            if stop > pos:
                self.pieces.append(buf[pos:stop])
                self._take(buf[pos:stop])
                pos = stop
            if not tok:
                return pos, None, True
            if tok == "\\":
                if stop + 1 >= end and not final:
                    return pos, None, True
                pair = buf[pos : min(pos + 2, end)]
                self.pieces.append(pair)
                self._take(pair)
                pos += len(pair)
                continue
            if tok in TERMINATORS:
                if single:
                    return pos, tok, False  # an unterminated quote: the terminator ends the call
                if self.ignored_close_at < 0:
                    self.ignored_close_at = self.raw_len
                self.pieces.append(tok)
                self._take(tok)
                pos = stop + len(tok)
                continue
            self._take(tok)
            text = "".join(self.pieces)
            if single:
                self.repairs.append("single-quoted-string")
                self._end_string(text, streamed=False)
                self.mode = _AFTER_SINGLE
            else:
                try:
                    value = json.loads('"' + text + '"', strict=False)
                except ValueError:
                    self._break("a quoted string holds an invalid escape")
                    value = text
                self._end_string(value, streamed=False)
            return stop + len(tok), None, False

    def _bare(self, buf: str, pos: int, end: int, final: bool) -> tuple[int, str | None, bool]:
        """A bare key (up to `:`) or a bare value (up to `,`, `}` or `]`)."""
        key_mode = self.mode == _KEY
        search = _KEY_SEARCH if key_mode else _BARE_SEARCH
        while True:
            m = search.search(buf, pos, end)
            if m is None:
                self.pieces.append(buf[pos:end])
                self._take(buf[pos:end])
                return end, None, True
            i = m.start()
            if m.group() == "<":
                marker, need = self._marker_at(buf, i, end, final)
                if need:
                    self.pieces.append(buf[pos:i])
                    self._take(buf[pos:i])
                    return i, None, True
                if marker is None:
                    self.pieces.append(buf[pos : i + 1])
                    self._take(buf[pos : i + 1])
                    pos = i + 1
                    continue
            self.pieces.append(buf[pos:i])
            self._take(buf[pos:i])
            self.mode = _STRUCT
            text = "".join(self.pieces).strip(_WS)
            if key_mode:
                self._bare_key(text, m.group())
            else:
                self._bare_value(text)
            return i, None, False

    def _bare_key(self, text: str, stopper: str) -> None:
        if stopper == ":" and text:
            self._set_key(text)
            return
        self._break("a key is missing its ':'" if text else "a key is missing")
        self.expect[-1] = _AFTER if text else _KEYPOS

    def _bare_value(self, text: str) -> None:
        if not text:
            self._break("a value is missing")
            self.expect[-1] = _AFTER
            return
        if _JSON_LITERAL.fullmatch(text):
            self._attach(json.loads(text), streamed=False)
            return
        self.on_bare_word()
        self._attach(text, streamed=False)

    def finish_bare(self) -> None:
        """The input ended inside a bare value: it is complete as it stands."""
        if self.mode == _BARE:
            self.mode = _STRUCT
            self._bare_value("".join(self.pieces).strip(_WS))

    # Values ---------------------------------------------------------------------------------
    def _end_string(self, value: Any, *, streamed: bool) -> None:
        self.mode = _STRUCT
        self.pieces = []
        if self.string_is_key:
            self._set_key(value)
        else:
            self._attach(value, streamed=streamed)

    def _set_key(self, key: str) -> None:
        self.keys[-1] = key
        self.expect[-1] = _COLON

    def _push(self, char: str) -> None:
        self.stack.append({} if char == "{" else [])
        self.expect.append(_KEYPOS if char == "{" else _VALUE)
        self.keys.append(None)
        self.commas.append(False)

    def _close(self, char: str) -> None:
        if not self.stack:
            self._break(f"an unmatched {char!r}")
            return
        container = self.stack[-1]
        expect = self.expect[-1]
        if isinstance(container, dict) != (char == "}"):
            self._break(f"an unmatched {char!r}")
        elif expect == _COLON or (expect == _VALUE and isinstance(container, dict)):
            self._break("a value is missing before the closing brace")
        elif self.commas[-1] and expect != _AFTER:
            if self.allow_repair:
                self.repairs.append(TRAILING_COMMA)
            else:
                self._break(TRAILING_COMMA_ERROR)
        self.stack.pop()
        self.expect.pop()
        self.keys.pop()
        self.commas.pop()
        if not self.stack:
            if isinstance(container, dict):
                self.value = container
            else:
                self._break("the arguments must be an object in braces")
                self.value = {}
            return
        self._attach(container, streamed=False)

    def _attach(self, value: Any, *, streamed: bool) -> None:
        parent = self.stack[-1]
        top = self.depth == 1
        if isinstance(parent, list):
            parent.append(value)
        else:
            key = self.keys[-1]
            if key is None:
                self._break("a value without a key")
            else:
                if top and key in parent:
                    self._break(duplicate_key_error(key))
                parent[key] = value
                if top and not self.broken:
                    self.on_value(key, value, streamed)
        self.expect[-1] = _AFTER
        self.commas[-1] = False

    # The end --------------------------------------------------------------------------------
    def close_at_end(self, *, repaired: bool = False) -> None:
        """The call's text ended here: apply the end-of-call repairs (module docstring).

        `repaired`: the text was already repaired by the caller (a missing `}` may be added).
        """
        repaired = repaired or bool(self.repairs)
        if self.mode == _GEMMA and not self.string_is_key:
            text = self.string_text().rstrip(_WS)
            closer = text[-1] if text and text[-1] in "}]" else ""
            if closer:
                text = text[:-1]
            self.repairs.append("close-string-delimiter")
            repaired = True
            self._end_string(text, streamed=False)
            if closer:
                self._close(closer)
        elif self.mode == _BARE:
            self.finish_bare()
        if self.done or self.mode != _STRUCT:
            return
        if repaired and self.depth == 1 and isinstance(self.stack[0], dict):
            self.repairs.append("close-object")
            self._close("}")


@dataclass
class DecodedGemmaArguments:
    """The result of `decode_arguments`: an object, or an error naming what is wrong."""

    arguments: dict[str, Any] | None
    repairs: list[str] = field(default_factory=list)
    error: str | None = None


def _decode_once(
    text: str, *, repaired: bool = False, allow_repair: bool = True
) -> DecodedGemmaArguments:
    scan = GemmaArgScan(allow_repair=allow_repair)
    pos, stop = scan.scan(text, 0, len(text), True)
    if stop is None and not scan.done:
        scan.close_at_end(repaired=repaired)
    elif scan.done and text[pos:].strip(_WS):
        scan._break("text after the arguments object")
    if scan.error is not None:
        return DecodedGemmaArguments(None, scan.repairs, scan.error)
    if scan.value is None:
        return DecodedGemmaArguments(None, scan.repairs, "the arguments object is not closed")
    return DecodedGemmaArguments(scan.value, scan.repairs)


def wrap_raw_string_value(
    text: str,
    bare_values: Sequence[tuple[str, int]],
    string_keys: Sequence[str],
    known_keys: Collection[str],
) -> str | None:
    """`text` with the bare value of the first string-typed key wrapped in `<|"|>`, or None.

    The value runs from just after its key's `:` to the next `,known_key:`, else to the end of
    the text (less a final `}`), so it may hold commas and braces.
    """
    starts = dict(reversed(bare_values))  # first occurrence of each key wins
    for key in string_keys:
        start = starts.get(key)
        if start is None:
            continue
        others = sorted((k for k in known_keys if k), key=len, reverse=True)
        stop = -1
        if others:
            alternatives = "|".join(re.escape(k) for k in others)
            m = re.compile(rf",[{_WS}]*(?:{alternatives})[{_WS}]*:").search(text, start)
            stop = -1 if m is None else m.start()
        if stop < 0:
            trimmed = text.rstrip(_WS)
            stop = len(trimmed) - 1 if trimmed.endswith("}") and len(trimmed) > start else len(text)
        return text[:start] + STRING_DELIMITER + text[start:stop] + STRING_DELIMITER + text[stop:]
    return None


def decode_arguments(
    text: str,
    *,
    string_keys: Sequence[str] = (),
    known_keys: Collection[str] = (),
    assume_repaired: bool = False,
    allow_repair: bool = True,
) -> DecodedGemmaArguments:
    """Read a whole argument object (`{...}` as written after `call:NAME`), repairing if needed.

    `string_keys` are the top-level properties the tool's schema types as string (in schema
    order) and `known_keys` all its top-level properties: with them, a bare string value may
    hold commas and braces (see `wrap_raw_string_value`). Without them that repair never runs.
    `assume_repaired`: the caller already repaired `text`, so a missing final `}` may be added.
    `allow_repair` (the lenient policy): a trailing comma is dropped as a repair, not an error.
    """
    first = _decode_once(text, repaired=assume_repaired, allow_repair=allow_repair)
    if first.error is None or not string_keys:
        return first
    probe = GemmaArgScan()
    probe.scan(text, 0, len(text), True)
    wrapped = wrap_raw_string_value(text, probe.bare_values, string_keys, known_keys)
    if wrapped is None:
        return first
    second = _decode_once(wrapped, repaired=True, allow_repair=allow_repair)
    if second.error is not None:
        return first
    return DecodedGemmaArguments(second.arguments, ["raw-string-value", *second.repairs])
