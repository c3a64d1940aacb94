"""The schema gate: validation first, then validation-gated repairs, each recorded."""

from __future__ import annotations

from typing import Any

import json_repair
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolmend import schema_gate
from toolmend.jsontext import MAX_REPAIR_INPUT
from toolmend.model import Tool
from toolmend.schema_gate import GateResult, Policy, SchemaGate, declared_types, schema_types


def gate(properties: dict[str, Any], policy: Policy = Policy.LENIENT, **schema: Any) -> SchemaGate:
    parameters = {"type": "object", "properties": properties, **schema}
    return SchemaGate(Tool("t", parameters=parameters), policy)


def one(prop: dict[str, Any], **schema: Any) -> SchemaGate:
    return gate({"x": prop}, **schema)


def check(g: SchemaGate, arguments: dict[str, Any]) -> GateResult:
    return g.check(arguments)


EDIT = {
    "file_path": {"type": "string"},
    "old_string": {"type": "string"},
    "new_string": {"type": "string"},
}

# -- validation --------------------------------------------------------------------------------


def test_valid_arguments_pass_unchanged_with_no_repairs() -> None:
    result = gate(EDIT).check({"file_path": "a", "old_string": "b"})
    assert (result.arguments, result.repairs, result.error, result.valid) == (
        {"file_path": "a", "old_string": "b"},
        [],
        None,
        True,
    )


def test_without_a_tool_any_object_is_valid() -> None:
    result = SchemaGate(None).check({"anything": [1, {"x": "y"}]})
    assert result.valid
    assert result.arguments == {"anything": [1, {"x": "y"}]}


def test_non_object_arguments_are_an_error() -> None:
    result = gate(EDIT).check([1, 2])  # type: ignore[arg-type]
    assert result.error == "arguments must be a JSON object, got array"


def test_a_missing_required_parameter_is_named_in_the_error() -> None:
    result = gate(EDIT, required=["file_path"]).check({})
    assert result.error == "invalid arguments: 'file_path' is a required property"


def test_the_error_names_the_failing_parameter_and_not_the_argument_body() -> None:
    result = gate({"count": {"type": "integer"}, "body": {"type": "string"}}).check(
        {"count": "many", "body": "SECRET" * 1000}
    )
    assert result.error is not None
    assert "'count'" in result.error
    assert "SECRET" not in result.error
    assert len(result.error) <= schema_gate.MAX_ERROR_CHARS


def test_a_long_invalid_value_is_only_previewed_in_the_error() -> None:
    result = one({"type": "integer"}).check({"x": "y" * 10_000})
    assert result.error is not None
    assert len(result.error) <= schema_gate.MAX_ERROR_CHARS


def test_validation_follows_refs() -> None:
    g = SchemaGate(
        Tool(
            "t",
            parameters={
                "type": "object",
                "properties": {"x": {"$ref": "#/$defs/n"}},
                "$defs": {"n": {"type": "integer"}},
            },
        ),
        Policy.STRICT,
    )
    assert g.check({"x": 1}).valid
    assert not g.check({"x": "one"}).valid


def test_gates_for_the_same_schema_share_one_compiled_validator() -> None:
    a = SchemaGate(
        Tool("a", parameters={"type": "object", "properties": {"q": {"type": "string"}}})
    )
    b = SchemaGate(
        Tool("b", parameters={"properties": {"q": {"type": "string"}}, "type": "object"})
    )
    assert a._compiled is b._compiled


# -- policy ------------------------------------------------------------------------------------


def test_strict_applies_no_repairs() -> None:
    g = gate({"count": {"type": "integer"}, **EDIT}, Policy.STRICT, additionalProperties=False)
    args = {"path": "a", "count": "5", "extra": True}
    result = g.check(args)
    assert result.arguments == args
    assert result.repairs == []
    assert not result.valid


def test_strict_still_normalises_lone_surrogates_and_records_it() -> None:
    result = gate(EDIT, Policy.STRICT).check({"file_path": "a\ud800"})
    assert result.arguments == {"file_path": "a\ufffd"}
    assert result.repairs == ["surrogate:file_path"]


def test_strict_decoding_does_not_repair_json() -> None:
    assert gate(EDIT, Policy.STRICT).decode_json_object('{"file_path": "a"').error is not None


def test_lenient_decoding_repairs_json() -> None:
    decoded = gate(EDIT).decode_json_object('{"file_path": "a"')
    assert decoded.objects == [{"file_path": "a"}]


def test_invalid_after_repairs_returns_the_original_arguments_and_no_repairs() -> None:
    g = gate({"count": {"type": "integer"}, "mode": {"enum": ["a", "b"]}})
    result = g.check({"count": "5", "mode": "zzz"})
    assert result.arguments == {"count": "5", "mode": "zzz"}
    assert result.repairs == []
    assert result.error is not None


# -- scalar coercions ----------------------------------------------------------------------------


def test_a_numeric_string_becomes_an_integer() -> None:
    result = gate({"count": {"type": "integer"}}).check({"count": "5"})
    assert result.arguments == {"count": 5}
    assert result.repairs == ["coerce:count:string->integer"]


def test_a_non_numeric_string_for_an_integer_stays_an_error() -> None:
    result = gate({"count": {"type": "integer"}}).check({"count": "abc"})
    assert result.arguments == {"count": "abc"}
    assert not result.valid


def test_a_fractional_string_is_not_truncated_to_an_integer() -> None:
    assert not gate({"count": {"type": "integer"}}).check({"count": "2.5"}).valid


def test_a_decimal_string_becomes_a_number() -> None:
    result = one({"type": "number"}).check({"x": "2.5"})
    assert result.arguments == {"x": 2.5}
    assert result.repairs == ["coerce:x:string->number"]


def test_a_coercion_that_breaks_a_constraint_is_refused() -> None:
    assert not one({"type": "integer", "maximum": 3}).check({"x": "5"}).valid


def test_boolean_strings_of_any_case_and_padding_become_booleans() -> None:
    g = one({"type": "boolean"})
    assert g.check({"x": " TRUE "}).arguments == {"x": True}
    assert g.check({"x": "False"}).arguments == {"x": False}
    assert g.check({"x": "true"}).repairs == ["coerce:x:string->boolean"]


def test_other_words_for_yes_are_not_booleans() -> None:
    assert not one({"type": "boolean"}).check({"x": "yes"}).valid


def test_a_quoted_number_becomes_a_number() -> None:
    result = one({"type": "integer"}).check({"x": '"2"'})
    assert result.arguments == {"x": 2}


def test_a_number_becomes_a_string_when_a_string_is_wanted() -> None:
    result = one({"type": "string"}).check({"x": 5})
    assert result.arguments == {"x": "5"}
    assert result.repairs == ["coerce:x:integer->string"]


def test_a_boolean_becomes_a_string_when_a_string_is_wanted() -> None:
    result = one({"type": "string"}).check({"x": True})
    assert result.arguments == {"x": "true"}
    assert result.repairs == ["coerce:x:boolean->string"]


def test_a_number_is_not_stringified_when_the_string_would_not_validate() -> None:
    assert not one({"type": "string", "pattern": "^[a-z]+$"}).check({"x": 5}).valid


# -- enums -------------------------------------------------------------------------------------


def test_an_enum_value_is_matched_ignoring_case_whitespace_and_quotes() -> None:
    result = one({"type": "string", "enum": ["Fast", "slow"]}).check({"x": " 'fast' "})
    assert result.arguments == {"x": "Fast"}
    assert result.repairs == ["enum:x"]


def test_an_enum_value_matching_two_members_is_refused() -> None:
    assert not one({"enum": ["Fast", "fast"]}).check({"x": "FAST"}).valid


def test_a_quoted_string_is_unquoted_to_match_a_const() -> None:
    result = one({"const": "x"}).check({"x": "'x'"})
    assert result.arguments == {"x": "x"}
    assert result.repairs == ["const:x"]


# -- strings holding containers ------------------------------------------------------------------


def test_a_json_string_becomes_an_object() -> None:
    result = one({"type": "object", "properties": {"a": {"type": "integer"}}}).check(
        {"x": '{"a": 1}'}
    )
    assert result.arguments == {"x": {"a": 1}}
    assert result.repairs == ["parse-json:x"]


def test_a_json_string_with_a_broken_escape_becomes_an_object() -> None:
    result = one({"type": "object"}).check({"x": '{"a": "\\u12"}'})
    assert result.arguments == {"x": {"a": "\\u12"}}


def test_broken_json_in_a_string_is_repaired_into_an_array() -> None:
    result = one({"type": "array", "items": {"type": "integer"}}).check({"x": "[1, 2"})
    assert result.arguments == {"x": [1, 2]}
    assert result.repairs == ["parse-json:x"]


def test_a_python_list_literal_becomes_an_array() -> None:
    result = one({"type": "array", "items": {"type": "string"}}).check({"x": "['a', 'b']"})
    assert result.arguments == {"x": ["a", "b"]}
    assert result.repairs == ["parse-literal:x"]


def test_a_parsed_object_that_does_not_validate_is_refused() -> None:
    g = one({"type": "object", "properties": {"a": {"type": "integer"}}})
    result = g.check({"x": '{"a": "nope"}'})
    assert result.arguments == {"x": '{"a": "nope"}'}
    assert not result.valid


def test_json_repair_is_not_called_on_an_oversized_string(monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(_: str) -> Any:
        raise AssertionError("json-repair called on unbounded input")

    monkeypatch.setattr(json_repair, "loads", forbidden)
    schema = {"type": "array", "items": {"type": "integer"}}
    result = one(schema).check({"x": "[" + "1," * MAX_REPAIR_INPUT})
    assert not result.valid


# -- arrays ------------------------------------------------------------------------------------


def test_a_scalar_is_wrapped_when_an_array_is_expected() -> None:
    result = one({"type": "array", "items": {"type": "string"}}).check({"x": "a.txt"})
    assert result.arguments == {"x": ["a.txt"]}
    assert result.repairs == ["wrap-array:x"]


def test_a_wrapped_scalar_is_coerced_to_the_item_type() -> None:
    result = one({"type": "array", "items": {"type": "integer"}}).check({"x": "7"})
    assert result.arguments == {"x": [7]}
    assert result.repairs == ["wrap-array:x", "coerce:x.0:string->integer"]


def test_a_string_that_failed_to_parse_as_an_array_is_not_wrapped() -> None:
    schema = {"type": "array", "items": {"type": "string"}, "minItems": 1}
    assert not one(schema).check({"x": "[}"}).valid


def test_a_scalar_is_not_wrapped_when_the_item_would_not_validate() -> None:
    assert not one({"type": "array", "items": {"type": "integer"}}).check({"x": "abc"}).valid


def test_array_items_are_coerced_in_place() -> None:
    result = one({"type": "array", "items": {"type": "integer"}}).check({"x": [1, "2"]})
    assert result.arguments == {"x": [1, 2]}
    assert result.repairs == ["coerce:x.1:string->integer"]


def test_prefix_items_are_coerced_by_position() -> None:
    schema = {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]}
    result = one(schema).check({"x": [1, "2"]})
    assert result.arguments == {"x": ["1", 2]}


# -- names -------------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["File_Path", "file-path", "filePath", "FILE PATH"])
def test_a_case_or_separator_variant_is_renamed_to_the_declared_property(key: str) -> None:
    result = gate(EDIT, required=["file_path"]).check({key: "a"})
    assert result.arguments == {"file_path": "a"}
    assert result.repairs == [f"rename:{key}->file_path"]


def test_a_name_variant_matching_two_declared_properties_is_not_renamed() -> None:
    g = gate(
        {"file_path": {"type": "string"}, "filePath": {"type": "string"}}, required=["file_path"]
    )
    assert not g.check({"FILE-PATH": "a"}).valid


@pytest.mark.parametrize(
    ("alias", "target"),
    [
        ("path", "file_path"),
        ("filename", "file_path"),
        ("old_str", "old_string"),
        ("oldText", "old_string"),
        ("new_text", "new_string"),
    ],
)
def test_an_alias_is_renamed_to_the_declared_member(alias: str, target: str) -> None:
    result = gate(EDIT, required=[target]).check({alias: "v"})
    assert result.arguments == {target: "v"}
    assert result.repairs == [f"rename:{alias}->{target}"]


def test_an_alias_resolves_to_whichever_member_the_schema_declares() -> None:
    result = gate({"cmd": {"type": "string"}}, required=["cmd"]).check({"command": "ls"})
    assert result.arguments == {"cmd": "ls"}


def test_an_alias_is_not_renamed_when_the_target_is_already_present() -> None:
    g = gate({**EDIT, "count": {"type": "integer"}}, required=["file_path"])
    result = g.check({"file_path": "a", "path": "b", "count": "1"})
    assert result.arguments == {"file_path": "a", "path": "b", "count": 1}
    assert result.repairs == ["coerce:count:string->integer"]


def test_two_aliases_for_one_target_are_both_refused() -> None:
    g = gate(EDIT, required=["file_path"])
    assert not g.check({"path": "a", "filename": "b"}).valid


def test_a_renamed_key_keeps_its_position() -> None:
    g = gate({"a": {"type": "integer"}, **EDIT, "z": {"type": "integer"}}, required=["file_path"])
    result = g.check({"a": 1, "path": "p", "z": 2})
    assert list(result.arguments) == ["a", "file_path", "z"]


# -- unknown keys ------------------------------------------------------------------------------


def test_an_unknown_key_is_dropped_when_additional_properties_are_forbidden() -> None:
    result = gate(EDIT, additionalProperties=False).check({"file_path": "a", "requireUnique": True})
    assert result.arguments == {"file_path": "a"}
    assert result.repairs == ["drop:requireUnique"]


def test_an_unknown_key_is_kept_when_additional_properties_are_allowed() -> None:
    g = gate({"count": {"type": "integer"}})
    result = g.check({"count": "1", "requireUnique": True})
    assert result.arguments == {"count": 1, "requireUnique": True}
    assert result.repairs == ["coerce:count:string->integer"]


def test_unknown_keys_are_dropped_in_nested_objects_inside_arrays() -> None:
    item = {
        "type": "object",
        "properties": {"n": {"type": "string"}},
        "additionalProperties": False,
    }
    result = one({"type": "array", "items": item}).check({"x": [{"n": "a", "oldText2": "b"}]})
    assert result.arguments == {"x": [{"n": "a"}]}
    assert result.repairs == ["drop:x.0.oldText2"]


def test_a_key_allowed_by_pattern_properties_is_not_unknown() -> None:
    g = gate(
        {"a": {"type": "integer"}},
        patternProperties={"^x-": {"type": "string"}},
        additionalProperties=False,
    )
    result = g.check({"a": "1", "x-tag": "t", "junk": 0})
    assert result.arguments == {"a": 1, "x-tag": "t"}


def test_an_unknown_key_is_dropped_when_unevaluated_properties_are_forbidden() -> None:
    result = gate(EDIT, unevaluatedProperties=False).check({"file_path": "a", "type": "edit"})
    assert result.arguments == {"file_path": "a"}
    assert result.repairs == ["drop:type"]


# -- combinators and references ------------------------------------------------------------------


def test_the_first_any_of_branch_that_validates_is_taken() -> None:
    result = one({"anyOf": [{"type": "integer"}, {"type": "boolean"}]}).check({"x": "true"})
    assert result.arguments == {"x": True}


def test_a_value_is_repaired_through_a_local_ref() -> None:
    g = SchemaGate(
        Tool(
            "t",
            parameters={
                "type": "object",
                "properties": {"x": {"$ref": "#/$defs/n"}},
                "$defs": {"n": {"type": "integer"}},
            },
        )
    )
    assert g.check({"x": "3"}).arguments == {"x": 3}


# -- surrogates --------------------------------------------------------------------------------


def test_lone_surrogates_in_keys_and_values_are_replaced_and_recorded() -> None:
    result = SchemaGate(None).check({"a": "x\udc00", "b": "ok"})
    assert result.arguments == {"a": "x\ufffd", "b": "ok"}
    assert result.repairs == ["surrogate:a"]


def test_an_invalid_call_keeps_only_surrogate_normalisation() -> None:
    result = gate({"count": {"type": "integer"}}).check({"count": "x\ud800"})
    assert result.arguments == {"count": "x\ufffd"}
    assert not result.valid


# -- streaming queries -------------------------------------------------------------------------


def test_declares_is_exact() -> None:
    g = gate(EDIT)
    assert g.declares("file_path")
    assert not g.declares("path")
    assert not g.declares("File_Path")


def test_declares_any_key_without_a_tool_or_declared_properties() -> None:
    assert SchemaGate(None).declares("anything")
    assert SchemaGate(Tool("t")).declares("anything")


def test_a_plain_string_property_streams_as_is() -> None:
    g = gate({**EDIT, "n": {"type": ["string"], "maxLength": 3}})
    assert g.streams_string_as_is("file_path")
    assert g.streams_string_as_is("n")


def test_enum_const_non_string_and_undeclared_properties_do_not_stream_as_is() -> None:
    g = gate(
        {"m": {"type": "string", "enum": ["a"]}, "c": {"const": "a"}, "n": {"type": "integer"}}
    )
    assert not g.streams_string_as_is("m")
    assert not g.streams_string_as_is("c")
    assert not g.streams_string_as_is("n")
    assert not g.streams_string_as_is("undeclared")


def test_every_key_streams_as_is_without_a_tool() -> None:
    assert SchemaGate(None).streams_string_as_is("x")


def test_value_as_is_holds_for_a_valid_declared_value_only() -> None:
    g = gate({"count": {"type": "integer"}})
    assert g.value_as_is("count", 3)
    assert not g.value_as_is("count", "3")
    assert not g.value_as_is("Count", 3)
    assert SchemaGate(None).value_as_is("anything", object())


def test_a_declared_valid_key_is_never_changed_or_moved_by_repairs() -> None:
    g = gate({"count": {"type": "integer"}, **EDIT}, additionalProperties=False)
    result = g.check({"junk": 1, "file_path": "a", "oldText": "o", "count": "2"})
    assert result.valid
    assert list(result.arguments) == ["file_path", "old_string", "count"]
    assert result.arguments["file_path"] == "a"


# -- properties --------------------------------------------------------------------------------

safe_text = st.text(st.characters(codec="utf-8"), max_size=30)
PROPERTY_SCHEMA: dict[str, Any] = {
    "file_path": {"type": "string"},
    "count": {"type": "integer", "minimum": 0},
    "ratio": {"type": "number"},
    "flag": {"type": "boolean"},
    "mode": {"type": "string", "enum": ["fast", "slow"]},
    "paths": {"type": "array", "items": {"type": "string"}},
    "opts": {
        "type": "object",
        "properties": {"depth": {"type": "integer"}, "label": {"type": "string"}},
        "additionalProperties": False,
    },
    "either": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
}
valid_arguments = st.fixed_dictionaries(
    {"file_path": safe_text},
    optional={
        "count": st.integers(min_value=0),
        "ratio": st.floats(allow_nan=False, allow_infinity=False),
        "flag": st.booleans(),
        "mode": st.sampled_from(["fast", "slow"]),
        "paths": st.lists(safe_text, max_size=4),
        "opts": st.fixed_dictionaries({}, optional={"depth": st.integers(), "label": safe_text}),
        "either": st.integers() | safe_text,
    },
)


@settings(max_examples=200)
@given(valid_arguments)
def test_valid_arguments_are_returned_unchanged_with_no_repairs(arguments: dict[str, Any]) -> None:
    g = gate(PROPERTY_SCHEMA, required=["file_path"], additionalProperties=False)
    result = g.check(arguments)
    assert result.valid
    assert result.repairs == []
    assert result.arguments == arguments
    assert list(result.arguments) == list(arguments)
    assert all(g.value_as_is(k, v) for k, v in arguments.items())


def test_the_types_a_subschema_asks_for_are_named_or_inferred_from_its_keywords() -> None:
    assert schema_types({"type": ["string", "null"]}) == {"string", "null"}
    assert schema_types({"required": ["a"]}) == {"object"}
    assert schema_types({"prefixItems": [{}]}) == {"array"}
    assert schema_types({"enum": ["a", 1]}) == {"string", "integer"}
    assert schema_types(["not", "a", "schema"]) == set()


def test_declared_types_follow_branches_and_members_and_know_when_they_cannot_tell() -> None:
    either = {"anyOf": [{"type": "integer"}, {"enum": ["auto"]}]}
    assert declared_types(either) == {"integer", "string"}
    assert declared_types({"anyOf": [{"type": "integer"}, {}]}) is None  # `{}` allows anything
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(500):
        deep = {"anyOf": [deep]}
    assert declared_types(deep) is None  # bounded, not a RecursionError
