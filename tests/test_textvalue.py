"""The one reading of value text (`toolmend.textvalue`), as each former copy of it read text:
Qwen3-Coder's parameters, morph-xml's scalar tags, the invoke family's JSON values, Kimi
XTML's typed arguments and the schema gate's string coercions."""

from __future__ import annotations

from typing import Any

import pytest

from toolmend.textvalue import NOT_READ, container_from_text, read_as, strict_json_as, typed_value

INT_OR_NULL = frozenset(("integer", "null"))


@pytest.mark.parametrize(
    ("text", "types", "value"),
    [
        ("null", frozenset(("string",)), "null"),  # a declared string keeps its text
        ("NULL", INT_OR_NULL, None),
        (" 42 ", INT_OR_NULL, 42),
        ("True", frozenset(("boolean",)), True),
        ("1.5", frozenset(("number",)), 1.5),
        ("1.0", frozenset(("integer",)), 1),  # an integer, as JSON Schema counts it
        ("[1, 2]", frozenset(("array",)), [1, 2]),
        ("{'a': (1, 2)}", frozenset(("object",)), {"a": [1, 2]}),  # the Python-literal fallback
        ("{'a': 1}", frozenset(("array",)), "{'a': 1}"),  # an object is no array
        ("seven", frozenset(("integer",)), "seven"),
        ("null", frozenset(("integer",)), None),  # the types cannot hold a string
        ("null", frozenset(("integer", "string")), "null"),
        # Python's None, as Qwen3.5-trained models write a null argument (vLLM's tests)
        ("None", INT_OR_NULL, None),
        ("None", frozenset(("string", "null")), None),
        ("None", frozenset(("string",)), "None"),
    ],
)
def test_declared_types_read_the_text_as_qwen3_coder_did(text: str, types: Any, value: Any) -> None:
    assert typed_value(text, types) == value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("42", 42),
        ("[1]", [1]),
        ('{"a": 1}', {"a": 1}),
        ('"x"', '"x"'),
        ("hello", "hello"),
        ("", ""),
    ],
)
def test_without_types_only_a_json_value_that_is_not_a_string_is_read(
    text: str, value: Any
) -> None:
    assert typed_value(text, None) == value


@pytest.mark.parametrize(
    ("text", "value"),
    [(" TRUE ", " TRUE "), ("true", True), ("[1]", [1]), ('"x"', '"x"'), ("{'a': 1}", "{'a': 1}")],
)
def test_strict_reading_takes_json_spellings_only_as_the_invoke_family_did(
    text: str, value: Any
) -> None:
    assert typed_value(text, frozenset(("boolean", "array", "object")), strict=True) == value


@pytest.mark.parametrize(
    ("text", "kind", "error"),
    [
        ("{'k': 1}", "object", "is not valid JSON for type object"),
        ("[1]", "object", "is not a JSON object"),
        ("true", "number", "is not a JSON number"),
        ("1e999", "number", "is not valid JSON for type number"),
        ("", "null", "is not valid JSON for type null"),
    ],
)
def test_a_wire_named_type_takes_strict_json_of_it_as_kimi_xtml_did(
    text: str, kind: str, error: str
) -> None:
    assert strict_json_as(text, kind) == (None, error)


def test_a_wire_named_type_reads_its_json() -> None:
    assert strict_json_as(" 12 ", "number") == (12, None)
    assert strict_json_as("null", "null") == (None, None)


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("FALSE", "boolean", False),
        ("yes", "boolean", NOT_READ),
        ("1e3", "number", 1000.0),
        ("1.5", "integer", NOT_READ),
        ("NaN", "number", NOT_READ),
        ("x", "string", "x"),
        ("[1", "array", NOT_READ),
    ],
)
def test_one_kind_reads_as_the_gate_coerced_strings(text: str, kind: str, value: Any) -> None:
    assert read_as(text, kind) == value


def test_containers_are_repaired_only_when_asked() -> None:
    broken = '{"a": "\\u12"}'
    assert container_from_text(broken) is None
    assert container_from_text(broken, repair=True) == ({"a": "\\u12"}, "parse-json")
    assert container_from_text("{'a': 1}") == ({"a": 1}, "parse-literal")
    assert container_from_text("42") is None  # only containers count


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('[{\\"id\\": \\"1\\"}]', [{"id": "1"}]),  # every quote escaped: JSON encoded twice
        ('{\\"path\\": \\"C:\\\\\\\\tmp\\"}', {"path": "C:\\tmp"}),
        ('[\n  {\\"id\\": 1}\n]', [{"id": 1}]),  # pretty-printed, then escaped
    ],
)
def test_a_container_encoded_twice_reads_as_the_container(text: str, value: Any) -> None:
    # SGLang's GLM tests: GLM-4.6 writing an array argument with its quotes escaped.
    assert container_from_text(text) == (value, "parse-json")
    assert typed_value(text, frozenset(("array", "object"))) == value


@pytest.mark.parametrize(
    ("text", "value", "how"),
    [
        # vLLM's test_qwen3_xml_coder_shared.py, test_double_encoded_object_param_nonstreaming
        ("\"{'key': 'value', 'n': 1}\"", {"key": "value", "n": 1}, "parse-literal"),
        ('"{\\"key\\": \\"value\\"}"', {"key": "value"}, "parse-json"),  # JSON in a JSON string
        ('"[1, 2]"', [1, 2], "parse-json"),
    ],
)
def test_a_container_written_as_a_json_string_reads_as_the_container(
    text: str, value: Any, how: str
) -> None:
    assert container_from_text(text) == (value, how)
    assert typed_value(text, frozenset(("array", "object"))) == value


@pytest.mark.parametrize("text", ['"hello"', '"{not json"', '"\\"[1]\\""'])
def test_a_json_string_holding_no_container_or_a_string_again_stays_text(text: str) -> None:
    assert container_from_text(text) is None  # one level only: a string inside stays a string
    assert typed_value(text, frozenset(("object",))) == text
    assert typed_value('"[1, 2]"', None) == '"[1, 2]"'  # no declared type: the text as written


def test_text_with_escaped_quotes_that_is_no_json_stays_text() -> None:
    text = 'say \\"hi\\"'
    assert typed_value(text, frozenset(("array",))) == text


# SGLang's test/registered/function_call/test_nonfinite_coercion.py (a port of vLLM #43984):
# a container holding a number JSON cannot carry is no container; its text stays as written.
NON_FINITE_CONTAINERS = ["[1e999]", "[1, 2, 1e999]", "[Infinity]", "[NaN]", '{"x": 1e999}',
                         "(1e999,)", "{'x': 1e999}"]  # fmt: skip


@pytest.mark.parametrize("raw", NON_FINITE_CONTAINERS)
@pytest.mark.parametrize("repair", [False, True])
def test_a_container_holding_a_non_finite_number_is_not_read(raw: str, repair: bool) -> None:
    assert container_from_text(raw, repair=repair) is None
    kind = "object" if raw.startswith("{") else "array"
    assert typed_value(raw, frozenset((kind,))) == raw


def test_finite_containers_are_still_read() -> None:
    assert typed_value("[1, 2, 3]", frozenset(("array",))) == [1, 2, 3]
    assert typed_value('{"a": 1}', frozenset(("object",))) == {"a": 1}
