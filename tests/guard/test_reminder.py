"""json_error_reminder: fires only on JSON-argument errors of non-content tools (seed 001)."""

from __future__ import annotations

import pytest

from toolmend.guard import json_error_reminder
from toolmend.guard.reminder import REMINDER_MARKER

from .conftest import load_cases

CASES = load_cases("json_reminder_cases.json")


@pytest.mark.parametrize("case", CASES, ids=[c["source"] for c in CASES])
def test_reminder_fires_exactly_as_the_fixture_says(case: dict[str, object]) -> None:
    out = json_error_reminder(case["tool"], case["output"])  # type: ignore[arg-type]
    fired = isinstance(out, str) and REMINDER_MARKER in out
    assert fired is case["fires"]
    if not case["fires"]:
        assert out == case["output"]


def test_the_reminder_is_appended_after_the_original_output() -> None:
    out = json_error_reminder("edit", "SyntaxError: Unexpected end of JSON input")
    assert isinstance(out, str)
    assert out.startswith("SyntaxError: Unexpected end of JSON input\n\n" + REMINDER_MARKER)


def test_the_reminder_is_not_appended_twice() -> None:
    once = json_error_reminder("edit", "SyntaxError: Unexpected end of JSON input")
    assert json_error_reminder("edit", once) == once


def test_the_exclusion_list_is_configurable() -> None:
    text = "SyntaxError: Unexpected end of JSON input"
    assert json_error_reminder("bash", text, excluded_tools=()) != text
    assert json_error_reminder("edit", text, excluded_tools={"edit"}) == text


def test_namespaced_content_tools_get_no_reminder() -> None:
    output = "Error: Unexpected end of JSON input"
    for tool in ("Read", "mcp__fs__read_file", "builtin_read_file"):
        assert json_error_reminder(tool, output) == output, tool
