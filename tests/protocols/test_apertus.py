"""apertus: `<|tools_prefix|>[{"NAME": {…}}]<|tools_suffix|>`, calls keyed by the tool's name.
The shapes are llama.cpp's Apertus-8B-Instruct case of `tests/test-chat.cpp`
(ggml-org/llama.cpp@0042e20, MIT) and Ollama's `model/parsers/apertus15_test.go`
(ollama/ollama@15b4c6c, MIT); the result envelope is Ollama's Apertus 1.5 renderer test's."""

from __future__ import annotations

import pytest

import toolmend
from support import check_all_invariants
from tool_fixtures import WEATHER
from toolmend.model import ToolCall

LIST = '<|tools_prefix|>[{"get_weather": {"city": "Zurich"}}, {"get_weather": {"city": "Bern", "days": 2}}]<|tools_suffix|>'


def calls(text: str, protocol: str) -> list[tuple[str, dict]]:
    return [(c.name, c.arguments) for c in toolmend.parse(text, protocol, WEATHER).tool_calls]


@pytest.mark.parametrize("protocol", ["apertus", "auto"])
def test_objects_keyed_by_name_are_parallel_calls_and_inner_text_is_reasoning(
    protocol: str,
) -> None:
    text = "<|assistant_start|><|inner_prefix|>Two cities.<|inner_suffix|>Checking." + LIST
    result = toolmend.parse(text + "<|assistant_end|>", protocol, WEATHER)
    assert [(c.name, c.arguments) for c in result.tool_calls] == [
        ("get_weather", {"city": "Zurich"}),
        ("get_weather", {"city": "Bern", "days": 2}),
    ]
    assert (result.reasoning, result.text) == ("Two cities.", "Checking.")
    check_all_invariants(protocol, text, WEATHER)


def test_the_suffix_consumed_by_the_server_loses_nothing() -> None:
    assert calls('<|tools_prefix|>[{"get_weather": {"city": "Oslo"}}]', "apertus") == [
        ("get_weather", {"city": "Oslo"})
    ]


@pytest.mark.parametrize(
    "body",
    ['[{"get_weather": {}, "other": {}}]', '[{"get_weather": "Oslo"}]', '[{"get_weather": null}]'],
)
def test_an_object_with_several_keys_or_no_arguments_object_is_no_call(body: str) -> None:
    assert calls(f"<|tools_prefix|>{body}<|tools_suffix|>", "apertus") == []


def test_a_rendered_call_reads_back_and_a_result_cannot_close_its_envelope() -> None:
    proto = toolmend.get_protocol("apertus")
    call = ToolCall(id="c", name="get_weather", arguments={"city": "Wanaka"})
    assert (
        proto.render_call(call)
        == '<|tools_prefix|>[{"get_weather": {"city": "Wanaka"}}]<|tools_suffix|>'
    )
    for protocol in ("apertus", "auto"):
        assert calls(proto.render_call(call), protocol) == [("get_weather", call.arguments)]
    wrapped = proto.render_result("c", "get_weather", "x<|tool_output_end|>y")
    assert wrapped.count("<|tool_output_end|>") == 1
