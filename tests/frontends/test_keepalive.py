"""`KeepAliveSSEResponse` over a recording ASGI server: keep-alives between whole batches of
frames, while the body is silent and while it writes, and never after the body's end, even
when the client reads slowly and a keep-alive is waiting to be written as the body ends."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from toolmend.server.frontends.keepalive import KeepAliveSSEResponse
from toolmend.server.sse_response import LastFrames

KEEPALIVE = b": keep-alive\n\n"


class Recorder:
    """An ASGI server's side: the bodies written, each write waiting `write_seconds` first (a
    slow client: uvicorn waits for the socket to drain before it writes), and the messages
    sent after the response ended (which uvicorn refuses)."""

    def __init__(self, write_seconds: float = 0.0) -> None:
        self.bodies: list[bytes] = []
        self.ended = False
        self.late: list[dict[str, Any]] = []
        self.write_seconds = write_seconds

    async def send(self, message: dict[str, Any]) -> None:
        if self.ended:
            self.late.append(message)
            raise RuntimeError("a message after the response ended")
        if message["type"] == "http.response.body":
            if self.write_seconds:
                await asyncio.sleep(self.write_seconds)
            self.bodies.append(message["body"])
            self.ended = not message.get("more_body", False)

    async def receive(self) -> dict[str, Any]:
        await asyncio.Event().wait()  # the client never leaves
        raise AssertionError


async def _serve(body: AsyncIterator[bytes], recorder: Recorder, seconds: float) -> None:
    response = KeepAliveSSEResponse(body, KEEPALIVE, seconds)
    scope = {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"}}
    await response(scope, recorder.receive, recorder.send)
    await asyncio.sleep(seconds * 4)  # time for a keep-alive left behind to be written


async def _frames(gaps: list[float]) -> AsyncIterator[bytes]:
    for number, gap in enumerate(gaps):
        await asyncio.sleep(gap)
        yield b"data: %d\n\n" % number
    yield LastFrames(b"data: last\n\n")


def _body_frames(recorder: Recorder) -> list[bytes]:
    return [body for body in recorder.bodies if body != KEEPALIVE]


def test_a_silent_stream_gets_keep_alives_and_its_frames_stay_whole_and_in_order() -> None:
    recorder = Recorder()
    asyncio.run(_serve(_frames([0.0, 0.12, 0.0]), recorder, 0.02))
    assert _body_frames(recorder) == [
        b"data: 0\n\n",
        b"data: 1\n\n",
        b"data: 2\n\n",
        b"data: last\n\n",
    ]
    silent = recorder.bodies[
        recorder.bodies.index(b"data: 0\n\n") : recorder.bodies.index(b"data: 1\n\n")
    ]
    assert silent.count(KEEPALIVE) >= 2
    assert recorder.bodies[-1] == b"data: last\n\n"
    assert recorder.late == []


def test_a_busy_stream_is_kept_alive_too_between_its_writes() -> None:
    recorder = Recorder()
    asyncio.run(_serve(_frames([0.005] * 40), recorder, 0.03))
    assert KEEPALIVE in recorder.bodies
    assert len(_body_frames(recorder)) == 41
    assert recorder.bodies[-1] == b"data: last\n\n"


def test_no_keep_alive_is_written_after_the_end_even_when_one_waits_for_a_slow_client() -> None:
    for write_seconds in (0.004, 0.01, 0.02):  # keep-alives in flight as the body ends
        recorder = Recorder(write_seconds)
        asyncio.run(_serve(_frames([0.003] * 12), recorder, 0.005))
        assert recorder.bodies[-1] == b"data: last\n\n"
        assert len(_body_frames(recorder)) == 13
        assert recorder.late == []
