"""An exit status means what the program that set it documents.

grep(1): "the exit status is 0 if a line is selected, 1 if no lines were selected, and 2 if an
error occurred"; diff(1) and cmp(1): 1 if the inputs differ; test(1): 1 for false; `terraform
plan -detailed-exitcode`: 2 when changes are present; curl(1)'s "EXIT CODES" (6 host not
resolved, 7 failed to connect, 28 timed out); wget(1)'s "EXIT STATUS" (4 network failure). The
outputs below were captured here (loopback only, made-up files) and put in the command-result
formats of Codex, OpenHands (`openhands/events/observation/commands.py`), Claude Code and Aider
(`aider/prompts.py`, `run_output`).
"""

from __future__ import annotations

import json

import pytest

from toolmend.guard import classify_error, classify_result, guard_history
from toolmend.guard.exit_status import (
    command_in_text,
    command_of,
    is_an_answer,
    last_simple_command,
    status_pattern,
)
from toolmend.guard.history import GUIDANCE_PREFIX
from toolmend.guard.patterns import Category


def codex(status: int, output: str) -> str:
    return f"Exit code: {status}\nWall time: 0.3 seconds\nOutput:\n{output}"


def openhands(status: int, output: str) -> str:
    return (
        f"{output}\n[The command completed with exit code {status}.]\n"
        "[Current working directory: /workspace]\n"
        "[Python interpreter: /openhands/poetry/openhands-ai-5O4_aCHf-py3.12/bin/python]\n"
        f"[Command finished with exit code {status}]"
    )


UNIFIED_DIFF = "--- old.txt\t2026-12-02 05:58:51 +0000\n+++ new.txt\t2026-12-02 05:58:51 +0000\n"
UNIFIED_DIFF += "@@ -1,2 +1,2 @@\n a\n-b\n+c"


@pytest.mark.parametrize(
    ("command", "program"),
    [
        ("grep -rn TODO src", ["grep", "-rn", "TODO", "src"]),
        ("cd app && grep -c ERROR app.log", ["grep", "-c", "ERROR", "app.log"]),
        ("grep -n x f | head -3", ["head", "-3"]),
        ("LC_ALL=C timeout 30 rg -n 'fn main' src/", ["rg", "-n", "fn main", "src/"]),
        ("sudo -n true; /usr/bin/diff -u a b", ["diff", "-u", "a", "b"]),
        ("make test\nnpm run lint", ["npm", "run", "lint"]),
        ("cat <<EOF > f\ngrep\nEOF", []),
        ("echo 'open quote", []),
    ],
)
def test_the_status_of_a_line_is_its_last_simple_commands(command: str, program: list[str]) -> None:
    assert last_simple_command(command) == program


def test_the_command_comes_from_the_calls_arguments_in_any_agents_shape() -> None:
    assert command_of({"command": "grep -n x f"}) == "grep -n x f"
    assert command_of({"cmd": "ls"}) == "ls"
    assert command_of({"command": ["bash", "-lc", "grep -n x f"]}) == "grep -n x f"
    assert command_of({"command": ["git", "diff", "--exit-code"]}) == "git diff --exit-code"
    assert command_of({"path": "a.txt"}) is None
    assert command_of("grep x") is None


def test_aiders_run_message_names_the_command_it_ran() -> None:
    text = "I ran this command:\n\ngrep -c ERROR app.log\n\nAnd got this output:\n\n0\n"
    assert command_in_text(text) == "grep -c ERROR app.log"
    assert command_in_text("Output: 0\nExit Code: 1") is None


@pytest.mark.parametrize(
    ("status", "command", "answer"),
    [
        (1, "grep -rn FIXME src", True),  # no line selected
        (2, "grep -rn FIXME src", False),  # grep's error status
        (1, "diff -q a.txt b.txt", True),
        (1, "cmp x y", True),
        (1, "test -f build/out.bin", True),
        (1, "git diff --exit-code", True),
        (1, "git diff", False),  # without --exit-code git diff's 1 is an error
        (1, "git merge-base --is-ancestor main HEAD", True),
        (1, "kubectl diff -f deploy.yaml", True),
        (2, "terraform plan -detailed-exitcode", True),
        (2, "terraform plan", False),
        (1, "npm outdated", True),
        (1, "make -q build", True),
        (1, "jq -e '.ready' status.json", True),
        (1, "command -v pnpm", True),
        (1, "which pnpm", True),
        (3, "systemctl is-active nginx", True),
        (1, "git rev-parse --verify --quiet refs/heads/feature", True),
        (2, "git ls-remote --exit-code origin refs/heads/nope", True),
        (1, "command make build", False),  # `command` as a wrapper: make's own failure
        (1, "pytest -q", False),
        (1, "grep -n x f | wc -l", False),  # wc's status is the line's
    ],
)
def test_a_status_the_program_documents_as_an_answer_is_not_a_failure(
    status: int, command: str, answer: bool
) -> None:
    assert is_an_answer(status, command) is answer


def test_a_diff_report_with_status_one_is_an_answer_whatever_the_command() -> None:
    assert is_an_answer(1, None, UNIFIED_DIFF)
    assert is_an_answer(1, None, "Files a.txt and b.txt differ")
    assert is_an_answer(1, None, "x y differ: byte 1, line 1")
    assert not is_an_answer(2, None, "Files a.txt and b.txt differ")
    assert not is_an_answer(1, None, "diff: a.txt: No such file or directory")


def test_grep_selecting_no_line_in_codexs_format_is_a_success_of_the_shell_tool() -> None:
    text = codex(1, "")
    assert classify_result(text, tool="shell").failed  # without the command: a failure
    assert not classify_result(
        text, tool="shell", arguments={"command": "grep -rn FIXME src"}
    ).failed
    error = codex(2, "grep: src: No such file or directory")
    assert classify_result(error, tool="shell", arguments={"command": "grep -rn FIXME src"}).failed


def test_a_diff_in_claude_codes_error_format_is_the_diffs_answer() -> None:
    assert not classify_result(f"Error: Exit code 1\n{UNIFIED_DIFF}", tool="Bash").failed
    gemini = "Output: Files a.txt and b.txt differ\nExit Code: 1\nProcess Group PGID: 48213"
    assert not classify_result(gemini, tool="run_shell_command").failed


def test_a_runtime_flag_that_only_restates_an_answering_status_is_not_a_failure() -> None:
    # goose's shell tool sets `isError` for any non-zero status (`developer/shell.rs`), and
    # Claude Code's Bash tool result carries `is_error` with its status line
    goose = {"content": [{"type": "text", "text": "(no output)\n\nCommand exited with code 1"}]}
    goose["isError"] = True
    grep = {"command": "grep -rn FIXME src"}
    assert not classify_result(goose, tool="developer__shell", arguments=grep).failed
    assert classify_result(goose, tool="developer__shell").failed  # its status says no more
    claude = f"Exit code 1\n{UNIFIED_DIFF}"
    assert not classify_result(claude, tool="Bash", is_error=True).failed
    assert classify_result(
        "Exit code 1\nmake: *** [all] Error 1", tool="Bash", is_error=True
    ).failed


def test_openhands_states_the_exit_status_in_brackets_after_the_output() -> None:
    passing = openhands(0, "ERROR:root:expected failure path exercised\nRan 1 test\n\nOK")
    assert not classify_result(passing, tool="execute_bash").failed
    failing = openhands(2, "sed: can't read src/config.ini: No such file or directory")
    verdict = classify_result(failing, tool="execute_bash")
    assert verdict.failed and verdict.reason == "exit status 2 at result"
    assert classify_error(failing).category is Category.FILE_NOT_FOUND


@pytest.mark.parametrize(
    ("status", "command", "category"),
    [
        (7, "curl -s http://127.0.0.1:9/healthz", Category.NETWORK_ERROR),
        (28, "curl -s --max-time 1 http://127.0.0.1:8766/", Category.TIMEOUT),
        (22, "curl -fs http://127.0.0.1:8765/v1/models", Category.NETWORK_ERROR),
        (4, "wget -q http://127.0.0.1:9/a.tgz", Category.NETWORK_ERROR),
        (137, "python3 train.py", Category.TIMEOUT),  # 128 + SIGKILL: killed
        (3, "curl -s http://127.0.0.1:9/", Category.COMMAND_FAILED),  # not a numbered kind
    ],
)
def test_a_silent_programs_status_names_the_failure_it_documents(
    status: int, command: str, category: Category
) -> None:
    text = codex(status, "")
    assert classify_error(text, metadata={"command": command}).category is category


def test_a_program_status_table_knows_only_the_programs_that_document_one() -> None:
    assert status_pattern(7, "curl -s http://127.0.0.1:9/") == "EI/NETWORK_ERROR/001"
    assert status_pattern(7, "make build") is None
    assert status_pattern(0, "curl -s http://127.0.0.1:9/") is None


def _history(command: str, result: str) -> list[dict[str, object]]:
    arguments = json.dumps({"command": ["bash", "-lc", command]})
    call = {"id": "c0", "type": "function", "function": {"name": "shell", "arguments": arguments}}
    return [
        {"role": "user", "content": "find the FIXMEs"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c0", "content": result},
    ]


def test_the_history_guard_reads_the_calls_command_before_the_results_status() -> None:
    quiet = guard_history(_history("grep -rn FIXME src", codex(1, "")))
    assert quiet[-1]["content"] == codex(1, "")
    failed = guard_history(_history("curl -s http://127.0.0.1:9/healthz", codex(7, "")))
    assert failed[-1]["content"].startswith(GUIDANCE_PREFIX)
    assert "NETWORK_ERROR" in failed[-1]["content"]
