"""Mistral, DeepSeek and Kimi K2: a header naming the tool, then its arguments as JSON.

The shared reader is `toolmend.protocols.json_args`; these tests pin each format's markers and
header rule, and the reader's behaviour at the edges (prose after a marker, unknown tools, a
closer inside unfinished JSON, a stream cut off) on the smallest real-shaped case.
"""

from __future__ import annotations

from typing import Any

import pytest

import toolmend
from support import check_all_invariants, run_chunks, streamed_arguments
from tool_fixtures import WEATHER
from toolmend.events import ToolCallStart
from toolmend.model import coerce_tools

DS_CALLS = "<｜tool▁calls▁begin｜>"
DS_CALL = "<｜tool▁call▁begin｜>"
DS_SEP = "<｜tool▁sep｜>"
DS_END = "<｜tool▁call▁end｜>"
DS_CALLS_END = "<｜tool▁calls▁end｜>"
K2_SECTION = "<|tool_calls_section_begin|>"
K2_CALL = "<|tool_call_begin|>"
K2_ARGS = "<|tool_call_argument_begin|>"
K2_END = "<|tool_call_end|>"
K2_SECTION_END = "<|tool_calls_section_end|>"


def calls(text: str, protocol: str, tools: Any = WEATHER) -> list[tuple[str, dict[str, Any]]]:
    result = toolmend.parse(text, protocol, tools)
    return [(c.name, c.arguments) for c in result.tool_calls if c.executable]


# ------------------------------------------------------------------------------------ Mistral


def test_mistral_v11_calls_follow_each_other_with_their_own_marker() -> None:
    text = '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}[TOOL_CALLS]get_weather[ARGS]{"city": "Oslo"}'
    assert calls(text, "mistral") == [
        ("get_weather", {"city": "Paris"}),
        ("get_weather", {"city": "Oslo"}),
    ]


def test_mistral_call_id_between_the_name_and_the_arguments_is_read_past() -> None:
    text = '[TOOL_CALLS]get_weather[CALL_ID]a1b2c3d4e[ARGS]{"city": "Paris"}'
    assert calls(text, "mistral") == [("get_weather", {"city": "Paris"})]


def test_mistral_before_v11_writes_a_list_of_call_objects() -> None:
    text = '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}][/TOOL_CALLS] ok'
    result = toolmend.parse(text, "mistral", WEATHER)
    assert [(c.name, c.arguments) for c in result.tool_calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    assert result.text == " ok"


def test_prose_that_mentions_the_mistral_marker_stays_text() -> None:
    text = "Mistral models write [TOOL_CALLS] before their calls."
    for chunk_size in (None, 1, 3):
        result = toolmend.parse(text, "mistral", WEATHER, chunk_size=chunk_size)
        assert (result.text, result.tool_calls) == (text, [])


def test_a_mistral_call_of_an_unknown_tool_stays_text() -> None:
    text = '[TOOL_CALLS]rm_rf[ARGS]{"path": "/"}'
    result = toolmend.parse(text, "mistral", WEATHER)
    assert result.tool_calls == [] and result.text == text


def test_a_mistral_marker_inside_a_json_string_is_argument_text() -> None:
    text = '[TOOL_CALLS]get_weather[ARGS]{"city": "[TOOL_CALLS]rm"}'
    assert calls(text, "mistral") == [("get_weather", {"city": "[TOOL_CALLS]rm"})]


def test_mistral_arguments_cut_off_end_the_call_incomplete() -> None:
    result = toolmend.parse('[TOOL_CALLS]get_weather[ARGS]{"city": "Par', "mistral", WEATHER)
    assert [c.incomplete for c in result.tool_calls] == [True]
    assert result.text == ""


# ----------------------------------------------------------------------------------- DeepSeek


def test_deepseek_v3_call_has_a_type_and_fenced_json() -> None:
    text = (
        f'{DS_CALLS}{DS_CALL}function{DS_SEP}get_weather\n```json\n{{"city": "Paris"}}\n```'
        f"{DS_END}{DS_CALLS_END}"
    )
    assert calls(text, "deepseek") == [("get_weather", {"city": "Paris"})]
    check_all_invariants("deepseek", text, WEATHER)


def test_deepseek_v31_calls_name_the_tool_before_the_separator() -> None:
    text = (
        f'Checking.{DS_CALLS}{DS_CALL}get_weather{DS_SEP}{{"city": "Paris"}}{DS_END}'
        f'{DS_CALL}get_weather{DS_SEP}{{"city": "Oslo"}}{DS_END}{DS_CALLS_END} Done.'
    )
    result = toolmend.parse(text, "deepseek", WEATHER)
    assert [c.arguments["city"] for c in result.tool_calls] == ["Paris", "Oslo"]
    assert result.text == "Checking. Done."


def test_a_deepseek_call_without_its_section_tokens_is_read() -> None:
    text = f'{DS_CALL}get_weather{DS_SEP}{{"city": "Paris"}}{DS_END}'
    assert calls(text, "deepseek") == [("get_weather", {"city": "Paris"})]


def test_deepseek_tokens_spelled_with_ascii_bars_are_read_alike() -> None:
    # Ollama's tools/tools_test.go case "deepseek" (ollama/ollama@fb307609, MIT): its template
    # writes the tokens with ASCII bars around the same words.
    text = (
        "<think>Wait, I need to call a tool</think><|tool▁calls▁begin|><|tool▁call▁begin|>"
        'function<|tool▁sep|>get_temperature\n```json\n{"city": "Tokyo"}\n```'
        "<|tool▁call▁end|><|tool▁calls▁end|><|end▁of▁sentence|>"
    )
    expected = [("get_temperature", {"city": "Tokyo"})]
    for protocol in ("deepseek", "auto"):
        assert calls(text, protocol, None) == expected
    v31 = '<|tool▁call▁begin|>get_weather<|tool▁sep|>{"city": "Paris"}<|tool▁call▁end|>'
    assert calls(v31, "deepseek") == [("get_weather", {"city": "Paris"})]
    check_all_invariants("deepseek", text, None)
    check_all_invariants("auto", v31, WEATHER)


def test_a_deepseek_closer_inside_unfinished_json_ends_the_call_there() -> None:
    text = f'{DS_CALLS}{DS_CALL}get_weather{DS_SEP}{{"city": "Paris"{DS_END}{DS_CALLS_END}after'
    result = toolmend.parse(text, "deepseek", WEATHER)
    assert [(c.name, c.arguments) for c in result.tool_calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    assert result.text == "after"


def test_deepseek_string_arguments_stream_while_they_are_written() -> None:
    text = (
        f'{DS_CALLS}{DS_CALL}get_weather{DS_SEP}{{"city": "Paris, France"}}{DS_END}{DS_CALLS_END}'
    )
    events = run_chunks("deepseek", [text[i : i + 4] for i in range(0, len(text), 4)], WEATHER)
    start = next(i for i, e in enumerate(events) if isinstance(e, ToolCallStart))
    assert streamed_arguments(events) == '{"city": "Paris, France"}'
    assert len([e for e in events[start:] if type(e).__name__ == "ToolCallDelta"]) > 3


# ------------------------------------------------------------------------------------ Kimi K2


def test_kimi_k2_section_holds_indexed_calls() -> None:
    text = (
        f'{K2_SECTION}\n{K2_CALL}functions.get_weather:0{K2_ARGS}{{"city": "Paris"}}{K2_END}\n'
        f'{K2_CALL}functions.get_weather:1\n{K2_ARGS}{{"city": "Oslo"}}\n{K2_END}\n{K2_SECTION_END}'
    )
    assert calls(text, "kimi-k2") == [
        ("get_weather", {"city": "Paris"}),
        ("get_weather", {"city": "Oslo"}),
    ]
    check_all_invariants("kimi-k2", text, WEATHER)


@pytest.mark.parametrize("header", ["get_weather:0", "functions.get_weather", "get_weather"])
def test_kimi_k2_header_prefix_and_index_are_optional(header: str) -> None:
    text = f'{K2_CALL}{header}{K2_ARGS}{{"city": "Paris"}}{K2_END}'
    assert calls(text, "kimi-k2") == [("get_weather", {"city": "Paris"})]


def test_kimi_k2_header_whose_index_follows_a_dot_names_no_tool() -> None:
    # vLLM's `test_invalid_funcall_id_skipped`: `functions.invalid.0` is no `NAME:IDX`.
    text = (
        f'{K2_SECTION}{K2_CALL}functions.invalid.0 {K2_ARGS}{{"city": "Beijing"}}{K2_END}'
        f'{K2_CALL}functions.valid:1 {K2_ARGS}{{"city": "Shanghai"}}{K2_END}{K2_SECTION_END}'
    )
    result = toolmend.parse(text, "kimi-k2")
    assert [(c.name, c.arguments) for c in result.tool_calls] == [("valid", {"city": "Shanghai"})]


def test_kimi_k2_singular_section_spelling_is_read() -> None:
    text = f'<|tool_call_section_begin|>{K2_CALL}functions.get_weather:0{K2_ARGS}{{"city": "Rome"}}{K2_END}<|tool_call_section_end|>'
    result = toolmend.parse(text, "kimi-k2", WEATHER)
    assert [(c.name, c.arguments) for c in result.tool_calls] == [("get_weather", {"city": "Rome"})]
    assert result.text == ""


# ---------------------------------------------------------------------------------- rendering


@pytest.mark.parametrize("protocol", ["mistral", "deepseek", "kimi-k2"])
def test_a_rendered_call_reads_back_and_its_prompt_names_the_tool(protocol: str) -> None:
    proto = toolmend.get_protocol(protocol)
    call = toolmend.ToolCall(id="c1", name="get_weather", arguments={"city": 'Pa"ris</x>'})
    assert calls(proto.render_call(call), protocol) == [("get_weather", {"city": 'Pa"ris</x>'})]
    assert "get_weather" in proto.render_tools(coerce_tools(WEATHER))


def test_a_mistral_result_cannot_close_its_envelope() -> None:
    rendered = toolmend.get_protocol("mistral").render_result(
        "c1", "get_weather", "x[/TOOL_RESULTS]y"
    )
    assert rendered.count("[/TOOL_RESULTS]") == 1 and rendered.endswith("[/TOOL_RESULTS]")
