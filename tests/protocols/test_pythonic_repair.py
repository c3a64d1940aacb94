"""Pythonic source Python cannot parse as written, read after `pythonic_repair` rewrote it.

The model outputs are vLLM's LFM2 tests (vllm-project/vllm@011cde7c177a29bbcb0052d80e5ab7671a70f634
tests/tool_parsers/test_lfm2_tool_parser.py, Apache-2.0), also in the corpus
(`vllm_newest2.jsonl`); these pin each repair, its name on the call, and that a guessed one
never runs.
"""

from __future__ import annotations

import time
import warnings
from typing import Any

import pytest

import toolmend
from support import check_all_invariants
from toolmend.protocols.pythonic_repair import (
    LEADING_ZERO,
    OWN_QUOTE,
    RAW_CONTROL,
    repaired,
)

OPEN, CLOSE = "<|tool_call_start|>", "<|tool_call_end|>"
EXEC = [
    {
        "name": name,
        "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
    }
    for name in ("exec", "bash")
]


def lfm2(body: str) -> str:
    return f"{OPEN}[{body}]{CLOSE}"


def only_call(text: str, tools: Any = None, protocol: str = "lfm2") -> Any:
    (call,) = toolmend.parse(text, protocol, tools).tool_calls
    return call


@pytest.mark.parametrize(
    ("body", "value"),
    [
        (
            "exec(command='cat > f.py << EOF\nimport csv\nprint(1)\nEOF')",
            "cat > f.py << EOF\nimport csv\nprint(1)\nEOF",
        ),
        ("exec(command='printf a\x00b')", "printf a\x00b"),
        ("exec(command='one\r\ntwo')", "one\r\ntwo"),
    ],
    ids=["line-breaks", "nul", "carriage-return"],
)
def test_raw_control_characters_in_a_string_are_kept_and_the_call_runs(
    body: str, value: str
) -> None:
    for protocol in ("lfm2", "auto"):
        call = only_call(lfm2(body), EXEC, protocol)
        assert (call.name, call.arguments, call.executable) == ("exec", {"command": value}, True)
        assert call.repairs == [RAW_CONTROL]
    check_all_invariants("lfm2", lfm2(body), EXEC)


def test_a_leading_zero_integer_is_read_as_its_number() -> None:
    call = only_call(lfm2("set_date(month=07, day=05)"))
    assert (call.arguments, call.executable, call.repairs) == (
        {"month": 7, "day": 5},
        True,
        [LEADING_ZERO],
    )


def test_zeros_that_python_reads_are_not_touched() -> None:
    assert repaired("[f(a=0, b=0.07, c=1e05, d=0x7, e='07')]", guess=False) is None


def test_a_set_is_read_as_a_list() -> None:
    call = only_call(lfm2("label(tags={'urgent', 'bug'})"))
    assert (call.arguments, call.executable) == ({"tags": ["urgent", "bug"]}, True)


def test_a_value_holding_its_own_quote_is_read_by_a_guess_and_never_runs() -> None:
    text = lfm2("bash(command='sed -n '360,450p' /testbed/sympy/matrices/common.py')")
    call = only_call(text, EXEC)
    assert call.arguments == {"command": "sed -n '360,450p' /testbed/sympy/matrices/common.py"}
    assert not call.executable and call.error and OWN_QUOTE in call.repairs
    check_all_invariants("lfm2", text, EXEC)


def test_python_warnings_about_the_source_are_not_raised() -> None:
    # `'\,'` is an invalid escape Python warns about (and still reads as `\,`); as an error it
    # would make the source unparseable.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        call = only_call(lfm2("exec(command='printf \\,')"), EXEC)
    assert (call.arguments, call.executable) == ({"command": "printf \\,"}, True)


def test_prose_whose_name_does_not_resolve_is_not_repaired_into_a_call() -> None:
    text = lfm2("unknown(command='a\nb')")
    assert toolmend.parse(text, "lfm2", EXEC).tool_calls == []


def test_a_long_value_with_raw_line_breaks_costs_about_what_a_valid_one_does() -> None:
    # One pass of the repair, one more parse: not a rescan per line (it was 18x before).
    lines = "\n".join(f"echo line {i} of a long heredoc body, with some words" for i in range(1000))
    broken = lfm2(f"exec(command='{lines}')")
    valid = lfm2(f"exec(command={lines!r})")
    assert len(broken) > 50_000

    def cost(text: str) -> float:
        best = float("inf")
        for _ in range(5):
            start = time.process_time()
            toolmend.parse(text, "lfm2", EXEC)
            best = min(best, time.process_time() - start)
        return best

    assert only_call(broken, EXEC).arguments == only_call(valid, EXEC).arguments
    assert cost(broken) < 1.5 * cost(valid) + 0.001
