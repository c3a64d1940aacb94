"""Value text to typed value: what `42`, `true`, `null` or `[1, 2]` written as text stand for.

Formats that write parameter values as text (invoke XML, Qwen3-Coder, morph-xml, Kimi XTML)
and the schema gate's string coercions all ask one question: read as JSON type K, what is this
text? This module answers it once:

* `read_as(text, kind)`: the reading of one JSON kind. `null` (and Python's `None`, which models
  trained on templates that render a null argument with Python's `str` write: vLLM's Qwen3.5
  tests), `true`/`false` in any letter case,
  decimal numbers (an integer also when written with a zero fraction, `1.0`, as JSON Schema
  counts it), arrays and objects as JSON or else as a Python literal (`{'a': (1, 2)}`), strings
  as they are. With `strict`, only strict JSON of that kind (a format whose wire names the type
  and rejects anything else).
* `typed_value(text, types)`: the value of a text whose parameter declares `types` (the
  first kind that reads it, in the order null, boolean, integer, number, array/object), or the
  text itself; without types (or `strict`), a JSON value that is not a string, or the text.
* `container_from_text`: the array/object reading (also JSON encoded twice, its quotes
  escaped, or the container written as a JSON string: `"{'a': 1}"`), with the bounded repairs
  the gate may apply.

It never looks at a schema (callers pass the declared types, `schema_gate.declared_types`),
never validates and never records repairs: the schema gate decides what a value means.
"""

from __future__ import annotations

import json
from typing import Any, Final

import json_repair

from toolmend.jsontext import (
    MAX_REPAIR_INPUT,
    as_json_data,
    literal_as_json_data,
    loads_json_data,
    number_from_text,
    repair_unicode_escapes,
)

__all__ = ["NOT_READ", "container_from_text", "read_as", "strict_json_as", "typed_value"]


class _NotRead:
    """The answer for a text that is not a value of the asked kind."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NOT_READ"


NOT_READ: Final = _NotRead()

_WS = " \t\r\n"
#: The words read as null: JSON's, and Python's `None`.
_NULL_WORDS = frozenset(("null", "none"))
_STRING = frozenset(("string",))
#: The first characters of a JSON value other than a string.
_JSON_START = frozenset("-0123456789tfn[{")


def read_as(text: str, kind: str) -> Any:
    """`text` read as a value of the JSON type `kind`, or `NOT_READ` (see the module doc)."""
    word = text.strip(_WS)
    if kind == "string":
        return text
    if kind == "null":
        return None if word.lower() in _NULL_WORDS else NOT_READ
    if kind == "boolean":
        lowered = word.lower()
        return lowered == "true" if lowered in ("true", "false") else NOT_READ
    if kind in ("integer", "number"):
        number = number_from_text(word)
        if number is None:
            return NOT_READ
        if kind == "number" or isinstance(number, int):
            return number
        return int(number) if number.is_integer() else NOT_READ
    if kind in ("array", "object"):
        found = container_from_text(word)
        if found is None or not isinstance(found[0], list if kind == "array" else dict):
            return NOT_READ
        return found[0]
    return NOT_READ


def strict_json_as(text: str, kind: str) -> tuple[Any, str | None]:
    """`text` as strict JSON of `kind` (`number` takes integers too): (value, None), or
    (None, why not) when it is not valid JSON or not of that kind."""
    try:
        value = loads_json_data(text.strip(_WS))
    except ValueError:
        return None, f"is not valid JSON for type {kind}"
    if kind in ("number", "integer"):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        ok = ok and (kind == "number" or isinstance(value, int))
    elif kind == "boolean":
        ok = isinstance(value, bool)
    elif kind == "object":
        ok = isinstance(value, dict)
    elif kind == "array":
        ok = isinstance(value, list)
    elif kind == "string":
        ok = isinstance(value, str)
    else:
        ok = value is None
    return (value, None) if ok else (None, f"is not a JSON {kind}")


def container_from_text(text: str, *, repair: bool = False) -> tuple[Any, str] | None:
    """A JSON array/object written as text: (value, "parse-json" or "parse-literal"), or None.

    JSON first, then a Python literal. With `repair` (the gate's lenient policy), also JSON with
    its broken `\\u` escapes made literal, and json-repair on bounded input. Only containers
    count: text that reads as a scalar is None, and so is a container holding a number JSON
    cannot carry (`[1e999]`, `{"x": NaN}`: it stays the text, as SGLang's and vLLM's coercions
    keep it).
    """
    t = text.strip()
    if len(t) > 1 and t[0] == t[-1] == '"':
        return _quoted_container(t, repair=repair)
    if not t or t[0] not in "[{(":
        return None
    candidates = [t, repair_unicode_escapes(t)] if repair else [t]
    if '\\"' in t:
        candidates.append(_escaped_json(t))
    for candidate in candidates:
        try:
            value = loads_json_data(candidate)
        except ValueError:
            continue
        if isinstance(value, (dict, list)):
            return value, "parse-json"
    try:
        value = literal_as_json_data(t)
    except ValueError:
        value = None
    if isinstance(value, (dict, list)):
        return value, "parse-literal"
    if repair and len(t) <= MAX_REPAIR_INPUT and t[0] != "(":
        try:
            value = as_json_data(json_repair.loads(t))
        except Exception:  # json-repair is best effort; its failure is just "no parse"
            value = None
        if isinstance(value, (dict, list)):
            return value, "parse-json"
    return None


def _quoted_container(text: str, *, repair: bool) -> tuple[Any, str] | None:
    """A container written as a JSON string literal (`"{'key': 'value'}"`, `"[1, 2]"`: the
    value encoded once more, as vLLM's Qwen3-Coder tests show): the string's content read as a
    container, one level only (a string inside it stays a string)."""
    try:
        inner = json.loads(text)
    except ValueError:
        return None
    if not isinstance(inner, str) or inner.strip()[:1] not in ("[", "{", "("):
        return None
    return container_from_text(inner, repair=repair)


def _escaped_json(text: str) -> str:
    """JSON written as the inside of a JSON string (`[{\\"id\\": \\"1\\"}]`, every quote
    escaped), as models that encode a value twice write it (SGLang's GLM-4.7 tests read such an
    array as the array): the text decoded as a string's content, or "" when it is not one."""
    try:
        decoded = _LENIENT_STRINGS.decode(f'"{text}"')  # raw line breaks between items allowed
    except (ValueError, RecursionError):
        return ""
    return decoded if isinstance(decoded, str) else ""


_LENIENT_STRINGS = json.JSONDecoder(strict=False)


def typed_value(text: str, types: frozenset[str] | None, *, strict: bool = False) -> Any:
    """The value of `text` for a parameter declaring `types` (None: no declared type).

    With types: null (when "null" is declared or the types cannot hold a string), then
    boolean, integer, number, array/object; the text itself when none of them reads it. A
    declared string keeps the text as written, even `null`. Without types: a JSON number,
    boolean, null, array or object is read; anything else (a JSON string literal too) stays the
    text as written. With `strict` (a format whose non-string values are JSON: the invoke
    family), only that last reading, whatever the types.
    """
    if types is None or strict:
        return _json_non_string(text)
    if types == _STRING:
        return text
    if ("null" in types or "string" not in types) and read_as(text, "null") is None:
        return None
    for kind in ("boolean", "integer", "number", "array", "object"):
        if kind in types:
            value = read_as(text, kind)
            if value is not NOT_READ:
                return value
    return text


def _json_non_string(text: str) -> Any:
    word = text.strip(_WS)
    if not word or word[0] not in _JSON_START:
        return text
    try:
        value = loads_json_data(word)
    except ValueError:
        return text
    return text if isinstance(value, str) else value
