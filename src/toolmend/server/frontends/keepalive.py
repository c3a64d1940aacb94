"""The front-ends' streaming response: `SSEResponse` with a keep-alive every few seconds.

Claude Code and Codex drop a stream that stays quiet for long, and a slow prefill or a long
tool call the Messages grammar sends whole at its end can be quiet for longer than that.
`KeepAliveSSEResponse` writes its keep-alive frame (a `ping` event, an SSE comment) every
`seconds` from one repeating timer, whether the body wrote in between or not: both grammars
take a keep-alive between any two frames, one frame every few seconds is nothing beside a busy
stream's, and the body's writes then go to the server untouched (timing each write to keep
alive only the silent streams cost a Python call and a clock read per chunk). A keep-alive is
one whole write of its own, as each batch of the body is, so it lands between two batches of
frames; a keep-alive still waiting for a slow client to read holds back the next one. None is
written after the body's last write: the timer and any keep-alive not yet written are
cancelled as soon as that write returns. This module frames nothing and never decides what a
stream contains.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable

from starlette.types import Message, Send

from toolmend.server.sse_response import FrameBatch, SSEResponse


class KeepAliveSSEResponse(SSEResponse):
    """An `SSEResponse` that writes `keepalive` every `seconds` while its body streams."""

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
        write = send if body_send is None else body_send
        beat: asyncio.Future[None] | None = None  # the last keep-alive's write
        timer: asyncio.TimerHandle

        def tick() -> None:
            nonlocal beat, timer
            if beat is None or beat.done():
                _retrieve(beat)
                message: Message = {"type": "http.response.body", "body": frame, "more_body": True}
                beat = asyncio.ensure_future(write(message))
            timer = loop.call_later(seconds, tick)

        timer = loop.call_later(seconds, tick)
        try:
            await super().stream_response(send, body_send)
        finally:
            timer.cancel()
            if beat is not None:
                beat.cancel()  # not yet written: it never will be
                _retrieve(beat)


def _retrieve(beat: asyncio.Future[None] | None) -> None:
    """Marks a finished keep-alive's failure as seen: a failed write is the connection's end,
    which the body's own writes meet too."""
    if beat is not None and beat.done() and not beat.cancelled():
        beat.exception()
