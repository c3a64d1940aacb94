"""The text scanner: opening markers outside code, with a bounded hold-back."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolmend.core.textscan import (
    EVENTFUL_PREFIX,
    TextScanner,
    is_proper_prefix,
    partial_marker_start,
    skip_blanks,
)
from toolmend.model import coerce_tools
from toolmend.names import ToolResolver
from toolmend.protocols import get_protocol

MARKER = "<tool_call>"


def markers_found(text: str, chunk: int | None = None) -> list[int]:
    """Offsets of markers the scanner reports, feeding `text` in chunks of `chunk` characters."""
    scanner = TextScanner([MARKER])
    pieces = [text] if chunk is None else [text[i : i + chunk] for i in range(0, len(text), chunk)]
    found: list[int] = []
    buf, base = "", 0
    for k, piece in enumerate(pieces):
        buf += piece
        pos = 0
        while True:
            end, at = scanner.scan(buf, pos, k == len(pieces) - 1)
            pos = end
            if at is None:
                break
            found.append(base + at)
            pos += len(scanner.matched)
        base += pos
        buf = buf[pos:]
    return found


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a <tool_call>", [2]),
        ("a `<tool_call>` b", []),
        ("a ``x ` <tool_call> `` b", []),
        ("```\n<tool_call>\n```\n<tool_call>", [20]),
        ("~~~~\n<tool_call>\n~~~\n<tool_call>\n~~~~\n<tool_call>", [38]),
        ("   ```py\n<tool_call>\n```\n<tool_call>", [25]),
        ("    ```\n<tool_call>", [8]),  # four spaces: indented text, not a fence
        ("```\r\n<tool_call>\r\n```\r\n<tool_call>", [23]),
        ("x ```a``` <tool_call>", [10]),  # backticks with a closer on the line: inline code
        ("`unclosed <tool_call>\n", [10]),  # no closer on the line: the backtick is literal
        ("````\n```\n<tool_call>\n````\n<tool_call>", [26]),  # a shorter run does not close
    ],
)
def test_markers_count_only_outside_code(text: str, expected: list[int]) -> None:
    for chunk in (None, 1, 2, 3, 7):
        assert markers_found(text, chunk) == expected, chunk


def test_only_the_longest_suffix_that_could_become_a_marker_is_held_back() -> None:
    scanner = TextScanner([MARKER])
    end, at = scanner.scan("hello <tool_ca", 0, final=False)
    assert (end, at) == (6, None)
    end, at = scanner.scan("hello <tool_ca", 0, final=True)
    assert (end, at) == (14, None)


def test_the_partial_marker_search_looks_only_at_the_last_marker_length() -> None:
    assert partial_marker_start("xx<tool", 0, 7, [MARKER], "<") == 2
    assert partial_marker_start("xx<tooX", 0, 7, [MARKER], "<") == 7


def test_an_inline_span_without_a_closer_in_the_lookahead_bound_is_literal() -> None:
    text = "`" + "x" * 5000 + " <tool_call>"
    assert markers_found(text, 50) == [5002]


def test_a_marker_that_begins_a_longer_one_waits_for_the_longer_at_a_chunk_boundary() -> None:
    scanner = TextScanner(["</f>", "</f>\n</t>"])
    assert scanner.scan("x</f>\n</", 0, final=False) == (1, None)
    assert scanner.scan("x</f>\n</t>", 0, final=False) == (1, 1)
    assert scanner.matched == "</f>\n</t>"
    assert scanner.scan("x</f>\nzz", 0, final=False) == (1, 1)
    assert scanner.matched == "</f>"


def test_a_marker_inside_a_longer_one_that_began_earlier_waits_for_the_longer() -> None:
    # HY V4's `<tool_call:opensource>` holds Gemma 4's bare `call:`: fed `<tool_call:` first,
    # the scanner must hold from `<`, as it finds the longer marker there when the text is whole.
    scanner = TextScanner(["<tool_call:opensource>", "call:"])
    assert scanner.scan("x<tool_call:", 0, final=False) == (1, None)
    assert scanner.scan("x<tool_call:opensource>", 0, final=False) == (1, 1)
    assert scanner.matched == "<tool_call:opensource>"
    assert scanner.scan("x<tool_call:x", 0, final=False) == (7, 7)  # the longer one failed
    assert scanner.matched == "call:"
    assert scanner.scan("x<tool_call:", 0, final=True) == (7, 7)


def test_a_proper_prefix_of_a_literal_may_still_grow_into_it() -> None:
    assert is_proper_prefix("</par", ("</parameter>", "<x>"))
    assert is_proper_prefix("", ("<x>",))
    assert not is_proper_prefix("<x>", ("<x>",))  # whole, not a proper prefix
    assert not is_proper_prefix("</q", ("</parameter>", "<x>"))


def test_blanks_are_skipped_only_within_the_window() -> None:
    assert skip_blanks("a \t\r\n b", 1, 7) == 6
    assert skip_blanks("a   b", 1, 2) == 2  # never past `end`
    assert skip_blanks("ab", 1, 2) == 1


ANTML_LIKE = ["<function_calls>", 'antml:invoke name="', "<invoke", "<tool_call>"]


@settings(max_examples=600, deadline=None)
@given(
    st.lists(st.text(alphabet="ant ml<i`\n~x:", max_size=12), max_size=6),
    st.text(alphabet="ant ml<i`\n~x:ovk", min_size=1, max_size=24),
    st.booleans(),
)
def test_the_plain_extent_of_a_buffer_is_what_a_scan_of_it_releases(
    before: list[str], text: str, mask_code: bool
) -> None:
    # Whatever state earlier input left, and whatever it held back (passed back with the new
    # text, as `scan` asks): when `plain_extent` gives a length, `scan` over the same buffer
    # releases exactly that much, finds no marker and leaves the state as it was.
    scanner = TextScanner(ANTML_LIKE, mask_code=mask_code)
    buf = ""
    for piece in before:
        buf += piece
        pos = 0
        while True:
            end, at = scanner.scan(buf, pos, False)
            pos = end if at is None else end + len(scanner.matched)
            if at is None:
                break
        buf = buf[pos:]
    buf += text
    extent = scanner.plain_extent(buf)
    if extent < 0:
        return
    state = {name: getattr(scanner, name) for name in TextScanner.__slots__ if name != "matched"}
    assert scanner.scan(buf, 0, False) == (extent, None)
    assert {name: getattr(scanner, name) for name in state} == state


def test_a_word_that_begins_like_a_marker_only_in_its_first_letter_is_taken_whole() -> None:
    scanner = TextScanner(ANTML_LIKE)
    scanner.scan("x", 0, False)  # past the line start
    assert scanner.plain_extent("again and ") == 10


def test_a_possible_marker_start_at_the_end_of_prose_is_all_that_is_held() -> None:
    scanner = TextScanner(ANTML_LIKE)
    scanner.scan("x", 0, False)
    assert scanner.plain_extent("the ant") == 4  # `ant` may still grow into `antml:invoke`
    assert scanner.plain_extent("so <") == 3


def test_a_marker_a_code_span_or_a_line_in_prose_needs_the_scan() -> None:
    scanner = TextScanner([*ANTML_LIKE, "<x"])
    scanner.scan("x", 0, False)
    assert scanner.plain_extent("ok antml") == -1  # more than a marker's first four characters
    assert scanner.plain_extent("see <x") == -1  # a whole marker at the end
    assert scanner.plain_extent("a `b`") == -1
    assert scanner.plain_extent("one\ntwo") == -1


def _eventful_by_definition(text: str, markers: list[str]) -> bool:
    """Whether a marker could begin in `text`: its first `EVENTFUL_PREFIX` characters anywhere,
    a part of them at the end, or a backtick or line break."""
    if "`" in text or "\n" in text:
        return True
    for marker in markers:
        head = marker[:EVENTFUL_PREFIX]
        if head in text or any(text.endswith(head[:k]) for k in range(1, len(head))):
            return True
    return False


AUTO_MARKERS = list(
    get_protocol("auto").opening_markers(ToolResolver(coerce_tools([{"name": "get_weather"}])))
)


@settings(max_examples=400, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(sorted({c for m in AUTO_MARKERS for c in m[:4]} | set("ab ."))),
        max_size=12,
    )
)
def test_text_is_plain_whole_exactly_where_none_of_autos_markers_could_begin(text: str) -> None:
    # The search is built as a trie of the markers' starts; it must find what the flat list of
    # starts finds, over every registered format's markers at once; and what it leaves out of
    # the plain text is what a scan holds back.
    scanner = TextScanner(AUTO_MARKERS)
    scanner.scan("x", 0, False)  # past the line start
    extent = scanner.plain_extent(text)
    assert (extent == len(text)) is not _eventful_by_definition(text, AUTO_MARKERS)
    if extent >= 0:
        assert scanner.scan(text, 0, False) == (extent, None)
