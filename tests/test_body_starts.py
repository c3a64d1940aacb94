"""Body starts: a bare marker (`{`, `[`, an anchored pythonic list) whose body cannot begin a
call is refused by the parser before it builds a reader (`BodyStart`), and that early refusal
gives exactly what the reader's own refusal gives, at every chunk boundary."""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolmend
from support import comparable, readers_built, split_at
from tool_fixtures import WEATHER
from toolmend.core.engine import StreamParser
from toolmend.core.reader import MAX_TAG_LENGTH, BodyStart
from toolmend.core.textscan import TextScanner
from toolmend.events import Event, TextDelta
from toolmend.model import coerce_tools
from toolmend.names import ToolResolver
from toolmend.protocols.base import TextProtocol

#: The formats with bare markers, and `auto`, which merges their body starts.
BARE_FORMATS = ("hermes", "json", "llama3-json", "pythonic", "gemma-tool-code", "auto")

CALL = '{"name": "get_weather", "arguments": {"city": "Oslo"}}'
#: Pieces of model output around bare markers: prose with braces, blanks up to and past the
#: guard's lookahead, real calls in each bare shape, code spans, reasoning and closers.
PIECES = [
    "{a: 1}",
    "[1, 2]",
    "{x}",
    "{",
    "[",
    "{ ",
    "[\n ",
    " ",
    "\n",
    "Sure, ",
    " " * (MAX_TAG_LENGTH - 1),
    " " * (MAX_TAG_LENGTH + 1),
    CALL,
    f"[{CALL}]",
    "</tool_call>",
    "<tool_call>",
    '{"a": 1}',
    '{"name": "no_such_tool", "arguments": {}}',
    '[get_weather(city="Oslo")]',
    "[get",
    "tool_code = get_weather(city='Oslo')",
    "`{x}`",
    '```\n{"x": 1}\n```\n',
    '<think>{"name": "get_weather"</think>',
    "{{",
    "[[",
    "[{",
    '{"',
]


def without_body_starts(proto: TextProtocol) -> TextProtocol:
    """`proto` with no body starts: every bare marker builds its reader, which refuses."""
    bare = copy.copy(proto)
    bare.body_starts = lambda resolver: {}  # type: ignore[method-assign]
    return bare


def events_of(syntax: TextProtocol, chunks: list[str], tools: Any) -> list[Any]:
    parser = StreamParser(syntax, coerce_tools(tools), id_prefix="call_")
    events: list[Event] = []
    for chunk in chunks:
        events += parser.feed(chunk)
    events += parser.finish()
    return comparable(events)


def assert_same_as_reader_refusal(protocol: str, text: str, tools: Any) -> None:
    proto = toolmend.get_protocol(protocol)
    reference = events_of(without_body_starts(proto), [text], tools)
    splits = [[text], list(text), *(split_at(text, [i]) for i in range(1, len(text)))]
    for chunks in splits:
        got = events_of(proto, chunks, tools)
        assert got == reference, f"{protocol}: split {[len(c) for c in chunks][:12]} differs"


@pytest.mark.parametrize("protocol", BARE_FORMATS)
@pytest.mark.parametrize("with_tools", [True, False])
@settings(max_examples=40, deadline=None)
@given(pieces=st.lists(st.sampled_from(PIECES), min_size=1, max_size=6))
def test_a_body_refused_early_gives_what_the_readers_refusal_gives_at_every_split(
    protocol: str, with_tools: bool, pieces: list[str]
) -> None:
    assert_same_as_reader_refusal(protocol, "".join(pieces), WEATHER if with_tools else None)


#: Texts where what the parser keeps after a refused marker decides the next one: only blanks
#: between a refused `{` and a call (a call that must be the whole output is not, after it),
#: blanks at the guard's bound, a marker at the very end.
EDGES = [
    "{ " + CALL + "</tool_call>",
    "[\n" + CALL,
    "{ " + f"[{CALL}]",
    "{" + " " * MAX_TAG_LENGTH + '"name": "get_weather"}',
    "{" + " " * (MAX_TAG_LENGTH + 1) + '"name": "get_weather"}',
    "[" + " " * MAX_TAG_LENGTH + "{}]",
    "Done {",
    "[ get_weather(city='Oslo')]",
    "\n[x] [get_weather(city='Oslo')]\n",
]


@pytest.mark.parametrize("protocol", BARE_FORMATS)
@pytest.mark.parametrize("text", EDGES)
@pytest.mark.parametrize("with_tools", [True, False])
def test_edges_of_an_early_refusal_give_what_the_readers_refusal_gives(
    protocol: str, text: str, with_tools: bool
) -> None:
    assert_same_as_reader_refusal(protocol, text, WEATHER if with_tools else None)


@pytest.mark.parametrize("protocol", BARE_FORMATS)
def test_brace_prose_builds_no_reader(protocol: str, monkeypatch: pytest.MonkeyPatch) -> None:
    built = readers_built(protocol, monkeypatch)
    text = "Set {a: 1} and [1, 2] then {x}.\n[1] {\n  x}\n"
    result = toolmend.parse(text, protocol, WEATHER)
    assert result.text == text and not result.tool_calls and not result.diagnostics
    assert built == []


@pytest.mark.parametrize("protocol", ["hermes", "json", "llama3-json", "auto"])
def test_bare_json_calls_still_open_their_block(protocol: str) -> None:
    text = f"Calling it.\n[{CALL}]" + ("</tool_call>" if protocol == "hermes" else "")
    result = toolmend.parse(text, protocol, WEATHER)
    assert [c.name for c in result.tool_calls] == ["get_weather"]
    assert result.tool_calls[0].executable


def texts(events: list[Event]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def test_a_marker_waits_while_its_body_may_still_open_a_call() -> None:
    parser = toolmend.stream_parser("json", WEATHER)
    assert texts(parser.feed("Then {")) == "Then "
    assert parser.feed("  ") == []  # blanks: a key may still follow
    assert texts(parser.feed("x")) == "{  x"


def test_any_of_opens_when_one_start_opens_and_waits_while_one_may() -> None:
    key = BodyStart(re.compile(r" *\""), re.compile(r" *"))
    name = BodyStart(re.compile(r"[a-z]+\("), re.compile(r"[a-z]*"), lookahead=8)
    either = BodyStart.any_of([key, name, key])
    assert either.others == (name,)
    assert either.verdict(' "', 0, 2, final=False) is True
    assert either.verdict("ab(", 0, 3, final=False) is True
    assert either.verdict("ab", 0, 2, final=False) is None
    assert either.verdict("ab", 0, 2, final=True) is False
    assert either.verdict("1", 0, 1, final=False) is False
    assert either.verdict("  ", 0, 2, final=False) is None  # `key` still may
    assert either.verdict("abcdefgh", 0, 8, final=False) is False  # `name` looked far enough
    assert BodyStart.any_of([key]) is key


def test_auto_declares_a_start_only_where_every_owner_does() -> None:
    resolver = ToolResolver(coerce_tools(WEATHER))
    starts: Mapping[str, BodyStart] = toolmend.get_protocol("auto").body_starts(resolver)
    assert {"{", "["} <= set(starts)
    assert "<tool_call>" not in starts


def test_a_guarded_marker_is_plain_text_to_the_scanner_where_its_guard_fails() -> None:
    scanner = TextScanner(["{", "<tool_call>"], guards={"{": r'[ \t]*"'})
    scanner.scan("x", 0, final=False)  # past the output's start (a line start)
    assert scanner.plain_extent("a {x} and {y}") == len("a {x} and {y}")
    assert scanner.plain_extent('a {"x": 1}') == -1
    assert scanner.plain_to_marker('a {x} {"x": 1}') == len("a {x} ")
    assert scanner.matched == "{"


def test_prose_with_refused_braces_is_one_text_delta_per_chunk() -> None:
    parser = toolmend.stream_parser("hermes", WEATHER)
    parser.feed("Start. ")
    assert parser.feed("Set {a: 1} and [1, 2].") == [TextDelta("Set {a: 1} and [1, 2].")]


def test_the_scan_passes_a_guarded_marker_where_its_guard_fails() -> None:
    scanner = TextScanner(["{", "<tool_call>"], guards={"{": r'[ \t]*"'})
    text = 'a {x}\nand {y}\n {"x": 1}'
    assert scanner.scan(text, 0, final=False) == (text.index('{"'), text.index('{"'))
    assert scanner.matched == "{"


@pytest.mark.parametrize("protocol", ["hermes", "json", "llama3-json", "auto"])
def test_brace_prose_of_many_lines_in_one_piece_is_one_text_delta(protocol: str) -> None:
    text = "Set the map to {a: 1} and the list to [1, 2], then print {x}.\n" * 50
    parser = toolmend.stream_parser(protocol, WEATHER)
    assert parser.feed(text) + parser.finish() == [TextDelta(text)]


def test_the_scan_still_waits_for_a_longer_marker_a_guarded_one_begins() -> None:
    scanner = TextScanner(["[", "[TOOL_CALLS]"], guards={"[": r"[ \t]*\{"})
    assert scanner.scan("a [x] [TOO", 0, final=False) == (len("a [x] "), None)
    text = "a [x] [TOOL_CALLS]"
    assert scanner.scan(text, 0, final=False) == (6, 6)
    assert scanner.matched == "[TOOL_CALLS]"


def test_the_scan_reports_a_guarded_marker_another_marker_begins_inside() -> None:
    # Refused, the parser passes `ab` whole; a search that skipped it would find `b` inside.
    scanner = TextScanner(["ab", "b"], guards={"ab": "X"})
    assert scanner.scan("x ab", 0, final=True) == (2, 2)
    assert scanner.matched == "ab"
