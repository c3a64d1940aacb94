"""Anchored opening markers: a format declares where a marker may open a block (`anchors`), and
the parser alone enforces it, whatever the split (the character before a marker may have come
in an earlier chunk)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from importlib import import_module

import pytest
from hypothesis import given
from hypothesis import strategies as st

import toolmend
from support import check_all_invariants, comparable, run_chunks, split_at
from tool_fixtures import WEATHER
from toolmend.core.reader import ANCHORS, Anchor, BlockContext, BlockReader, anchor_holds
from toolmend.names import ToolResolver
from toolmend.protocols.base import TextProtocol
from toolmend.protocols.json_calls import JsonCallFormat, NamedArgumentsReader

registry = import_module("toolmend.protocols")
CALL = '@@get_weather\n{"city": "Oslo"}##'


class Anchored(TextProtocol):
    """`@@NAME\\n{...}##`, its marker anchored as the test says."""

    calls = JsonCallFormat(closers=("##",), block="a @@ block")

    def __init__(self, anchor: Anchor) -> None:
        self.id = f"test-anchored-{anchor}"
        self.anchor = anchor

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return ("@@",)

    def anchors(self, resolver: ToolResolver) -> Mapping[str, Anchor]:
        return {"@@": self.anchor}

    def closing_markers(self) -> Sequence[str]:
        return ("##",)

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        return NamedArgumentsReader(ctx, self.calls, marker, header_end="\n", name_of=str.strip)

    def render_tools(self, tools: object) -> str:
        return ""

    def render_call(self, call: object) -> str:
        return ""

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        return content


@pytest.fixture(autouse=True)
def registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for anchor in ANCHORS:
        proto = Anchored(anchor)
        monkeypatch.setitem(registry._MODULES, proto.id, __name__)
        monkeypatch.setitem(registry._loaded, proto.id, proto)
    yield


#: A call at the start of the output, after a blank, at a line start and mid-word.
TEXT = f"{CALL} see {CALL}\n{CALL}x{CALL}"
#: Which of the four calls each anchor reads.
READ = {
    "anywhere": 4,
    "word": 3,  # not after `x`
    "line": 2,  # the output's start and the line start
    "output": 1,
}


@pytest.mark.parametrize("anchor", ANCHORS)
def test_a_marker_opens_a_block_only_where_its_anchor_holds(anchor: Anchor) -> None:
    result = toolmend.parse(TEXT, f"test-anchored-{anchor}", WEATHER)
    assert len(result.tool_calls) == READ[anchor]
    # A marker that may not open where it stands is text as written, its call with it.
    assert result.text.count(CALL) == 4 - READ[anchor]
    check_all_invariants(f"test-anchored-{anchor}", TEXT, WEATHER)


def test_the_character_before_a_marker_counts_when_it_came_in_an_earlier_chunk() -> None:
    chunks = ["intro x", "@@get_weather\n", '{"city": "Oslo"}##']
    text = "".join(chunks)
    for anchor in ANCHORS:
        events = run_chunks(f"test-anchored-{anchor}", chunks, WEATHER)
        assert comparable(events) == comparable(
            run_chunks(f"test-anchored-{anchor}", [text], WEATHER)
        )
    assert not toolmend.parse(text, "test-anchored-word", WEATHER).tool_calls


@pytest.mark.parametrize(
    ("anchor", "before", "holds"),
    [
        ("anywhere", "x", True),
        ("word", "", True),
        ("word", "\t", True),
        ("word", "x", False),
        ("line", "\n", True),
        ("line", " ", False),
        ("output", "", True),
        ("output", "\n", False),
    ],
)
def test_each_anchor_names_what_may_stand_before_the_marker(
    anchor: Anchor, before: str, holds: bool
) -> None:
    assert anchor_holds(anchor, before, blank_so_far=before == "") is holds


def test_the_output_anchor_holds_after_blanks_and_reasoning_only() -> None:
    # "\n" before the marker: a blank line, or the end of a reasoning span, or another block.
    assert anchor_holds("output", "\n", blank_so_far=True)
    assert not anchor_holds("output", "\n", blank_so_far=False)


@given(
    st.lists(st.sampled_from([CALL, " ", "\n", "x", "@", "#", "@@", "`"]), max_size=8),
    st.lists(st.integers(min_value=1, max_value=300), max_size=6),
    st.sampled_from(ANCHORS),
)
def test_anchoring_is_split_invariant(parts: list[str], cuts: list[int], anchor: Anchor) -> None:
    text = "".join(parts)
    protocol = f"test-anchored-{anchor}"
    whole = comparable(run_chunks(protocol, [text], WEATHER))
    points = [c for c in cuts if c < len(text)]
    assert comparable(run_chunks(protocol, split_at(text, points), WEATHER)) == whole


def test_auto_asks_only_the_formats_whose_anchor_holds() -> None:
    # `[` opens a bare JSON list (anywhere, with tools) and a pythonic list (at a line start).
    mid_line, line_start = (
        "Checking: [get_weather(city='Oslo')]",
        "Checking:\n[get_weather(city='Oslo')]",
    )
    assert not toolmend.parse(mid_line, "auto", WEATHER).tool_calls
    calls = toolmend.parse(line_start, "auto", WEATHER).tool_calls
    assert [(c.name, c.arguments) for c in calls] == [("get_weather", {"city": "Oslo"})]
