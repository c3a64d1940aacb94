"""nemotron: NVIDIA Nemotron's `<TOOLCALL>[…]</TOOLCALL>` lists, on the JSON-values family.
The shape is the Nemotron Nano v2 template's (llama.cpp `models/templates/NVIDIA-Nemotron-Nano-
v2.jinja`, MIT) and NVIDIA Dynamo's `nemotron_deci` fixture (ai-dynamo/dynamo@9c29c8e,
`lib/parsers/src/tool_calling/test_cases/fixtures/nemotron_deci.rs`, Apache-2.0)."""

from __future__ import annotations

import pytest

import toolmend
from support import check_all_invariants
from tool_fixtures import WEATHER
from toolmend.model import ToolCall

BLOCK = (
    '<TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Paris"}}, '
    '{"name": "get_weather", "arguments": {"city": "Oslo", "days": 2}}]</TOOLCALL>'
)


def calls(text: str, protocol: str) -> list[tuple[str, dict]]:
    return [(c.name, c.arguments) for c in toolmend.parse(text, protocol, WEATHER).tool_calls]


@pytest.mark.parametrize("protocol", ["nemotron", "auto"])
def test_a_list_is_parallel_calls_and_reasoning_before_it_stays_out(protocol: str) -> None:
    text = "<think>Two cities.</think>\nChecking.\n" + BLOCK
    result = toolmend.parse(text, protocol, WEATHER)
    assert [(c.name, c.arguments) for c in result.tool_calls] == [
        ("get_weather", {"city": "Paris"}),
        ("get_weather", {"city": "Oslo", "days": 2}),
    ]
    assert result.text.strip() == "Checking."
    check_all_invariants(protocol, text, WEATHER)


def test_the_list_ends_where_its_json_ends_when_the_closer_is_missing() -> None:
    text = BLOCK.removesuffix("</TOOLCALL>") + "\nDone."
    result = toolmend.parse(text, "nemotron", WEATHER)
    assert len(result.tool_calls) == 2 and result.text.strip() == "Done."


def test_an_unknown_tool_stays_text_as_written() -> None:
    text = '<TOOLCALL>[{"name": "launch", "arguments": {}}]</TOOLCALL>'
    result = toolmend.parse(text, "nemotron", WEATHER)
    assert result.tool_calls == [] and result.text == text


def test_a_rendered_call_reads_back_named_and_under_auto() -> None:
    call = ToolCall(id="c", name="get_weather", arguments={"city": "Wanaka", "days": 2})
    text = toolmend.get_protocol("nemotron").render_call(call)
    assert text.startswith("<TOOLCALL>[") and text.endswith("]</TOOLCALL>")
    for protocol in ("nemotron", "auto"):
        assert calls(text, protocol) == [("get_weather", call.arguments)]


def test_a_result_cannot_close_its_envelope() -> None:
    proto = toolmend.get_protocol("nemotron")
    wrapped = proto.render_result("c", "get_weather", "x</TOOL_RESPONSE>y")
    assert wrapped.count("</TOOL_RESPONSE>") == 1


def test_a_result_is_wrapped_as_the_nano_v2_template_renders_a_tool_message() -> None:
    # llama.cpp models/templates/NVIDIA-Nemotron-Nano-v2.jinja@5801ed3 (MIT): a tool message is
    # `<TOOL_RESPONSE>[` + content + `]</TOOL_RESPONSE>`.
    wrapped = toolmend.get_protocol("nemotron").render_result("c", "get_weather", '{"t": 21}')
    assert wrapped == '<TOOL_RESPONSE>[{"t": 21}]</TOOL_RESPONSE>'
