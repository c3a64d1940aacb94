"""A failed call's own facts read beside its error (`call_facts`, guard26): an edit's search text
quoted back, the called tool said not to be there. Through the public paths that have the call
(`classify_result` with its arguments, `Interceptor`, `guard_history`); the texts are blind12's
rows, cited by id, read after the split's first scoring."""

from __future__ import annotations

import json

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from toolmend.guard import Interceptor, classify_result, guard_history
from toolmend.guard.call_facts import names_called_tool_missing, search_texts, search_values
from toolmend.guard.classify import Classifier
from toolmend.guard.patterns import Category
from toolmend.guard.results import arguments_text

#: moatless-tools/blind12/001: StringReplace's string_not_found observation, a multi-line old_str
OLD = '    if invoice.total < 0:\n        raise ValueError("negative total")'
NOT_FOUND = (
    f"String '{OLD}' not found in billing/invoice.py.\n\nRemember to write out the exact string "
    "you want to replace with the same indentation and no placeholders."
)
EDIT = {"path": "billing/invoice.py", "old_str": OLD, "new_str": "    if invoice.total <= 0:"}


def test_a_multi_line_search_text_is_read_whole_from_either_form_of_the_arguments() -> None:
    assert OLD in search_values(EDIT)
    assert OLD in search_texts(arguments_text(EDIT))
    assert OLD in search_texts(json.dumps(EDIT))


def test_an_edits_search_text_quoted_back_is_a_failure_of_the_call() -> None:
    assert classify_result(NOT_FOUND, tool="StringReplace", arguments=EDIT).failed


def test_an_edits_search_text_quoted_back_is_the_edits_whatever_a_family_reads() -> None:
    assert Classifier().classify(NOT_FOUND).category is Category.PARAM_INVALID_VALUE  # bare text
    guidance = Interceptor().on_result({"name": "StringReplace", "arguments": EDIT}, NOT_FOUND)
    assert guidance is not None and guidance.category is Category.DIFF_MATCH_FAILED
    error = Interceptor().on_error({"name": "StringReplace", "arguments": EDIT}, NOT_FOUND)
    assert error.category is Category.DIFF_MATCH_FAILED


def test_the_history_guard_reads_the_edit_from_the_calls_raw_arguments() -> None:
    messages = [
        {"role": "user", "content": "refunds may be zero"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "StringReplace", "arguments": json.dumps(EDIT)},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": NOT_FOUND},
    ]
    assert "DIFF_MATCH_FAILED" in guard_history(messages)[-1]["content"]


def test_another_text_quoted_is_no_edit_of_this_call() -> None:
    other = {**EDIT, "old_str": "def refund(self):"}
    error = Interceptor().on_error({"name": "StringReplace", "arguments": other}, NOT_FOUND)
    assert error.category is Category.PARAM_INVALID_VALUE


def test_the_called_tool_said_not_to_be_there_is_a_missing_tool() -> None:
    # notion-mcp-server/blind12/006: the server's OpenAPI lookup has no such method
    notion = '{"jsonrpc": "2.0", "id": 8, "error": {"code": -32603, "message": "Method API-get-page not found"}}'
    assert Classifier().classify(notion).category is Category.COMMAND_FAILED  # bare text
    found = Interceptor().on_error({"name": "API-get-page", "arguments": {}}, notion)
    assert found.category is Category.MCP_TOOL_MISSING
    # huggingface-tiny-agents/blind12/003: no connected server lists the function
    tiny = "Error: No session found for tool: browser_snapshots"
    found = Interceptor().on_error({"name": "browser_snapshots", "arguments": {}}, tiny)
    assert found.category is Category.TOOL_NOT_FOUND


def test_another_tool_said_not_to_be_there_is_not_the_called_one() -> None:
    notion = "Method API-get-page not found"
    assert not names_called_tool_missing(notion, "API-get-page-v2")
    assert not names_called_tool_missing(notion, "get")  # too short to be read back
    found = Interceptor().on_error({"name": "API-retrieve-a-page", "arguments": {}}, notion)
    assert found.category is not Category.TOOL_NOT_FOUND


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(max_size=300),
    tool=st.from_regex(r"[A-Za-z][A-Za-z0-9_-]{2,24}", fullmatch=True),
)
def test_a_text_that_does_not_name_the_tool_never_reads_it_missing(text: str, tool: str) -> None:
    assume(tool.lower() not in text.lower())
    assert not names_called_tool_missing(text, tool)
    assert search_texts(text) == search_texts(text)  # total, whatever the text


#: blind13's rows (guard27) whose text repeats a name or an id the call passed: the call's
#: arguments as the tool's schema has them, the values the rows' texts name.
REFUSED_VALUES = [
    # kilocode/blind13/002, 003: switch_agent's agent, not one it may switch to
    (
        "switch_agent",
        {"agent": "explore"},
        'Error: Cannot switch to subagent "explore". Use the task tool to delegate to subagents.',
    ),
    ("switch_agent", {"agent": "code"}, 'Error: Already using the "code" agent'),
    # openai-agents/blind13/006: write_stdin's session_id, a PTY session that is not there
    (
        "write_stdin",
        {"session_id": 14, "chars": "y\n"},
        "Chunk ID: 51be7f\nWall time: 0.0031 seconds\nProcess exited with code 1\nOutput:\n"
        "write_stdin failed: PTY session not found: 14",
    ),
    # codex/blind13/002: spawn_agents_on_csv's id_column, not a column of the file
    (
        "spawn_agents_on_csv",
        {"csv_path": "data/companies.csv", "id_column": "company_id", "instruction": "Sum {x}"},
        "id_column company_id was not found in csv headers",
    ),
]


def test_a_name_or_id_the_call_passed_repeated_in_its_failure_is_that_value_refused() -> None:
    for name, arguments, text in REFUSED_VALUES:
        assert Classifier().classify(text).category is Category.COMMAND_FAILED  # bare text
        found = Interceptor().on_error({"name": name, "arguments": arguments}, text)
        assert found.category is Category.PARAM_INVALID_VALUE, text
        raw = Interceptor().on_error({"name": name, "arguments": json.dumps(arguments)}, text)
        assert raw.category is Category.PARAM_INVALID_VALUE, text


def test_a_failure_that_repeats_no_value_of_the_call_or_only_its_path_or_command_stays() -> None:
    busy = "Error: Cannot switch: the session is busy"
    assert Interceptor().on_error(
        {"name": "switch_agent", "arguments": {"agent": "explore"}}, busy
    ).category is (Category.COMMAND_FAILED)
    # gemini-cli/blind13/005: the directory the call named, a failure of the file system's
    plans = "Failed to create plans directory: /home/dev/.gemini/tmp/4f1c0d2e/plans"
    call = {"name": "enter_plan_mode", "arguments": {"dir": "/home/dev/.gemini/tmp/4f1c0d2e/plans"}}
    assert Interceptor().on_error(call, plans).category is not Category.PARAM_INVALID_VALUE
    # a shell command's failure that repeats the command is the program's
    npm = "Error: command 'npm test' failed"
    shell = {"name": "run", "arguments": {"command": "npm test"}}
    assert Interceptor().on_error(shell, npm).category is not Category.PARAM_INVALID_VALUE


def test_the_history_guard_reads_the_value_from_the_calls_raw_arguments() -> None:
    name, arguments, text = REFUSED_VALUES[0]  # kilocode/blind13/002
    messages = [
        {"role": "user", "content": "look around the repository"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(arguments)},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": text},
    ]
    assert "PARAM_INVALID_VALUE" in guard_history(messages)[-1]["content"]
