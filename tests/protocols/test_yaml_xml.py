"""The yaml-xml protocol: `<tool_name>\\nkey: value\\n</tool_name>` with a YAML mapping body.

No corpus case of this format exists in ../shared/corpus; the fixtures follow the format as the
ai-sdk-tool-call-middleware documents its yamlXml protocol, and seed 003.
"""

from __future__ import annotations

from typing import Any

import pytest

import toolmend
from support import check_all_invariants, run_chunks, streamed_arguments
from toolmend.events import ToolCallDelta, ToolCallEnd

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
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        },
        "required": ["city"],
    },
}
NOTE = {"name": "note", "parameters": {"type": "object"}}
LIST = {"name": "list_files", "parameters": {"type": "object", "properties": {}}}
TOOLS = [WRITE, WEATHER, NOTE, LIST]


def parse(text: str, tools: Any = TOOLS, **kw: Any) -> toolmend.ParseResult:
    return toolmend.parse(text, "yaml-xml", tools, id_prefix="call_", **kw)


def calls(result: toolmend.ParseResult) -> list[tuple[str, dict[str, Any], bool]]:
    return [(c.name, c.arguments, c.incomplete) for c in result.tool_calls]


FIXTURES = [
    "Checking.\n<get_weather>\ncity: Paris\ndays: 3\n</get_weather>",
    "<write_file>\npath: a.py\ncontent: |\n  if a < b:\n      print('<x>')\n</write_file>",
    "<get_weather>\ncity: Oslo\ntags:\n  - rain\n  - wind\n</get_weather> done",
    "<get_weather>\n- Paris\n</get_weather>",
    "<get_weather>\ncity: [unclosed\n</get_weather>",
    "<list_files/> <list_files></list_files>",
    "Use the <get_weather> tool.",
    "```\n<get_weather>\ncity: a\n</get_weather>\n```",
    "<get_weather>\ncity: Paris\n</get_wea",
    "<write_file>\npath: a.py\ncontent: |\n  line one\n",
    "<get_weather>\ncity: Par",
    "<get_weather ",
    "<note>\nwhen: 2024-01-01\n</note>",
]


@pytest.mark.parametrize("text", FIXTURES)
def test_every_fixture_keeps_the_stream_invariants(text: str) -> None:
    check_all_invariants("yaml-xml", text, TOOLS)


def test_the_body_is_a_yaml_mapping_of_arguments() -> None:
    result = parse(FIXTURES[0])
    assert calls(result) == [("get_weather", {"city": "Paris", "days": 3}, False)]
    assert result.text == "Checking.\n"


def test_a_block_scalar_holds_multi_line_text_with_angle_brackets() -> None:
    args = parse(FIXTURES[1]).tool_calls[0].arguments
    assert args == {"path": "a.py", "content": "if a < b:\n    print('<x>')\n"}


def test_a_yaml_list_is_an_array_argument() -> None:
    result = parse(FIXTURES[2])
    assert result.tool_calls[0].arguments["tags"] == ["rain", "wind"]
    assert result.text == " done"


def test_a_body_that_is_not_a_mapping_is_an_incomplete_call_with_an_error() -> None:
    call = parse(FIXTURES[3]).tool_calls[0]
    assert (call.incomplete, call.arguments) == (True, {})
    assert "not a mapping" in (call.error or "")


def test_a_body_that_is_not_yaml_is_an_incomplete_call_with_an_error() -> None:
    call = parse(FIXTURES[4]).tool_calls[0]
    assert call.incomplete
    assert "does not parse" in (call.error or "")


def test_an_empty_body_or_a_self_closing_tag_is_a_call_without_arguments() -> None:
    # Both read alike; the second repeats the first, so only the first runs.
    assert calls(parse(FIXTURES[5])) == [("list_files", {}, False), ("list_files", {}, True)]


def test_a_tool_name_in_prose_stays_text() -> None:
    result = parse(FIXTURES[6])
    assert (result.tool_calls, result.text) == ([], FIXTURES[6])


def test_examples_in_code_are_never_parsed() -> None:
    assert parse(FIXTURES[7]).tool_calls == []


def test_without_tools_nothing_opens_a_call() -> None:
    text = "<get_weather>\ncity: a\n</get_weather>"
    assert parse(text, tools=None).text == text


def test_dates_stay_strings() -> None:
    assert parse(FIXTURES[12]).tool_calls[0].arguments == {"when": "2024-01-01"}


def test_aliases_are_refused_so_a_small_body_cannot_expand() -> None:
    text = "<note>\na: &x [1, 2]\nb: [*x, *x]\n</note>"
    call = parse(text).tool_calls[0]
    assert call.incomplete
    assert "aliases" in (call.error or "")


def test_arguments_are_emitted_only_when_the_body_closes() -> None:
    parser = toolmend.stream_parser("yaml-xml", TOOLS, id_prefix="call_")
    events = parser.feed("<get_weather>\ncity: Paris\n")
    assert not any(isinstance(e, ToolCallDelta) for e in events)
    events = parser.feed("</get_weather>") + parser.finish()
    assert streamed_arguments(events) == ('{"city": "Paris"}')


def test_fifty_kilobytes_in_five_character_chunks_parse_to_the_whole_value() -> None:
    body = "def f(a, b):\n    return a < b\n" * 1700
    block = "".join(f"  {line}\n" for line in body.splitlines())
    text = f"<write_file>\npath: a.py\ncontent: |\n{block}</write_file>"
    events = run_chunks("yaml-xml", [text[i : i + 5] for i in range(0, len(text), 5)], TOOLS)
    end = next(e for e in events if isinstance(e, ToolCallEnd))
    assert end.call.arguments["content"] == body


# ----------------------------------------------------------------------------- rendering


@pytest.mark.parametrize("value", ["yes", "1", "null", ":", "~", "2024-01-01", "- a", "#x", ""])
def test_render_call_keeps_strings_that_yaml_could_read_otherwise_as_strings(value: str) -> None:
    call = toolmend.ToolCall(id="c", name="note", arguments={"v": value})
    text = toolmend.get_protocol("yaml-xml").render_call(call)
    assert parse(text).tool_calls[0].arguments == {"v": value}


@pytest.mark.parametrize(
    "content", ["a\nb\n", "a\nb", "\n\nx  \n", "  indented\nx", "tab\there\n", "x\n\n\n"]
)
def test_render_call_writes_multi_line_strings_that_parse_back_exactly(content: str) -> None:
    call = toolmend.ToolCall(id="c", name="write_file", arguments={"path": "p", "content": content})
    text = toolmend.get_protocol("yaml-xml").render_call(call)
    assert parse(text).tool_calls[0].arguments == call.arguments


def test_render_call_uses_a_block_scalar_for_multi_line_text() -> None:
    call = toolmend.ToolCall(
        id="c", name="write_file", arguments={"path": "p", "content": "a\nb\n"}
    )
    assert "content: |\n  a\n  b\n" in toolmend.get_protocol("yaml-xml").render_call(call)


def test_the_example_in_the_prompt_is_a_call_this_protocol_parses() -> None:
    proto = toolmend.get_protocol("yaml-xml")
    prompt = proto.render_tools(toolmend.model.coerce_tools(TOOLS))
    example = prompt[prompt.index("<write_file>") : prompt.index("</write_file>") + 13]
    assert calls(parse(example)) == [
        ("write_file", {"path": "notes/todo.md", "content": "# Todo\n- buy milk\n"}, False)
    ]


# ------------------------------------------------- R1–R4: a call cut off by the end of the stream


def test_r1_r4_a_call_missing_only_its_closing_tag_completes() -> None:
    assert calls(parse("<get_weather>\ncity: Paris\n")) == [
        ("get_weather", {"city": "Paris"}, False)
    ]


def test_r1_r4_a_call_missing_part_of_its_closing_tag_completes() -> None:
    result = parse(FIXTURES[8])
    assert calls(result) == [("get_weather", {"city": "Paris"}, False)]
    assert result.text == ""


def test_r1_r4_a_cut_inside_a_block_scalar_is_incomplete() -> None:
    call = parse(FIXTURES[9]).tool_calls[0]
    assert call.incomplete
    assert call.arguments == {"path": "a.py", "content": "line one\n"}


def test_r1_r4_a_cut_inside_an_unfinished_line_is_incomplete() -> None:
    call = parse(FIXTURES[10]).tool_calls[0]
    assert (call.name, call.incomplete, call.arguments) == ("get_weather", True, {"city": "Par"})


def test_r1_r4_a_cut_after_a_key_whose_value_follows_is_incomplete() -> None:
    assert parse("<write_file>\npath: a\ncontent: |\n").tool_calls[0].incomplete


def test_r1_r4_a_call_cut_inside_its_opening_tag_is_incomplete_and_not_shown() -> None:
    result = parse(FIXTURES[11])
    assert calls(result) == [("get_weather", {}, True)]
    assert result.text == ""


def test_r1_r4_an_unknown_tool_cut_off_stays_text() -> None:
    assert parse("<get_time>\nzone: UT").text == "<get_time>\nzone: UT"


def test_r1_r4_arguments_violating_the_schema_leave_the_call_incomplete() -> None:
    call = parse("<get_weather>\ncity: a\ntags: []\n").tool_calls[0]
    assert call.incomplete
    assert "tags" in (call.error or "")


def test_a_key_on_the_opening_tags_line_is_a_call() -> None:
    assert calls(parse("<get_weather>city: Rome</get_weather>")) == [
        ("get_weather", {"city": "Rome"}, False)
    ]
