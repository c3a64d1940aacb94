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
does. This module frames nothing and never decides what a stream contains.
"""

from __future__ import annotations

import asyncio

from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

MEDIA_TYPE = "text/event-stream"


class LastFrames(bytes):
    """The frames that end a body: written in the same write as the end of the response."""

    __slots__ = ()


class SSEResponse(StreamingResponse):
    """A `StreamingResponse` of SSE frames, written batch by batch (see the module docstring).

    The body must be an async iterator of bytes (frames) whose last item may be `LastFrames`.
    """

    media_type = MEDIA_TYPE

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
            await self.stream_response(send)
        except asyncio.CancelledError:
            if not left:
                raise
            task.uncancel()  # the client went away: the stream was stopped on its account
        finally:
            watcher.cancel()

    async def stream_response(self, send: Send) -> None:
        await send(
            {"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers}
        )
        ended = False
        async for frames in self.body_iterator:  # run to its end: its `finally` logs the request
            if ended:
                raise RuntimeError("an SSE body yielded frames after its LastFrames")
            ended = type(frames) is LastFrames
            await send({"type": "http.response.body", "body": frames, "more_body": not ended})
        if not ended:
            await send({"type": "http.response.body", "body": b"", "more_body": False})
