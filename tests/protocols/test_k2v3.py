"""k2-v3: K2V3's IFM tags (GLM's key/value reading under `ifm|` names), its type hint, its JSON
dialect, its `<ifm|tool_calls>` wrapper and its reasoning spans.

Fixtures from sgl-project/sglang@acc109af699c27103c4c0e188375d5e92de056bc
test/registered/function_call/test_k2v3_tool_parser.py (Apache-2.0), each test named beside it.
"""

from __future__ import annotations

from typing import Any

import pytest

import toolmend
from support import check_all_invariants

P = "k2-v3"
TOOLS: list[dict[str, Any]] = [
    {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        },
    },
    {"name": "study_args", "parameters": {"type": "object", "properties": {}}},
]
# TestK2V3XmlExtraction::test_single_call
CALL = (
    "<ifm|tool_call>get_weather<ifm|arg_key>city</ifm|arg_key>"
    "<ifm|arg_value>Tokyo</ifm|arg_value></ifm|tool_call>"
)
TOKYO = [("get_weather", {"city": "Tokyo"}, True)]


def parse(text: str, tools: Any = TOOLS) -> toolmend.ParseResult:
    check_all_invariants(P, text, tools)
    return toolmend.parse(text, P, tools)


def calls(result: toolmend.ParseResult) -> list[tuple[str, dict[str, Any], bool]]:
    return [(c.name, c.arguments, c.executable) for c in result.tool_calls]


def test_key_value_tags_are_read_and_typed_by_the_schema() -> None:
    # TestK2V3XmlExtraction::test_schema_typed_value_coercion
    text = (
        "<ifm|tool_call>get_weather<ifm|arg_key>days</ifm|arg_key>"
        "<ifm|arg_value>3</ifm|arg_value></ifm|tool_call>"
    )
    assert calls(parse(text)) == [("get_weather", {"days": 3}, True)]
    assert calls(parse(CALL)) == TOKYO


def test_a_type_hint_types_a_value_whose_property_declares_no_type() -> None:
    # TestK2V3XmlTyped::test_arg_type_string_keeps_numeric_as_string
    text = (
        "<ifm|tool_call>study_args<ifm|arg_key>user_id</ifm|arg_key>"
        "<ifm|arg_type>string</ifm|arg_type><ifm|arg_value>12345</ifm|arg_value></ifm|tool_call>"
    )
    assert calls(parse(text)) == [("study_args", {"user_id": "12345"}, True)]


def test_the_schema_decides_over_a_type_hint() -> None:
    text = (
        "<ifm|tool_call>get_weather<ifm|arg_key>days</ifm|arg_key>"
        "<ifm|arg_type>string</ifm|arg_type><ifm|arg_value>3</ifm|arg_value></ifm|tool_call>"
    )
    assert calls(parse(text)) == [("get_weather", {"days": 3}, True)]


def test_a_hint_that_names_no_json_type_is_ignored() -> None:
    text = (
        "<ifm|tool_call>study_args<ifm|arg_key>n</ifm|arg_key>"
        "<ifm|arg_type>str</ifm|arg_type><ifm|arg_value>7</ifm|arg_value></ifm|tool_call>"
    )
    assert calls(parse(text)) == [("study_args", {"n": 7}, True)]


def test_a_second_type_hint_for_one_key_rejects_the_call() -> None:
    text = (
        "<ifm|tool_call>study_args<ifm|arg_key>n</ifm|arg_key><ifm|arg_type>string</ifm|arg_type>"
        "<ifm|arg_type>string</ifm|arg_type><ifm|arg_value>7</ifm|arg_value></ifm|tool_call>"
    )
    [call] = parse(text).tool_calls
    assert not call.executable


def test_the_wrapper_and_the_reasoning_are_no_text() -> None:
    # TestK2V3ReasoningPrefix::test_ifm_reasoning_prefix_is_stripped
    text = f"<ifm|think>need lookup</ifm|think>\n<ifm|tool_calls>\n{CALL}\n</ifm|tool_calls>"
    result = parse(text)
    assert calls(result) == TOKYO
    assert result.reasoning == "need lookup"
    assert result.text.strip() == ""
    assert [d.code for d in result.diagnostics] == ["markup_stripped", "markup_stripped"]


@pytest.mark.parametrize("level", ["think", "think_fast", "think_faster"])
def test_every_effort_level_is_a_reasoning_span(level: str) -> None:
    # TestK2V3ReasoningPrefix::test_all_three_effort_blocks_are_stripped
    text = f"<ifm|{level}>reasoning {CALL}</ifm|{level}>"
    result = parse(text)
    assert result.tool_calls == [] and result.reasoning == f"reasoning {CALL}"


def test_a_call_without_arguments() -> None:
    # TestK2V3XmlExtraction::test_no_args
    assert calls(parse("<ifm|tool_call>get_weather</ifm|tool_call>")) == [("get_weather", {}, True)]


def test_the_json_dialect_reads_a_call_object_and_a_list_of_them() -> None:
    # TestK2V3JsonDialect::test_json_object_tool_call, ::test_json_list_of_tool_calls
    one = '<ifm|tool_call>{"name": "get_weather", "arguments": {"city": "Tokyo"}}</ifm|tool_call>'
    assert calls(parse(one)) == TOKYO
    two = (
        '<ifm|tool_call>[{"name": "get_weather", "arguments": {"city": "Tokyo"}}, '
        '{"name": "get_weather", "arguments": {"city": "Osaka"}}]</ifm|tool_call>'
    )
    assert calls(parse(two)) == [*TOKYO, ("get_weather", {"city": "Osaka"}, True)]


def test_an_undeclared_tool_stays_text() -> None:
    # TestK2V3XmlExtraction::test_unknown_tool_is_forwarded (SGLang forwards it)
    text = CALL.replace("get_weather", "not_registered")
    result = parse(text)
    assert result.tool_calls == [] and result.text == text


def test_r3_a_call_cut_inside_its_closer_completes() -> None:
    assert calls(parse(CALL[: -len("all>")])) == TOKYO


def test_r3_a_call_cut_inside_a_value_is_incomplete() -> None:
    [call] = parse(CALL[: CALL.index("kyo")]).tool_calls
    assert not call.executable


def test_a_rendered_call_reads_back() -> None:
    call = toolmend.ToolCall(id="c1", name="get_weather", arguments={"city": "Nara", "days": 2})
    text = toolmend.get_protocol(P).render_call(call)
    assert calls(parse(text)) == [("get_weather", {"city": "Nara", "days": 2}, True)]
