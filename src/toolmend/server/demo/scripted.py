"""A scripted OpenAI-compatible model server: replays fixed answers, and fails on request.

This module owns the stand-in for a model that `toolmend demo`, the tests and the benchmark
run against on loopback. Each model id names a `Script`: the answer it gives (text, native
tool calls, chunking, pacing, finish reason), the answer it gives once the last tool result it
sees carries toolmend guidance (so a guided model can be seen changing course), and an
optional failure (an HTTP status with a body, invalid JSON, broken SSE, a drop mid-stream, a
stall). It keeps a log of the requests it received so tests can see what went upstream. It
never calls anything itself.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from toolmend.server.wirejson import WireJSONResponse

#: What a stream that fails this way sends instead of its next event.
BROKEN_EVENTS = {
    "invalid_json": b'data: {"choices": [\n\n',
    "invalid_sse": b"this is not an event stream\n\n",
}
#: What toolmend writes into a tool result or a re-ask (guidance blocks, reminders).
GUIDANCE_MARK = "[toolmend"


@dataclass(frozen=True, slots=True)
class Answer:
    """One scripted answer. `tool_calls` are native calls: `{"name", "arguments"}` (a string)."""

    content: str = ""
    tool_calls: tuple[Mapping[str, Any], ...] = ()
    chunk_size: int = 16
    #: Pause before each chunk, in milliseconds (the benchmark's paced upstream).
    pace_ms: float = 0.0
    finish_reason: str | None = None
    usage: Mapping[str, int] | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Answer:
        calls = tuple(
            {
                "name": c["name"],
                "arguments": c["arguments"]
                if isinstance(c["arguments"], str)
                else json.dumps(c["arguments"]),
            }
            for c in data.get("tool_calls", ())
        )
        return cls(
            content=data.get("content", ""),
            tool_calls=calls,
            chunk_size=data.get("chunk_size", 16),
            pace_ms=data.get("pace_ms", 0.0),
            finish_reason=data.get("finish_reason"),
            usage=data.get("usage"),
        )


@dataclass(frozen=True, slots=True)
class Failure:
    """How a scripted answer fails.

    `kind`: `status` (HTTP `status` with `body`), `invalid_json` (a non-streaming body that is
    not JSON; in a stream, an event that is not JSON), `invalid_sse` (a line that is not SSE),
    `drop` (the connection closes after `after_chunks` chunks), `stall` (nothing for
    `seconds`).
    """

    kind: str
    status: int = 500
    body: str = '{"error": {"message": "scripted failure", "type": "server_error"}}'
    after_chunks: int = 0
    seconds: float = 30.0


@dataclass(frozen=True, slots=True)
class Script:
    answer: Answer
    guided: Answer | None = None
    failure: Failure | None = None


@dataclass
class ScriptedUpstream:
    """The scripts by model id, and the requests received (newest last)."""

    scripts: dict[str, Script] = field(default_factory=dict)
    received: list[dict[str, Any]] = field(default_factory=list)
    disconnected: int = 0

    def app(self) -> Starlette:
        routes = [
            Route("/v1/chat/completions", self._chat, methods=["POST"]),
            Route("/v1/models", self._models, methods=["GET"]),
        ]
        return Starlette(routes=routes)

    async def _models(self, request: Request) -> Response:
        data = [
            {"id": m, "object": "model", "created": 0, "owned_by": "scripted"} for m in self.scripts
        ]
        return JSONResponse({"object": "list", "data": data})

    async def _chat(self, request: Request) -> Response:
        body = await request.json()
        self.received.append({"body": body, "headers": dict(request.headers)})
        script = self.scripts.get(body.get("model"))
        if script is None:
            error = {
                "error": {"message": f"model {body.get('model')!r} not found", "type": "not_found"}
            }
            return JSONResponse(error, 404)
        answer = script.answer
        if script.guided is not None and _last_result_guided(body.get("messages") or []):
            answer = script.guided
        failure = script.failure
        if failure is not None and failure.kind == "status":
            return Response(failure.body, failure.status, media_type="application/json")
        if failure is not None and failure.kind == "stall":
            await asyncio.sleep(failure.seconds)
        if body.get("stream"):
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            return StreamingResponse(
                self._stream(answer, failure, include_usage), media_type="text/event-stream"
            )
        if failure is not None and failure.kind == "invalid_json":
            return Response(
                b'{"id": "chatcmpl-1", "choices": [', 200, media_type="application/json"
            )
        return WireJSONResponse(completion(answer, body.get("model", "")))

    async def _stream(
        self, answer: Answer, failure: Failure | None, include_usage: bool
    ) -> AsyncIterator[bytes]:
        try:
            for sent, chunk in enumerate(stream_chunks(answer, include_usage)):
                if failure is not None and sent >= failure.after_chunks:
                    if failure.kind == "drop":
                        raise ConnectionAbortedError("scripted drop")
                    broken = BROKEN_EVENTS.get(failure.kind)
                    if broken is not None:
                        yield broken
                        return
                if answer.pace_ms:
                    await asyncio.sleep(answer.pace_ms / 1000)
                yield b"data: " + json.dumps(chunk).encode() + b"\n\n"
            yield b"data: [DONE]\n\n"
        except asyncio.CancelledError:
            self.disconnected += 1
            raise


def _last_result_guided(messages: list[Any]) -> bool:
    for message in reversed(messages):
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        if message.get("role") in ("tool", "user") and isinstance(content, str):
            return GUIDANCE_MARK in content
        if message.get("role") == "assistant":
            return False
    return False


def _base(model: str) -> dict[str, Any]:
    return {"id": "chatcmpl-scripted", "created": int(time.time()), "model": model}


def stream_chunks(answer: Answer, include_usage: bool = False) -> list[dict[str, Any]]:
    """The answer as chat.completion.chunk dicts, as a model server streams it."""
    base = {**_base("scripted"), "object": "chat.completion.chunk"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    out = [chunk({"role": "assistant", "content": ""})]
    size = max(1, answer.chunk_size)
    for start in range(0, len(answer.content), size):
        out.append(chunk({"content": answer.content[start : start + size]}))
    for index, call in enumerate(answer.tool_calls):
        arguments = str(call["arguments"])
        head = {
            "index": index,
            "id": f"call_scripted_{index}",
            "type": "function",
            "function": {"name": call["name"], "arguments": ""},
        }
        out.append(chunk({"tool_calls": [head]}))
        for start in range(0, len(arguments), size):
            part = {"index": index, "function": {"arguments": arguments[start : start + size]}}
            out.append(chunk({"tool_calls": [part]}))
    out.append(chunk({}, answer.finish_reason or ("tool_calls" if answer.tool_calls else "stop")))
    if include_usage:
        out.append({**base, "choices": [], "usage": dict(answer.usage or _usage(answer))})
    return out


def _usage(answer: Answer) -> dict[str, int]:
    completion_tokens = max(1, len(answer.content) // 4)
    return {
        "prompt_tokens": 10,
        "completion_tokens": completion_tokens,
        "total_tokens": 10 + completion_tokens,
    }


def completion(answer: Answer, model: str) -> dict[str, Any]:
    """The answer as a chat.completion object."""
    message: dict[str, Any] = {"role": "assistant", "content": answer.content or None}
    if answer.tool_calls:
        message["tool_calls"] = [
            {
                "id": f"call_scripted_{i}",
                "type": "function",
                "function": {"name": c["name"], "arguments": str(c["arguments"])},
            }
            for i, c in enumerate(answer.tool_calls)
        ]
    finish = answer.finish_reason or ("tool_calls" if answer.tool_calls else "stop")
    return {
        **_base(model),
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": dict(answer.usage or _usage(answer)),
    }
