"""command-r-plus: Command R/R+'s `Action: ```json […] ```` blocks. The shapes are llama.cpp's
Command R+ case of `tests/test-chat.cpp` (ggml-org/llama.cpp@0042e20, MIT) and Ollama's
`model/parsers/commandr_test.go` (ollama/ollama@87d8a55, MIT)."""

from __future__ import annotations

import pytest

import toolmend
from support import check_all_invariants
from tool_fixtures import WEATHER
from toolmend.model import ToolCall

ACTION = 'Action: ```json\n[{"tool_name": "get_weather", "parameters": {"city": "Paris"}}]\n```'
PARIS = [("get_weather", {"city": "Paris"})]


def calls(text: str, protocol: str, tools: object = WEATHER) -> list[tuple[str, dict]]:
    return [(c.name, c.arguments) for c in toolmend.parse(text, protocol, tools).tool_calls]


@pytest.mark.parametrize("protocol", ["command-r-plus", "auto"])
def test_an_action_block_after_prose_is_a_call(protocol: str) -> None:
    text = "I'll look it up.\n" + ACTION
    result = toolmend.parse(text, protocol, WEATHER)
    assert [(c.name, c.arguments) for c in result.tool_calls] == PARIS
    assert result.text.strip() == "I'll look it up."
    check_all_invariants(protocol, text, WEATHER)


@pytest.mark.parametrize(
    "text",
    [
        ACTION.replace("Action: ", "Action:\n"),
        ACTION.replace("[", "").replace("]", ""),
        ACTION.removesuffix("\n```"),
    ],
)
def test_the_fence_on_its_own_line_one_object_and_a_missing_closer_are_read(text: str) -> None:
    assert calls(text, "command-r-plus") == PARIS


def test_directly_answer_is_never_a_call_even_without_tools() -> None:
    text = 'Action: ```json\n[{"tool_name": "directly-answer", "parameters": {}}]\n```'
    assert calls(text, "command-r-plus", None) == []


def test_action_inside_a_sentence_or_without_a_fence_is_text() -> None:
    for text in ["The next Action: ```json\n[]\n```", 'Action: look up {"city": "Paris"}']:
        assert calls(text, "command-r-plus") == []


def test_a_rendered_call_with_backticks_reads_back() -> None:
    call = ToolCall(id="c", name="get_weather", arguments={"city": "```x```"})
    text = toolmend.get_protocol("command-r-plus").render_call(call)
    for protocol in ("command-r-plus", "auto"):
        assert calls(text, protocol) == [("get_weather", call.arguments)]
