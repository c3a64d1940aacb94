"""Scripted native upstreams on loopback: an Anthropic Messages server and a Responses server.

Each model id names a list of `Answer`s (the demo's bundled real leaks among them), served in
turn (the last one again once they run out), written in that API's own streaming events: text
as text deltas (where the leaked calls hide), native calls as `tool_use` blocks or
`function_call` items, and optionally a signed thinking block and a redacted one, or a
reasoning item with encrypted content, before the text. The requests received are kept
(newest last) so tests see what went upstream.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from toolmend.server.demo.scripted import Answer

SIGNATURE = "EqQBCkYIBxgCKkDsignedbyupstream=="
REDACTED = "EmwKAhgBEgy3redacted=="
ENCRYPTED = "gAAAAABencrypted-reasoning=="
UPSTREAM_USAGE = {
    "input_tokens": 40,
    "cache_read_input_tokens": 100,
    "cache_creation_input_tokens": 7,
    "output_tokens": 1,
}


@dataclass(frozen=True, slots=True)
class NativeScript:
    answers: tuple[Answer, ...]
    thinking: str = ""
    #: Events sent before the connection is closed without the stream's last event.
    drop_after: int | None = None
    stop_sequence: str | None = None


@dataclass
class NativeUpstream:
    scripts: dict[str, NativeScript]
    received: list[dict[str, Any]] = field(default_factory=list)
    _served: dict[str, int] = field(default_factory=dict)

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/v1/messages", self._messages, methods=["POST"]),
                Route("/v1/responses", self._responses, methods=["POST"]),
            ]
        )

    def last(self) -> dict[str, Any]:
        return self.received[-1]

    def _next(self, model: str) -> tuple[NativeScript, Answer]:
        script = self.scripts[model]
        turn = self._served.get(model, 0)
        self._served[model] = turn + 1
        return script, script.answers[min(turn, len(script.answers) - 1)]

    async def _take(self, request: Request) -> tuple[NativeScript, Answer, dict[str, Any]]:
        body = json.loads(await request.body())
        self.received.append({"path": request.url.path, "body": body, "headers": request.headers})
        script, answer = self._next(body["model"])
        return script, answer, body

    async def _messages(self, request: Request) -> Response:
        script, answer, body = await self._take(request)
        return _stream(list(anthropic_events(script, answer, body["model"])), script)

    async def _responses(self, request: Request) -> Response:
        script, answer, body = await self._take(request)
        return _stream(list(responses_events(script, answer, body["model"])), script)


def _stream(events: list[dict[str, Any]], script: NativeScript) -> StreamingResponse:
    if script.drop_after is not None:
        events = events[: script.drop_after]

    async def body() -> AsyncIterator[bytes]:
        for event in events:
            yield f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()

    return StreamingResponse(body(), media_type="text/event-stream")


def _pieces(text: str, size: int) -> Iterator[str]:
    size = max(1, size)
    for start in range(0, len(text), size):
        yield text[start : start + size]


def anthropic_events(script: NativeScript, answer: Answer, model: str) -> Iterator[dict[str, Any]]:
    """The answer as an Anthropic Messages stream."""
    usage = dict(UPSTREAM_USAGE)
    message = {
        "id": "msg_upstream_1",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    yield {"type": "message_start", "message": message}
    yield {"type": "ping"}
    index = 0
    if script.thinking:
        block = {"type": "thinking", "thinking": "", "signature": ""}
        yield {"type": "content_block_start", "index": index, "content_block": block}
        for piece in _pieces(script.thinking, answer.chunk_size):
            delta = {"type": "thinking_delta", "thinking": piece}
            yield {"type": "content_block_delta", "index": index, "delta": delta}
        signature = {"type": "signature_delta", "signature": SIGNATURE}
        yield {"type": "content_block_delta", "index": index, "delta": signature}
        yield {"type": "content_block_stop", "index": index}
        index += 1
        redacted = {"type": "redacted_thinking", "data": REDACTED}
        yield {"type": "content_block_start", "index": index, "content_block": redacted}
        yield {"type": "content_block_stop", "index": index}
        index += 1
    if answer.content:
        yield {
            "type": "content_block_start",
            "index": index,
            "content_block": {"type": "text", "text": ""},
        }
        for piece in _pieces(answer.content, answer.chunk_size):
            delta = {"type": "text_delta", "text": piece}
            yield {"type": "content_block_delta", "index": index, "delta": delta}
        yield {"type": "content_block_stop", "index": index}
        index += 1
    for number, call in enumerate(answer.tool_calls):
        block = {
            "type": "tool_use",
            "id": f"toolu_upstream_{number}",
            "name": call["name"],
            "input": {},
        }
        yield {"type": "content_block_start", "index": index, "content_block": block}
        for piece in _pieces(str(call["arguments"]), answer.chunk_size):
            delta = {"type": "input_json_delta", "partial_json": piece}
            yield {"type": "content_block_delta", "index": index, "delta": delta}
        yield {"type": "content_block_stop", "index": index}
        index += 1
    stop = "tool_use" if answer.tool_calls else "end_turn"
    if script.stop_sequence is not None:
        stop = "stop_sequence"
    delta = {"stop_reason": stop, "stop_sequence": script.stop_sequence}
    yield {"type": "message_delta", "delta": delta, "usage": {"output_tokens": 25}}
    yield {"type": "message_stop"}


def responses_events(script: NativeScript, answer: Answer, model: str) -> Iterator[dict[str, Any]]:
    """The answer as a Responses stream (sequence numbers from 0)."""
    events: list[dict[str, Any]] = []
    output: list[dict[str, Any]] = []
    response = {"id": "resp_upstream_1", "object": "response", "model": model, "output": output}

    def emit(kind: str, **fields: Any) -> None:
        events.append({"type": kind, "sequence_number": len(events), **fields})

    emit("response.created", response={**response, "status": "in_progress", "output": []})
    if script.thinking:
        item = {
            "id": "rs_upstream_1",
            "type": "reasoning",
            "summary": [],
            "encrypted_content": ENCRYPTED,
        }
        emit("response.output_item.added", output_index=len(output), item=item)
        done = {**item, "summary": [{"type": "summary_text", "text": script.thinking}]}
        emit("response.output_item.done", output_index=len(output), item=done)
        output.append(done)
    if answer.content:
        index = len(output)
        item = {
            "id": "msg_upstream_1",
            "type": "message",
            "role": "assistant",
            "status": "in_progress",
            "content": [],
        }
        emit("response.output_item.added", output_index=index, item=item)
        for piece in _pieces(answer.content, answer.chunk_size):
            emit(
                "response.output_text.delta",
                item_id=item["id"],
                output_index=index,
                content_index=0,
                delta=piece,
            )
        part = {"type": "output_text", "text": answer.content, "annotations": []}
        done = {**item, "status": "completed", "content": [part]}
        emit("response.output_item.done", output_index=index, item=done)
        output.append(done)
    for number, call in enumerate(answer.tool_calls):
        index = len(output)
        item = {
            "id": f"fc_upstream_{number}",
            "type": "function_call",
            "status": "in_progress",
            "call_id": f"call_upstream_{number}",
            "name": call["name"],
            "arguments": "",
        }
        emit("response.output_item.added", output_index=index, item=item)
        for piece in _pieces(str(call["arguments"]), answer.chunk_size):
            emit(
                "response.function_call_arguments.delta",
                item_id=item["id"],
                output_index=index,
                delta=piece,
            )
        done = {**item, "status": "completed", "arguments": str(call["arguments"])}
        emit("response.output_item.done", output_index=index, item=done)
        output.append(done)
    usage = {
        "input_tokens": 140,
        "input_tokens_details": {"cached_tokens": 100},
        "output_tokens": 25,
        "output_tokens_details": {"reasoning_tokens": 9},
        "total_tokens": 165,
    }
    emit("response.completed", response={**response, "status": "completed", "usage": usage})
    return iter(events)


def post(url: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """POST a JSON body to toolmend on loopback: the status and the JSON answer."""
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"content-type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def sse_events(url: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    """The events of a streamed answer from toolmend, as dicts."""
    request = urllib.request.Request(
        url, json.dumps({**body, "stream": True}).encode(), {"content-type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        lines = [raw.decode().rstrip("\n") for raw in response]
    return [json.loads(line[6:]) for line in lines if line.startswith("data: ")]
