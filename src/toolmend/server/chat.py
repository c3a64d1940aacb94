"""`POST /v1/chat/completions`: one request from the agent's body to the agent's answer.

This module owns the request's path through the proxy: reading and checking the body (413,
400), choosing the rule and the upstream, guarding the history, building the upstream body
for the rule's mode, opening the upstream (its failures become OpenAI-style errors, its own
4xx/5xx passed through with its body), shaping the answer, re-asking the upstream when the
model made a call that cannot be made valid (self-correction, within the rule's budget), and
writing the stream, the error event or the folded object. It keeps nothing between requests.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import AsyncIterator, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from toolmend.guard.history import HistoryGuard
from toolmend.model import Tool, ToolmendError
from toolmend.recovery.textmode import RequestError, required_tool, text_request
from toolmend.server import metrics, wirejson
from toolmend.server.access import authenticate, forwards_client_authorization
from toolmend.server.answer import ChunkWriter, Outcome, completion_as_chunk, fold_chunks
from toolmend.server.config import ModelRule, ServerConfig, Upstream
from toolmend.server.guarding import CallGate, GuidanceCounts, guard_request, openai_call
from toolmend.server.native_mode import NativeAnswer
from toolmend.server.requestlog import RequestLog, RequestRecord
from toolmend.server.sse import DONE, encode_data
from toolmend.server.sse_response import FrameBatch, LastFrames, SSEResponse
from toolmend.server.text_mode import TextAnswer
from toolmend.server.toolset import request_tools
from toolmend.server.upstream import (
    UpstreamClient,
    UpstreamError,
    UpstreamStream,
    upstream_headers,
)

ENDPOINT = "/v1/chat/completions"
#: What an upstream request gives (`ChatPipeline._while_first_request`).
Opened = TypeVar("Opened")
INTERNAL_ERROR = "toolmend failed on this request; the request log has its id"
#: HTTP status the client gets for each way the upstream can fail (its own status passes).
UPSTREAM_FAILURE_STATUS = {"timeout": 504}
DEFAULT_UPSTREAM_FAILURE_STATUS = 502
#: The user message that asks again when `tool_choice` demanded a call and none came.
REQUIRED_CALL_REMINDER = (
    "[toolmend] Your last answer did not call a function, but this turn requires a function "
    "call. Answer again with the call, written in the format described in the system message."
)


@dataclass(slots=True)
class ServerState:
    """What every request of one worker shares: the config, the upstream pool, the log."""

    config: ServerConfig
    client: UpstreamClient
    log: RequestLog


class Problem(Exception):
    """A request that ends with an error response (status, OpenAI error type, safe message)."""

    def __init__(self, status: int, kind: str, message: str, body: bytes | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind
        self.message = message
        self.body = body


def error_body(message: str, kind: str, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def problem_response(problem: Problem) -> Response:
    if problem.body is not None:
        try:
            json.loads(problem.body)
            return Response(problem.body, problem.status, media_type="application/json")
        except ValueError:
            text = problem.body.decode("utf-8", "replace")[:2000]
            body = error_body(f"{problem.message}: {text}", problem.kind)
            return JSONResponse(body, problem.status)
    return JSONResponse(error_body(problem.message, problem.kind), problem.status)


def upstream_problem(error: UpstreamError) -> Problem:
    metrics.UPSTREAM_ERRORS.labels(error.kind).inc()
    if error.kind == "http_status" and error.status is not None:
        return Problem(error.status, "upstream_error", error.message, error.body)
    status = UPSTREAM_FAILURE_STATUS.get(error.kind, DEFAULT_UPSTREAM_FAILURE_STATUS)
    return Problem(status, f"upstream_{error.kind}", error.message)


async def read_body(request: Request, max_bytes: int) -> tuple[dict[str, Any], int]:
    """The request's JSON object and its size, or a `Problem` (413 too large, 400 malformed)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > max_bytes:
        raise Problem(413, "request_too_large", f"request body is larger than {max_bytes} bytes")
    raw = bytearray()
    async for piece in request.stream():
        raw += piece
        if len(raw) > max_bytes:
            raise Problem(
                413, "request_too_large", f"request body is larger than {max_bytes} bytes"
            )
    try:
        body = wirejson.loads(bytes(raw))
    except ValueError as exc:
        raise Problem(400, "invalid_request_error", f"request body is not JSON: {exc}") from None
    if not isinstance(body, dict):
        raise Problem(400, "invalid_request_error", "request body must be a JSON object")
    return body, len(raw)


def check_chat_body(body: Mapping[str, Any]) -> None:
    model = body.get("model")
    if not isinstance(model, str) or not model.strip():
        raise Problem(400, "invalid_request_error", "'model' must be a non-empty string")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise Problem(400, "invalid_request_error", "'messages' must be a non-empty list")
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise Problem(400, "invalid_request_error", f"messages[{i}] needs a string 'role'")
        if not isinstance(message.get("tool_calls", []), (list, type(None))):
            raise Problem(400, "invalid_request_error", f"messages[{i}].tool_calls must be a list")
    if "stream" in body and not isinstance(body["stream"], bool):
        raise Problem(400, "invalid_request_error", "'stream' must be true or false")


def parse_tools(body: Mapping[str, Any]) -> list[Tool] | None:
    tools = body.get("tools")
    if tools is None:
        return None
    if not isinstance(tools, list):
        raise Problem(400, "invalid_request_error", "'tools' must be a list")
    try:
        return request_tools(tools)
    except ToolmendError as exc:
        raise Problem(400, "invalid_request_error", f"invalid tools: {exc}") from None


def _add_usage(total: dict[str, Any] | None, usage: dict[str, Any] | None) -> dict[str, Any] | None:
    if usage is None:
        return total
    if total is None:
        return dict(usage)
    for key, value in usage.items():
        if isinstance(value, int) and isinstance(total.get(key), int):
            total[key] += value
    return total


class ChatPipeline:
    """One chat request after its body was checked: upstream calls, shaping, re-asks."""

    def __init__(
        self,
        state: ServerState,
        record: RequestRecord,
        body: dict[str, Any],
        rule: ModelRule,
        upstream: Upstream,
        tools: list[Tool] | None,
        history: list[dict[str, Any]],
        headers: dict[str, str],
        *,
        guard: HistoryGuard | None,
    ) -> None:
        self.state = state
        self.record = record
        self.body = body
        self.rule = rule
        self.upstream = upstream
        self.tools = tools
        self.history = history
        #: The guard's state after the history (None: the rule has the guard off).
        self.guard = guard
        self.headers = headers
        self.model = str(body["model"])
        self.stream = bool(body.get("stream"))
        self.protocol = rule.text_protocol(self.model) if rule.mode == "text" else None
        try:
            self.required = (
                rule.mode == "text"
                and bool(tools)
                and required_tool(body.get("tool_choice"), tools or [])[0]
            )
        except RequestError as exc:  # a tool_choice naming no declared tool, or none at all
            raise Problem(400, "invalid_request_error", str(exc)) from None
        #: The client's chunks of every upstream answer, and the last finish reason they had.
        self._writer = ChunkWriter(self.model)
        self._finish_reason: str | None = None
        #: The streamed frames held back while the upstream read that brought them has more.
        self.batch = FrameBatch()
        self._reading: UpstreamStream | None = None
        #: The first answer's shaper, made while the upstream works on the first request.
        self._first: TextAnswer | NativeAnswer | None = None
        self._opened = False
        #: What shapes the upstream answer `answer` is reading (a re-ask gets a new one).
        self.shaper: TextAnswer | NativeAnswer | None = None

    @property
    def more_in_read(self) -> bool:
        """Whether the upstream read that brought the chunk last handed out brought more after
        it (that chunk's frame may wait in `batch` for theirs)."""
        reading = self._reading
        return reading is not None and reading.more > 0

    def upstream_body(self, messages: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        if self.protocol is not None:
            out = text_request(self.body, messages, self.tools, self.protocol)
        else:
            out = {**self.body, "messages": list(messages)}
        out["model"] = self.state.config.resolve_alias(self.model)
        return out

    async def open(self, messages: Sequence[Mapping[str, Any]]) -> AsyncIterator[dict[str, Any]]:
        """Send one upstream request; its chunks (a non-streaming answer is one chunk)."""
        client = self.state.client
        body = self.upstream_body(messages)
        limits = self.rule.limits
        if self.stream:
            upstream_stream = await self._while_first_request(
                client.open_stream(self.upstream, body, self.headers, limits)
            )
            self.record.upstream_status = upstream_stream.status
            upstream_stream.batch = self.batch
            self._reading = upstream_stream
            return upstream_stream.chunks()
        status, response = await self._while_first_request(
            client.post_json(self.upstream, body, self.headers, limits)
        )
        self.record.upstream_status = status
        return _one(completion_as_chunk(response))

    async def _while_first_request(self, request: Coroutine[Any, Any, Opened]) -> Opened:
        """`request`'s result; for the first upstream request, the first answer's shaper is
        made while the upstream works on it. Making a shaper builds its parsers (under `auto`,
        about 0.4 M instructions, the largest cost of an answer's first chunk), and the model
        takes far longer than that to prefill, so the first chunk no longer waits for them.

        The request runs as a task that is given two turns of the loop before the shaper is
        made: one to send the request's head, one for aiohttp's task that writes the body
        (Python 3.11 runs it as a task of its own), so the request is on the wire first."""
        if self._opened:
            return await request
        self._opened = True
        sending = asyncio.ensure_future(request)
        try:
            await asyncio.sleep(0)
            await asyncio.sleep(0)
            self._first = self._shaper(self._writer, self.guard, hold=self.rule.self_correction > 0)
        except BaseException:
            sending.cancel()
            raise
        return await sending

    def _shaper(
        self, writer: ChunkWriter, guard: HistoryGuard | None, hold: bool
    ) -> TextAnswer | NativeAnswer:
        gate = CallGate(guard)
        if self.protocol is not None:
            return TextAnswer(
                self.protocol,
                self.tools,
                writer,
                gate,
                max_fragment=self.rule.limits.max_fragment,
                hold_rejected=hold,
            )
        return NativeAnswer(
            self.tools, self.model, self.rule.recovery_protocols, writer, gate, hold_rejected=hold
        )

    def _reask(
        self, messages: list[dict[str, Any]], outcome: Outcome
    ) -> list[dict[str, Any]] | None:
        """The history for a re-ask, or None when the answer needs none."""
        text = "".join(outcome.text) or None
        if outcome.held:
            assistant = {
                "role": "assistant",
                "content": text,
                "tool_calls": [openai_call(call) for call, _ in outcome.held],
            }
            results = [
                {"role": "tool", "tool_call_id": call.id, "content": guidance}
                for call, guidance in outcome.held
            ]
            given = GuidanceCounts()
            for _, guidance in outcome.held:
                given.add(guidance)
            self.record.guidance.update(given.by_category)
            self.record.guidance_patterns.update(given.by_pattern)
            return [*messages, assistant, *results]
        if self.required and not outcome.handed and not outcome.flagged:
            return [
                *messages,
                {"role": "assistant", "content": text or ""},
                {"role": "user", "content": REQUIRED_CALL_REMINDER},
            ]
        return None

    def _account(self, outcome: Outcome) -> None:
        record = self.record
        record.tool_calls += len(outcome.handed)
        record.recovered.update(outcome.recovered)
        record.repairs.update(outcome.repairs)
        record.diagnostics.update(outcome.diagnostics)
        record.rejected += len(outcome.held) + len(outcome.flagged)
        record.usage = _add_usage(record.usage, outcome.usage)
        if outcome.flagged:
            metrics.REJECTED.labels("flagged").inc(len(outcome.flagged))
        if outcome.held:
            metrics.REJECTED.labels("self_corrected").inc(len(outcome.held))

    def _is_valid(self, outcome: Outcome) -> bool:
        if outcome.held or outcome.flagged:
            return False
        return not (self.required and not outcome.handed)

    async def chunks(self, source: AsyncIterator[dict[str, Any]]) -> AsyncIterator[dict[str, Any]]:
        """The client's chunks over every upstream answer of this request, then the closing one."""
        async for chunk in self.answer(source):
            yield chunk
        for chunk in self.closing():
            yield chunk

    async def answer(self, source: AsyncIterator[dict[str, Any]]) -> AsyncIterator[dict[str, Any]]:
        """The client's chunks over every upstream answer of this request (`closing` follows)."""
        async for chunks in self.answers(source):
            async for chunk in chunks:
                yield chunk

    async def answers(
        self, source: AsyncIterator[dict[str, Any]]
    ) -> AsyncIterator[AsyncIterator[dict[str, Any]]]:
        """`answer`'s chunks, one iterator per upstream answer (and one for the calls a failed
        re-ask hands on flagged): a stream's writer reads each in its own loop, so this
        generator resumes once per answer, not once per chunk. Read each iterator to its end
        before the next (the next answer is asked for after it)."""
        writer = self._writer
        messages = self.history
        guard = self.guard
        budget = self.rule.self_correction
        reasked = False
        texts: list[str] = []
        first, self._first = self._first, None
        while True:
            shaper = self.shaper = first or self._shaper(writer, guard, hold=budget > 0)
            first = None
            yield shaper.run(source)
            outcome = shaper.outcome
            texts += outcome.text
            self._account(outcome)
            self._finish_reason = outcome.finish_reason or self._finish_reason
            if reasked and self._is_valid(outcome):
                self.record.self_correction_ok += 1
            retry = self._reask(messages, outcome) if budget > 0 else None
            if retry is None:
                break
            budget -= 1
            self.record.self_corrections += 1
            reasked = True
            try:
                source = await self.open(retry)
            except UpstreamError as exc:
                # The re-ask failed: the agent still gets the calls, flagged, never a drop.
                metrics.UPSTREAM_ERRORS.labels(exc.kind).inc()
                self.shaper = None  # this chunk is no shaper's
                yield _one(writer.rejected(outcome.release_held()))  # counted as rejected
                break
            if guard is not None:  # the re-ask's calls are judged after what it added
                guard = guard.after(retry[len(messages) :])
            messages = retry
        if self.record.content is not None:
            self.record.content["response_text"] = "".join(texts)

    def closing(self) -> list[dict[str, Any]]:
        """The chunks that end the answer `answer` gave: the finish reason, then the usage."""
        writer = self._writer
        if writer.next_index:
            closing = "tool_calls"
        else:  # a "tool_calls" finish whose calls were all held back is an ordinary stop
            finish_reason = self._finish_reason
            closing = "stop" if finish_reason in (None, "tool_calls") else finish_reason
        out = [writer.chunk({}, closing)]
        if self.record.usage is not None:
            out.append(writer.usage(self.record.usage))
        return out

    async def sse(self, source: AsyncIterator[dict[str, Any]]) -> AsyncIterator[bytes]:
        """The SSE body: chunks, then `[DONE]`; a failure mid-stream ends with an error event.

        The closing chunks and `[DONE]` end the body in one write (`LastFrames`); the request
        is logged after that write, off the client's path. The frames of the events one
        upstream read brought are written together (`batch`: held while the read has more).
        """
        record = self.record
        batch = self.batch
        try:
            async for chunks in self.answers(source):
                async for chunk in chunks:
                    if record.first_chunk is None:
                        record.mark_first_chunk()
                    frame = encode_data(chunk)
                    reading = self._reading
                    if reading is not None and reading.more:
                        batch.frames.append(frame)
                        continue
                    yield batch.take(frame)
            closing = [encode_data(chunk) for chunk in self.closing()]
            record.mark_first_chunk()
            yield LastFrames(batch.take(b"".join(closing) + DONE))
        except UpstreamError as exc:
            metrics.UPSTREAM_ERRORS.labels(exc.kind).inc()
            record.error = {"type": f"upstream_{exc.kind}", "message": exc.message}
            error = encode_data(error_body(exc.message, f"upstream_{exc.kind}", exc.kind))
            yield LastFrames(batch.take(error + DONE))
        except asyncio.CancelledError:
            record.fail(499, "client_disconnected", "the client closed the connection")
            raise
        except Exception as exc:  # a bug of ours: the client still gets a clear end
            record.error = {"type": "internal_error", "message": type(exc).__name__}
            error = encode_data(error_body(INTERNAL_ERROR, "internal_error"))
            yield LastFrames(batch.take(error + DONE))
        finally:
            self.state.log.write(record)


async def _one(chunk: dict[str, Any]) -> AsyncIterator[dict[str, Any]]:
    yield chunk


def new_request_id() -> str:
    return "req_" + secrets.token_hex(12)


async def chat_completions(request: Request) -> Response:
    """The endpoint: errors become OpenAI-style error bodies; every request is logged once."""
    state: ServerState = request.app.state.toolmend
    record = RequestRecord(new_request_id(), ENDPOINT)
    try:
        response = await _serve(request, state, record)
    except Problem as problem:
        record.fail(problem.status, problem.kind, problem.message)
        response = problem_response(problem)
    except Exception as exc:  # a bug of ours: an OpenAI-style 500, never a traceback page
        record.fail(500, "internal_error", type(exc).__name__)
        response = JSONResponse(error_body(INTERNAL_ERROR, "internal_error"), 500)
    if not isinstance(response, StreamingResponse):
        state.log.write(record)
    response.headers["x-request-id"] = record.request_id
    return response


async def _serve(request: Request, state: ServerState, record: RequestRecord) -> Response:
    config = state.config
    if config.keys and authenticate(config.keys, request.headers) is None:
        raise Problem(401, "authentication_error", "missing or unknown API key")
    body, size = await read_body(request, config.limits.max_request_bytes)
    check_chat_body(body)
    model = str(body["model"])
    rule = config.rule_for(model)
    upstream = config.upstream(rule.upstream)
    record.model, record.upstream, record.mode = model, upstream.name, rule.mode
    record.stream = bool(body.get("stream"))
    if upstream.api != "chat":
        raise Problem(
            400,
            "invalid_request_error",
            f"model {model!r} is served by upstream {upstream.name!r}, which speaks the "
            f"{upstream.api} API; {ENDPOINT} is served by chat upstreams",
        )
    if config.log_content:
        record.content = {"request": body}
    if size > rule.limits.max_request_bytes:
        limit = rule.limits.max_request_bytes
        raise Problem(413, "request_too_large", f"request body is larger than {limit} bytes")
    tools = parse_tools(body)
    if rule.mode == "text" and int(body.get("n") or 1) != 1:
        raise Problem(400, "invalid_request_error", "text mode answers one choice (n must be 1)")
    history, guard = guarded_history(rule, body["messages"], tools, record)
    headers = upstream_headers(
        upstream, request.headers.get("authorization"), forwards_client_authorization(config.keys)
    )
    pipeline = ChatPipeline(
        state, record, body, rule, upstream, tools, history, headers, guard=guard
    )
    source = await open_upstream(pipeline, record, history)
    if pipeline.stream:
        return SSEResponse(pipeline.sse(source), batch=pipeline.batch)
    try:
        chunks = [chunk async for chunk in pipeline.chunks(source)]
    except UpstreamError as exc:
        raise upstream_problem(exc) from None
    return wirejson.WireJSONResponse(fold_chunks(chunks))


def guarded_history(
    rule: ModelRule,
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Tool] | None,
    record: RequestRecord,
) -> tuple[list[dict[str, Any]], HistoryGuard | None]:
    """The history the upstream is sent: guarded when the rule says so, the counts recorded;
    and the guard's state after it, which the pipeline's gate reads new calls on (None when
    the guard is off).

    Every endpoint (chat, and the Messages and Responses front-ends once translated) goes
    through here, so the guard answers alike whichever API the agent speaks.
    """
    if not rule.guard:
        return [dict(m) for m in messages], None
    history, counts, guard = guard_request(messages, tools)
    record.guidance.update(counts.by_category)
    record.guidance_patterns.update(counts.by_pattern)
    record.loops_broken = counts.loops_broken
    return history, guard


async def open_upstream(
    pipeline: ChatPipeline, record: RequestRecord, history: Sequence[Mapping[str, Any]]
) -> AsyncIterator[dict[str, Any]]:
    """The upstream's chunks for `history`; a bad request or a failed upstream is a Problem."""
    try:
        return await pipeline.open(history)
    except RequestError as exc:
        raise Problem(400, "invalid_request_error", str(exc)) from None
    except UpstreamError as exc:
        record.upstream_status = exc.status
        raise upstream_problem(exc) from None
