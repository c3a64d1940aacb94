"""A wording's needles: literal text every match of its regex holds one of, so that the
classifier can skip a regex whose needles are absent from a text without changing any reading."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolmend.guard.classify import Classifier
from toolmend.guard.needles import needles_of
from toolmend.guard.patterns import PATTERNS

from .conftest import load_cases

WORDINGS = [wording for pattern in PATTERNS for wording in pattern.text]


@pytest.mark.parametrize(
    ("regex", "needles"),
    [
        (r"Unexpected end of JSON input", {"unexpected end of json input"}),
        (r"Extra data: line \d+ column \d+", {"extra data: line "}),
        (r"(?:file|directory) not found", {" not found"}),
        (r"(?:ENOENT|no such file)", {"enoent", "no such file"}),
        (r"(?:missing )?param(?:eter)?", {"param"}),
        (r"\b(?:x|)y\b", {"y"}),
        (r"(?:ab)+cd", {"ab"}),
        (r"(?:ab){0,3}\d", None),
        (r"a|\d", None),
        (r"Caf\u00e9 closed", {" closed"}),
    ],
)
def test_needles_are_the_most_selective_literal_every_match_holds(
    regex: str, needles: set[str] | None
) -> None:
    found = needles_of(re.compile(regex, re.IGNORECASE))
    assert (set(found) if found is not None else None) == needles


def test_every_wording_of_the_database_has_needles() -> None:
    # a wording without needles runs on every text; today every one has some
    assert [w.regex.pattern for w in WORDINGS if w.needles is None] == []


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_ascii_text_a_wording_matches_holds_one_of_its_needles(data: Any) -> None:
    wording = data.draw(st.sampled_from(WORDINGS))
    text = data.draw(st.from_regex(wording.regex))
    if text.isascii() and wording.regex.search(text) and wording.needles is not None:
        folded = text.lower()
        assert any(needle in folded for needle in wording.needles), (wording.regex.pattern, text)


class _EveryWording(Classifier):
    """The classifier trying every wording on every text, as it did before needles."""

    def _candidates(self, body: str) -> list[int]:
        return list(range(len(self._wordings)))


@pytest.mark.parametrize("file", ["batch39_errors.json"])
def test_needles_change_no_reading_of_real_texts(file: str) -> None:
    fast, every = Classifier(), _EveryWording()
    for row in load_cases(file):
        assert fast.classify(row["text"]) == every.classify(row["text"]), row["id"]
