"""Preflight: structural problems found before a call runs, and never a false block."""

from __future__ import annotations

from typing import Any

import pytest

from toolmend.guard import Interceptor
from toolmend.guard.patterns import Flag
from toolmend.guard.preflight import (
    MAX_NESTED_DEPTH,
    PreflightChecker,
    has_tool_markup,
    parse_arguments,
    view_call,
)
from toolmend.model import Tool, ToolCall

CMD = Tool(
    "execute_command",
    parameters={
        "type": "object",
        "properties": {"command": {"type": "string"}, "cwd": {"type": "string"}},
        "required": ["command"],
    },
)
WRITE = Tool(
    "write_file",
    parameters={
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    },
)
CONFIGURE = Tool(
    "configure",
    parameters={
        "type": "object",
        "properties": {
            "options": {"type": "object"},
            "steps": {"type": "array", "items": {"type": "object"}},
            "cwd": {"type": "object"},
        },
    },
)
CHECKER = PreflightChecker([CMD, WRITE, CONFIGURE])


def _flag(name: str, args: Any) -> Flag | None:
    finding, _ = CHECKER.check(view_call({"name": name, "arguments": args}))
    return finding.flag if finding else None


def test_cwd_given_as_an_object_is_flagged() -> None:
    assert _flag("execute_command", {"command": "ls", "cwd": {"command": "ls"}}) == Flag.CWD_OBJECT


@pytest.mark.parametrize("cwd", [["a"], 3, True])
def test_cwd_of_any_non_string_type_is_flagged(cwd: object) -> None:
    assert _flag("execute_command", {"command": "ls", "cwd": cwd}) == Flag.CWD_OBJECT


def test_cwd_as_a_string_or_absent_is_fine() -> None:
    assert _flag("execute_command", {"command": "ls", "cwd": "src"}) is None
    assert _flag("execute_command", {"command": "ls"}) is None


@pytest.mark.parametrize(
    "value",
    [
        {"name": "write_file", "arguments": {"path": "a", "content": "b"}},
        {"type": "function", "function": {"name": "write_file", "arguments": "{}"}},
        {"tool_calls": [{"id": "x"}]},
        {"tool": "write_file", "input": {"path": "a"}},
        [{"path": "a", "content": "x"}, {"path": "b", "content": "y"}],
    ],
)
def test_another_tool_call_nested_in_a_parameter_is_flagged(value: object) -> None:
    assert _flag("execute_command", {"command": value}) == Flag.NESTED_TOOL_CALL


def test_a_parameter_declared_as_an_object_is_never_flagged() -> None:
    nested = {"name": "write_file", "arguments": {"path": "a", "content": "b"}}
    assert _flag("configure", {"options": nested, "steps": [nested], "cwd": {"x": 1}}) is None


def test_json_text_inside_a_string_parameter_is_content_not_a_call() -> None:
    body = '{"name": "write_file", "arguments": {"path": "a", "content": "b"}}'
    assert _flag("write_file", {"path": "call.json", "content": body}) is None


def test_the_nested_walk_is_bounded_in_depth() -> None:
    deep: object = {"name": "write_file", "arguments": {}}
    for _ in range(MAX_NESTED_DEPTH + 2):
        deep = {"wrap": deep}
    assert _flag("execute_command", {"command": "ls", "extra": deep}) is None


def test_the_nested_walk_survives_cycles() -> None:
    cyc: dict[str, object] = {}
    cyc["self"] = cyc
    assert _flag("execute_command", {"command": "ls", "extra": cyc}) is None


@pytest.mark.parametrize(
    ("raw", "flag"),
    [
        ('{"path":"a.ts"}{"path":"b.ts"}', Flag.CONCATENATED_JSON),
        ('{"path":"a.ts"}\n{"path":"b.ts"}', Flag.CONCATENATED_JSON),
        ('{"path": "a.ts", "content": "unfinished', Flag.TRUNCATED_JSON),
        ('{"path": "a.ts",', Flag.TRUNCATED_JSON),
        ("{'path': 'a.ts'}", Flag.INVALID_JSON),
        ('["a.ts"]', Flag.INVALID_JSON),
    ],
)
def test_arguments_strings_that_are_not_one_object_are_flagged(raw: str, flag: Flag) -> None:
    _, finding = parse_arguments(raw)
    assert finding is not None and finding.flag == flag


def test_empty_arguments_are_an_empty_object() -> None:
    assert parse_arguments("  ") == ({}, None)


def test_an_incomplete_toolcall_is_flagged_truncated() -> None:
    call = ToolCall(id="c", name="write_file", arguments={"path": "a"}, incomplete=True)
    finding, _ = CHECKER.check(view_call(call))
    assert finding is not None and finding.flag == Flag.TRUNCATED_JSON


def test_unknown_tools_are_flagged_only_when_tools_are_declared() -> None:
    assert _flag("nope", {}) == Flag.UNKNOWN_TOOL
    assert _flag("mcp__github__nope", {}) == Flag.MCP_TOOL_MISSING
    finding, _ = PreflightChecker(None).check(view_call({"name": "nope", "arguments": {}}))
    assert finding is None


def test_wrong_json_types_are_flagged_with_the_parameter_name() -> None:
    finding, _ = CHECKER.check(
        view_call({"name": "write_file", "arguments": {"path": 1, "content": "x"}})
    )
    assert finding is not None and (finding.flag, finding.param) == (Flag.TYPE_MISMATCH, "path")


@pytest.mark.parametrize(
    "text",
    [
        'Reading now.\n<tool_call>\n{"name": "x"}\n</tool_call>',
        "<function=read_file>\n<parameter=path>a</parameter>\n</function>",
        "I will run it: <execute_command>\n<command>ls</command>\n</execute_command>",
        '<invoke name="read_file"><parameter name="path">a</parameter></invoke>',
    ],
)
def test_tool_markup_in_text_is_detected(text: str) -> None:
    assert has_tool_markup(text, ("execute_command",))


@pytest.mark.parametrize(
    "text",
    [
        "Use the `<tool_call>` tag like this.",
        "Example:\n```xml\n<tool_call>{}</tool_call>\n```",
        "HTML is fine: <div>hi</div>",
        None,
    ],
)
def test_markup_in_code_or_ordinary_html_is_not_tool_markup(text: str | None) -> None:
    assert not has_tool_markup(text, ("execute_command",))


def test_xml_next_to_native_calls_executes_the_call_and_adds_a_protocol_note() -> None:
    i = Interceptor(tools=[CMD])
    g = i.preflight(
        {"name": "execute_command", "arguments": {"command": "ls"}},
        text="<execute_command>\n<command>ls</command>\n</execute_command>",
    )
    assert g is not None and not g.blocking
    assert (g.category, g.variant) == ("INVALID_TOOL_PROTOCOL", "xml_native_dual")


def test_a_clean_call_passes_preflight() -> None:
    i = Interceptor(tools=[CMD])
    assert (
        i.preflight({"name": "execute_command", "arguments": {"command": "ls"}}, text="ok") is None
    )
