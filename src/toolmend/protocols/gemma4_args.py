"""Gemma's argument language: `{key:<|"|>text<|"|>,n:1,flag:true,obj:{a:1},list:[1,2]}`.

Gemma 4 and FunctionGemma write the same language and differ only in two tokens, the string
delimiter (`<|"|>`, `<escape>`) and the call terminators: a `GemmaDialect` names them and makes
the language `JsonScan` reads (`core/jsonscan.py`: the string forms, bare keys, bare words), and
everything below takes one (Gemma 4's by default). This module owns building JSON values from
what the scanner reports, piece by piece (`GemmaArguments`, the scanner's hooks) or in one go
(`decode_arguments`), and the few repairs real Gemma 4 output needs:

* strings live between `<|"|>` delimiters and are raw (no escapes); JSON `"..."` strings and
  single-quoted `'...'` values are accepted too (the latter as a recorded repair, dropping a
  stray `<|"|>` right after the closing quote);
* keys are bare words (`location:`), or quoted either way;
* a key right after a closed string, with no `,` between (`city:<escape>NYC<escape>unit:…`,
  FunctionGemma's streamed output in vLLM's tests), is read as the next key: the delimiter
  ended the string beyond doubt, so the comma is all that is missing (`missing-comma-after-
  string`, a repair that loses nothing: `allow_repair`);
* bare values are JSON literals (`42`, `true`, `null`) or else bare words, read as strings;
* a string left open at the end of the call is closed (a `}` or `]` right before the end is
  structure, not text), and then a missing final `}` is added;
* a bare value of a property the schema types as string may hold `,` and `}`: it runs to the
  next `,known_key:` or the end of the object (schema-gated; never without a schema);
* a missing final `}` alone is never added: only after another repair made the object plausible.

A call terminator (`<tool_call|>`, `<turn|>`) inside an open string is text of that string; its
position is remembered so that a caller can retry the call as if it had ended there.

It never scans text itself (`JsonScan` does), never looks up tools (callers pass the property
names it needs), never validates against a schema, and never decides whether a call is
complete: that is the protocol's and the gate's. Cost: the scanner's (each character looked at
once per scan); repairs rescan the retained text once, only when needed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolmend.core.jsonscan import (
    COLON,
    JSON_STRING,
    KEY,
    VALUE,
    ArgumentLanguage,
    JsonScan,
    StringForm,
    decode_string_piece,
)
from toolmend.core.keyrules import TRAILING_COMMA, TRAILING_COMMA_ERROR, duplicate_key_error
from toolmend.core.textscan import closers

STRING_DELIMITER = '<|"|>'
#: The repair of a key written right after a closed string without its `,`.
MISSING_COMMA = "missing-comma-after-string"
CALL_CLOSE = "<tool_call|>"
TURN_END = "<turn|>"
#: What ends a call block. Inside an open string they are text (see the module docstring).
TERMINATORS = (CALL_CLOSE, TURN_END)


class GemmaDialect:
    """The tokens one Gemma model family writes its arguments with, and the language they make.

    Every token begins with its only `<`, as Gemma's special tokens do.
    """

    def __init__(self, delimiter: str, terminators: tuple[str, ...]) -> None:
        for token in (delimiter, *terminators):
            if not token.startswith("<") or "<" in token[1:]:
                raise ValueError(f"a Gemma token begins with its only '<': {token!r}")
        self.delimiter = delimiter
        self.terminators = terminators
        #: What ends plain text inside a delimited string (the fast path's stops).
        self.stops = closers(delimiter, *terminators)
        #: The string forms: the raw delimited string, JSON's, and a single-quoted one (a
        #: repair; a terminator ends it, and a stray delimiter right after it is dropped).
        self.raw_string = StringForm(delimiter, delimiter, escapes=False)
        self.single_quoted = StringForm("'", "'", values_only=True, stops_end=True, tail=delimiter)
        self.language = ArgumentLanguage(
            (self.raw_string, JSON_STRING, self.single_quoted), bare_keys=True, bare_words=True
        ).prepare(terminators)


#: Gemma 4's dialect: `<|"|>` strings, `<tool_call|>` / `<turn|>` terminators.
GEMMA4 = GemmaDialect(STRING_DELIMITER, TERMINATORS)

_WS = " \t\r\n"
_JSON_LITERAL = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")
# Characters a bare value may start with and still be read as a JSON literal (upstream's rule
# for which values the schema-gated raw-string repair leaves alone).
_LITERAL_START = frozenset("-0123456789tfn")

_MISSING_COLON = "a key is missing its ':'"
# What the innermost container expects next.
_VALUE, _KEYPOS, _COLON, _AFTER = range(4)


class GemmaArguments(JsonScan):
    """Reads one argument object as it arrives into JSON values, in `JsonScan`'s hooks;
    subclasses (or callers) override the hooks below.

    Hooks fire for the top-level object only (`depth == 1`), except `on_bare_word` (any depth).
    After the first anomaly (`broken`), no value hook fires again: later values are not read
    with certainty.
    """

    def __init__(self, *, allow_repair: bool = True, dialect: GemmaDialect = GEMMA4) -> None:
        super().__init__(dialect.terminators, dialect.language)
        self.dialect = dialect
        #: The policy's answer to repairs that lose nothing (a trailing comma: `keyrules`).
        self.allow_repair = allow_repair
        self.values: list[dict[str, Any] | list[Any]] = []  # the open containers
        self.expect: list[int] = []
        self.keys: list[str | None] = []  # per container: the key whose value is being read
        self.commas: list[bool] = []  # per container: a comma was just read
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
        self._string_start = 0  # index in `raw` where the open string's content starts
        self._streaming = False  # the open raw string reports its text through the hooks
        self._after_string = False  # the last thing read closed a string

    # Hooks ----------------------------------------------------------------------------------
    def on_string_open(self, key: str) -> None:
        """A raw (delimited) string value of top-level `key` begins."""

    def on_string_text(self, text: str) -> None:
        """More content of that string."""

    def on_string_terminator(self) -> None:
        """A call terminator appeared inside that string (it is kept as text)."""

    def on_value(self, key: str, value: Any, streamed: bool) -> None:
        """A top-level value is complete (`streamed`: it was a raw string)."""

    def on_bare_word(self) -> None:
        """A bare word was read as a string: a repair may still read it differently."""

    def on_broken(self) -> None:
        """The first anomaly: what follows is best effort."""

    # State ----------------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self.value is not None

    @property
    def broken(self) -> bool:
        return self.error is not None

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

    def string_text(self) -> str:
        """The content of the open string so far (it is kept once, in `raw`)."""
        return "".join(self.raw[self._string_start :])

    def _break(self, message: str) -> None:
        if self.error is None:
            self.error = message
            self.on_broken()

    def _top_key(self) -> str | None:
        if len(self.values) == 1 and isinstance(self.values[0], dict) and self.expect[0] == _VALUE:
            return self.keys[0]
        return None

    # JsonScan's hooks: the grammar ----------------------------------------------------------
    def expecting(self) -> int:
        expect = self.expect[-1] if self.expect else _VALUE
        if expect == _KEYPOS or (expect == _AFTER and isinstance(self.values[-1], dict)):
            return KEY
        return COLON if expect == _COLON else VALUE

    def on_raw(self, raw: str) -> None:
        self.raw.append(raw)

    def _in_object(self) -> bool:
        """Whether a container is open; before the first, nothing but `{` is read."""
        if self.values:
            return True
        self._break("the arguments must be an object in braces")
        return False

    def on_separator(self, char: str) -> None:
        self._after_string = False
        if not self._in_object():
            return
        expect = self.expect[-1]
        if char == ",":
            if expect != _AFTER:
                self._break(_MISSING_COLON if expect == _COLON else "a value is missing before ','")
            self.commas[-1] = True
            self.expect[-1] = _KEYPOS if isinstance(self.values[-1], dict) else _VALUE
            return
        if expect == _KEYPOS:
            self._break("a key is missing")
        elif expect == _AFTER:
            self._break("',' is missing between values")
        self.expect[-1] = _VALUE
        self._colon_at = self.raw_len

    def on_key(self, key: str) -> None:
        if self.expect[-1] == _AFTER:
            if self._after_string and self.allow_repair:
                self.repairs.append(MISSING_COMMA)
            else:
                self._break("',' is missing between values")
        self._after_string = False
        self.keys[-1] = key
        self.expect[-1] = _COLON

    def on_key_invalid(self, raw: str) -> None:
        self._break("a quoted string holds an invalid escape")
        self.on_key(raw)

    def _value_due(self) -> bool:
        """A value begins: a missing `:` or `,` before it is an anomaly."""
        if not self._in_object():
            return False
        expect = self.expect[-1]
        if expect == _COLON:
            self._break("':' is missing after a key")
            self.expect[-1] = _VALUE
            self._colon_at = self.raw_len
        elif expect == _AFTER:
            self._break("',' is missing between values")
            self.expect[-1] = _VALUE
        return True

    def on_open(self, char: str) -> None:
        self._after_string = False
        if not self.values:
            if char != "{":
                self._break("the arguments must be an object in braces")
        elif self.expect[-1] == _COLON:
            self._break(_MISSING_COLON)
        elif self.expect[-1] in (_KEYPOS, _AFTER):
            self._break(f"unexpected {char!r}")
        self.values.append({} if char == "{" else [])
        self.expect.append(_KEYPOS if char == "{" else _VALUE)
        self.keys.append(None)
        self.commas.append(False)

    def on_close(self, char: str) -> None:
        self._after_string = False
        self._close(char)

    def on_string_start(self) -> None:
        self._after_string = False
        self._value_due()
        self._string_start = len(self.raw)
        self._streaming = False
        if self.string_form is self.dialect.raw_string:
            key = self._top_key()
            if key is not None and not self.broken:
                self._streaming = True
                self.on_string_open(key)

    def on_string_piece(self, raw: str) -> None:
        if self._streaming:
            self.on_string_text(raw)

    def on_stop_in_string(self, marker: str) -> None:
        if self.ignored_close_at < 0:
            self.ignored_close_at = self.raw_len
        if self._streaming:
            self._streaming = False
            self.on_string_terminator()

    def on_string_end(self) -> None:
        text = "".join(self.raw[self._string_start : -1])  # less the closer
        form = self.string_form
        if form is self.dialect.raw_string:
            self._attach(text, streamed=True)
        elif form is self.dialect.single_quoted:
            self.repairs.append("single-quoted-string")
            self._attach(text, streamed=False)
        else:
            value = decode_string_piece(text)  # JSON's string decoding
            if value is None:
                self._break("a quoted string holds an invalid escape")
                value = text
            self._attach(value, streamed=False)
        self._after_string = True

    def on_string_tail(self) -> None:
        self.repairs.append("dangling-string-delimiter")

    def on_scalar(self, raw: str) -> None:
        self._after_string = False
        if self.expecting() == KEY:  # a bare key without its `:`
            self._break(_MISSING_COLON)
            self.expect[-1] = _AFTER
            return
        if not self._value_due():
            return
        key = self._top_key()
        if key is not None and raw[0] not in _LITERAL_START:
            self.bare_values.append((key, self._colon_at))
        if _JSON_LITERAL.fullmatch(raw):
            self._attach(json.loads(raw), streamed=False)
            return
        self.on_bare_word()
        self._attach(raw, streamed=False)

    # Values ---------------------------------------------------------------------------------
    def _close(self, char: str) -> None:
        if not self.values:
            self._break(f"an unmatched {char!r}")
            return
        container = self.values[-1]
        expect = self.expect[-1]
        if isinstance(container, dict) != (char == "}"):
            self._break(f"an unmatched {char!r}")
        elif expect == _COLON:
            self._break(_MISSING_COLON)
        elif expect == _VALUE and isinstance(container, dict):
            self._break("a value is missing before the closing brace")
        elif self.commas[-1] and expect != _AFTER:
            if self.allow_repair:
                self.repairs.append(TRAILING_COMMA)
            else:
                self._break(TRAILING_COMMA_ERROR)
        self.values.pop()
        self.expect.pop()
        self.keys.pop()
        self.commas.pop()
        if not self.values:
            if isinstance(container, dict):
                self.value = container
            else:
                self._break("the arguments must be an object in braces")
                self.value = {}
            self.decided = True  # the object is whole: read no further
            return
        self._attach(container, streamed=False)

    def _attach(self, value: Any, *, streamed: bool) -> None:
        if not self.values:
            return  # before the object (already an anomaly): nothing holds it
        parent = self.values[-1]
        top = len(self.values) == 1
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
        if self.in_string and self.string_form is self.dialect.raw_string:
            if self.string_is_key:
                return
            text = self.string_text().rstrip(_WS)
            closer = text[-1] if text and text[-1] in "}]" else ""
            if closer:
                text = text[:-1]
            self.repairs.append("close-string-delimiter")
            repaired = True
            self.in_string = False
            self._attach(text, streamed=False)
            if closer:
                self._close(closer)
        else:
            self.end_bare()
        if self.done or not self.between_tokens:
            return
        if repaired and len(self.values) == 1 and isinstance(self.values[0], dict):
            self.repairs.append("close-object")
            self._close("}")


@dataclass
class DecodedGemmaArguments:
    """The result of `decode_arguments`: an object, or an error naming what is wrong."""

    arguments: dict[str, Any] | None
    repairs: list[str] = field(default_factory=list)
    error: str | None = None


def _decode_once(
    text: str, dialect: GemmaDialect, *, repaired: bool = False, allow_repair: bool = True
) -> DecodedGemmaArguments:
    scan = GemmaArguments(allow_repair=allow_repair, dialect=dialect)
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
    delimiter: str = STRING_DELIMITER,
) -> str | None:
    """`text` with the bare value of the first string-typed key wrapped in `delimiter`, or None.

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
        return text[:start] + delimiter + text[start:stop] + delimiter + text[stop:]
    return None


def decode_arguments(
    text: str,
    *,
    string_keys: Sequence[str] = (),
    known_keys: Collection[str] = (),
    assume_repaired: bool = False,
    allow_repair: bool = True,
    dialect: GemmaDialect = GEMMA4,
) -> DecodedGemmaArguments:
    """Read a whole argument object (`{...}` as written after `call:NAME`), repairing if needed.

    `string_keys` are the top-level properties the tool's schema types as string (in schema
    order) and `known_keys` all its top-level properties: with them, a bare string value may
    hold commas and braces (see `wrap_raw_string_value`). Without them that repair never runs.
    `assume_repaired`: the caller already repaired `text`, so a missing final `}` may be added.
    `allow_repair` (the lenient policy): a trailing comma is dropped as a repair, not an error.
    """
    first = _decode_once(text, dialect, repaired=assume_repaired, allow_repair=allow_repair)
    if first.error is None or not string_keys:
        return first
    probe = GemmaArguments(dialect=dialect)
    probe.scan(text, 0, len(text), True)
    probe.end_bare()  # a bare word the text ends in counts
    wrapped = wrap_raw_string_value(
        text, probe.bare_values, string_keys, known_keys, dialect.delimiter
    )
    if wrapped is None:
        return first
    second = _decode_once(wrapped, dialect, repaired=True, allow_repair=allow_repair)
    if second.error is not None:
        return first
    return DecodedGemmaArguments(second.arguments, ["raw-string-value", *second.repairs])
