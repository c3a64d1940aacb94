"""The functiongemma protocol: Gemma 4's blocks with FunctionGemma's tokens.

`<start_function_call>call:NAME{key:<escape>text<escape>,n:1}<end_function_call>`. The cases of
Ollama's and mlx-lm's FunctionGemma tests are in the corpus conformance run; these are the
behaviours the shared Gemma reader must keep under the other tokens.
"""

from __future__ import annotations

from typing import Any

import toolmend
from support import check_all_invariants
from tool_fixtures import WEATHER, WRITE

# ollama/ollama@fb30760996871fa9460115c753afd2c60d4ab0f7 model/parsers/functiongemma_test.go
# (parallel_tool_calls), MIT.
PARALLEL = (
    "<start_function_call>call:get_weather{city:<escape>Paris<escape>}<end_function_call>"
    "<start_function_call>call:get_time{timezone:<escape>UTC<escape>}<end_function_call>"
)


def calls(text: str, tools: Any = None, protocol: str = "functiongemma") -> list[Any]:
    result = toolmend.parse(text, protocol, tools)
    return [(c.name, c.arguments, c.executable) for c in result.tool_calls]


def test_parallel_calls_are_read_and_keep_the_invariants_at_every_split() -> None:
    assert calls(PARALLEL) == [
        ("get_weather", {"city": "Paris"}, True),
        ("get_time", {"timezone": "UTC"}, True),
    ]
    check_all_invariants("functiongemma", "Sure. " + PARALLEL + " Done.")


def test_an_escape_string_holds_braces_commas_and_gemma4_tokens_as_text() -> None:
    text = (
        "<start_function_call>call:write_file{file_path:<escape>a.py<escape>,"
        'content:<escape>x = {"a": 1, "b": [2]}\n<|"|><tool_call|><escape>}<end_function_call>'
    )
    assert calls(text, WRITE) == [
        (
            "write_file",
            {"file_path": "a.py", "content": 'x = {"a": 1, "b": [2]}\n<|"|><tool_call|>'},
            True,
        )
    ]
    check_all_invariants("functiongemma", text, WRITE)


def test_the_stop_sequence_after_a_call_is_markup_not_text() -> None:
    text = "<start_function_call>call:get_weather{city:<escape>Oslo<escape>}<end_function_call><start_function_response>"
    result = toolmend.parse(text, "functiongemma", WEATHER)
    assert result.text == ""
    assert [c.name for c in result.tool_calls] == ["get_weather"]


def test_a_forgotten_closing_escape_is_repaired_at_the_call_terminator() -> None:
    text = "<start_function_call>call:get_weather{city:<escape>Oslo}<end_function_call>"
    assert calls(text, WEATHER) == [("get_weather", {"city": "Oslo"}, True)]


def test_a_call_cut_off_inside_a_string_is_incomplete_and_not_executed() -> None:
    text = "<start_function_call>call:get_weather{city:<escape>Os"
    assert calls(text, WEATHER) == [("get_weather", {"city": "Os"}, False)]


def test_auto_reads_functiongemma_and_gemma4_blocks_in_one_output() -> None:
    text = (
        "<start_function_call>call:get_weather{city:<escape>Oslo<escape>}<end_function_call>"
        '<|tool_call>call:get_weather{city:<|"|>Rome<|"|>}<tool_call|>'
    )
    assert calls(text, WEATHER, "auto") == [
        ("get_weather", {"city": "Oslo"}, True),
        ("get_weather", {"city": "Rome"}, True),
    ]


def test_the_tools_prompt_declares_tools_with_functiongemma_tokens() -> None:
    prompt = toolmend.get_protocol("functiongemma").render_tools(
        toolmend.model.coerce_tools(WEATHER)
    )
    assert prompt.startswith("<start_function_declaration>declaration:get_weather{")
    assert "<escape>" in prompt and '<|"|>' not in prompt


def test_a_result_cannot_close_its_envelope_or_its_string() -> None:
    proto = toolmend.get_protocol("functiongemma")
    out = proto.render_result("call_1", "read", "x<escape>}<end_function_response>y")
    assert out.startswith("<start_function_response>response:read{value:<escape>")
    assert out.count("<escape>") == 2 and out.count("<end_function_response>") == 1


# vllm-project/vllm@26c3628ca8265f4f5007ed8e3e28ac66dd23c8ae
# tests/tool_parsers/test_functiongemma_tool_parser.py (the streamed two-key case), Apache-2.0.
NO_COMMA = (
    "<start_function_call>call:get_weather{city:<escape>NYC<escape>unit:<escape>celsius<escape>}"
    "<end_function_call>"
)


def test_a_key_right_after_a_closed_string_is_read_as_if_the_comma_were_there() -> None:
    for protocol in ("functiongemma", "auto"):
        (call,) = toolmend.parse(NO_COMMA, protocol).tool_calls
        assert (call.name, call.arguments, call.executable) == (
            "get_weather",
            {"city": "NYC", "unit": "celsius"},
            True,
        )
        assert call.repairs == ["missing-comma-after-string"]
    check_all_invariants("functiongemma", NO_COMMA)


def test_a_key_right_after_a_bare_value_is_still_a_missing_comma() -> None:
    text = "<start_function_call>call:set{count:42 unit:<escape>c<escape>}<end_function_call>"
    assert [c.executable for c in toolmend.parse(text, "functiongemma").tool_calls] == [False]
