"""Batch 41 (guard18): the families the seventh blind split's misses showed, their siblings (other
messages of the same code paths, or the same failure said by other programs and agents), the
neighbours they must leave alone, and successes in their words.

The rows these were written from are in `data/batch41_errors.json`; these texts are not rows of
any data file.
"""

from __future__ import annotations

import pytest

from toolmend.guard import classify_error, classify_result
from toolmend.guard.exit_status import killed_by_timeout, runs_under_timeout

ROO = "Command executed in terminal within working directory '/home/dev/app'. "

SIBLINGS = [
    # a command killed by a signal, as Zoo Code's and Roo Code's results say it
    (ROO + "Process terminated by signal SIGBUS - core dump possible\nOutput:\n", "COMMAND_FAILED"),
    (
        "Command executed in '/w'. Process terminated by signal SIGTERM\n\nOutput (3.0KB) "
        "persisted. Artifact ID: cmd-1.txt\n\nPreview:\nok\n\nUse read_command_output tool to "
        "view full output if needed.",
        "COMMAND_FAILED",
    ),
    # VS Code gave no exit code
    (
        ROO + "Exit code: <undefined, notify user>\nOutput:\nDone in 2.1s.\n"
        "<VSCE exit code is undefined: terminal output and command execution status is unknown.>",
        "SHELL_INTEGRATION",
    ),
    # JSON-RPC's own codes, when the message says no more
    (
        '{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found",'
        '"data":"prompts/get"}}',
        "MCP_TOOL_MISSING",
    ),
    ("MCP error -32602: Invalid request parameters", "INVALID_TOOL_PROTOCOL"),
    (
        '{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"Invalid params"}}',
        "INVALID_TOOL_PROTOCOL",
    ),
    # an MCP session that is gone
    ("Error: Session terminated", "NETWORK_ERROR"),
    ("Bad Request: No valid session ID provided", "NETWORK_ERROR"),
    # a value the call passed that names nothing there
    (
        "Error: Ref e7 not found in the current page snapshot. Try capturing new snapshot.",
        "PARAM_INVALID_VALUE",
    ),
    ("Error: Tab 2 not found", "PARAM_INVALID_VALUE"),
    (
        "ValueError: No symbol with name Invoice/total found in file billing/invoice.py",
        "PARAM_INVALID_VALUE",
    ),
    ("Entity with name Acme_Corp not found", "PARAM_INVALID_VALUE"),
    ("Error: no such key 'theme' in settings", "PARAM_INVALID_VALUE"),
    ("No such node found in the snapshot", "PARAM_INVALID_VALUE"),
    # registries and remotes that want credentials
    (
        'npm error code E401\nnpm error Unable to authenticate, need: Basic realm="registry"',
        "PERMISSION_DENIED",
    ),
    (
        "fatal: Authentication failed for 'https://git.example.com/team/api.git/'",
        "PERMISSION_DENIED",
    ),
    ("error: no token found, please run `cargo login`", "PERMISSION_DENIED"),
    # compilers that cannot find a name in the code: not a missing tool
    ("error[E0425]: cannot find function `render` in this scope", "COMMAND_FAILED"),
    # a recipe's script path that is not there
    (
        "make: ../tools/gen.sh: No such file or directory\nmake: *** [Makefile:4: gen] Error 127",
        "FILE_NOT_FOUND",
    ),
    # timeout(1)'s kill in a form that states no exit status
    ("I ran this command:\n\ntimeout 10 npm run dev\n\nAnd got this output:\n\n", "TIMEOUT"),
    (
        "I ran this command:\n\ncd web && timeout 5 ./serve.sh\n\nAnd got this output:\n\n"
        "listening on :8080\nTerminated\n",
        "TIMEOUT",
    ),
    # an edit listing with no file name, pydantic-ai's validation feedback
    ("No filename provided before ``` in file listing", "DIFF_MATCH_FAILED"),
    (
        "Validation feedback:\nThe summary must be under 200 words.\n\nFix the errors and try again.",
        "PARAM_INVALID_VALUE",
    ),
]


@pytest.mark.parametrize(("text", "category"), SIBLINGS, ids=[t[:50] for t, _ in SIBLINGS])
def test_a_batch41_family_covers_other_wordings_of_the_same_failure(
    text: str, category: str
) -> None:
    assert classify_error(text).category == category


NEIGHBOURS = [
    # a recipe's bare program name stays a missing program
    (
        "make: protoc: No such file or directory\nmake: *** [Makefile:2: gen] Error 127",
        "COMMAND_FAILED",
    ),
    # make's own missing makefile stays the missing file
    (
        "make: Makefile.prod: No such file or directory\n"
        "make: *** No rule to make target 'Makefile.prod'.  Stop.",
        "FILE_NOT_FOUND",
    ),
    # a command under timeout that failed on its own is its failure, not the timeout's
    (
        "I ran this command:\n\ntimeout 60 npm test\n\nAnd got this output:\n\n"
        "FAIL src/app.test.ts\nTests: 1 failed, 4 passed\n",
        "COMMAND_FAILED",
    ),
    # a tool the model named that is not there, in a JSON-RPC error or in words, stays so
    (
        '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Unknown tool: \'get_forcast\'"}}',
        "MCP_TOOL_MISSING",
    ),
    ('Error: Tool "browser_scroll" not found', "TOOL_NOT_FOUND"),
    ("Could not find a tool named search_docs", "TOOL_NOT_FOUND"),
    # a resource or file the message names stays missing
    (
        '{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Resource not found",'
        '"data":{"uri":"file:///notes/q3.md"}}}',
        "FILE_NOT_FOUND",
    ),
    ("Error: File not found: src/ref.ts", "FILE_NOT_FOUND"),
    # a JSON body's quotes are not a quoted value
    ('{"error": {"message": "Model not found"}}', "PARAM_INVALID_VALUE"),
]


@pytest.mark.parametrize(("text", "category"), NEIGHBOURS, ids=[t[:50] for t, _ in NEIGHBOURS])
def test_batch41_families_leave_neighbouring_wordings_to_their_own_categories(
    text: str, category: str
) -> None:
    assert classify_error(text).category == category


#: Successes in the same words: Roo Code's edit tools when the edit leaves the file as it was
#: (with the call's arguments, so a bare error naming the path is tried), commands that exited 0
#: and print the families' words, a JSON-RPC result (not an error).
SUCCESSES = [
    ("No changes needed for 'src/app.ts'", "edit", {"path": "src/app.ts"}),
    ("No changes needed for 'src/app.ts'", "apply_diff", {"path": "src/app.ts", "diff": "x"}),
    ("No changes needed for 'src/app.ts'", "edit_file", {"target_file": "src/app.ts"}),
    ("No changes needed for 'lib/a.py'", "search_replace", {"path": "lib/a.py"}),
    (
        ROO + "Exit code: 0\nOutput:\nProcess terminated by signal SIGTERM is handled\n",
        "execute_command",
        None,
    ),
    (ROO + "Exit code: 0\nOutput:\nno such key: 0 misses\n", "execute_command", None),
    ("Session terminated for user 42; 3 tokens revoked", "logout", {"user": "42"}),
    (
        '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Method not found '
        'in the index: 0 matches"}],"isError":false}}',
        "search_methods",
        None,
    ),
    ("I ran this command:\n\ntimeout 5 make lint\n\nAnd got this output:\n\nok\n", "run", None),
]


@pytest.mark.parametrize(
    ("text", "tool", "arguments"), SUCCESSES, ids=[t[:40] for t, _, _ in SUCCESSES]
)
def test_batch41_families_take_no_success_for_a_failure(
    text: str, tool: str, arguments: dict[str, str] | None
) -> None:
    assert not classify_result(text, tool=tool, arguments=arguments).failed


def test_an_agent_result_that_states_a_signal_is_a_failure() -> None:
    got = classify_result(
        ROO + "Process terminated by signal SIGSEGV\nOutput:\n", tool="execute_command"
    )
    assert got.failed and "signal" in got.reason


@pytest.mark.parametrize(
    ("command", "under"),
    [
        ("timeout 5 make serve", True),
        ("cd app && FOO=1 timeout -s KILL 9 ./run.sh", True),
        ("sudo timeout 3 ping host", True),
        ("make timeout", False),
        ("timeout 5 make && echo done", False),
        ("echo 'timeout 5 x'", False),
    ],
)
def test_runs_under_timeout_reads_the_last_simple_command(command: str, under: bool) -> None:
    assert runs_under_timeout(command) is under


def test_killed_by_timeout_needs_the_kill_in_the_output() -> None:
    head = "I ran this command:\n\ntimeout 2 ./serve.sh\n\nAnd got this output:\n\n"
    assert killed_by_timeout(head)
    assert killed_by_timeout(head + "make: *** [Makefile:2: x] Terminated\n")
    assert not killed_by_timeout(head + "Error: port 8080 in use\n")
    assert not killed_by_timeout(head.replace("timeout 2 ", ""))
