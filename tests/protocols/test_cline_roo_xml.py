"""Cline's and Roo Code's XML tool calls, read by morph-xml when the tools are declared.

Cline's system prompt teaches `<tool_name><param>value</param></tool_name>` (write_to_file,
execute_command, read_file, replace_in_file, ask_followup_question, attempt_completion); Roo
Code's wraps some parameters in `<args>` (`<read_file><args><file><path>…`), matching its
native tool `read_file(files: [{path, line_ranges}])`. A model served with those tools as native
functions leaks exactly these shapes.
"""

from __future__ import annotations

from typing import Any

import pytest

import toolmend
from support import check_all_invariants


def tool(name: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "name": name,
        "parameters": {"type": "object", "properties": properties, "required": required},
    }


STRING = {"type": "string"}
CLINE = [
    tool("write_to_file", {"path": STRING, "content": STRING}, ["path", "content"]),
    tool(
        "execute_command",
        {"command": STRING, "requires_approval": {"type": "boolean"}},
        ["command"],
    ),
    tool("read_file", {"path": STRING}, ["path"]),
    tool("replace_in_file", {"path": STRING, "diff": STRING}, ["path", "diff"]),
    tool(
        "ask_followup_question",
        {"question": STRING, "options": {"type": "array", "items": STRING}},
        ["question"],
    ),
]
ROO_READ = [
    tool(
        "read_file",
        {
            "files": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "path": STRING,
                        "line_ranges": {"type": "array", "items": STRING},
                    },
                    "required": ["path"],
                },
            }
        },
        ["files"],
    )
]

CLINE_CASES = [
    (
        "I'll create the file.\n\n<write_to_file>\n<path>src/app.ts</path>\n<content>\n"
        "const ok = 1 < 2 && 3 > 2;\nconsole.log(`<div>${ok}</div>`);\n</content>\n</write_to_file>",
        (
            "write_to_file",
            {
                "path": "src/app.ts",
                "content": "const ok = 1 < 2 && 3 > 2;\nconsole.log(`<div>${ok}</div>`);",
            },
        ),
    ),
    (
        "<execute_command>\n<command>npm run test -- --watch=false</command>\n"
        "<requires_approval>false</requires_approval>\n</execute_command>",
        (
            "execute_command",
            {"command": "npm run test -- --watch=false", "requires_approval": False},
        ),
    ),
    (
        "<replace_in_file>\n<path>a.py</path>\n<diff>\n------- SEARCH\nx = 1\n=======\nx = 2\n"
        "+++++++ REPLACE\n</diff>\n</replace_in_file>",
        (
            "replace_in_file",
            {"path": "a.py", "diff": "------- SEARCH\nx = 1\n=======\nx = 2\n+++++++ REPLACE"},
        ),
    ),
    (
        '<ask_followup_question>\n<question>Which one?</question>\n<options>\n["A", "B"]\n'
        "</options>\n</ask_followup_question>",
        ("ask_followup_question", {"question": "Which one?", "options": ["A", "B"]}),
    ),
]


@pytest.mark.parametrize(("text", "call"), CLINE_CASES)
@pytest.mark.parametrize("protocol", ["morph-xml", "auto"])
def test_clines_tool_shapes_are_read(protocol: str, text: str, call: tuple[str, Any]) -> None:
    result = toolmend.parse(text, protocol, CLINE)
    assert [(c.name, c.arguments, c.executable) for c in result.tool_calls] == [(*call, True)]
    check_all_invariants(protocol, text, CLINE)


ROO_CASES = [
    (
        "<read_file><args><file><path>a.rs</path></file><file><path>c.rs</path></file></args>"
        "</read_file>",
        {"files": [{"path": "a.rs"}, {"path": "c.rs"}]},
    ),
    (
        "<read_file>\n<args>\n  <file>\n    <path>src/app.ts</path>\n"
        "    <line_range>1-10</line_range>\n  </file>\n</args>\n</read_file>",
        {"files": [{"path": "src/app.ts", "line_ranges": ["1-10"]}]},
    ),
]


@pytest.mark.parametrize(("text", "arguments"), ROO_CASES)
@pytest.mark.parametrize("protocol", ["morph-xml", "auto"])
def test_roo_codes_args_wrapper_reads_into_its_native_schema(
    protocol: str, text: str, arguments: dict[str, Any]
) -> None:
    result = toolmend.parse(text, protocol, ROO_READ)
    assert [(c.name, c.arguments, c.executable) for c in result.tool_calls] == [
        ("read_file", arguments, True)
    ]
    check_all_invariants(protocol, text, ROO_READ)


def test_an_args_tag_the_tool_declares_is_an_ordinary_parameter() -> None:
    tools = [tool("run", {"args": STRING}, ["args"])]
    result = toolmend.parse("<run><args>-v --fast</args></run>", "morph-xml", tools)
    assert [c.arguments for c in result.tool_calls] == [{"args": "-v --fast"}]
