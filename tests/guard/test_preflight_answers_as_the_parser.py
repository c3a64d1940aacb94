"""Preflight asks the parser's own pieces, so both give one answer to one question: a tool
name (`ToolResolver`), a schema (`SchemaGate`), message text (`TextScanner`'s code mask)."""

from __future__ import annotations

import pytest

import toolmend
from toolmend.guard import Interceptor
from toolmend.guard.patterns import Flag
from toolmend.guard.preflight import PreflightChecker, has_tool_markup, view_call
from toolmend.model import Tool

TODO = Tool(
    "todo",
    parameters={
        "type": "object",
        "properties": {"task": {"type": "string"}, "count": {"type": "integer"}},
        "required": ["task"],
    },
)
CHECKER = PreflightChecker([TODO])


@pytest.mark.parametrize("name", ["Todo", "TODO", "mcp_49f0-Todo", "mcp__server__todo"])
def test_a_disguised_tool_name_resolves_in_preflight_as_in_the_parser(name: str) -> None:
    call = toolmend.parse(
        f'<tool_call>{{"name": "{name}", "arguments": {{"task": "x"}}}}</tool_call>',
        "hermes",
        [TODO],
    ).tool_calls[0]
    assert call.name == "todo" and call.executable
    finding, _ = CHECKER.check(view_call({"name": name, "arguments": {"task": "x"}}))
    assert finding is None
    assert Interceptor(tools=[TODO]).preflight({"name": name, "arguments": {"task": "x"}}) is None


def test_a_resolved_name_is_checked_against_its_tools_schema() -> None:
    finding, _ = CHECKER.check(view_call({"name": "Todo", "arguments": {"task": "x", "count": []}}))
    assert finding is not None and (finding.flag, finding.param) == (Flag.TYPE_MISMATCH, "count")


def test_a_name_that_resolves_to_no_tool_is_unknown_in_both() -> None:
    finding, _ = CHECKER.check(view_call({"name": "todos_list", "arguments": {}}))
    assert finding is not None and finding.flag == Flag.UNKNOWN_TOOL


@pytest.mark.parametrize(
    "text",
    [
        'Example:\n~~~\n<tool_call>{"name": "todo", "arguments": {"task": "x"}}</tool_call>\n~~~\n',
        'Example:\n````md\n```\n<tool_call>{"name": "todo", "arguments": {}}</tool_call>\n````\n',
        "Write `<invoke name=` to call one.",
    ],
)
def test_markup_the_parser_masks_as_code_is_not_tool_markup(text: str) -> None:
    assert toolmend.parse(text, "auto", [TODO]).tool_calls == []
    assert not has_tool_markup(text, ("todo",))


@pytest.mark.parametrize(
    "text",
    [
        'Calling it now <tool_call>{"name": "todo", "arguments": {"task": "x"}}</tool_call>',
        "```\ncode\n```\nthen <function=todo>\n<parameter=task>x</parameter>\n</function>",
    ],
)
def test_markup_outside_code_is_tool_markup_as_the_parser_reads_it(text: str) -> None:
    assert toolmend.parse(text, "auto", [TODO]).tool_calls != []
    assert has_tool_markup(text, ("todo",))


def test_arguments_json_cannot_carry_are_invalid_json_as_for_the_parser() -> None:
    finding, _ = CHECKER.check(view_call({"name": "todo", "arguments": '{"task": NaN}'}))
    assert finding is not None and finding.flag == Flag.INVALID_JSON


def test_the_gates_surrogate_repair_note_reaches_the_call() -> None:
    text = '<tool_call>{"name": "todo", "arguments": {"task": "a\\ud83d"}}</tool_call>'
    (call,) = toolmend.parse(text, "hermes", [TODO]).tool_calls
    assert call.executable and call.arguments == {"task": "a\ufffd"}
    assert call.repairs == ["surrogate:task"]
