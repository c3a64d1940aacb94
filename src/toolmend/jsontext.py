"""JSON text as models write it: surrogate normalisation, escape repair, concatenation, decoding.

This module owns the schema-free handling of JSON *text*: turning what a model wrote into Python
objects, with the few bounded repairs that are safe without knowing the tool (broken ``\\u``
escapes, ``json-repair`` on bounded input, a JSON string that wraps an object), and splitting
concatenated objects so that they are never merged. It never looks at a schema, never renames or
drops keys and never invents values; the schema gate (`toolmend.schema_gate`) decides what the
decoded arguments mean.
"""

from __future__ import annotations

import ast
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

import json_repair

from toolmend.core.keyrules import TRAILING_COMMA

#: json-repair runs only on input up to this many characters: it is a pure-Python parser, slow
#: (super-linear on pathological input) and lossy, so a huge broken argument body must fail with
#: a clear error instead of stalling a stream or being silently reshaped.
MAX_REPAIR_INPUT = 256 * 1024
#: `ast.literal_eval` builds a whole syntax tree and recurses: it only sees text this small.
MAX_LITERAL_EVAL_INPUT = 64 * 1024

#: Digits a number written as text may have (Python refuses to convert more than 4300, and a
#: longer run is no number a tool means).
MAX_NUMBER_DIGITS = 300
_INTEGER_TEXT = re.compile(rf"[+-]?\d{{1,{MAX_NUMBER_DIGITS}}}")
_DECIMAL_TEXT = re.compile(
    rf"[+-]?(?:\d{{1,{MAX_NUMBER_DIGITS}}}\.?\d{{0,{MAX_NUMBER_DIGITS}}}|\.\d{{1,{MAX_NUMBER_DIGITS}}})"
    r"(?:[eE][+-]?\d{1,4})?"
)
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")
_WHITESPACE = " \t\r\n"

__all__ = [
    "MAX_LITERAL_EVAL_INPUT",
    "MAX_NESTING",
    "MAX_NUMBER_DIGITS",
    "MAX_REPAIR_INPUT",
    "DecodedArguments",
    "as_json_data",
    "decode_json_object",
    "json_type",
    "literal_as_json_data",
    "loads_json_data",
    "nesting_exceeds",
    "normalize_text",
    "normalize_value",
    "number_from_text",
    "repair_unicode_escapes",
    "split_concatenated",
]


#: Arguments nested deeper than this are refused: real tool arguments stay far shallower, and
#: every recursive step after decoding (normalising, validating, encoding) must stay within
#: Python's recursion limit on adversarial input.
MAX_NESTING = 100


def nesting_exceeds(value: Any, limit: int = MAX_NESTING) -> bool:
    """Whether `value` holds containers nested more than `limit` deep (iterative, no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth >= limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def normalize_text(s: str) -> str:
    """Replace lone UTF-16 surrogates with U+FFFD.

    A Python ``str`` holds a valid surrogate pair as one code point, so any surrogate code point
    left in a string is broken; replacing it is idempotent and safe per chunk of a stream.
    """
    if s.isascii():
        return s
    return _LONE_SURROGATE.sub("\ufffd", s)


def normalize_value(v: Any) -> Any:
    """Apply `normalize_text` to every string in a JSON-like value, keys included.

    Returns the very same object when nothing changed, so callers can detect a change with ``is``.
    """
    if isinstance(v, str):
        return normalize_text(v)
    if isinstance(v, dict):
        changed = False
        out: dict[Any, Any] = {}
        for k, item in v.items():
            nk = normalize_text(k) if isinstance(k, str) else k
            ni = normalize_value(item)
            changed = changed or nk is not k or ni is not item
            out[nk] = ni
        return out if changed else v
    if isinstance(v, list):
        items = [normalize_value(item) for item in v]
        if any(a is not b for a, b in zip(items, v, strict=True)):
            return items
        return v
    return v


def repair_unicode_escapes(json_text: str) -> str:
    """Make broken ``\\u`` escapes inside JSON string literals literal text so the JSON parses.

    ``"\\u12"`` or ``"\\uZZZZ"`` becomes ``"\\\\u12"`` (an escaped backslash followed by the text
    ``u12``); valid escapes and everything outside string literals are left untouched. Linear time.
    """
    if "\\u" not in json_text:
        return json_text
    out: list[str] = []
    start = 0
    i = 0
    n = len(json_text)
    in_string = False
    while i < n:
        c = json_text[i]
        if not in_string:
            if c == '"':
                in_string = True
            i += 1
            continue
        if c == '"':
            in_string = False
            i += 1
        elif c == "\\":
            if (
                i + 1 < n
                and json_text[i + 1] == "u"
                and not _HEX4.fullmatch(json_text, i + 2, i + 6)
            ):
                out.append(json_text[start:i])
                out.append("\\\\")  # the backslash becomes an escaped backslash; "u..." stays text
                start = i + 1
                i += 1
            else:
                i += 2  # a valid escape pair (or a trailing backslash): skip both characters
        else:
            i += 1
    if not out:
        return json_text
    out.append(json_text[start:])
    return "".join(out)


def split_concatenated(json_text: str) -> list[str] | None:
    """Split ``{..}{..}`` / ``{..} {..}`` / ``{..}\\n{..}`` into the object texts.

    Returns None when the text holds at most one top-level object, or anything other than objects
    separated by whitespace. A trailing unterminated object counts as one more piece (so a count is
    never lost). Braces inside strings are respected. Linear time, one pass.
    """
    pieces: list[str] = []
    depth = 0
    in_string = False
    escaped = False
    start = -1
    for i, c in enumerate(json_text):
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
            continue
        if depth == 0:
            if c in _WHITESPACE:
                continue
            if c != "{":
                return None
            start = i
            depth = 1
            continue
        if c == '"':
            in_string = True
        elif c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
            if depth == 0:
                pieces.append(json_text[start : i + 1])
    if depth > 0 and start >= 0:
        pieces.append(json_text[start:])
    return pieces if len(pieces) > 1 else None


@dataclass
class DecodedArguments:
    """Arguments decoded from JSON text: usually one object, several when they were concatenated."""

    objects: list[dict[str, Any]] = field(default_factory=list)
    repairs: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def _json_error(exc: Exception) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} (line {exc.lineno}, column {exc.colno})"
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    return type(exc).__name__


def _strict_loads(text: str) -> tuple[Any, str | None]:
    try:
        return json.loads(text), None
    except (ValueError, RecursionError) as exc:
        return None, _json_error(exc)


def _object_result(value: Any, repairs: list[str], allow_repair: bool) -> DecodedArguments:
    """Accept a decoded value if it is an object (or, when repairing, a string holding one)."""
    if isinstance(value, dict):
        return DecodedArguments([value], repairs)
    if isinstance(value, str) and allow_repair:
        inner, _ = _strict_loads(value.strip()) if value.strip().startswith("{") else (None, None)
        if isinstance(inner, dict):
            return DecodedArguments([inner], [*repairs, "parse-json-string"])
    kind = json_type(value, integers=False)
    return DecodedArguments([], repairs, f"arguments must be a JSON object, got {kind}")


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON data")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} does not fit a finite number")
    return value


def loads_json_data(text: str) -> Any:
    """Strict JSON text as data: `NaN`, `Infinity` and numbers beyond a float's range are
    refused, as JSON cannot carry them. Raises ValueError (also for nesting too deep to decode).
    """
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except RecursionError:
        raise ValueError("nested too deeply") from None


def as_json_data(value: Any, depth: int = 0) -> Any:
    """A Python value (what `ast.literal_eval` returns) as JSON data: tuples become lists.

    Raises ValueError for what JSON cannot carry: a set, bytes, a non-string key, a non-finite
    float, nesting deeper than `MAX_NESTING`.
    """
    if depth > MAX_NESTING:
        raise ValueError("nested too deeply")
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("not a finite number")
        return value
    if isinstance(value, (list, tuple)):
        return [as_json_data(item, depth + 1) for item in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: as_json_data(v, depth + 1) for k, v in value.items()}
    raise ValueError(f"{type(value).__name__} is not JSON data")


def literal_as_json_data(text: str) -> Any:
    """A Python literal (`{'a': (1, 2)}`, `True`, `None`) written as text, as JSON data.

    Raises ValueError when the text is longer than `MAX_LITERAL_EVAL_INPUT`, is not a literal,
    or holds what JSON cannot carry (see `as_json_data`).
    """
    if len(text) > MAX_LITERAL_EVAL_INPUT:
        raise ValueError("too long to read as a Python literal")
    try:
        value = ast.literal_eval(text)
    except (TypeError, SyntaxError, RecursionError, MemoryError) as exc:
        raise ValueError(f"not a Python literal ({type(exc).__name__})") from None
    return as_json_data(value)


def number_from_text(text: str) -> int | float | None:
    """The number a decimal literal stands for (`42`, `-3.5`, `1e3`, `.5`): an int when written
    without a point or exponent; None when the text is no such literal or not a finite number."""
    if _INTEGER_TEXT.fullmatch(text):
        return int(text)
    if _DECIMAL_TEXT.fullmatch(text):
        value = float(text)
        return value if math.isfinite(value) else None
    return None


def json_type(value: Any, *, integers: bool = True) -> str:
    """The JSON type name of a decoded value, as JSON Schema and error messages spell it.

    `null`, `boolean`, `integer` (an int, when `integers`; else `number`), `number`, `string`,
    `array`, `object`; for a value that is not JSON data, its Python type name.
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer" if integers else "number"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


#: A JSON string (skipped as it is) or a comma that only whitespace separates from a closer.
_STRING_OR_TRAILING_COMMA = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|,(?=[ \t\r\n]*[}\]])')


#: A JSON string (skipped as it is) or a bracket.
_STRING_OR_BRACKET = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')


def _brackets_nest_deeper_than(json_text: str, limit: int) -> bool:
    """Whether the brackets of `json_text` (outside strings) open more than `limit` deep."""
    depth = 0
    for m in _STRING_OR_BRACKET.finditer(json_text):
        tok = m.group()
        if tok in "[{":
            depth += 1
            if depth > limit:
                return True
        elif tok in "]}":
            depth = max(0, depth - 1)
    return False


def drop_trailing_commas(json_text: str) -> str:
    """`json_text` without its trailing commas (`{"a": 1,}`), strings left as they are.

    The shared trailing-comma rule (`toolmend.core.keyrules`): dropping one loses nothing.
    """
    return _STRING_OR_TRAILING_COMMA.sub(lambda m: "" if m.group() == "," else m.group(), json_text)


def _decode_one(
    text: str, *, allow_repair: bool, strict_error: str | None = None
) -> DecodedArguments:
    """Decode one JSON value; `strict_error` is the strict parse's error when already known."""
    err = strict_error
    if err is None:
        value, err = _strict_loads(text)
        if err is None:
            return _object_result(value, [], allow_repair)
    if not allow_repair:
        return DecodedArguments([], [], f"arguments are not valid JSON: {err}")
    repairs: list[str] = []
    fixed = repair_unicode_escapes(text)
    if fixed != text:
        repairs.append("escape-repair")
        value, err2 = _strict_loads(fixed)
        if err2 is None:
            return _object_result(value, repairs, allow_repair)
    without_commas = drop_trailing_commas(fixed)
    if without_commas != fixed:
        value, err3 = _strict_loads(without_commas)
        if err3 is None:
            return _object_result(value, [*repairs, TRAILING_COMMA], allow_repair)
    if len(fixed) > MAX_REPAIR_INPUT:
        return DecodedArguments(
            [],
            [],
            f"arguments are not valid JSON: {err}; too large to repair "
            f"({len(fixed)} characters, limit {MAX_REPAIR_INPUT})",
        )
    if _brackets_nest_deeper_than(fixed, MAX_NESTING):
        # json-repair's cost grows with the square of the nesting (and it gives up near 200
        # levels); arguments this deep are refused anyway (`nesting_exceeds`).
        return DecodedArguments(
            [], [], f"arguments are not valid JSON: {err}; nested too deeply to repair"
        )
    try:
        value = json_repair.loads(fixed)
    except Exception:  # json-repair is best effort; any failure of it is just "not JSON"
        value = None
    if isinstance(value, dict) and (value or fixed.lstrip().startswith("{")):
        return DecodedArguments([value], [*repairs, "json-repair"])
    return DecodedArguments([], [], f"arguments are not valid JSON: {err}")


def decode_json_object(raw: str, *, allow_repair: bool) -> DecodedArguments:
    """Decode a tool call's arguments written as JSON text.

    Strict ``json.loads`` first. With `allow_repair`: broken ``\\u`` escapes, then json-repair on
    input up to `MAX_REPAIR_INPUT`, and a JSON string holding an object is unwrapped. Concatenated
    objects are detected before any lossy repair and returned separately, never merged; the caller
    decides what several objects mean. Strings are returned as decoded (lone surrogates included):
    normalisation belongs to the schema gate, which records it.
    """
    text = raw.strip()
    if not text:
        if allow_repair:
            return DecodedArguments([{}], ["empty-as-object"])
        return DecodedArguments([], [], "arguments are empty; expected a JSON object")
    value, err = _strict_loads(text)
    if err is None:
        return _object_result(value, [], allow_repair)
    pieces = split_concatenated(text)
    if pieces is not None:
        objects: list[dict[str, Any]] = []
        repairs: list[str] = []
        for piece in pieces:
            one = _decode_one(piece, allow_repair=allow_repair)
            if one.error is not None:
                return DecodedArguments(
                    [], [], f"{len(pieces)} concatenated JSON objects; one of them: {one.error}"
                )
            objects.extend(one.objects)
            repairs.extend(r for r in one.repairs if r not in repairs)
        return DecodedArguments(objects, repairs)
    return _decode_one(text, allow_repair=allow_repair, strict_error=err)
