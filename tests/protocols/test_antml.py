"""antml: `<function_calls>` invokes with Claude-Code-style, validation-gated tolerance.

There are no corpus files for this format; the fixtures follow the incidents of seed 003
(2026-07-18: invented keys, aliases, broken `\\u` escapes, lenient scalars, duplicates).
"""

from __future__ import annotations

from typing import Any

import toolmend
from support import check_all_invariants, ns, run_chunks
from tool_fixtures import WEATHER
from toolmend.events import ToolCallDelta, ToolCallEnd, ToolCallStart

PROTOCOL = "antml"

EDIT = [
    {
        "name": "Edit",
        "parameters": {
            "type": "object",
            "properties": {
                "file_path": {"type": "string"},
                "old_string": {"type": "string"},
                "new_string": {"type": "string"},
                "replace_all": {"type": "boolean"},
            },
            "required": ["file_path", "old_string", "new_string"],
            "additionalProperties": False,
        },
    }
]
TODO = [
    {
        "name": "TodoWrite",
        "parameters": {
            "type": "object",
            "properties": {
                "todos": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "content": {"type": "string"},
                            "status": {"enum": ["pending", "done"]},
                        },
                        "required": ["content", "status"],
                        "additionalProperties": False,
                    },
                },
                "limit": {"type": "integer"},
            },
            "required": ["todos"],
            "additionalProperties": False,
        },
    }
]


def parse(text: str, tools: Any = WEATHER, **kw: Any) -> toolmend.ParseResult:
    check_all_invariants(PROTOCOL, text, tools)
    return toolmend.parse(text, PROTOCOL, tools, id_prefix="call_", **kw)


def wrapped(*invokes: str) -> str:
    return ns("<@function_calls>\n" + "\n".join(invokes) + "\n</@function_calls>")


def invoke(name: str, **params: str) -> str:
    body = "".join(f'<@parameter name="{k}">{v}</@parameter>\n' for k, v in params.items())
    return ns(f'<@invoke name="{name}">\n{body}</@invoke>')


# The format ------------------------------------------------------------------------------


def test_a_wrapped_invoke_is_a_call() -> None:
    result = parse("Let me look.\n" + wrapped(invoke("get_weather", city="Seoul")))
    assert [(c.name, c.arguments, c.executable) for c in result.tool_calls] == [
        ("get_weather", {"city": "Seoul"}, True)
    ]
    assert result.text == "Let me look.\n"


def test_a_bare_invoke_is_read_too() -> None:
    result = parse(invoke("get_weather", city="Seoul"))
    assert result.tool_calls[0].arguments == {"city": "Seoul"}


def test_the_wrapper_without_prefix_is_read_too() -> None:
    text = '<function_calls><invoke name="get_weather"><parameter name="city">x</parameter></invoke></function_calls>'
    assert parse(text).tool_calls[0].executable


def test_parallel_invokes_in_one_wrapper_end_in_order() -> None:
    text = wrapped(invoke("get_weather", city="a"), invoke("get_weather", city="b"))
    events = run_chunks(PROTOCOL, [text], WEATHER)
    ends = [e for e in events if isinstance(e, ToolCallEnd)]
    assert [(e.index, e.call.arguments) for e in ends] == [(0, {"city": "a"}), (1, {"city": "b"})]
    assert sum(e.source_length for e in ends) == len(text)


def test_a_rendered_call_is_wrapped_in_function_calls_and_parses_back() -> None:
    proto = toolmend.get_protocol(PROTOCOL)
    call = toolmend.ToolCall(id="c", name="get_weather", arguments={"city": "a & b", "days": 2})
    text = proto.render_call(call)
    assert text.startswith("<function_calls>\n<invoke name=") and text.endswith("</function_calls>")
    assert [(c.name, c.arguments) for c in parse(text).tool_calls] == [
        ("get_weather", call.arguments)
    ]


def test_the_tools_prompt_teaches_the_wrapper() -> None:
    prompt = toolmend.get_protocol(PROTOCOL).render_tools(
        [toolmend.Tool.from_dict(t) for t in WEATHER]
    )
    assert "<function_calls>" in prompt and "<tools>" in prompt


def test_the_default_policy_is_lenient_and_arguments_wait_for_the_close() -> None:
    proto = toolmend.get_protocol(PROTOCOL)
    assert proto.default_policy is toolmend.Policy.LENIENT
    assert proto.incremental_arguments is False


def test_no_argument_delta_is_sent_before_the_call_closes() -> None:
    parser = toolmend.stream_parser(PROTOCOL, WEATHER)
    events = parser.feed(ns('<@invoke name="get_weather"><@parameter name="city">Seo'))
    assert [type(e) for e in events] == [ToolCallStart]
    events = parser.feed(ns("ul</@parameter></@invoke>")) + parser.finish()
    assert [e.arguments_delta for e in events if isinstance(e, ToolCallDelta)] == [
        '{"city": "Seoul"}'
    ]


# Claude-Code-style tolerance, always validation-gated ----------------------------------------


def test_aliases_and_invented_keys_are_repaired_to_the_declared_parameters() -> None:
    text = invoke(
        "Edit",
        path="/a.py",
        old_str="x = 1",
        new_string="x = 2",
        requireUnique="true",
        oldText2="x",
        type="replace",
    )
    call = parse(text, EDIT).tool_calls[0]
    assert call.executable
    assert call.arguments == {"file_path": "/a.py", "old_string": "x = 1", "new_string": "x = 2"}
    assert "rename:path->file_path" in call.repairs and "drop:requireUnique" in call.repairs


def test_parameter_names_match_whatever_their_case_and_separators() -> None:
    text = invoke("Edit", **{"File-Path": "/a", "OLD_STRING": "a", "newString": "b"})
    call = parse(text, EDIT).tool_calls[0]
    assert call.executable
    assert call.arguments == {"file_path": "/a", "old_string": "a", "new_string": "b"}


def test_unknown_keys_are_removed_recursively_where_the_schema_closes_the_object() -> None:
    todos = '[{"content": "a", "status": "done", "priority": "high"}]'
    call = parse(invoke("TodoWrite", todos=todos), TODO).tool_calls[0]
    assert call.executable
    assert call.arguments == {"todos": [{"content": "a", "status": "done"}]}


def test_unknown_keys_are_kept_where_the_schema_allows_extra_properties() -> None:
    tools = [
        {"name": "run", "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}}}}
    ]
    call = parse(invoke("run", cmd="ls", verbose="yes"), tools).tool_calls[0]
    assert call.executable and call.arguments == {"cmd": "ls", "verbose": "yes"}


def test_a_broken_unicode_escape_in_a_json_value_is_repaired() -> None:
    todos = '[{"content": "fix \\u12 bug", "status": "pending"}]'
    call = parse(invoke("TodoWrite", todos=todos), TODO).tool_calls[0]
    assert call.executable
    assert call.arguments["todos"][0]["content"] == "fix \\u12 bug"


def test_a_lone_surrogate_is_replaced() -> None:
    todos = '[{"content": "a\\ud83d", "status": "pending"}]'
    call = parse(invoke("TodoWrite", todos=todos), TODO).tool_calls[0]
    assert call.executable and call.arguments["todos"][0]["content"] == "a\ufffd"


def test_a_lone_surrogate_character_reference_is_replaced() -> None:
    call = parse(invoke("get_weather", city="a&#xD800;b")).tool_calls[0]
    assert call.executable and call.arguments == {"city": "a\ufffdb"}


def test_lenient_scalar_spellings_are_read_by_the_declared_type() -> None:
    text = invoke("Edit", file_path="/a", old_string="a", new_string="b", replace_all=" TRUE ")
    assert parse(text, EDIT).tool_calls[0].arguments["replace_all"] is True
    call = parse(invoke("get_weather", city="x", days='"2"')).tool_calls[0]
    assert call.executable and call.arguments == {"city": "x", "days": 2}


def test_a_duplicated_parameter_keeps_its_last_value() -> None:
    text = ns(
        '<@invoke name="get_weather"><@parameter name="city">a</@parameter>'
        '<@parameter name="days">1</@parameter><@parameter name="city">b</@parameter></@invoke>'
    )
    call = parse(text).tool_calls[0]
    assert call.executable and call.arguments == {"days": 1, "city": "b"}


def test_a_repaired_call_that_still_does_not_validate_is_rejected_with_its_reason() -> None:
    call = parse(invoke("Edit", path="/a", old_str="x", bogus="1"), EDIT).tool_calls[0]
    assert call.incomplete and (call.error or "").startswith("invalid arguments")
    # No partial repair is kept: the caller sees what the model sent.
    assert call.arguments == {"path": "/a", "old_str": "x", "bogus": "1"} and call.repairs == []


def test_a_value_that_no_repair_makes_valid_leaves_the_call_incomplete() -> None:
    call = parse(invoke("get_weather", city="x", days="soon")).tool_calls[0]
    assert call.incomplete and "days" in (call.error or "")


# Text that is not a call -------------------------------------------------------------------


def test_an_unknown_tool_stays_text() -> None:
    text = wrapped(invoke("launch_missiles", target="moon"))
    result = parse(text)
    assert result.tool_calls == [] and result.text == text


def test_an_unknown_tool_after_a_known_one_in_a_wrapper_stays_text() -> None:
    text = wrapped(invoke("get_weather", city="a"), invoke("launch", x="1"))
    result = parse(text)
    assert [c.name for c in result.tool_calls] == ["get_weather"]
    assert result.text == "\n" + invoke("launch", x="1") + ns("\n</@function_calls>")
    assert [d.code for d in result.diagnostics] == ["unknown_tool"]


def test_a_fenced_protocol_example_is_left_untouched() -> None:
    text = "Example:\n```\n" + wrapped(invoke("get_weather", city="a")) + "\n```\n"
    result = parse(text)
    assert result.tool_calls == [] and result.text == text


def test_an_inline_code_protocol_example_is_left_untouched() -> None:
    text = "Write `" + invoke("get_weather", city="a").replace("\n", "") + "` to call it."
    result = parse(text)
    assert result.tool_calls == [] and result.text == text


# R1–R4: a call cut off by the end of the stream ----------------------------------------------


def test_r1_r4_a_call_missing_only_its_closing_tag_completes() -> None:
    result = parse('<invoke name="get_weather"><parameter name="city">Seoul</parameter></inv')
    assert [(c.arguments, c.executable) for c in result.tool_calls] == [({"city": "Seoul"}, True)]
    assert result.text == ""


def test_r1_r4_a_wrapped_call_missing_its_closers_completes() -> None:
    text = ns(
        '<@function_calls>\n<@invoke name="get_weather">\n<@parameter name="city">Seoul</@parameter>\n</@in'
    )
    result = parse(text)
    assert [(c.arguments, c.executable) for c in result.tool_calls] == [({"city": "Seoul"}, True)]


def test_r1_r4_a_call_cut_inside_a_value_is_incomplete_with_best_effort_arguments() -> None:
    result = parse('<invoke name="get_weather"><parameter name="city">Seo')
    call = result.tool_calls[0]
    assert call.incomplete and call.error and call.arguments == {"city": "Seo"}
    assert result.text == ""


def test_r1_r4_a_fragment_without_a_readable_name_is_dropped_with_metadata_only() -> None:
    for text in ("<invoke na", ns("<@function_calls>\n<@invoke na")):
        result = parse(text)
        assert result.tool_calls == [] and result.text == ""
        [diag] = result.diagnostics
        assert diag.code == "truncated_fragment_dropped"
        assert diag.metadata == {"protocol": PROTOCOL, "retained_length": len(text)}


def test_r1_r4_an_unknown_tool_cut_off_stays_text() -> None:
    text = ns('<@function_calls>\n<@invoke name="launch">\n<@parameter name="x">1')
    result = parse(text)
    assert result.tool_calls == [] and result.text == text


def test_r1_r4_arguments_violating_the_schema_leave_the_call_incomplete() -> None:
    text = ns(
        '<@invoke name="get_weather"><@parameter name="city">a</@parameter>'
        '<@parameter name="tags">[]</@parameter></@invoke>'
    )
    call = parse(text).tool_calls[0]
    assert call.incomplete and "tags" in (call.error or "")
