"""`JsonScan` reading a language other than JSON: its hooks see the same tokens whatever the split."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from toolmend.core.jsonscan import (
    JSON_STRING,
    KEY,
    VALUE,
    ArgumentLanguage,
    JsonScan,
    StringForm,
)

RAW = StringForm("<q>", "<q>", escapes=False)
SINGLE = StringForm("'", "'", values_only=True, stops_end=True, tail="<q>")
LANGUAGE = ArgumentLanguage((RAW, JSON_STRING, SINGLE), bare_keys=True, bare_words=True)
STOP = "<end>"


class Recorder(JsonScan):
    """Writes down every hook call (string pieces joined, as splits differ only there)."""

    def __init__(self, language: ArgumentLanguage = LANGUAGE) -> None:
        super().__init__((STOP,), language)
        self.events: list[tuple[str, str]] = []
        self.text: list[str] = []

    def _add(self, kind: str, text: str = "") -> None:
        self.events.append((kind, text))

    def on_key(self, key: str) -> None:
        self._add("key", key)

    def on_string_start(self) -> None:
        self._add("string", self.string_form.opener)

    def on_string_piece(self, raw: str) -> None:
        self.text.append(raw)

    def on_string_end(self) -> None:
        self._add("text", "".join(self.text))
        self.text.clear()

    def on_open(self, char: str) -> None:
        self._add("open", char)

    def on_close(self, char: str) -> None:
        self._add("close", char)

    def on_scalar(self, raw: str) -> None:
        self._add("scalar", raw)

    def on_separator(self, char: str) -> None:
        self._add("sep", char)

    def on_stop_in_string(self, marker: str) -> None:
        self._add("stop-in-string", marker)

    def on_string_tail(self) -> None:
        self._add("tail")


def scan(text: str, cuts: list[int] = ()) -> tuple[list[tuple[str, str]], str | None, int]:
    """Feed `text` cut at `cuts`, as a reader keeps unread input: the events, the stop marker
    found and where it stands."""
    r = Recorder()
    buf, pos = "", 0
    for piece in [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]:
        buf += piece
        pos, stop = r.scan(buf, pos, len(buf), False)
        if stop is not None:
            return r.events, stop, pos
    pos, stop = r.scan(buf, pos, len(buf), True)
    r.end_bare()
    return r.events, stop, pos


SAMPLE = "{a:<q>x, y <end> z<q>,'b':true, c : bare word: ok ,d:'s'<q>,e:[1,\"\\u00e9\"]}"


def test_bare_keys_bare_words_and_every_string_form_are_reported() -> None:
    events, stop, _ = scan(SAMPLE)
    assert stop is None
    assert events == [
        ("open", "{"),
        ("key", "a"),
        ("sep", ":"),
        ("string", "<q>"),
        ("stop-in-string", STOP),
        ("text", "x, y <end> z"),
        ("sep", ","),
        ("key", "'b'"),  # a values-only opener where a key is due is text of a bare key
        ("sep", ":"),
        ("scalar", "true"),
        ("sep", ","),
        ("key", "c"),
        ("sep", ":"),
        ("scalar", "bare word: ok"),  # a `:` inside a bare word is text
        ("sep", ","),
        ("key", "d"),
        ("sep", ":"),
        ("string", "'"),
        ("text", "s"),
        ("tail", ""),
        ("sep", ","),
        ("key", "e"),
        ("sep", ":"),
        ("open", "["),
        ("scalar", "1"),
        ("sep", ","),
        ("string", '"'),
        ("text", "\\u00e9"),
        ("close", "]"),
        ("close", "}"),
    ]


def test_a_stop_marker_ends_the_scan_outside_strings_and_inside_a_form_it_ends() -> None:
    assert scan("{a:1 <end>")[1:] == (STOP, 5)
    assert scan("{a:'open <end>")[1:] == (STOP, 9)
    assert scan("{a:bare<end>")[1:] == (STOP, 7)


@given(st.lists(st.integers(min_value=1, max_value=len(SAMPLE) - 1), unique=True, max_size=12))
def test_the_events_do_not_depend_on_where_the_input_was_cut(cuts: list[int]) -> None:
    assert scan(SAMPLE, sorted(cuts)) == scan(SAMPLE)


def test_json_is_read_as_before_when_no_language_is_given() -> None:
    r = Recorder(ArgumentLanguage())
    r.scan('{"a": [1, "x"]}', 0, 15, True)
    assert [e for e in r.events if e[0] != "sep"] == [
        ("open", "{"),
        ("key", "a"),
        ("open", "["),
        ("scalar", "1"),
        ("string", '"'),
        ("text", "x"),
        ("close", "]"),
        ("close", "}"),
    ]


def test_where_a_key_is_due_follows_the_structure_by_default() -> None:
    r = Recorder()
    r.scan("{", 0, 1, False)
    assert r.expecting() == KEY
    r.scan("{a:", 1, 3, False)
    assert r.expecting() == VALUE
