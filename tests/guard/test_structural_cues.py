"""Structural cues (guard25, guard26): what reads an error no wording family was written for.

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

from .conftest import load_cases

CLASSIFIER = Classifier()

#: The files whose rows were read while the classifier was written (every file but the blind
#: splits not yet read).
DEV_FILES = (
    "real_errors.json",
    "command_errors.json",
    *(f"batch{n}_errors.json" for n in (33, 34, 39, 41, 43, 44, 45, 48)),
    "blind_errors.json",
    *(f"blind{n}_errors.json" for n in range(2, 11)),
)


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


# --- what reads a source no wording was written from ----------------------------------------

#: Every wording written from a named source switched off: only the generic ("plain") and the
#: operating system's ("os") wordings stay, so what this engine reads it reads by structure, the
#: meaning classes and the cues, as it would a source nobody has read.
SOURCE_FREE = Classifier(
    exclude_origins={o for p in PATTERNS_BY_ID.values() for w in p.text for o in w.origins}
    - {"plain", "os"}
)


@pytest.mark.parametrize(
    ("row", "text", "category"),
    [
        # a scope or sandbox the call left
        (
            "agno/b34/002",
            "Error: Path '../../etc/passwd' is outside the allowed base directory",
            Category.PERMISSION_DENIED,
        ),
        (
            "roo-code/blind11/007",
            'Tool "write_to_file" is not allowed in ask mode.',
            Category.PERMISSION_DENIED,
        ),
        # a size over a limit
        (
            "crush/b34/014",
            "Content section is too large (2480133 bytes). Maximum size is 1048576 bytes",
            Category.CONTEXT_OVERFLOW,
        ),
        (
            "cline/blind11/011",
            "Response too large: exceeded 5242880 bytes",
            Category.CONTEXT_OVERFLOW,
        ),
        # an edit that does not apply
        (
            "cline/blind11/005",
            "No replacement performed: multiple occurrences of text found in "
            "src/config/defaults.ts.",
            Category.DIFF_MATCH_FAILED,
        ),
        (
            "roo-code/blind11/002",
            "Expected update hunk to start with a @@ context marker, got: 'def handler(event):'",
            Category.DIFF_MATCH_FAILED,
        ),
        # a value the call gave that names nothing, or breaks a constraint
        ("crush/dev34/005", "LSP client 'gopls' not found", Category.PARAM_INVALID_VALUE),
        ("agno/b34/015", "Error: Query cannot be empty", Category.PARAM_INVALID_VALUE),
        (
            "gemini-cli/blind11/002",
            "Path must be absolute: src/index.ts",
            Category.PARAM_INVALID_VALUE,
        ),
        # arguments that are not JSON, in Python's json module's words
        (
            "mini-swe-agent/blind2/004",
            "Error parsing tool call arguments: Expecting ',' delimiter: line 1 column 26 "
            "(char 25).Missing 'command' argument in bash tool call.",
            Category.INVALID_JSON_ARGUMENTS,
        ),
        # Python's own TypeError for a missing argument, inside an agent's prefixes
        (
            "camel/blind10/002",
            "Tool execution failed: Error executing tool 'get_stock_price': get_stock_price() "
            "missing 1 required positional argument: 'ticker'",
            Category.PARAM_MISSING,
        ),
    ],
)
def test_without_the_sources_wordings_a_cue_reads_it(
    row: str, text: str, category: Category
) -> None:
    assert SOURCE_FREE.classify(text).category is category, row


@pytest.mark.parametrize(
    ("text", "category"),
    [
        # .NET's own exception messages, as a .NET agent passes `ex.Message` on (System.Net.Http's
        # timeout; ArgumentNullException's message with its parameter)
        (
            "System.Threading.Tasks.TaskCanceledException: The request was canceled due to the "
            "configured HttpClient.Timeout of 100 seconds elapsing.",
            Category.TIMEOUT,
        ),
        (
            "Error: Value cannot be null. (Parameter 'city')",
            Category.PARAM_MISSING,
        ),
        ("System.Net.Http.HttpRequestException: An error occurred", Category.NETWORK_ERROR),
    ],
)
def test_a_runtimes_exception_is_read_by_its_words(text: str, category: Category) -> None:
    assert SOURCE_FREE.classify(text).category is category


@pytest.mark.parametrize(
    ("row", "text", "category"),
    [
        # JSON-RPC's -32602 says only that the parameters were refused; the message says what
        (
            "mcp-csharp-sdk/b33/001",
            '{"jsonrpc": "2.0", "id": 4, "error": {"code": -32602, "message": "Unknown tool: '
            "'get_forcast'\"}}",
            Category.MCP_TOOL_MISSING,
        ),
        # a request refused (`invalid_request_error`), for its size
        (
            "roo-code/blind2/014",
            '400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is '
            'too long: 210194 tokens > 200000 maximum"}}',
            Category.CONTEXT_OVERFLOW,
        ),
    ],
)
def test_a_status_alone_is_refined_by_the_cue_its_message_states(
    row: str, text: str, category: Category
) -> None:
    assert SOURCE_FREE.classify(text).category is category, row


def test_a_status_whose_message_only_names_it_is_not_refined() -> None:
    # mcp-python-sdk/blind7/005: -32602's own name is no invalid value of the call
    text = (
        '{"jsonrpc": "2.0", "id": 12, "error": {"code": -32602, "message": "Invalid request '
        'parameters", "data": ""}}'
    )
    assert CLASSIFIER.classify(text).category is Category.INVALID_TOOL_PROTOCOL


def test_a_refused_requests_field_is_not_a_permission() -> None:
    # tgi/b32/003: "is not allowed" of a request's own field, refused by the server
    text = (
        '{"error":"Input validation error: `top_n_tokens` != 0 is not allowed for this '
        'endpoint","error_type":"validation"}'
    )
    assert CLASSIFIER.classify(text).category is Category.PARAM_INVALID_VALUE


def test_an_http_status_is_read_by_its_reason_phrase() -> None:
    # Go's HTTP clients: "METHOD URL: STATUS REASON"
    env = unwrap(
        "failed to get issue: GET https://api.example.com/repos/o/r/issues/9: 404 Not Found []"
    )
    assert env.status == 404
    assert unwrap("upstream answered 503 Service Unavailable").status == 503
    assert unwrap("returned 404 items").status is None


def test_a_lead_in_that_only_says_an_error_happened_is_peeled() -> None:
    assert "Tool foo not found" in unwrap("Encountered error: Tool foo not found").texts()
    assert "x" in unwrap("Unexpected exception in run_query: x").texts()
    # a lead-in that names what failed stays whole (goose/blind2/003)
    text = "MCP process error: spawn npx ENOENT"
    assert unwrap(text).texts() == [text]


def test_a_markdown_heading_over_the_message_is_peeled() -> None:
    # playwright-mcp/blind6/009
    assert (
        'Error: Tool "browser_scroll" not found'
        in unwrap('### Result\nError: Tool "browser_scroll" not found\n').texts()
    )


#: The dev files' errors the source-free engine reads right (3960 of 4740 after guard27's patch
#: grammar, 3955 after guard26's mechanisms, 3951 at guard25's end, 3937 at its Part 1, 3270
#: before its mechanisms): a floor, so that the mechanisms that read what no source's wording
#: covers do not regress.
SOURCE_FREE_FLOOR = 3_960


def test_without_any_sources_wordings_the_engine_still_reads_four_in_five() -> None:
    rows = [r for name in DEV_FILES for r in load_cases(name) if r["kind"] == "error"]
    right = sum(SOURCE_FREE.classify(r["text"]).category == r["category"] for r in rows)
    assert right >= SOURCE_FREE_FLOOR, f"{right}/{len(rows)}"


def test_the_first_content_block_is_the_message_and_the_others_its_context() -> None:
    # playwright-mcp/blind6/003's message, then a console log of the page in a second block
    text = json.dumps(
        {
            "content": [
                {"type": "text", "text": "Error: Tab 4 not found"},
                {
                    "type": "text",
                    "text": "[ERROR] Failed to load resource: the server responded with a "
                    "status of 404 (Not Found)",
                },
            ],
            "isError": True,
        }
    )
    assert unwrap(text).texts()[0] == "Tab 4 not found"
    assert CLASSIFIER.classify(text).category is Category.PARAM_INVALID_VALUE


def test_markdown_sections_are_read_first_section_first() -> None:
    # playwright-mcp/blind6/003 with the page's state after it, as the server appends it
    text = (
        "### Result\nError: Tab 4 not found\n\n### Page state\n- Console: [ERROR] "
        "net::ERR_CONNECTION_REFUSED"
    )
    assert unwrap(text).texts()[0] == "Tab 4 not found"
    assert CLASSIFIER.classify(text).category is Category.PARAM_INVALID_VALUE


@pytest.mark.parametrize(
    ("row", "text", "category", "engine"),
    [
        (
            "avante.nvim/blind6/001",
            "Error: Failed to find the old string:\n    local total = price * qty\n    return total",
            Category.DIFF_MATCH_FAILED,
            CLASSIFIER,
        ),
        (
            "camel/blind10/007",
            "Error: Invalid regex pattern: missing ), unterminated subpattern at position 4",
            Category.PARAM_INVALID_VALUE,
            SOURCE_FREE,
        ),
    ],
)
def test_an_agents_error_prefix_is_no_pips_fatal_line(
    row: str, text: str, category: Category, engine: Classifier
) -> None:
    # pip's `ERROR: Could not ...` is upper case; read case-blind, it made an agent's message a
    # program's report, where the cues are not read
    assert engine.classify(text).category is category, row


@pytest.mark.parametrize(
    ("row", "text"),
    [
        # a cue that names its object is read before a meaning class's common words
        (
            "codex/blind3/011",
            "apply_patch verification failed: Invalid patch hunk on line 3: 'print(1)' is not a "
            "valid hunk header. Valid hunk headers: '*** Add File: {path}', '*** Delete File: "
            "{path}', '*** Update File: {path}'",
        ),
        # the edit's text named by its parameter, with what went wrong with it
        (
            "roo-code/dev13/003",
            "The 'old_string' and 'new_string' parameters must be different.",
        ),
        (
            "opencode/heldout/003",
            "Tool failed: old_string not found in src/app.ts. It must match the file text "
            "exactly, including whitespace and indentation.",
        ),
    ],
)
def test_an_edit_that_does_not_apply_is_read_by_its_objects_words(row: str, text: str) -> None:
    assert SOURCE_FREE.classify(text).category is Category.DIFF_MATCH_FAILED, row


@pytest.mark.parametrize(
    ("row", "text"),
    [
        (
            "crewai/blind10/009",
            "An error occurred while writing to the file: invalid truth value 'sometimes'",
        ),
        ("crush/blind10/004", "No call hierarchy information for 'NewRouter'"),
    ],
)
def test_a_value_that_names_nothing_or_is_refused_is_the_calls(row: str, text: str) -> None:
    assert SOURCE_FREE.classify(text).category is Category.PARAM_INVALID_VALUE, row


def test_no_changes_for_a_quoted_file_is_an_answer() -> None:
    # roo-code/batch41/034, a success
    assert not classify_result(
        "No changes needed for 'src/api/routes.ts'", tool="apply_diff"
    ).failed


@pytest.mark.parametrize(
    ("row", "text", "category"),
    [
        # an MCP resource is a file by another name (JSON-RPC -32002 says only "not found")
        (
            "mcp-go/b33/011",
            '{"jsonrpc": "2.0", "id": 12, "error": {"code": -32002, "message": "resource not '
            'found: file:///reports/2026-q3.md"}}',
            Category.FILE_NOT_FOUND,
        ),
        # the type named is read before "Invalid argument"
        (
            "vercel-ai/b28/014",
            "Invalid argument for parameter maxRetries: maxRetries must be an integer",
            Category.PARAM_TYPE_MISMATCH,
        ),
    ],
)
def test_an_object_named_decides_the_cue(row: str, text: str, category: Category) -> None:
    assert SOURCE_FREE.classify(text).category is category, row


@pytest.mark.parametrize(
    ("row", "text", "category"),
    [
        # JSON-RPC's -32602 beside a plain failure's words: the words say which parameter fault
        (
            "rmcp/b33/002",
            '{"jsonrpc": "2.0", "id": 3, "error": {"code": -32602, "message": "failed to '
            'deserialize parameters: invalid type: string \\"ten\\", expected u32"}}',
            Category.PARAM_TYPE_MISMATCH,
        ),
        (
            "mcp-typescript-sdk/dev14/008",
            '{"content": [{"type": "text", "text": "MCP error -32602: Tool delete_note not '
            'found"}], "isError": true}',
            Category.MCP_TOOL_MISSING,
        ),
    ],
)
def test_a_coarse_code_is_refined_by_the_cue_its_message_states(
    row: str, text: str, category: Category
) -> None:
    assert SOURCE_FREE.classify(text).category is category, row


@pytest.mark.parametrize(
    ("row", "text"),
    [
        (
            "langchain/blind4/002",
            "log file /var/log/app/audit.log is not readable by the service account",
        ),
        (
            "mcp-go-sdk/dev33/011",
            '{"content": [{"type": "text", "text": "URI path \\"/etc/passwd\\" is not under any '
            'root"}], "isError": true}',
        ),
        ("ollama/blind3/007", '{"error":"you are not currently signed in"}'),
        (
            "cline/blind5/007",
            '{"query":"create:../../.ssh/config","result":"","error":"Editor operation failed: '
            'Path must stay within cwd: ../../.ssh/config","success":false}',
        ),
        (
            "claude-code/dev/021",
            "The user doesn't want to take this action right now. STOP what you are doing and "
            "wait for the user to tell you how to proceed.",
        ),
    ],
)
def test_a_refusal_by_scope_login_or_the_user_is_a_permission(row: str, text: str) -> None:
    assert SOURCE_FREE.classify(text).category is Category.PERMISSION_DENIED, row


# --- guard26: the families blind12's misses showed, read by structure and cues ---------------


@pytest.mark.parametrize(
    ("row", "text"),
    [
        # a hook or a rule that stopped the call
        (
            "amazon-q-cli/blind12/008",
            "PreToolHook blocked the tool execution: Refusing to run terraform apply outside CI.",
        ),
        (
            "instructor-php/batch53/001",
            'Tool call to \'run_migration\' ({"env":"prod"}) was blocked: production migrations '
            "need a change ticket",
        ),
        # a login refused or expired
        (
            "sentry-mcp/blind12/009",
            "**Authorization Expired**\n\nSentry rejected the stored access token for this "
            "session. Please re-authorize to continue.",
        ),
        # a tool of a skill the session was not given
        (
            "sentry-mcp/blind12/005",
            "Profile resources require the inspect skill. Enable inspect tools or call "
            "get_profile_details in a session where it is available.",
        ),
        (
            "ralph-hero/batch53/001",
            "This tool requires skill context.\n\nBash cannot be called directly \u2014 invoke the "
            "appropriate skill instead.",
        ),
    ],
)
def test_a_call_a_hook_blocked_a_refused_login_or_a_missing_skill_is_a_permission(
    row: str, text: str
) -> None:
    assert SOURCE_FREE.classify(text).category is Category.PERMISSION_DENIED, row


@pytest.mark.parametrize(
    ("row", "text", "category"),
    [
        # a plan's usage spent, in words or as a code
        (
            "tavily-mcp/blind12/002",
            '{"jsonrpc": "2.0", "id": 5, "error": {"code": -32603, "message": "Usage limit '
            'exceeded. Documentation: https://docs.tavily.com/documentation/api-reference"}}',
            Category.RATE_LIMITED,
        ),
        (
            "foundry/batch53/001",
            "[API Error: You have exhausted your capacity on this model. Your quota will reset "
            "after 2h52m39s.]",
            Category.RATE_LIMITED,
        ),
        (
            "decision-replay-engine/batch53/001",
            '{"error": {"name": "UsageLimitError", "code": "USAGE_LIMIT_EXCEEDED", "message": '
            '"Replays are paused for this workspace until the next billing cycle."}}',
            Category.RATE_LIMITED,
        ),
        # a budget of tool calls spent is the loop's, not the provider's
        (
            "griptape/blind12/002",
            "Exceeded tool limit of 20 subtasks per task",
            Category.MODEL_STUCK_LOOP,
        ),
    ],
)
def test_a_plans_usage_spent_is_a_rate_limit_and_a_tool_budget_a_loop(
    row: str, text: str, category: Category
) -> None:
    assert SOURCE_FREE.classify(text).category is category, row


@pytest.mark.parametrize(
    ("row", "text", "category"),
    [
        # a read over what the tool takes at once, a tool call too large
        (
            "amazon-q-cli/blind12/007",
            "An error occurred processing the tool: \nThis tool only supports reading 400000 "
            "bytes at a\ntime. You tried to read 1843117 bytes.",
            Category.CONTEXT_OVERFLOW,
        ),
        (
            "amazon-q-cli/blind12/009",
            '{"toolUseId": "t1", "content": [{"text": "The generated tool was too large, try '
            'again but this time split up the work between multiple tool uses"}], "status": '
            '"error"}',
            Category.CONTEXT_OVERFLOW,
        ),
        # a value outside its range is the value's; a path outside the workspace stays a refusal
        (
            "amazon-q-cli/blind12/006",
            "An error occurred processing the tool: \nstarting index: 420 is outside of the "
            "allowed range: (-311, 311)",
            Category.PARAM_INVALID_VALUE,
        ),
        (
            "multitool/batch53/001",
            "The value provided is outside of the inclusive range [0\u2026100]",
            Category.PARAM_INVALID_VALUE,
        ),
        (
            "agno/b34/002",
            "Error: Path '../../etc/passwd' is outside the allowed base directory",
            Category.PERMISSION_DENIED,
        ),
        # a place the tool could not reach
        (
            "griptape/blind12/007",
            "Error getting page content: can't access URL",
            Category.NETWORK_ERROR,
        ),
        (
            "presently-ai/batch53/001",
            "Could not connect. Please check your internet connection and the URL.",
            Category.NETWORK_ERROR,
        ),
        # control handed back while the command runs on
        (
            "agent-zero/blind12/004",
            "[SYSTEM: Returning control to agent after 30 seconds with no output. Process is "
            "still running. Decide whether to wait for more output or reset based on context.]",
            Category.TIMEOUT,
        ),
    ],
)
def test_a_size_a_range_a_place_out_of_reach_and_a_wait_are_read_by_their_cues(
    row: str, text: str, category: Category
) -> None:
    assert SOURCE_FREE.classify(text).category is category, row


@pytest.mark.parametrize(
    ("row", "text", "category"),
    [
        # an agent's record of a call is read through what the call returned
        (
            "agent-zero/blind12/006",
            '{"tool_name": "scheduler", "tool_result": "Invalid cron expression: 0 9 * * '
            'MON-FRI,SAT"}',
            Category.PARAM_INVALID_VALUE,
        ),
        (
            "agent-zero/blind12/003",
            '{"tool_name": "code_execution_tool", "tool_result": "root@agent-zero:~# python3 '
            "backfill.py\\nprocessing batch 1/40\\n\\n[SYSTEM: Returning control to agent after "
            '180 seconds of execution. Process is still running.]"}',
            Category.TIMEOUT,
        ),
        # an agent's warning about the reply, under a key named for it
        (
            "agent-zero/blind12/011",
            '{"system_warning": "You have misformatted your message. Follow system prompt '
            'instructions on JSON message formatting precisely."}',
            Category.INVALID_TOOL_PROTOCOL,
        ),
        (
            "agent-zero/blind12/012",
            '{"system_warning": "You have sent the same message again. You have to do something '
            'else!"}',
            Category.DUPLICATE_CALL,
        ),
        ("langroid/blind12/003", "ERROR: Use ONE tool at a time!", Category.INVALID_TOOL_PROTOCOL),
    ],
)
def test_an_agents_record_of_a_call_and_its_warning_about_the_reply_are_read(
    row: str, text: str, category: Category
) -> None:
    assert SOURCE_FREE.classify(text).category is category, row


def test_an_agents_record_names_the_tool_it_ran() -> None:
    # agent-zero/blind12/007's record
    env = unwrap('{"tool_name": "scheduler", "tool_result": "Task not found: 8f2c1e0a"}')
    assert env.tool == "scheduler"
    assert "Task not found: 8f2c1e0a" in env.texts()


@pytest.mark.parametrize(
    ("row", "text", "category"),
    [
        # `{"object": "error", ...}` says that it failed, with no `isError` around it; its
        # status is then refined by the cue its message states
        (
            "notion-mcp-server/blind12/004",
            '{"content": [{"type": "text", "text": "{\\"status\\":400,\\"object\\":\\"error\\",'
            '\\"code\\":\\"validation_error\\",\\"message\\":\\"body failed validation: '
            'body.parent.page_id should be defined, instead was `undefined`.\\"}"}]}',
            Category.PARAM_MISSING,
        ),
        (
            "notion-mcp-server/blind12/005",
            '{"content": [{"type": "text", "text": "{\\"status\\":409,\\"object\\":\\"error\\",'
            '\\"code\\":\\"conflict_error\\",\\"message\\":\\"Conflict occurred while saving. '
            'Please try again.\\"}"}]}',
            Category.COMMAND_FAILED,
        ),
    ],
)
def test_an_object_that_says_it_is_an_error_is_a_failure(
    row: str, text: str, category: Category
) -> None:
    assert SOURCE_FREE.classify(text).category is category, row


@pytest.mark.parametrize(
    ("row", "text", "category", "param"),
    [
        # serde's words name the field before the agent's hint about tools that do not exist
        (
            "amazon-q-cli/blind12/002",
            "Failed to validate tool parameters: missing field `operations`. The model has either "
            "suggested tool parameters which are incompatible with the existing tools, or has "
            "suggested one or more tool that does not exist in the list of known tools.",
            Category.PARAM_MISSING,
            "operations",
        ),
        (
            "amazon-q-cli/blind12/003",
            "Failed to validate tool parameters: unknown variant `replace`, expected one of "
            "`create`, `str_replace`, `insert`, `append`. The model has either suggested tool "
            "parameters which are incompatible with the existing tools, or has suggested one or "
            "more tool that does not exist in the list of known tools.",
            Category.PARAM_INVALID_VALUE,
            None,
        ),
    ],
)
def test_serde_names_the_field_and_its_fault_before_any_hint(
    row: str, text: str, category: Category, param: str | None
) -> None:
    got = SOURCE_FREE.classify(text)
    assert (got.category, got.param) == (category, param), row


@pytest.mark.parametrize(
    ("row", "text", "category"),
    [
        # a database's own object that is not there stays the database's
        (
            "supabase-mcp/blind12/005",
            'Failed to run sql query: ERROR:  42P01: relation "public.orders" does not exist',
            Category.COMMAND_FAILED,
        ),
        (
            "langroid/blind12/007",
            'ERROR: Tool call failed - [\'Error executing tool query: relation "invoices_2025" '
            "does not exist']",
            Category.COMMAND_FAILED,
        ),
        # a quoted file path that does not exist is a missing file, not a value naming nothing
        (
            "amazon-q-cli/blind12/004",
            "Failed to validate tool parameters: 'src/handlers/refund.rs' does not exist",
            Category.FILE_NOT_FOUND,
        ),
        # a quoted name stays the value's
        ("crush/b27/023", "Symbol 'parseConfig' not found", Category.PARAM_INVALID_VALUE),
        (
            "crush/b27/027",
            "symbol 'Handler.ServeHTTP' not found in internal/server/http.go",
            Category.PARAM_INVALID_VALUE,
        ),
    ],
)
def test_a_quoted_name_not_found_is_a_value_unless_a_table_or_a_path(
    row: str, text: str, category: Category
) -> None:
    assert CLASSIFIER.classify(text).category is category, row


@pytest.mark.parametrize(
    "text",
    [
        '{"tool_name": "search_engine", "tool_result": "Found 3 pages about \'connection refused\' '
        'errors in nginx"}',
        '{"results": [{"title": "Rate limit exceeded errors"}], "warning": "results truncated to '
        '50"}',
    ],
)
def test_an_agents_record_or_a_warning_key_of_a_success_stays_a_success(text: str) -> None:
    assert not classify_result(text, tool="search").failed


@pytest.mark.parametrize(
    ("row", "text", "category"),
    [
        # an id that names nothing there, in the tool's own words
        (
            "context7/blind12/002",
            '{"content": [{"type": "text", "text": "The library you are trying to access does '
            'not exist. Please try with a different library ID."}]}',
            Category.PARAM_INVALID_VALUE,
        ),
        (
            "context7/blind12/007",
            "Documentation not found or not finalized for this library. This might have happened "
            "because you used an invalid Context7-compatible library ID.",
            Category.PARAM_INVALID_VALUE,
        ),
        (
            "exa-mcp-server/blind12/006",
            '{"success": false, "error": "Research not found", "message": "The specified research '
            'ID was not found. Please check the ID or start a new research task."}',
            Category.PARAM_INVALID_VALUE,
        ),
        # a credential missing is a login missing, not an argument (vercel-ai/blind11/006's rule)
        (
            "firecrawl-mcp-server/blind12/003",
            '{"content": [{"type": "text", "text": "Error: No API key provided"}], "isError": true}',
            Category.PERMISSION_DENIED,
        ),
    ],
)
def test_an_id_naming_nothing_is_a_value_and_a_missing_key_a_login(
    row: str, text: str, category: Category
) -> None:
    assert CLASSIFIER.classify(text).category is category, row


@pytest.mark.parametrize(
    ("row", "text"),
    [
        # the parser's word on one line, inside the layer that names the patch being parsed
        (
            "aider/blind13/001",
            "Error parsing patch content: Invalid line prefix in update section: def "
            "load_config(path: str) -> dict:",
        ),
        (
            "aider/blind13/002",
            "Error parsing patch content: Unknown or misplaced line while parsing patch: diff "
            "--git a/src/server/app.py b/src/server/app.py",
        ),
        # the grammar's own marker and operation, whatever the sentence around them says
        ("openai-agents/blind13/001", "apply_patch input must end with '*** End Patch'"),
        (
            "openai-agents/blind13/012",
            "Delete File patch for config/legacy_settings.yaml must not include a diff",
        ),
        # siblings from other sources (batch 55): in another language, and unread before
        ("zoo-code/batch55/001", "patch 的最后一行必须是 '*** End Patch'"),
        ("codex/batch55/002", "Patch must start with *** Begin Patch"),
        ("codex/batch55/003", "Update File Error: Duplicate Path: src/index.ts"),
    ],
)
def test_a_message_in_a_patchs_own_grammar_is_the_edits(row: str, text: str) -> None:
    assert CLASSIFIER.classify(text).category is Category.DIFF_MATCH_FAILED, row
    assert SOURCE_FREE.classify(text).category is Category.DIFF_MATCH_FAILED, row


@pytest.mark.parametrize(
    ("row", "text", "category"),
    [
        # a value of a patch tool that is not the patch: its path, its move target
        (
            "openai-agents/blind11/005",
            "Apply patch operation move_to must be a non-empty path.",
            Category.PARAM_INVALID_VALUE,
        ),
        (
            "openai-agents/blind13/003",
            "apply_patch path must not escape root: ../../deploy/secrets.env",
            Category.PERMISSION_DENIED,
        ),
        # the file a Delete File section names is not there: the file's, not the patch's
        (
            "aider/blind2/003",
            "Error parsing patch content: Delete File Error - file not found: app/legacy/cron.py",
            Category.FILE_NOT_FOUND,
        ),
    ],
)
def test_a_patch_tools_other_faults_keep_their_own_category(
    row: str, text: str, category: Category
) -> None:
    assert CLASSIFIER.classify(text).category is category, row


def test_a_patch_read_back_by_a_file_tool_is_a_success() -> None:
    # fast-agent/batch55/002: the grammar's markers in a file tool's output
    text = "*** Begin Patch\n*** Update File: src/app.py\n@@ def main():\n-    x\n+    y\n*** End Patch"
    assert not classify_result(text, tool="read_text_file").failed


@pytest.mark.parametrize(
    ("row", "text"),
    [
        # the failed action's words, then the policy that refused it
        (
            "pydantic-ai/blind13/001",
            "Failed to fetch http://169.254.169.254/latest/meta-data/iam/security-credentials/: "
            "Access to cloud metadata service (169.254.169.254) is blocked for security reasons."
            "\n\nFix the errors and try again.",
        ),
        (
            "pydantic-ai/blind13/003",
            "Failed to fetch https://pastebin.com/raw/Xq81LmT2: Domain 'pastebin.com' is "
            "blocked.\n\nFix the errors and try again.",
        ),
        # the refused call named, then "blocked:" and the reason (batch 55)
        (
            "co-cli/batch55/002",
            "web_fetch blocked: URL resolves to a private or internal address.\n\nFix the errors "
            "and try again.",
        ),
    ],
)
def test_a_fetch_a_policy_refused_is_a_permission_not_the_network(row: str, text: str) -> None:
    assert CLASSIFIER.classify(text).category is Category.PERMISSION_DENIED, row


@pytest.mark.parametrize(
    ("row", "text"),
    [
        # the network's own failures after the same failed action stay the network's
        (
            "pydantic-ai/blind13/004",
            "Failed to fetch https://docs.internal-wiki.example/runbooks/oncall: DNS resolution "
            'failed for hostname "docs.internal-wiki.example": [Errno -2] Name or service not '
            "known\n\nFix the errors and try again.",
        ),
        (
            "pydantic-ai/blind7/003",
            "Failed to fetch https://status.example.net/api: [Errno 111] Connection refused\n\n"
            "Fix the errors and try again.",
        ),
        (
            "opencrust/batch55/002",
            "fetch failed: error sending request for url (http://127.0.0.1:9/)",
        ),
    ],
)
def test_a_fetch_the_network_failed_stays_the_networks(row: str, text: str) -> None:
    assert CLASSIFIER.classify(text).category is Category.NETWORK_ERROR, row


#: mcp-typescript-sdk/blind13/003: McpServer's tools/call result for a handler that returned
#: structuredContent with its text mirror; a pipeline the status lookup found failed.
_PIPELINE = {"pipeline": "release", "status": "failed", "failedJob": "e2e", "retryable": True}
_TYPED_RESULT = {"content": [{"type": "text", "text": json.dumps(_PIPELINE)}]}


def test_a_status_in_the_tools_typed_output_is_data_and_is_error_still_a_failure() -> None:
    typed = {**_TYPED_RESULT, "structuredContent": _PIPELINE}
    assert not classify_result(json.dumps(typed), tool="get_pipeline").failed
    assert not classify_result(typed, tool="get_pipeline").failed
    # fastmcp names the field in snake case
    snake = {**_TYPED_RESULT, "structured_content": _PIPELINE}
    assert not classify_result(snake, tool="get_pipeline").failed
    # the protocol's flag decides, whatever the output carries
    assert classify_result({**typed, "isError": True}, tool="get_pipeline").failed


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (
            "mcp-typescript-sdk/blind13/001",
            "Output validation error: Invalid structured content for tool get_forecast: "
            "daily.0.high_c: Invalid input: expected number, received string",
        ),
        ("mcp-python-sdk/batch55/001", "Output validation error: 'high_c' is a required property"),
        ("mcp-python-sdk/batch55/003", "Output validation error: '12.5' is not of type 'number'"),
    ],
)
def test_a_servers_check_of_its_tools_output_is_the_tools_failure(row: str, message: str) -> None:
    # what the validator says of the output (a missing property, a wrong type) is not said of
    # the model's arguments
    text = json.dumps({"content": [{"type": "text", "text": message}], "isError": True})
    assert unwrap(text).output_rejected, row
    assert CLASSIFIER.classify(text).category is Category.COMMAND_FAILED, row


def test_a_subagents_own_output_failing_its_schema_stays_the_models() -> None:
    # gemini-cli/dev18/006: complete_task's output, which the model wrote
    text = (
        'Output validation failed: {"formErrors":[],"fieldErrors":{"score":["Expected number, '
        'received string"]}}'
    )
    assert CLASSIFIER.classify(text).category is Category.PARAM_TYPE_MISMATCH


def test_a_scope_named_as_this_sessions_is_a_scope_the_call_left() -> None:
    # cline/blind13/001: the schedule tool's error body, its code a generic failure's
    text = json.dumps(
        {
            "kind": "scheduled",
            "ok": False,
            "operation": "delete",
            "error": {
                "code": "schedule_operation_failed",
                "message": "schedule is outside this session's workspace scope",
            },
        }
    )
    assert CLASSIFIER.classify(text).category is Category.PERMISSION_DENIED
    # a value outside its range stays a value
    assert CLASSIFIER.classify("Error: 420 is outside of the allowed range").category is (
        Category.PARAM_INVALID_VALUE
    )
