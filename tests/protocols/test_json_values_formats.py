"""Formats of JSON call objects (`toolmend.protocols.json_values`): Llama 3.x JSON, bare JSON,
Granite, Cohere Command-A, `<tool_calls>` (Jamba, Hunyuan, MiniMax M1), InternLM2, Phi-4-mini
and LongCat; and the bare-JSON false-positive guard.
"""

from __future__ import annotations

from typing import Any

import pytest

import toolmend
from support import check_all_invariants
from tool_fixtures import WEATHER

CALL = '{"name": "get_weather", "arguments": {"city": "Paris"}}'
PARIS = [("get_weather", {"city": "Paris"})]


def calls(text: str, protocol: str, tools: Any = WEATHER) -> list[tuple[str, dict[str, Any]]]:
    result = toolmend.parse(text, protocol, tools)
    return [(c.name, c.arguments) for c in result.tool_calls if c.executable]


# ------------------------------------------------------------------------- the bare JSON guard


@pytest.mark.parametrize("protocol", ["json", "llama3-json", "auto"])
def test_bare_json_that_is_the_whole_output_is_a_call_even_without_tools(protocol: str) -> None:
    assert calls(CALL, protocol, None) == PARIS
    assert calls(f"[{CALL}]\n", protocol, None) == PARIS


@pytest.mark.parametrize("protocol", ["json", "auto"])
def test_bare_json_in_prose_without_tools_stays_text(protocol: str) -> None:
    text = f"For example {CALL} is how a call looks."
    result = toolmend.parse(text, protocol, None)
    assert (result.text, result.tool_calls) == (text, [])


def test_bare_json_in_prose_is_a_call_when_its_name_resolves_against_the_tools() -> None:
    result = toolmend.parse(f"Let me check. {CALL} Done.", "json", WEATHER)
    assert [(c.name, c.arguments) for c in result.tool_calls] == PARIS
    assert result.text == "Let me check.  Done."


@pytest.mark.parametrize(
    "text",
    [
        '{"value": 42, "summary": "computed"}',
        '{"name": "rm_rf", "arguments": {}}',
        "Use {braces} and [brackets] [1, 2] freely: {x: 1}",
        '["a", "b"]',
    ],
)
def test_json_that_is_not_a_call_of_a_given_tool_stays_text(text: str) -> None:
    for chunk_size in (None, 1):
        result = toolmend.parse(text, "auto", WEATHER, chunk_size=chunk_size)
        assert (result.text, result.tool_calls) == (text, [])


def test_a_json_call_in_a_code_fence_after_text_is_never_read() -> None:
    # A fence that is the whole output is the call (issue #12; tests/protocols/test_fenced_calls.py).
    text = f"For example:\n```json\n{CALL}\n```"
    assert calls(text, "auto") == []


def test_the_openai_wire_shape_and_double_encoded_arguments_are_read() -> None:
    text = '{"type": "function", "function": {"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}}'
    assert calls(text, "json") == PARIS


@pytest.mark.parametrize(
    "keys", [("function", "args"), ("tool", "input"), ("tool_name", "parameters")]
)
def test_the_key_spellings_models_use_are_read(keys: tuple[str, str]) -> None:
    text = f'{{"{keys[0]}": "get_weather", "{keys[1]}": {{"city": "Paris"}}}}'
    assert calls(text, "json") == PARIS


# ------------------------------------------------------------------------------ the formats


def test_llama_calls_after_the_python_tag_are_separated_by_semicolons() -> None:
    text = '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}; {"name": "get_weather", "parameters": {"city": "Oslo"}}<|eom_id|>'
    assert calls(text, "llama3-json") == [*PARIS, ("get_weather", {"city": "Oslo"})]
    check_all_invariants("llama3-json", text, WEATHER)


def test_granite_writes_a_list_after_its_marker_and_text_may_follow() -> None:
    result = toolmend.parse(f"<|tool_call|>[{CALL}] and more", "granite", WEATHER)
    assert [(c.name, c.arguments) for c in result.tool_calls] == PARIS
    assert result.text == " and more"


def test_granite_3_1_writes_its_marker_as_the_string_tool_call() -> None:
    # vLLM's test_granite_tool_parser.py::test_granite_string_prefix_format.
    text = f"<tool_call> [{CALL}]"
    for protocol in ("granite", "auto"):
        result = toolmend.parse(text, protocol, WEATHER)
        assert [(c.name, c.arguments) for c in result.tool_calls] == PARIS
        assert result.text == ""
    check_all_invariants("granite", text, WEATHER)


@pytest.mark.parametrize("protocol", ["llama3-json", "json", "auto"])
def test_with_tools_none_a_bare_object_naming_something_without_arguments_is_data(
    protocol: str,
) -> None:
    # vLLM's test_llama3_json_tool_parser.py (missing parameters and arguments): a record the
    # model answered with (`{"name": "John"}`) is no call when no tool says the name is one.
    for text in ('{"name": "toolWithoutParams"}', '[{"name": "John"}, {"name": "Jane"}]'):
        result = toolmend.parse(text, protocol)
        assert (result.tool_calls, result.text) == ([], text)
    assert toolmend.parse('{"name": "f", "arguments": {}}', protocol).tool_calls


def test_cohere_action_list_keeps_a_broken_sibling_apart() -> None:
    text = (
        '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "get_weather", "parameters": '
        '{"days": 15:30}}, {"tool_call_id": "1", "tool_name": "get_weather", "parameters": '
        '{"city": "Oslo"}}]<|END_ACTION|>'
    )
    assert calls(text, "cohere") == [("get_weather", {"city": "Oslo"})]


def test_minimax_m1_writes_one_call_object_a_line_in_tool_calls_tags() -> None:
    text = f'<tool_calls>\n{CALL}\n{{"name": "get_weather", "arguments": {{"city": "Oslo"}}}}\n</tool_calls>'
    assert calls(text, "minimax-m1") == [*PARIS, ("get_weather", {"city": "Oslo"})]
    assert calls(f"<tool_calls>[{CALL}]</tool_calls>", "jamba") == PARIS


def test_phi4_mini_functools_list_is_read_but_the_word_alone_is_text() -> None:
    assert calls(f"functools[{CALL}]", "phi4-mini") == PARIS
    result = toolmend.parse("import functools[x]", "phi4-mini", WEATHER)
    assert (result.text, result.tool_calls) == ("import functools[x]", [])


def test_internlm2_action_holds_one_call_object() -> None:
    text = '<|action_start|><|plugin|>\n{"name": "get_weather", "parameters": {"city": "Paris"}}<|action_end|>'
    assert calls(text, "internlm2") == PARIS


def test_internlm_tokens_spaced_apart_by_the_detokenizer_still_open_the_action() -> None:
    # vllm-project/vllm@2854f61 tests/tool_parsers/test_intern_s1_tool_parser.py
    # ::test_nonstreaming_supports_spaced_special_tokens (Apache-2.0), Intern-S1
    spaced = '<|action_start|> <|plugin|>\n{"name": "get_weather", "parameters": {"city": "Paris"}}\n<|action_end|>'
    # the same blank in an InternLM2.5 answer detokenized with spaces between special tokens
    # (vLLM's default), the call after the answer's text
    answer = 'Checking. <|action_start|> <|plugin|>{"name": "get_weather", "parameters": {"city": "Paris"}}<|action_end|>'
    for protocol in ("internlm2", "auto"):
        assert calls(spaced, protocol) == PARIS
        assert calls(answer, protocol) == PARIS
        check_all_invariants(protocol, answer, WEATHER)
    assert toolmend.parse(answer, "internlm2", WEATHER).text.strip() == "Checking."


def test_qwen25_coder_tools_block_holds_a_call_object_or_a_list_and_is_no_text() -> None:
    # vllm-project/vllm@40694df tests/tool_parsers/test_qwen25_coder_tool_parser.py (Apache-2.0)
    # ::test_single_tool_call_with_content, ::test_parallel_tool_calls_array
    one = f"Let me check the weather for you.\n<tools>\n{CALL}\n</tools>"
    two = f'<tools>\n[\n    {CALL},\n    {{"name": "get_weather", "arguments": {{"city": "Oslo"}}}}\n]\n</tools>'
    for protocol in ("qwen25-coder", "auto"):
        assert calls(one, protocol) == PARIS
        assert toolmend.parse(one, protocol, WEATHER).text == "Let me check the weather for you.\n"
        assert calls(two, protocol) == [*PARIS, ("get_weather", {"city": "Oslo"})]
        check_all_invariants(protocol, one, WEATHER)


def test_qwen25_coder_tags_in_prose_and_a_broken_body_stay_text() -> None:
    # ::test_malformed_json_returns_content; prose naming the tag is text (issue #12 §3)
    broken = '<tools>\n{"name": "broken", "arguments": {invalid json\n</tools>'
    for text in ("I use <tools> and </tools> tags.", broken):
        result = toolmend.parse(text, "qwen25-coder", WEATHER)
        assert (result.text, result.tool_calls) == (text, [])


def test_a_call_list_cut_off_inside_an_object_ends_the_call_incomplete() -> None:
    result = toolmend.parse(
        '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Pa', "granite", WEATHER
    )
    assert [c.incomplete for c in result.tool_calls] == [True]


@pytest.mark.parametrize(
    "protocol",
    [
        "llama3-json",
        "json",
        "granite",
        "cohere",
        "minimax-m1",
        "internlm2",
        "phi4-mini",
        "longcat",
        "qwen25-coder",
    ],
)
def test_a_rendered_call_reads_back_whole_and_streamed(protocol: str) -> None:
    call = toolmend.ToolCall(id="c1", name="get_weather", arguments={"city": 'Pa"ris</x>'})
    text = toolmend.get_protocol(protocol).render_call(call)
    assert calls(text, protocol) == [("get_weather", {"city": 'Pa"ris</x>'})]
    check_all_invariants(protocol, text, WEATHER)


@pytest.mark.parametrize("protocol", ["granite", "auto"])
def test_granite_20b_fc_writes_each_call_after_its_own_function_call_marker(protocol: str) -> None:
    text = (
        '<function_call> {"name": "get_weather", "arguments": {"city": "Paris"}} '
        '<function_call> {"name": "get_weather", "arguments": {"city": "Rome"}}'
    )
    result = toolmend.parse(text, protocol, WEATHER)
    assert calls(text, protocol) == [
        ("get_weather", {"city": "Paris"}),
        ("get_weather", {"city": "Rome"}),
    ]
    assert result.text.strip() == ""
    check_all_invariants(protocol, text, WEATHER)


# ------------------------------------------------------------- xLAM's markers under `json`
# vllm-project/vllm@10a67515200ceb7bd3f91f6e5aba0c4c13e6ef8f
# tests/tool_parsers/test_xlam_tool_parser.py (Apache-2.0), in tests/corpus/engines: xLAM
# writes its list after Mistral's `[TOOL_CALLS]` or inside Hermes' `<tool_call>` tags too.


@pytest.mark.parametrize(
    "text",
    [
        "I'll check the weather for you.[TOOL_CALLS][" + CALL + "]",
        "I'll help you check the weather.<tool_call>[" + CALL + "]</tool_call>",
        "<tool_call>" + CALL + "</tool_call>",
    ],
)
@pytest.mark.parametrize("tools", [WEATHER, None])
def test_json_reads_xlams_list_after_its_markers_wherever_they_stand(text: str, tools: Any) -> None:
    result = toolmend.parse(text, "json", tools)
    assert [(c.name, c.arguments) for c in result.tool_calls if c.executable] == PARIS
    assert result.text == text[: text.index("[TOOL_CALLS]" if "[TOOL_" in text else "<tool_call>")]
    check_all_invariants("json", text, tools)


def test_under_json_a_marker_before_a_name_is_not_xlams() -> None:
    text = '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}'
    assert calls(text, "json") == []
    assert calls(text, "auto") == PARIS  # Mistral v11's, read by auto
