"""The front-ends' streaming response: `SSEResponse` with a keep-alive written while it is silent.

Claude Code and Codex drop a stream that stays quiet for long, and a slow prefill or a long
tool call the Messages grammar sends whole at its end can be quiet for longer than that.
`KeepAliveSSEResponse` writes its keep-alive frame (a `ping` event, an SSE comment) whenever
nothing was written for `seconds`, from one timer per stream that is re-armed only when it
fires: the body is read in the response's own task, as the chat endpoint's is, so a busy stream
pays a clock read per write and nothing else (a reading task and a queue between it and the
writer cost a task switch and about 15 Python calls per chunk). The keep-alive is a write of
its own, never after the body ended; a body write waits for a keep-alive still in flight. A
keep-alive may be written while a body write waits for a slow client to read (each is one
whole write of whole frames, so a comment or a `ping` lands between two batches of frames,
which both grammars allow). This module frames nothing and never decides what a stream
contains.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, Awaitable

from starlette.types import Message, Send

from toolmend.server.sse_response import FrameBatch, SSEResponse


class KeepAliveSSEResponse(SSEResponse):
    """An `SSEResponse` that writes `keepalive` after `seconds` without a write."""

    def __init__(
        self,
        body: AsyncIterable[bytes],
        keepalive: bytes,
        seconds: float,
        *,
        batch: FrameBatch | None = None,
    ) -> None:
        """`batch`: the frames `body` holds back (see `SSEResponse`)."""
        super().__init__(body, batch=batch)
        self._keepalive = keepalive
        self._seconds = seconds

    async def stream_response(self, send: Send, body_send: Send | None = None) -> None:
        loop = asyncio.get_running_loop()
        seconds, frame = self._seconds, self._keepalive
        body = send if body_send is None else body_send
        wrote = loop.time()  # when the last write began
        ended = False
        beat: asyncio.Future[None] | None = None  # the keep-alive write in flight, if any
        timer: asyncio.TimerHandle | None = None

        def through(target: Send) -> Send:
            """A write to `target` that waits for a keep-alive in flight and is timed: a plain
            function handing on `target`'s awaitable (no coroutine of its own: it runs once a
            chunk)."""

            def write(message: Message) -> Awaitable[None]:
                nonlocal wrote, ended
                if beat is not None and not beat.done():
                    return after_beat(beat, write, message)
                wrote = loop.time()
                if not message.get("more_body", False) and message["type"] == "http.response.body":
                    ended = True
                return target(message)

            return write

        async def after_beat(pending: asyncio.Future[None], write: Send, message: Message) -> None:
            await pending
            await write(message)

        def tick() -> None:
            nonlocal wrote, beat, timer
            now = loop.time()
            if now - wrote >= seconds and not ended:
                message = {"type": "http.response.body", "body": frame, "more_body": True}
                beat = asyncio.ensure_future(body(message))
                wrote = now
            timer = loop.call_at(wrote + seconds, tick)

        timer = loop.call_at(wrote + seconds, tick)
        try:
            await super().stream_response(through(send), through(body))
        finally:
            timer.cancel()
            if beat is not None:
                if beat.done() and not beat.cancelled():
                    beat.exception()  # retrieved: a failed keep-alive is the connection's end
                beat.cancel()
