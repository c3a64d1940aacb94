"""The mechanisms written after blind11's misses were read (guard25), each with the blind11 row it
reads and a sibling from batch 50 (`batch50_errors.json`, other sources, first scored before any of
this was written). The engine is the source-free one (`test_structural_cues.SOURCE_FREE`): every
case is read by structure and cues, not by a wording of its own source."""

from __future__ import annotations

import json

import pytest

from toolmend.guard import classify_result
from toolmend.guard.classify import Classifier
from toolmend.guard.envelope import unwrap
from toolmend.guard.patterns import Category

from .test_structural_cues import SOURCE_FREE

CLASSIFIER = Classifier()


def _mcp_error(text: str) -> str:
    return json.dumps({"content": [{"type": "text", "text": text}], "isError": True})


@pytest.mark.parametrize(
    ("row", "text", "category"),
    [
        # the tool is not there: Semantic Kernel .NET's processor, a Rust agent's registry
        (
            "semantic-kernel-dotnet/blind11/002",
            "Error: Function call request for a function that wasn't defined. Correct yourself.",
            Category.TOOL_NOT_FOUND,
        ),
        (
            "semantic-kernel-dotnet/blind11/003",
            "Error: Requested function could not be found. Correct yourself.",
            Category.TOOL_NOT_FOUND,
        ),
        (
            "agentscope/blind11/002",
            "ToolGroupInactiveError: The tool 'browser_click' in group 'browser' is currently "
            "inactive. You should first activate the group by calling the 'reset_tools' tool.",
            Category.TOOL_NOT_FOUND,
        ),
        # a .NET TypeConverter's refusal is the argument's type
        (
            "semantic-kernel-dotnet/blind11/005",
            "Error: Exception while invoking function. five is not a valid value for Int32. "
            "(Parameter 'days')\nActual value was five.",
            Category.PARAM_TYPE_MISMATCH,
        ),
        # a refused connection in Windows' words, and a connection reset
        (
            "semantic-kernel-dotnet/blind11/007",
            "Error: Exception while invoking function. No connection could be made because the "
            "target machine actively refused it. (localhost:5081)",
            Category.NETWORK_ERROR,
        ),
        (
            "hysteria/batch50/001",
            "dial tcp 127.0.0.1:5080: connectex: No connection could be made because the target "
            "machine actively refused it.",
            Category.NETWORK_ERROR,
        ),
        (
            "mcp-playwright/blind11/004",
            _mcp_error(
                "Browser is not connected. The connection has been reset - please retry your "
                "navigation."
            ),
            Category.NETWORK_ERROR,
        ),
        (
            "browser-use/blind11/001",
            "Result\nNavigation failed - site unavailable: https://intranet.acme.local/reports",
            Category.NETWORK_ERROR,
        ),
        # an element the call names by its index or id, not there
        (
            "browser-use/blind11/005",
            "Result\nElement with index 57 does not exist.",
            Category.PARAM_INVALID_VALUE,
        ),
        (
            "browseros-skill/batch50/001",
            "❌ Error: Element with nodeId 15 not found",
            Category.PARAM_INVALID_VALUE,
        ),
        (
            "trient/batch50/002",
            "Element index 12 is no longer available - page has changed. Try refreshing browser "
            "state.",
            Category.PARAM_INVALID_VALUE,
        ),
        (
            "chrome-devtools-mcp/blind11/009",
            _mcp_error('Could not find option with text \\"Express shipping\\"'.replace("\\", "")),
            Category.PARAM_INVALID_VALUE,
        ),
        (
            "mcp-playwright/blind11/006",
            _mcp_error("Iframe not found: iframe#payment-widget"),
            Category.PARAM_INVALID_VALUE,
        ),
        # what the value may be, listed; a binary file; an offset past the end; a value in a
        # category that has nothing; a quoted value refused
        (
            "desktop-commander/blind11/001",
            _mcp_error(
                'Key "shellTimeoutMs" is not configurable via this tool. Allowed keys: '
                "blockedCommands, allowedDirectories, defaultShell"
            ),
            Category.PARAM_INVALID_VALUE,
        ),
        (
            "desktop-commander/blind11/008",
            _mcp_error(
                "Error: Cannot write binary files directly. Use start_process with appropriate "
                "tools (Python, Node.js libraries, command-line utilities)."
            ),
            Category.PARAM_INVALID_VALUE,
        ),
        (
            "browser-use/blind11/008",
            "Result\nstart_from_char (48000) exceeds content length 12731 characters.",
            Category.PARAM_INVALID_VALUE,
        ),
        (
            "desktop-commander/blind11/004",
            _mcp_error(
                "❌ No prompts found in category \"devops\". Use action='list_categories' to see "
                "available categories."
            ),
            Category.PARAM_INVALID_VALUE,
        ),
        (
            "agentscope/blind11/009",
            "Error: Invalid pages 'pages 3 to 5'. Expected a page number or range like \"3\" or "
            '"1-5".',
            Category.PARAM_INVALID_VALUE,
        ),
        # a named thing the call would create is there
        (
            "letta/blind11/003",
            '{"status": "Failed", "message": "Error executing function memory_apply_patch: '
            'ValueError: Error: Memory block \'preferences\' already exists", "time": '
            '"2026-12-03 12:52:10 PM UTC+0000"}',
            Category.FILE_EXISTS,
        ),
        # read before the edit
        (
            "agentscope/blind11/010",
            "Error: To edit a file, you must first read it using the Read tool.",
            Category.DIFF_MATCH_FAILED,
        ),
        # a user's confirmation that did not come
        (
            "github-mcp-server/blind11/001",
            _mcp_error("Repository deletion confirmation expired. The repository was not deleted."),
            Category.PERMISSION_DENIED,
        ),
        # a database's own object that is not there (ekaya-engine/batch50/001's message)
        (
            "ekaya-engine/batch50/001",
            "table 'orders_2023' not found in schema registry. Run refresh_schema() after "
            "creating tables.",
            Category.COMMAND_FAILED,
        ),
    ],
)
def test_a_blind11_family_is_read_without_its_sources_wordings(
    row: str, text: str, category: Category
) -> None:
    assert SOURCE_FREE.classify(text).category is category, row


@pytest.mark.parametrize(
    ("row", "text"),
    [
        # the runtime's own error flag with words no family or cue knows: a failure of no known
        # kind, not an unread text
        (
            "fastmcp/blind11/010",
            _mcp_error(
                "Ambiguous app tool 'show_dashboard': 2 components share the identity '9f3ab2c1'."
            ),
        ),
        ("chrome-devtools-mcp/blind11/008", _mcp_error("No open dialog found")),
        # a client's placeholder for an error with no words
        ("langchain-mcp-adapters/blind11/001", "MCP tool returned an error with empty content."),
    ],
)
def test_an_error_flag_or_a_placeholder_is_a_failure_of_no_known_kind(row: str, text: str) -> None:
    assert CLASSIFIER.classify(text).category is Category.COMMAND_FAILED, row


def test_pydantics_missing_argument_is_a_missing_parameter() -> None:
    # fastmcp/blind11/007: a validated call's `missing_argument`, not a refused value
    text = _mcp_error(
        "1 validation error for call[get_forecast]\ncity\n  Missing required argument "
        "[type=missing_argument, input_value={'days': 5}, input_type=dict]"
    )
    env = unwrap(text)
    assert [(i.param, i.kind) for i in env.issues] == [("city", "missing")]
    assert CLASSIFIER.classify(text).category is Category.PARAM_MISSING


def test_two_arguments_given_together_are_a_value_not_a_permission() -> None:
    # chrome-devtools-mcp/blind11/006's sentence, read by the cues
    text = 'Providing both "uid" and "fullPage" is not allowed.'
    assert SOURCE_FREE.classify(text).category is Category.PARAM_INVALID_VALUE


def test_a_file_format_that_is_invalid_is_the_files_failure() -> None:
    # desktop-commander/blind11/010: "Invalid DOCX:" names a format, not a parameter
    assert SOURCE_FREE.classify("Error: Invalid DOCX: missing word/document.xml").category is (
        Category.COMMAND_FAILED
    )


def test_a_python_exception_class_before_error_is_no_programs_error_line() -> None:
    # letta/blind11/003's "ValueError: Error: ..." is not `jq: error:`
    text = "Error executing function memory_apply_patch: ValueError: Error: Memory block 'x' already exists"
    assert CLASSIFIER.classify(text).category is Category.FILE_EXISTS


def test_an_error_false_payload_is_a_success() -> None:
    # ekaya-engine/batch50/004: NewErrorResult's shape with `error: false`
    text = '{"error": false, "message": "schema refreshed: 14 tables, 0 errors", "details": {}}'
    assert not classify_result(text, tool="refresh_schema").failed
