"""minicpm4-xml: MiniCPM4's `<function name=…><param name=…>` calls on the invoke family's
reader. The cases are SGLang's `test_minicpm4_xml_detector.py` (sgl-project/sglang@b844e97,
Apache-2.0), whole in `tests/corpus/engines/sglang_tool_parser_tests_newer.jsonl` and run
there by `tests/test_corpus_conformance.py`; here, what the family adds beyond them."""

from __future__ import annotations

from typing import Any

import pytest

import toolmend
from support import check_all_invariants, load_cases
from toolmend.model import ToolCall

WEATHER: list[dict[str, Any]] = [
    {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "date": {"type": "string"}},
            "required": ["city"],
        },
    },
    {
        "name": "sum_values",
        "parameters": {
            "type": "object",
            "properties": {"nums": {"type": "array"}, "exact": {"type": "boolean"}},
            "required": ["nums"],
        },
    },
]

CASES = [
    c
    for c in load_cases("engines/sglang_tool_parser_tests_newer.jsonl")
    if c["format"] == "minicpm4_xml"
]


def calls(text: str, protocol: str = "minicpm4-xml") -> list[tuple[str, dict[str, Any]]]:
    result = toolmend.parse(text, protocol, WEATHER)
    return [(c.name, c.arguments) for c in result.tool_calls if c.executable]


@pytest.mark.parametrize("protocol", ["minicpm4-xml", "auto"])
def test_values_are_typed_by_the_schema_and_text_around_calls_stays_text(protocol: str) -> None:
    text = (
        'Head\n<function name="get_weather"><param name="city">北京</param></function>\nTXT\n'
        '<function name="sum_values"><param name="nums">[7,8,9]</param>'
        '<param name="exact">false</param></function>\nTail\n'
    )
    result = toolmend.parse(text, protocol, WEATHER)
    assert [(c.name, c.arguments) for c in result.tool_calls] == [
        ("get_weather", {"city": "北京"}),
        ("sum_values", {"nums": [7, 8, 9], "exact": False}),
    ]
    assert result.text.split() == ["Head", "TXT", "Tail"]


@pytest.mark.parametrize("protocol", ["minicpm4-xml", "auto"])
def test_a_cdata_value_is_its_content_markup_and_newlines_kept(protocol: str) -> None:
    text = (
        '<function name="get_weather"><param name="city">\n<![CDATA[a <b> & "c"\n'
        "]]]]><![CDATA[>d]]>\n</param></function>"
    )
    assert calls(text, protocol) == [("get_weather", {"city": 'a <b> & "c"\n]]>d'})]


def test_an_unclosed_cdata_section_makes_the_call_incomplete() -> None:
    text = '<function name="get_weather"><param name="city"><![CDATA[Paris</param></function>'
    (call,) = toolmend.parse(text, "minicpm4-xml", WEATHER).tool_calls
    assert not call.executable and "CDATA" in (call.error or "")


def test_a_parameter_given_twice_rejects_the_call() -> None:
    text = (
        '<function name="get_weather"><param name="city">北京</param>'
        '<param name="city">上海</param></function>'
    )
    assert calls(text) == []


@pytest.mark.parametrize(
    "text",
    [
        '<function name="unknown"><param name="x">1</param></function>',
        '<function=get_weather><param name="city">x</param></function>',
        "<functions> are how a program is split up.",
    ],
)
def test_what_is_not_a_call_of_a_declared_tool_stays_text_as_written(text: str) -> None:
    result = toolmend.parse(text, "minicpm4-xml", WEATHER)
    assert result.tool_calls == [] and result.text == text


def test_a_rendered_call_reads_back_named_and_under_auto() -> None:
    call = ToolCall(id="c", name="sum_values", arguments={"nums": [1, 2], "exact": True})
    text = toolmend.get_protocol("minicpm4-xml").render_call(call)
    assert text.startswith('<function name="sum_values">')
    for protocol in ("minicpm4-xml", "auto"):
        assert calls(text, protocol) == [("sum_values", call.arguments)]


@pytest.mark.parametrize("value", ["<![CDATA[", "  <![CDATA[x]]> & more", "a ]]> b"])
def test_a_value_that_looks_like_cdata_is_rendered_so_it_reads_back_as_written(value: str) -> None:
    call = ToolCall(id="c", name="get_weather", arguments={"city": value})
    text = toolmend.get_protocol("minicpm4-xml").render_call(call)
    assert calls(text) == [("get_weather", {"city": value})]


def test_the_prompt_teaches_the_format() -> None:
    prompt = toolmend.get_protocol("minicpm4-xml").render_tools(
        [toolmend.Tool(name="get_weather", parameters=WEATHER[0]["parameters"])]
    )
    assert '<function name="FUNCTION_NAME">' in prompt and "</param>" in prompt


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_the_upstream_cases_keep_the_stream_invariants_at_every_split(
    case: dict[str, Any],
) -> None:
    check_all_invariants("minicpm4-xml", case["text"], case["tools"])
    check_all_invariants("auto", case["text"], case["tools"])


# MiniCPM5 writes its parameters inside `<arguments>…</arguments>` (Ollama's minicpm5_test.go,
# `tool_call_with_arguments_wrapper`, ollama/ollama model/parsers, MIT).
MINICPM5 = '<function name="get_weather"><arguments><param name="city">Paris</param></arguments></function>'
# The sibling in the layout the family writes between tags, two parameters, one as CDATA.
MINICPM5_LINES = (
    '<function name="get_weather">\n<arguments>\n<param name="city"><![CDATA[Paris & <x>]]></param>\n'
    '<param name="date">2026-12-04</param>\n</arguments>\n</function>\nDone.'
)


@pytest.mark.parametrize("protocol", ["minicpm4-xml", "auto"])
def test_the_parameters_may_stand_in_an_arguments_wrapper(protocol: str) -> None:
    (call,) = toolmend.parse(MINICPM5, protocol, WEATHER).tool_calls
    assert (call.name, call.arguments, call.executable) == ("get_weather", {"city": "Paris"}, True)
    result = toolmend.parse(MINICPM5_LINES, protocol, WEATHER)
    assert [(c.arguments, c.executable) for c in result.tool_calls] == [
        ({"city": "Paris & <x>", "date": "2026-12-04"}, True)
    ]
    assert result.text == "\nDone."


@pytest.mark.parametrize("text", [MINICPM5, MINICPM5_LINES], ids=["inline", "lines"])
def test_the_arguments_wrapper_reading_is_split_invariant(text: str) -> None:
    check_all_invariants("minicpm4-xml", text, WEATHER)
    check_all_invariants("auto", text, WEATHER)
