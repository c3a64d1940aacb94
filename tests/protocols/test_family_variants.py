"""Formats that are a family mechanism with other markers: Seed-OSS (Qwen3-Coder's key/value
tags in `<seed:tool_call>`), DeepSeek V3.2's DSML and Step-3 (the invoke family with a prefix),
and DeepSeek R1's output, which begins inside reasoning.

Shapes as the models' templates write them and vLLM's seed_oss, deepseek_v32 and step3 tool
parsers read them.
"""

from __future__ import annotations

from typing import Any

import pytest

import toolmend
from support import check_all_invariants, run_chunks, split_at, streamed_arguments
from tool_fixtures import WEATHER, WRITE
from toolmend.events import ToolCallEnd

SEED = (
    "<seed:think>The user wants Paris.</seed:think>\n"
    "<seed:tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
    "<parameter=days>\n3\n</parameter>\n</function>\n</seed:tool_call>"
)
DSML = (
    "<｜DSML｜function_calls>\n"
    '<｜DSML｜invoke name="get_weather">\n'
    '<｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>\n'
    '<｜DSML｜parameter name="days" string="false">3</｜DSML｜parameter>\n'
    "</｜DSML｜invoke>\n"
    "</｜DSML｜function_calls>"
)
STEP3 = (
    "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>"
    '<steptml:invoke name="get_weather"><steptml:parameter name="city">Paris</steptml:parameter>'
    '<steptml:parameter name="days">3</steptml:parameter></steptml:invoke>'
    "<｜tool_call_end｜><｜tool_calls_end｜>"
)


def calls(text: str, protocol: str, tools: Any = WEATHER) -> list[tuple[str, Any]]:
    result = toolmend.parse(text, protocol, tools)
    return [(c.name, c.arguments) for c in result.tool_calls if c.executable]


@pytest.mark.parametrize(
    ("protocol", "text"),
    [("seed-oss", SEED), ("deepseek-v3.2", DSML), ("step3", STEP3)],
)
@pytest.mark.parametrize("reader", ["own", "auto"])
def test_the_call_is_read_typed_by_the_schema_and_its_markup_removed(
    protocol: str, text: str, reader: str
) -> None:
    result = toolmend.parse(text, protocol if reader == "own" else "auto", WEATHER)
    assert [(c.name, c.arguments) for c in result.tool_calls] == [
        ("get_weather", {"city": "Paris", "days": 3})
    ]
    assert result.text.strip() == ""


def test_seed_think_is_reasoning_and_never_scanned() -> None:
    text = "<seed:think>maybe <seed:tool_call><function=get_weather></seed:think>Done."
    result = toolmend.parse(text, "seed-oss", WEATHER)
    assert (result.tool_calls, result.text) == ([], "Done.")
    assert toolmend.parse(SEED, "seed-oss", WEATHER).reasoning == "The user wants Paris."


def test_a_seed_string_parameter_streams_while_it_is_written() -> None:
    text = (
        "<seed:tool_call><function=write_file><parameter=file_path>a</parameter>"
        "<parameter=content>" + "code line\n" * 30 + "</parameter></function></seed:tool_call>"
    )
    events = run_chunks("seed-oss", split_at(text, list(range(4, len(text), 4))), WRITE)
    end = next(e for e in events if isinstance(e, ToolCallEnd))
    # Written right after its tag, the value's final line break is its own (llama.cpp's
    # Seed-OSS cases): only a value that began with the template's line break loses its last.
    assert end.call.arguments["content"] == "code line\n" * 30
    assert streamed_arguments(events) == end.call.arguments_json()


def test_a_dsml_string_false_value_is_json_without_a_schema() -> None:
    text = DSML.replace('string="false">3<', 'string="false">[1, 2]<')
    assert calls(text, "deepseek-v3.2", tools=None) == [
        ("get_weather", {"city": "Paris", "days": [1, 2]})
    ]
    same = DSML.replace('string="false">3<', 'string="true">3<')
    assert calls(same, "deepseek-v3.2", tools=None) == [
        ("get_weather", {"city": "Paris", "days": "3"})
    ]


def test_parallel_dsml_invokes_are_one_block_of_calls() -> None:
    invoke = DSML.split("\n", 1)[1].rsplit("\n", 1)[0]
    text = f"Checking.\n<｜DSML｜function_calls>\n{invoke}\n{invoke}\n</｜DSML｜function_calls>"
    result = toolmend.parse(text, "deepseek-v3.2", WEATHER)
    assert [c.arguments for c in result.tool_calls] == [{"city": "Paris", "days": 3}] * 2
    assert result.text == "Checking.\n"


def test_a_step3_invoke_without_its_tokens_reads_the_same() -> None:
    bare = STEP3.split("<｜tool_sep｜>")[1].split("<｜tool_call_end｜>")[0]
    assert (
        calls(bare, "step3")
        == calls(STEP3, "step3")
        == [("get_weather", {"city": "Paris", "days": 3})]
    )


def test_an_unknown_tool_in_dsml_stays_text() -> None:
    text = DSML.replace("get_weather", "rm_rf")
    result = toolmend.parse(text, "deepseek-v3.2", WEATHER)
    assert result.tool_calls == [] and "rm_rf" in result.text


@pytest.mark.parametrize(
    ("protocol", "text"),
    [
        ("seed-oss", SEED),
        ("seed-oss", SEED[: len(SEED) - 30]),
        ("deepseek-v3.2", DSML),
        ("deepseek-v3.2", DSML[:-40]),
        ("step3", STEP3),
    ],
)
def test_variant_outputs_keep_every_stream_invariant(protocol: str, text: str) -> None:
    check_all_invariants(protocol, text, WEATHER)
    check_all_invariants("auto", text, WEATHER)


# ---------------------------------------------------------------------------- DeepSeek R1

R1 = (
    "The user asks for the weather; I will call the tool.</think>"
    "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n"
    '```json\n{"city": "Paris"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>'
)


def test_r1_output_that_begins_inside_reasoning_is_reasoning_up_to_think_end() -> None:
    # R1's template writes `<think>` into the prompt: the output holds only `</think>`.
    result = toolmend.parse(R1, "deepseek-r1", WEATHER, reasoning="open")
    assert result.reasoning == "The user asks for the weather; I will call the tool."
    assert [(c.name, c.arguments) for c in result.tool_calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    assert result.text == ""
    check_all_invariants("deepseek-r1", R1, WEATHER, reasoning="open")


@pytest.mark.parametrize("protocol", ["seed-oss", "deepseek-v3.2", "step3"])
def test_a_rendered_call_reads_back_and_the_prompt_teaches_the_markup(protocol: str) -> None:
    proto = toolmend.get_protocol(protocol)
    call = toolmend.ToolCall(id="c", name="get_weather", arguments={"city": "P & <Q>", "days": 2})
    rendered = proto.render_call(call)
    assert (
        calls(rendered, protocol)
        == calls(rendered, "auto")
        == [("get_weather", {"city": "P & <Q>", "days": 2})]
    )
    prompt = proto.render_tools([toolmend.Tool.from_dict(WEATHER[0])])
    marker = {
        "seed-oss": "<seed:tool_call>",
        "deepseek-v3.2": "<｜DSML｜invoke",
        "step3": "<steptml:invoke",
    }
    assert marker[protocol] in prompt


@pytest.mark.parametrize(
    "text",
    [
        # SGLang's DeepSeekV32Detector documents both DSML shapes; V4 wraps them in tool_calls.
        '<｜DSML｜function_calls>\n<｜DSML｜invoke name="get_weather">\n{ "city": "Paris" }\n'
        "</｜DSML｜invoke>\n</｜DSML｜function_calls>",
        '<｜DSML｜tool_calls>\n<｜DSML｜invoke name="get_weather">\n<｜DSML｜parameter name="city" '
        'string="true">Paris</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>',
        '<|DSML|function_calls>\n<|DSML|invoke name="get_weather">\n<|DSML|parameter name="city" '
        'string="true">Paris</|DSML|parameter>\n</|DSML|invoke>\n</|DSML|function_calls>',
    ],
)
def test_dsml_siblings_json_arguments_v4_wrapper_and_ascii_bars_are_read(text: str) -> None:
    assert (
        calls(text, "deepseek-v3.2") == calls(text, "auto") == [("get_weather", {"city": "Paris"})]
    )
    check_all_invariants("deepseek-v3.2", text, WEATHER)


# mlx-lm's test_deepseek_dsml_close_tag.py (ml-explore/mlx-lm@5f9e04e, MIT): DeepSeek V4's 4- to
# 6-bit quants close the invoke with `</｜DSML｜inv>`.
SHORT_CLOSE = (
    '<｜DSML｜tool_calls>\n<｜DSML｜invoke name="get_weather">\n<｜DSML｜parameter name="city" '
    'string="true">Paris</｜DSML｜parameter>\n</｜DSML｜inv>\n</｜DSML｜tool_calls>'
)


@pytest.mark.parametrize("short", ["</｜DSML｜inv>", "</｜DSML｜i>", "</|DSML|invok>"])
def test_a_dsml_invoke_closed_short_is_closed_with_a_repair(short: str) -> None:
    text = SHORT_CLOSE.replace("</｜DSML｜inv>", short)
    if short.startswith("</|"):
        text = text.replace("｜DSML｜", "|DSML|")
    for protocol in ("deepseek-v3.2", "auto"):
        (call,) = toolmend.parse(text, protocol, WEATHER).tool_calls
        assert (call.name, call.arguments, call.executable) == (
            "get_weather",
            {"city": "Paris"},
            True,
        )
        assert "close-invoke" in call.repairs
        assert toolmend.parse(text, protocol, WEATHER).text.strip() == ""
    check_all_invariants("deepseek-v3.2", text, WEATHER)
    (strict,) = toolmend.parse(text, "deepseek-v3.2", WEATHER, policy="strict").tool_calls
    assert not strict.executable


@pytest.mark.parametrize("tag", ["</｜DSML｜>", "</｜DSML｜invokes>", "</｜DSML｜int>"])
def test_a_closing_tag_that_is_no_start_of_invoke_still_breaks_the_invoke(tag: str) -> None:
    text = SHORT_CLOSE.replace("</｜DSML｜inv>", tag)
    assert calls(text, "deepseek-v3.2") == []


def test_other_invoke_formats_keep_their_closer_exact() -> None:
    text = '<invoke name="get_weather"><parameter name="city">Paris</parameter></inv>'
    assert calls(text, "anthropic-xml") == []


def test_a_dsml_json_body_cut_off_mid_object_never_runs() -> None:
    text = '<｜DSML｜function_calls><｜DSML｜invoke name="get_weather">{"city": "Pa'
    result = toolmend.parse(text, "deepseek-v3.2", WEATHER)
    assert [c.executable for c in result.tool_calls] == [False]


SEED_JSON = (
    '<seed:tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n'
    "</seed:tool_call> Done."
)


@pytest.mark.parametrize("protocol", ["seed-oss", "auto"])
def test_a_seed_wrapper_holding_json_ends_at_its_own_closer(protocol: str) -> None:
    result = toolmend.parse(SEED_JSON, protocol, WEATHER)
    assert [(c.name, c.arguments, c.executable) for c in result.tool_calls] == [
        ("get_weather", {"city": "Paris"}, True)
    ]
    assert result.text == " Done."
    check_all_invariants(protocol, SEED_JSON, WEATHER)


# vllm-project/vllm@04b590e613452c30240e574e66102b4838570054
# tests/tool_parsers/test_step3_tool_parser.py (Apache-2.0): two calls with `<｜tool_sep｜>`
# between them, and the tool's name on its own line between a call's header and its invoke.
STEP3_BEGIN = "<｜tool_calls_begin｜><｜tool_call_begin｜>"
STEP3_PARALLEL = (
    STEP3_BEGIN + '<steptml:invoke name="get_weather">'
    '<steptml:parameter name="city">Tokyo</steptml:parameter>'
    "</steptml:invoke><｜tool_call_end｜><｜tool_sep｜>"
    '<｜tool_call_begin｜><steptml:invoke name="get_weather">'
    '<steptml:parameter name="city">Osaka</steptml:parameter>'
    "</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>"
)
EDIT = [
    {
        "name": "edit_file",
        "parameters": {
            "type": "object",
            "properties": {"old_string": {"type": "string"}, "indent": {"type": "integer"}},
        },
    }
]
STEP3_NAMED = (
    STEP3_BEGIN + "function<｜tool_sep｜>edit_file\n"
    '<steptml:invoke name="edit_file">'
    '<steptml:parameter name="old_string">    if x:\n</steptml:parameter>'
    '<steptml:parameter name="indent"> 4 </steptml:parameter>'
    "</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>"
)


@pytest.mark.parametrize("protocol", ["step3", "auto"])
def test_step3_separators_and_a_named_header_are_markup(protocol: str) -> None:
    result = toolmend.parse(STEP3_PARALLEL, protocol, WEATHER)
    assert [c.arguments["city"] for c in result.tool_calls] == ["Tokyo", "Osaka"]
    assert result.text == ""
    check_all_invariants(protocol, STEP3_PARALLEL, WEATHER)
    result = toolmend.parse(STEP3_NAMED, protocol, EDIT)
    # A string keeps the whitespace around it (an exact-match edit needs it); an integer not.
    assert calls(STEP3_NAMED, protocol, EDIT) == [
        ("edit_file", {"old_string": "    if x:\n", "indent": 4})
    ]
    assert result.text == ""
    check_all_invariants(protocol, STEP3_NAMED, EDIT)


def test_after_a_step3_header_prose_stays_text() -> None:
    text = STEP3_BEGIN + "function<｜tool_sep｜>I would call edit_file here."
    result = toolmend.parse(text, "step3", EDIT)
    assert (result.tool_calls, result.text) == ([], "I would call edit_file here.")
    check_all_invariants("step3", text, EDIT)


# Found by `bench/fuzz.py --seed 250000000` (case 250003382): a run of braces taken for the name
# line ends right before `<steptml:invoke`, and the invoke's opening crosses the name's bound.
@pytest.mark.parametrize("braces", [100, 113, 114, 120, 128, 129, 140])
def test_a_step3_header_decides_the_same_when_its_invoke_crosses_the_bound(braces: int) -> None:
    text = STEP3_BEGIN + "function<｜tool_sep｜>" + "{" * braces + "<steptml:invoke"
    check_all_invariants("step3", text, EDIT)
    check_all_invariants("auto", text, EDIT)


# sgl-project/sglang@eccff82e26006e3b444607396f3fbea72fa3167a sgl-model-gateway/tests/tool_parser/
# tool_parser_step3.rs::test_step3_type_conversion (Apache-2.0), in tests/corpus/engines: Step-3's
# template writes a non-string value as JSON, so an undeclared one reads as that JSON value.
STEP3_TYPED = (
    "<｜tool_calls_begin｜>\n<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke "
    'name="process">\n<steptml:parameter name="count">100</steptml:parameter>\n'
    '<steptml:parameter name="rate">2.5</steptml:parameter>\n'
    '<steptml:parameter name="active">true</steptml:parameter>\n'
    '<steptml:parameter name="optional">null</steptml:parameter>\n'
    '<steptml:parameter name="text">hello world</steptml:parameter>\n'
    "</steptml:invoke><｜tool_call_end｜>\n<｜tool_calls_end｜>"
)


@pytest.mark.parametrize("protocol", ["step3", "auto"])
def test_an_undeclared_step3_value_written_as_json_is_that_value(protocol: str) -> None:
    typed = {"count": 100, "rate": 2.5, "active": True, "optional": None, "text": "hello world"}
    assert calls(STEP3_TYPED, protocol, None) == [("process", typed)]
    declared = [
        {
            "name": "process",
            "parameters": {
                "type": "object",
                "properties": {"count": {"type": "string"}, "rate": {"type": "string"}},
            },
        }
    ]
    assert calls(STEP3_TYPED, protocol, declared)[0][1]["count"] == "100"
    check_all_invariants(protocol, STEP3_TYPED, None)
