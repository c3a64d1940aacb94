"""A short seeded run of the grammar fuzzer (`fuzzing`) over every protocol and `auto`.

`bench/fuzz.py` runs the same checks on a million inputs; this run keeps the suite honest at a
few seconds. A failure prints the shrunk input, ready to become a regression test.
"""

from __future__ import annotations

import random

import pytest

from fuzzing import PROTOCOLS, check, generate, same_failure, shrink, vocabulary

#: Inputs per test run: a few seconds on this machine.
INPUTS = 120


def test_the_vocabulary_holds_every_protocols_markers_and_rendered_calls() -> None:
    pieces, rendered = vocabulary()
    assert {"<tool_call>", "<|tool_call>", "<|open|>", "<function=", "<invoke"} <= set(pieces)
    assert {"</tool_response>", "<tool_response|>", "</stdout>"} <= set(pieces)
    assert len(rendered) >= 3 * (len(PROTOCOLS) - 1)


@pytest.mark.parametrize("block", range(4))
def test_generated_inputs_keep_every_invariant_in_every_protocol(block: int) -> None:
    for seed in range(block * INPUTS // 4, (block + 1) * INPUTS // 4):
        rng = random.Random(seed)
        text = generate(rng, max_run=120)
        failure = check(text, rng)
        if failure is not None:
            small = shrink(text, same_failure(failure, seed))
            pytest.fail(
                f"seed {seed}: {failure.protocol} {failure.kind}: {small!r}\n{failure.detail}"
            )


def test_the_shrinker_keeps_the_failure_and_drops_the_rest() -> None:
    assert shrink("aaaaXbbbbb", lambda s: "X" in s) == "X"
