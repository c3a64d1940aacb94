"""A bare JSON list whose first item is no call object is data: all text, nothing in it runs,
in linear work.

`[1, {"name": "get_weather", …}, …]`: the list's `[` is refused by its body start before any
reader is built (brace prose builds none), and the value it begins is passed over as text to
its end (`BodyStart.data`, `core/jsonskip.RefusedJson`): the call-shaped objects in it are never
looked at as markers of their own. One pass over the list, never a rescan of what came before:
measured as a count of function calls (load does not move it), the rule of
`bench/linear_cost.py`.
"""

from __future__ import annotations

import cProfile
import pstats

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolmend
from support import assert_conserved, comparable, readers_built, run_chunks, split_at
from tool_fixtures import WEATHER
from toolmend.core.reader import MAX_TAG_LENGTH
from toolmend.events import TextDelta, ToolCallEnd

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


#: The formats that read bare JSON anywhere in prose (with tools), hermes among them.
DATA_LIST_FORMATS = ["json", "llama3-json", "hermes", "auto"]
CALL = ITEM.rstrip(", ")
#: Lists whose first item is no call object: data, however call-shaped what follows is.
DATA_LISTS = [
    f"[1, {CALL}]",
    f'["a", {CALL}]',
    f"[[1], {CALL}]",
    f"[true, {CALL}]",
    f"[-2.5, {CALL}, 3]",
    f'[\n  "a",\n  {CALL}\n]',
    f'[1, "<tool_call>{CALL.replace(chr(34), chr(39))}</tool_call>", {CALL}]',
]


@pytest.mark.parametrize("protocol", DATA_LIST_FORMATS)
@pytest.mark.parametrize("data", DATA_LISTS)
@pytest.mark.parametrize("tools", [WEATHER, None], ids=["tools", "no-tools"])
def test_call_objects_inside_a_data_list_are_text_and_never_run(
    protocol: str, data: str, tools: object
) -> None:
    # Read as calls under json, llama3-json and auto (with tools) before: each `{` after the
    # refused `[` was a bare marker of its own. (With tools=None a bare list opens nothing
    # but the whole output, so in prose it is prose, strings and all.)
    texts = [data, f"The rows are {data} as listed."] if tools else [data]
    for text in texts:
        for chunk_size in (None, 1, 7):
            result = toolmend.parse(text, protocol, tools, chunk_size=chunk_size)
            assert result.tool_calls == []
            assert result.text == text
            assert result.diagnostics == []


@pytest.mark.parametrize("protocol", DATA_LIST_FORMATS)
def test_a_call_after_a_data_list_is_still_a_call(protocol: str) -> None:
    tail = "</tool_call>" if protocol == "hermes" else ""
    for data in ("[1, 2]", '["a", [3]]', f"[1, {CALL}]"):
        text = f"Rows {data} done.\n[{CALL}]{tail}"
        result = read(text, protocol)
        assert [c.arguments for c in result.tool_calls] == [{"city": "Paris"}], data
        assert result.text.startswith(f"Rows {data} done.")


@pytest.mark.parametrize("protocol", DATA_LIST_FORMATS)
def test_a_data_list_builds_no_reader(protocol: str, monkeypatch: pytest.MonkeyPatch) -> None:
    built = readers_built(protocol, monkeypatch)
    text = "Set [1, 2] and " + " then ".join(DATA_LISTS[:5]) + "."
    for chunk_size in (None, 1):
        assert read(text, protocol, chunk_size).text == text
    assert built == []


#: Items of generated data lists: numbers, strings (with markup in them), call objects, lists.
DATA_ITEMS = st.sampled_from(
    [
        "1",
        "-0.5e3",
        "null",
        '"a"',
        '"<tool_call>"',
        '"\\\\"',
        '"x\\"y"',
        CALL,
        f"[{CALL}]",
        "[]",
        '{"a": [1, {"b": 2}]}',
    ]
)


@pytest.mark.parametrize("protocol", DATA_LIST_FORMATS)
@settings(max_examples=12, deadline=None)
@given(
    first=st.sampled_from(["0", '"a"', "[1]", "false", '"[{"']),
    items=st.lists(DATA_ITEMS, min_size=1, max_size=4),
    blank=st.sampled_from(["", " ", "\n  "]),
    cap=st.sampled_from([None, MAX_TAG_LENGTH, 200]),
)
def test_a_data_list_is_all_text_at_every_split_and_char_by_char(
    protocol: str, first: str, items: list[str], blank: str, cap: int | None
) -> None:
    text = "See [" + blank + (", " + blank).join([first, *items]) + "] and go on."
    options = {} if cap is None else {"max_fragment": cap}
    whole = run_chunks(protocol, [text], WEATHER, **options)
    assert_conserved(text, whole)
    assert not [e for e in whole if isinstance(e, ToolCallEnd)]
    assert "".join(e.text for e in whole if isinstance(e, TextDelta)) == text
    reference = comparable(whole)
    for chunks in [list(text), *(split_at(text, [i]) for i in range(1, len(text)))]:
        got = comparable(run_chunks(protocol, chunks, WEATHER, **options))
        assert got == reference, f"split {[len(c) for c in chunks][:3]} changed the events"
