"""Regression tests for the defects a review and a grammar fuzzer found on main (issue 8).

Each test is the smallest input that showed the defect; each would fail without its fix. The
tool is `get_weather(city: string, days?: integer)` unless a test says otherwise.
"""

from __future__ import annotations

from typing import Any

import pytest

import toolmend
from support import assert_conserved, assert_split_invariant, comparable, run_chunks

TOOLS: list[dict[str, Any]] = [
    {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city"],
        },
    }
]
EVERY_PROTOCOL = [*toolmend.protocols(), "auto"]


def calls(result: toolmend.ParseResult) -> list[tuple[str, dict[str, Any], bool]]:
    return [(c.name, c.arguments, c.incomplete) for c in result.tool_calls]


# ------------------------------------------------------------- 1: qwen3-coder JSON bodies

TWO_JSON_CALLS = (
    '<tool_call>\n{"name":"get_weather","arguments":{"city":"Rome"}}\n</tool_call>\n'
    '<tool_call>\n{"name":"get_weather","arguments":{"city":"Paris"}}\n</tool_call>'
)


@pytest.mark.parametrize("chunk_size", [None, 1, 13])
def test_qwen3_coder_reads_two_json_bodied_calls_whole_and_in_chunks(
    chunk_size: int | None,
) -> None:
    result = toolmend.parse(TWO_JSON_CALLS, "qwen3-coder", TOOLS, chunk_size=chunk_size)
    assert calls(result) == [
        ("get_weather", {"city": "Rome"}, False),
        ("get_weather", {"city": "Paris"}, False),
    ]
    assert [d.code for d in result.diagnostics] == []


@pytest.mark.parametrize("protocol", ["qwen3-coder", "hermes", "auto"])
def test_a_json_body_handed_to_the_hermes_reader_is_split_invariant(protocol: str) -> None:
    assert_split_invariant(protocol, '<tool_call>{<tool_call>{"name":""', TOOLS)
    assert_split_invariant(protocol, TWO_JSON_CALLS, TOOLS)


# --------------------------------------------- 2: held-back text is not re-read per feed


@pytest.mark.parametrize("protocol", EVERY_PROTOCOL)
@pytest.mark.parametrize(
    "text",
    [
        "`" * 3000,
        "x " + "`" * 3000 + " y",
        "```\n" + "`" * 3000,
        "```\ncode\n" + "`" * 2000 + " " * 800 + "\nafter",
        "``" + " " * 2500 + "``" + " tail",
        "```" + " " * 600 + "\nfenced",
        "<tool_call>" + " " * 3000,
        "<function_calls>" + " " * 3000,
        "<write_file>" + " " * 3000,
    ],
    ids=lambda t: repr(t[:14]),
)
def test_long_runs_held_back_read_the_same_one_character_at_a_time(
    protocol: str, text: str
) -> None:
    """The scanner and the auto dispatch resume where they stopped looking; what they decide
    must not change (linear cost itself is checked by bench/linear_cost.py)."""
    tools = [{"name": "write_file", "parameters": {"type": "object"}}, *TOOLS]
    whole = run_chunks(protocol, [text], tools)
    by_char = run_chunks(protocol, list(text), tools)
    assert comparable(by_char) == comparable(whole)
    assert_conserved(text, by_char)


# ----------------------------------------------------------- 3: gemma4 argument language


@pytest.mark.parametrize(
    "text",
    [
        '<|tool_call>call:getweather{"city"#}',
        '<|tool_call>call:get_weather{<|"|>Rome<|"|>}<tool_call|>',
        '<|tool_call>call:get_weather{"city"<|"|>Rome<|"|>}<tool_call|>',
    ],
)
def test_gemma4_reads_a_value_without_its_container_or_colon_as_an_incomplete_call(
    text: str,
) -> None:
    result = toolmend.parse(text, "gemma4", TOOLS)
    assert [c.incomplete for c in result.tool_calls] == [True]
    assert_split_invariant("gemma4", text, TOOLS)


# ------------------------------------------------- 8: one trailing-comma rule for all formats

TRAILING_COMMAS = {
    "gemma4": '<|tool_call>call:get_weather{city:<|"|>Oslo<|"|>,days:2,}<tool_call|>',
    "hermes": '<tool_call>{"name":"get_weather","arguments":{"city":"Oslo","days":2,}}</tool_call>',
    "qwen3-coder": '<tool_call>\n<function=get_weather>\n{"city":"Oslo","days":2,}\n</function>\n</tool_call>',
}


@pytest.mark.parametrize("protocol", sorted(TRAILING_COMMAS))
def test_a_trailing_comma_is_a_recorded_repair_under_lenient(protocol: str) -> None:
    result = toolmend.parse(TRAILING_COMMAS[protocol], protocol, TOOLS, policy="lenient")
    [call] = result.tool_calls
    assert (call.arguments, call.incomplete) == ({"city": "Oslo", "days": 2}, False)
    assert "trailing-comma" in call.repairs


@pytest.mark.parametrize("protocol", sorted(TRAILING_COMMAS))
def test_a_trailing_comma_leaves_the_call_incomplete_under_strict(protocol: str) -> None:
    result = toolmend.parse(TRAILING_COMMAS[protocol], protocol, TOOLS, policy="strict")
    assert [c.incomplete for c in result.tool_calls] == [True]


def test_a_comma_inside_a_json_string_is_never_dropped() -> None:
    text = '<tool_call>{"name":"get_weather","arguments":{"city":"a,}",}}</tool_call>'
    [call] = toolmend.parse(text, "hermes", TOOLS).tool_calls
    assert call.arguments == {"city": "a,}"}


# ------------------------------------------------ 9: duplicate keys follow the format's rule

DUPLICATES = {
    "yaml-xml": "<get_weather>\ncity: Rome\ncity: Paris\n</get_weather>",
    "anthropic-xml": '<invoke name="get_weather"><parameter name="city">Rome</parameter><parameter name="city">Paris</parameter></invoke>',
    "hermes": '<tool_call>{"name":"get_weather","arguments":{"city":"Rome","city":"Paris"}}</tool_call>',
    "gemma4": '<|tool_call>call:get_weather{city:<|"|>Rome<|"|>,city:<|"|>Paris<|"|>}<tool_call|>',
    "qwen3-coder": "<tool_call>\n<function=get_weather>\n<parameter=city>\nRome\n</parameter>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
    "morph-xml": "<get_weather>\n<city>Rome</city>\n<city>Paris</city>\n</get_weather>",
}


@pytest.mark.parametrize("protocol", sorted(DUPLICATES))
def test_a_duplicate_key_rejects_the_call_in_formats_that_reject(protocol: str) -> None:
    [call] = toolmend.parse(DUPLICATES[protocol], protocol, TOOLS).tool_calls
    assert call.incomplete
    assert call.error == "argument 'city' is given twice"


def test_a_duplicate_kept_by_last_wins_is_recorded_as_a_repair() -> None:
    [call] = toolmend.parse(DUPLICATES["anthropic-xml"], "antml", TOOLS).tool_calls
    assert (call.arguments, call.incomplete) == ({"city": "Paris"}, False)
    assert "duplicate-key-last-wins" in call.repairs
