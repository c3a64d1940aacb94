"""kimi-xtml: Kimi K3 XTML channels; the incidents of seed 003 (2026-07-29, -07-30, -08-23).

Every fixture is also checked for split-invariance at every boundary, conservation and argument
deltas (`check_all_invariants`). The corpus holds no XTML case (its `kimi_k2` format is the
older `<|tool_calls_section_begin|>` syntax, not this one), so fixtures are written from the
format and the incidents.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolmend
from support import (
    assert_conserved,
    assert_deltas_are_prefixes,
    check_all_invariants,
    comparable,
    run_chunks,
    streamed_arguments,
)
from toolmend.core.reader import CUT_AFTER_HEADER
from toolmend.events import Diagnostic, ToolCallDelta, ToolCallEnd
from toolmend.protocols.kimi_xtml import decode_typed

P = "kimi-xtml"

TOOLS: list[dict[str, Any]] = [
    {
        "name": "write_file",
        "parameters": {
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "content": {"type": "string"},
                "count": {"type": "integer"},
                "force": {"type": "boolean"},
                "meta": {"type": "object"},
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                "note": {"type": ["string", "null"]},
            },
            "required": ["path"],
        },
    },
    {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
]


def arg(key: str, value: str, type_: str | None = "string") -> str:
    attrs = f'key="{key}"' + (f' type="{type_}"' if type_ is not None else "")
    return f"<|open|>argument {attrs}<|sep|>{value}<|close|>argument<|sep|>"


def call(name: str, *args: str, index: int = 1) -> str:
    return f'<|open|>call tool="{name}" index="{index}"<|sep|>{"".join(args)}<|close|>call<|sep|>'


def tools_block(*calls: str) -> str:
    return f"<|open|>tools<|sep|>{''.join(calls)}<|close|>tools<|sep|>"


WRITE = call("write_file", arg("path", "a.txt"), arg("count", "7", "number"))
BLOCK = tools_block(WRITE)


def parse(text: str, tools: Any = TOOLS) -> toolmend.ParseResult:
    check_all_invariants(P, text, tools)
    return toolmend.parse(text, P, tools)


def calls(result: toolmend.ParseResult) -> list[tuple[str, dict[str, Any], bool]]:
    return [(c.name, c.arguments, c.incomplete) for c in result.tool_calls]


def codes(result: toolmend.ParseResult) -> list[str]:
    return [d.code for d in result.diagnostics]


# ------------------------------------------------------------------------------- the format


def test_a_call_in_a_tools_block_parses_to_its_name_and_typed_arguments() -> None:
    result = parse(BLOCK)
    assert calls(result) == [("write_file", {"path": "a.txt", "count": 7}, False)]
    assert result.text == ""


def test_text_around_a_tools_block_stays_visible() -> None:
    assert parse(f"Writing it.\n{BLOCK}\nDone.").text == "Writing it.\n\nDone."


def test_every_argument_type_is_decoded_as_json_of_that_type() -> None:
    text = tools_block(
        call(
            "write_file",
            arg("path", "a"),
            arg("force", "true", "boolean"),
            arg("meta", '{"k": [1, 2]}', "object"),
            arg("tags", '["x", "y"]', "array"),
            arg("note", "null", "null"),
        )
    )
    args = {"path": "a", "force": True, "meta": {"k": [1, 2]}, "tags": ["x", "y"], "note": None}
    assert calls(parse(text)) == [("write_file", args, False)]


def test_a_string_value_is_taken_verbatim() -> None:
    value = '  line 1\n  "quoted" {braces} <b> & \\n\n'
    text = tools_block(call("write_file", arg("path", "a"), arg("content", value)))
    assert calls(parse(text))[0][1]["content"] == value


def test_an_argument_without_a_type_is_a_string() -> None:
    text = tools_block(call("get_weather", arg("city", "Rome", None)))
    assert calls(parse(text)) == [("get_weather", {"city": "Rome"}, False)]


def test_several_calls_in_one_tools_block_are_parallel_calls() -> None:
    text = tools_block(
        call("get_weather", arg("city", "Rome")),
        "\n",
        call("get_weather", arg("city", "Oslo"), index=2),
    )
    result = parse(text)
    assert calls(result) == [
        ("get_weather", {"city": "Rome"}, False),
        ("get_weather", {"city": "Oslo"}, False),
    ]
    assert result.text == ""


def test_a_call_without_the_tools_wrapper_is_read_too() -> None:
    result = parse(f"Sure. {call('get_weather', arg('city', 'Rome'))} ok")
    assert calls(result) == [("get_weather", {"city": "Rome"}, False)]
    assert result.text == "Sure.  ok"


def test_whitespace_between_the_channels_of_a_block_is_markup() -> None:
    text = (
        "<|open|>tools<|sep|>\n"
        '<|open|>call tool="get_weather" index="1"<|sep|>\n'
        f"  {arg('city', 'Rome')}\n"
        "<|close|>call<|sep|>\n"
        "<|close|>tools<|sep|>"
    )
    result = parse(text)
    assert calls(result) == [("get_weather", {"city": "Rome"}, False)]
    assert result.text == ""


def test_a_tools_block_closed_without_its_call_closer_completes_the_call() -> None:
    text = (
        '<|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|>'
        f"{arg('city', 'Rome')}<|close|>tools<|sep|>"
    )
    result = parse(text)
    assert calls(result) == [("get_weather", {"city": "Rome"}, False)]
    assert "xtml-call-close-missing" in result.tool_calls[0].repairs


def test_a_new_call_before_the_previous_one_closed_leaves_that_one_incomplete() -> None:
    text = tools_block(
        '<|open|>call tool="get_weather" index="1"<|sep|>' + arg("city", "Rome"),
        call("get_weather", arg("city", "Oslo"), index=2),
    )
    assert calls(parse(text)) == [
        ("get_weather", {"city": "Rome"}, True),
        ("get_weather", {"city": "Oslo"}, False),
    ]


# ------------------------------------------------------- typed values: rejected, never coerced


@pytest.mark.parametrize(
    ("key", "value", "type_"),
    [
        ("meta", "{'k': 1}", "object"),
        ("meta", "[1]", "object"),
        ("tags", '["x",]', "array"),
        ("count", "seven", "number"),
        ("count", "NaN", "number"),
        ("count", "true", "number"),
        ("force", "yes", "boolean"),
        ("note", "", "null"),
    ],
)
def test_a_value_that_is_not_strict_json_of_its_type_rejects_the_call(
    key: str, value: str, type_: str
) -> None:
    text = tools_block(call("write_file", arg("path", "a"), arg(key, value, type_)))
    result = parse(text)
    [(_name, arguments, incomplete)] = calls(result)
    assert incomplete and key not in arguments
    assert "malformed_argument" in codes(result)


def test_an_unknown_argument_type_rejects_the_call() -> None:
    text = tools_block(call("write_file", arg("path", "a"), arg("count", "7", "decimal")))
    result = parse(text)
    assert calls(result)[0][2] is True
    assert "malformed_argument" in codes(result)


def test_an_argument_given_twice_rejects_the_call() -> None:
    text = tools_block(call("write_file", arg("path", "a"), arg("path", "b")))
    result = parse(text)
    assert calls(result) == [("write_file", {"path": "a"}, True)]
    assert "duplicate_argument" in codes(result)


def test_text_between_the_arguments_of_a_call_rejects_the_call() -> None:
    text = tools_block(call("write_file", arg("path", "a"), "oops", arg("count", "1", "number")))
    result = parse(text)
    assert calls(result)[0][2] is True
    assert "xtml_unexpected_content" in codes(result)


def test_a_value_the_schema_rejects_makes_the_call_incomplete() -> None:
    text = tools_block(call("write_file", arg("path", "a"), arg("tags", "[]", "array")))
    result = parse(text)
    assert calls(result) == [("write_file", {"path": "a", "tags": []}, True)]


# ------------------------------------------------------------------------ argument deltas


def test_a_string_value_streams_before_its_argument_closes() -> None:
    head = '<|open|>tools<|sep|><|open|>call tool="write_file"<|sep|>' + arg("path", "a.txt")
    parser = toolmend.stream_parser(P, TOOLS)
    events = parser.feed(head + '<|open|>argument key="content"<|sep|>hello wor')
    sent = streamed_arguments(events)
    assert sent == '{"path": "a.txt", "content": "hello wor'


def test_a_typed_value_is_sent_once_its_argument_closes() -> None:
    parser = toolmend.stream_parser(P, TOOLS)
    head = '<|open|>tools<|sep|><|open|>call tool="write_file"<|sep|>'
    events = parser.feed(head + '<|open|>argument key="count" type="number"<|sep|>12')
    assert not [e for e in events if isinstance(e, ToolCallDelta)]
    events = parser.feed("<|close|>argument<|sep|>")
    sent = streamed_arguments(events)
    assert sent == '{"count": 12'


# ---------------------------------------------------- stray channel markers (the incidents)


def test_a_sep_less_think_close_at_the_end_of_a_text_block_is_stripped() -> None:
    # 2026-08-23: the literal `<|close|>think\n` ended a user-visible text block.
    result = parse("The file is saved.<|close|>think\n")
    assert result.text == "The file is saved.\n"
    [strip] = [d for d in result.diagnostics if d.code == "xtml_marker_stripped"]
    assert strip.metadata == {"kind": "close", "channel": "think"}


def test_a_sep_less_marker_held_at_the_end_of_the_stream_is_stripped_at_finish() -> None:
    assert parse("Saved.<|close|>think").text == "Saved."


def test_a_word_run_after_a_marker_is_stripped_with_it() -> None:
    assert parse("a<|close|>thinkafter b").text == "a b"


def test_a_marker_cut_off_by_the_end_of_the_stream_is_stripped_and_recorded() -> None:
    # Issue 8, defect 4: `<|clo` is a marker the stream cut, not prose (the shared rule of
    # `textscan.MIN_CUT_MARKER`); a shorter `<|` stays text.
    result = parse("Saved.<|clo")
    assert result.text == "Saved."
    assert [(d.code, d.stripped_length) for d in result.diagnostics] == [
        ("truncated_marker_dropped", 5)
    ]
    assert parse("Saved.<|").text == "Saved.<|"


def test_unnamed_channel_markers_are_stripped() -> None:
    # 2026-07-30: malformed `<|open|><|sep|>` / `<|close|><|sep|>` transitions.
    result = parse("one<|open|><|sep|>two<|close|><|sep|>three")
    assert result.text == "onetwothree"
    assert codes(result).count("xtml_marker_stripped") == 2


def test_the_observed_unnamed_close_and_tools_tail_gives_the_call_and_clean_text() -> None:
    text = f"Checking the weather.<|close|><|sep|>{tools_block(call('get_weather', arg('city', 'Rome')))}"
    result = parse(text)
    assert result.text == "Checking the weather."
    assert calls(result) == [("get_weather", {"city": "Rome"}, False)]


def test_response_and_message_transitions_are_stripped_and_each_is_recorded() -> None:
    # The think channel is reasoning (issue 9): its text is never visible text nor scanned.
    think = "<|open|>think<|sep|>hmm<|close|>think<|sep|>"
    text = f"{think}<|open|>response<|sep|>Hello<|close|>response<|sep|><|close|>message<|sep|>"
    result = parse(text)
    assert result.text == "Hello"
    assert result.reasoning == "hmm"
    stripped = [d for d in result.diagnostics if d.code == "markup_stripped"]
    assert len(stripped) == 3
    assert sum(d.stripped_length for d in stripped) == len(text) - len(think) - len("Hello")


def test_a_bare_sep_is_stripped() -> None:
    assert parse("a<|sep|>b").text == "ab"


def test_other_pipe_tokens_stay_text() -> None:
    assert parse("a<|end_of_msg|>").text == "a<|end_of_msg|>"


def test_markers_split_at_every_boundary_are_reassembled() -> None:
    text = f"x<|close|>think\ny<|open|><|sep|>z{BLOCK}w<|close|>response"
    result = parse(text)  # check_all_invariants feeds every 2-way split and char by char
    assert result.text == "x\nyzw"
    assert calls(result) == [("write_file", {"path": "a.txt", "count": 7}, False)]
    one_char = run_chunks(P, list(text), TOOLS)
    assert [e.call.arguments for e in one_char if isinstance(e, ToolCallEnd)] == [
        {"path": "a.txt", "count": 7}
    ]


# --------------------------------------------------------------------- code stays untouched


def test_a_code_fenced_protocol_example_is_left_untouched() -> None:
    text = f"Example:\n```\n{BLOCK}\n<|close|>think\n```\nend"
    result = parse(text)
    assert result.text == text
    assert result.tool_calls == [] and result.diagnostics == []


def test_inline_code_with_a_marker_is_left_untouched() -> None:
    text = "The model wrote `<|close|>think` and `<|open|><|sep|>` here."
    assert parse(text).text == text


# ----------------------------------------------------------------------------- unknown tools


def test_an_unknown_tool_is_left_as_text() -> None:
    text = f"Try: {tools_block(call('launch_rocket', arg('target', 'moon')))} ok"
    result = parse(text)
    assert result.text == text
    assert result.tool_calls == []
    assert codes(result) == ["unknown_tool"]


def test_an_unknown_tool_before_a_known_one_stays_text_and_the_known_one_is_called() -> None:
    unknown = call("launch_rocket", arg("target", "moon"))
    known = call("get_weather", arg("city", "Rome"), index=2)
    result = parse(tools_block(unknown, known))
    assert result.text == "<|open|>tools<|sep|>" + unknown
    assert calls(result) == [("get_weather", {"city": "Rome"}, False)]


def test_an_unknown_tool_after_a_known_one_stays_text() -> None:
    known = call("get_weather", arg("city", "Rome"))
    unknown = call("launch_rocket", arg("target", "moon"), index=2)
    result = parse(tools_block(known, unknown))
    assert calls(result) == [("get_weather", {"city": "Rome"}, False)]
    assert result.text == unknown


def test_an_unknown_tool_cut_off_by_the_end_stays_text() -> None:
    text = '<|open|>tools<|sep|><|open|>call tool="launch_rocket"<|sep|><|open|>argument key="t"<|sep|>mo'
    result = parse(text)
    assert result.text == text
    assert result.tool_calls == []


def test_a_malformed_call_header_is_text() -> None:
    text = '<|open|>call index="1"<|sep|> hi'
    result = parse(text)
    assert result.text == text
    assert result.tool_calls == []


def test_without_tools_any_name_is_accepted() -> None:
    assert calls(parse(call("anything", arg("a", "1", "number")), None)) == [
        ("anything", {"a": 1}, False)
    ]


# ---------------------------------------------------------------------- R1–R4 at the end


def test_r3_a_call_complete_but_for_its_closers_completes() -> None:
    text = BLOCK[: -len("<|close|>call<|sep|><|close|>tools<|sep|>")]
    assert calls(parse(text)) == [("write_file", {"path": "a.txt", "count": 7}, False)]


def test_r3_a_call_cut_inside_its_closer_completes() -> None:
    text = BLOCK[: -len("ll<|sep|><|close|>tools<|sep|>")]
    assert text.endswith("<|close|>ca")
    assert calls(parse(text)) == [("write_file", {"path": "a.txt", "count": 7}, False)]


def test_r3_a_call_cut_after_its_closer_but_before_the_tools_closer_completes() -> None:
    text = BLOCK[: -len("<|close|>tools<|sep|>")] + "<|close|>to"
    assert calls(parse(text)) == [("write_file", {"path": "a.txt", "count": 7}, False)]


def test_r3_a_call_cut_inside_a_string_value_is_incomplete_with_the_partial_value() -> None:
    text = '<|open|>tools<|sep|><|open|>call tool="write_file"<|sep|>' + arg("path", "a")
    text += '<|open|>argument key="content"<|sep|>hello wor'
    result = parse(text)
    assert calls(result) == [("write_file", {"path": "a", "content": "hello wor"}, True)]
    assert result.text == ""


def test_r3_a_call_cut_inside_a_typed_value_keeps_the_arguments_before_it() -> None:
    text = '<|open|>call tool="write_file"<|sep|>' + arg("path", "a")
    text += '<|open|>argument key="count" type="number"<|sep|>1'
    assert calls(parse(text)) == [("write_file", {"path": "a"}, True)]


def test_r3_a_call_cut_inside_an_argument_header_is_incomplete() -> None:
    text = '<|open|>call tool="write_file"<|sep|>' + arg("path", "a") + '<|open|>argument key="co'
    result = parse(text)
    assert calls(result) == [("write_file", {"path": "a"}, True)]
    assert result.tool_calls[0].error == "the call was cut off before it was complete"


def test_r3_a_call_cut_right_after_its_header_is_incomplete() -> None:
    # SGLang's test_kimik3_detector.py::test_stream_end_reports_truncated_tools_section: nothing
    # after the header shows the call was finished, though get_weather requires nothing.
    result = parse('<|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|>')
    assert calls(result) == [("get_weather", {}, True)]
    assert result.tool_calls[0].error == CUT_AFTER_HEADER
    assert result.text == ""


def test_r3_a_call_without_arguments_cut_inside_its_closer_completes() -> None:
    result = parse('<|open|>call tool="get_weather" index="1"<|sep|><|close|>ca')
    assert calls(result) == [("get_weather", {}, False)]


def test_r1_a_call_cut_inside_its_header_after_the_name_is_incomplete() -> None:
    result = parse('<|open|>tools<|sep|><|open|>call tool="get_weather" ind')
    assert calls(result) == [("get_weather", {}, True)]
    assert result.text == ""


def test_r1_a_call_cut_before_its_name_is_dropped_with_a_metadata_only_diagnostic() -> None:
    text = 'Ok <|open|>tools<|sep|><|open|>call tool="get_wea'
    result = parse(text)
    assert result.text == "Ok " and result.tool_calls == []
    [dropped] = [d for d in result.diagnostics if isinstance(d, Diagnostic)]
    assert dropped.code == "truncated_fragment_dropped"
    assert dropped.metadata == {"protocol": P, "retained_length": len(text) - 3}


def test_r2_an_unknown_tool_cut_off_stays_text() -> None:
    text = '<|open|>call tool="nope"<|sep|>' + arg("a", "b")
    assert parse(text).text == text


def test_r4_arguments_violating_the_schema_are_incomplete() -> None:
    text = '<|open|>call tool="write_file"<|sep|>' + arg("path", "a") + arg("tags", "[]", "array")
    assert calls(parse(text)) == [("write_file", {"path": "a", "tags": []}, True)]


def test_r4_a_missing_required_argument_is_incomplete() -> None:
    text = '<|open|>call tool="write_file"<|sep|>' + arg("count", "1", "number")
    assert calls(parse(text)) == [("write_file", {"count": 1}, True)]


# -------------------------------------------------------------------------------- rendering


def test_render_call_writes_each_argument_with_the_type_of_its_json_value() -> None:
    proto = toolmend.get_protocol(P)
    rendered = proto.render_call(
        toolmend.ToolCall(id="c1", name="f", arguments={"s": "x", "n": 1.5, "b": False, "z": None})
    )
    assert rendered == (
        '<|open|>tools<|sep|><|open|>call tool="f" index="1"<|sep|>'
        '<|open|>argument key="s" type="string"<|sep|>x<|close|>argument<|sep|>'
        '<|open|>argument key="n" type="number"<|sep|>1.5<|close|>argument<|sep|>'
        '<|open|>argument key="b" type="boolean"<|sep|>false<|close|>argument<|sep|>'
        '<|open|>argument key="z" type="null"<|sep|>null<|close|>argument<|sep|>'
        "<|close|>call<|sep|><|close|>tools<|sep|>"
    )


def test_a_rendered_call_with_every_type_parses_back() -> None:
    arguments = {"path": "p", "count": 3, "force": True, "meta": {"a": [1]}, "tags": ["t"]}
    arguments["note"] = None
    rendered = toolmend.get_protocol(P).render_call(
        toolmend.ToolCall(id="c1", name="write_file", arguments=arguments)
    )
    assert calls(parse(rendered)) == [("write_file", arguments, False)]


def test_render_result_writes_a_tool_result_channel() -> None:
    got = toolmend.get_protocol(P).render_result("call_1", "get_weather", "sunny")
    assert (
        got
        == '<|open|>tool_result call_id="call_1" tool="get_weather"<|sep|>sunny<|close|>tool_result<|sep|>'
    )


def test_render_tools_declares_each_tool_and_teaches_the_call_syntax() -> None:
    proto = toolmend.get_protocol(P)
    prompt = proto.render_tools(toolmend.get_protocol(P).stream_parser(TOOLS).resolver.tools)
    assert '"name": "write_file"' in prompt and '"name": "get_weather"' in prompt
    assert '<|open|>call tool="TOOL_NAME" index="1"<|sep|>' in prompt
    assert "<|close|>tools<|sep|>" in prompt


# ------------------------------------------------------------------------- values and bounds


def test_marker_shaped_text_inside_a_value_is_value_text() -> None:
    value = "a <|foo|> <|close|>think<|sep|> <|open|>call b <|clo"
    text = tools_block(call("write_file", arg("path", "a"), arg("content", value)))
    assert calls(parse(text))[0][1]["content"] == value


def test_a_sep_less_argument_closer_ends_the_value() -> None:
    text = (
        '<|open|>call tool="get_weather"<|sep|><|open|>argument key="city"<|sep|>Rome'
        "<|close|>argument\n<|close|>call<|sep|>"
    )
    assert calls(parse(text)) == [("get_weather", {"city": "Rome"}, False)]


def test_a_call_larger_than_the_fragment_cap_ends_incomplete_and_its_rest_is_skipped() -> None:
    big = tools_block(call("write_file", arg("path", "a"), arg("content", "x" * 1000)))
    text = f"{big} after {BLOCK}"
    check_all_invariants(P, text, TOOLS, max_fragment=400)
    result = toolmend.parse(text, P, TOOLS, max_fragment=400)
    assert [(c.name, c.incomplete) for c in result.tool_calls] == [
        ("write_file", True),
        ("write_file", False),
    ]
    assert result.text == " after "


# ------------------------------------------------------------------ any mix keeps invariants

_PIECES = [
    "<|open|>",
    "<|close|>",
    "<|sep|>",
    "<|clo",
    "tools",
    "think",
    " ",
    "\n",
    "x",
    "<",
    "`",
    "```\n",
    '<|open|>call tool="get_weather"<|sep|>',
    '<|open|>argument key="city"<|sep|>',
    "<|close|>argument<|sep|>",
    "<|close|>call<|sep|>",
    "<|open|>tools<|sep|>",
    "<|close|>tools<|sep|>",
    call("get_weather", arg("city", "Rome")),
    call("nope", arg("a", "b")),
]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(parts=st.lists(st.sampled_from(_PIECES), min_size=1, max_size=8))
def test_any_mix_of_markers_calls_and_text_keeps_the_invariants(parts: list[str]) -> None:
    text = "".join(parts)
    whole = run_chunks(P, [text], TOOLS)
    assert_conserved(text, whole)
    assert_deltas_are_prefixes(whole)
    one_char = run_chunks(P, list(text), TOOLS)
    assert_conserved(text, one_char)
    assert comparable(one_char) == comparable(whole)


@pytest.mark.parametrize("raw", ["1e999", "NaN", "-Infinity"])
def test_a_number_json_cannot_carry_is_not_a_number_argument(raw: str) -> None:
    value, error = decode_typed(raw, "number")
    assert value is None and error == "is not valid JSON for type number"
