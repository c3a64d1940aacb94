"""The morph-xml protocol: `<tool_name><param>value</param>...</tool_name>`.

No corpus case of this format exists in ../shared/corpus (no engine there speaks it); the
fixtures follow the format as the ai-sdk-tool-call-middleware documents it and seed 003.
"""

from __future__ import annotations

from typing import Any

import pytest

import toolmend
from support import check_all_invariants, run_chunks, streamed_arguments
from toolmend.core.calls import REPEATED_CALL
from toolmend.events import Diagnostic, TextDelta, ToolCallEnd, ToolCallStart

WRITE = {
    "name": "write_file",
    "parameters": {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    },
}
WEATHER = {
    "name": "get_weather",
    "parameters": {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "days": {"type": "integer"},
            "metric": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
            "where": {
                "type": "object",
                "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}},
            },
        },
        "required": ["city"],
        "additionalProperties": False,
    },
}
EDITS = {
    "name": "multi_edit",
    "parameters": {
        "type": "object",
        "properties": {
            "edits": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"old": {"type": "string"}, "new": {"type": "string"}},
                    "required": ["old", "new"],
                },
            }
        },
        "required": ["edits"],
    },
}
LIST = {"name": "list_files", "parameters": {"type": "object", "properties": {}}}
TOOLS = [WRITE, WEATHER, EDITS, LIST]


def parse(text: str, tools: Any = TOOLS, **kw: Any) -> toolmend.ParseResult:
    return toolmend.parse(text, "morph-xml", tools, id_prefix="call_", **kw)


def calls(result: toolmend.ParseResult) -> list[tuple[str, dict[str, Any], bool]]:
    return [(c.name, c.arguments, c.incomplete) for c in result.tool_calls]


CODE = 'if a < b and b > 0:\n    print("<content>", a & b)\n'
FIXTURES = [
    "Let me check.\n<get_weather>\n<city>Paris</city>\n<days>3</days>\n</get_weather>",
    f"<write_file>\n<path>app.py</path>\n<content>\n{CODE}\n</content>\n</write_file>",
    "<get_weather><city>Oslo</city><tags><item>rain</item><item>wind</item></tags></get_weather>",
    "<get_weather><city>Oslo</city><tags>rain</tags><tags>wind</tags></get_weather> done",
    "<get_weather><city>Rome</city><where><lat>41.9</lat><lon>12.5</lon></where></get_weather>",
    "<multi_edit><edits><item><old>a</old><new>b</new></item></edits></multi_edit>",
    "<multi_edit><edits><item>just text</item></edits></multi_edit>",
    "<list_files/> and <list_files /> and <list_files></list_files>",
    "Use the <get_weather> tool for that.",
    "```xml\n<get_weather><city>Paris</city></get_weather>\n```\nand `<list_files/>`",
    "<get_weather>\n  <city>Paris</city>\n  <city>Rome</city>\n</get_weather>",
    "<get_weather><city>Paris</city> stray <days>2</days></get_weather>",
    "<write_file><path>a</path><content><![CDATA[x</content>y]]></content></write_file>",
    "<get_weather>\n<city>Paris</city>\n</get_weath",
    "<write_file>\n<path>a.py</path>\n<content>\nprint(1)",
    "<get_weather ",
    "<get_weather><city>Paris</city><tags></tags></get_weather>",
]


@pytest.mark.parametrize("text", FIXTURES)
def test_every_fixture_keeps_the_stream_invariants(text: str) -> None:
    check_all_invariants("morph-xml", text, TOOLS)


# ----------------------------------------------------------------------------- the format


def test_parameters_are_tags_inside_a_tag_named_after_the_tool() -> None:
    result = parse(FIXTURES[0])
    assert calls(result) == [("get_weather", {"city": "Paris", "days": 3}, False)]
    assert result.text == "Let me check.\n"


def test_a_string_parameter_keeps_code_with_angle_brackets_raw() -> None:
    result = parse(FIXTURES[1])
    assert calls(result) == [("write_file", {"path": "app.py", "content": CODE}, False)]


def test_xml_entities_in_a_string_parameter_are_not_decoded() -> None:
    result = parse("<write_file><path>a.html</path><content>a &lt; b &amp;</content></write_file>")
    assert result.tool_calls[0].arguments["content"] == "a &lt; b &amp;"


def test_a_string_value_holding_its_own_opening_tag_ends_only_at_its_closer() -> None:
    text = "<write_file><path>x</path><content><content><path>y</path></content></write_file>"
    assert parse(text).tool_calls[0].arguments == {
        "path": "x",
        "content": "<content><path>y</path>",
    }


def test_one_newline_after_the_tag_and_the_closers_indented_line_are_layout() -> None:
    text = (
        "<write_file>\n  <path>\n  a.py\n  </path>\n  <content>\nx\n\n  </content>\n</write_file>"
    )
    assert parse(text).tool_calls[0].arguments == {"path": "  a.py", "content": "x\n"}


def test_numbers_and_booleans_are_typed_by_the_schema() -> None:
    text = "<get_weather><city>7</city><days> 4 </days><metric>true</metric></get_weather>"
    assert parse(text).tool_calls[0].arguments == {"city": "7", "days": 4, "metric": True}


def test_an_array_is_written_as_item_children() -> None:
    assert parse(FIXTURES[2]).tool_calls[0].arguments["tags"] == ["rain", "wind"]


def test_an_array_is_written_as_the_parameter_tag_repeated() -> None:
    result = parse(FIXTURES[3])
    assert result.tool_calls[0].arguments["tags"] == ["rain", "wind"]
    assert result.text == " done"


def test_an_array_may_be_written_as_json() -> None:
    text = '<get_weather><city>a</city><tags>["x", "y"]</tags></get_weather>'
    assert parse(text).tool_calls[0].arguments["tags"] == ["x", "y"]


def test_a_nested_object_is_written_as_child_tags() -> None:
    assert parse(FIXTURES[4]).tool_calls[0].arguments["where"] == {"lat": 41.9, "lon": 12.5}


def test_an_array_of_objects_is_written_as_items_with_child_tags() -> None:
    result = parse(FIXTURES[5])
    assert calls(result) == [("multi_edit", {"edits": [{"old": "a", "new": "b"}]}, False)]


def test_a_malformed_array_of_objects_is_rejected_not_turned_into_strings() -> None:
    call = parse(FIXTURES[6]).tool_calls[0]
    assert call.incomplete
    assert "edits[0]" in (call.error or "")
    assert call.arguments == {}


def test_a_self_closing_tool_tag_is_a_call_without_arguments() -> None:
    result = parse(FIXTURES[7])
    # All three read alike; the second and third repeat the first, so only it runs.
    assert calls(result) == [("list_files", {}, False)] + [("list_files", {}, True)] * 2
    assert [c.error for c in result.tool_calls[1:]] == [REPEATED_CALL] * 2
    assert result.text == " and  and "


def test_a_tool_name_in_prose_stays_text() -> None:
    result = parse(FIXTURES[8])
    assert result.tool_calls == []
    assert result.text == FIXTURES[8]


def test_examples_in_code_are_never_parsed() -> None:
    result = parse(FIXTURES[9])
    assert result.tool_calls == []
    assert result.text == FIXTURES[9]


def test_without_tools_nothing_opens_a_call() -> None:
    text = "<get_weather><city>Paris</city></get_weather>"
    result = parse(text, tools=None)
    assert result.tool_calls == []
    assert result.text == text


def test_an_undeclared_tool_name_stays_text() -> None:
    text = "<get_time><zone>UTC</zone></get_time>"
    assert parse(text).text == text


def test_xml_is_a_deprecated_alias_of_morph_xml() -> None:
    assert toolmend.get_protocol("xml") is toolmend.get_protocol("morph-xml")
    assert "xml" not in toolmend.protocols()


def test_a_parameter_given_twice_leaves_the_call_incomplete() -> None:
    call = parse(FIXTURES[10]).tool_calls[0]
    assert call.incomplete
    assert call.arguments == {"city": "Paris"}
    assert "twice" in (call.error or "")


def test_text_between_parameter_tags_leaves_the_call_incomplete() -> None:
    call = parse(FIXTURES[11]).tool_calls[0]
    assert call.incomplete
    assert "between parameter tags" in (call.error or "")


def test_a_cdata_value_may_hold_the_parameters_closer() -> None:
    assert parse(FIXTURES[12]).tool_calls[0].arguments["content"] == "x</content>y"


def test_an_empty_array_tag_is_an_empty_array_and_fails_min_items() -> None:
    call = parse(FIXTURES[16]).tool_calls[0]
    assert call.arguments["tags"] == []
    assert call.incomplete  # minItems: 1


def test_two_calls_in_a_row_are_two_calls() -> None:
    text = "<list_files/>\n<get_weather><city>a</city></get_weather>"
    assert [c.name for c in parse(text).tool_calls] == ["list_files", "get_weather"]


# ----------------------------------------------------------------------------- streaming


def test_a_string_parameter_streams_while_it_is_written() -> None:
    parser = toolmend.stream_parser("morph-xml", TOOLS, id_prefix="call_")
    events = parser.feed("<write_file><path>a.py</path><content>line one\nline")
    deltas = streamed_arguments(events)
    assert isinstance(events[0], ToolCallStart)
    assert deltas == '{"path": "a.py", "content": "line one\\nline'
    events = parser.feed(" two\n</content></write_file>") + parser.finish()
    end = next(e for e in events if isinstance(e, ToolCallEnd))
    assert end.call.arguments == {"path": "a.py", "content": "line one\nline two"}


def test_a_newline_before_the_closer_is_held_back_until_it_is_known_to_be_layout() -> None:
    parser = toolmend.stream_parser("morph-xml", TOOLS, id_prefix="call_")
    events = parser.feed("<write_file><path>a</path><content>x\n")
    deltas = streamed_arguments(events)
    assert deltas.endswith('"content": "x')


def test_fifty_kilobytes_in_five_character_chunks_parse_to_the_whole_value() -> None:
    body = "def f(a, b):\n    return a < b  # & more\n" * 1250
    text = f"<write_file>\n<path>a.py</path>\n<content>\n{body}</content>\n</write_file>"
    events = run_chunks("morph-xml", [text[i : i + 5] for i in range(0, len(text), 5)], TOOLS)
    end = next(e for e in events if isinstance(e, ToolCallEnd))
    assert end.call.arguments["content"] == body.removesuffix("\n")


# ---------------------------------------------------------------------- rendering


def test_render_call_writes_strings_raw_and_parses_back() -> None:
    call = toolmend.ToolCall(id="c", name="write_file", arguments={"path": "a", "content": CODE})
    text = toolmend.get_protocol("morph-xml").render_call(call)
    assert "<content>\n" + CODE in text
    assert parse(text).tool_calls[0].arguments == call.arguments


@pytest.mark.parametrize(
    "content", ["x</content>y", "<![CDATA[a]]>", "a]]>b</content>", "ends in\r", "\n", ""]
)
def test_render_call_round_trips_strings_that_cannot_be_written_raw(content: str) -> None:
    call = toolmend.ToolCall(id="c", name="write_file", arguments={"path": "p", "content": content})
    text = toolmend.get_protocol("morph-xml").render_call(call)
    assert parse(text).tool_calls[0].arguments == call.arguments


def test_render_call_writes_arrays_objects_and_numbers_that_parse_back() -> None:
    args = {"city": "a", "days": 2, "tags": ["x", ""], "where": {"lat": 1.5, "lon": -2.25}}
    call = toolmend.ToolCall(id="c", name="get_weather", arguments=args)
    text = toolmend.get_protocol("morph-xml").render_call(call)
    assert calls(parse(text)) == [("get_weather", args, False)]


def test_render_tools_declares_the_tools_and_shows_an_example_call() -> None:
    prompt = toolmend.get_protocol("morph-xml").render_tools(toolmend.model.coerce_tools(TOOLS))
    assert '"name": "write_file"' in prompt
    assert "<get_weather>\n<city>Paris</city>" in prompt


def test_render_result_names_the_tool() -> None:
    out = toolmend.get_protocol("morph-xml").render_result("c", "get_weather", "sunny")
    assert out == '<tool_response name="get_weather">\nsunny\n</tool_response>'


# ------------------------------------------------- R1–R4: a call cut off by the end of the stream


def test_r1_r4_a_call_missing_only_its_closing_tag_completes() -> None:
    result = parse("<get_weather>\n<city>Paris</city>\n")
    assert calls(result) == [("get_weather", {"city": "Paris"}, False)]


def test_r1_r4_a_call_missing_part_of_its_closing_tag_completes() -> None:
    result = parse(FIXTURES[13])
    assert calls(result) == [("get_weather", {"city": "Paris"}, False)]
    assert result.text == ""


def test_r1_r4_a_call_cut_inside_a_value_is_incomplete_with_best_effort_arguments() -> None:
    call = parse(FIXTURES[14]).tool_calls[0]
    assert (call.name, call.incomplete) == ("write_file", True)
    assert call.arguments == {"path": "a.py", "content": "print(1)"}


def test_r1_r4_a_stale_snapshot_is_never_executed_even_when_it_would_validate() -> None:
    call = parse("<get_weather><city>Paris</city><city>Ro").tool_calls[0]
    assert call.incomplete
    assert call.arguments == {"city": "Paris"}


def test_r1_r4_a_call_cut_inside_its_opening_tag_is_incomplete_and_not_shown() -> None:
    result = parse(FIXTURES[15])
    assert calls(result) == [("get_weather", {}, True)]
    assert result.text == ""


def test_r1_r4_a_cut_inside_the_tool_name_is_text_since_no_call_can_be_told() -> None:
    result = parse("Calling <get_wea")
    assert result.tool_calls == []
    assert result.text == "Calling <get_wea"


def test_r1_r4_a_cut_before_the_first_parameter_tag_closes_is_incomplete() -> None:
    result = parse("<get_weather>\n<ci")
    assert calls(result) == [("get_weather", {}, True)]
    assert result.text == ""


def test_r1_r4_an_unknown_tool_cut_off_stays_text() -> None:
    assert parse("<get_time><zone>UT").text == "<get_time><zone>UT"


def test_r1_r4_arguments_violating_the_schema_leave_the_call_incomplete() -> None:
    call = parse("<get_weather><city>a</city><tags></tags>\n").tool_calls[0]
    assert call.incomplete
    assert "tags" in (call.error or "")


def test_r1_r4_a_call_cut_off_right_after_its_tag_never_runs() -> None:
    # Its parameters may have been about to follow: nothing shows the call was finished.
    assert calls(parse("<list_files>\n")) == [("list_files", {}, True)]


def test_r1_r4_an_empty_body_cut_off_inside_its_closer_completes_when_the_schema_allows() -> None:
    assert calls(parse("<list_files>\n</list_fi")) == [("list_files", {}, False)]


def test_an_oversized_call_ends_incomplete_and_the_text_after_it_is_kept() -> None:
    text = "<write_file><path>a</path><content>" + "x" * 400 + "</content></write_file> after"
    result = parse(text, max_fragment=200)
    assert [c.incomplete for c in result.tool_calls] == [True]
    assert result.text == " after"
    assert any(isinstance(d, Diagnostic) for d in result.diagnostics)
    events = run_chunks("morph-xml", [text], TOOLS, max_fragment=200)
    assert isinstance(events[-1], TextDelta)
