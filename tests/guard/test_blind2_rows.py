"""The second blind batch (`data/blind2_errors.json`, batch 22): its rows are well formed.

The batch was harvested by an engineer who never read the classifier, in parallel with the
session's wording changes, and scored exactly once at their end (`test_real_errors.py`,
`FIRST_SCORINGS.md`, batch 22). These tests check only the rows themselves: every field and
its allowed values, where each text came from, that no text repeats one of the earlier splits,
and the counts the batch was harvested to.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest

from toolmend.guard.patterns import Category

from .conftest import load_cases

ROWS = load_cases("blind2_errors.json")
ERRORS = [row for row in ROWS if row["kind"] == "error"]
SUCCESSES = [row for row in ROWS if row["kind"] == "success"]

#: The counts the batch was harvested to (issue 14's second blind batch).
MIN_ERRORS = 200
MIN_ERROR_SOURCES = 20
MIN_SUCCESSES = 60

FIELDS = {"id", "source", "repo", "license", "where", "kind", "category", "provenance", "split"}
FIELDS |= {"text", "batch", "note"}
OPTIONAL = {"tool"}
PROVENANCES = {"source", "issue", "captured"}
CATEGORIES = {c.value for c in Category} - {Category.UNCLASSIFIED.value}
REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.+-]+$")
COMMIT = re.compile(r"@[0-9a-f]{7,40}\b")
ISSUE_URL = re.compile(r"^https://github\.com/[^/]+/[^/]+/(issues|pull|discussions)/\d+")


def normalised(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


@pytest.mark.parametrize("row", ROWS, ids=[row["id"] for row in ROWS])
def test_every_row_has_exactly_the_blind_fields_with_allowed_values(row: dict[str, Any]) -> None:
    assert FIELDS <= set(row) <= FIELDS | OPTIONAL
    assert row["split"] == "blind"
    assert row["batch"] == 22
    assert row["kind"] in {"error", "success"}
    assert row["provenance"] in PROVENANCES
    assert REPO.match(row["repo"]), row["repo"]
    assert row["license"].strip() and row["where"].strip() and row["note"].strip()
    assert row["text"].strip()
    assert re.fullmatch(rf"{re.escape(row['source'])}/blind2/\d{{3}}", row["id"])


@pytest.mark.parametrize("row", ERRORS, ids=[row["id"] for row in ERRORS])
def test_an_error_row_names_one_category_the_guard_knows(row: dict[str, Any]) -> None:
    assert row["category"] in CATEGORIES


@pytest.mark.parametrize("row", SUCCESSES, ids=[row["id"] for row in SUCCESSES])
def test_a_success_row_has_no_category_and_names_the_tool_that_returned_it(
    row: dict[str, Any],
) -> None:
    assert row["category"] is None
    assert row["tool"].strip()


@pytest.mark.parametrize("row", ROWS, ids=[row["id"] for row in ROWS])
def test_every_text_says_where_it_was_read_or_how_it_was_captured(row: dict[str, Any]) -> None:
    if row["provenance"] == "issue":
        assert ISSUE_URL.match(row["where"]), row["where"]
    elif row["provenance"] == "source":
        assert COMMIT.search(row["note"]), "a text read in code names the commit it was read at"
        assert "/" in row["where"] or "." in row["where"]
    else:
        assert "captured" in row["where"]
        assert "captured verbatim by running `" in row["note"]


def test_ids_are_unique_and_numbered_per_source_without_gaps() -> None:
    ids = [row["id"] for row in ROWS]
    assert len(ids) == len(set(ids))
    numbers: dict[str, list[int]] = {}
    for row in ROWS:
        numbers.setdefault(row["source"], []).append(int(row["id"].rsplit("/", 1)[1]))
    for source, seen in numbers.items():
        assert sorted(seen) == list(range(1, len(seen) + 1)), source


def test_no_text_repeats_another_row_or_a_text_of_the_earlier_splits() -> None:
    earlier = load_cases("real_errors.json") + load_cases("blind_errors.json")
    seen = {normalised(row["text"]) for row in earlier}
    mine = [normalised(row["text"]) for row in ROWS]
    assert len(mine) == len(set(mine))
    assert not [text for text in mine if text in seen]


def test_the_batch_holds_the_counts_it_was_harvested_to() -> None:
    sources = Counter(row["source"] for row in ERRORS)
    assert len(ERRORS) >= MIN_ERRORS
    assert len(sources) >= MIN_ERROR_SOURCES
    assert len(SUCCESSES) >= MIN_SUCCESSES
