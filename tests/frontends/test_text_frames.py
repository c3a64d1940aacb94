"""A text chunk written straight to its frame (`text_frame`) is byte for byte the frame of the
event `feed` gives for it, so the served stream is exactly the grammar the writers are tested
for, whatever the text and wherever the chunk falls among blocks and items."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from frontends.chunks import call, chunk, reasoning, text, usage
from toolmend.server.frontends import messages_stream, responses_stream
from toolmend.server.frontends.chat_stream import plain_text
from toolmend.server.frontends.messages import translate_request as translate_messages
from toolmend.server.frontends.messages_stream import MessagesStream
from toolmend.server.frontends.responses import translate_request as translate_responses
from toolmend.server.frontends.responses_stream import ResponsesStream
from toolmend.server.frontends.sse import SLOT, FrameTemplate, sse_frame

WRITE = {
    "name": "Write",
    "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}}},
}
STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("text"), st.text(max_size=12)),
        st.tuples(st.sampled_from(["reasoning", "call", "arguments", "finish"]), st.just("")),
    ),
    max_size=16,
)
Writer = MessagesStream | ResponsesStream


def _chunks(steps: list[tuple[str, str]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    calls = 0
    for step, value in steps:
        if step == "text":
            out.append(text(value))
        elif step == "reasoning":
            out.append(reasoning("r"))
        elif step == "call":
            out.append(call(calls, id=f"call_{calls}", name="Write", arguments="{"))
            calls += 1
        elif step == "arguments" and calls:
            out.append(call(calls - 1, arguments="}"))
        elif step == "finish":
            out.append(chunk(finish="stop"))
    return [*out, usage(5, 7)]


@contextmanager
def _counted_ids() -> Iterator[None]:
    """Ids minted in order (the writers' own are random) and one clock reading, so two runs
    can be compared."""
    counter = itertools.count()

    def new_id(prefix: str) -> str:
        return f"{prefix}{next(counter)}"

    with (
        mock.patch.object(messages_stream, "new_id", new_id),
        mock.patch.object(responses_stream, "new_id", new_id),
        mock.patch.object(responses_stream.time, "time", lambda: 1_700_000_000.0),
    ):
        yield


def _writers() -> tuple[Writer, Writer]:
    messages = {"model": "m", "max_tokens": 9, "tools": [WRITE], "messages": [{"role": "user"}]}
    responses = {"model": "m", "input": "hi", "tools": [{"type": "function", **WRITE}]}
    request = translate_responses(responses)
    return (
        MessagesStream(translate_messages(messages), model="m", input_tokens=3),
        ResponsesStream(request, responses, model="m", input_tokens=3, response_id="resp_1"),
    )


def _served(writer: Writer, chunks: list[dict[str, Any]]) -> bytes:
    """The frames as the app writes them: `text_frame` first for a chunk that carries only
    text, `feed` for any other chunk and for what `text_frame` does not take."""
    frames = [sse_frame(event) for event in writer.start()]
    for piece in chunks:
        only = plain_text(piece)
        frame = None if only is None else writer.text_frame(only)
        frames += [frame] if frame is not None else [sse_frame(e) for e in writer.feed(piece)]
    return b"".join(frames + [sse_frame(event) for event in writer.finish()])


def _fed(writer: Writer, chunks: list[dict[str, Any]]) -> bytes:
    events = writer.start() + [event for piece in chunks for event in writer.feed(piece)]
    return b"".join(sse_frame(event) for event in events + writer.finish())


@given(STEPS)
def test_text_frames_are_the_frames_of_the_events_feed_gives(steps: list[tuple[str, str]]) -> None:
    chunks = _chunks(steps)
    for index in range(2):
        with _counted_ids():
            served = _served(_writers()[index], chunks)
        with _counted_ids():
            fed = _fed(_writers()[index], chunks)
        assert served == fed


@given(st.text(), st.integers(min_value=0, max_value=2**53))
def test_a_filled_template_is_the_frame_of_the_filled_event(value: str, number: int) -> None:
    shape = {"type": "response.output_text.delta", "item_id": "msg_1", "n": SLOT, "delta": SLOT}
    assert FrameTemplate(shape).fill2(number, value) == sse_frame(
        {**shape, "n": number, "delta": value}
    )
    nested = {"type": "content_block_delta", "index": 2, "delta": {"text": SLOT}}
    assert FrameTemplate(nested).fill(value) == sse_frame({**nested, "delta": {"text": value}})


def test_a_template_without_a_slot_is_refused() -> None:
    with pytest.raises(ValueError, match="slots"):
        FrameTemplate({"type": "ping"})


@pytest.mark.parametrize("index", [0, 1], ids=["messages", "responses"])
def test_an_answer_that_begins_with_text_has_its_first_frames_made_before_it_arrives(
    index: int,
) -> None:
    """`start` (sent while the model prefills) makes the frames that open the first text, so
    the first text chunk goes straight to its frames as every later one does."""
    with _counted_ids():
        writer = _writers()[index]
        writer.start()
        first = writer.text_frame("Hello")
    with _counted_ids():
        fed = _writers()[index]
        fed.start()
        expected = b"".join(sse_frame(event) for event in fed.feed(text("Hello")))
    assert first is not None and first == expected


@pytest.mark.parametrize("index", [0, 1], ids=["messages", "responses"])
def test_the_first_frames_made_early_are_dropped_when_the_answer_begins_otherwise(
    index: int,
) -> None:
    writer = _writers()[index]
    writer.start()
    assert writer.feed(reasoning("Let me think."))
    assert writer.text_frame("Hello") is None  # a new block or item: `feed` opens it
    events = writer.feed(text("Hello"))
    kinds = [event["type"] for event in events]
    opened = "content_block_start" if index == 0 else "response.output_item.added"
    assert opened in kinds
