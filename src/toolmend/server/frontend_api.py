"""`POST /v1/messages`, `/v1/messages/count_tokens` and `/v1/responses`: the front-ends served.

This module owns the HTTP side of the two front-ends: each request's body is translated to a
chat/completions request (`frontends.messages`, `frontends.responses`) and then takes the chat
endpoint's own path, with the same rule, upstream, guard over the history, recovery, argument
repair and self-correction (`ChatPipeline`); when the rule's upstream speaks the front-end's
own API (`api = "anthropic"` or `"responses"`), the client's body is forwarded instead, its
history guarded, and the upstream's events go through the same pipeline (`frontends.forwarding`).
The client chunks that path yields are written in the front-end's grammar
(`frontends.messages_stream`, `frontends.responses_stream`), with a keep-alive while the
stream is silent (`frontends.keepalive`). Errors come in the front-end's own error shape.
Conversations for `previous_response_id` are kept in the configured response store
(`[frontends] response_store`, default: an SQLite file in the user's cache). It keeps nothing
between requests except what it stores there.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from toolmend.model import ToolmendError
from toolmend.server.access import authenticate, forwards_client_authorization
from toolmend.server.chat import (
    INTERNAL_ERROR,
    ChatPipeline,
    Problem,
    ServerState,
    check_chat_body,
    guarded_history,
    new_request_id,
    open_upstream,
    parse_tools,
    problem_response,
    read_body,
    upstream_problem,
)
from toolmend.server.config import ModelRule, ServerConfig, Upstream, UpstreamApi
from toolmend.server.frontends.anthropic_upstream import (
    AnthropicUpstream,
    anthropic_headers,
    declared_tools,
    without_unsigned_thinking,
)
from toolmend.server.frontends.chat_request import ChatRequest
from toolmend.server.frontends.chat_stream import plain_text
from toolmend.server.frontends.forwarding import ForwardingPipeline
from toolmend.server.frontends.keepalive import KeepAliveSSEResponse
from toolmend.server.frontends.messages import MessagesRequestError, translate_request
from toolmend.server.frontends.messages_stream import (
    MessagesStream,
    message_from_chunks,
    ping,
)
from toolmend.server.frontends.response_store import (
    ResponseStore,
    ResponseStoreError,
    open_store,
)
from toolmend.server.frontends.responses import (
    ResponsesChatRequest,
    ResponsesRequestError,
)
from toolmend.server.frontends.responses import translate_request as translate_responses
from toolmend.server.frontends.responses_stream import ResponsesStream, response_from_chunks
from toolmend.server.frontends.responses_upstream import ResponsesUpstream, guided_items
from toolmend.server.frontends.sse import sse_frame
from toolmend.server.frontends.tokens import (
    Tokenizer,
    TokenizerError,
    TokenizerTable,
    count_chat_tokens,
)
from toolmend.server.native_mode import NativeAnswer
from toolmend.server.requestlog import RequestRecord
from toolmend.server.sse_response import LastFrames
from toolmend.server.upstream import UpstreamError, upstream_headers
from toolmend.server.wirejson import WireJSONResponse

#: Seconds without a write before a keep-alive goes to the client (Claude Code and Codex both
#: drop a stream that stays quiet for long; a slow prefill is normal for large prompts).
KEEPALIVE_SECONDS = 10.0
#: Where `previous_response_id` conversations are kept when no store is configured.
DEFAULT_STORE = Path("~/.cache/toolmend/responses.sqlite3")
#: Anthropic's error type for each HTTP status (the SDK raises by status; agents show the type).
_ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}
_KEEPALIVE_COMMENT = b": keep-alive\n\n"

#: A front-end's translation: the client's body, the upstream model id its model stands for,
#: and the API of the upstream its rule names.
Translate = Callable[[dict[str, Any], str, UpstreamApi], Awaitable[ChatRequest]]


def _without_result_flags(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The history as chat servers accept it: `is_error` (read by the guard) taken off."""
    return [
        {k: v for k, v in m.items() if k != "is_error"} if "is_error" in m else m for m in messages
    ]


class Forward(Protocol):
    """Builds the pipeline over an upstream of the front-end's own API (no translation)."""

    def __call__(
        self,
        request: Request,
        state: ServerState,
        record: RequestRecord,
        body: dict[str, Any],
        translated: ChatRequest,
        rule: ModelRule,
        upstream: Upstream,
    ) -> ChatPipeline: ...


@dataclass(frozen=True, slots=True)
class _Endpoint:
    """A front-end: its path, the upstream API it forwards to natively, and both builders."""

    path: str
    native_api: UpstreamApi
    translate: Translate
    forward: Forward


async def _open(
    request: Request, state: ServerState, record: RequestRecord, endpoint: _Endpoint
) -> tuple[ChatPipeline, AsyncIterator[dict[str, Any]], ChatRequest, dict[str, Any]]:
    """The chat endpoint's path for a front-end body: rule, guard, upstream opened.

    A chat upstream gets the translated body; an upstream of the front-end's own API gets the
    client's body forwarded (`endpoint.forward`); any other upstream is a 400 naming it.
    """
    config = state.config
    if config.keys and authenticate(config.keys, request.headers) is None:
        raise Problem(401, "authentication_error", "missing or unknown API key")
    body, size = await read_body(request, config.limits.max_request_bytes)
    model = body.get("model")
    model = model if isinstance(model, str) else ""  # the translation refuses any other
    rule = config.rule_for(model)  # the translated body's model is the client's
    upstream = config.upstream(rule.upstream)
    try:
        translated = await endpoint.translate(body, config.resolve_alias(model), upstream.api)
    except (MessagesRequestError, ResponsesRequestError) as exc:
        raise Problem(400, "invalid_request_error", str(exc)) from None
    chat = translated.body
    check_chat_body(chat)
    record.model, record.upstream, record.mode = str(chat["model"]), upstream.name, rule.mode
    record.stream = bool(chat.get("stream"))
    if config.log_content:
        record.content = {"request": body}
    if size > rule.limits.max_request_bytes:
        limit = rule.limits.max_request_bytes
        raise Problem(413, "request_too_large", f"request body is larger than {limit} bytes")
    if upstream.api == endpoint.native_api:
        pipeline = endpoint.forward(request, state, record, body, translated, rule, upstream)
    elif upstream.api == "chat":
        pipeline = _translated_pipeline(request, state, record, chat, rule, upstream)
    else:
        raise Problem(
            400,
            "invalid_request_error",
            f"model {record.model!r} is served by upstream {upstream.name!r}, which speaks the "
            f"{upstream.api} API; {endpoint.path} is served by chat or {endpoint.native_api} "
            "upstreams",
        )
    record.diagnostics.update(d.code for d in translated.diagnostics)
    source = await open_upstream(pipeline, record, pipeline.history)
    return pipeline, source, translated, body


def _translated_pipeline(
    request: Request,
    state: ServerState,
    record: RequestRecord,
    chat: dict[str, Any],
    rule: ModelRule,
    upstream: Upstream,
) -> ChatPipeline:
    tools = parse_tools(chat)
    guarded, guard = guarded_history(rule, chat["messages"], tools, record)
    history = _without_result_flags(guarded)
    chat["messages"] = _without_result_flags(chat["messages"])
    headers = upstream_headers(
        upstream, _client_authorization(request), forwards_client_authorization(state.config.keys)
    )
    return ChatPipeline(state, record, chat, rule, upstream, tools, history, headers, guard=guard)


def _client_authorization(request: Request) -> str | None:
    """The client's credentials as a bearer token (Anthropic clients send `x-api-key`)."""
    authorization = request.headers.get("authorization")
    if authorization is None and request.headers.get("x-api-key"):
        authorization = f"Bearer {request.headers['x-api-key']}"
    return authorization


def _frames(events: list[dict[str, Any]]) -> bytes:
    """The SSE frames of `events`, as one write."""
    return b"".join([sse_frame(event) for event in events])


async def _events(
    state: ServerState,
    record: RequestRecord,
    pipeline: ChatPipeline,
    source: AsyncIterator[dict[str, Any]],
    writer: MessagesStream | ResponsesStream,
    on_error: Callable[[str, str], list[dict[str, Any]]],
    before_end: Callable[[], Awaitable[None]] | None = None,
) -> AsyncIterator[bytes]:
    """The SSE body of one front-end stream; the request is logged once, at its end.

    The events one upstream chunk becomes go out in one write, and those of every chunk one
    upstream read brought together (held in the pipeline's `batch` while the read has more,
    as the chat endpoint does); the events that end the stream (the closing chunks' and the
    writer's last) go with the end of the body. A chunk that only carries text goes straight
    to its frame when it continues the open text (`text_frame`); whether it is one, native
    mode has already checked (`NativeAnswer.text_only`), text mode's chunks are checked here.
    `before_end` runs after the answer is complete and before its last events go out (a
    Responses answer is stored there, so a client that reads `response.completed` finds its
    `previous_response_id` on any replica).
    """
    ended = False
    batch = pipeline.batch
    try:
        yield _frames(writer.start())
        async for chunks in pipeline.answers(source):  # one loop per upstream answer
            async for chunk in chunks:
                if record.first_chunk is None:
                    record.mark_first_chunk()
                shaper = pipeline.shaper  # native mode has checked whether the chunk is only text
                text = shaper.text_only if type(shaper) is NativeAnswer else plain_text(chunk)
                frame = None if text is None else writer.text_frame(text)
                if frame is None:
                    events = writer.feed(chunk)
                    if not events:
                        if batch.frames and not pipeline.more_in_read:
                            yield batch.take()  # the read's last chunk: nothing waits held
                        continue
                    frame = sse_frame(events[0]) if len(events) == 1 else _frames(events)
                if pipeline.more_in_read:
                    batch.frames.append(frame)
                    continue
                yield batch.take(frame)
        last = [event for chunk in pipeline.closing() for event in writer.feed(chunk)]
        record.mark_first_chunk()
        last += writer.finish()
        if before_end is not None:
            await before_end()
        ended = True
        yield LastFrames(batch.take(_frames(last)))
    except UpstreamError as exc:
        record.error = {"type": f"upstream_{exc.kind}", "message": exc.message}
        yield LastFrames(batch.take(_frames(on_error(exc.message, f"upstream_{exc.kind}"))))
    except asyncio.CancelledError:
        record.fail(499, "client_disconnected", "the client closed the connection")
        raise
    except Exception as exc:  # a failure of toolmend itself: the stream still ends with an error
        record.fail(500, "internal_error", type(exc).__name__)
        if not ended:
            failed = _frames(on_error("toolmend failed while writing the answer", "server_error"))
            yield LastFrames(batch.take(failed))
    finally:
        state.log.write(record)


def _anthropic_error(status: int, message: str) -> dict[str, Any]:
    kind = _ANTHROPIC_ERROR_TYPES.get(
        status, "api_error" if status >= 500 else "invalid_request_error"
    )
    return {"type": "error", "error": {"type": kind, "message": message}}


async def _respond(
    request: Request, endpoint: str, serve: Callable[..., Any], error: Callable[[Problem], Response]
) -> Response:
    state: ServerState = request.app.state.toolmend
    record = RequestRecord(new_request_id(), endpoint)
    try:
        response: Response = await serve(request, state, record)
    except Problem as problem:
        record.fail(problem.status, problem.kind, problem.message)
        response = error(problem)
    except Exception as exc:  # a bug of ours: an error in the API's own shape, and logged
        record.fail(500, "internal_error", type(exc).__name__)
        response = error(Problem(500, "internal_error", INTERNAL_ERROR))
    if not isinstance(response, StreamingResponse):
        state.log.write(record)
    response.headers["x-request-id"] = record.request_id
    return response


def _problem_text(problem: Problem) -> str:
    """The problem's message, with the upstream's own error message when it sent one."""
    if problem.body is None:
        return problem.message
    try:
        upstream = json.loads(problem.body)
    except ValueError:
        return problem.message
    error = upstream.get("error") if isinstance(upstream, dict) else None
    detail = error.get("message") if isinstance(error, dict) else None
    return f"{problem.message}: {detail}" if isinstance(detail, str) else problem.message


def _anthropic_problem(problem: Problem) -> Response:
    return JSONResponse(_anthropic_error(problem.status, _problem_text(problem)), problem.status)


def _openai_problem(problem: Problem) -> Response:
    return problem_response(problem)  # the chat endpoint's error body (the upstream's own, if any)


# -- /v1/messages ------------------------------------------------------------------------------


async def _translate_messages(
    body: dict[str, Any], upstream_model: str, _api: UpstreamApi
) -> ChatRequest:
    return translate_request(body, upstream_model=upstream_model or None)


def _forward_messages(
    request: Request,
    state: ServerState,
    record: RequestRecord,
    body: dict[str, Any],
    translated: ChatRequest,
    rule: ModelRule,
    upstream: Upstream,
) -> ChatPipeline:
    """The pipeline over an Anthropic upstream: the client's body, its history guarded."""
    try:
        tools = declared_tools(body)
    except ToolmendError as exc:
        raise Problem(400, "invalid_request_error", f"invalid tools: {exc}") from None
    turns = [turn for turn in body["messages"] if isinstance(turn, dict)]
    guarded, guard = guarded_history(rule, turns, tools, record)
    history = without_unsigned_thinking(guarded, translated)
    model = state.config.resolve_alias(str(body["model"]))
    headers = anthropic_headers(
        upstream.api_key, request.headers, forwards_client_authorization(state.config.keys)
    )
    api = AnthropicUpstream(body, history, model, upstream.name)
    return ForwardingPipeline(
        state, record, translated.body, rule, upstream, tools, history, headers, api, guard=guard
    )


_MESSAGES = _Endpoint("/v1/messages", "anthropic", _translate_messages, _forward_messages)


async def _serve_messages(request: Request, state: ServerState, record: RequestRecord) -> Response:
    pipeline, source, translated, body = await _open(request, state, record, _MESSAGES)
    model = str(body["model"])
    input_tokens = _input_tokens(request, translated.body)
    if pipeline.stream:
        writer = MessagesStream(translated, model=model, input_tokens=input_tokens)
        stream = _events(
            state,
            record,
            pipeline,
            source,
            writer,
            lambda message, _code: [_anthropic_error(502, message)],
        )
        return KeepAliveSSEResponse(
            stream, sse_frame(ping()), KEEPALIVE_SECONDS, batch=pipeline.batch
        )
    try:
        chunks = [chunk async for chunk in pipeline.chunks(source)]
    except UpstreamError as exc:
        raise upstream_problem(exc) from None
    message = message_from_chunks(chunks, translated, model=model, input_tokens=input_tokens)
    return WireJSONResponse(message)


async def messages_endpoint(request: Request) -> Response:
    return await _respond(request, "/v1/messages", _serve_messages, _anthropic_problem)


async def _serve_count_tokens(
    request: Request, state: ServerState, record: RequestRecord
) -> Response:
    config = state.config
    if config.keys and authenticate(config.keys, request.headers) is None:
        raise Problem(401, "authentication_error", "missing or unknown API key")
    body, _ = await read_body(request, config.limits.max_request_bytes)
    try:
        translated = translate_request(body)
    except MessagesRequestError as exc:
        raise Problem(400, "invalid_request_error", str(exc)) from None
    record.model = str(body["model"])
    return JSONResponse({"input_tokens": _input_tokens(request, translated.body)})


async def count_tokens_endpoint(request: Request) -> Response:
    return await _respond(
        request, "/v1/messages/count_tokens", _serve_count_tokens, _anthropic_problem
    )


# -- /v1/responses -----------------------------------------------------------------------------


def tokenizer_for(state: Any, config: ServerConfig, model: str) -> Tokenizer | None:
    """The real tokenizer configured for `model` (`[frontends] tokenizers`), else None."""
    table: TokenizerTable | None = getattr(state, "tokenizers", None)
    if table is None:
        table = state.tokenizers = TokenizerTable(config.tokenizers)
    return table.for_model(model)


def _input_tokens(request: Request, chat: dict[str, Any]) -> int:
    state: ServerState = request.app.state.toolmend
    model = state.config.resolve_alias(str(chat.get("model", "")))
    try:
        tokenizer = tokenizer_for(request.app.state, state.config, model)
    except TokenizerError as exc:
        raise Problem(500, "server_error", str(exc)) from None
    return count_chat_tokens(chat, tokenizer)


def response_store(state: Any, config: ServerConfig) -> ResponseStore:
    """This worker's response store, opened on first use from `[frontends] response_store`."""
    store: ResponseStore | None = getattr(state, "response_store", None)
    if store is None:
        url = config.response_store or f"sqlite://{DEFAULT_STORE.expanduser()}"
        store = state.response_store = open_store(url)
    return store


def _forward_responses(
    request: Request,
    state: ServerState,
    record: RequestRecord,
    body: dict[str, Any],
    translated: ChatRequest,
    rule: ModelRule,
    upstream: Upstream,
) -> ChatPipeline:
    """The pipeline over a Responses upstream: the whole conversation, its results guarded."""
    assert isinstance(translated, ResponsesChatRequest)
    chat = translated.body
    tools = [  # under the client's names, which the upstream sees
        {**tool, "function": {**function, "name": translated.names.to_client(function["name"])}}
        for tool in chat.get("tools") or ()
        if isinstance(function := tool["function"], dict)
    ]
    declared = parse_tools({"tools": tools}) if tools else None
    guarded, guard = guarded_history(rule, chat["messages"], declared, record)
    items = guided_items(translated.items, chat["messages"], guarded)
    history = _without_result_flags(guarded)
    model = state.config.resolve_alias(str(body["model"]))
    headers = upstream_headers(
        upstream, _client_authorization(request), forwards_client_authorization(state.config.keys)
    )
    api = ResponsesUpstream(body, items, len(history), model, upstream.name)
    return ForwardingPipeline(
        state, record, chat, rule, upstream, declared, history, headers, api, guard=guard
    )


async def _serve_responses(request: Request, state: ServerState, record: RequestRecord) -> Response:
    config = state.config
    store = response_store(request.app.state, config)

    async def translate(body: dict[str, Any], upstream_model: str, api: UpstreamApi) -> ChatRequest:
        previous: list[dict[str, Any]] = []
        previous_id = body.get("previous_response_id")
        if previous_id is not None:
            if not isinstance(previous_id, str):
                raise ResponsesRequestError("`previous_response_id` must be a string")
            try:
                # The ids toolmend gives are ASCII: another was never given, so is not stored.
                found = (
                    await asyncio.to_thread(store.get, previous_id)
                    if previous_id.isascii()
                    else None
                )
            except ResponseStoreError as exc:
                raise Problem(500, "server_error", str(exc)) from None
            if found is None:
                raise ResponsesRequestError(f"previous response {previous_id!r} was not found")
            previous = found
        if api == "responses":
            # The upstream runs hosted tools itself: a forced one is its business, not a 400.
            body = {k: v for k, v in body.items() if k != "tool_choice"}
        return translate_responses(
            body, previous_items=previous, upstream_model=upstream_model or None
        )

    endpoint = _Endpoint("/v1/responses", "responses", translate, _forward_responses)
    pipeline, source, translated, body = await _open(request, state, record, endpoint)
    assert isinstance(translated, ResponsesChatRequest)
    model = str(body["model"])
    keep = body.get("store") is not False

    def input_tokens() -> int:
        """Counted only when the upstream reports no usage (a Codex request's instructions
        and tools are tens of kilobytes of text, counted before the first event otherwise)."""
        return _input_tokens(request, translated.body)

    async def save(response_id: str, output: list[dict[str, Any]]) -> None:
        """Stores the conversation in a worker thread, off the event loop; a store that
        fails leaves the answer whole and says so in the request log."""
        if not keep:
            return
        try:
            await asyncio.to_thread(store.put, response_id, translated.items + output)
        except ResponseStoreError:
            record.diagnostics.update(["response_store_failed"])

    if pipeline.stream:
        writer = ResponsesStream(translated, body, model=model, input_tokens=input_tokens)
        stream = _events(
            state,
            record,
            pipeline,
            source,
            writer,
            writer.fail,
            lambda: save(writer.response_id, writer.output),
        )
        return KeepAliveSSEResponse(
            stream, _KEEPALIVE_COMMENT, KEEPALIVE_SECONDS, batch=pipeline.batch
        )
    try:
        chunks = [chunk async for chunk in pipeline.chunks(source)]
    except UpstreamError as exc:
        raise upstream_problem(exc) from None
    response, output = response_from_chunks(
        chunks, translated, body, model=model, input_tokens=input_tokens
    )
    await save(response["id"], output)
    return WireJSONResponse(response)


async def responses_endpoint(request: Request) -> Response:
    return await _respond(request, "/v1/responses", _serve_responses, _openai_problem)


def frontend_routes() -> list[Route]:
    """The front-ends' routes, for `create_app`."""
    return [
        Route("/v1/messages", messages_endpoint, methods=["POST"]),
        Route("/v1/messages/count_tokens", count_tokens_endpoint, methods=["POST"]),
        Route("/v1/responses", responses_endpoint, methods=["POST"]),
    ]
