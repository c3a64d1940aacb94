"""The streaming response every SSE endpoint writes: one write per batch of frames, the end of
the body joined to its last batch, and the stream cancelled when the client goes away.

Starlette's `StreamingResponse` sends each item of its body as one ASGI message (one socket
write each, the largest part of a relay's cost per chunk here), ends the body with a message of
its own, and, under uvicorn's ASGI 2.3, runs the body in an anyio task group beside a listener
for the disconnect. `SSEResponse` takes the body's items as batches: a bytes item is written
as it comes, and a `LastFrames` item is written together with the end of the body, so the
frames an answer ends with (the closing chunk, the usage, `[DONE]`) cost one write. A single
watcher task waits for `http.disconnect` and cancels the stream where it waits (the body's
generators see `CancelledError`, record the disconnect and close the upstream), as Starlette
does. Each write of the body goes to the server's own `send` when the app left it in the
scope under `RAW_SEND` (`ProxyApp` does): Starlette's three wrappers around `send` (its error
middleware, its exception middleware, the route's) only watch for the response's start, which
still goes through them, so a body write skips three coroutine calls (a few µs a chunk);
`stream_response(send, body_send)` takes both, so a subclass (the front-ends' keep-alive) can
wrap each. A `FrameBatch` lets a body hold the frames of the events one
upstream read brought and write them together. This module frames nothing and never decides
what a stream contains.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable

from starlette.responses import StreamingResponse
from starlette.types import Message, Receive, Scope, Send

MEDIA_TYPE = "text/event-stream"
#: The scope key under which the app leaves the ASGI server's `send` for the body's writes.
RAW_SEND = "toolmend.raw_send"


class LastFrames(bytes):
    """The frames that end a body: written in the same write as the end of the response."""

    __slots__ = ()


class FrameBatch:
    """Frames a body holds back while more are already on their way, written in one write.

    A stream whose upstream read brought several events holds the frames of all but the last
    (`frames`) and writes them with the last one, so a proxy that fell behind catches up in one
    write per read instead of one per event. Nothing may wait while frames are held: whoever is
    about to wait for more input (the upstream read) calls `flush` first. `SSEResponse` binds
    the batch to its body's writes when the response starts.
    """

    __slots__ = ("_write", "frames")

    def __init__(self) -> None:
        self.frames: list[bytes] = []
        self._write: Send | None = None

    def bind(self, write: Send) -> None:
        """Where `flush` writes: the body's writes of the response that streams these frames."""
        self._write = write

    def take(self, last: bytes = b"") -> bytes:
        """The held frames and `last`, joined; nothing is held after."""
        if not self.frames:
            return last
        joined = b"".join([*self.frames, last])
        self.frames.clear()
        return joined

    async def flush(self) -> None:
        """Write the held frames now (before waiting for more input)."""
        if self.frames and self._write is not None:
            held: Message = {"type": "http.response.body", "body": self.take(), "more_body": True}
            await self._write(held)


class SSEResponse(StreamingResponse):
    """A `StreamingResponse` of SSE frames, written batch by batch (see the module docstring).

    The body must be an async iterator of bytes (frames) whose last item may be `LastFrames`.
    """

    media_type = MEDIA_TYPE

    def __init__(self, content: AsyncIterable[bytes], *, batch: FrameBatch | None = None) -> None:
        """`batch`: the frames `content` holds back, bound here to the body's writes."""
        super().__init__(content)
        self.batch = batch

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        task = asyncio.current_task()
        assert task is not None
        left = False

        async def watch() -> None:
            nonlocal left
            while (await receive())["type"] != "http.disconnect":
                pass
            left = True
            task.cancel()

        watcher = asyncio.ensure_future(watch())
        try:
            await self.stream_response(send, scope.get(RAW_SEND))
        except asyncio.CancelledError:
            if not left:
                raise
            task.uncancel()  # the client went away: the stream was stopped on its account
        finally:
            watcher.cancel()

    async def stream_response(self, send: Send, body_send: Send | None = None) -> None:
        """The start through `send`, the body's writes through `body_send` (the server's own
        `send` when the app left it in the scope), else through `send` too."""
        await send(
            {"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers}
        )
        write = send if body_send is None else body_send
        if self.batch is not None:
            self.batch.bind(write)
        ended = False
        async for frames in self.body_iterator:  # run to its end: its `finally` logs the request
            if ended:
                raise RuntimeError("an SSE body yielded frames after its LastFrames")
            ended = type(frames) is LastFrames
            await write({"type": "http.response.body", "body": frames, "more_body": not ended})
        if not ended:
            await write({"type": "http.response.body", "body": b"", "more_body": False})
