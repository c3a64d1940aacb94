"""anthropic-xml: `<invoke name="..."><parameter name="...">...</parameter></invoke>`, strict.

There are no corpus files for this format; the fixtures follow the shapes of seed 003.
"""

from __future__ import annotations

import json
from typing import Any

import toolmend
from support import check_all_invariants, ns, run_chunks, streamed_arguments
from toolmend.events import ToolCallEnd, ToolCallStart
from toolmend.protocols.invoke_xml import PREFIX

PROTOCOL = "anthropic-xml"

WEATHER = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather for a city; say <city> & days",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "days": {"type": "integer"},
                    "metric": {"type": "boolean"},
                    "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                },
                "required": ["city"],
                "additionalProperties": False,
            },
        },
    }
]
WRITE = [
    {
        "name": "write_file",
        "parameters": {
            "type": "object",
            "properties": {"file_path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["file_path", "content"],
            "additionalProperties": False,
        },
    }
]


def parse(text: str, tools: Any = WEATHER, **kw: Any) -> toolmend.ParseResult:
    check_all_invariants(PROTOCOL, text, tools)
    return toolmend.parse(text, PROTOCOL, tools, id_prefix="call_", **kw)


def calls(result: toolmend.ParseResult) -> list[tuple[str, dict[str, Any], bool]]:
    return [(c.name, c.arguments, c.incomplete) for c in result.tool_calls]


SEOUL = '<invoke name="get_weather"><parameter name="city">Seoul</parameter></invoke>'


# The format ------------------------------------------------------------------------------


def test_a_bare_invoke_is_a_call_and_the_text_around_it_stays() -> None:
    result = parse(f"Checking.\n{SEOUL}\nDone.")
    assert calls(result) == [("get_weather", {"city": "Seoul"}, False)]
    assert result.text == "Checking.\n\nDone."


def test_an_invoke_inside_function_calls_is_a_call_and_the_wrapper_is_removed() -> None:
    result = parse(f"<function_calls>\n{SEOUL}\n</function_calls>\nDone.")
    assert calls(result) == [("get_weather", {"city": "Seoul"}, False)]
    assert result.text == "\nDone."


def test_several_invokes_in_one_wrapper_are_parallel_calls_of_one_block() -> None:
    text = (
        "<function_calls>\n"
        '<invoke name="get_weather"><parameter name="city">a</parameter></invoke>\n'
        '<invoke name="get_weather"><parameter name="city">b</parameter></invoke>\n'
        "</function_calls>"
    )
    events = run_chunks(PROTOCOL, [text], WEATHER)
    ends = [e for e in events if isinstance(e, ToolCallEnd)]
    assert [(e.index, e.call.arguments["city"]) for e in ends] == [(0, "a"), (1, "b")]
    assert sum(e.source_length for e in ends) == len(text)
    check_all_invariants(PROTOCOL, text, WEATHER)


def test_the_exact_namespace_prefix_is_accepted_on_every_tag() -> None:
    text = ns(
        '<@function_calls><@invoke name="get_weather">'
        '<@parameter name="city">Seoul</@parameter></@invoke></@function_calls>'
    )
    assert calls(parse(text)) == [("get_weather", {"city": "Seoul"}, False)]


def test_an_invoke_whose_first_parameter_lacks_its_prefix_is_not_an_opening() -> None:
    text = ns('<@invoke name="get_weather"><parameter name="city">x</parameter></@invoke>')
    result = parse(text)
    # The opening is decided on its first tag, which must carry the invoke's own prefix.
    assert result.tool_calls == [] and result.text == text


def test_xml_entities_in_values_and_names_are_decoded() -> None:
    result = parse(
        '<invoke name="get_weather"><parameter name="city">S&amp;P &lt;&#x41;&#66;&gt; '
        "&quot;q&quot; &apos;</parameter></invoke>"
    )
    assert result.tool_calls[0].arguments == {"city": 'S&P <AB> "q" \''}


def test_an_unknown_entity_stays_literal() -> None:
    result = parse(
        '<invoke name="get_weather"><parameter name="city">a &nbsp; b &</parameter></invoke>'
    )
    assert result.tool_calls[0].arguments == {"city": "a &nbsp; b &"}


def test_a_string_value_is_kept_exactly_as_written() -> None:
    result = parse(
        '<invoke name="get_weather"><parameter name="city">\n 42 \n</parameter></invoke>'
    )
    assert result.tool_calls[0].arguments == {"city": "\n 42 \n"}


def test_numbers_booleans_and_arrays_are_read_as_json_by_the_declared_type() -> None:
    result = parse(
        '<invoke name="get_weather"><parameter name="city">Oslo</parameter>'
        '<parameter name="days"> 3 </parameter><parameter name="metric">true</parameter>'
        '<parameter name="tags">["a", "b"]</parameter></invoke>'
    )
    assert result.tool_calls[0].arguments == {
        "city": "Oslo",
        "days": 3,
        "metric": True,
        "tags": ["a", "b"],
    }


def test_without_tools_every_value_is_a_string_and_every_name_is_accepted() -> None:
    result = parse('<invoke name="anything"><parameter name="n">3</parameter></invoke>', tools=None)
    assert calls(result) == [("anything", {"n": "3"}, False)]


def test_an_invoke_without_parameters_has_empty_arguments() -> None:
    tools = [{"name": "get_time"}]
    assert calls(parse('<invoke name="get_time">\n</invoke>', tools)) == [("get_time", {}, False)]


def test_a_parameter_closer_inside_an_escaped_value_does_not_end_it() -> None:
    result = parse(
        '<invoke name="write_file"><parameter name="file_path">a</parameter>'
        '<parameter name="content">x &lt;/parameter&gt; y</parameter></invoke>',
        WRITE,
    )
    assert result.tool_calls[0].arguments["content"] == "x </parameter> y"


# Strict policy -----------------------------------------------------------------------------


def test_a_duplicated_parameter_rejects_the_call() -> None:
    result = parse(
        '<invoke name="get_weather"><parameter name="city">a</parameter>'
        '<parameter name="city">b</parameter></invoke>'
    )
    call = result.tool_calls[0]
    assert call.incomplete and "city" in (call.error or "")
    assert call.arguments == {"city": "a"}


def test_lenient_scalar_spellings_are_not_repaired() -> None:
    result = parse(
        '<invoke name="get_weather"><parameter name="city">a</parameter>'
        '<parameter name="metric"> TRUE </parameter></invoke>'
    )
    call = result.tool_calls[0]
    assert call.incomplete and "metric" in (call.error or "")


def test_a_parameter_alias_is_not_renamed() -> None:
    result = parse(
        '<invoke name="write_file"><parameter name="path">a</parameter>'
        '<parameter name="content">x</parameter></invoke>',
        WRITE,
    )
    assert result.tool_calls[0].incomplete


def test_text_between_parameters_leaves_the_call_incomplete_and_its_markup_hidden() -> None:
    result = parse(
        '<invoke name="get_weather"><parameter name="city">a</parameter>oops</invoke>after'
    )
    call = result.tool_calls[0]
    # The invoke does not go on after `</parameter>oops`: that closer is the value's text (a
    # quote, `core/closers.Continuation`), the value's own closer is missing at `</invoke>`.
    assert call.incomplete and call.arguments == {"city": "a</parameter>oops"}
    assert result.text == "after"


# Text that is not a call -------------------------------------------------------------------


def test_an_unknown_tool_stays_text_with_a_diagnostic() -> None:
    text = 'Try <invoke name="launch"><parameter name="x">1</parameter></invoke> now'
    result = parse(text)
    assert result.tool_calls == [] and result.text == text
    assert [d.code for d in result.diagnostics] == ["unknown_tool"]


def test_an_unknown_tool_in_a_wrapper_keeps_the_wrapper_as_text() -> None:
    text = '<function_calls>\n<invoke name="launch"><parameter name="x">1</parameter></invoke>\n</function_calls>'
    result = parse(text)
    assert result.tool_calls == [] and result.text == text
    assert [d.code for d in result.diagnostics] == ["unknown_tool"]


def test_a_wrapper_without_an_invoke_stays_text() -> None:
    text = "<function_calls>\nnothing here\n</function_calls>"
    result = parse(text)
    assert result.tool_calls == [] and result.text == text


def test_a_known_invoke_followed_by_prose_is_not_an_opening() -> None:
    text = 'The tag <invoke name="get_weather"> starts a call.'
    result = parse(text)
    assert result.tool_calls == [] and result.text == text


def test_malformed_openings_stay_text() -> None:
    for text in (
        "<invoke>",
        '<invoked name="get_weather">',
        "<invoke name='get_weather'><parameter name=\"city\">a</parameter></invoke>",
        '<Invoke name="get_weather"><parameter name="city">a</parameter></Invoke>',
        "<" + PREFIX.upper() + 'invoke name="get_weather"><parameter name="city">a</parameter>',
    ):
        result = parse(text)
        assert result.tool_calls == [] and result.text == text, text


def test_a_fenced_protocol_example_is_left_untouched() -> None:
    text = f"Like this:\n```xml\n{SEOUL}\n```\nand inline `{SEOUL}` too."
    result = parse(text)
    assert result.tool_calls == [] and result.text == text


def test_a_call_after_a_fenced_example_is_still_parsed() -> None:
    text = f"```\n{SEOUL}\n```\n{SEOUL}"
    result = parse(text)
    assert len(result.tool_calls) == 1 and result.text == f"```\n{SEOUL}\n```\n"


# Names ------------------------------------------------------------------------------------


def test_a_wire_alias_of_a_tool_name_resolves_to_the_declared_tool() -> None:
    tools = [{"name": "todo", "parameters": {"type": "object"}}]
    for wire in ("Todo", "mcp_49f0-Todo", "mcp__tasks__todo"):
        result = parse(f'<invoke name="{wire}"></invoke>', tools)
        assert calls(result) == [("todo", {}, False)], wire


def test_a_name_two_tools_collide_on_stays_text() -> None:
    tools = [{"name": "read_file"}, {"name": "read-file"}]
    text = '<invoke name="ReadFile"><parameter name="p">x</parameter></invoke>'
    result = parse(text, tools)
    assert result.tool_calls == [] and result.text == text
    assert [d.code for d in result.diagnostics] == ["ambiguous_tool"]


# Streaming ----------------------------------------------------------------------------------


def test_a_string_value_streams_as_argument_deltas_before_the_call_closes() -> None:
    parser = toolmend.stream_parser(PROTOCOL, WRITE, id_prefix="call_")
    events = parser.feed(
        '<invoke name="write_file"><parameter name="file_path">a.txt</parameter>'
        '<parameter name="content">hello &amp; wor'
    )
    assert isinstance(events[0], ToolCallStart)
    sent = streamed_arguments(events)
    assert sent == '{"file_path": "a.txt", "content": "hello & wor'
    events += parser.feed("ld</parameter></invoke>") + parser.finish()
    [end] = [e for e in events if isinstance(e, ToolCallEnd)]
    assert end.call.arguments == {"file_path": "a.txt", "content": "hello & world"}


def test_an_entity_split_across_chunks_is_decoded_once_whole() -> None:
    text = '<invoke name="get_weather"><parameter name="city">a&amp;b&#x4E2D;</parameter></invoke>'
    for cut in range(len(text)):
        events = run_chunks(PROTOCOL, [text[:cut], text[cut:]], WEATHER)
        [end] = [e for e in events if isinstance(e, ToolCallEnd)]
        assert end.call.arguments == {"city": "a&b中"}


def test_a_long_value_with_markup_fed_in_five_character_chunks_arrives_whole() -> None:
    code = '<div class="a">if (a &lt; b && c) { x = "&copy;"; }</div>\n' * 200
    text = (
        '<invoke name="write_file"><parameter name="file_path">a</parameter>'
        f'<parameter name="content">{code}</parameter></invoke>'
    )
    chunks = [text[i : i + 5] for i in range(0, len(text), 5)]
    events = run_chunks(PROTOCOL, chunks, WRITE)
    [end] = [e for e in events if isinstance(e, ToolCallEnd)]
    assert end.call.arguments["content"] == code.replace("&lt;", "<")
    sent = streamed_arguments(events)
    assert sent == end.call.arguments_json()


# Rendering ----------------------------------------------------------------------------------


def test_a_rendered_call_is_a_bare_invoke_that_parses_back() -> None:
    proto = toolmend.get_protocol(PROTOCOL)
    call = toolmend.ToolCall(
        id="call_1",
        name="get_weather",
        arguments={"city": "a</parameter>&lt;", "days": 2, "tags": ["<x>"]},
    )
    text = proto.render_call(call)
    assert text.startswith('<invoke name="get_weather">') and "function_calls" not in text
    assert calls(parse(text)) == [("get_weather", call.arguments, False)]


def test_the_tools_prompt_is_one_json_array_in_a_tools_block_with_markup_escaped() -> None:
    prompt = toolmend.get_protocol(PROTOCOL).render_tools(
        [toolmend.Tool.from_dict(t) for t in WEATHER]
    )
    body = prompt.split("<tools>\n", 1)[1].split("\n</tools>", 1)[0]
    assert "<" not in body and ">" not in body and "&" not in body
    [tool] = json.loads(body)
    assert tool["name"] == "get_weather"
    assert tool["description"] == "Weather for a city; say <city> & days"
    assert '<invoke name="' in prompt


def test_a_result_is_a_function_results_block_naming_the_tool() -> None:
    text = toolmend.get_protocol(PROTOCOL).render_result("call_1", "get_weather", "sunny")
    assert text == (
        "<function_results><result><tool_name>get_weather</tool_name>"
        "<stdout>sunny</stdout></result></function_results>"
    )


def test_the_default_policy_is_strict_and_arguments_stream() -> None:
    proto = toolmend.get_protocol(PROTOCOL)
    assert proto.default_policy is toolmend.Policy.STRICT
    assert proto.incremental_arguments is True


# R1–R4: a call cut off by the end of the stream ----------------------------------------------


def test_r1_r4_a_call_missing_only_its_closing_tag_completes() -> None:
    result = parse('<invoke name="get_weather"><parameter name="city">Seoul</parameter></inv')
    assert calls(result) == [("get_weather", {"city": "Seoul"}, False)]
    assert result.text == ""


def test_r1_r4_a_call_missing_its_closer_with_trailing_whitespace_completes() -> None:
    result = parse('<invoke name="get_weather"><parameter name="city">Seoul</parameter>\n ')
    assert calls(result) == [("get_weather", {"city": "Seoul"}, False)]


def test_r1_r4_a_call_cut_inside_a_value_is_incomplete_with_best_effort_arguments() -> None:
    result = parse('<invoke name="get_weather"><parameter name="city">Seo')
    call = result.tool_calls[0]
    assert call.incomplete and call.error and call.arguments == {"city": "Seo"}
    assert result.text == ""


def test_r1_r4_a_call_cut_inside_a_parameter_closer_is_incomplete() -> None:
    result = parse('<invoke name="get_weather"><parameter name="city">Seoul</param')
    call = result.tool_calls[0]
    assert call.incomplete and call.arguments == {"city": "Seoul"}


def test_r1_r4_a_fragment_without_a_readable_name_is_dropped_with_metadata_only() -> None:
    text = "<invoke na"
    result = parse(text)
    assert result.tool_calls == [] and result.text == ""
    [diag] = result.diagnostics
    assert diag.code == "truncated_fragment_dropped"
    assert diag.metadata == {"protocol": PROTOCOL, "retained_length": len(text)}


def test_r1_r4_a_header_cut_after_its_name_is_an_incomplete_call() -> None:
    result = parse('<invoke name="get_weather"')
    call = result.tool_calls[0]
    assert call.name == "get_weather" and call.incomplete and result.text == ""


def test_r1_r4_an_unknown_tool_cut_off_stays_text() -> None:
    text = '<invoke name="launch"><parameter name="x">1'
    result = parse(text)
    assert result.tool_calls == [] and result.text == text


def test_r1_r4_arguments_violating_the_schema_leave_the_call_incomplete() -> None:
    result = parse(
        '<invoke name="get_weather"><parameter name="city">a</parameter>'
        '<parameter name="tags">[]</parameter></invoke>'
    )
    call = result.tool_calls[0]
    assert call.incomplete and "tags" in (call.error or "")


def test_r1_r4_a_wrapped_call_cut_inside_the_wrapper_closer_completes() -> None:
    result = parse(f"<function_calls>\n{SEOUL}\n</function_ca")
    assert calls(result) == [("get_weather", {"city": "Seoul"}, False)]
    assert result.text == ""


# Bounds ----------------------------------------------------------------------------------


def test_a_call_larger_than_the_fragment_cap_ends_incomplete_and_is_skipped() -> None:
    big = "x" * 5000
    text = (
        '<invoke name="write_file"><parameter name="file_path">a</parameter>'
        f'<parameter name="content">{big}</parameter></invoke>tail'
    )
    result = toolmend.parse(text, PROTOCOL, WRITE, max_fragment=1000)
    call = result.tool_calls[0]
    assert call.incomplete and "1000" in (call.error or "")
    assert result.text == "tail"
    check_all_invariants(PROTOCOL, text, WRITE, max_fragment=1000)


def test_whitespace_runs_longer_than_the_lookahead_bound_end_the_wrapper() -> None:
    tokyo = SEOUL.replace("Seoul", "Tokyo")
    text = f"<function_calls>\n{SEOUL}" + " " * 200 + f"{tokyo}</function_calls>"
    result = parse(text)
    assert [c.executable for c in result.tool_calls] == [True, True]
    assert result.text == " " * 200 + "</function_calls>"
