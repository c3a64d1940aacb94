"""The command-result formats agents put around a shell tool's output are structure.

Roo Code's "Command executed in terminal ..." sentence (`src/core/tools/ExecuteCommandTool.ts`),
gemini-cli's `Output:` / `Exit Code:` / `Process Group PGID:` fields (`packages/core/src/tools/
shell.ts`), mini-swe-agent's `<returncode>` / `<output>` template (`src/minisweagent/config/
default.yaml`) and Cline's `Command exited with code N` (`sdk/packages/core/src/extensions/tools/
executors/bash.ts`) were read in those snapshots; Claude Code's `Error: Exit code N` is quoted in
its issue threads; Codex's `Exit code: N` footer is the form issue #14 reports as a miss (the
header form with `Wall time:` is assumed, not read). The outputs inside were captured here.
"""

from __future__ import annotations

import pytest

from toolmend.guard import classify_error, classify_result, guard_history
from toolmend.guard.history import GUIDANCE_PREFIX
from toolmend.guard.patterns import Category

NOT_FOUND = "bash: line 1: pnpm: command not found"
TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "<string>", line 1, in <module>\n'
    "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)"
)

FAILED = {
    "codex": f"{NOT_FOUND}\nExit code: 127",
    "codex header": f"Exit code: 127\nWall time: 0.1 seconds\nOutput:\n{NOT_FOUND}\n",
    "roo code": (
        "Command executed in terminal within working directory '/home/dev/app'. Command "
        "execution was not successful, inspect the cause and adjust as needed.\nExit code: 127\n"
        f"Output:\n{NOT_FOUND}"
    ),
    "gemini-cli": f"Output: {NOT_FOUND}\nExit Code: 127\nProcess Group PGID: 48213",
    "mini-swe-agent": f"<returncode>127</returncode>\n<output>\n{NOT_FOUND}\n</output>",
    "claude code": f"Error: Exit code 127\n{NOT_FOUND}",
    "cline": f"{NOT_FOUND}\nCommand exited with code 127",
}

SUCCEEDED = {
    "roo code": (
        "Command executed in terminal within working directory '/home/dev/app'. Exit code: 0\n"
        "Output:\nError: none of 3 jobs failed"
    ),
    "mini-swe-agent": "<returncode>0</returncode>\n<output>\nERROR count: 0\n</output>",
    "codex": "Exit code: 0\nWall time: 0.4 seconds\nOutput:\nerror: 0 warnings, 0 errors",
}


@pytest.mark.parametrize("agent", sorted(FAILED))
def test_a_non_zero_exit_status_in_an_agents_format_is_a_failure_of_a_shell_tool(
    agent: str,
) -> None:
    verdict = classify_result(FAILED[agent], tool="shell")
    assert verdict.failed and verdict.reason == "exit status 127 at result"


@pytest.mark.parametrize("agent", sorted(FAILED))
def test_the_program_line_inside_the_format_decides_the_category(agent: str) -> None:
    got = classify_error(FAILED[agent])
    assert (got.category, got.variant) == (Category.COMMAND_FAILED, "missing_dependency")


@pytest.mark.parametrize("agent", sorted(SUCCEEDED))
def test_exit_status_zero_stated_by_the_harness_is_a_success_whatever_the_output_says(
    agent: str,
) -> None:
    assert not classify_result(SUCCEEDED[agent], tool="bash").failed


def test_an_exit_status_inside_the_output_body_is_not_the_harnesss() -> None:
    log = "step 1 ok\nstep 2: exit code: 1 (retried)\nstep 3 ok\n" + "ok\n" * 20
    assert not classify_result(log, tool="bash").failed


def test_a_crash_report_after_geminis_output_field_is_read_as_a_crash_report() -> None:
    # `Output: Traceback ...` puts the traceback header mid-line; peeled, the program's crash
    # framing holds, so the program's JSON error is not read as the call's bad arguments
    text = f"Output: {TRACEBACK}\nExit Code: 1\nProcess Group PGID: 48213"
    assert classify_error(text).category is Category.COMMAND_FAILED


def test_a_codex_style_missing_command_gets_guidance_in_the_history() -> None:
    call = {"id": "c0", "type": "function", "function": {"name": "shell", "arguments": "{}"}}
    messages = [
        {"role": "user", "content": "install deps"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c0", "content": FAILED["codex"]},
    ]
    out = guard_history(messages)
    assert out[-1]["content"].startswith(GUIDANCE_PREFIX)
    assert "COMMAND_FAILED" in out[-1]["content"]
