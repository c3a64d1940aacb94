"""A bare JSON list whose first item is no call object costs linear work in its items.

`[1, {"name": "get_weather", …}, …]`: the list's `[` is refused by its body start (no reader is
built for brace prose), so each object in it is looked at as a marker of its own; that must stay
one bounded look per item, never a rescan of what came before. Measured as a count of function
calls (load does not move it), the rule of `bench/linear_cost.py`.
"""

from __future__ import annotations

import cProfile
import pstats

import pytest

import toolmend
from tool_fixtures import WEATHER

BARE_FORMATS = ["json", "llama3-json", "auto"]
ITEM = '{"name": "get_weather", "arguments": {"city": "Paris"}}, '


def read(text: str, protocol: str, chunk_size: int | None = None) -> toolmend.ParseResult:
    return toolmend.parse(text, protocol, WEATHER, chunk_size=chunk_size)


@pytest.mark.parametrize("protocol", BARE_FORMATS)
def test_a_list_of_call_objects_is_still_calls(protocol: str) -> None:
    result = read(f"[{ITEM}{ITEM.rstrip(', ')}]", protocol)
    assert [c.arguments for c in result.tool_calls] == [{"city": "Paris"}] * 2
    assert result.text == ""


def function_calls(protocol: str, text: str, chunk_size: int) -> int:
    """Python function calls made to parse `text` in `chunk_size` pieces (a measure of work
    that the machine's load does not move)."""
    parser = toolmend.stream_parser(protocol, WEATHER)
    profile = cProfile.Profile()
    profile.enable()
    for start in range(0, len(text), chunk_size):
        parser.feed(text[start : start + chunk_size])
    parser.finish()
    profile.disable()
    return pstats.Stats(profile).total_calls  # type: ignore[attr-defined, no-any-return]


@pytest.mark.parametrize("protocol", BARE_FORMATS)
@pytest.mark.parametrize("chunk_size", [1, 5])
def test_a_refused_list_costs_linear_work_in_its_items(protocol: str, chunk_size: int) -> None:
    # `bench/linear_cost.py`'s rule as a count: twice the items, at most 2.3 times the work.
    small = function_calls(protocol, "[1, " + ITEM * 100 + "2]", chunk_size)
    large = function_calls(protocol, "[1, " + ITEM * 200 + "2]", chunk_size)
    assert large / small <= 2.3
