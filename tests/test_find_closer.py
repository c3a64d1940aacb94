"""The one partial-closer helper: a reader finds its closer, or holds back only what could grow
into one, whatever the chunk boundaries."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolmend.core import textscan
from toolmend.core.textscan import find_closer

PARAMETER = ("</parameter>",)
QWEN_VALUE = ("</parameter>", "</function>", "<parameter=")


def read_in_chunks(text: str, closers: tuple[str, ...], cuts: list[int]) -> tuple[str, int, str]:
    """Feed `text` split at `cuts` as a reader would: release what `find_closer` lets go, keep
    the rest for the next chunk. Returns (released text, closer's offset or -1, the closer)."""
    bounds = [0, *sorted(set(c for c in cuts if 0 < c < len(text))), len(text)]
    released: list[str] = []
    buf, base = "", 0
    for k in range(1, len(bounds)):
        buf += text[bounds[k - 1] : bounds[k]]
        final = k == len(bounds) - 1
        at, closer = find_closer(buf, 0, len(buf), closers, final=final)
        released.append(buf[:at])
        if closer:
            return "".join(released), base + at, closer
        held = buf[at:]
        # Only a proper prefix of a closer is ever held back, and never at the end.
        assert not final or not held
        assert not held or any(c.startswith(held) and c != held for c in closers)
        base, buf = base + at, held
    return "".join(released), -1, ""


def whole_answer(text: str, closers: tuple[str, ...]) -> tuple[str, int, str]:
    found = [(text.find(c), i, c) for i, c in enumerate(closers) if c in text]
    if not found:
        return text, -1, ""
    at, _, closer = min(found)
    return text[:at], at, closer


@pytest.mark.parametrize(
    ("text", "closers", "expected"),
    [
        ("value</parameter>rest", PARAMETER, (5, "</parameter>")),
        ("value</param", PARAMETER, (5, "")),  # held back: it may still close
        ("value</paraX", PARAMETER, (12, "")),  # cannot close any more: released
        ("a<parameter=b></parameter>", QWEN_VALUE, (1, "<parameter=")),
        ("a</func", QWEN_VALUE, (1, "")),
    ],
)
def test_the_closer_is_found_or_only_a_partial_one_is_held_back(
    text: str, closers: tuple[str, ...], expected: tuple[int, str]
) -> None:
    assert find_closer(text, 0, len(text), closers) == expected


def test_at_the_end_of_the_stream_nothing_is_held_back() -> None:
    assert find_closer("value</param", 0, 12, PARAMETER, final=True) == (12, "")


def test_only_the_window_is_read() -> None:
    text = "ab</parameter>cd</param"
    assert find_closer(text, 0, 5, PARAMETER) == (2, "")  # `</pa` ends the window
    assert find_closer(text, 14, len(text), PARAMETER) == (16, "")


def test_at_one_position_the_closer_listed_first_wins() -> None:
    assert find_closer("x</a>", 0, 5, ("</a", "</a>")) == (1, "</a")
    assert find_closer("x</a>", 0, 5, ("</a>", "</a")) == (1, "</a>")


def test_split_at_every_boundary_the_answer_is_the_whole_texts() -> None:
    text = "code: if a </p and b <parameter x</parameter>after"
    expected = whole_answer(text, QWEN_VALUE)
    for cut in range(len(text) + 1):
        assert read_in_chunks(text, QWEN_VALUE, [cut]) == expected, cut
    assert read_in_chunks(text, QWEN_VALUE, list(range(len(text)))) == expected


@given(
    st.lists(st.sampled_from(["a", "<", "/", "</", "</p", "</parameter>", "<parameter=", "\n"])),
    st.lists(st.integers(min_value=0, max_value=200), max_size=12),
)
def test_however_the_text_is_split_the_closer_is_found_where_it_is(
    parts: list[str], cuts: list[int]
) -> None:
    text = "".join(parts)
    assert read_in_chunks(text, QWEN_VALUE, cuts) == whole_answer(text, QWEN_VALUE)


@given(
    st.text(alphabet="<|\"'>x", max_size=40),
    st.lists(st.integers(min_value=0, max_value=40), max_size=8),
)
def test_one_character_closers_mix_with_long_ones(text: str, cuts: list[int]) -> None:
    closers = ('"', '<|"|>', "<tool_call|>")
    assert read_in_chunks(text, closers, cuts) == whole_answer(text, closers)


def test_a_closer_inside_a_cut_off_longer_closer_waits_for_the_longer_one() -> None:
    # Hypothesis found it: with `"` and `<|"|>` both closers, `<|"` cut off after three
    # characters gave the `"` at 2, though the whole text's first closer is `<|"|>` at 0.
    closers = ('"', '<|"|>', "<tool_call|>")
    assert find_closer('<|"', 0, 3, closers) == (0, "")
    assert find_closer('<|"', 0, 3, closers, final=True) == (2, '"')
    assert read_in_chunks('<|"|>', closers, [3]) == whole_answer('<|"|>', closers)


# A long text is searched one of two ways (`_dense_in_starts` decides), and both find the same
# first closer as the whole text's answer says.
LONG = textscan.FIND_SPAN + 1


@given(
    st.lists(
        st.sampled_from(["<b>", "<i>x</i>", "a < b", "code\n", "<", "</para", " "]), min_size=1
    ),
    st.sampled_from([*QWEN_VALUE, ""]),
    st.integers(min_value=0, max_value=3 * LONG),
)
def test_a_long_text_dense_or_sparse_in_markup_finds_the_first_closer(
    pieces: list[str], closer: str, where: int
) -> None:
    filler = "".join(pieces)
    filler = (filler * (3 * LONG // len(filler) + 1))[: 3 * LONG]
    text = filler[:where] + closer + filler[where:]
    at, found = find_closer(text, 0, len(text), QWEN_VALUE, final=True)
    expected = whole_answer(text, QWEN_VALUE)
    assert (at if found else -1, found) == expected[1:]


def test_markup_every_few_characters_is_searched_by_finds_and_code_by_one_regex() -> None:
    markup = "<div><p>x</p></div>\n" * 200
    code = "    value = compute(alpha, beta) if alpha < beta else beta  # keep <tags>\n" * 40
    assert textscan._dense_in_starts(markup, 0, QWEN_VALUE)
    assert not textscan._dense_in_starts(code, 0, QWEN_VALUE)
    # one closer or several with different first characters: counted the same way
    assert not textscan._dense_in_starts("x" * LONG, 0, ("</a>", "[END]"))
