"""`auto` decides each block on the body after its marker ("mine / maybe / not mine"), then
reads it exactly as the detected format does: its calls, policy, duplicate rule and name."""

from __future__ import annotations

from typing import Any

import pytest

import toolmend
from support import check_all_invariants, run_chunks
from tool_fixtures import WEATHER
from toolmend.events import ToolCallStart
from toolmend.model import ToolCall

#: Formats whose calls the other format writes identically, so `auto` may name either: bare
#: invokes (anthropic-xml, antml), GLM's tags with or without newlines (glm47, glm45) and a bare
#: JSON call object (json, llama3-json).
SAME_MARKUP = {"anthropic-xml": ("antml",), "glm47": ("glm45",), "json": ("llama3-json",)}

CALL = ToolCall(id="call_1", name="get_weather", arguments={"city": "Oslo", "days": 3})


def parse(text: str, **kw: Any) -> toolmend.ParseResult:
    return toolmend.parse(text, "auto", WEATHER, id_prefix="call_", **kw)


@pytest.mark.parametrize("protocol", toolmend.protocols())
def test_auto_reads_back_a_call_rendered_by_every_registered_protocol(protocol: str) -> None:
    # The call on a line of its own: bare formats (pythonic lists, bare JSON) open only at the
    # start of a line, as models write them.
    text = "Checking.\n" + toolmend.get_protocol(protocol).render_call(CALL) + "\nDone."
    result = parse(text)
    assert [(c.name, c.arguments, c.executable) for c in result.tool_calls] == [
        ("get_weather", {"city": "Oslo", "days": 3}, True)
    ], protocol
    assert result.text.replace(" ", "").replace("\n", "") == "Checking.Done."


@pytest.mark.parametrize("protocol", toolmend.protocols())
def test_auto_names_the_format_that_read_each_call(protocol: str) -> None:
    text = toolmend.get_protocol(protocol).render_call(CALL)
    (start,) = [e for e in run_chunks("auto", list(text), WEATHER) if isinstance(e, ToolCallStart)]
    named = toolmend.get_protocol(protocol).id
    assert start.protocol in {named, *SAME_MARKUP.get(named, ())}


def test_a_yaml_xml_call_under_auto_is_read() -> None:
    result = parse("<get_weather>\ncity: Oslo\ndays: 3\n</get_weather>")
    assert [(c.name, c.arguments) for c in result.tool_calls] == [
        ("get_weather", {"city": "Oslo", "days": 3})
    ]


def test_a_morph_xml_call_under_auto_is_still_read_as_morph_xml() -> None:
    text = "<get_weather>\n<city>Oslo</city>\n<days>3</days>\n</get_weather>"
    (start,) = [e for e in run_chunks("auto", [text], WEATHER) if isinstance(e, ToolCallStart)]
    assert start.protocol == "morph-xml"
    assert parse(text).tool_calls[0].arguments == {"city": "Oslo", "days": 3}


def test_a_tool_name_mentioned_in_prose_stays_text_under_auto() -> None:
    text = "Use <get_weather> for forecasts, not guesses."
    assert parse(text).text == text


def test_diagnostics_of_a_block_name_the_format_that_read_it() -> None:
    result = parse('<tool_call>{"nothing": 1}</tool_call>')
    assert result.diagnostics and {d.protocol for d in result.diagnostics} == {"hermes"}


def test_a_block_keeps_the_strict_policy_of_its_format_under_auto() -> None:
    text = (
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo", "days": "3"}}</tool_call>'
    )
    named = toolmend.parse(text, "hermes", WEATHER, policy="strict").tool_calls[0]
    under_auto = toolmend.parse(text, "auto", WEATHER, policy="strict").tool_calls[0]
    assert named.incomplete and under_auto.incomplete  # the caller's policy holds for every block


def test_detection_is_split_invariant_over_blanks_and_shared_markers() -> None:
    text = (
        "a <tool_call>   \n  <function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n"
        "</function>\n</tool_call> b <get_weather>\n  city: Rome\n</get_weather> c "
        '<tool_call> {"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
    )
    check_all_invariants("auto", text, WEATHER)
    assert [c.arguments["city"] for c in parse(text).tool_calls] == ["Oslo", "Rome", "Paris"]


BARE = '<invoke name="get_weather"><parameter name="city">{}</parameter>{}</invoke>'


def test_a_duplicate_parameter_anthropic_xml_rejects_is_rejected_under_auto() -> None:
    text = BARE.format("Oslo", '<parameter name="city">Rome</parameter>')
    for protocol in ("anthropic-xml", "auto"):
        (call,) = toolmend.parse(text, protocol, WEATHER).tool_calls
        assert call.incomplete and call.error == "argument 'city' is given twice", protocol


def test_a_wrapped_invoke_under_auto_keeps_antmls_last_wins_rule() -> None:
    text = "<function_calls>" + BARE.format("Oslo", '<parameter name="city">Rome</parameter>')
    for protocol in ("antml", "auto"):
        (call,) = toolmend.parse(text + "</function_calls>", protocol, WEATHER).tool_calls
        assert call.executable and call.arguments == {"city": "Rome"}, protocol


def test_under_auto_a_block_gets_the_default_policy_of_the_format_that_reads_it() -> None:
    days = '<parameter name="days">three</parameter><parameter name="x">1</parameter>'
    bare = BARE.format("Oslo", days)
    (strict,) = parse(bare).tool_calls  # anthropic-xml: validated, never repaired
    assert (
        strict.incomplete
        and strict.error == toolmend.parse(bare, "anthropic-xml", WEATHER).tool_calls[0].error
    )
    wrapped = "<function_calls>" + BARE.format("Oslo", '<parameter name="x">1</parameter>')
    (lenient,) = parse(wrapped + "</function_calls>").tool_calls  # antml: the unknown key dropped
    assert lenient.executable and lenient.arguments == {"city": "Oslo"}


def test_leak_recovery_under_auto_names_the_format_of_each_recovered_call() -> None:
    seen: list[dict[str, Any]] = []
    response = {
        "id": "r",
        "object": "chat.completion",
        "model": "some-model",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {
                    "role": "assistant",
                    "content": 'On it. <tool_call>{"name": "get_weather", "arguments": '
                    '{"city": "Oslo"}}</tool_call>',
                },
            }
        ],
    }
    toolmend.recover_response(response, WEATHER, on_diagnostic=seen.append)
    recovered = [d for d in seen if d.get("code") == "leaked_call_recovered"]
    assert [d.get("protocol") for d in recovered] == ["hermes"]
