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
