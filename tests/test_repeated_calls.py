"""A call that repeats the call right before it, same tool and same arguments, never runs twice.

Models fall into loops that write one call over and over: Step-3.5 (vllm-mlx's Step-3.5 parser
collapses such runs, test `test_step3p5_tool_parser_collapses_consecutive_duplicate_calls`) and
Qwen3.5 (mlx-lm pull request #1027: 43 to 64 identical calls until the token limit). Running the
copies repeats their side effects. The first call runs; each copy right after it ends
incomplete with `REPEATED_CALL` and a `repeated_call` diagnostic, in every format, streamed or
whole. Calls that differ in anything, or that are not consecutive, all run.

The Step-3.5 output is vllm-mlx's (waybarrios/vllm-mlx@4b654c09,
tests/test_step3p5_tool_parser.py, Apache-2.0).
"""

from __future__ import annotations

import pytest

import toolmend
from support import check_all_invariants
from toolmend.core.calls import REPEATED_CALL

STEP35_CALL = (
    "<tool_call>\n<function=get_weather>\n<parameter=city>Austin</parameter>\n"
    "<parameter=units>metric</parameter>\n</function>\n</tool_call>\n"
)
STEP35_OUTPUT = STEP35_CALL * 4

WEATHER = [
    {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "units": {"type": "string"}},
            "required": ["city"],
        },
    }
]


def runs(text: str, protocol: str, tools: object = WEATHER) -> list[tuple[str, object, bool]]:
    calls = toolmend.parse(text, protocol, tools).tool_calls
    return [(c.name, c.arguments, c.executable) for c in calls]


@pytest.mark.parametrize("protocol", ["qwen3-coder", "auto"])
@pytest.mark.parametrize("tools", [WEATHER, None], ids=["declared", "tools=None"])
def test_step35s_four_identical_calls_run_once(protocol: str, tools: object) -> None:
    args = {"city": "Austin", "units": "metric"}
    assert (
        runs(STEP35_OUTPUT, protocol, tools)
        == [("get_weather", args, True)] + [("get_weather", args, False)] * 3
    )


def test_each_copy_says_why_it_did_not_run() -> None:
    result = toolmend.parse(STEP35_OUTPUT, "qwen3-coder", WEATHER)
    assert [c.error for c in result.tool_calls] == [None] + [REPEATED_CALL] * 3
    codes = [d.code for d in result.diagnostics]
    assert codes.count("repeated_call") == 3


def test_the_repeats_read_the_same_however_the_output_is_split() -> None:
    check_all_invariants("qwen3-coder", STEP35_CALL * 2, WEATHER)
    check_all_invariants("auto", STEP35_CALL * 2, WEATHER)


@pytest.mark.parametrize(
    ("protocol", "call"),
    [
        (
            "hermes",
            '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>\n',
        ),
        (
            "glm45",
            "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n</tool_call>\n",
        ),
        ("mistral", '[TOOL_CALLS]get_weather[ARGS]{"city": "Oslo"}'),
        ("pythonic", '[get_weather(city="Oslo")]\n'),
    ],
)
def test_every_family_runs_a_repeated_call_once(protocol: str, call: str) -> None:
    assert [ok for _, _, ok in runs(call * 3, protocol)] == [True, False, False]


def test_the_same_tool_with_other_arguments_runs_every_time() -> None:
    oslo = STEP35_CALL.replace("Austin", "Oslo")
    assert [ok for _, _, ok in runs(STEP35_CALL + oslo + STEP35_CALL, "qwen3-coder")] == [True] * 3


def test_a_repeat_after_a_call_that_did_not_run_is_not_a_repeat() -> None:
    # The call in between is cut short (its required city is missing): the next one may run.
    broken = "<tool_call>\n<function=get_weather>\n<parameter=units>metric</parameter>\n</function>\n</tool_call>\n"
    got = runs(STEP35_CALL + broken + STEP35_CALL, "qwen3-coder")
    assert [ok for _, _, ok in got] == [True, False, True]
