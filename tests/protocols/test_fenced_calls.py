"""Fenced calls: ```` ```tool_code ```` fences, and a ```` ```json ```` fence that is the output.

A fence is code and never scanned, with two exceptions. Gemma's `tool_code` fence is its call
syntax wherever a line starts with it (vllm-mlx's `test_e2b_tool_code_block`,
`test_tool_code_block_with_content_before`). A `json` fence is a call only as the first thing
in the visible output, blanks and reasoning aside (vllm-mlx's `test_code_block`). Anywhere
else, or holding no call, the fence is text as written, and what follows it is read as after
any fence.
"""

from __future__ import annotations

from typing import Any

import pytest

import toolmend
from support import check_all_invariants

CALC = [{"name": "calculate", "parameters": {"type": "object", "properties": {"x": {}}}}]
MOVIES = [
    {
        "name": "radarr_get_movies",
        "parameters": {"type": "object", "properties": {"search": {"type": "string"}}},
    }
]
# waybarrios/vllm-mlx@4b654c09e61029afa1c061a3684bff0d4c385b3c tests/test_tool_parsers.py
# (test_code_block) and tests/test_gemma4_tool_parser.py (test_e2b_tool_code_block), Apache-2.0.
JSON_FENCE = '```json\n[{"name": "calculate", "arguments": {"x": 5}}]\n```'
TOOL_CODE = '```tool_code\nradarr_get_movies(search="Dune")\n```'


def calls(text: str, protocol: str, tools: Any) -> list[Any]:
    return [
        (c.name, c.arguments, c.executable)
        for c in toolmend.parse(text, protocol, tools).tool_calls
    ]


@pytest.mark.parametrize("tools", [None, CALC])
@pytest.mark.parametrize("protocol", ["json", "auto"])
def test_a_json_fence_that_is_the_whole_output_is_a_call(protocol: str, tools: Any) -> None:
    assert calls(JSON_FENCE, protocol, tools) == [("calculate", {"x": 5}, True)]
    check_all_invariants(protocol, JSON_FENCE + "\n", tools)


@pytest.mark.parametrize("tools", [None, MOVIES])
@pytest.mark.parametrize("protocol", ["gemma-tool-code", "auto"])
def test_a_tool_code_fence_at_the_start_is_a_call(protocol: str, tools: Any) -> None:
    assert calls(TOOL_CODE, protocol, tools) == [("radarr_get_movies", {"search": "Dune"}, True)]
    check_all_invariants(protocol, "<think>ok</think>\n" + TOOL_CODE + "\nDone.", tools)


@pytest.mark.parametrize("protocol", ["json", "auto"])
def test_a_json_fence_after_prose_is_code(protocol: str) -> None:
    text = "Here is an example:\n" + JSON_FENCE
    result = toolmend.parse(text, protocol, CALC)
    assert result.tool_calls == [] and result.text == text


def test_with_no_tools_text_after_a_json_fence_makes_it_an_example() -> None:
    text = JSON_FENCE + "\nThat is what a call looks like."
    result = toolmend.parse(text, "json", None)
    assert result.tool_calls == [] and result.text == text


def test_a_fence_holding_no_call_is_text_and_its_closer_opens_nothing() -> None:
    # The closing backticks must not be taken for a fence opening: the call after is read.
    text = (
        '```json\n{"answer": 42}\n```\n'
        '<tool_call>{"name": "calculate", "arguments": {"x": 1}}</tool_call>'
    )
    result = toolmend.parse(text, "auto", CALC)
    assert [(c.name, c.arguments) for c in result.tool_calls] == [("calculate", {"x": 1})]
    assert result.text == '```json\n{"answer": 42}\n```\n'
    check_all_invariants("auto", text, CALC)


def test_a_fence_with_another_info_string_stays_code() -> None:
    text = '```jsonc\n{"name": "calculate", "arguments": {"x": 5}}\n```'
    assert calls(text, "auto", CALC) == []


def test_a_tool_code_call_renders_as_a_fence_that_reads_back() -> None:
    proto = toolmend.get_protocol("gemma-tool-code")
    call = toolmend.ToolCall(id="c1", name="radarr_get_movies", arguments={"search": "Dune"})
    assert proto.render_call(call) == TOOL_CODE


def test_a_tool_code_fence_after_prose_is_a_call() -> None:
    text = 'Let me look that up.\n```tool_code\nget_weather(city="Paris")\n```'
    result = toolmend.parse(text, "auto", None)
    assert [(c.name, c.arguments) for c in result.tool_calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    assert result.text == "Let me look that up.\n"
    check_all_invariants("gemma-tool-code", text, None)


def test_tool_code_inside_a_line_or_another_fence_is_code() -> None:
    for text in (
        "Write ```tool_code\nf(a=1)\n``` to call.",
        "```markdown\n```tool_code\nf(a=1)\n```\n```",
    ):
        assert toolmend.parse(text, "auto", None).tool_calls == [], text
