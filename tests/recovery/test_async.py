"""The async variant under asyncio: same recovery, same terminal path."""

from __future__ import annotations

import asyncio

import pytest

import toolmend
from toolmend.recovery import AsyncRecoveredStream, StreamRecovery

from .wire import TOOLS, content_stream, fold, split_every

INVOKE = '<invoke name="read_file"><parameter name="path">a.py</parameter></invoke>'


class AsyncSource:
    def __init__(self, chunks, error: BaseException | None = None) -> None:
        self.chunks = list(chunks)
        self.error = error
        self.closed = False

    def __aiter__(self):
        return self

    async def __anext__(self):
        await asyncio.sleep(0)
        if self.chunks:
            return self.chunks.pop(0)
        if self.error is not None:
            raise self.error
        raise StopAsyncIteration

    async def aclose(self) -> None:
        self.closed = True


def test_the_async_variant_recovers_the_same_calls_as_the_sync_one():
    chunks = content_stream(split_every(f"Reading. {INVOKE}", 4), model="claude-opus-4-1")

    async def main():
        return [
            c
            async for c in toolmend.arecover_stream(
                AsyncSource(chunks), tools=TOOLS, model="claude-opus-4-1", id_prefix="a"
            )
        ]

    out = asyncio.run(main())
    sync = list(
        toolmend.recover_stream(chunks, tools=TOOLS, model="claude-opus-4-1", id_prefix="a")
    )
    assert out == sync
    assert fold(out)["calls"] == [("read_file", {"path": "a.py"})]


def test_an_async_transport_error_delivers_complete_calls_then_raises():
    chunks = content_stream([INVOKE], model="claude-opus-4-1", finish=None, usage=False)
    source = AsyncSource(chunks, ConnectionResetError("reset"))

    async def main(out):
        async for c in toolmend.arecover_stream(source, tools=TOOLS, model="claude-opus-4-1"):
            out.append(c)

    out: list[dict] = []
    with pytest.raises(ConnectionResetError):
        asyncio.run(main(out))
    got = fold(out)
    assert got["calls"] == [("read_file", {"path": "a.py"})] and got["finish"] == ["tool_calls"]
    assert source.closed


def test_cancelling_the_consuming_task_yields_no_call_and_closes_the_source():
    chunks = content_stream([INVOKE, " tail"], model="claude-opus-4-1", usage=False)
    source = AsyncSource(chunks)
    seen: list[dict] = []

    async def consume():
        async for c in toolmend.arecover_stream(source, tools=TOOLS, model="claude-opus-4-1"):
            seen.append(c)
            if len(seen) == 2:
                await asyncio.sleep(10)

    async def main():
        task = asyncio.create_task(consume())
        while len(seen) < 2:
            await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert fold(seen)["calls"] == []
    assert source.closed


def test_closing_the_async_output_before_reading_it_closes_the_source():
    source = AsyncSource(content_stream(["x"]))

    async def main():
        await toolmend.arecover_stream(source, tools=TOOLS).aclose()

    asyncio.run(main())
    assert source.closed and len(source.chunks) == 4


def _recovered(source, **hooks):
    recovery = StreamRecovery(TOOLS, model="claude-opus-4-1", id_prefix="a")
    return AsyncRecoveredStream(recovery, source, **hooks)


def test_a_shape_sees_every_recovered_chunk_in_order_and_drops_what_it_returns_none_for():
    chunks = content_stream(split_every(f"Reading. {INVOKE}", 4), model="claude-opus-4-1")
    plain = asyncio.run(_collect(_recovered(AsyncSource(chunks))))
    seen: list[dict] = []

    def shape(chunk):
        seen.append(chunk)
        return None if len(seen) % 2 else {"shaped": len(seen)}

    shaped = asyncio.run(_collect(_recovered(AsyncSource(chunks), shape=shape)))
    assert seen == plain
    assert shaped == [{"shaped": n} for n in range(2, len(plain) + 1, 2)]


def test_after_failure_chunks_follow_the_failures_terminal_and_precede_the_exception():
    chunks = content_stream([INVOKE], model="claude-opus-4-1", finish=None, usage=False)
    note = {"after": "failure"}
    out: list[dict] = []

    async def main():
        async for c in _recovered(
            AsyncSource(chunks, ConnectionResetError("reset")), after_failure=lambda: [note]
        ):
            out.append(c)

    with pytest.raises(ConnectionResetError):
        asyncio.run(main())
    assert out[-1] is note
    assert fold(out[:-1])["calls"] == [("read_file", {"path": "a.py"})]
    clean = asyncio.run(_collect(_recovered(AsyncSource(chunks), after_failure=lambda: [note])))
    assert note not in clean


def test_the_lane_chunk_is_the_common_paths_output_and_only_that():
    recovery = StreamRecovery(TOOLS, model="claude-opus-4-1")
    role, text, finish, *_ = content_stream(["Hello."], model="claude-opus-4-1")
    recovery.feed(role)
    (out,) = recovery.feed(text)
    assert recovery.lane_chunk is out and out["choices"][0]["delta"] == {"content": "Hello."}
    for last in recovery.feed(finish):
        assert last is not recovery.lane_chunk


async def _collect(stream):
    return [c async for c in stream]
