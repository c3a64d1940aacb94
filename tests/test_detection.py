"""`auto` reads what every registered format writes, and names the format that read it."""

from __future__ import annotations

import pytest

import toolmend

WEATHER = [
    {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        },
    }
]
CALL = toolmend.ToolCall(id="call_1", name="get_weather", arguments={"city": "Oslo", "days": 2})


@pytest.mark.parametrize("protocol", toolmend.protocols())
def test_auto_reads_back_a_call_rendered_by_every_protocol(protocol: str) -> None:
    text = "Checking.\n" + toolmend.get_protocol(protocol).render_call(CALL) + "\nDone."
    result = toolmend.parse(text, protocol="auto", tools=WEATHER)
    assert [(c.name, c.arguments, c.executable) for c in result.tool_calls] == [
        ("get_weather", {"city": "Oslo", "days": 2}, True)
    ]
    assert result.text.replace("\n", "") == "Checking.Done."


def test_a_diagnostic_under_auto_names_the_format_that_read_the_block() -> None:
    text = '<tool_call>{"name": "launch", "arguments": {}}</tool_call>'
    (diagnostic,) = toolmend.parse(text, protocol="auto", tools=WEATHER).diagnostics
    assert diagnostic.code == "unknown_tool"
    assert diagnostic.protocol == "hermes"
