"""The invoke family's tolerances (seed 003: 2026-08-09 missing angle, 2026-08-18 wire aliases).

The missing-angle recovery belongs to antml only: `antml:invoke name="...">` with its `<` lost,
exact case, at the start of the text or after whitespace, split at any stream boundary; after
such a call the exact stray `</function_results>` trailer is consumed with at most 127
whitespace characters before it.
"""

from __future__ import annotations

from typing import Any

import pytest

import toolmend
from support import check_all_invariants, ns, run_chunks, split_at
from toolmend.events import ToolCallEnd
from toolmend.protocols.invoke_xml import (
    MAX_INTERSTITIAL_WHITESPACE,
    STRAY_TRAILER,
    InvokeProtocol,
)

TOOLS = [
    {
        "name": "Bash",
        "parameters": {
            "type": "object",
            "properties": {"command": {"type": "string"}},
            "required": ["command"],
            "additionalProperties": False,
        },
    },
    {"name": "todo", "parameters": {"type": "object"}},
]


#: The leaked-turn shape: the invoke's `<` is missing, the rest is exact.
LEAK = ns('antml:invoke name="Bash">\n<@parameter name="command">ls -la</@parameter>\n</@invoke>')


def parse(text: str, protocol: str = "antml", tools: Any = TOOLS) -> toolmend.ParseResult:
    check_all_invariants(protocol, text, tools)
    return toolmend.parse(text, protocol, tools, id_prefix="call_")


def commands(result: toolmend.ParseResult) -> list[str]:
    return [c.arguments["command"] for c in result.tool_calls if c.executable]


# Missing-angle recovery ------------------------------------------------------------------


def test_an_invoke_missing_its_opening_angle_is_recovered() -> None:
    result = parse(f"I'll list the files.\n\n{LEAK}")
    assert commands(result) == ["ls -la"]
    assert result.text == "I'll list the files.\n\n"


def test_a_missing_angle_invoke_at_the_start_of_the_text_is_recovered() -> None:
    assert commands(parse(LEAK)) == ["ls -la"]


def test_a_missing_angle_opening_split_at_every_boundary_gives_the_same_call() -> None:
    text = f"Run:\n{LEAK}\nok"
    reference = toolmend.parse(text, "antml", TOOLS, id_prefix="call_")
    for cut in range(1, len(text)):
        for second in (cut + 1, cut + 7):
            chunks = split_at(text, [cut, min(second, len(text) - 1)])
            events = run_chunks("antml", chunks, TOOLS)
            [end] = [e for e in events if isinstance(e, ToolCallEnd)]
            assert end.call.arguments == reference.tool_calls[0].arguments


def test_a_missing_angle_opening_glued_to_a_word_stays_text() -> None:
    text = "see" + LEAK
    result = parse(text)
    assert result.tool_calls == [] and result.text == text


def test_a_missing_angle_opening_after_punctuation_stays_text() -> None:
    text = '"' + LEAK + '"'
    result = parse(text)
    assert result.tool_calls == [] and result.text == text


def test_a_missing_angle_opening_in_another_case_stays_text() -> None:
    for text in (
        LEAK.replace("antml:invoke", "ANTML:invoke", 1),
        LEAK.replace("invoke", "Invoke", 1),
    ):
        result = parse(text)
        assert result.tool_calls == [] and result.text == text


def test_a_missing_angle_opening_with_other_spacing_stays_text() -> None:
    text = LEAK.replace("invoke name=", "invoke  name=", 1)
    result = parse(text)
    assert result.tool_calls == [] and result.text == text


def test_a_missing_angle_opening_without_the_prefix_stays_text() -> None:
    text = 'invoke name="Bash">\n<parameter name="command">ls</parameter>\n</invoke>'
    result = parse(text)
    assert result.tool_calls == [] and result.text == text


def test_a_missing_angle_invoke_of_an_unknown_tool_stays_text() -> None:
    text = LEAK.replace('"Bash"', '"Launch"', 1)
    result = parse(text)
    assert result.tool_calls == [] and result.text == text


def test_a_missing_angle_opening_followed_by_prose_stays_text() -> None:
    text = 'The shape antml:invoke name="Bash"> is what leaked.'
    result = parse(text)
    assert result.tool_calls == [] and result.text == text


def test_a_missing_angle_example_in_code_stays_text() -> None:
    text = f"```\n{LEAK}\n```\nand `{LEAK.replace(chr(10), '')}`"
    result = parse(text)
    assert result.tool_calls == [] and result.text == text


def test_anthropic_xml_does_not_recover_a_missing_angle() -> None:
    result = parse(LEAK, protocol="anthropic-xml")
    assert result.tool_calls == [] and result.text == LEAK


def test_a_cut_off_missing_angle_call_follows_the_truncation_rule() -> None:
    result = parse(
        ns('antml:invoke name="Bash">\n<@parameter name="command">ls</@parameter>\n</@inv')
    )
    assert commands(result) == ["ls"] and result.text == ""


# The stray </function_results> trailer ------------------------------------------------------


def test_the_stray_trailer_after_a_recovered_call_is_consumed() -> None:
    result = parse(f"{LEAK}\n{STRAY_TRAILER}\nDone.")
    assert commands(result) == ["ls -la"] and result.text == "\nDone."


def test_the_trailer_is_consumed_after_at_most_127_whitespace_characters() -> None:
    ws = " \n\t" * 42 + " "  # 127 characters
    assert len(ws) == MAX_INTERSTITIAL_WHITESPACE
    result = parse(LEAK + ws + STRAY_TRAILER)
    assert commands(result) == ["ls -la"] and result.text == ""


def test_a_longer_whitespace_run_is_flushed_as_text_with_the_trailer() -> None:
    ws = " " * (MAX_INTERSTITIAL_WHITESPACE + 1)
    result = parse(LEAK + ws + STRAY_TRAILER)
    assert commands(result) == ["ls -la"] and result.text == ws + STRAY_TRAILER


def test_a_mismatched_trailer_is_preserved() -> None:
    for trailer in ("</function_result>", "</function_calls>", "</FUNCTION_RESULTS>"):
        result = parse(f"{LEAK}\n{trailer}")
        assert commands(result) == ["ls -la"] and result.text == f"\n{trailer}"


def test_a_cut_off_trailer_is_preserved() -> None:
    result = parse(f"{LEAK}\n</function_res")
    assert commands(result) == ["ls -la"] and result.text == "\n</function_res"


def test_a_standalone_trailer_is_preserved() -> None:
    text = f"Output follows.\n{STRAY_TRAILER}\n"
    result = parse(text)
    assert result.tool_calls == [] and result.text == text


def test_the_trailer_is_not_consumed_after_an_ordinary_invoke() -> None:
    text = ns('<@invoke name="Bash"><@parameter name="command">ls</@parameter></@invoke>')
    result = parse(f"{text}\n{STRAY_TRAILER}")
    assert commands(result) == ["ls"] and result.text == f"\n{STRAY_TRAILER}"


def test_only_one_trailer_is_consumed() -> None:
    result = parse(f"{LEAK}{STRAY_TRAILER}{STRAY_TRAILER}")
    assert commands(result) == ["ls -la"] and result.text == STRAY_TRAILER


# Tool names through the shared resolver -------------------------------------------------------


@pytest.mark.parametrize("protocol", ["anthropic-xml", "antml"])
@pytest.mark.parametrize("wire", ["Todo", "mcp_49f0-Todo", "TODO"])
def test_a_gateway_wire_alias_resolves_to_the_registered_tool(protocol: str, wire: str) -> None:
    text = ns(f'<@invoke name="{wire}"><@parameter name="item">milk</@parameter></@invoke>')
    result = parse(text, protocol)
    assert [(c.name, c.arguments, c.executable) for c in result.tool_calls] == [
        ("todo", {"item": "milk"}, True)
    ]


@pytest.mark.parametrize("protocol", ["anthropic-xml", "antml"])
def test_a_wire_alias_two_tools_collapse_onto_resolves_to_neither(protocol: str) -> None:
    tools = [{"name": "todo_write"}, {"name": "TodoWrite"}]
    text = ns('<@invoke name="mcp_49f0-todo-write"><@parameter name="x">1</@parameter></@invoke>')
    result = parse(text, protocol, tools)
    assert result.tool_calls == [] and result.text == text
    assert [d.code for d in result.diagnostics] == ["ambiguous_tool"]


def test_a_missing_angle_invoke_with_a_wire_alias_is_recovered() -> None:
    text = ns(
        'antml:invoke name="mcp_49f0-Todo">\n<@parameter name="item">milk</@parameter>\n</@invoke>'
    )
    result = parse(text)
    assert [(c.name, c.arguments) for c in result.tool_calls] == [("todo", {"item": "milk"})]


# One reader, two configurations --------------------------------------------------------------


@pytest.mark.parametrize("protocol", ["anthropic-xml", "antml"])
def test_both_protocols_read_the_same_call_the_same_way(protocol: str) -> None:
    text = ns(
        '<@function_calls><@invoke name="Bash"><@parameter name="command">a &amp;&amp; b</@parameter></@invoke></@function_calls>'
    )
    assert commands(parse(text, protocol)) == ["a && b"]


def test_the_protocols_differ_only_where_their_configurations_do() -> None:
    xml = toolmend.get_protocol("anthropic-xml")
    antml = toolmend.get_protocol("antml")
    assert isinstance(xml, InvokeProtocol) and isinstance(antml, InvokeProtocol)
    assert (xml.format.wrap_output, antml.format.wrap_output) == (False, True)
    assert (xml.format.missing_angle, antml.format.missing_angle) == (False, True)
