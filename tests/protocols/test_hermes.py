"""The hermes protocol: `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`."""

from __future__ import annotations

import json
import threading
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
from toolmend.events import Diagnostic, TextDelta, ToolCallDelta, ToolCallEnd, ToolCallStart

CASES = load_cases("hermes.jsonl")
EXCEPTIONS = load_exceptions("hermes.exceptions.json")


def case_text(case: dict[str, Any]) -> str:
    delimiters = case.get("delimiters")
    return delimiters[0] + case["text"] + delimiters[1] if delimiters else case["text"]


def parse(text: str, tools: Any = WEATHER, **kw: Any) -> toolmend.ParseResult:
    return toolmend.parse(text, "hermes", tools, id_prefix="call_", **kw)


@pytest.mark.parametrize(
    "case", [c for c in CASES if c["expected"] is not None], ids=lambda c: c["id"]
)
def test_corpus_case_gives_the_expected_calls(case: dict[str, Any]) -> None:
    if case["id"] in EXCEPTIONS:
        pytest.skip(EXCEPTIONS[case["id"]])
    result = toolmend.parse(case_text(case), "hermes", case.get("tools"))
    got = [{"name": c.name, "arguments": c.arguments} for c in result.tool_calls if c.executable]
    if case.get("expected_partial"):
        assert [g["name"] for g in got] == [e["name"] for e in case["expected"]]
    else:
        assert got == case["expected"]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["id"])
def test_corpus_text_keeps_the_stream_invariants(case: dict[str, Any]) -> None:
    check_all_invariants("hermes", case_text(case), case.get("tools"))


@pytest.mark.parametrize("case", [c for c in CASES if c.get("chunks")], ids=lambda c: c["id"])
def test_corpus_upstream_chunking_gives_the_same_result_as_the_whole_text(case: dict) -> None:
    whole = toolmend.parse(case_text(case), "hermes", case.get("tools"), id_prefix="c")
    events = run_chunks("hermes", case["chunks"], case.get("tools"))
    ends = [e.call for e in events if isinstance(e, ToolCallEnd)]
    assert [(c.name, c.arguments) for c in ends] == [
        (c.name, c.arguments) for c in whole.tool_calls
    ]


def test_exceptions_name_only_corpus_cases_that_exist() -> None:
    ids = {c["id"] for c in CASES}
    assert set(EXCEPTIONS) <= ids


def test_a_close_tag_inside_a_json_string_does_not_end_the_call() -> None:
    result = parse(
        '<tool_call>{"name": "get_weather", "arguments": {"city": "a</tool_call>b"}}</tool_call>'
    )
    assert result.tool_calls[0].arguments == {"city": "a</tool_call>b"}
    assert result.text == ""


def test_a_new_open_tag_before_a_close_ends_the_previous_call() -> None:
    result = parse(
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Seoul"}}'
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
    )
    assert [c.arguments["city"] for c in result.tool_calls] == ["Seoul", "Paris"]
    assert all(c.executable for c in result.tool_calls)


def test_several_objects_in_one_block_are_parallel_calls() -> None:
    result = parse(
        '<tool_call>{"name": "get_weather", "arguments": {"city": "a"}}'
        '{"name": "get_weather", "arguments": {"city": "b"}}\n'
        '{"name": "get_weather", "arguments": {"city": "c"}}</tool_call>'
    )
    assert [c.arguments["city"] for c in result.tool_calls] == ["a", "b", "c"]


def test_arguments_given_as_a_json_string_are_decoded() -> None:
    result = parse(
        '<tool_call>{"name": "get_weather", "arguments": "{\\"city\\": \\"Oslo\\"}"}</tool_call>'
    )
    call = result.tool_calls[0]
    assert call.arguments == {"city": "Oslo"} and call.executable
    assert "parse-json-string" in call.repairs


def test_concatenated_objects_inside_an_arguments_string_fail_with_their_count() -> None:
    result = parse(
        '<tool_call>{"name": "get_weather", "arguments": "{\\"city\\": \\"a\\"}{\\"city\\": \\"b\\"}"}</tool_call>'
    )
    call = result.tool_calls[0]
    assert call.incomplete and "one tool call per object" in (call.error or "")
    [diag] = [d for d in result.diagnostics if d.code == "concatenated_json"]
    assert diag.metadata["count"] == 2


def test_a_call_in_the_openai_wire_shape_is_read() -> None:
    result = parse(
        '<tool_call>{"type": "function", "function": {"name": "get_weather", "arguments": "{\\"city\\": \\"Rome\\"}"}}</tool_call>'
    )
    assert [(c.name, c.arguments, c.executable) for c in result.tool_calls] == [
        ("get_weather", {"city": "Rome"}, True)
    ]


def test_a_granite_style_array_of_calls_gives_each_call() -> None:
    result = parse(
        '<tool_call>[{"name": "get_weather", "arguments": {"city": "a"}}, {"name": "get_weather", "arguments": {"city": "b"}}]</tool_call>'
    )
    assert [c.arguments["city"] for c in result.tool_calls] == ["a", "b"]


def test_an_unknown_tool_stays_text_with_a_diagnostic() -> None:
    text = 'Hi <tool_call>{"name": "launch_rockets", "arguments": {}}</tool_call>'
    result = parse(text)
    assert result.tool_calls == [] and result.text == text
    assert [d.code for d in result.diagnostics] == ["unknown_tool"]


def test_names_colliding_on_an_alias_key_resolve_to_neither() -> None:
    tools = [{"name": "read_file"}, {"name": "ReadFile"}]
    text = '<tool_call>{"name": "read-file", "arguments": {}}</tool_call>'
    result = parse(text, tools)
    assert result.tool_calls == [] and result.text == text
    assert [d.code for d in result.diagnostics] == ["ambiguous_tool"]


def test_a_disguised_tool_name_resolves_to_the_declared_tool() -> None:
    result = parse(
        '<tool_call>{"name": "mcp_49f0-Get_Weather", "arguments": {"city": "x"}}</tool_call>'
    )
    assert result.tool_calls[0].name == "get_weather"


def test_code_examples_are_not_parsed() -> None:
    text = (
        'Use `<tool_call>{"name": "get_weather"}</tool_call>` or:\n'
        '```json\n<tool_call>{"name": "get_weather", "arguments": {"city": "x"}}</tool_call>\n```\n'
    )
    result = parse(text)
    assert result.tool_calls == [] and result.text == text


# sgl-project/sglang@eccff82e26006e3b444607396f3fbea72fa3167a sgl-model-gateway/tests/tool_parser/
# tool_parser_mixed_edge_cases.rs::test_mixed_formats_in_text (Apache-2.0), in tests/corpus/engines:
# prose that names the tag, then JSON further on.
MENTIONED = (
    "Some text with [TOOL_CALLS] marker that shouldn't trigger.\n"
    "Also has <tool_call> tags and [function()] syntax.\n"
    'But here\'s the actual JSON: {"name": "get_weather", "arguments": {"city": "x"}}\n'
)


@pytest.mark.parametrize(
    ("protocol", "tools"),
    # (json and auto read a bare object naming a declared tool wherever it stands)
    [("hermes", WEATHER), ("hermes", None), ("json", None), ("auto", None)],
)
def test_prose_after_the_opener_means_the_tag_was_mentioned_not_written(
    protocol: str, tools: Any
) -> None:
    result = toolmend.parse(MENTIONED, protocol, tools)
    assert result.tool_calls == [] and result.text == MENTIONED
    check_all_invariants(protocol, MENTIONED, tools)


def test_a_code_fence_inside_the_block_is_the_one_text_before_its_json() -> None:
    text = '<tool_call>\n```json\n{"name": "get_weather", "arguments": {"city": "x"}}\n```\n</tool_call>'
    result = parse(text)
    assert [(c.name, c.arguments) for c in result.tool_calls] == [("get_weather", {"city": "x"})]
    check_all_invariants("hermes", text, WEATHER)


def test_a_malformed_block_is_recorded_not_shown() -> None:
    result = parse("before <tool_call>not json at all</tool_call> after")
    assert result.text == "before  after"
    [diag] = result.diagnostics
    assert diag.code == "malformed_call" and diag.stripped_length == len(
        "<tool_call>not json at all</tool_call>"
    )
    assert "not json" not in json.dumps(diag.to_dict())


def test_a_malformed_block_is_shown_when_the_caller_asks() -> None:
    text = "before <tool_call>not json at all</tool_call> after"
    assert parse(text, keep_failed_markup=True).text == text


def test_string_arguments_stream_before_the_call_closes() -> None:
    parser = toolmend.stream_parser("hermes", WRITE, id_prefix="c")
    events = parser.feed(
        '<tool_call>{"name": "write_file", "arguments": {"file_path": "a.py", "content": "print(1)'
    )
    assert isinstance(events[0], ToolCallStart)
    sent = streamed_arguments(events)
    assert sent == '{"file_path": "a.py", "content": "print(1)'
    rest = parser.feed('\\nprint(2)"}}</tool_call>') + parser.finish()
    [end] = [e for e in rest if isinstance(e, ToolCallEnd)]
    assert end.call.arguments == {"file_path": "a.py", "content": "print(1)\nprint(2)"}


def test_an_argument_the_gate_will_rename_is_not_streamed_early() -> None:
    parser = toolmend.stream_parser("hermes", WRITE, id_prefix="c")
    events = parser.feed(
        '<tool_call>{"name": "write_file", "arguments": {"path": "a.py", "content": "x'
    )
    assert not [e for e in events if isinstance(e, ToolCallDelta)]
    events += parser.feed('"}}</tool_call>') + parser.finish()
    sent = streamed_arguments(events)
    assert sent == '{"file_path": "a.py", "content": "x"}'


def test_a_repeated_argument_key_fails_the_call() -> None:
    result = parse(
        '<tool_call>{"name": "get_weather", "arguments": {"city": "a", "city": "b"}}</tool_call>'
    )
    call = result.tool_calls[0]
    assert call.incomplete and "given twice" in (call.error or "")
    assert call.arguments == {"city": "a"}


def test_results_are_written_as_tool_response_blocks() -> None:
    proto = toolmend.get_protocol("hermes")
    assert proto.render_result("call_1", "get_weather", "sunny") == (
        "<tool_response>\nsunny\n</tool_response>"
    )


def test_the_tools_prompt_declares_every_tool_and_the_call_format() -> None:
    prompt = toolmend.get_protocol("hermes").render_tools(
        [toolmend.Tool.from_dict(t) for t in WEATHER]
    )
    assert '"name": "get_weather"' in prompt and "<tool_call>" in prompt


# R1–R4: a call cut off by the end of the stream ------------------------------------------


def test_r1_r4_a_call_missing_only_its_closing_tag_completes() -> None:
    result = parse('<tool_call>{"name": "get_weather", "arguments": {"city": "Seoul"}}\n</tool_ca')
    assert result.tool_calls[0].executable and result.text == ""


def test_r1_r4_a_call_cut_inside_a_value_is_incomplete_with_best_effort_arguments() -> None:
    result = parse('<tool_call>{"name": "get_weather", "arguments": {"city": "Seo')
    call = result.tool_calls[0]
    assert call.incomplete and call.error and call.arguments == {"city": "Seo"}
    assert result.text == ""


def test_r1_r4_a_fragment_without_a_readable_name_is_dropped_with_metadata_only() -> None:
    text = '<tool_call>{"na'
    result = parse(text)
    assert result.tool_calls == [] and result.text == ""
    [diag] = result.diagnostics
    assert diag.code == "truncated_fragment_dropped"
    assert diag.metadata == {"protocol": "hermes", "retained_length": len(text)}


def test_r1_r4_an_unknown_tool_cut_off_stays_text() -> None:
    text = '<tool_call>{"name": "launch", "arguments": {"x": 1'
    result = parse(text)
    assert result.tool_calls == [] and result.text == text


def test_r1_r4_arguments_violating_the_schema_leave_the_call_incomplete() -> None:
    result = parse('<tool_call>{"name": "get_weather", "arguments": {"city": "a", "tags": []}}')
    call = result.tool_calls[0]
    assert call.incomplete and "tags" in (call.error or "")


# Bounds --------------------------------------------------------------------------------


def test_a_call_larger_than_the_fragment_cap_ends_incomplete_and_is_skipped() -> None:
    big = "x" * 5000
    text = f'<tool_call>{{"name": "write_file", "arguments": {{"file_path": "a", "content": "{big}"}}}}</tool_call>tail'
    result = toolmend.parse(text, "hermes", WRITE, max_fragment=1000)
    call = result.tool_calls[0]
    assert call.incomplete and "1000" in (call.error or "")
    assert result.text == "tail"
    assert "fragment_overflow" in [d.code for d in result.diagnostics]
    check_all_invariants("hermes", text, WRITE, max_fragment=1000)


def test_events_arrive_in_order_with_one_id_per_call() -> None:
    events = run_chunks(
        "hermes",
        ['a<tool_call>{"name": "get_weather", "arguments": {"city": "x"}}</tool_call>b'],
        WEATHER,
    )
    kinds = [type(e) for e in events]
    assert kinds[0] is TextDelta and kinds[-1] is TextDelta
    assert ToolCallStart in kinds and ToolCallEnd in kinds
    assert not any(isinstance(e, Diagnostic) for e in events)


# ------------------------------------------------- JSON written without its opening tag
# A model may leave out `<tool_call>` (or its engine strip it, or the prompt already hold it)
# and still write the closer: LocalAI's `(.*?)</tool_call>` response regex exists for it.

OPENERLESS = '{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'


@pytest.mark.parametrize("protocol", ["hermes", "auto"])
def test_json_of_a_declared_tool_before_a_closer_with_no_opener_is_a_call(protocol: str) -> None:
    for text in (OPENERLESS, "Let me check.\n" + OPENERLESS, "[" + OPENERLESS.replace("}}", "}}]")):
        result = toolmend.parse(text, protocol, WEATHER)
        assert [(c.name, c.arguments, c.executable) for c in result.tool_calls] == [
            ("get_weather", {"city": "Paris"}, True)
        ]
        assert "</tool_call>" not in result.text
        check_all_invariants(protocol, text, WEATHER)


@pytest.mark.parametrize("protocol", ["hermes", "auto"])
def test_with_no_tools_opener_less_json_is_a_call_only_as_the_whole_output(protocol: str) -> None:
    whole = "\n" + OPENERLESS + "\n"
    assert [c.name for c in toolmend.parse(whole, protocol, None).tool_calls] == ["get_weather"]
    check_all_invariants(protocol, whole, None)
    for text in ("Sure: " + OPENERLESS, OPENERLESS + " and more"):
        result = toolmend.parse(text, protocol, None)
        assert (result.tool_calls, result.text) == ([], text)
        check_all_invariants(protocol, text, None)


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "get_weather", "arguments": {"city": "Paris"}}',  # no closer
        'An example: {"name": "get_weather", "arguments": {"city": "Paris"}} in prose.',
        '{"name": "get_time", "arguments": {}}</tool_call>',  # not a declared tool
    ],
)
def test_hermes_never_reads_bare_json_without_its_closer_or_tool(text: str) -> None:
    result = parse(text)
    assert (result.tool_calls, result.text) == ([], text)
    check_all_invariants("hermes", text, WEATHER)


@pytest.mark.parametrize("protocol", ["hermes", "auto"])
def test_a_tag_that_names_its_tool_in_an_attribute_holds_that_calls_arguments(
    protocol: str,
) -> None:
    # DeepSeek V4 behind deepseek-chat (felinics/Memoh #435) writes the tool in the tag.
    text = '<tool_call id="call_00_xxx" name="get_weather">\n{"city": "Oslo"}\n</tool_call>'
    result = toolmend.parse(text, protocol, WEATHER)
    assert [(c.name, c.arguments, c.executable) for c in result.tool_calls] == [
        ("get_weather", {"city": "Oslo"}, True)
    ]
    assert result.text == ""
    check_all_invariants(protocol, text, WEATHER)


def test_prose_about_a_tool_call_tag_with_attributes_stays_text() -> None:
    for text in ('Write <tool_call name="x"> tags for it.', "a <tool_call tag, then more"):
        for chunk_size in (None, 1, 4):
            result = parse(text, chunk_size=chunk_size)
            assert (result.text, result.tool_calls) == (text, [])


# Found by `bench/fuzz.py --seed 270000000` (cases 270001026, 270003426): the named tag's header
# check backtracked exponentially over a run of word characters that never became a header.
@pytest.mark.parametrize(
    "text",
    [
        "<tool_call assistantcommentary to=functions.",
        "<tool_call trueassistantcommentary to=functions.get_weather",
        "<tool_call " + "a" * 60 + " to=functions.",
    ],
)
@pytest.mark.parametrize("protocol", ["hermes", "auto"])
def test_a_named_tag_that_never_becomes_a_header_is_text_without_a_hang(
    protocol: str, text: str
) -> None:
    results: list[str] = []
    worker = threading.Thread(
        target=lambda: results.append(toolmend.parse(text, protocol, WEATHER).text), daemon=True
    )
    worker.start()
    worker.join(timeout=60)
    assert len(results) == 1  # it ended (under `auto`, harmony may read `commentary to=…`)
    if protocol == "hermes":
        assert results == [text]
    check_all_invariants(protocol, text, WEATHER)
