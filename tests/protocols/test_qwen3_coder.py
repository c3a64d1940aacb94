"""The qwen3-coder protocol: `<tool_call><function=NAME><parameter=KEY>VALUE</parameter>...`."""

from __future__ import annotations

import json
from typing import Any

import pytest

import toolmend
from support import (
    check_all_invariants,
    load_cases,
    load_exceptions,
    run_chunks,
    streamed_arguments,
)
from tool_fixtures import WEATHER, WRITE
from toolmend.events import ToolCallDelta, ToolCallEnd, ToolCallStart
from toolmend.protocols.qwen3_coder import parameter_value

PROTOCOL = "qwen3-coder"

CASES = load_cases("qwen3_coder.jsonl")
EXCEPTIONS = load_exceptions("qwen3_coder.exceptions.json")
VALUE_CASES = load_cases("qwen3_coder_param_value.jsonl")
VALUE_EXCEPTIONS = load_exceptions("qwen3_coder_param_value.exceptions.json")


def parse(text: str, tools: Any = WEATHER, **kw: Any) -> toolmend.ParseResult:
    return toolmend.parse(text, PROTOCOL, tools, id_prefix="call_", **kw)


def call_text(name: str, *params: tuple[str, str]) -> str:
    body = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in params)
    return f"<tool_call>\n<function={name}>\n{body}</function>\n</tool_call>"


def value_case_id(case: dict[str, Any]) -> str:
    return str(case["source"]).rsplit("::", 1)[-1]


def same_json(a: Any, b: Any) -> bool:
    """Equal as JSON data: 100 == 100.0, but True is not 1 and "1" is not 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


# Corpus ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "case", [c for c in CASES if c["expected"] is not None], ids=lambda c: c["id"]
)
def test_corpus_case_gives_the_expected_calls(case: dict[str, Any]) -> None:
    if case["id"] in EXCEPTIONS:
        pytest.skip(EXCEPTIONS[case["id"]])
    result = toolmend.parse(case["text"], PROTOCOL, case.get("tools"))
    got = [{"name": c.name, "arguments": c.arguments} for c in result.tool_calls if c.executable]
    expected = case["expected"]
    if case.get("expected_partial"):
        # Upstream asserts the names and only some arguments (null: none of them).
        assert [g["name"] for g in got] == [e["name"] for e in expected]
        for g, e in zip(got, expected, strict=True):
            for key, value in (e["arguments"] or {}).items():
                assert same_json(g["arguments"][key], value)
    else:
        assert len(got) == len(expected)
        assert all(same_json(g, e) for g, e in zip(got, expected, strict=True)), got


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["id"])
def test_corpus_text_keeps_the_stream_invariants(case: dict[str, Any]) -> None:
    check_all_invariants(PROTOCOL, case["text"], case.get("tools"))


@pytest.mark.parametrize("case", [c for c in CASES if c.get("chunks")], ids=lambda c: c["id"])
def test_corpus_upstream_chunking_gives_the_same_result_as_the_whole_text(case: dict) -> None:
    whole = toolmend.parse(case["text"], PROTOCOL, case.get("tools"))
    events = run_chunks(PROTOCOL, case["chunks"], case.get("tools"))
    ends = [e.call for e in events if isinstance(e, ToolCallEnd)]
    assert [(c.name, c.arguments) for c in ends] == [
        (c.name, c.arguments) for c in whole.tool_calls
    ]


@pytest.mark.parametrize("case", VALUE_CASES, ids=value_case_id)
def test_corpus_parameter_body_is_typed_as_upstream_expects(case: dict[str, Any]) -> None:
    if value_case_id(case) in VALUE_EXCEPTIONS:
        pytest.skip(VALUE_EXCEPTIONS[value_case_id(case)])
    declared = case["param_type"]
    schema = None if declared is None else {"type": declared}
    assert same_json(parameter_value(case["text"], schema), case["want"])


def test_exceptions_name_only_corpus_cases_that_exist() -> None:
    assert set(EXCEPTIONS) <= {c["id"] for c in CASES}
    assert set(VALUE_EXCEPTIONS) <= {value_case_id(c) for c in VALUE_CASES}


# Values ---------------------------------------------------------------------------------


def test_a_string_value_loses_only_one_leading_and_one_trailing_newline() -> None:
    result = parse(call_text("get_weather", ("city", "\n  Paris \n")))
    assert result.tool_calls[0].arguments == {"city": "\n  Paris \n"}


def test_code_with_angle_brackets_and_other_tags_survives_in_a_value() -> None:
    code = 'if a < b and c > d:\n    print("<div></div>")\n</para>'
    result = parse(call_text("write_file", ("file_path", "a.py"), ("content", code)), WRITE)
    assert result.tool_calls[0].arguments["content"] == code


def test_entities_and_escapes_in_a_value_are_kept_as_written() -> None:
    result = parse(call_text("get_weather", ("city", "San Francisco &amp; \\n")))
    assert result.tool_calls[0].arguments["city"] == "San Francisco &amp; \\n"


def test_a_declared_string_keeps_text_that_looks_like_null_or_a_number() -> None:
    assert parameter_value("\nnull\n", {"type": "string"}) == "null"
    assert parameter_value("007", {"type": "string"}) == "007"


def test_values_are_typed_by_the_declared_schema() -> None:
    result = parse(call_text("get_weather", ("city", "Oslo"), ("days", "3")))
    assert result.tool_calls[0].arguments == {"city": "Oslo", "days": 3}


def test_an_object_written_as_a_python_literal_is_read() -> None:
    value = parameter_value("{'a': (1, 2), 'b': True, 'c': None}", {"type": "object"})
    assert value == {"a": [1, 2], "b": True, "c": None}


def test_a_type_union_from_any_of_is_followed() -> None:
    schema = {"anyOf": [{"type": "integer"}, {"type": "string"}]}
    assert parameter_value("12", schema) == 12
    assert parameter_value("twelve", schema) == "twelve"


def test_without_a_schema_json_scalars_are_read_and_other_text_is_kept() -> None:
    result = parse(
        call_text("f", ("n", "5"), ("q", '"quoted"'), ("t", "hello"), ("o", "[1]")), None
    )
    assert result.tool_calls[0].arguments == {"n": 5, "q": '"quoted"', "t": "hello", "o": [1]}


def test_non_finite_numbers_are_never_read() -> None:
    assert parameter_value("NaN", None) == "NaN"
    assert parameter_value("1e999", {"type": "number"}) == "1e999"


# Structure ------------------------------------------------------------------------------


def test_a_bare_function_without_the_wrapper_is_a_call() -> None:
    result = parse("Sure. <function=get_weather><parameter=city>Berlin</parameter></function>")
    assert result.tool_calls[0].arguments == {"city": "Berlin"}
    assert result.text == "Sure. "


def test_a_closing_wrapper_after_a_bare_function_belongs_to_the_call() -> None:
    result = parse(
        "<function=get_weather><parameter=city>Rome</parameter></function>\n</tool_call>"
    )
    assert result.tool_calls[0].executable and result.text == ""


def test_several_blocks_are_several_calls() -> None:
    text = call_text("get_weather", ("city", "a")) + "\n" + call_text("get_weather", ("city", "b"))
    assert [c.arguments["city"] for c in parse(text).tool_calls] == ["a", "b"]


def test_two_functions_in_one_wrapper_are_two_calls() -> None:
    text = (
        "<tool_call>\n<function=get_weather>\n<parameter=city>\na\n</parameter>\n</function>\n"
        "<function=get_weather>\n<parameter=city>\nb\n</parameter>\n</function>\n</tool_call>"
    )
    result = parse(text)
    assert [c.arguments["city"] for c in result.tool_calls] == ["a", "b"]
    assert result.text.strip() == ""


def test_a_value_missing_its_closer_ends_at_the_function_end() -> None:
    result = parse("<function=get_weather>\n<parameter=city>\nLima\n</function>")
    call = result.tool_calls[0]
    assert call.executable and call.arguments == {"city": "Lima"}
    assert "close-parameter" in call.repairs


def test_a_value_missing_its_closer_ends_at_the_next_parameter() -> None:
    result = parse(
        "<function=get_weather>\n<parameter=city>\nLima\n<parameter=days>\n2\n</function>"
    )
    assert result.tool_calls[0].arguments == {"city": "Lima", "days": 2}


def test_a_missing_closer_fails_the_call_under_the_strict_policy() -> None:
    result = parse("<function=get_weather>\n<parameter=city>\nLima\n</function>", policy="strict")
    call = result.tool_calls[0]
    assert call.incomplete and "not closed" in (call.error or "")


def test_a_function_missing_its_closer_ends_at_the_wrapper_close() -> None:
    result = parse(
        "<tool_call>\n<function=get_weather>\n<parameter=city>x</parameter>\n</tool_call>"
    )
    call = result.tool_calls[0]
    assert call.executable and "close-function" in call.repairs and result.text == ""


def test_json_inside_the_wrapper_is_read_as_a_hermes_call() -> None:
    result = parse(
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Prague"}}\n</tool_call>'
    )
    assert result.tool_calls[0].arguments == {"city": "Prague"} and result.text == ""


def test_json_arguments_inside_a_function_tag_are_read() -> None:
    result = parse('<function=get_weather>{"city": "Prague"}</function>')
    call = result.tool_calls[0]
    assert call.executable and call.arguments == {"city": "Prague"}


def test_a_quoted_name_resolves_to_the_declared_tool_and_parameter() -> None:
    result = parse('<function="get_weather">\n<parameter="city">\nOslo\n</parameter>\n</function>')
    assert [(c.name, c.arguments) for c in result.tool_calls] == [("get_weather", {"city": "Oslo"})]


def test_a_repeated_parameter_fails_the_call() -> None:
    result = parse(call_text("get_weather", ("city", "a"), ("city", "b")))
    call = result.tool_calls[0]
    assert call.incomplete and "given twice" in (call.error or "")
    assert call.arguments == {"city": "a"}


def test_text_between_parameters_fails_the_call() -> None:
    # (An escaped `\n` there is layout: test_escaped_line_breaks_between_the_tags_are_layout.)
    result = parse("<function=get_weather>\nsee\n<parameter=city>\nx\n</parameter>\n</function>")
    call = result.tool_calls[0]
    assert call.incomplete and "unexpected text" in (call.error or "")


def test_an_unknown_tool_stays_text_with_a_diagnostic() -> None:
    text = call_text("launch_rockets", ("when", "now"))
    result = parse(text)
    assert result.tool_calls == [] and result.text == text
    assert [d.code for d in result.diagnostics] == ["unknown_tool"]


def test_a_wrapper_holding_no_call_markup_stays_text() -> None:
    assert parse("a <tool_call>abc</tool_call> b").text == "a <tool_call>abc</tool_call> b"


def test_an_empty_wrapper_is_stripped_as_markup() -> None:
    result = parse("a <tool_call>\n</tool_call> b")
    assert result.text == "a  b" and result.tool_calls == []
    assert [d.code for d in result.diagnostics] == ["markup_stripped"]


def test_a_function_header_longer_than_a_tag_stays_text() -> None:
    text = "<function=" + "x" * 200 + ">"
    assert parse(text).text == text


def test_code_examples_are_not_parsed() -> None:
    text = (
        "Write `<function=get_weather><parameter=city>x</parameter></function>` or:\n"
        "```\n" + call_text("get_weather", ("city", "x")) + "\n```\n"
    )
    result = parse(text)
    assert result.tool_calls == [] and result.text == text


# Streaming ------------------------------------------------------------------------------


def test_a_string_value_streams_before_its_closing_tag() -> None:
    parser = toolmend.stream_parser(PROTOCOL, WRITE, id_prefix="c")
    events = parser.feed(
        "<tool_call>\n<function=write_file>\n<parameter=file_path>\na.py\n</parameter>\n"
        "<parameter=content>\nprint(1)\nprint(2)\n"
    )
    assert isinstance(events[0], ToolCallStart)
    sent = streamed_arguments(events)
    # The final newline is held back: it is the template's if `</parameter>` follows.
    assert sent == '{"file_path": "a.py", "content": "print(1)\\nprint(2)'
    rest = parser.feed("</parameter>\n</function>\n</tool_call>") + parser.finish()
    [end] = [e for e in rest if isinstance(e, ToolCallEnd)]
    assert end.call.arguments == {"file_path": "a.py", "content": "print(1)\nprint(2)"}


def test_a_typed_value_is_sent_only_once_it_is_complete() -> None:
    parser = toolmend.stream_parser(PROTOCOL, WEATHER, id_prefix="c")
    events = parser.feed("<function=get_weather>\n<parameter=days>\n1")
    assert not [e for e in events if isinstance(e, ToolCallDelta)]
    events += parser.feed("2\n</parameter>")
    # The closer may still be quoted text: what follows it decides.
    assert not [e for e in events if isinstance(e, ToolCallDelta)]
    events += parser.feed("\n</function>")
    sent = streamed_arguments(events)
    assert sent == '{"days": 12}'


def test_a_long_string_value_in_small_chunks_gives_the_same_call() -> None:
    content = "line <b>\n" * 2000
    text = call_text("write_file", ("file_path", "a"), ("content", content))
    chunks = [text[i : i + 5] for i in range(0, len(text), 5)]
    [end] = [e for e in run_chunks(PROTOCOL, chunks, WRITE) if isinstance(e, ToolCallEnd)]
    assert end.call.arguments["content"] == content


# Rendering ------------------------------------------------------------------------------


def test_a_rendered_call_has_the_template_layout() -> None:
    call = toolmend.ToolCall(id="c1", name="get_weather", arguments={"city": "Oslo", "days": 2})
    assert toolmend.get_protocol(PROTOCOL).render_call(call) == (
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n"
        "<parameter=days>\n2\n</parameter>\n</function>\n</tool_call>"
    )


@pytest.mark.parametrize("value", ["\n", "\nx\n\n", "  ", "", "a < b > c", "[1]", "null"])
def test_a_rendered_string_parses_back_unchanged(value: str) -> None:
    call = toolmend.ToolCall(id="c1", name="get_weather", arguments={"city": value})
    result = parse(toolmend.get_protocol(PROTOCOL).render_call(call))
    assert result.tool_calls[0].arguments == {"city": value}


def test_results_are_written_as_tool_response_blocks() -> None:
    assert toolmend.get_protocol(PROTOCOL).render_result("c1", "get_weather", "sunny") == (
        "<tool_response>\nsunny\n</tool_response>"
    )


def test_the_tools_prompt_declares_every_parameter_and_the_call_format() -> None:
    prompt = toolmend.get_protocol(PROTOCOL).render_tools(
        [toolmend.Tool.from_dict(t) for t in WEATHER]
    )
    assert "<name>get_weather</name>" in prompt and "<name>days</name>" in prompt
    assert '<required>["city"]</required>' in prompt
    assert "<function=FUNCTION_NAME>" in prompt and "<parameter=PARAMETER_NAME>" in prompt


# R1–R4: a call cut off by the end of the stream ------------------------------------------

COMPLETE = "<tool_call>\n<function=get_weather>\n<parameter=city>\nSeoul\n</parameter>\n"


@pytest.mark.parametrize(
    "cut",
    ["", "</function", "</function>\n", "</function>\n</tool_ca"],
    ids=["no-function-close", "partial-function-close", "no-wrapper-close", "partial-wrapper"],
)
def test_r1_r4_a_call_missing_only_closing_tags_completes(cut: str) -> None:
    result = parse(COMPLETE + cut)
    call = result.tool_calls[0]
    assert call.executable and call.arguments == {"city": "Seoul"} and result.text == ""


def test_r1_r4_a_value_followed_by_a_partial_closer_completes() -> None:
    result = parse("<tool_call>\n<function=get_weather>\n<parameter=city>\nSeoul\n</param")
    call = result.tool_calls[0]
    assert call.executable and call.arguments == {"city": "Seoul"}


def test_r1_r4_a_value_cut_at_a_short_partial_tag_is_incomplete() -> None:
    result = parse(
        "<function=write_file>\n<parameter=file_path>\na\n</parameter>\n"
        "<parameter=content>\n<div>\n</",
        WRITE,
    )
    call = result.tool_calls[0]
    assert call.incomplete and call.arguments["content"] == "<div>\n</"


def test_r1_r4_a_call_cut_inside_a_value_is_incomplete_with_best_effort_arguments() -> None:
    result = parse("<tool_call>\n<function=get_weather>\n<parameter=city>\nSeo")
    call = result.tool_calls[0]
    assert call.incomplete and call.error and call.arguments == {"city": "Seo"}
    assert result.text == ""


def test_r1_r4_a_call_cut_where_another_parameter_may_begin_is_incomplete() -> None:
    result = parse(COMPLETE + "<param")
    assert result.tool_calls[0].incomplete


def test_r1_r4_a_call_cut_inside_its_header_is_dropped_with_metadata_only() -> None:
    text = "<tool_call>\n<function=get_wea"
    result = parse(text)
    assert result.tool_calls == [] and result.text == ""
    [diag] = result.diagnostics
    assert diag.code == "truncated_fragment_dropped"
    assert diag.metadata == {"protocol": PROTOCOL, "retained_length": len(text)}
    assert "get_wea" not in json.dumps(diag.to_dict())


def test_r1_r4_an_unknown_tool_cut_off_stays_text() -> None:
    text = "<tool_call>\n<function=launch>\n<parameter=x>\n1"
    result = parse(text)
    assert result.tool_calls == [] and result.text == text


def test_r1_r4_arguments_violating_the_schema_leave_the_call_incomplete() -> None:
    result = parse(call_text("get_weather", ("city", "a"), ("tags", "[]")))
    call = result.tool_calls[0]
    assert call.incomplete and "tags" in (call.error or "")


def test_r1_r4_a_truncated_second_call_is_incomplete_and_the_first_runs() -> None:
    [case] = [c for c in CASES if c["id"] == "vllm_mlx_tests-f826fb82c9"]
    result = toolmend.parse(case["text"], PROTOCOL, None)
    assert [(c.name, c.executable) for c in result.tool_calls] == [
        ("get_weather", True),
        ("convert_currency", False),
    ]
    assert result.text.strip() == ""


# Bounds ---------------------------------------------------------------------------------


def test_a_call_larger_than_the_fragment_cap_ends_incomplete_and_is_skipped() -> None:
    text = (
        "<function=write_file>\n<parameter=file_path>\na\n</parameter>\n"
        f"<parameter=content>\n{'x' * 5000}\n</parameter>\n</function>tail"
    )
    result = toolmend.parse(text, PROTOCOL, WRITE, max_fragment=1000)
    call = result.tool_calls[0]
    assert call.incomplete and "1000" in (call.error or "")
    assert result.text == "tail"
    assert "fragment_overflow" in [d.code for d in result.diagnostics]
    check_all_invariants(PROTOCOL, text, WRITE, max_fragment=1000)


# Invariants on fixtures ------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "a " + call_text("get_weather", ("city", "x < y")) + " b",
        "<function=get_weather>\n<parameter=city>\nLima\n<parameter=days>\n2\n</function>",
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "P"}}\n</tool_call>z',
        '<function=get_weather>{"city": "P"}</function>\n</tool_call>',
        "x <tool_call>abc</tool_call> <tool_call>\n</tool_call> <function=nope>y</function>",
        COMPLETE + "</param",
        COMPLETE + "<parameter=days>\n4",
    ],
)
def test_fixtures_keep_the_stream_invariants(text: str) -> None:
    check_all_invariants(PROTOCOL, text, WEATHER)


# ------------------------------------------------------------- layout written escaped
# mudler/LocalAI@82c191afadf5f005281e798ccfa0ffd0d5805030 pkg/functions/parse_test.go::It(should
# return tool call when leading text precedes tool block (literal \n between tags)) (MIT), in
# tests/corpus/engines: the model's text went through one JSON encoding too many.
BASH = [
    {
        "name": "bash",
        "parameters": {"type": "object", "properties": {"script": {"type": "string"}}},
    }
]
ESCAPED = (
    "Let me look.\\n\\n<tool_call>\\n<function=bash>\\n<parameter=script>\\n"
    "cd /srv && printf 'a\\nb'\\n</parameter>\\n</function>\\n</tool_call>"
)


@pytest.mark.parametrize("protocol", ["qwen3-coder", "auto"])
@pytest.mark.parametrize("tools", [BASH, None])
def test_escaped_line_breaks_between_the_tags_are_layout(protocol: str, tools: Any) -> None:
    result = toolmend.parse(ESCAPED, protocol, tools)
    # Only the template's edges go: the `\n` inside the script is the script's.
    assert [(c.name, c.arguments, c.executable) for c in result.tool_calls] == [
        ("bash", {"script": "cd /srv && printf 'a\\nb'"}, True)
    ]
    assert result.text == "Let me look.\\n\\n"
    check_all_invariants(protocol, ESCAPED, tools)


def test_without_escaped_layout_a_value_keeps_its_backslash_n_edges() -> None:
    text = "<tool_call>\n<function=bash>\n<parameter=script>\n\\necho\\n\n</parameter>\n</function>"
    result = toolmend.parse(text, "qwen3-coder", BASH)
    assert [c.arguments for c in result.tool_calls] == [{"script": "\\necho\\n"}]


@pytest.mark.parametrize(
    ("body", "content"),
    [
        ("\ndef f():\n    pass\n", "def f():\n    pass"),  # the template's layout: both trimmed
        ('def foo(arg = "14"):\n    return arg\n', 'def foo(arg = "14"):\n    return arg\n'),
        ("x\n\n", "x\n\n"),
    ],
)
def test_a_final_line_break_is_the_templates_only_after_a_leading_one(
    body: str, content: str
) -> None:
    # llama.cpp's Seed-OSS cases: a value written right after its tag keeps its last line break
    # (an edit tool's oldString must match exactly).
    for protocol, wrap in (("qwen3-coder", "tool_call"), ("seed-oss", "seed:tool_call")):
        text = (
            f"<{wrap}><function=write_file><parameter=file_path>a.py</parameter>"
            f"<parameter=content>{body}</parameter></function></{wrap}>"
        )
        (call,) = toolmend.parse(text, protocol, WRITE).tool_calls
        assert call.arguments["content"] == content
        check_all_invariants(protocol, text, WRITE)


# SGLang's Qwen3-Coder detector cases (test_qwen3_coder_detector/test_cases.py,
# `implicit_parameter_close`): each value on its tag's line, every `</parameter>` forgotten.
IMPLICIT_CLOSE = (
    "Text prefix + implicit parameter close test\n\n<function=get_weather>\n"
    "<parameter=city>Paris\n<parameter=days>3\n</function>"
)


def test_after_a_value_on_its_tags_line_the_break_before_a_forgotten_closers_tag_is_layout() -> (
    None
):
    # The template puts every tag on its own line: when `</parameter>` is missing, the line
    # break before the next `<parameter=` (or `</function>`) is that layout, not the value's.
    (call,) = toolmend.parse(IMPLICIT_CLOSE, "qwen3-coder", WEATHER).tool_calls
    assert (call.arguments, call.executable) == ({"city": "Paris", "days": 3}, True)
    check_all_invariants("qwen3-coder", IMPLICIT_CLOSE, WEATHER)
    # The sibling in Seed-OSS's layout, whose template writes each value right after its tag;
    # the value whose `</parameter>` is written keeps its own final line break.
    text = (
        "<seed:tool_call><function=write_file><parameter=file_path>a.py\n"
        "<parameter=content>x = 1\n</parameter></function></seed:tool_call>"
    )
    (call,) = toolmend.parse(text, "seed-oss", WRITE).tool_calls
    assert call.arguments == {"file_path": "a.py", "content": "x = 1\n"}
    check_all_invariants("seed-oss", text, WRITE)
    check_all_invariants("auto", text, WRITE)


def test_an_object_parameter_written_as_a_json_string_holding_a_dict_reads_as_the_object() -> None:
    # vLLM's test_qwen3_xml_coder_shared.py, test_double_encoded_object_param_nonstreaming.
    tools = [
        {
            "name": "process",
            "parameters": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "data": {"type": "object"}},
            },
        }
    ]
    text = (
        "<tool_call>\n<function=process>\n<parameter=name>\nhello\n</parameter>\n"
        "<parameter=data>\n\"{'key': 'value', 'n': 1}\"\n</parameter>\n</function>\n</tool_call>\n"
    )
    for protocol in ("qwen3-coder", "auto"):
        (call,) = toolmend.parse(text, protocol, tools).tool_calls
        assert (call.arguments, call.executable) == (
            {"name": "hello", "data": {"key": "value", "n": 1}},
            True,
        )
