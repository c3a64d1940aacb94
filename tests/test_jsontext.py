"""JSON text handling: surrogates, broken escapes, concatenated objects, bounded decoding."""

from __future__ import annotations

import json
from typing import Any

import json_repair
import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolmend.jsontext import (
    MAX_LITERAL_EVAL_INPUT,
    MAX_NESTING,
    MAX_REPAIR_INPUT,
    as_json_data,
    decode_json_object,
    literal_as_json_data,
    loads_json_data,
    normalize_text,
    normalize_value,
    number_from_text,
    repair_unicode_escapes,
    split_concatenated,
)

json_scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=20)
json_objects = st.dictionaries(
    st.text(max_size=8),
    st.recursive(
        json_scalars,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
        max_leaves=8,
    ),
    max_size=4,
)

# -- normalize_text / normalize_value ------------------------------------------------------------


def test_a_lone_high_surrogate_becomes_the_replacement_character() -> None:
    assert normalize_text("a\ud800b") == "a\ufffdb"


def test_a_lone_low_surrogate_becomes_the_replacement_character() -> None:
    assert normalize_text("\udc00") == "\ufffd"


def test_text_without_surrogates_is_returned_as_the_same_object() -> None:
    text = "héllo 😀"
    assert normalize_text(text) is text


@given(st.text())
def test_normalize_text_is_idempotent(text: str) -> None:
    once = normalize_text(text)
    assert normalize_text(once) == once


@given(st.lists(st.text(), max_size=6))
def test_normalize_text_per_chunk_equals_normalize_text_of_the_whole(chunks: list[str]) -> None:
    assert "".join(normalize_text(c) for c in chunks) == normalize_text("".join(chunks))


def test_normalize_value_reaches_keys_and_nested_strings() -> None:
    value = {"k\ud800": ["x\udfff", {"y": "\ud801"}], "n": 1}
    assert normalize_value(value) == {"k\ufffd": ["x\ufffd", {"y": "\ufffd"}], "n": 1}


def test_normalize_value_returns_the_same_object_when_nothing_changes() -> None:
    value = {"a": ["b", {"c": 1}]}
    assert normalize_value(value) is value


# -- repair_unicode_escapes --------------------------------------------------------------------


def test_a_short_unicode_escape_becomes_literal_text() -> None:
    fixed = repair_unicode_escapes('{"a": "x\\u12 y"}')
    assert json.loads(fixed) == {"a": "x\\u12 y"}


def test_a_non_hex_unicode_escape_becomes_literal_text() -> None:
    fixed = repair_unicode_escapes('{"a": "\\uZZZZ"}')
    assert json.loads(fixed) == {"a": "\\uZZZZ"}


def test_valid_unicode_escapes_are_untouched() -> None:
    text = '{"a": "\\u00e9\\\\u12"}'
    assert repair_unicode_escapes(text) == text


def test_an_escaped_backslash_before_u_is_not_mistaken_for_an_escape() -> None:
    text = '{"a": "C:\\\\users"}'
    assert repair_unicode_escapes(text) == text


@given(st.text())
def test_repair_unicode_escapes_leaves_valid_json_strings_unchanged(text: str) -> None:
    encoded = json.dumps({"k": text})
    assert repair_unicode_escapes(encoded) == encoded


# -- split_concatenated ------------------------------------------------------------------------


def test_two_adjacent_objects_are_split() -> None:
    assert split_concatenated('{"a":1}{"b":2}') == ['{"a":1}', '{"b":2}']


def test_objects_separated_by_whitespace_and_newlines_are_split() -> None:
    assert split_concatenated('{"a":1} {"b":2}\n{"c":3}') == ['{"a":1}', '{"b":2}', '{"c":3}']


def test_braces_inside_strings_do_not_split() -> None:
    assert split_concatenated('{"a":"}{"}') is None
    assert split_concatenated('{"a":"}{\\"}"}{"b":"{"}') == ['{"a":"}{\\"}"}', '{"b":"{"}']


def test_a_single_object_is_not_concatenated() -> None:
    assert split_concatenated('{"a": {"b": [1, {"c": 2}]}}') is None


def test_text_that_is_not_objects_is_not_concatenated() -> None:
    assert split_concatenated('[1]{"a":1}') is None
    assert split_concatenated('{"a":1} trailing') is None


def test_a_trailing_unterminated_object_still_counts_as_a_piece() -> None:
    assert split_concatenated('{"a":1}{"b":') == ['{"a":1}', '{"b":']


@given(st.lists(json_objects, min_size=2, max_size=5), st.sampled_from(["", " ", "\n", " \n "]))
def test_split_concatenated_recovers_every_object(objects: list[dict[str, Any]], sep: str) -> None:
    pieces = split_concatenated(sep.join(json.dumps(o) for o in objects))
    assert pieces is not None
    assert [json.loads(p) for p in pieces] == objects


# -- decode_json_object ------------------------------------------------------------------------


def test_valid_json_decodes_without_repairs() -> None:
    decoded = decode_json_object('{"a": 1}', allow_repair=True)
    assert (decoded.objects, decoded.repairs, decoded.error) == ([{"a": 1}], [], None)


def test_broken_unicode_escapes_are_repaired_and_recorded() -> None:
    decoded = decode_json_object('{"a": "\\u12"}', allow_repair=True)
    assert decoded.objects == [{"a": "\\u12"}]
    assert decoded.repairs == ["escape-repair"]


def test_broken_json_is_repaired_by_json_repair_and_recorded() -> None:
    decoded = decode_json_object('{"a": 1, "b": "x"', allow_repair=True)
    assert decoded.objects == [{"a": 1, "b": "x"}]
    assert decoded.repairs == ["json-repair"]


def test_without_repair_broken_json_is_an_error_without_the_text() -> None:
    decoded = decode_json_object('{"secret": 1', allow_repair=False)
    assert decoded.objects == []
    assert decoded.error is not None
    assert decoded.error.startswith("arguments are not valid JSON: ")
    assert "secret" not in decoded.error


def test_a_json_string_holding_an_object_decodes_to_the_object() -> None:
    decoded = decode_json_object(json.dumps('{"a": 1}'), allow_repair=True)
    assert decoded.objects == [{"a": 1}]
    assert decoded.repairs == ["parse-json-string"]


def test_an_array_is_not_an_object() -> None:
    decoded = decode_json_object("[1, 2]", allow_repair=True)
    assert decoded.objects == []
    assert decoded.error == "arguments must be a JSON object, got array"


def test_a_number_is_not_an_object() -> None:
    assert decode_json_object("42", allow_repair=True).error == (
        "arguments must be a JSON object, got number"
    )


def test_prose_is_an_error_not_an_empty_object() -> None:
    decoded = decode_json_object("I cannot do that", allow_repair=True)
    assert decoded.objects == []
    assert decoded.error is not None


def test_three_concatenated_objects_are_returned_as_three() -> None:
    decoded = decode_json_object('{"a":1}{"b":2}\n{"c":3}', allow_repair=True)
    assert decoded.objects == [{"a": 1}, {"b": 2}, {"c": 3}]
    assert decoded.error is None


def test_same_shaped_concatenated_objects_are_never_merged() -> None:
    decoded = decode_json_object('{"path":"a"}{"path":"b"}', allow_repair=True)
    assert decoded.objects == [{"path": "a"}, {"path": "b"}]


def test_concatenated_objects_are_split_even_without_repair() -> None:
    decoded = decode_json_object('{"path":"a"} {"path":"b"}', allow_repair=False)
    assert decoded.objects == [{"path": "a"}, {"path": "b"}]


def test_a_broken_piece_of_concatenated_objects_fails_the_whole_with_the_count() -> None:
    decoded = decode_json_object('{"a":1}{"b":}', allow_repair=False)
    assert decoded.objects == []
    assert decoded.error is not None
    assert decoded.error.startswith("2 concatenated JSON objects")


def test_empty_text_is_an_empty_object_when_repairing() -> None:
    decoded = decode_json_object("  ", allow_repair=True)
    assert decoded.objects == [{}]
    assert decoded.repairs == ["empty-as-object"]


def test_empty_text_is_an_error_without_repair() -> None:
    assert decode_json_object("", allow_repair=False).error is not None


def test_json_repair_is_not_called_above_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(_: str) -> Any:
        raise AssertionError("json-repair called on unbounded input")

    monkeypatch.setattr(json_repair, "loads", forbidden)
    raw = '{"a": "' + "x" * MAX_REPAIR_INPUT + '"'
    decoded = decode_json_object(raw, allow_repair=True)
    assert decoded.objects == []
    assert decoded.error is not None
    assert "too large to repair" in decoded.error
    assert len(decoded.error) < 300


@pytest.mark.parametrize("text", ["NaN", "[Infinity]", '{"a": -Infinity}', "1e999", "[" * 5000])
def test_json_data_refuses_what_json_cannot_carry_and_nesting_too_deep_to_decode(
    text: str,
) -> None:
    with pytest.raises(ValueError):
        loads_json_data(text)


def test_json_data_reads_strict_json() -> None:
    assert loads_json_data('{"a": [1, 2.5, true, null]}') == {"a": [1, 2.5, True, None]}


def test_a_python_literal_becomes_json_data_with_tuples_as_lists() -> None:
    assert literal_as_json_data("{'a': (1, 2), 'b': None, 'c': True}") == {
        "a": [1, 2],
        "b": None,
        "c": True,
    }


@pytest.mark.parametrize(
    "text",
    [
        "{1, 2}",
        "{1: 'a'}",
        "b'x'",
        "float('inf')",
        "1e999",
        "[" * (MAX_NESTING + 2) + "]" * (MAX_NESTING + 2),
        "f(x)",
    ],
)
def test_a_literal_json_cannot_carry_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        literal_as_json_data(text)


def test_a_literal_longer_than_the_bound_is_not_evaluated() -> None:
    with pytest.raises(ValueError, match="too long"):
        literal_as_json_data("[" + "1, " * MAX_LITERAL_EVAL_INPUT + "]")
    assert as_json_data((1, [2, (3,)])) == [1, [2, [3]]]


@pytest.mark.parametrize(
    ("text", "number"),
    [("42", 42), ("-7", -7), ("+3", 3), ("2.5", 2.5), (".5", 0.5), ("1e3", 1000.0), ("3.", 3.0)],
)
def test_a_decimal_literal_is_the_number_it_writes(text: str, number: float) -> None:
    value = number_from_text(text)
    assert value == number and type(value) is type(number)


@pytest.mark.parametrize("text", ["", "1e999", "0x10", "1_000", "NaN", "1" * 601, "4 2", "e5"])
def test_what_is_no_finite_decimal_literal_is_no_number(text: str) -> None:
    assert number_from_text(text) is None
