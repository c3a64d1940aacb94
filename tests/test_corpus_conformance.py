"""Corpus conformance (see `conformance`): every case with a known answer is decided as upstream
decides it, named and under `auto`, or is listed with the reason it is not.

The list is held to the facts both ways: a listed case that now passes fails the test (take it
off the list), and so does an unlisted case that fails. `python bench/conformance_table.py
--write` rewrites the list keeping every reason still true.
"""

from __future__ import annotations

from typing import Any

import pytest

import toolmend
from conformance import (
    FORMAT_PROTOCOLS,
    MODES,
    NOT_IMPLEMENTED,
    UNEXPLAINED,
    load_engine_cases,
    load_exceptions,
    named_protocols,
    outcome,
)

CASES = load_engine_cases()
EXCEPTIONS = load_exceptions()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c["id"])
def test_a_corpus_case_is_decided_as_upstream_decides_it_or_listed_with_its_reason(
    case: dict[str, Any], mode: str
) -> None:
    result = outcome(case, mode)
    reason = EXCEPTIONS[mode].get(case["id"])
    if reason is None:
        assert result.passed, f"{case['id']} ({case['format']}, {mode}): {result.detail}"
    else:
        assert not result.passed, f"{case['id']} now passes {mode}: take it off the list"
        if reason == NOT_IMPLEMENTED:
            assert named_protocols(case) is None, f"{case['id']}: the format is registered"


def test_every_listed_case_exists_and_has_a_real_reason() -> None:
    ids = {c["id"] for c in CASES}
    for mode in MODES:
        assert set(EXCEPTIONS[mode]) <= ids
        assert all(r.strip() and r != UNEXPLAINED for r in EXCEPTIONS[mode].values())


def test_every_corpus_format_label_names_a_protocol_or_none() -> None:
    assert {c["format"] for c in CASES} <= set(FORMAT_PROTOCOLS)


def test_a_no_call_case_is_read_by_every_registered_protocol() -> None:
    plain = next(c for c in CASES if c["format"] == "plain_text")
    assert named_protocols(plain) == toolmend.protocols()
