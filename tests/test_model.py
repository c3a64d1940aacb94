"""The canonical model: tools, calls, ids and events."""

from __future__ import annotations

import re
from typing import Any

import pytest
from jsonschema import Draft202012Validator

import toolmend
from toolmend.events import TextDelta, ToolCallDelta, ToolCallStart, coalesce
from toolmend.model import CallIdFactory, Tool, ToolSchemaError, coerce_tools

SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}}


def test_a_tool_is_built_from_an_openai_definition() -> None:
    tool = Tool.from_dict({"type": "function", "function": {"name": "s", "parameters": SCHEMA}})
    assert (tool.name, tool.parameters) == ("s", SCHEMA)


def test_a_tool_is_built_from_a_bare_definition_and_defaults_to_any_object() -> None:
    assert Tool.from_dict({"name": "s", "description": "d"}).parameters["type"] == "object"


def test_an_invalid_schema_raises_an_error_naming_the_tool() -> None:
    with pytest.raises(ToolSchemaError, match=r"tool 'broken'.*properties/q"):
        Tool.from_dict({"name": "broken", "parameters": {"properties": {"q": {"type": 7}}}})


def test_an_invalid_schema_is_refused_again_when_its_check_comes_from_the_cache() -> None:
    broken = {"name": "again", "parameters": {"properties": {"q": {"type": 8}}}}
    for _ in range(2):
        with pytest.raises(ToolSchemaError, match=r"tool 'again'.*properties/q"):
            Tool.from_dict(broken)


def test_a_schema_is_checked_against_the_meta_schema_once_per_distinct_schema(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    checks = []
    original = Draft202012Validator.check_schema

    def counting(schema: Any) -> None:
        checks.append(schema)
        original(schema)

    monkeypatch.setattr(Draft202012Validator, "check_schema", counting)
    schema = {"type": "object", "properties": {"cached_once": {"type": "integer"}}}
    for name in ("a", "b", "c"):
        Tool(name, parameters=dict(schema))
    Tool("d", parameters={**schema, "required": ["cached_once"]})
    assert checks == [schema, {**schema, "required": ["cached_once"]}]


def test_a_schema_that_is_not_json_raises_an_error_naming_the_tool() -> None:
    with pytest.raises(ToolSchemaError, match=r"tool 'odd'.*not JSON"):
        Tool("odd", parameters={"type": "object", "enum": {1, 2}})


@pytest.mark.parametrize(
    "spec",
    [{"type": "function"}, {"parameters": SCHEMA}, {"name": ""}, {"name": "x", "description": 3}],
)
def test_unusable_tool_definitions_raise_clear_errors(spec: dict) -> None:
    with pytest.raises(ToolSchemaError):
        Tool.from_dict(spec)


def test_tools_must_be_a_list() -> None:
    with pytest.raises(ToolSchemaError, match="list"):
        coerce_tools({"name": "x"})  # type: ignore[arg-type]


def test_call_ids_are_random_by_default_and_deterministic_on_request() -> None:
    a, b = CallIdFactory().next_id(), CallIdFactory().next_id()
    assert re.fullmatch(r"call_[0-9a-f]{24}", a) and a != b
    assert [CallIdFactory(prefix="t").next_id() for _ in range(2)] == ["t1", "t1"]
    seeded = [CallIdFactory(seed=7) for _ in range(2)]
    assert seeded[0].next_id() == seeded[1].next_id()


def test_a_call_is_executable_only_when_complete_and_without_error() -> None:
    assert toolmend.ToolCall(id="c", name="x").executable
    assert not toolmend.ToolCall(id="c", name="x", incomplete=True, error="cut").executable


def test_coalescing_merges_adjacent_text_and_deltas_of_one_call() -> None:
    events = [
        TextDelta("a"),
        TextDelta("b"),
        ToolCallStart("c", "x", 0),
        ToolCallDelta("c", 0, '{"q": '),
        ToolCallDelta("c", 0, '"v"}'),
        TextDelta(""),
    ]
    assert coalesce(events) == [
        TextDelta("ab"),
        ToolCallStart("c", "x", 0),
        ToolCallDelta("c", 0, '{"q": "v"}'),
    ]
