"""Structural cues (guard25): what reads an error no wording family was written for.

Wording families recognise the sources they were read from; a blind split's first scoring shows
that they do not reach the next split's sources. These tests specify the mechanisms that do not
depend on a source's wording: machine identifiers read as words (`meanings.spelled_identifiers`),
a small lexicon of category cues read only in a tool's own message (`meanings.CUES`), and the
invariants around them (an envelope changes no reading; a success stays a success). The texts are
real rows of the dev files, cited by id.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolmend.guard import classify_result
from toolmend.guard.classify import Classifier
from toolmend.guard.envelope import unwrap
from toolmend.guard.meanings import meaning_of, spelled_identifiers
from toolmend.guard.patterns import PATTERNS_BY_ID, Category

CLASSIFIER = Classifier()


def _meaning(text: str) -> Category | None:
    """The category the meaning classes and cues give the unwrapped text, in a tool's message."""
    meant = meaning_of(unwrap(text).texts())
    return PATTERNS_BY_ID[meant].category if meant else None


def test_an_identifier_is_spelled_as_its_words() -> None:
    assert spelled_identifiers("An error occurred (ThrottlingException) when calling") == (
        "throttling exception",
    )
    assert spelled_identifiers("net::ERR_NAME_NOT_RESOLVED at x") == ("err name not resolved",)
    assert spelled_identifiers("plain words only") == ()


@pytest.mark.parametrize(
    ("text", "category"),
    [
        # strands-agents/blind10/002: botocore's code in parentheses, CamelCase
        (
            "Error: ClientError - An error occurred (AccessDeniedException) when calling the "
            "GetMetricData operation",
            Category.PERMISSION_DENIED,
        ),
        # strands-agents/blind10/003, its message cut to the code alone
        (
            "Error: ClientError - An error occurred (ThrottlingException) when calling the "
            "GetMetricData operation",
            Category.RATE_LIMITED,
        ),
    ],
)
def test_a_code_names_its_cause_in_its_words(text: str, category: Category) -> None:
    assert _meaning(text) is category


@pytest.mark.parametrize(
    ("row", "text", "category"),
    [
        (
            "serena/blind6/004",
            "Tool 'execute_shell_command' is not active. Active tools: ['activate_project', "
            "'find_symbol', 'get_symbols_overview', 'read_file', 'search_for_pattern']",
            Category.TOOL_NOT_FOUND,
        ),
        (
            "desktop-commander/blind6/008",
            "No session found for PID 48213",
            Category.PARAM_INVALID_VALUE,
        ),
        (
            "agno/blind10/002",
            "Error: The requested tool does not exist or is not available.",
            Category.TOOL_NOT_FOUND,
        ),
        ("vercel-ai/blind10/006", "Tool call execution denied.", Category.PERMISSION_DENIED),
        (
            "agno/blind10/014",
            "Function arguments are not a valid JSON object.\n\n Please fix and retry.",
            Category.INVALID_JSON_ARGUMENTS,
        ),
        (
            "mcp-python-sdk/blind10/003",
            '{"content": [{"type": "text", "text": "Error executing tool fetch_status: All '
            'connection attempts failed"}], "isError": true}',
            Category.NETWORK_ERROR,
        ),
        (
            "crush/blind10/001",
            "exceeds maximum of 5 questions per batch (got 8). Split into multiple batches and "
            "tell the user there will be follow-up questions",
            Category.PARAM_INVALID_VALUE,
        ),
    ],
)
def test_a_cue_reads_a_tools_own_message(row: str, text: str, category: Category) -> None:
    assert _meaning(text) is category, row


@pytest.mark.parametrize(
    ("row", "text", "category"),
    [
        (
            "serena/blind6/004",
            "Tool 'execute_shell_command' is not active. Active tools: ['activate_project', "
            "'find_symbol', 'get_symbols_overview', 'read_file', 'search_for_pattern']",
            Category.TOOL_NOT_FOUND,
        ),
        (
            "desktop-commander/blind6/008",
            "No session found for PID 48213",
            Category.PARAM_INVALID_VALUE,
        ),
    ],
)
def test_the_classifier_reads_by_a_cue_what_no_family_knows(
    row: str, text: str, category: Category
) -> None:
    assert CLASSIFIER.classify(text).category is category, row


@pytest.mark.parametrize(
    ("row", "text"),
    [
        # a compiler's words about the program's source, not the tool's
        (
            "java/b25/004",
            "Command: javac Exc.java\nDirectory: (root)\nOutput: Exc.java:1: error: unreported "
            "exception FileNotFoundException; must be caught or declared to be thrown\n1 error\n"
            "Error: (none)\nExit Code: 1\nSignal: (none)",
        ),
        # a database's function, not an agent's tool
        (
            "psql/blind4/012",
            "ERROR:  function lenght(text) does not exist\nLINE 1: select lenght(email) from "
            "users\n               ^\nHINT:  No function matches the given name and argument "
            "types. You might need to add explicit type casts.",
        ),
        (
            "pip/blind7/017",
            "<returncode>1</returncode>\n<output>\nERROR: No such key - global.index-url\n</output>",
        ),
    ],
)
def test_a_programs_output_is_not_read_by_the_cues(row: str, text: str) -> None:
    assert CLASSIFIER.classify(text).category is Category.COMMAND_FAILED, row


def test_a_text_with_no_cue_stays_unread() -> None:
    assert _meaning("The weather in Paris is sunny, 21 degrees") is None
    assert CLASSIFIER.classify("Saved 3 items to the basket").category is Category.UNCLASSIFIED


# --- envelopes read by key names -----------------------------------------------------------


def test_a_decoded_json_layer_is_read_through_its_values_not_as_text() -> None:
    # mcp-typescript-sdk/batch41/011 inside an MCP content block: the block's `"text": "..."` is
    # no edit's search text
    text = (
        '{"content": [{"type": "text", "text": "MCP error -32601: Method not found"}], '
        '"isError": true}'
    )
    assert CLASSIFIER.classify(text).category is Category.MCP_TOOL_MISSING


@pytest.mark.parametrize(
    ("row", "text", "category"),
    [
        # a key named for what failed (`exception_info`), in a shape no table lists
        (
            "mini-swe-agent/blind10/001",
            '{\n  "returncode": -1,\n  "output": "Downloading torch (906.4 MB)\\n", '
            '"exception_info": "An error occurred while executing the command: Command '
            '\\u0027pip install torch\\u0027 timed out after 60 seconds"\n}',
            Category.TIMEOUT,
        ),
        # a `status` in words (Continue's terminal result)
        (
            "continue/blind8/002",
            '[{"name": "Terminal", "description": "Terminal command output", "content": '
            '"Compiling api v0.3.1 (/home/dev/api)", "status": "Command timed out"}]',
            Category.TIMEOUT,
        ),
    ],
)
def test_a_key_named_for_the_failure_is_read_as_its_message(
    row: str, text: str, category: Category
) -> None:
    assert CLASSIFIER.classify(text).category is category, row


def test_a_problem_details_body_gives_its_status() -> None:
    # RFC 9457's shape: the status is a number beside `title` and `detail`
    env = unwrap('{"type": "about:blank", "status": 429, "title": "Too Many Requests"}')
    assert env.status == 429
    assert "Too Many Requests" in env.texts()


def test_an_ok_false_body_is_a_failure_and_its_error_is_read() -> None:
    # camel/blind10/003's body, as slack_sdk prints it
    env = unwrap("{'ok': False, 'error': 'not_in_channel'}")
    assert env.failed
    assert "not_in_channel" in env.texts()


def test_an_error_class_in_a_name_key_is_a_code() -> None:
    env = unwrap('{"error": {"name": "AccessDeniedException", "message": "User: x"}}')
    assert "AccessDeniedException" in env.codes
    assert (
        CLASSIFIER.classify(
            '{"error": {"name": "AccessDeniedException", "message": "User: x"}}'
        ).category
        is Category.PERMISSION_DENIED
    )


def test_a_record_with_a_title_is_not_read_as_an_error() -> None:
    # agno/b34/020 (a success): an issue whose title quotes an error
    record = '{"number": 4021, "title": "Error: Path is outside the allowed base directory"}'
    assert unwrap(record).texts() == [record]


# --- invariants ------------------------------------------------------------------------------

#: Bare real errors of the dev files, each read by a different mechanism (a family, a meaning,
#: a cue).
BARE_ERRORS = (
    "Tool 'execute_shell_command' is not active.",  # serena/blind6/004
    "No session found for PID 48213",  # desktop-commander/blind6/008
    "Tool call execution denied.",  # vercel-ai/blind10/006
    "All connection attempts failed",  # mcp-python-sdk/blind10/003
    "Function arguments are not a valid JSON object.",  # agno/blind10/014
    "Unknown tool: web_search",  # dspy/b33/004
    "insert_line not provided",  # avante.nvim/blind6/006
    "File read timed out after 10000ms",  # cline/blind8/003
    "Path must stay within cwd: ../../etc/cron.d/backup",  # cline/blind8/009
    "File already exists: src/services/queue.ts",  # cline/blind8/008
)

#: Envelopes agents and servers put around a message, by the keys and prefixes they use.
ENVELOPES = {
    "mcp": lambda t: json.dumps({"content": [{"type": "text", "text": t}], "isError": True}),
    "error": lambda t: json.dumps({"error": t}),
    "error.message": lambda t: json.dumps({"error": {"message": t}}),
    "status": lambda t: json.dumps({"status": "error", "message": t}),
    "ok": lambda t: json.dumps({"ok": False, "error": t}),
    "success": lambda t: json.dumps({"success": False, "error": t}),
    "repr": lambda t: repr({"error": t}),
    "errorMessage": lambda t: json.dumps({"errorMessage": t, "errorType": "Error"}),
    "tag": lambda t: f"<tool_use_error>{t}</tool_use_error>",
    "prefix": lambda t: f"Error executing tool do_it: {t}",
}

#: Under an MCP envelope, a tool that is not there is the MCP server's tool (the same fix).
_SAME_UNDER_MCP = {Category.MCP_TOOL_MISSING: Category.TOOL_NOT_FOUND}


@settings(max_examples=200, deadline=None)
@given(
    text=st.sampled_from(BARE_ERRORS),
    layers=st.lists(st.sampled_from(sorted(ENVELOPES)), min_size=1, max_size=3, unique=True),
)
def test_an_error_in_any_envelope_reads_as_the_bare_text(text: str, layers: list[str]) -> None:
    wrapped = text
    for layer in layers:
        wrapped = ENVELOPES[layer](wrapped)
    bare = CLASSIFIER.classify(text).category
    got = CLASSIFIER.classify(wrapped).category
    assert bare is not Category.UNCLASSIFIED
    assert _SAME_UNDER_MCP.get(got, got) is _SAME_UNDER_MCP.get(bare, bare), wrapped


#: Lines of code and logs that carry the cue words (taken from the cues' own dev rows).
_CUE_LINES = st.sampled_from(
    (
        'raise PermissionError("access denied")',
        "log.warn('Too many requests, retrying')",
        "// returns 404 when the file does not exist",
        "ERROR Connection refused by upstream",
        "if not tool: raise ToolNotFoundError(name)",
        "def test_missing_argument_is_required():",
        "throw new TypeError('expected a string')",
        "  timeout exceeded while waiting for lock",
        "quota exceeded for project",
    )
)


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(_CUE_LINES, min_size=1, max_size=6))
def test_a_file_listing_with_error_words_stays_a_success(lines: list[str]) -> None:
    listing = "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(lines, 1))
    assert not classify_result(listing, tool="read_file").failed
    assert not classify_result(
        json.dumps({"content": [{"type": "text", "text": listing}]}), tool="read_file"
    ).failed
