"""A short seeded run of the grammar fuzzer (`fuzzing`) over every protocol and `auto`.

`bench/fuzz.py` runs the same checks on a million inputs; this run keeps the suite honest at a
few seconds. A failure prints the shrunk input, ready to become a regression test.
"""

from __future__ import annotations

import contextlib
import random

import pytest

import fuzzing
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
                f"seed {seed}: {failure.protocol} {failure.kind} (max_fragment"
                f" {failure.max_fragment}): {small!r}\n{failure.detail}"
            )


def test_the_shrinker_keeps_the_failure_and_drops_the_rest() -> None:
    assert shrink("aaaaXbbbbb", lambda s: "X" in s) == "X"


def test_a_parser_that_never_returns_is_a_hang_not_a_stalled_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def loop_forever(*args: object) -> None:
        while True:
            pass

    monkeypatch.setattr(fuzzing, "HANG_CPU_SECONDS", 0.2)
    monkeypatch.setattr(fuzzing, "run_chunks", loop_forever)
    failure = fuzzing.check_protocol("<tool_call>", "hermes", random.Random(0))
    assert failure is not None
    assert (failure.protocol, failure.kind) == ("hermes", "hang")


def test_a_hang_cannot_be_swallowed_by_a_parsers_except_exception() -> None:
    with pytest.raises(fuzzing.Hang), fuzzing.cpu_bound(0.2):
        while True:
            with contextlib.suppress(Exception):  # what a parser's broad handler would do
                sum(range(1000))


def test_the_token_drop_can_remove_a_whole_key_from_a_call() -> None:
    call = '{city:<|"|>Oslo<|"|>,days:2}'
    outcomes = {fuzzing.drop_token(call, random.Random(seed)) for seed in range(200)}
    assert '{:<|"|>Oslo<|"|>,days:2}' in outcomes  # the key gone, its colon left
    assert '{city:<|"|>Oslo<|"|>,days:}' in outcomes  # a value gone
    assert all(len(o) < len(call) for o in outcomes)


def test_a_share_of_inputs_runs_under_a_small_fragment_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    caps: list[int | None] = []

    def record(protocol: str, chunks: object, tools: object, **options: int) -> list[object]:
        caps.append(options.get("max_fragment"))
        return []

    monkeypatch.setattr(fuzzing, "run_chunks", record)
    for seed in range(100):
        assert check("", random.Random(seed), protocols=["hermes"]) is None
    assert None in caps
    assert len(set(caps) - {None}) >= 3
    assert set(caps) - {None} <= set(fuzzing.SMALL_CAPS)


def test_a_failure_under_a_small_cap_names_it_and_shrinks_under_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def fails_under_a_cap(protocol: str, chunks: object, tools: object, **options: int) -> None:
        if "max_fragment" in options:
            raise RuntimeError("overflow path")

    monkeypatch.setattr(fuzzing, "run_chunks", fails_under_a_cap)
    seed = next(s for s in range(100) if fuzzing.draw_max_fragment(random.Random(s)) is not None)
    failure = check("<tool_call>", random.Random(seed), protocols=["hermes"])
    assert failure is not None and failure.kind == "exception"
    assert failure.max_fragment == fuzzing.draw_max_fragment(random.Random(seed))
    assert same_failure(failure, seed)("<")
