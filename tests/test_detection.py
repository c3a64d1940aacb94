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


def _tool(name: str) -> dict[str, object]:
    return {
        "name": name,
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
    }


def test_auto_watches_the_tag_markers_of_each_requests_own_tools_one_request_after_another() -> (
    None
):
    # auto's merged marker tables are kept per set of tool names: a tool-name tag is a marker
    # only for the request that declares the tool, whichever tool sets came before.
    for name in ("read_file", "list_dir", "read_file"):
        text = f"Looking.\n<{name}>\n<path>src</path>\n</{name}>"
        result = toolmend.parse(text, protocol="auto", tools=[_tool(name)])
        assert [(c.name, c.arguments) for c in result.tool_calls] == [(name, {"path": "src"})]
        other = "list_dir" if name == "read_file" else "read_file"
        unseen = toolmend.parse(text, protocol="auto", tools=[_tool(other)])
        assert [c.name for c in unseen.tool_calls if c.executable] == []


def test_auto_anchors_bare_json_as_the_whole_output_only_when_no_tools_are_declared() -> None:
    # The anchors differ with and without declared tools; both are merged and kept apart.
    text = 'See: {"name": "read_file", "arguments": {"path": "a"}}'
    for _ in range(2):
        assert toolmend.parse(text, protocol="auto", tools=None).tool_calls == []
        declared = toolmend.parse(text, protocol="auto", tools=[_tool("read_file")])
        assert [c.name for c in declared.tool_calls] == ["read_file"]
