"""Hostile or broken model output: every protocol answers with data, never an exception.

Deep nesting past Python's recursion limit, floods of marker prefixes, backticks and tags,
YAML aliases: each parses to text, calls and diagnostics, and keeps conservation.
"""

from __future__ import annotations

import pytest

import toolmend
from support import assert_conserved, run_chunks
from toolmend.jsontext import MAX_NESTING

TOOLS = [{"name": "x", "parameters": {"type": "object", "properties": {"a": {}}}}]
DEEP = 5000  # past the interpreter's default recursion limit of 1000

CASES = {
    "deep JSON arguments": '<tool_call>{"name":"x","arguments":{"a":'
    + "[" * DEEP
    + "]" * DEEP
    + "}}</tool_call>",
    "deep JSON cut off": '<tool_call>{"name":"x","arguments":{"a":' + "[" * DEEP,
    "deep qwen value": "<tool_call><function=x><parameter=a>"
    + "[" * DEEP
    + "]" * DEEP
    + "</parameter></function></tool_call>",
    "deep gemma value": "<|tool_call>call:x{a:" + "{b:" * DEEP + "1" + "}" * DEEP + "}<tool_call|>",
    "deep morph items": "<x><a>" + "<item>" * DEEP + "1" + "</item>" * DEEP + "</a></x>",
    "a flood of <": "<" * 50_000,
    "a flood of open markers": "<tool_call>" * 5_000,
    "a flood of backticks": "`" * 20_000 + " <tool_call>",
    "a flood of XTML opens": "<|open|>" * 5_000,
    "a flood of invokes": '<invoke name="x">' * 3_000,
    "a YAML alias bomb": "<x>\na: &a [1, 2]\nb: [*a, *a, *a]\n</x>",
}


@pytest.mark.parametrize("protocol", ["auto", *toolmend.protocols()])
@pytest.mark.parametrize("name", list(CASES))
def test_hostile_output_is_parsed_to_data_and_conserved(protocol: str, name: str) -> None:
    text = CASES[name]
    events = run_chunks(protocol, [text], TOOLS)
    assert_conserved(text, events)


def test_arguments_nested_past_the_limit_make_the_call_incomplete() -> None:
    depth = MAX_NESTING + 50  # decodable, but deeper than toolmend accepts
    text = '<tool_call>{"name":"x","arguments":{"a":' + "[" * depth + "]" * depth + "}}</tool_call>"
    [call] = toolmend.parse(text, "hermes", TOOLS).tool_calls
    assert call.incomplete and "nested" in (call.error or "")
