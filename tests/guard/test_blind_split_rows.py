"""The blind batches (`data/blind2_errors.json`, batch 22; `data/blind3_errors.json`, batch 23;
`data/blind4_errors.json`, batch 26; `data/blind5_errors.json`, batch 28; `data/blind6_errors.json`,
batch 37; `data/blind7_errors.json`, batch 40; `data/blind8_errors.json`, batch 42;
`data/blind9_errors.json`, batch 46; `data/blind10_errors.json`, batch 47;
`data/blind11_errors.json`, batch 49; `data/blind12_errors.json`, batch 51;
`data/blind13_errors.json`, batch 52; `data/blind14_errors.json`, batch 54): their rows are well
formed.

Each batch was harvested by an engineer who never read the classifier, in parallel with the
session's wording changes, and is scored exactly once at its session's end
(`test_real_errors.py`, `FIRST_SCORINGS.md`). These tests check only the rows themselves, batch
by batch: every field and its allowed values, where each text came from, that no text repeats
another row or a text of the earlier splits, and the counts the batch was harvested to. They
never call the classifier, so running them reveals nothing about how a batch will score.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

DATA = Path(__file__).parent / "data"

#: The categories the README's guard section lists (every one a row may be labelled with).
CATEGORIES = {
    "DUPLICATE_CALL",
    "MODEL_STUCK_LOOP",
    "TOOL_NOT_FOUND",
    "MCP_TOOL_MISSING",
    "PARAM_MISSING",
    "PARAM_TYPE_MISMATCH",
    "PARAM_INVALID_VALUE",
    "INVALID_JSON_ARGUMENTS",
    "INVALID_TOOL_PROTOCOL",
    "FILE_NOT_FOUND",
    "FILE_EXISTS",
    "DIFF_MATCH_FAILED",
    "PERMISSION_DENIED",
    "SHELL_INTEGRATION",
    "CONTEXT_OVERFLOW",
    "RATE_LIMITED",
    "TIMEOUT",
    "NETWORK_ERROR",
    "COMMAND_FAILED",
}

FIELDS = {"id", "source", "repo", "license", "where", "kind", "category", "provenance", "split"}
FIELDS |= {"text", "batch", "note"}
OPTIONAL = {"tool"}
REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.+-]+$")
COMMIT = re.compile(r"@[0-9a-f]{7,40}\b")
ISSUE_URL = re.compile(r"^https://github\.com/[^/]+/[^/]+/(issues|pull|discussions)/\d+")
WORD = re.compile(r"[a-z0-9_]+")


def load(file: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads((DATA / file).read_text(encoding="utf-8"))
    return rows


@dataclass(frozen=True)
class Batch:
    """One blind batch: its file, its number, how its rows are named and what it was held to."""

    file: str
    number: int
    tag: str  # the middle part of every id: SOURCE/TAG/NNN
    read_in_code: str  # the provenance of a text read in a repository snapshot
    earlier: tuple[str, ...]  # the splits no text of the batch may repeat
    #: Harvested against near copies too: no two texts share this fraction of their words or
    #: more (None: the batch was checked for exact repeats only).
    max_word_overlap: float | None = None
    #: The counts issue 14 holds a blind batch to.
    min_errors: int = 200
    min_error_sources: int = 20
    min_successes: int = 60
    #: No source holds more errors than this (None: not held to a cap).
    max_errors_per_source: int | None = None

    @property
    def rows(self) -> list[dict[str, Any]]:
        return load(self.file)

    @property
    def earlier_rows(self) -> list[dict[str, Any]]:
        """The rows of `earlier` harvested before this batch (no batch number, or a lower one):
        a dev batch harvested in parallel, numbered after it, may share a template with it."""
        rows = [row for file in self.earlier for row in load(file)]
        return [row for row in rows if row.get("batch", 0) < self.number]


EARLIER = ("real_errors.json", "blind_errors.json")
BATCHES = (
    Batch("blind2_errors.json", 22, "blind2", "source", EARLIER),
    Batch("blind3_errors.json", 23, "blind3", "snapshot", (*EARLIER, "blind2_errors.json"), 0.8),
    Batch(
        "blind4_errors.json",
        26,
        "blind4",
        "snapshot",
        (*EARLIER, "blind2_errors.json", "blind3_errors.json"),
        0.8,
        min_error_sources=12,
        min_successes=50,
    ),
    Batch(
        "blind5_errors.json",
        28,
        "blind5",
        "snapshot",
        (*EARLIER, "blind2_errors.json", "blind3_errors.json", "blind4_errors.json"),
        # Checked for exact repeats only: 30 of its errors share 80% of their words with an
        # earlier row (the same agent envelope around a similar program output); its first
        # scoring is given with and without them (`FIRST_SCORINGS.md`).
        None,
        min_errors=250,
        min_error_sources=15,
    ),
    Batch(
        "blind6_errors.json",
        37,
        "blind6",
        "snapshot",
        (*EARLIER, *(f"blind{n}_errors.json" for n in range(2, 6))),
        0.8,
        min_errors=250,
        min_error_sources=25,
    ),
    Batch(
        "blind7_errors.json",
        40,
        "blind7",
        "snapshot",
        (*EARLIER, *(f"blind{n}_errors.json" for n in range(2, 7))),
        0.8,
        min_errors=250,
        min_error_sources=20,
        max_errors_per_source=14,
    ),
    Batch(
        "blind8_errors.json",
        42,
        "blind8",
        "snapshot",
        # Held apart from the dev batches too: no text a near copy of one the guard was written from.
        (
            *EARLIER,
            *(f"blind{n}_errors.json" for n in range(2, 8)),
            "batch33_errors.json",
            "batch34_errors.json",
            "batch39_errors.json",
            "command_errors.json",
        ),
        0.8,
        min_errors=250,
        min_error_sources=25,
        min_successes=70,
        max_errors_per_source=14,
    ),
    Batch(
        "blind9_errors.json",
        46,
        "blind9",
        "snapshot",
        # Held apart from every dev batch harvested before it as well.
        (
            *EARLIER,
            *(f"blind{n}_errors.json" for n in range(2, 9)),
            "batch33_errors.json",
            "batch34_errors.json",
            "batch39_errors.json",
            "batch41_errors.json",
            "batch43_errors.json",
            "batch44_errors.json",
            "command_errors.json",
        ),
        0.8,
        min_errors=90,
        min_error_sources=14,
        min_successes=25,
        max_errors_per_source=14,
    ),
    Batch(
        "blind10_errors.json",
        47,
        "blind10",
        "snapshot",
        (
            *EARLIER,
            *(f"blind{n}_errors.json" for n in range(2, 10)),
            "batch33_errors.json",
            "batch34_errors.json",
            "batch39_errors.json",
            "batch41_errors.json",
            "batch43_errors.json",
            "batch44_errors.json",
            # harvested beside it (guard23), from blind8's and blind9's misses
            "batch45_errors.json",
            # harvested after it (guard24), from its own misses: numbered after it, so only held
            # apart from the splits that come later
            "batch48_errors.json",
            "command_errors.json",
        ),
        0.8,
        min_errors=183,
        min_error_sources=34,
        min_successes=65,
        max_errors_per_source=14,
    ),
    Batch(
        "blind11_errors.json",
        49,
        "blind11",
        "snapshot",
        (
            *EARLIER,
            *(f"blind{n}_errors.json" for n in range(2, 11)),
            "batch33_errors.json",
            "batch34_errors.json",
            "batch39_errors.json",
            "batch41_errors.json",
            "batch43_errors.json",
            "batch44_errors.json",
            "batch45_errors.json",
            # harvested beside it (guard24), from blind10's misses
            "batch48_errors.json",
            "command_errors.json",
        ),
        0.8,
        min_errors=124,
        min_error_sources=16,
        min_successes=37,
        max_errors_per_source=12,
    ),
    Batch(
        "blind12_errors.json",
        51,
        "blind12",
        "snapshot",
        (
            *EARLIER,
            *(f"blind{n}_errors.json" for n in range(2, 12)),
            "batch33_errors.json",
            "batch34_errors.json",
            "batch39_errors.json",
            "batch41_errors.json",
            "batch43_errors.json",
            "batch44_errors.json",
            "batch45_errors.json",
            "batch48_errors.json",
            "command_errors.json",
        ),
        0.8,
        min_errors=148,
        min_error_sources=17,
        min_successes=40,
        max_errors_per_source=12,
    ),
    Batch(
        "blind13_errors.json",
        52,
        "blind13",
        "snapshot",
        (
            *EARLIER,
            *(f"blind{n}_errors.json" for n in range(2, 13)),
            "batch33_errors.json",
            "batch34_errors.json",
            "batch39_errors.json",
            "batch41_errors.json",
            "batch43_errors.json",
            "batch44_errors.json",
            "batch45_errors.json",
            "batch48_errors.json",
            "command_errors.json",
        ),
        0.8,
        min_errors=120,
        min_error_sources=19,
        min_successes=44,
        max_errors_per_source=10,
    ),
    Batch(
        "blind14_errors.json",
        54,
        "blind14",
        "snapshot",
        # Mostly quoted from the agents' issue trackers (provenance "issue", the issue's URL in
        # `where`); held apart from every row file harvested before it, dev batches included.
        (
            *EARLIER,
            *(f"blind{n}_errors.json" for n in range(2, 14)),
            "batch33_errors.json",
            "batch34_errors.json",
            "batch39_errors.json",
            "batch41_errors.json",
            "batch43_errors.json",
            "batch44_errors.json",
            "batch45_errors.json",
            "batch48_errors.json",
            "batch50_errors.json",
            "batch53_errors.json",
            "command_errors.json",
        ),
        0.8,
        min_errors=65,
        min_error_sources=20,
        min_successes=35,
        max_errors_per_source=12,
    ),
)


def rows_of(kind: str | None = None) -> list[Any]:
    """Every (batch, row) pair, as pytest params named by the row's id."""
    return [
        pytest.param(batch, row, id=row["id"])
        for batch in BATCHES
        for row in batch.rows
        if kind is None or row["kind"] == kind
    ]


def normalised(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def words(text: str) -> frozenset[str]:
    return frozenset(WORD.findall(text.lower()))


def word_overlap(a: frozenset[str], b: frozenset[str]) -> float:
    """The share of words two texts have in common (Jaccard over their sets of words)."""
    return len(a & b) / len(a | b) if a | b else 1.0


def near_copies(
    mine: list[tuple[str, frozenset[str]]],
    earlier: list[tuple[str, frozenset[str]]],
    threshold: float,
) -> list[tuple[str, str]]:
    """Every pair (a row of `mine`, a row of `earlier` or a later row of `mine`) whose word
    overlap is at least `threshold` (0 < threshold <= 1).

    Every batch is checked against all the splits before it, so comparing every pair grows with
    the square of the corpus. Two sets with an overlap of t share at least t times the larger
    one's words; so, with the words ordered rarest first, each set's first `len - ceil(t * len)
    + 1` words must meet the other's (prefix filtering). Only pairs whose prefixes share a word
    are compared: the same pairs as comparing every one, found without looking at the rest.
    """
    pool = earlier + mine
    frequency = Counter(word for _, row_words in pool for word in row_words)

    def prefix(row_words: frozenset[str]) -> list[str]:
        ordered = sorted(row_words, key=lambda word: (frequency[word], word))
        return ordered[: len(ordered) - math.ceil(threshold * len(ordered) - 1e-9) + 1]

    holders: dict[str, list[int]] = {}
    for index, (_, row_words) in enumerate(pool):
        for word in prefix(row_words):
            holders.setdefault(word, []).append(index)
    empty = [index for index, (_, row_words) in enumerate(pool) if not row_words]
    near = []
    for offset, (a, wa) in enumerate(mine):
        me = len(earlier) + offset
        candidates = set(empty) if not wa else {i for w in prefix(wa) for i in holders[w]}
        for index in sorted(candidates):
            if index < len(earlier) or index > me:
                b, wb = pool[index]
                common = len(wa & wb)
                union = len(wa) + len(wb) - common
                if (common / union if union else 1.0) >= threshold:
                    near.append((a, b))
    return near


@pytest.mark.parametrize(("batch", "row"), rows_of())
def test_every_row_has_exactly_the_blind_fields_with_allowed_values(
    batch: Batch, row: dict[str, Any]
) -> None:
    assert FIELDS <= set(row) <= FIELDS | OPTIONAL
    assert row["split"] == "blind"
    assert row["batch"] == batch.number
    assert row["kind"] in {"error", "success"}
    assert row["provenance"] in {batch.read_in_code, "issue", "captured", "constructed"}
    assert REPO.match(row["repo"]), row["repo"]
    assert row["license"].strip() and row["where"].strip() and row["note"].strip()
    assert row["text"].strip()
    assert re.fullmatch(rf"{re.escape(row['source'])}/{batch.tag}/\d{{3}}", row["id"])


@pytest.mark.parametrize(("batch", "row"), rows_of("error"))
def test_an_error_row_names_one_category_the_guard_knows(batch: Batch, row: dict[str, Any]) -> None:
    assert row["category"] in CATEGORIES


@pytest.mark.parametrize(("batch", "row"), rows_of("success"))
def test_a_success_row_has_no_category_and_names_the_tool_that_returned_it(
    batch: Batch, row: dict[str, Any]
) -> None:
    assert row["category"] is None
    assert row["tool"].strip()


@pytest.mark.parametrize(("batch", "row"), rows_of())
def test_every_text_says_where_it_was_read_or_how_it_was_captured(
    batch: Batch, row: dict[str, Any]
) -> None:
    if row["provenance"] == "issue":
        assert ISSUE_URL.match(row["where"]), row["where"]
    elif row["provenance"] == batch.read_in_code:
        assert COMMIT.search(row["note"]), "a text read in code names the commit it was read at"
        assert "/" in row["where"] or "." in row["where"]
    elif row["provenance"] == "constructed":  # a success made up in a tool's own return shape
        assert row["kind"] == "success" and "made-up" in row["note"]
    else:
        assert "captured" in row["where"]
        assert "captured verbatim by running `" in row["note"]


@pytest.mark.parametrize("batch", BATCHES, ids=[b.tag for b in BATCHES])
def test_ids_are_unique_and_numbered_per_source_without_gaps(batch: Batch) -> None:
    ids = [row["id"] for row in batch.rows]
    assert len(ids) == len(set(ids))
    numbers: dict[str, list[int]] = {}
    for row in batch.rows:
        numbers.setdefault(row["source"], []).append(int(row["id"].rsplit("/", 1)[1]))
    for source, seen in numbers.items():
        assert sorted(seen) == list(range(1, len(seen) + 1)), source


@pytest.mark.parametrize("batch", BATCHES, ids=[b.tag for b in BATCHES])
def test_no_text_repeats_another_row_or_a_text_of_the_earlier_splits(batch: Batch) -> None:
    seen = {normalised(row["text"]) for row in batch.earlier_rows}
    mine = [normalised(row["text"]) for row in batch.rows]
    assert len(mine) == len(set(mine))
    assert not [text for text in mine if text in seen]


@pytest.mark.parametrize(
    "batch",
    [b for b in BATCHES if b.max_word_overlap is not None],
    ids=[b.tag for b in BATCHES if b.max_word_overlap is not None],
)
def test_no_text_is_a_near_copy_of_another_row_or_of_the_earlier_splits(batch: Batch) -> None:
    assert batch.max_word_overlap is not None
    earlier = [(row["id"], words(row["text"])) for row in batch.earlier_rows]
    mine = [(row["id"], words(row["text"])) for row in batch.rows]
    assert not near_copies(mine, earlier, batch.max_word_overlap)


@pytest.mark.parametrize("batch", BATCHES, ids=[b.tag for b in BATCHES])
def test_the_batch_holds_the_counts_it_was_harvested_to(batch: Batch) -> None:
    errors = [row for row in batch.rows if row["kind"] == "error"]
    successes = [row for row in batch.rows if row["kind"] == "success"]
    sources = Counter(row["source"] for row in errors)
    assert len(errors) >= batch.min_errors
    assert len(sources) >= batch.min_error_sources
    assert len(successes) >= batch.min_successes
    if batch.max_errors_per_source is not None:
        assert max(sources.values()) <= batch.max_errors_per_source, sources.most_common(3)


_WORD_SETS = st.lists(st.frozensets(st.sampled_from("abcdefgh"), max_size=8), max_size=12)


@given(mine=_WORD_SETS, earlier=_WORD_SETS, threshold=st.sampled_from([0.5, 0.8, 1.0]))
def test_prefix_filtering_finds_exactly_the_pairs_a_comparison_of_every_pair_finds(
    mine: list[frozenset[str]], earlier: list[frozenset[str]], threshold: float
) -> None:
    mine_rows = [(f"m{i}", w) for i, w in enumerate(mine)]
    earlier_rows = [(f"e{i}", w) for i, w in enumerate(earlier)]
    every_pair = {
        (a, b)
        for i, (a, wa) in enumerate(mine_rows)
        for b, wb in earlier_rows + mine_rows[i + 1 :]
        if word_overlap(wa, wb) >= threshold
    }
    found = near_copies(mine_rows, earlier_rows, threshold)
    assert sorted(found) == sorted(every_pair)
