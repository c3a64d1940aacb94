"""The SSE reader the openai adapter uses: any split of the body gives the same events."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from toolmend.integrations._sse import EventReader

from .scenarios import SCENARIOS, chunks, sse


def events(pieces: list[bytes]) -> list[tuple[object, bool, bytes]]:
    reader = EventReader()
    out = [e for piece in pieces for e in reader.feed(piece)] + reader.finish()
    return [(e.chunk, e.done, e.raw) for e in out]


BODY = b": ping\r\n\r\n" + sse(chunks(SCENARIOS[0])).replace(b"\n\n", b"\r\n\r\n", 2).replace(
    b"a.txt", "\u00e9\u2028.txt".encode()
)


@given(st.lists(st.integers(min_value=0, max_value=len(BODY)), max_size=12))
def test_events_are_the_same_however_the_body_is_split(cuts):
    points = sorted(set(cuts))
    pieces = [BODY[a:b] for a, b in zip([0, *points], [*points, len(BODY)], strict=True)]
    assert events(pieces) == events([BODY])


def test_a_line_separator_inside_json_data_does_not_end_the_line():
    body = 'data: {"content": "a\u2028b"}\n\n'.encode()
    assert events([body])[0][0] == {"content": "a\u2028b"}


def test_the_done_sentinel_and_comments_are_told_apart_from_chunks():
    got = events([b": c\n\ndata: [DONE]\n\n"])
    assert [(chunk, done) for chunk, done, _ in got] == [(None, False), (None, True)]


def test_an_event_without_its_blank_line_is_delivered_at_the_end():
    assert events([b'data: {"a": 1}'])[0][0] == {"a": 1}
