"""classify_result: confirmed vs suspected failures, envelope-aware and stdout-safe (seed 002)."""

from __future__ import annotations

import json

import pytest

from toolmend.guard import classify_result

from .conftest import load_cases

CASES = load_cases("classify_result_cases.json")


@pytest.mark.parametrize("case", CASES, ids=[c["source"] for c in CASES])
def test_result_is_classified_as_its_fixture_says(case: dict[str, object]) -> None:
    got = classify_result(case["result"], tool=case["tool"])  # type: ignore[arg-type]
    assert (got.failed, got.confidence) == (case["failed"], case["confidence"]), got.reason


def test_cat_of_a_captured_api_error_body_is_a_success_in_stdout_and_in_stderr() -> None:
    body = '{"success":false,"error":"invalid api key"}'
    for stream in ("stdout", "stderr"):
        result = {"exit_code": 0, stream: body}
        assert not classify_result(result, tool="execute_shell_command").failed


def test_plain_error_text_in_stdout_is_a_failure() -> None:
    result = {"exit_code": 0, "stdout": "ERROR: migration 0042 failed"}
    verdict = classify_result(result, tool="execute_shell_command")
    assert verdict.failed and verdict.confidence == "suspect"


def test_a_harness_failure_envelope_wrapped_in_a_shell_success_is_a_failure() -> None:
    inner = json.dumps({"status": "failed", "error": "tool execution failure envelope"})
    result = {"exit_code": 0, "stdout": "", "result": inner}
    assert classify_result(result, tool="execute_shell_command").failed


def test_runtime_flag_beside_the_result_is_a_confirmed_failure() -> None:
    verdict = classify_result("partial output", tool="bash", is_error=True)
    assert (verdict.failed, verdict.confidence) == (True, "confirmed")


def test_an_exception_object_is_a_confirmed_failure() -> None:
    assert classify_result(TimeoutError("slow")).confidence == "confirmed"


def test_the_reason_names_the_signal_and_where_without_quoting_the_payload() -> None:
    verdict = classify_result({"content": [{"text": '{"ok": false, "secret": "s3cr3t"}'}]})
    assert verdict.reason == "ok=false at content[0].text"


def test_recursion_stops_at_depth_twelve() -> None:
    deep: object = {"ok": False}
    for _ in range(20):
        deep = {"result": deep}
    assert not classify_result(deep).failed


def test_a_cyclic_result_does_not_hang() -> None:
    cyc: dict[str, object] = {}
    cyc["result"] = cyc
    assert not classify_result(cyc).failed


def test_problem_reporting_tools_are_configurable() -> None:
    payload = {"status": "failed", "checks": 3}
    assert classify_result(payload, tool="ci_checks").failed
    verdict = classify_result(payload, tool="ci_checks", problem_reporting_tools={"ci_checks"})
    assert not verdict.failed


def test_an_anthropic_tool_result_block_is_read_by_its_is_error_flag() -> None:
    block = {"type": "tool_result", "tool_use_id": "t1", "content": "boom", "is_error": True}
    assert classify_result(block).confidence == "confirmed"
    ok = {"type": "tool_result", "tool_use_id": "t1", "content": "Error: none", "is_error": False}
    assert not classify_result(ok).failed


def test_tool_use_error_text_inside_a_tool_result_block_is_a_failure() -> None:
    block = {
        "type": "tool_result",
        "tool_use_id": "t1",
        "content": [
            {"type": "text", "text": "<tool_use_error>File does not exist.</tool_use_error>"}
        ],
    }
    assert classify_result(block, tool="Read").failed


def test_namespaced_content_tools_follow_their_family_rules() -> None:
    payload = '{"status": "error", "message": "fixture"}'
    for tool in ("Read", "builtin_read_file", "mcp__fs__read_file", "default_api.read_file"):
        assert not classify_result(payload, tool=tool).failed, tool


def test_a_record_list_mentioning_errors_is_data_not_a_failure() -> None:
    hits = [{"url": "https://x.test/q/1", "content": "Error: ENOENT usually means a bad path."}]
    assert not classify_result(hits, tool="tavily_search").failed
    rows = '{"content": [{"type": "text", "text": "[{\\"status\\": \\"failed\\"}]"}]}'
    assert not classify_result(rows, tool="query").failed


def test_a_record_whose_own_status_is_failed_is_data() -> None:
    run = {"id": 4242, "name": "build", "status": "failed", "conclusion": "failure", "url": "x"}
    assert not classify_result(run, tool="get_workflow_run").failed
    assert classify_result({"status": "error", "message": "boom"}, tool="deploy").failed


def test_a_record_with_an_error_field_and_data_of_its_own_is_data() -> None:
    # blind10's false positive (autogen/blind10/010, a build the tool looked up)
    build = {"id": 311, "status": "failed", "failed_tests": 2, "error": "test_refund_rounding"}
    assert not classify_result(json.dumps(build), tool="get_build").failed
    # with only an envelope's keys beside its identity, the error is the tool's own
    call = {"id": "call_7", "status": "failed", "error": "upstream timed out"}
    assert classify_result(json.dumps(call), tool="deploy").failed


def test_a_record_named_by_an_id_of_its_kind_is_data() -> None:
    # blind13's false positive (pydantic-ai/blind13/011, a build status the tool looked up)
    build = {
        "build_id": "b-20461",
        "status": "failed",
        "failed_step": "integration-tests",
        "error": "2 tests timed out",
        "retry_available": True,
    }
    assert not classify_result(json.dumps(build), tool="get_build_status").failed
    assert not classify_result({"runId": 88, "status": "failed", "steps": 4}, tool="x").failed
    # the ids an error body gives its request or trace are no record's identity
    body = {"request_id": "req_9", "status": "error", "error": "quota exceeded"}
    assert classify_result(json.dumps(body), tool="x").failed
    assert classify_result(
        {"trace_id": "t", "status": "failed", "message": "boom"}, tool="x"
    ).failed


def test_an_unflagged_python_traceback_from_a_non_content_tool_is_a_failure() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "tool.py", line 3, in run\n'
        "KeyError: 'user_id'"
    )
    assert classify_result(text, tool="lookup_user").failed
    assert classify_result("KeyError: 'user_id'", tool="lookup_user").failed
    assert classify_result({"content": [{"type": "text", "text": text}]}, tool="lookup").failed


def test_a_traceback_shown_by_a_content_tool_is_data() -> None:
    log = 'Traceback (most recent call last):\n  File "w.py", line 8\nOSError: boom\nretried: ok'
    assert not classify_result(log, tool="read_file").failed
    assert not classify_result({"exit_code": 0, "stdout": log}, tool="run").failed


def test_prose_that_names_an_exception_later_in_the_line_is_not_a_failure() -> None:
    assert not classify_result("Fixed the KeyError: it was a typo.", tool="lookup").failed


@pytest.mark.parametrize(
    "text",
    [
        "Invalid input for tool edit_file: missing required parameter 'path'",
        "MCP error -32602: Tool search_code not found",
        "Error executing tool fetch_page: connection refused",
        "Error calling MCP tool create_issue: 403",
    ],
)
def test_an_agents_or_mcp_clients_failure_prefix_is_a_failure_of_any_tool(text: str) -> None:
    assert classify_result(text, tool="edit_file").failed


def test_prose_that_only_mentions_invalid_input_is_not_a_failure() -> None:
    text = "Summary: the invalid input for tool edit_file case is now covered by a test."
    assert not classify_result(text, tool="edit_file").failed


@pytest.mark.parametrize(
    ("text", "failed"),
    [
        ("Cancelled job cron-7f3a.", False),  # Qwen Code's cron_delete saying what it did
        ("Cancelled by user", True),
        ("Cancelled.", True),
        ("Operation cancelled", True),
        ("Request cancelled: the stream was closed", True),
    ],
)
def test_a_cancel_tool_reporting_what_it_cancelled_is_not_a_cancelled_call(
    text: str, failed: bool
) -> None:
    assert classify_result(text, tool="cron_delete").failed is failed


#: Successful outputs of model servers and APIs that carry error words or empty error fields, in
#: the shapes the servers and SDKs emit (values made up): a health body with `"errors": 0`, a
#: completion and a Responses object with `"error": null`, a batch with `"errors": null` and 0
#: failed, a model list with "error" in a model id, a server log, an answer that quotes an error.
SERVER_SUCCESSES = [
    ("curl", {"status": "ok", "errors": 0, "warnings": 2, "uptime_s": 86400}),
    (
        "chat",
        {
            "id": "gen-1",
            "object": "chat.completion",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"content": "Done."}}],
            "error": None,
        },
    ),
    (
        "responses_get",
        {"id": "resp_1", "object": "response", "status": "completed", "error": None},
    ),
    (
        "get_batch",
        {
            "id": "batch_1",
            "status": "completed",
            "errors": None,
            "request_counts": {"completed": 10, "failed": 0, "total": 10},
        },
    ),
    ("list_models", {"object": "list", "data": [{"id": "error-correction-7b", "object": "model"}]}),
    (
        "bash",
        "INFO 12-02 03:00:01 [loggers.py:123] Running: 0 reqs, Waiting: 0 reqs\n"
        'INFO:     127.0.0.1:41234 - "POST /v1/chat/completions HTTP/1.1" 200 OK\n'
        "0 errors in the last hour",
    ),
    (
        "chat",
        {
            "type": "message",
            "content": [
                {
                    "type": "text",
                    "text": "The API returned invalid_request_error because tools[0] had no "
                    "schema; it is fixed now.",
                }
            ],
            "stop_reason": "end_turn",
        },
    ),
]


@pytest.mark.parametrize(("tool", "output"), SERVER_SUCCESSES, ids=lambda v: str(v)[:30])
def test_a_servers_successful_output_that_mentions_errors_is_not_a_failure(
    tool: str, output: object
) -> None:
    text = output if isinstance(output, str) else json.dumps(output)
    assert not classify_result(text, tool=tool).failed


def test_a_logged_handled_exception_in_a_shell_output_is_no_failure() -> None:
    """Python's logging writes `ERROR:root:...` and the traceback of an error the program handled
    and went on from (blind7's cpython/blind7/013, exit 0, as Claude Code shows a Bash result:
    no exit-status line); the same output with the failing exit status Claude Code puts before
    it is still a failure."""
    logged = (
        "ERROR:root:parse failed, using default\nTraceback (most recent call last):\n"
        '  File "h.py", line 3, in <module>\n    int("x")\n'
        "ValueError: invalid literal for int() with base 10: 'x'\nvalue: 0"
    )
    assert not classify_result(logged, tool="Bash").failed
    assert classify_result("Error: Exit code 1\n" + logged, tool="Bash").failed


#: Tool errors that reach the model as the bare message, with no prefix and no error flag (chat/
#: completions has none), captured here through `toolmend serve` (tests/frontends/cli_e2e.py):
#: OpenCode 1.18.33 (`opencode-ai`, MIT) and Qwen Code 0.15.10 (`@qwen-code/qwen-code`,
#: Apache-2.0), each a (tool, arguments, result).
BARE_ERRORS = [
    ("read", {"filePath": "/w/project/missing.txt"}, "File not found: /w/project/missing.txt"),
    (
        "read_file",
        {"file_path": "/w/project/missing.txt"},
        "File not found: /w/project/missing.txt",
    ),
    (
        "read",
        {"filePath": "/w/project/missing.txt"},
        "File not found: /w/project/missing.txt\n\nDid you mean one of these?\n"
        "/w/project/missing.txt.orig",
    ),
    (
        "edit",
        {"filePath": "/w/project/notes.txt", "oldString": "absent", "newString": "x"},
        "Could not find oldString in the file. It must match exactly, including whitespace, "
        "indentation, and line endings.",
    ),
    # Continue's CLI 1.5.47 (`@continuedev/cli`, Apache-2.0): its MultiEdit quotes the edit's
    # search text back, a plain word that names nothing by itself
    (
        "MultiEdit",
        {
            "file_path": "/w/project/notes.txt",
            "edits": [{"old_string": "absent", "new_string": "x"}],
        },
        'Edit at index 0: string not found in file: "absent"',
    ),
]


@pytest.mark.parametrize(
    ("tool", "arguments", "text"),
    BARE_ERRORS,
    ids=["oc-read", "qw-read", "oc-read-suggesting", "oc-edit", "cn-multiedit"],
)
def test_an_agents_bare_error_is_a_failure(tool: str, arguments: dict[str, str], text: str) -> None:
    verdict = classify_result(text, tool=tool, arguments=arguments)
    assert (verdict.failed, verdict.confidence) == (True, "suspect"), verdict.reason


def _mini_observation(returncode: int, output: str) -> str:
    """mini-swe-agent 2.4.6's (`mini-swe-agent`, MIT) bash result, as its `mini.yaml`
    observation_template writes it, captured through `toolmend serve`."""
    return f'{{\n  "returncode": {returncode},\n  "output": {json.dumps(output)}\n}}'


@pytest.mark.parametrize(
    ("command", "returncode", "output", "failed"),
    [
        ("cat /w/missing.txt", 1, "cat: /w/missing.txt: No such file or directory\n", True),
        ("ls /w", 0, "notes.txt\n", False),
        # grep's 1 is its answer (no line selected), whichever format states it
        ("grep -q absent /w/notes.txt", 1, "", False),
    ],
    ids=["cat-missing", "ls", "grep-none"],
)
def test_mini_swe_agents_json_observation_states_the_exit_status(
    command: str, returncode: int, output: str, failed: bool
) -> None:
    text = _mini_observation(returncode, output)
    verdict = classify_result(text, tool="bash", arguments={"command": command})
    assert verdict.failed is failed, verdict


#: Cline 3.0.65's (`cline`, Apache-2.0) read_files result, captured through `toolmend serve`
#: (tests/frontends/cli_e2e.py): one `{"query", "result", "error", "success"}` per file.
CLINE_READ_FAILED = {
    "query": "/w/missing.txt",
    "result": "",
    "error": "Error reading file: ENOENT: no such file or directory, statx '/w/missing.txt'",
    "success": False,
}


@pytest.mark.parametrize(
    ("items", "failed"),
    [
        ([CLINE_READ_FAILED], True),
        ([CLINE_READ_FAILED, {**CLINE_READ_FAILED, "query": "/w/b.txt"}], True),
        # one input of the batch succeeded: the model has an answer to read
        ([CLINE_READ_FAILED, {"query": "/w/a.txt", "result": "text", "success": True}], False),
        # rows that carry no success flag stay data, whatever error they mention
        ([{"query": "/w/a.txt", "error": "File not found"}], False),
        ([], False),
    ],
    ids=["one-failed", "all-failed", "one-succeeded", "no-flag", "empty"],
)
def test_a_batch_result_fails_when_every_item_says_it_failed(
    items: list[dict[str, object]], failed: bool
) -> None:
    assert classify_result(json.dumps(items), tool="read_files").failed is failed


@pytest.mark.parametrize(
    ("text", "failed"),
    [
        ('Edit at index 0: string not found in file: "absent"', True),
        ('Edit at index 0: string not found in file: "absent\nline two"', False),
        ('Edit at index 0: string not found in file: "two\nlines"', True),
        ('Edit at index 0: string not found in file: "present"', False),
    ],
)
def test_a_bare_error_quoting_the_edits_search_text_is_read_from_raw_json_arguments(
    text: str, failed: bool
) -> None:
    """chat/completions carries the arguments as JSON text, which the history guard passes as
    `given`; the search text is found in it inside the list of edits, escapes decoded."""
    edits = [{"old_string": "absent"}, {"old_string": "two\nlines"}]
    raw = json.dumps({"file_path": "/w/notes.txt", "edits": edits})
    assert classify_result(text, tool="MultiEdit", given=raw).failed is failed


@pytest.mark.parametrize(
    ("tool", "arguments", "text"),
    [
        # a one-line file that reads as an error, but about another path than the one read
        ("read_file", {"file_path": "/w/notes.txt"}, "File not found: /etc/app.conf"),
        # a grep hit on the very path searched
        ("grep", {"pattern": "raise", "path": "src/x.py"}, "src/x.py:10: raise FileNotFoundError"),
        # a content tool's JSON text is content, whatever it names
        ("read_file", {"file_path": "a.json"}, '{"error": "File not found: a.json"}'),
        # a shell command's output names the files of its command: its status decides
        # (coreutils/blind5/013, `wc -l` captured here)
        (
            "Bash",
            {"command": "wc -l errors.csv failures.csv"},
            "2 errors.csv\n1 failures.csv\n3 total\n",
        ),
        # a search that found nothing names its arguments in prose (gemini-cli, blind2/021)
        (
            "search_file_content",
            {"pattern": "TODO: handle error", "path": "src"},
            'No matches found for pattern "TODO: handle error" in path "src".',
        ),
        # an edit's failure wording quoting a text that is not the edit's own search text
        (
            "MultiEdit",
            {"file_path": "/w/notes.txt", "edits": [{"old_string": "absent", "new_string": "x"}]},
            'Edit at index 0: string not found in file: "present"',
        ),
    ],
    ids=["other-path", "grep-hit", "json", "shell-output", "search-prose", "other-quote"],
)
def test_a_one_line_output_is_no_failure_unless_it_is_an_error_naming_an_argument(
    tool: str, arguments: dict[str, str], text: str
) -> None:
    assert not classify_result(text, tool=tool, arguments=arguments).failed
