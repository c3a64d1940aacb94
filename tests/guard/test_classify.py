"""classify_error: every seed row and real agent/server/parser wording maps to its pattern."""

from __future__ import annotations

import pytest

from toolmend.guard import Interceptor, classify_error, classify_result
from toolmend.guard.classify import safe_identifier
from toolmend.guard.patterns import PATTERNS, Category

from .conftest import load_cases

CASES = load_cases("classify_error_cases.json")


@pytest.mark.parametrize("case", CASES, ids=[f"{c['source']}:{c['text'][:40]}" for c in CASES])
def test_error_text_is_classified_as_its_fixture_says(case: dict[str, object]) -> None:
    got = classify_error(case["text"], metadata=case.get("metadata"))  # type: ignore[arg-type]
    assert got.category == case["category"]
    for key in ("pattern_id", "variant", "param", "requested_tool"):
        if key in case:
            assert getattr(got, key) == case[key], key


def test_every_category_except_unclassified_has_a_pattern() -> None:
    covered = {p.category for p in PATTERNS}
    assert covered == set(Category) - {Category.UNCLASSIFIED}


def test_unknown_text_is_unclassified_with_zero_confidence() -> None:
    got = classify_error("the frobnicator declined politely")
    assert (got.category, got.confidence, got.pattern_id) == (
        "UNCLASSIFIED",
        0.0,
        "EI/UNCLASSIFIED/000",
    )


def test_structural_match_has_full_confidence_and_text_match_less() -> None:
    structural = classify_error("", metadata={"flag": "cwd_object"})
    textual = classify_error("ENOENT: no such file or directory")
    assert structural.confidence == 1.0
    assert 0.0 < textual.confidence < 1.0


def test_classification_is_deterministic() -> None:
    text = "EACCES: permission denied, open 'x'\nENOENT: no such file or directory"
    assert {classify_error(text) for _ in range(5)} == {classify_error(text)}


def test_exceptions_are_classified_by_type_and_message() -> None:
    got = classify_error(FileNotFoundError(2, "No such file or directory"))
    assert got.category == "FILE_NOT_FOUND"


def test_a_captured_parameter_name_that_is_not_an_identifier_is_dropped() -> None:
    got = classify_error("Missing value for required parameter 'path ignore previous'")
    assert got.category == "PARAM_MISSING"
    assert got.param in (None, "path")
    assert safe_identifier("a<b>") is None
    assert safe_identifier("file_path") == "file_path"


def test_tool_not_found_for_an_mcp_routed_tool_is_mcp_tool_missing() -> None:
    got = classify_error("Tool xyz not found", tool="use_mcp_tool")
    assert got.category == "MCP_TOOL_MISSING"


def test_very_long_error_text_is_scanned_head_and_tail_only() -> None:
    text = "x" * 100_000 + "\nPermissionError: [Errno 13] Permission denied"
    assert classify_error(text).category == "PERMISSION_DENIED"


def test_a_capitalised_thing_not_found_is_not_a_missing_program() -> None:
    assert classify_error("npx not found. Please ensure Node.js is installed").variant == (
        "missing_dependency"
    )
    assert classify_error("Page not found").variant != "missing_dependency"
    assert classify_error("Resource not found").variant != "missing_dependency"


def test_a_failure_stated_plainly_in_no_familys_words_gets_the_plain_variant() -> None:
    for text in (
        "Failed to frobnicate the widget cache",
        "Error: the widget cache is not configured",
        "Widget sync failed: upstream said no",
        "An unexpected error occurred while syncing widgets",
    ):
        got = classify_error(text)
        assert (got.category, got.pattern_id, got.plain) == (
            "COMMAND_FAILED",
            "EI/COMMAND_FAILED/003",
            True,
        ), text
    guidance = Interceptor().on_error({"name": "sync_widgets"}, "Failed to frobnicate widgets")
    assert guidance.disposition == "correct_once" and "`sync_widgets`" in guidance.render()


def test_a_known_family_in_any_layer_wins_over_a_plain_failure() -> None:
    got = classify_error("Error executing tool sync: Failed to sync: EACCES: permission denied")
    assert got.category == "PERMISSION_DENIED"
    assert not got.plain


def test_an_envelope_status_wins_over_a_plain_failure() -> None:
    assert classify_error('{"error": {"code": 413, "message": "Upload failed: try later"}}') == (
        classify_error('{"error": {"code": 413, "message": "frobnicated"}}')
    )


def test_a_content_tools_output_that_only_starts_like_a_plain_failure_is_content() -> None:
    log = "Error: widget cache is not configured (logged at 12:00)\nrecovered at 12:01\n"
    assert classify_error(log).plain
    assert not classify_result(log, tool="read_file").failed


#: One sentence per way many agents say a thing (written for this test, not harvested): a noun
#: with "not found / does not exist / could not locate", a size "too large / over the limit /
#: larger than", "X is required / must be provided", "should be an integer / expected X, got Y",
#: and the other families' plain shapes.
PLAIN_SHAPES = [
    ("FILE_NOT_FOUND", "Unable to locate file src/app.py"),
    ("FILE_NOT_FOUND", "Could not locate the file 'config.yaml'"),
    ("FILE_NOT_FOUND", "The file src/app.py does not exist."),
    ("FILE_NOT_FOUND", "No file exists at path src/app.py"),
    ("FILE_NOT_FOUND", "src/app.py: no such file"),
    ("FILE_NOT_FOUND", "Cannot find file: src/app.py"),
    ("FILE_NOT_FOUND", "Directory 'build' does not exist"),
    ("FILE_NOT_FOUND", "Error: path 'docs/x.md' not found in workspace"),
    ("FILE_NOT_FOUND", "Failed to read src/app.py: ENOENT"),
    ("TOOL_NOT_FOUND", "Unable to locate tool 'grep_files'"),
    ("TOOL_NOT_FOUND", "Tool 'grep_files' does not exist."),
    ("TOOL_NOT_FOUND", "No such tool: grep_files"),
    ("TOOL_NOT_FOUND", "Could not find a tool named grep_files"),
    ("TOOL_NOT_FOUND", "The requested tool grep_files is not available"),
    ("TOOL_NOT_FOUND", "Function 'grep_files' is not defined in the toolset"),
    ("TOOL_NOT_FOUND", "'grep_files' is not a registered tool"),
    ("TOOL_NOT_FOUND", "Tool grep_files not registered"),
    ("TOOL_NOT_FOUND", "There is no tool called grep_files."),
    ("MCP_TOOL_MISSING", "MCP server 'github' does not exist"),
    ("MCP_TOOL_MISSING", "Could not find MCP server github"),
    ("MCP_TOOL_MISSING", "No MCP server named 'github' is connected"),
    ("MCP_TOOL_MISSING", "Unable to locate MCP server github"),
    ("MCP_TOOL_MISSING", "MCP server github is offline"),
    ("MCP_TOOL_MISSING", "Tool 'create_issue' not found on MCP server 'github'"),
    ("CONTEXT_OVERFLOW", "File too large: 12 MB (limit 5 MB)"),
    ("CONTEXT_OVERFLOW", "Output exceeds the limit of 30000 characters"),
    ("CONTEXT_OVERFLOW", "The response is over the 1 MB limit"),
    ("CONTEXT_OVERFLOW", "content length 5242881 is greater than the maximum of 5242880"),
    ("CONTEXT_OVERFLOW", "Payload size 12MB exceeds maximum allowed 10MB"),
    ("CONTEXT_OVERFLOW", "Result truncated: output larger than 100000 bytes"),
    ("CONTEXT_OVERFLOW", "file is larger than the maximum allowed size (10 MB)"),
    ("CONTEXT_OVERFLOW", "Maximum file size of 10MB exceeded"),
    ("PARAM_MISSING", "path is required"),
    ("PARAM_MISSING", "The 'path' argument is required."),
    ("PARAM_MISSING", "Missing required parameter: path"),
    ("PARAM_MISSING", "missing required property 'path'"),
    ("PARAM_MISSING", "must have required property 'path'"),
    ("PARAM_MISSING", "Required field 'path' not provided"),
    ("PARAM_MISSING", "No value supplied for required argument 'path'"),
    ("PARAM_MISSING", "Parameter 'path' must be provided"),
    ("PARAM_MISSING", "You must provide a path"),
    ("PARAM_MISSING", "argument 'path' was not specified"),
    ("PARAM_TYPE_MISMATCH", "expected string, got number"),
    ("PARAM_TYPE_MISMATCH", "Expected type 'integer' for 'limit' but received 'string'"),
    ("PARAM_TYPE_MISMATCH", "limit must be of type integer"),
    ("PARAM_TYPE_MISMATCH", "'limit' should be an integer"),
    ("PARAM_TYPE_MISMATCH", "Invalid type for 'limit': expected integer, received string"),
    ("PARAM_TYPE_MISMATCH", "TypeError: limit must be int, not str"),
    ("PARAM_TYPE_MISMATCH", "Parameter limit has wrong type: expected number"),
    ("PARAM_TYPE_MISMATCH", "Value for 'tags' is not an array"),
    ("PARAM_INVALID_VALUE", "limit must be between 1 and 100"),
    ("PARAM_INVALID_VALUE", "Invalid value for 'mode': 'fast'. Expected one of: safe, full"),
    ("PARAM_INVALID_VALUE", "mode should be one of ['safe', 'full']"),
    ("PARAM_INVALID_VALUE", "Value 'fast' is not allowed for mode"),
    ("PARAM_INVALID_VALUE", "offset out of range"),
    ("PARAM_INVALID_VALUE", "Unexpected argument 'foo'"),
    ("PARAM_INVALID_VALUE", "Unknown parameter: foo"),
    ("PERMISSION_DENIED", "Access to /etc/shadow is not permitted"),
    ("PERMISSION_DENIED", "You do not have permission to write to this file"),
    ("PERMISSION_DENIED", "Refusing to write outside the workspace"),
    ("PERMISSION_DENIED", "Write access denied for path /etc/hosts"),
    ("PERMISSION_DENIED", "This command is not allowed by your configuration"),
    ("PERMISSION_DENIED", "Unauthorized: invalid token"),
    ("TIMEOUT", "The operation timed out after 60s"),
    ("TIMEOUT", "Command did not finish within 120 seconds and was terminated"),
    ("TIMEOUT", "Execution time limit exceeded"),
    ("TIMEOUT", "deadline of 30s exceeded"),
    ("TIMEOUT", "Timed out waiting for the process"),
    ("NETWORK_ERROR", "Network error: connection refused"),
    ("NETWORK_ERROR", "Could not reach http://127.0.0.1:9/ (connection refused)"),
    ("NETWORK_ERROR", "HTTP 503 from upstream"),
    ("NETWORK_ERROR", "Host unreachable"),
    ("NETWORK_ERROR", "DNS lookup failed for api.local"),
    ("DIFF_MATCH_FAILED", "Search text not found in file"),
    ("DIFF_MATCH_FAILED", "The provided old_string does not appear in src/a.py"),
    ("DIFF_MATCH_FAILED", "Could not locate the text to replace in src/a.py"),
    ("DIFF_MATCH_FAILED", "old_str matched 3 times; it must be unique"),
    ("DIFF_MATCH_FAILED", "Edit failed: no match for the search block"),
    ("DIFF_MATCH_FAILED", "The search string was not found verbatim"),
    ("FILE_EXISTS", "Cannot create src/a.py: a file with that name already exists"),
    ("FILE_EXISTS", "Refusing to overwrite existing file src/a.py"),
    ("RATE_LIMITED", "Too many requests, slow down"),
    ("RATE_LIMITED", "You have exceeded your request quota"),
    ("COMMAND_FAILED", "Process exited with status 1"),
    ("COMMAND_FAILED", "The command returned a non-zero exit code (2)"),
    (
        "INVALID_JSON_ARGUMENTS",
        "Arguments are not valid JSON: Unexpected token } in JSON at position 10",
    ),
    ("INVALID_JSON_ARGUMENTS", "Could not parse tool arguments as JSON"),
    (
        "DIFF_MATCH_FAILED",
        "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>",
    ),
    (
        "CONTEXT_OVERFLOW",
        "File content (31234 tokens) exceeds maximum allowed tokens (25000). Please use offset and limit parameters to read specific portions of the file.",
    ),
    (
        "PARAM_MISSING",
        "InputValidationError: Read failed due to the following issue:\nThe required parameter `file_path` is missing",
    ),
    (
        "PARAM_TYPE_MISMATCH",
        "InputValidationError: Edit failed due to the following issue:\nThe parameter `replace_all` type is expected as `boolean` but provided as `string`",
    ),
    ("TIMEOUT", "Error: Command timed out after 2m 0.0s"),
    ("PERMISSION_DENIED", "Interrupted by user"),
    (
        "TOOL_NOT_FOUND",
        "Model tried to call unavailable tool 'grep_files'. Available tools: read, write, bash",
    ),
    ("PARAM_INVALID_VALUE", "Error: Unknown agent type: reviewer is not a valid agent type"),
    (
        "INVALID_JSON_ARGUMENTS",
        'Invalid input for tool read: JSON parsing failed: Text: {"path": "a",}. Error message: JSON Parse error: Expected \'}\'',
    ),
    (
        "PARAM_MISSING",
        'The bash tool was called with invalid arguments: [\n  {\n    "code": "invalid_type",\n    "expected": "string",\n    "received": "undefined",\n    "path": [\n      "command"\n    ],\n    "message": "Required"\n  }\n].\nPlease rewrite the input so it satisfies the expected schema.',
    ),
    ("MCP_TOOL_MISSING", "Error: Extension 'developer' is not enabled"),
    ("TOOL_NOT_FOUND", "Could not find tool 'fetch_url' in any extension"),
    ("MCP_TOOL_MISSING", "Extension github not found"),
    ("PERMISSION_DENIED", "This command requires approval"),
    ("PERMISSION_DENIED", "Tool use was cancelled by the user"),
    (
        "FILE_NOT_FOUND",
        "File does not exist. Note: your current working directory is /home/dev/app.",
    ),
    ("FILE_NOT_FOUND", "<tool_use_error>File does not exist.</tool_use_error>"),
    (
        "DIFF_MATCH_FAILED",
        "<tool_use_error>String to replace not found in file.\nString: foo()</tool_use_error>",
    ),
    ("CONTEXT_OVERFLOW", "Output too large (312 KB). Showing first 30000 characters."),
    ("NETWORK_ERROR", "Request failed with status code 404"),
    ("NETWORK_ERROR", "Error: Failed to fetch URL http://127.0.0.1:8000/docs: HTTP 404 Not Found"),
    ("TIMEOUT", "Error: Request aborted after 30000ms"),
    ("TIMEOUT", "AbortError: The operation was aborted due to timeout"),
    ("COMMAND_FAILED", "Error: Shell command failed with exit code 2"),
    ("PARAM_INVALID_VALUE", "Error: offset must be a non-negative number"),
    ("PARAM_INVALID_VALUE", "Error: limit must be a positive integer"),
    ("FILE_NOT_FOUND", "ENOENT: no such file or directory, scandir '/home/dev/app/lib'"),
    ("PERMISSION_DENIED", "EPERM: operation not permitted, unlink '/home/dev/app/.git/index.lock'"),
    ("FILE_EXISTS", "EEXIST: file already exists, mkdir '/home/dev/app/dist'"),
    ("COMMAND_FAILED", "ENOSPC: no space left on device, write"),
    (
        "DIFF_MATCH_FAILED",
        "Error: No changes made: old_string and new_string are exactly the same.",
    ),
    ("DIFF_MATCH_FAILED", "Failed to apply diff: hunk 2 failed to apply"),
    ("DIFF_MATCH_FAILED", "The diff could not be applied cleanly"),
    (
        "DIFF_MATCH_FAILED",
        "Edit rejected: the replacement target was not found verbatim in the file",
    ),
    ("PARAM_INVALID_VALUE", "Error: 'depth' must be a positive integer, got -1"),
    ("PARAM_TYPE_MISMATCH", "Error: 'depth' must be an integer, got 'two'"),
    ("TOOL_NOT_FOUND", "Error: tool 'browser_open' is not in the list of available tools"),
    ("MODEL_STUCK_LOOP", "Agent stopped after reaching the maximum of 25 tool calls"),
    ("MODEL_STUCK_LOOP", "Loop detected: the same tool call was made 5 times in a row"),
    ("RATE_LIMITED", "Error: 529 overloaded, please retry later"),
    (
        "CONTEXT_OVERFLOW",
        "This model's maximum context length is 8192 tokens. However, your messages resulted in 9123 tokens.",
    ),
    ("PERMISSION_DENIED", "Write operations are not permitted in read-only mode"),
    ("PERMISSION_DENIED", "Operation not allowed in plan mode"),
    ("SHELL_INTEGRATION", "Shell integration is unavailable; command output could not be read"),
    (
        "FILE_NOT_FOUND",
        "Error: Cannot read properties of undefined (reading 'split') while reading file missing.txt: ENOENT",
    ),
]


@pytest.mark.parametrize(("category", "text"), PLAIN_SHAPES, ids=[t[:40] for _, t in PLAIN_SHAPES])
def test_a_family_matches_the_plain_shapes_of_its_sentence(category: str, text: str) -> None:
    assert classify_error(text).category == category


def test_inside_a_command_result_with_an_exit_status_the_arguments_of_the_call_are_not_blamed() -> (
    None
):
    bare = "error: option 'depth' must be an integer"
    ran = f"<returncode>2</returncode>\n<output>\n{bare}\n</output>"
    assert classify_error(bare).category == "PARAM_TYPE_MISMATCH"
    assert classify_error(ran).category == "COMMAND_FAILED"


def test_an_exception_line_of_the_tools_own_code_is_a_plain_failure() -> None:
    got = classify_error("KeyError: 'user_id'")
    assert (got.category, got.plain) == ("COMMAND_FAILED", True)


#: Sibling wordings of the families widened from the second blind split's misses (batch 22):
#: other phrasings of the same failure than the one text each family was read from.
BLIND2_SIBLINGS = [
    ("Error: empty hunk in patch for src/a.py", "DIFF_MATCH_FAILED"),
    ("DELETE change for src/old.ts has no lines", "DIFF_MATCH_FAILED"),
    ("Tool reference `mcp__github__create_pr` does not exist", "MCP_TOOL_MISSING"),
    ("Failed to activate extension: developer", "MCP_TOOL_MISSING"),
    ("function 'grep_files' is not in the registry", "TOOL_NOT_FOUND"),
    (
        "The tool call could not be parsed; use the correct tool call format.",
        "INVALID_TOOL_PROTOCOL",
    ),
    ("Error: context length would be exceeded by this request", "CONTEXT_OVERFLOW"),
    ("Unable to read the terminal output", "SHELL_INTEGRATION"),
    ("Writes are not allowed in ask mode", "PERMISSION_DENIED"),
    ("Edits are disabled in read-only mode", "PERMISSION_DENIED"),
    ("Path /etc/passwd is outside the sandbox", "PERMISSION_DENIED"),
    ("Refused: src/.env is a protected file", "PERMISSION_DENIED"),
    ('Field \'priority\' should be either "low" or "high"', "PARAM_INVALID_VALUE"),
    ("The `pattern` argument is not a valid glob", "PARAM_INVALID_VALUE"),
    ("At most 10 files are allowed per request", "PARAM_INVALID_VALUE"),
    ("Step s-2 cannot reference itself", "PARAM_INVALID_VALUE"),
    ("Error: linking would create a cycle", "PARAM_INVALID_VALUE"),
    ("Extension not supported: .heic", "PARAM_INVALID_VALUE"),
    ("Couldn't fetch the page at http://127.0.0.1:9/", "NETWORK_ERROR"),
    ("curl: (23) Failure writing output to destination", "COMMAND_FAILED"),
    ("yaml.scanner.ScannerError: while scanning a simple key", "COMMAND_FAILED"),
    ("mv: cannot move 'lib' to a subdirectory of itself, 'lib/old/lib'", "COMMAND_FAILED"),
    ("Failed to start shell: spawn /usr/local/bin/fish ENOENT", "COMMAND_FAILED"),
    ("Code execution failed at line 'x = d[\"k\"]' due to: KeyError: 'k'", "COMMAND_FAILED"),
    ("rsync: unknown option -- Z", "COMMAND_FAILED"),
    ("Error calling tool fetch_page", "COMMAND_FAILED"),
    (
        "<returncode>1</returncode>\n<output>\nerror: path not found: docs/x.md\n</output>",
        "FILE_NOT_FOUND",
    ),
    ("Error parsing patch: Update File Error - file not found: lib/a.py", "FILE_NOT_FOUND"),
    ("sh: 1: tsc: not found", "COMMAND_FAILED"),
]


#: Sibling wordings of the families widened from batch 24's misses (OpenHands, the GitHub MCP
#: server, CrewAI, AutoGen, LiteLLM, cargo, docker, ruff, tsc, eslint): other phrasings, word
#: orders and nouns of the same failure than the text each family was read from.
BATCH24_SIBLINGS = [
    ("Repeating the same arguments as the previous call; try another approach.", "DUPLICATE_CALL"),
    ("Skipped: same input as the last call", "DUPLICATE_CALL"),
    ("The tool run_query exceeded its call limit and cannot be called again.", "MODEL_STUCK_LOOP"),
    ("search_web has used up its usage budget for this task", "MODEL_STUCK_LOOP"),
    ("You attempted to call the function lookup_user, which does not exist.", "TOOL_NOT_FOUND"),
    ("Pick one of the following tools: read_file, list_dir", "TOOL_NOT_FOUND"),
    ("Action open_browser is not registered", "TOOL_NOT_FOUND"),
    ("Either path or url must be provided", "PARAM_MISSING"),
    ("query or id is required", "PARAM_MISSING"),
    ("argument count is not of type int, got str", "PARAM_TYPE_MISMATCH"),
    ("value limit cannot be converted to integer", "PARAM_TYPE_MISMATCH"),
    ("invalid integer value for 'depth': deep", "PARAM_TYPE_MISMATCH"),
    ("Invalid page value: 'last'. Expected a number.", "PARAM_TYPE_MISMATCH"),
    ("--since and --until are mutually exclusive", "PARAM_INVALID_VALUE"),
    ("recursive is only valid when depth is set", "PARAM_INVALID_VALUE"),
    ("A task cannot link to itself", "PARAM_INVALID_VALUE"),
    ("title must be at most 256 characters", "PARAM_INVALID_VALUE"),
    ("labels must not exceed 20 items", "PARAM_INVALID_VALUE"),
    ("Use the 'cursor' parameter for the next page instead", "PARAM_INVALID_VALUE"),
    ("invalid due date: 'next week'", "PARAM_INVALID_VALUE"),
    ("start must be in ISO 8601 format", "PARAM_INVALID_VALUE"),
    ("Cannot decode report.xlsx as UTF-8", "PARAM_INVALID_VALUE"),
    ("Cannot run several commands in one call; send them one by one.", "PARAM_INVALID_VALUE"),
    ("No code found to execute in the message", "PARAM_INVALID_VALUE"),
    ("model 'llama-9000' not found", "PARAM_INVALID_VALUE"),
    ("Unknown LLM provider: foo", "PARAM_INVALID_VALUE"),
    ("422 Unprocessable Entity: field 'email' is invalid", "PARAM_INVALID_VALUE"),
    ("The app does not have permission to read this repository", "PERMISSION_DENIED"),
    ("Resource not accessible by integration", "PERMISSION_DENIED"),
    ("PUT https://api.example.com/v1/items/3: 401 Bad credentials []", "PERMISSION_DENIED"),
    ("The merge has not been approved. Nothing was merged.", "PERMISSION_DENIED"),
    ("Write access is denied for /srv/data", "PERMISSION_DENIED"),
    ("DELETE https://api.example.com/v1/items/3: 404 Not Found []", "NETWORK_ERROR"),
    ("Unable to launch the filesystem MCP server: spawn npx ENOENT", "MCP_TOOL_MISSING"),
    (
        "The action_input is not a valid key-value mapping; send a JSON object.",
        "INVALID_JSON_ARGUMENTS",
    ),
    ("Invalid tool arguments: {'path': }", "INVALID_JSON_ARGUMENTS"),
    (
        "panic: runtime error: index out of range [3] with length 0\n\ngoroutine 1 [running]:\n"
        "main.main()",
        "COMMAND_FAILED",
    ),
    ("thread 'worker' panicked at src/lib.rs:9:5:\nmissing field `id`", "COMMAND_FAILED"),
    ("Error: unknown shorthand flag: 'z' in -z\nSee 'kubectl get --help'.", "COMMAND_FAILED"),
    ("error TS5025: Unknown compiler option '--strictt'.", "COMMAND_FAILED"),
    ("Found 2 errors in 1 file (checked 3 source files)", "COMMAND_FAILED"),
    ("2 files would be reformatted, 5 files already formatted", "COMMAND_FAILED"),
    ("Could not find './tests/unit.spec.js'", "FILE_NOT_FOUND"),
]


#: Sibling wordings of the families widened from the third blind split's misses (batch 23):
#: other nouns, word orders and programs' forms of the same failure than the text each was read
#: from (a sandbox's refused builtins, Go type names, context windows, stuck agents, missing
#: actions, existing destinations, private addresses, sign-in, missing-or-empty keys, count
#: bounds, unresolved revisions, bare relative paths, quiet commands).
BLIND3_SIBLINGS = [
    # a code sandbox refusing Python's own builtins is a refusal, a made-up name a missing tool
    (
        "InterpreterError: Forbidden function evaluation: 'exec' is not among the explicitly allowed tools or defined/imported in the preceding code",
        "PERMISSION_DENIED",
    ),
    (
        "InterpreterError: Forbidden function evaluation: '__import__' is not among the explicitly allowed tools or defined/imported in the preceding code",
        "PERMISSION_DENIED",
    ),
    ("invalid value type for 'temperature' field: string", "PARAM_TYPE_MISMATCH"),
    ("unexpected type for 'options' parameter: []interface {}", "PARAM_TYPE_MISMATCH"),
    ("invalid tool call arguments type: map[string]interface {}", "PARAM_TYPE_MISMATCH"),
    ("The prompt is larger than the model's context window", "CONTEXT_OVERFLOW"),
    ("Messages longer than context length of the LLM", "CONTEXT_OVERFLOW"),
    ("max_completion_tokens must be at least 1, got -12.", "CONTEXT_OVERFLOW"),
    ("The agent seems stuck in an infinite loop; stopping.", "MODEL_STUCK_LOOP"),
    ("Model is stuck in a repetitive cycle", "MODEL_STUCK_LOOP"),
    ("The model did not return any tool call", "INVALID_TOOL_PROTOCOL"),
    ("LLM must produce an action", "INVALID_TOOL_PROTOCOL"),
    ("Target file already exists: out/report.csv", "FILE_EXISTS"),
    ("Cannot move: the destination path already exists", "FILE_EXISTS"),
    (
        "Refused to access http://127.0.0.1:8080/: private addresses are not allowed",
        "PERMISSION_DENIED",
    ),
    ("Loopback hosts are blocked", "PERMISSION_DENIED"),
    ("You are not logged in. Run `app login` first.", "PERMISSION_DENIED"),
    ("sign-in required to use this model", "PERMISSION_DENIED"),
    ("content is empty or missing", "PARAM_MISSING"),
    ("Every edit must include an old_string", "PARAM_MISSING"),
    ("count 0 is below the minimum of 1", "PARAM_INVALID_VALUE"),
    ("page_size 250 exceeds the maximum of 100", "PARAM_INVALID_VALUE"),
    ("Too many paths in request (42). Maximum is 20.", "PARAM_INVALID_VALUE"),
    ("'options' needs an array with 2-4 items", "PARAM_INVALID_VALUE"),
    ("Revision 'v9.9' did not resolve to a commit", "PARAM_INVALID_VALUE"),
    ("src/missing/module.py was not found", "FILE_NOT_FOUND"),
    ("The process has produced no output for 120 seconds", "TIMEOUT"),
    ("[Command still running, no new output after 10s]", "TIMEOUT"),
]


#: Siblings of batch 25's misses (`FIRST_SCORINGS.md`): the other messages of the same code
#: paths (aider's function coders, the Agents SDK's Codex tool, crewai-tools, Roo Code's
#: embedders, the MCP TypeScript SDK, the time server) and the same sentences in other tools'
#: words; and program crash reports of the same runtimes (Perl's `die`, a C `assert()`, Maven,
#: make's status 127, a native stack).
BATCH25_SIBLINGS = [
    ("Missing path parameter: {'content': 'x = 1'}", "PARAM_MISSING"),
    ("Missing `updated_lines` parameter: {'path': 'a.py'}", "PARAM_MISSING"),
    ('Local image inputs must include a non-empty "path" field.', "PARAM_MISSING"),
    ("Search query must be provided.", "PARAM_MISSING"),
    ("No search query provided. Please provide a query to search for.", "PARAM_MISSING"),
    ("Error: Specify either 'url' or 'html'", "PARAM_MISSING"),
    ('Unknown function_call name="search", use name="replace_lines"', "TOOL_NOT_FOUND"),
    ("unknown function call: fetch_page", "TOOL_NOT_FOUND"),
    ("MCP error -32602: Prompt summarize disabled", "MCP_TOOL_MISSING"),
    ("Could not find the project root directory.", "FILE_NOT_FOUND"),
    ("Error: Unable to access jarfile target/server.jar", "FILE_NOT_FOUND"),
    ("A branch named 'release' already exists.", "FILE_EXISTS"),
    ('Team with name "core" already exists', "FILE_EXISTS"),
    ("Path must not escape the working directory", "PERMISSION_DENIED"),
    ("Input was rejected by the sandbox: allow_network=False", "PERMISSION_DENIED"),
    ('"text" is not allowed when type is "local_image".', "PARAM_INVALID_VALUE"),
    ("'offset' is not valid together with 'cursor'", "PARAM_INVALID_VALUE"),
    ("SERPER_API_KEY is not set", "PERMISSION_DENIED"),
    ("GITHUB_TOKEN environment variable is missing", "PERMISSION_DENIED"),
    ("Subprocess did not complete in time", "TIMEOUT"),
    ("Connection idle for 300 seconds, closing", "TIMEOUT"),
    ("Qdrant server is not running at http://127.0.0.1:6333", "NETWORK_ERROR"),
    ("embedding model not found: text-embedding-4", "PARAM_INVALID_VALUE"),
    ("query parameter validation failed", "PARAM_INVALID_VALUE"),
    ("Resource URI file:///logs/app.log is invalid", "PARAM_INVALID_VALUE"),
    ("output file must have a .csv extension", "PARAM_INVALID_VALUE"),
    ("Error: line 120 is past the end of the file", "PARAM_INVALID_VALUE"),
    ("offset 900 exceeds the number of lines in the file", "PARAM_INVALID_VALUE"),
    ("No task found with id 42", "PARAM_INVALID_VALUE"),
    ("No session found for name 'main'.", "PARAM_INVALID_VALUE"),
    ("Cost limit exceeded ($5.00 of $5.00)", "RATE_LIMITED"),
    ("Module not available in the sandbox: numpy", "COMMAND_FAILED"),
    ("/usr/bin/ld: cannot find -lssl: No such file or directory", "COMMAND_FAILED"),
    ("Error while parsing the response", "COMMAND_FAILED"),
    ("Client must be connected before listing tools", "COMMAND_FAILED"),
    ("Web search is disabled in the settings.", "COMMAND_FAILED"),
    ('Can\'t call method "name" on an undefined value at lib/App.pm line 42.', "COMMAND_FAILED"),
    ("Not an ARRAY reference at script.pl line 7, <STDIN> line 2.", "COMMAND_FAILED"),
    ("server: src/pool.c:88: pool_get: Assertion `p != NULL' failed.", "COMMAND_FAILED"),
    (
        "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.11.0:"
        "compile (default-compile) on project api: Compilation failure -> [Help 1]",
        "COMMAND_FAILED",
    ),
    ("/bin/sh: 1: protoc: not found\nmake: *** [Makefile:4: gen] Error 127", "COMMAND_FAILED"),
    ("node: bad option: --inspect-brk=x", "COMMAND_FAILED"),
    ("error: unexpected argument '--relese' found", "COMMAND_FAILED"),
    # messages of the same code paths that batch 25 did not harvest (Roo Code's embedders and
    # checkpoints, crewai-tools, autogen's executors, gemini-cli's plan mode)
    ("Model amazon.titan-embed-text-v9 not found in Amazon Bedrock", "PARAM_INVALID_VALUE"),
    ("Failed to rerank documents: timeout", "TIMEOUT"),
    ("Ollama host not found: http://gpu-box:11434", "NETWORK_ERROR"),
    ("Unexpected approval mode: yolo", "PARAM_INVALID_VALUE"),
    ("Shadow git repo not initialized", "COMMAND_FAILED"),
    ("Incremental scan failed, is scanner initialized?", "COMMAND_FAILED"),
    ("Error starting query execution: warehouse is stopped", "COMMAND_FAILED"),
    ("Pip install was cancelled", "COMMAND_FAILED"),
    ("User dismissed ask_user dialog without answering.", "PERMISSION_DENIED"),
    ("Tool web_search is currently disabled for agent researcher", "TOOL_NOT_FOUND"),
]

#: Blind4's redis misses (batch 26, guard11): a redis server's error reply is read by its code
#: (the reply's first word), not by its wording; siblings are other replies the server sends.
BLIND4_SIBLINGS = [
    ("ERR unknown subcommand 'FOO'. Try CONFIG HELP.", "COMMAND_FAILED"),
    ("NOSCRIPT No matching script. Please use EVAL.", "COMMAND_FAILED"),
    ("EXECABORT Transaction discarded because of previous errors.", "COMMAND_FAILED"),
    ("CROSSSLOT Keys in request don't hash to the same slot", "COMMAND_FAILED"),
    ("BUSYKEY Target key name already exists.", "COMMAND_FAILED"),
    # a refused value is the redis command's failure, not a tool-call parameter's
    ("(error) ERR value is out of range, must be positive", "COMMAND_FAILED"),
    ("NOAUTH Authentication required.", "PERMISSION_DENIED"),
    (
        "(error) NOPERM User alice has no permissions to run the 'flushall' command",
        "PERMISSION_DENIED",
    ),
]


#: Batch 27 (guard10): other wordings of the failures its misses showed (crush, SWE-agent, Open
#: Interpreter, agno), in other tools' words: a search text counted in places, an edit's two
#: sides the same, every edit of a batch failed, a tool "is invalid", the choices listed after
#: a refusal, a URL's scheme, a point out of bounds, "must be valid JSON", too many matches to
#: show, a status field that says only "error", a file name that starts with "string".
BATCH27_SIBLINGS = [
    ("Error: search_text matches 2 places in lib/util.py. Add more context.", "DIFF_MATCH_FAILED"),
    ("old_str was found in 4 locations; make it unique", "DIFF_MATCH_FAILED"),
    ("replacement text is the same as the original text", "DIFF_MATCH_FAILED"),
    ("The old and new strings are identical.", "DIFF_MATCH_FAILED"),
    ("no changes made - all 2 replacements failed", "DIFF_MATCH_FAILED"),
    ("only the first edit may have an empty old_string", "DIFF_MATCH_FAILED"),
    ("Tool browser_click is invalid", "TOOL_NOT_FOUND"),
    ("function get_wether is not valid", "TOOL_NOT_FOUND"),
    ("The supported modes for the shell tool are: run, stop", "PARAM_INVALID_VALUE"),
    ("Unknown browser action 'hover'. Allowed actions: click, type, scroll", "PARAM_INVALID_VALUE"),
    ("mode must be 'fast' or 'safe'", "PARAM_INVALID_VALUE"),
    ("URLs must begin with https:// or http://", "PARAM_INVALID_VALUE"),
    ("Position 900, 40 is out of bounds", "PARAM_INVALID_VALUE"),
    ("background job not found: 12", "PARAM_INVALID_VALUE"),
    (
        "Invalid `offset` parameter: -4. It should be within the range of lines of the file: [0, 9]",
        "PARAM_INVALID_VALUE",
    ),
    ("Error: Path must be valid JSON", "INVALID_JSON_ARGUMENTS"),
    ('More than 200 results found for "TODO". Please narrow down the query.', "CONTEXT_OVERFLOW"),
    ('{"status": "failed", "message": "Browser is not ready yet, try again."}', "COMMAND_FAILED"),
    ("Error: File src/strings.py not found", "FILE_NOT_FOUND"),
]

#: Batch 31 (guard12, harvested as its batch 28): the other messages of the code paths its misses came from (vLLM's request
#: validators, TGI's `ValidationError`s, Ollama's Anthropic layer), and the same refusals in other
#: servers' and clients' words: the body's machine type, the request field it names, the SDK's
#: exception class and the Python repr of the body it prints are read before the wording.
BATCH31_SIBLINGS = [
    (
        '{"error":{"message":"Batch chat completions do not support beam search. Please set '
        '`use_beam_search` to False. (parameter=use_beam_search)","type":"BadRequestError",'
        '"param":"use_beam_search","code":400}}',
        "PARAM_INVALID_VALUE",
    ),
    (
        "Error code: 400 - {'error': {'message': 'min_tokens must be greater than or equal to 0, "
        "got -1.', 'type': 'BadRequestError', 'param': None, 'code': 400}}",
        "PARAM_INVALID_VALUE",
    ),
    (
        '{"error":"Input validation error: `typical_p` must be > 0.0 and < 1.0",'
        '"error_type":"validation"}',
        "PARAM_INVALID_VALUE",
    ),
    (
        '{"error":"Input validation error: `top_n_tokens` must be >= 0 and <= 5. Given: 10",'
        '"error_type":"validation"}',
        "PARAM_INVALID_VALUE",
    ),
    (
        '{"error":{"code":400,"message":"Cannot use tools with stream","type":"invalid_request_error"}}',
        "PARAM_INVALID_VALUE",
    ),
    # the tool definitions of the request, named by the body's `param` or a request path
    (
        '{"error":{"message":"Invalid value for `function`: `None` in `tool_choice`! (parameter='
        'tool_choice.function)","type":"BadRequestError","param":"tool_choice.function","code":400}}',
        "INVALID_TOOL_PROTOCOL",
    ),
    (
        "Invalid 'tools[3].function.description': string too long. Expected a string with maximum "
        "length 1024, but got a string with length 4200 instead.",
        "INVALID_TOOL_PROTOCOL",
    ),
    (
        '{"error": {"code": 400, "message": "Invalid JSON payload received. Unknown name '
        "\\\"additionalProperties\\\" at 'tools[0].function_declarations[2].parameters': Cannot "
        'find field.", "status": "INVALID_ARGUMENT"}}',
        "INVALID_TOOL_PROTOCOL",
    ),
    (
        "400 Tool 3 function has invalid 'parameters' schema: 'object' is not valid under any of "
        "the given schemas\n\nFailed validating 'anyOf' in metaschema['allOf'][3]['properties']",
        "INVALID_TOOL_PROTOCOL",
    ),
    # the shape of the history
    (
        '{"type":"error","error":{"type":"invalid_request_error","message":"tool_use block missing '
        "required 'name' field\"}}",
        "INVALID_TOOL_PROTOCOL",
    ),
    (
        "Conversation roles must alternate user/assistant/user/assistant/...",
        "INVALID_TOOL_PROTOCOL",
    ),
    # the clients' exception classes and a spent balance
    (
        "openai.RateLimitError: Error code: 429 - {'error': {'message': 'Rate limit reached for "
        "requests', 'type': 'requests', 'param': None, 'code': 'rate_limit_exceeded'}}",
        "RATE_LIMITED",
    ),
    (
        "anthropic.AuthenticationError: Error code: 401 - {'type': 'error', 'error': {'type': "
        "'authentication_error', 'message': 'invalid x-api-key'}}",
        "PERMISSION_DENIED",
    ),
    ("openai.APITimeoutError: Request timed out.", "TIMEOUT"),
    # a setting only a server flag allows, a value a mode fixes, a field that takes one literal
    (
        '{"error":{"code":500,"message":"parallel_tool_calls requires --jinja flag",'
        '"type":"server_error"}}',
        "PARAM_INVALID_VALUE",
    ),
    ("best_of must be 1 when using greedy sampling, got 2.", "PARAM_INVALID_VALUE"),
    ("400 \"'response_format.type' must be 'json_object'\"", "PARAM_INVALID_VALUE"),
    (
        'API Error: 402 {"error":{"message":"Insufficient credits - top up your balance",'
        '"type":"insufficient_quota","code":"insufficient_credits"}}',
        "RATE_LIMITED",
    ),
    (
        '{"error":{"message":"Provider returned error","code":429,"metadata":{"raw":"{\\"error'
        '\\":{\\"message\\":\\"Rate limit exceeded\\"}}","provider_name":"Groq"}}}',
        "RATE_LIMITED",
    ),
]


#: Batch 28 (guard13): other wordings of the failures its misses showed (VS Code Copilot Chat, Kilo
#: Code, Qwen Code, the Vercel AI SDK, DSPy), in other tools' words: a search text found nowhere or
#: several times, edits of one call that overlap, an empty search text for an existing file, a
#: terminal that is gone, a path configured to be ignored, a read-only setting, a required value
#: named with a parenthesis, an id that names nothing, an id of a call the history does not have,
#: a signature that did not verify, a reply whose fields could not be read, an input of a kind the
#: tool does not take, and VS Code's and "X failed:" envelopes.
BATCH28_SIBLINGS = [
    ("Could not find the matching text to replace in src/a.ts", "DIFF_MATCH_FAILED"),
    ("Several occurrences were found for old_string; add more context", "DIFF_MATCH_FAILED"),
    ("Edits 2 and 3 overlap in src/app.py", "DIFF_MATCH_FAILED"),
    ("replacement 1 conflicts with an earlier replacement", "DIFF_MATCH_FAILED"),
    ("The file exists: pass a non-empty old_text to edit it", "DIFF_MATCH_FAILED"),
    ("old_str and new_str must be different", "DIFF_MATCH_FAILED"),
    ("The terminal has been disposed", "SHELL_INTEGRATION"),
    ("xterm is not ready yet", "SHELL_INTEGRATION"),
    ("The file secrets/.env is configured to be excluded from the agent", "PERMISSION_DENIED"),
    ("Option 'sandbox' is read-only.", "PERMISSION_DENIED"),
    ("Error: Missing required command parameter for exec.", "PARAM_MISSING"),
    ('"path" (the file to read, relative to the workspace) must be provided.', "PARAM_MISSING"),
    ("No running background job found with ID job-7", "PARAM_INVALID_VALUE"),
    ("The process did not exit before the deadline", "TIMEOUT"),
    ("No tool result found for tool call ID call_1", "INVALID_TOOL_PROTOCOL"),
    ("JWT signature verification failed", "PERMISSION_DENIED"),
    ("Could not parse the model's response into the expected fields", "INVALID_TOOL_PROTOCOL"),
    ("Cannot open PDF files with read_file. Use read_pdf instead.", "PARAM_INVALID_VALUE"),
    ("Use this tool only for Jupyter notebooks", "PARAM_INVALID_VALUE"),
    ("Please use an absolute path", "PARAM_INVALID_VALUE"),
    ("Only JSON and YAML files are supported", "PARAM_INVALID_VALUE"),
    ("branch must start with 'feature/'", "PARAM_INVALID_VALUE"),
    ("Invalid arguments.", "PARAM_INVALID_VALUE"),
    ("Invalid session ID", "PARAM_INVALID_VALUE"),
    (
        "ERROR while calling tool: File does not exist: /x/y.ts\nPlease check your input and try again.",
        "FILE_NOT_FOUND",
    ),
    ("Patch application failed: Missing File: src/a.ts", "FILE_NOT_FOUND"),
]


#: Batch 29 (guard13): the same failures as Mastra, Semantic Kernel and Copilot Chat's other tools
#: word them, in other words: a tool's own output refused by its schema (the tool failed, not
#: the call), arguments said to be malformed or not JSON, a name not among the provided tools, too
#: few arguments, "no X field", an invalid path or id followed by the value, a value "not provided
#: or empty", a quoted "Only ... is supported".
BATCH29_SIBLINGS = [
    (
        "Tool output validation failed for fetch-page. The tool returned invalid output:\n"
        "- title: Invalid input: expected string, received number",
        "COMMAND_FAILED",
    ),
    ("The function arguments are malformed", "INVALID_JSON_ARGUMENTS"),
    ("Arguments must be valid JSON", "INVALID_JSON_ARGUMENTS"),
    ("The function `lookup` is not one of the available functions", "TOOL_NOT_FOUND"),
    ("3 arguments are required and only 1 was received", "PARAM_MISSING"),
    ("Invalid request: no 'query' field", "PARAM_MISSING"),
    ("Invalid project path /srv/app/x", "PARAM_INVALID_VALUE"),
    ("Row id: 'r-9' is invalid", "PARAM_INVALID_VALUE"),
    ("The url was not provided or is empty", "PARAM_MISSING"),
    ('Only "json" output is supported', "PARAM_INVALID_VALUE"),
]


#: The fourth blind split's agent misses (Kilo Code, Qwen Code, the Vercel AI SDK) after reading,
#: in other tools' words (guard13): an operation named as a gerund before its cause ("Error
#: creating cron job: ..."), a failure with advice before its cause ("Failed to apply edit ...
#: Please ... Request timed out."), a refactoring that has nothing for the selection or cannot find
#: the named symbol, an address resolved to a private range, no token available, a URL without a
#: host, an exact count of parts, a path outside the current project.
BLIND4_AGENT_SIBLINGS = [
    ('Error saving settings: Value "42" out of bounds [1-10]', "PARAM_INVALID_VALUE"),
    ('Error deleting branch: Invalid branch name: "feat x"', "PARAM_INVALID_VALUE"),
    (
        "Failed to apply the patch with the fast model. Please retry with a smaller edit. "
        "Connection error.",
        "NETWORK_ERROR",
    ),
    ("Could not format the file. Try saving it first. Request timed out after 10s", "TIMEOUT"),
    ("No rename refactor available for the selected symbol", "PARAM_INVALID_VALUE"),
    ("Unable to find symbol 'UserService' in src/app.ts", "PARAM_INVALID_VALUE"),
    ("Host example.internal resolved to a private IP address", "PERMISSION_DENIED"),
    ("No access token available for GitHub", "PERMISSION_DENIED"),
    ("URL must include a scheme", "PARAM_INVALID_VALUE"),
    ("Schedule must have exactly 3 parts", "PARAM_INVALID_VALUE"),
    ("Path is outside the current project: /etc", "PERMISSION_DENIED"),
]


#: Batch 30 (guard13): Zoo Code's and Letta's refusals in other words: the same change back and
#: forth, a per-task limit of a tool reached, a search text worded "old content", a search text
#: carrying the line numbers of a numbered view, a patch without usable hunks, "must specify a
#: non-empty X", and Letta's `{"status": "Failed", "message": "Error executing function x: ..."}`.
BATCH30_SIBLINGS = [
    ("Change refused: ping-ponging between 'fast' and 'safe' modes", "MODEL_STUCK_LOOP"),
    ("Mode switch refused: oscillation detected", "MODEL_STUCK_LOOP"),
    ("The limit of 5 web searches per task has been reached", "MODEL_STUCK_LOOP"),
    ("old content 'retries: 3' not found in config block", "DIFF_MATCH_FAILED"),
    ("old_string contains line numbers from the read view", "DIFF_MATCH_FAILED"),
    ("No valid hunks in patch", "DIFF_MATCH_FAILED"),
    ("You must specify a non-empty title", "PARAM_MISSING"),
    (
        '{"status": "Failed", "message": "Error executing function send_email: ValueError: '
        'Missing required argument", "time": "2026-03-02 10:14:07 AM UTC+0000"}',
        "PARAM_MISSING",
    ),
]


#: The fifth blind split's families (guard14, after the split was read): archivers' missing
#: members, a file in a format the program cannot read, a refused password, curl's and
#: requests' HTTP statuses, optparse's and click's refused options, a test run whose failing test
#: raised something else, an edit text that occurs more than once, an agent's ignore file, a
#: result counted in characters, a tool invoked the wrong way, a registered tool switched off.
BLIND5_SIBLINGS = [
    ("tar: src/settings.py: Not found in archive", "FILE_NOT_FOUND"),
    ("caution: filename not matched:  docs/setup.md", "FILE_NOT_FOUND"),
    ("\tzip warning: name not matched: dist\n\nzip error: Nothing to do!", "FILE_NOT_FOUND"),
    ("zipfile.BadZipFile: File is not a zip file", "COMMAND_FAILED"),
    (
        "tar: This does not look like a tar archive\ntar: Exiting with failure status",
        "COMMAND_FAILED",
    ),
    ("tar: Error opening archive: Unrecognized archive format", "COMMAND_FAILED"),
    ("PIL.UnidentifiedImageError: cannot identify image file 'logo.png'", "COMMAND_FAILED"),
    ("bash: ./server: cannot execute binary file: Exec format error", "COMMAND_FAILED"),
    ("skipping: secrets/key.pem  incorrect password", "PERMISSION_DENIED"),
    ("Error: invalid username or password", "PERMISSION_DENIED"),
    ("curl: (22) The requested URL returned error: 403", "PERMISSION_DENIED"),
    (
        "requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: "
        "http://127.0.0.1:8000/me",
        "PERMISSION_DENIED",
    ),
    (
        "requests.exceptions.HTTPError: 503 Server Error: Service Unavailable for url: "
        "http://127.0.0.1:8000/jobs",
        "NETWORK_ERROR",
    ),
    (
        "I ran this command:\n\npip download --frob x\n\nAnd got this output:\n\nno such option: --frob\n",
        "COMMAND_FAILED",
    ),
    (
        "Usage: app [OPTIONS]\nTry 'app --help' for help.\n\nError: No such option: --frob",
        "COMMAND_FAILED",
    ),
    (
        "Exit code: 1\nOutput:\n=================================== FAILURES ===\n"
        "E       FileNotFoundError: [Errno 2] No such file or directory: 'fixtures/a.json'\n"
        "FAILED tests/test_load.py::test_load - FileNotFoundError\n1 failed in 0.12s",
        "COMMAND_FAILED",
    ),
    (
        'thrown: "Exceeded timeout of 5000 ms for a test."\n\nTests:       1 failed, 4 passed, 5 '
        "total",
        "COMMAND_FAILED",
    ),
    ("Found 2 matches. Please provide more context to make the match unique.", "DIFF_MATCH_FAILED"),
    ("old_str `return None` is not unique in the file", "DIFF_MATCH_FAILED"),
    ("The path 'secrets/prod.env' is excluded by .geminiignore", "PERMISSION_DENIED"),
    ("src/.env matches a pattern in .aiderignore", "PERMISSION_DENIED"),
    ("Command output has too many lines (52000). Maximum line count is 2000.", "CONTEXT_OVERFLOW"),
    (
        "edit rejected: diff written without an explicit call to apply_patch",
        "INVALID_TOOL_PROTOCOL",
    ),
    ("Tool search_docs disabled", "TOOL_NOT_FOUND"),
    (
        '{"jsonrpc": "2.0", "id": 3, "error": {"code": -32602, "message": "Tool search_docs '
        'disabled"}}',
        "MCP_TOOL_MISSING",
    ),
    (
        "MCP error -32602: Input validation error: Invalid arguments for tool list_issues: "
        'state: Invalid option: expected one of "open"|"closed"',
        "PARAM_INVALID_VALUE",
    ),
    (
        "Invalid arguments for tool get_page: limit: Too big: expected number to be <=100",
        "PARAM_INVALID_VALUE",
    ),
    (
        "Invalid arguments for tool get_page: limit: Invalid input: expected number, received "
        "string",
        "PARAM_TYPE_MISMATCH",
    ),
]


#: Batch 33's families (guard14): jsonschema-go's validation errors as the MCP Go SDK returns
#: them, a tool's own output refused by its schema, mcp-go's argument getters, kotlinx's token
#: errors at a field's path, serde's unknown variant, an argument the tool does not take, a path
#: that escapes the workspace or lies under no root, a bare "tool not found", a Python
#: SyntaxError's str form, a "non-existent file".
BATCH33_SIBLINGS = [
    (
        'validating "arguments": validating root: required: missing properties: ["repo"]',
        "PARAM_MISSING",
    ),
    (
        'validating root: validating /properties/page: type: two has type "string", want "integer"',
        "PARAM_TYPE_MISMATCH",
    ),
    (
        "validating root: validating /properties/sort: enum: newest does not equal any of: "
        "[asc desc]",
        "PARAM_INVALID_VALUE",
    ),
    ('validating root: unexpected additional properties ["force"]', "PARAM_INVALID_VALUE"),
    (
        'validating tool output: validating root: validating /properties/count: type: "3" has '
        'type "string", want "integer"',
        "COMMAND_FAILED",
    ),
    ('required parameter "owner" was not provided', "PARAM_MISSING"),
    ('argument "limit" is not an integer', "PARAM_TYPE_MISMATCH"),
    ('item 0 in argument "ids" is not an int', "PARAM_TYPE_MISMATCH"),
    (
        "Unexpected JSON token at offset 11: Expected quotation mark '\"', but had '1' instead "
        "at path: $.city",
        "PARAM_TYPE_MISMATCH",
    ),
    ("unknown variant `weekly`, expected one of `daily`, `hourly`", "PARAM_INVALID_VALUE"),
    ("Arg color is not in the tool's arguments", "PARAM_INVALID_VALUE"),
    ('Path "../secrets/.env" escapes the project root', "PERMISSION_DENIED"),
    ("/var/log/syslog is not under any of the allowed roots", "PERMISSION_DENIED"),
    ("Error: tool not found", "TOOL_NOT_FOUND"),
    (
        '{"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "tool not found"}}',
        "MCP_TOOL_MISSING",
    ),
    ("unexpected indent (report.py, line 14)", "COMMAND_FAILED"),
    ("Cannot open non-existent directory: fixtures/v2", "FILE_NOT_FOUND"),
]


#: Batch 34's families (guard14): @cfworker/json-schema's lines as LangChain.js details them, a
#: tool's input said not to match its schema, a tool-call limit, a context window exceeded, CrewAI's
#: envelope and its output check, edits whose result is unchanged, a file too long to read whole,
#: a service that could not be connected to, DuckDB's error classes, a binary file read as text, a
#: numbered item missing from a repository.
BATCH34_SIBLINGS = [
    ('#/required: Instance does not have required property "query".', "PARAM_MISSING"),
    (
        'Details: #/properties/limit/type: Instance type "string" is invalid. Expected "integer".',
        "PARAM_TYPE_MISMATCH",
    ),
    ('#/properties/unit/enum: Instance does not match any of ["c","f"].', "PARAM_INVALID_VALUE"),
    ("The arguments do not match the tool's schema", "PARAM_INVALID_VALUE"),
    ("Tool call limits reached for this run", "MODEL_STUCK_LOOP"),
    ("The prompt exceeded the context window of the model", "CONTEXT_OVERFLOW"),
    (
        "I encountered an error while trying to use the tool. This was the error: [Errno 2] No "
        "such file or directory: 'a.csv'.\n Tool read_csv accepts these inputs: Tool Name: read_csv",
        "FILE_NOT_FOUND",
    ),
    ("Failed to validate or serialize output from tool get_rates: missing field", "COMMAND_FAILED"),
    ("All edits would result in the same content", "DIFF_MATCH_FAILED"),
    ("Output too long; use offset and limit to read part of it", "CONTEXT_OVERFLOW"),
    ("Error connecting to Postgres at 127.0.0.1:5432", "NETWORK_ERROR"),
    ('Parser Error: syntax error at or near "SELEC"', "COMMAND_FAILED"),
    ("The file is not valid UTF-8 text", "COMMAND_FAILED"),
    ("Could not find issue #88 in repository acme/api", "FILE_NOT_FOUND"),
    ("start line 420 is beyond the end of the file (310 lines)", "PARAM_INVALID_VALUE"),
]


#: Batch 39 (guard17): siblings of the families its misses showed (each wording is another message
#: of the same function or enum in the source the batch row came from, or the same sentence shape
#: elsewhere): a quoted value named invalid (Ollama's name/source/destination checks), an invalid
#: kind of value, neither of two alternatives given, a checksum that does not match (Ollama's
#: digest, docker's layer sha), a position that exceeds what is there (Codex's list_dir and
#: read_file), the `jsonschema` npm package's lines under LM Studio's "Failed to parse arguments
#: for tool" (every keyword's message), and the MCP TypeScript SDK client's checks of a tool's
#: structured output (the tool's fault, not the call's), a program that could not be launched
#: because it is not installed (Codex's ripgrep, Rust's spawn errors).
BATCH39_SIBLINGS = [
    ('source "bad name!" is invalid', "PARAM_INVALID_VALUE"),
    ("model `gpt-4o:latest:x` is not valid", "PARAM_INVALID_VALUE"),
    ("invalid parameter type", "PARAM_TYPE_MISMATCH"),
    ("Error: neither url nor path was provided", "PARAM_MISSING"),
    ("sha256 mismatch for layer 3f2a9c", "COMMAND_FAILED"),
    ("checksum mismatch: expected 1a2b, got 3c4d", "COMMAND_FAILED"),
    ("start_line exceeds file length", "PARAM_INVALID_VALUE"),
    ("page 7 exceeds the total of 3", "PARAM_INVALID_VALUE"),
    (
        'Failed to parse arguments for tool "search":\nparams.limit must be less than or equal to 50',
        "PARAM_INVALID_VALUE",
    ),
    (
        'Failed to parse arguments for tool "search":\n'
        'params is not allowed to have the additional property "verbose"',
        "PARAM_INVALID_VALUE",
    ),
    (
        'Failed to parse arguments for tool "tag":\nparams.tags is not of a type(s) array',
        "PARAM_TYPE_MISMATCH",
    ),
    (
        'Failed to parse arguments for tool "ship":\nparams.address requires property "zip"',
        "PARAM_MISSING",
    ),
    (
        "MCP error -32602: Structured content does not match the tool's output schema: "
        "temperature must be number",
        "COMMAND_FAILED",
    ),
    ("Error: could not spawn `node`: No such file or directory (os error 2)", "COMMAND_FAILED"),
    ("deno not available. Ensure deno is installed and on your PATH.", "COMMAND_FAILED"),
]

ALL_SIBLINGS = (
    BLIND2_SIBLINGS
    + BATCH24_SIBLINGS
    + BLIND3_SIBLINGS
    + BATCH25_SIBLINGS
    + BATCH27_SIBLINGS
    + BLIND4_SIBLINGS
    + BATCH28_SIBLINGS
    + BATCH29_SIBLINGS
    + BLIND4_AGENT_SIBLINGS
    + BATCH30_SIBLINGS
    + BATCH31_SIBLINGS
    + BLIND5_SIBLINGS
    + BATCH33_SIBLINGS
    + BATCH34_SIBLINGS
    + BATCH39_SIBLINGS
)


@pytest.mark.parametrize(("text", "category"), ALL_SIBLINGS, ids=[t[:40] for t, _ in ALL_SIBLINGS])
def test_a_widened_family_covers_other_wordings_of_the_same_failure(
    text: str, category: str
) -> None:
    assert classify_error(text).category == category


#: Neighbours the widened families must leave alone: a search that found no files is not an empty
#: patch, another program's extension is not an MCP server, an agent's own "Unknown option" is
#: about the call, not a program's crash.
NEIGHBOURS = [
    ("No files found", "FILE_NOT_FOUND"),
    ("Failed to load extension: vec0", "COMMAND_FAILED"),
    ("Error: Unknown option --foo", "PARAM_INVALID_VALUE"),
    # a compiler's conversion error and a JSON parser's numeric literal are the program's own
    ("B.java:1: error: incompatible types: String cannot be converted to int", "COMMAND_FAILED"),
    (
        "jq: error (at f.json:5): Invalid numeric literal at EOF at line 1, column 5",
        "COMMAND_FAILED",
    ),
    # a lint run that found nothing is not a failure to report
    ("Found 0 errors.", "UNCLASSIFIED"),
    # a model that is there but not allowed is a refusal, not an unknown model
    ("Project p1 does not have access to model gpt-4o", "PERMISSION_DENIED"),
]


#: Neighbours of batch 23's families: a made-up name in the same sandbox sentence is still a
#: missing tool, a serde type error and a bare "unsupported type" keep their categories, git's
#: own "destination path exists", a zero (not negative) token budget, a Python module that is not
#: a file; and a program's usage errors (npm, make, cargo, git, tsc), which the corpus labels the
#: program's failure, not an invalid value of the call.
BLIND3_NEIGHBOURS = [
    # a name the model made up is still a missing tool
    (
        "InterpreterError: Forbidden function evaluation: 'search_arxiv' is not among the explicitly allowed tools or defined/imported in the preceding code",
        "TOOL_NOT_FOUND",
    ),
    ('invalid type: string "x", expected u32', "PARAM_TYPE_MISMATCH"),
    ("Unsupported type: rectangle", "PARAM_INVALID_VALUE"),
    ("fatal: destination path 'repo' already exists and is not an empty directory.", "FILE_EXISTS"),
    ("max_tokens must be at least 1, got 0.", "PARAM_INVALID_VALUE"),
    ("Error: could not find module 'numpy.linalg'", "COMMAND_FAILED"),
    # a program's usage error is the program's failure (the corpus labels them so)
    ('npm error Missing script: "typecheck"', "COMMAND_FAILED"),
    ("make: *** No rule to make target 'deploy'.  Stop.", "COMMAND_FAILED"),
    ("error: no such command: `tset`", "COMMAND_FAILED"),
    ("fatal: pathspec 'src/legacy.py' did not match any files", "COMMAND_FAILED"),
    ("error TS5023: Unknown compiler option '--strictest'.", "COMMAND_FAILED"),
    # and so is a program that cannot find its own project file (cargo's manifest, eslint's config)
    ("error: could not find `Cargo.toml` in `/srv/app` or any parent directory", "COMMAND_FAILED"),
    (
        "Oops! Something went wrong! :(\n\nESLint couldn't find an eslint.config.* file.",
        "COMMAND_FAILED",
    ),
    ("Request timed out after 30 seconds", "TIMEOUT"),
]

#: Neighbours of batch 25's families: values that exclude each other stay invalid values, not
#: "at least one of"; an agent's "Unknown option" is about the call; a missing makefile, and a
#: file Perl's `die` names, are the missing file; a refusal "when" running somewhere is still a
#: refusal; an MCP resource that is not there is a missing file.
BATCH25_NEIGHBOURS = [
    ("provide either 'after' or 'before', not both", "PARAM_INVALID_VALUE"),
    ("Error: Unknown option --foo", "PARAM_INVALID_VALUE"),
    ("make: build.mk: No such file or directory", "FILE_NOT_FOUND"),
    ("Cannot open data/users.csv: No such file or directory at -e line 1.", "FILE_NOT_FOUND"),
    ("Network access is not allowed when running in the sandbox", "PERMISSION_DENIED"),
    # an MCP resource that is not there is a missing file, as "Unknown resource: X" is
    ("MCP error -32602: Resource template notes not found", "FILE_NOT_FOUND"),
    # a search text not found is an edit that did not match; a model id that contains "text" is not
    ("old_string not found in src/app.py", "DIFF_MATCH_FAILED"),
]

#: Neighbours of the redis reply codes: a refused connection is still the network's, and an SQL
#: error saying "permission denied" keeps its category.
BLIND4_NEIGHBOURS = [
    ("Could not connect to Redis at 127.0.0.1:6379: Connection refused", "NETWORK_ERROR"),
    ("Output: ERROR: permission denied for table users", "PERMISSION_DENIED"),
]


#: Batch 27's neighbours: "Tool input is invalid" blames the arguments, not a tool's name; a
#: search text not found is still an edit that did not match; a program's "index out of bounds"
#: and npm's "Unknown command" stay the program's failure; a JSON argument error stays one.
BATCH27_NEIGHBOURS = [
    ("Tool input is invalid: missing field 'path'", "PARAM_MISSING"),
    ("search text not found in src/a.py", "DIFF_MATCH_FAILED"),
    ("Invalid JSON argument: expected ',' at line 1", "INVALID_JSON_ARGUMENTS"),
    ("shell not found: sh-2", "COMMAND_FAILED"),
    (
        "thread 'main' panicked at src/main.rs:4:21:\nindex out of bounds: the len is 3 but the "
        "index is 5",
        "COMMAND_FAILED",
    ),
    (
        'Unknown command: "frobnicate"\n\nTo see a list of supported npm commands, run:',
        "COMMAND_FAILED",
    ),
]

#: Batch 31's neighbours: a tool's own "Invalid 'path'" is its argument, not a request path; a
#: machine code or wording that names the failure wins over the body's "invalid_request_error";
#: an HTTP client's redirect limit, a module system's "Cannot use import", a server's 500 and a
#: tool that takes one call per message keep their categories; an argument named "tools" that is
#: missing is a missing argument.
BATCH31_NEIGHBOURS = [
    ("Invalid 'path': must be an absolute path", "PARAM_INVALID_VALUE"),
    (
        '{"error": {"message": "Rate limit reached for gpt-4o", "type": "invalid_request_error", '
        '"code": "rate_limit_exceeded"}}',
        "RATE_LIMITED",
    ),
    (
        '{"error":{"message":"This model\'s maximum context length is 4096 tokens.",'
        '"type":"invalid_request_error","param":"messages","code":null}}',
        "CONTEXT_OVERFLOW",
    ),
    ("Too many redirects (max 5)", "NETWORK_ERROR"),
    ("SyntaxError: Cannot use import statement outside a module", "COMMAND_FAILED"),
    (
        "Error code: 500 - {'error': {'message': 'Internal server error', 'type': "
        "'InternalServerError', 'param': None, 'code': 500}}",
        "NETWORK_ERROR",
    ),
    ("Only one tool call is allowed per message", "INVALID_TOOL_PROTOCOL"),
    ("tools is required", "PARAM_MISSING"),
    # a tool definition's name refused by pattern is the tool list's, not an edit's search text
    (
        "Invalid 'tools[2].function.name': string does not match pattern. Expected a string that "
        "matches the pattern '^[a-zA-Z0-9_-]+$'.",
        "INVALID_TOOL_PROTOCOL",
    ),
]


#: Batch 28's neighbours: an invalid API key stays a refusal, a program's missing script and a
#: merge conflict stay the program's failures, "Only one tool call" stays a protocol rule, a
#: timeout inside VS Code's envelope stays a timeout, a JSON argument error stays one.
BATCH28_NEIGHBOURS = [
    ("Only admins are allowed to run this", "PERMISSION_DENIED"),
    ("Invalid API key", "PERMISSION_DENIED"),
    ('Command failed: npm test\nnpm ERR! Missing script: "test"', "COMMAND_FAILED"),
    ("CONFLICT (content): Merge conflict in src/a.ts", "COMMAND_FAILED"),
    ("Only one tool call is allowed per message", "INVALID_TOOL_PROTOCOL"),
    (
        "ERROR while calling tool: Request timed out\nPlease check your input and try again.",
        "TIMEOUT",
    ),
    ("Tool call arguments could not be parsed as JSON", "INVALID_JSON_ARGUMENTS"),
    ("Setting up the terminal failed", "COMMAND_FAILED"),
]

#: Neighbours of those: a compiler's bare "cannot find symbol" stays the program's error, an OS
#: error after "Error reading X:" stays a missing file, and a search text not found stays an edit
#: that did not match when advice follows it.
BLIND4_AGENT_NEIGHBOURS = [
    (
        "App.java:1: error: cannot find symbol\n  symbol:   variable cnt\n  location: class App\n"
        "1 error",
        "COMMAND_FAILED",
    ),
    ("Error reading config: [Errno 2] No such file or directory: 'c.toml'", "FILE_NOT_FOUND"),
    (
        "Could not find the text to replace. Please re-read the file. Then retry.",
        "DIFF_MATCH_FAILED",
    ),
]

#: Batch 30's neighbours: a program's own named thing that already exists (a git tag, an SQL
#: relation) stays the program's failure, not an existing file.
BATCH30_NEIGHBOURS = [
    ("fatal: tag 'v9' already exists", "COMMAND_FAILED"),
    ('Output: ERROR:  relation "users" already exists\nExit Code: 1', "COMMAND_FAILED"),
]

#: Batch 29's neighbours: a hook's output validation with no word of a tool's result keeps the
#: wrong type it names (the corpus labels it so), an invalid API key stays a refusal, a missing
#: file stays one.
BATCH29_NEIGHBOURS = [
    (
        'Output validation failed: {"formErrors":[],"fieldErrors":{"score":["Expected number, '
        'received string"]}}',
        "PARAM_TYPE_MISMATCH",
    ),
    ("Invalid API key provided: sk-abc", "PERMISSION_DENIED"),
    ("Error: No such file or directory: 'notes.md'", "FILE_NOT_FOUND"),
]


#: The fifth blind split's neighbours: a program's own "Error: Invalid value" line is not a zod
#: issue, a password mentioned in passing is no refusal, a JSON-RPC answer that is a result is
#: no error, a passing test run stays quiet, an archive listing is no missing member.
BLIND5_NEIGHBOURS = [
    (
        "Exit code: 1\nOutput:\nError: Invalid value for variable\n\nenv must be one of dev, "
        "staging or prod.",
        "COMMAND_FAILED",
    ),
    ("Error: Reading the password file failed: EACCES", "PERMISSION_DENIED"),
    ('{"jsonrpc": "2.0", "id": 3, "result": {"content": [], "isError": false}}', "UNCLASSIFIED"),
    ("5 passed in 0.31s", "UNCLASSIFIED"),
    (
        "curl: (7) Failed to connect to 127.0.0.1 port 9 after 0 ms: Connection refused",
        "NETWORK_ERROR",
    ),
]


#: Batch 33's neighbours: a program that is not found stays a missing program, a TLS chain that
#: failed validating is no validation list (only a plain failure), a type named in a sentence about the code is no argument's type.
BATCH33_NEIGHBOURS = [
    ("sh: 1: jq: not found", "COMMAND_FAILED"),
    (
        "validating root certificate chain failed: x509: certificate signed by unknown authority",
        "COMMAND_FAILED",
    ),
    ("Value of the input is not a valid key-value dictionary", "INVALID_JSON_ARGUMENTS"),
]


#: Batch 34's neighbours: a bare "Invalid input" is the call's invalid value, not unparsed JSON; a
#: database's error class inside a command result stays the command's failure, not the call's.
BATCH34_NEIGHBOURS = [
    ("Error: Invalid input", "PARAM_INVALID_VALUE"),
    ("Binder Error: column x not found\nExit code: 1", "COMMAND_FAILED"),
]


#: Batch 39 (guard17): what its families must leave alone: JSON that is not valid under LM
#: Studio's prefix stays a JSON error, a missing file whose name has "params" in it stays missing,
#: a script that could not be run because it is not there is a missing file, not a program, and a
#: daemon to "ensure is installed and running" is one the caller could not reach.
BATCH39_NEIGHBOURS = [
    (
        'Failed to parse arguments for tool "x":\nUnexpected token } in JSON at position 12',
        "INVALID_JSON_ARGUMENTS",
    ),
    ("Error: File not found: params.json", "FILE_NOT_FOUND"),
    ("Failed to run script scripts/build.sh: No such file or directory", "FILE_NOT_FOUND"),
    (
        "Failed to connect to Podman. Please ensure Podman is installed and running.",
        "NETWORK_ERROR",
    ),
]

ALL_NEIGHBOURS = (
    NEIGHBOURS
    + BLIND3_NEIGHBOURS
    + BATCH25_NEIGHBOURS
    + BATCH27_NEIGHBOURS
    + BLIND4_NEIGHBOURS
    + BATCH28_NEIGHBOURS
    + BATCH29_NEIGHBOURS
    + BLIND4_AGENT_NEIGHBOURS
    + BATCH30_NEIGHBOURS
    + BATCH31_NEIGHBOURS
    + BLIND5_NEIGHBOURS
    + BATCH33_NEIGHBOURS
    + BATCH34_NEIGHBOURS
    + BATCH39_NEIGHBOURS
)


@pytest.mark.parametrize(
    ("text", "category"), ALL_NEIGHBOURS, ids=[t[:60] for t, _ in ALL_NEIGHBOURS]
)
def test_the_widened_families_leave_neighbouring_wordings_to_their_own_categories(
    text: str, category: str
) -> None:
    assert classify_error(text).category == category


#: Machine codes in an envelope whose message says only that something failed: errno names as
#: Node puts them in `code`, gRPC statuses, a model API's 5xx error type, a shell's exit status.
CODED_FAILURES = [
    ({"error": {"code": "ENOENT", "message": "Request failed"}}, "FILE_NOT_FOUND"),
    ({"error": {"code": "EACCES", "message": "operation failed"}}, "PERMISSION_DENIED"),
    ({"error": {"code": "ETIMEDOUT", "message": "request to the index failed"}}, "TIMEOUT"),
    ({"error": {"code": "ECONNREFUSED", "message": "Something went wrong"}}, "NETWORK_ERROR"),
    ({"error": {"message": "Deadline expired", "status": "DEADLINE_EXCEEDED"}}, "TIMEOUT"),
    (
        {"error": {"message": "Request had invalid value", "status": "INVALID_ARGUMENT"}},
        "PARAM_INVALID_VALUE",
    ),
    (
        {"type": "error", "error": {"type": "api_error", "message": "Internal server error"}},
        "NETWORK_ERROR",
    ),
    ("<returncode>127</returncode>\n<output>\n</output>", "COMMAND_FAILED"),
    (
        {"error": {"type": "edit_no_occurrence_found", "message": "Failed to edit"}},
        "DIFF_MATCH_FAILED",
    ),
    (
        {"error": {"type": "path_not_in_workspace", "message": "Error: operation failed"}},
        "PERMISSION_DENIED",
    ),
    ("Exit code: 126\nWall time: 0.1 seconds\nOutput:\n", "PERMISSION_DENIED"),
]


@pytest.mark.parametrize(
    ("error", "category"), CODED_FAILURES, ids=[str(e)[:50] for e, _ in CODED_FAILURES]
)
def test_a_machine_code_names_the_failure_when_the_message_does_not(
    error: object, category: str
) -> None:
    assert classify_error(error).category == category


def test_a_message_that_names_the_failure_wins_over_its_machine_code() -> None:
    # Node's `code: 'ENOENT'` on a spawn is a missing program, as its message says
    found = classify_error({"error": {"code": "ENOENT", "message": "spawn tsc ENOENT"}})
    assert found.category == "COMMAND_FAILED" and found.variant == "missing_dependency"
    assert classify_error("<returncode>127</returncode>\n<output>\n</output>").variant == (
        "missing_dependency"
    )


def test_a_model_servers_refusal_names_the_request_field_and_says_it_is_not_the_calls() -> None:
    refused = classify_error(
        '{"error":{"message":"temperature must be in [0, 2], got 2.5. (parameter=temperature, '
        'value=2.5)","type":"BadRequestError","param":"temperature","code":400}}'
    )
    assert (refused.category, refused.variant, refused.param) == (
        "PARAM_INVALID_VALUE",
        "request_refused",
        "temperature",
    )
    definition = classify_error(
        "openai.BadRequestError: Error code: 400 - {'error': {'message': \"Invalid schema for "
        "function 'get_me': In context=(), object schema missing properties.\", 'type': "
        "'invalid_request_error', 'param': 'tools[13].function.parameters', 'code': "
        "'invalid_function_parameters'}}"
    )
    assert (definition.category, definition.variant, definition.param) == (
        "INVALID_TOOL_PROTOCOL",
        "tool_definition",
        "tools.13.function.parameters",
    )
    guidance = Interceptor().on_error({"name": "bash"}, "Invalid 'tools[0].function.name': bad")
    assert guidance.disposition == "change_strategy"
    assert "`tools.0.function.name`" in guidance.render()
    # a tool's own nested argument, with no body around it, stays the call's invalid value
    own = classify_error("Invalid 'options.mode': must be one of 'fast' or 'safe'")
    assert (own.category, own.variant) == ("PARAM_INVALID_VALUE", "generic")


def test_a_history_the_server_refuses_gets_the_history_guidance_not_a_missing_field() -> None:
    for text in (
        'litellm.BadRequestError: MistralException - {"object":"error","message":"Unexpected '
        'role \'user\' after role \'tool\'","type":"invalid_request_message_order"}',
        '{"type":"error","error":{"type":"invalid_request_error","message":"tool_use block '
        "missing required 'id' field\"}}",
    ):
        got = classify_error(text)
        assert (got.category, got.variant) == ("INVALID_TOOL_PROTOCOL", "history_shape"), text


#: Successful outputs in the words of batch 39's families (guard17): a count of no mismatches, a
#: "neither ... changed" status, a note that quotes an invalid name.
BATCH39_SUCCESSES = [
    ("verified 12 layers: 0 digest mismatches", "pull"),
    ("neither cache nor lockfile changed; nothing to do", "sync"),
    ('{"valid": true, "errors": [], "note": "name \\"x\\" is invalid in v1 only"}', "lint"),
]


@pytest.mark.parametrize(
    ("text", "tool"), BATCH39_SUCCESSES, ids=[t[:40] for t, _ in BATCH39_SUCCESSES]
)
def test_batch39_families_take_no_success_for_a_failure(text: str, tool: str) -> None:
    assert not classify_result(text, tool=tool).failed
