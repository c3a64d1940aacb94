"""An SSE body goes out in batches of whole frames, and still reads as the OpenAI stream.

Each chunk of the chunked body is one write of the proxy (`SSEResponse`): the frames of the events
one upstream read brought go out together (`FrameBatch`, never held while the upstream is waited
for), and the frames that end the answer (the closing chunk, the usage, `[DONE]`) go out in the
same write as the end of the body.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from toolmend.server.demo.scripted import Answer
from toolmend.server.sse_response import RAW_SEND, LastFrames, SSEResponse

from .http_chunks import post_chunks, sse_events
from .servers import ASK, HERMES_OSLO, TOOLS, ProxyHandle, ScriptedHandle


def test_the_closing_chunk_the_usage_and_done_end_the_body_in_one_write(
    upstream: ScriptedHandle, proxy: ProxyHandle
) -> None:
    model = upstream.script(Answer("Plain words. " * 6, chunk_size=13))
    body = {
        "model": model,
        "messages": ASK,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    status, chunks = post_chunks(f"{proxy.url}/v1/chat/completions", body)
    assert status == 200
    writes = [sse_events(chunk) for chunk in chunks]
    # Every write is whole `data:` frames; the last one ends with closing, usage and [DONE].
    assert all(write and all(name is None for name, _ in write) for write in writes)
    last = [data for _, data in writes[-1]]
    assert last[-1] == b"[DONE]"
    closing, usage = json.loads(last[-3]), json.loads(last[-2])
    assert closing["choices"] == [{"index": 0, "delta": {}, "finish_reason": "stop"}]
    assert usage["choices"] == [] and usage["usage"]["completion_tokens"] > 0
    frames = [json.loads(data) for data in [data for write in writes for _, data in write][:-3]]
    texts = [frame["choices"][0]["delta"]["content"] for frame in frames]
    assert "".join(texts) == "Plain words. " * 6
    # One frame per upstream chunk (the role's, then six of text), however the writes batch them.
    assert texts[0] == "" and len(texts) == 7


def test_a_recovered_call_streams_whole_frames_that_the_openai_client_reads_as_before(
    upstream: ScriptedHandle, proxy: ProxyHandle
) -> None:
    model = upstream.script(Answer(HERMES_OSLO, chunk_size=7))
    body = {"model": model, "messages": ASK, "tools": TOOLS, "stream": True}
    status, chunks = post_chunks(f"{proxy.url}/v1/chat/completions", body)
    assert status == 200
    events = [data for chunk in chunks for _, data in sse_events(chunk)]
    assert events[-1] == b"[DONE]"
    parsed = [json.loads(data) for data in events[:-1]]
    calls = [p for c in parsed for ch in c["choices"] for p in ch["delta"].get("tool_calls", [])]
    assert [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in calls] == [
        ("get_weather", {"city": "Oslo"})
    ]
    assert parsed[-1]["choices"][0]["finish_reason"] == "tool_calls"
    stream = proxy.client().chat.completions.create(
        model=model, messages=ASK, tools=TOOLS, stream=True
    )
    names = [
        part.function.name
        for chunk in stream
        for choice in chunk.choices
        for part in choice.delta.tool_calls or ()
        if part.function and part.function.name
    ]
    assert names == ["get_weather"]


def test_the_start_goes_through_the_apps_send_and_the_body_through_the_servers() -> None:
    """Starlette's wrappers watch only the start; the body's writes skip them (`RAW_SEND`)."""
    wrapped: list[dict[str, Any]] = []
    raw: list[dict[str, Any]] = []

    async def body() -> AsyncIterator[bytes]:
        yield b"data: 1\n\n"
        yield LastFrames(b"data: [DONE]\n\n")

    async def receive() -> dict[str, Any]:
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    async def app_send(message: dict[str, Any]) -> None:
        wrapped.append(message)

    async def server_send(message: dict[str, Any]) -> None:
        raw.append(message)

    scope = {"type": "http", RAW_SEND: server_send}
    asyncio.run(SSEResponse(body())(scope, receive, app_send))
    assert [m["type"] for m in wrapped] == ["http.response.start"]
    assert [(m["body"], m["more_body"]) for m in raw] == [
        (b"data: 1\n\n", True),
        (b"data: [DONE]\n\n", False),
    ]
