"""Native mode says which chunks it hands on carry only text (`NativeAnswer.text_only`), so
the front-ends write those straight to their frames without checking the chunk again: it
never says so of a chunk that carries anything more, and it says so of the text chunks every
server sends, vLLM's with their null `logprobs` and `stop_reason` too."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from toolmend.guard.history import HistoryGuard
from toolmend.model import coerce_tools
from toolmend.recovery import REJECTED_CALLS_FIELD
from toolmend.server.answer import ChunkWriter
from toolmend.server.frontends.chat_stream import plain_text
from toolmend.server.guarding import CallGate
from toolmend.server.native_mode import NativeAnswer

from .servers import TOOLS

TOOL_OBJECTS = coerce_tools(TOOLS)
BASE = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m"}


def _chunk(delta: dict[str, Any], finish: str | None = None, **choice: Any) -> dict[str, Any]:
    return {**BASE, "choices": [{"index": 0, "delta": delta, "finish_reason": finish, **choice}]}


def _vllm(delta: dict[str, Any], finish: str | None = None, stop: str | None = None) -> Any:
    return _chunk(delta, finish, logprobs=None, stop_reason=stop)


CHUNKS = st.one_of(
    st.builds(lambda t: _chunk({"content": t}), st.text(max_size=8)),
    st.builds(lambda t: _vllm({"content": t}), st.text(max_size=8)),
    st.builds(lambda t: _vllm({"content": t}, stop="###"), st.text(min_size=1, max_size=8)),
    st.builds(lambda t: _chunk({"content": t}, "stop"), st.text(max_size=8)),
    st.builds(lambda t: _chunk({"role": "assistant", "content": t}), st.text(max_size=8)),
    st.builds(lambda t: _chunk({"reasoning_content": t}), st.text(min_size=1, max_size=8)),
    st.just(_chunk({"content": '<tool_call>{"name": "get_weather", "arguments": '})),
    st.just(_chunk({"content": '{"city": "Oslo"}}</tool_call>'})),
    st.just({**BASE, "choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 2}}),
)


def _answer(*, hold: bool = False) -> NativeAnswer:
    gate = CallGate(HistoryGuard(TOOL_OBJECTS))
    return NativeAnswer(TOOL_OBJECTS, "m", "auto", ChunkWriter("m"), gate, hold_rejected=hold)


async def _source(chunks: list[dict[str, Any]], fail: bool = False) -> AsyncIterator[Any]:
    for chunk in chunks:
        yield chunk
    if fail:
        raise ConnectionError("the upstream went away")


def _handed(answer: NativeAnswer, chunks: list[dict[str, Any]]) -> list[tuple[Any, str | None]]:
    """Each chunk `run` yields, with what `text_only` said of it then."""

    async def collect() -> list[tuple[Any, str | None]]:
        return [(c, answer.text_only) async for c in answer.run(_source(chunks))]

    return asyncio.run(collect())


@given(st.lists(CHUNKS, max_size=12))
def test_a_chunk_said_to_carry_only_text_carries_only_that_text(
    chunks: list[dict[str, Any]],
) -> None:
    for chunk, text in _handed(_answer(), chunks):
        if text is not None:
            assert text and plain_text(chunk) == text


def test_the_text_chunks_of_every_server_shape_are_said_to_be_text() -> None:
    chunks = [_chunk({"content": "Hello."}), _vllm({"content": " Bye."})]
    assert [text for _, text in _handed(_answer(), chunks)] == ["Hello.", " Bye."]


def test_a_chunk_with_a_matched_stop_string_or_a_finish_is_not_said_to_be_text() -> None:
    chunks = [_vllm({"content": "a"}, stop="###"), _chunk({"content": "b"}, "stop")]
    assert [text for _, text in _handed(_answer(), chunks)] == [None, None]


def test_the_flagged_calls_handed_on_after_a_failure_are_not_taken_for_the_text_before() -> None:
    answer = _answer(hold=True)
    chunks = [
        _chunk({"content": "Checking."}),
        _chunk({"content": '<tool_call>{"name": "get_weather", "arguments": {"days": 2}}'}),
        _chunk({"content": "</tool_call>"}),
    ]

    async def collect() -> list[tuple[Any, str | None]]:
        out = []
        with contextlib.suppress(ConnectionError):
            async for chunk in answer.run(_source(chunks, fail=True)):
                out.append((chunk, answer.text_only))
        return out

    *_, (before, text_before), (flagged, said) = asyncio.run(collect())
    assert text_before == "Checking." and plain_text(before) == "Checking."
    assert REJECTED_CALLS_FIELD in flagged["choices"][0]["delta"]
    assert said is None
