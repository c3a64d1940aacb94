"""Invariants of the proxy's stream handling, for every split of the upstream's bytes and text."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolmend.guard.history import HistoryGuard
from toolmend.model import coerce_tools
from toolmend.server.answer import ChunkWriter, completion_as_chunk, fold_chunks
from toolmend.server.demo.scripted import Answer, completion, stream_chunks
from toolmend.server.guarding import CallGate
from toolmend.server.native_mode import NativeAnswer
from toolmend.server.sse import MAX_EVENT_BYTES, SSEDecoder
from toolmend.server.text_mode import TextAnswer

from .servers import TOOLS

ANSWER_TEXT = (
    'Looking it up. <tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>'
    ' Also `<tool_call>` in code stays. <tool_call>{"name": "get_weather", "arguments": '
    '{"city": "Bergen", "days": "2"}}</tool_call>'
)
TOOL_OBJECTS = coerce_tools(TOOLS)


def split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts})
    edges = [0, *points, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(edges) if b > a]


@given(st.lists(st.integers(min_value=0), max_size=30))
def test_the_sse_decoder_reads_the_same_events_however_the_bytes_are_split(
    cuts: list[int],
) -> None:
    raw = (
        b': keep-alive\n\ndata: {"a": 1}\n\nevent: x\ndata: {"b":\r\ndata: 2}\r\n\r\n'
        b"data: [DONE]\n\n"
    )
    whole = SSEDecoder()
    expected = whole.feed(raw) + whole.finish()
    decoder = SSEDecoder()
    got: list[bytes] = []
    for piece in split(raw.decode("latin-1"), cuts):
        got += decoder.feed(piece.encode("latin-1"))
    got += decoder.finish()
    assert got == expected == [b'{"a": 1}', b'{"b":\n2}', b"[DONE]"]
    assert decoder.error is None


def read_until_error(raw: bytes, size: int) -> tuple[list[bytes], bool]:
    """The payloads of `raw` read `size` bytes at a time, up to the first error; and whether
    one came."""
    decoder = SSEDecoder()
    got: list[bytes] = []
    for i in range(0, len(raw), size):
        got += decoder.feed(raw[i : i + size])
        if decoder.error is not None:
            return got, True
    got += decoder.finish()
    return got, decoder.error is not None


@given(
    st.lists(
        st.sampled_from([b"data: ", b"data:", b"{", b"x", b"\r", b"\n", b" ", b": c"]), max_size=12
    )
)
def test_a_read_of_one_whole_event_gives_what_the_line_by_line_reading_gives(
    pieces: list[bytes],
) -> None:
    # A read that is one `data:` line and a blank line is taken whole; byte by byte, the same
    # bytes go line by line. Both must give the same payloads up to the same verdict (a reader
    # stops at the first error, as `UpstreamStream` does).
    raw = b"data: " + b"".join(pieces) + b"\n\n"
    assert read_until_error(raw, 1) == read_until_error(raw, len(raw))


def test_an_event_over_the_size_limit_across_its_lines_ends_the_stream_after_the_good_ones() -> (
    None
):
    line = b"data: " + b"x" * (MAX_EVENT_BYTES // 3) + b"\n"
    decoder = SSEDecoder()
    got = decoder.feed(b'data: {"a": 1}\n\n' + line * 2 + b"\n" + line * 4 + b"\n")
    assert got == [b'{"a": 1}', b"\n".join([b"x" * (MAX_EVENT_BYTES // 3)] * 2)]
    assert decoder.error is not None and "longer than" in str(decoder.error)


def chunks_of(pieces: list[str]) -> list[dict[str, Any]]:
    base = {"id": "chatcmpl-x", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    out = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}]
    out += [{**base, "choices": [{"index": 0, "delta": {"content": p}}]} for p in pieces]
    out.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    return out


async def source(chunks: list[dict[str, Any]]) -> AsyncIterator[dict[str, Any]]:
    for chunk in chunks:
        yield json.loads(json.dumps(chunk))


def run_text_mode(pieces: list[str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    writer = ChunkWriter("m")
    answer = TextAnswer(
        "hermes",
        TOOL_OBJECTS,
        writer,
        CallGate(HistoryGuard(TOOL_OBJECTS)),
        max_fragment=1 << 20,
        hold_rejected=False,
    )

    async def collect() -> list[dict[str, Any]]:
        return [c async for c in answer.run(source(chunks_of(pieces)))]

    out = asyncio.run(collect())
    return fold_chunks(out), out


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=0), max_size=40))
def test_text_mode_gives_the_same_answer_however_the_upstream_splits_its_text(
    cuts: list[int],
) -> None:
    reference, _ = run_text_mode([ANSWER_TEXT])
    folded, chunks = run_text_mode(split(ANSWER_TEXT, cuts))
    message, wanted = folded["choices"][0]["message"], reference["choices"][0]["message"]
    assert message["content"] == wanted["content"]
    assert "`<tool_call>` in code stays" in message["content"]
    args = [json.loads(c["function"]["arguments"]) for c in message["tool_calls"]]
    assert args == [{"city": "Oslo"}, {"city": "Bergen", "days": 2}]
    indexes = [
        p["index"] for c in chunks for ch in c["choices"] for p in ch["delta"].get("tool_calls", [])
    ]
    assert indexes == sorted(indexes)


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["get_weather", "launch_rocket", "GET_WEATHER"]),
    st.sampled_from(
        [
            '{"city": "Oslo"}',
            '{"city": 5}',
            '{"town": "Oslo"}',
            "{not json",
            '{"city": "A"}{"city": "B"}',
        ]
    ),
    st.integers(min_value=1, max_value=9),
)
def test_native_mode_never_hands_on_a_call_that_does_not_validate(
    name: str, arguments: str, chunk_size: int
) -> None:
    chunks = stream_chunks(
        Answer(tool_calls=({"name": name, "arguments": arguments},), chunk_size=chunk_size)
    )
    writer = ChunkWriter("m")
    answer = NativeAnswer(
        TOOL_OBJECTS, "m", "auto", writer, CallGate(HistoryGuard(TOOL_OBJECTS)), hold_rejected=False
    )

    async def collect() -> list[dict[str, Any]]:
        return [c async for c in answer.run(source(chunks))]

    message = fold_chunks(asyncio.run(collect()))["choices"][0]["message"]
    handed = message.get("tool_calls") or []
    assert len(handed) + len(answer.outcome.flagged) >= 1  # nothing silently dropped
    for call in handed:
        assert call["function"]["name"] == "get_weather"
        assert isinstance(json.loads(call["function"]["arguments"])["city"], str)


def test_a_non_streaming_answer_folds_back_to_itself_through_one_chunk() -> None:
    response = completion(
        Answer("Hi.", tool_calls=({"name": "get_weather", "arguments": '{"city": "Oslo"}'},)), "m"
    )
    folded = fold_chunks([completion_as_chunk(response)])
    assert folded["choices"] == response["choices"]
    assert folded["usage"] == response["usage"] and folded["object"] == "chat.completion"
