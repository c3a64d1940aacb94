"""The ASGI application: routes, the worker's lifespan, and the app factory uvicorn workers use.

This module owns wiring only: `create_app(config)` builds the Starlette app with its routes
(`/v1/chat/completions`, `/v1/models`, `/healthz`, `/metrics`) and, in its lifespan, a warm-up
of the request path (`warm_up`), the one pooled upstream client and the request log of this
worker. `app_from_environment` is the
factory each `--workers` process calls; it resolves the same configuration from the same
file, environment and flags. Request handling lives in `chat`.
"""

from __future__ import annotations

import inspect
import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import asdict
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from toolmend.model import coerce_tools
from toolmend.recovery import recover_stream
from toolmend.server import metrics
from toolmend.server.access import authenticate, forwards_client_authorization
from toolmend.server.chat import (
    Problem,
    ServerState,
    chat_completions,
    new_request_id,
    problem_response,
    upstream_problem,
)
from toolmend.server.config import Overrides, ServerConfig, resolve_config
from toolmend.server.frontend_api import frontend_routes
from toolmend.server.guarding import guard_request
from toolmend.server.requestlog import RequestLog, RequestRecord
from toolmend.server.sse_response import RAW_SEND
from toolmend.server.upstream import UpstreamClient, UpstreamError, upstream_headers

#: The environment variable that carries `toolmend serve`'s flags to its worker processes.
ENV_SERVE_FLAGS = "TOOLMEND_SERVE_FLAGS"


async def healthz(request: Request) -> Response:
    config: ServerConfig = request.app.state.toolmend.config
    return JSONResponse({"status": "ok", "upstreams": [u.name for u in config.upstreams]})


async def metrics_endpoint(request: Request) -> Response:
    body, content_type = metrics.render()
    return Response(body, media_type=content_type)


async def models(request: Request) -> Response:
    """The upstreams' model lists, then the configured aliases."""
    state: ServerState = request.app.state.toolmend
    config = state.config
    record = RequestRecord(new_request_id(), "/v1/models")
    try:
        if config.keys and authenticate(config.keys, request.headers) is None:
            raise Problem(401, "authentication_error", "missing or unknown API key")
        listed = await _list_models(state, request.headers.get("authorization"))
    except Problem as problem:
        record.fail(problem.status, problem.kind, problem.message)
        state.log.write(record)
        return problem_response(problem)
    seen = {entry.get("id") for entry in listed}
    for alias in config.aliases:
        if alias not in seen:
            listed.append({"id": alias, "object": "model", "created": 0, "owned_by": "toolmend"})
    state.log.write(record)
    return JSONResponse({"object": "list", "data": listed})


async def _list_models(state: ServerState, authorization: str | None) -> list[dict[str, Any]]:
    config = state.config
    listed: list[dict[str, Any]] = []
    failure: UpstreamError | None = None
    for upstream in config.upstreams:
        headers = upstream_headers(
            upstream, authorization, forwards_client_authorization(config.keys)
        )
        try:
            _, answer = await state.client.get_json(upstream, "/models", headers, config.limits)
        except UpstreamError as exc:
            failure = exc
            continue
        data = answer.get("data")
        if isinstance(data, list):
            listed += [entry for entry in data if isinstance(entry, dict)]
    if failure is not None and not listed:
        raise upstream_problem(failure)
    return listed


#: The tool `warm_up`'s request declares, calls in leaked markup and sees fail.
_WARM_UP_TOOL = {
    "type": "function",
    "function": {
        "name": "read_file",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
        },
    },
}
_WARM_UP_CALL = {
    "id": "call_warm_up",
    "type": "function",
    "function": {"name": "read_file", "arguments": '{"path": "a.py"}'},
}


def warm_up() -> None:
    """Pay a first request's one-time costs before the worker serves: every format's module
    and tables (`auto` loads them all), the schema gate's validator and the guard's
    classifier, about a second of imports and compiled patterns that the first client would
    otherwise wait for. Runs the request path's library calls on a made-up answer."""
    answer = '<tool_call>{"name": "read_file", "arguments": {"path": "a.py"}}</tool_call>'
    chunk = {
        "id": "chatcmpl-warm-up",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "warm-up",
        "choices": [{"index": 0, "delta": {"content": answer}, "finish_reason": "stop"}],
    }
    for _ in recover_stream([chunk], tools=[_WARM_UP_TOOL], model="warm-up"):
        pass
    failing = "Error: ENOENT: no such file or directory, open 'a.py'"
    history: list[dict[str, Any]] = [
        {"role": "user", "content": "Read a.py."},
        {"role": "assistant", "content": None, "tool_calls": [_WARM_UP_CALL]},
        {"role": "tool", "tool_call_id": "call_warm_up", "content": failing},
    ]
    guard_request(history, coerce_tools([_WARM_UP_TOOL]))


class ProxyApp(Starlette):
    """Starlette, with the endpoints' requests taken straight to their handler.

    A streamed answer resumes the whole stack of coroutines above its body once per chunk,
    and Starlette puts ten levels there (its error and exception middleware, the router, the
    route, the route's exception wrapper) that only act on the way in and on exceptions the
    handlers never let out (each endpoint turns every failure into its own error response).
    So a request whose method and exact path name one of the app's plain routes goes to that
    route's handler here, as Starlette's route would call it; every other request (a path that
    needs matching, a wrong method, a mounted app's prefix, or any middleware an embedder
    added) takes Starlette's own way. The server's `send` is also left in the scope for the
    streams' body writes (`sse_response.RAW_SEND`).
    """

    def __init__(self, routes: list[Route], lifespan: Any) -> None:
        super().__init__(routes=routes, lifespan=lifespan)
        self._handlers: dict[tuple[str, str], Callable[[Request], Awaitable[Response]]] = {}
        for route in routes:
            endpoint = route.endpoint
            if route.param_convertors or not (
                inspect.isfunction(endpoint) and inspect.iscoroutinefunction(endpoint)
            ):
                continue
            for method in route.methods or ():
                self._handlers.setdefault((route.path, method), endpoint)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope[RAW_SEND] = send
        if scope["type"] == "http" and not self.user_middleware and not scope.get("root_path"):
            handler = self._handlers.get((scope["path"], scope["method"]))
            if handler is not None:
                scope["app"] = self
                response = await handler(Request(scope, receive, send))
                await response(scope, receive, send)
                return
        await super().__call__(scope, receive, send)


def create_app(config: ServerConfig) -> Starlette:
    """The proxy as an ASGI app; its lifespan opens this worker's pool and log."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        warm_up()
        client = UpstreamClient()
        await client.start()
        log = RequestLog(config.log_file)
        app.state.toolmend = ServerState(config, client, log)
        try:
            yield
        finally:
            await client.close()
            log.close()

    routes = [  # the streaming endpoints first: each request tries the routes in this order
        Route("/v1/chat/completions", chat_completions, methods=["POST"]),
        *frontend_routes(),
        Route("/v1/models", models, methods=["GET"]),
        Route("/healthz", healthz, methods=["GET"]),
        Route("/metrics", metrics_endpoint, methods=["GET"]),
    ]
    app = ProxyApp(routes, lifespan)
    app.add_exception_handler(404, _not_found)
    app.add_exception_handler(405, _not_allowed)
    return app


async def _not_found(request: Request, exc: Exception) -> Response:
    return PlainTextResponse(
        json.dumps({"error": {"message": f"no route {request.url.path}", "type": "not_found"}}),
        404,
        media_type="application/json",
    )


async def _not_allowed(request: Request, exc: Exception) -> Response:
    message = f"{request.method} is not allowed on {request.url.path}"
    return JSONResponse({"error": {"message": message, "type": "method_not_allowed"}}, 405)


def overrides_to_environment(flags: Overrides) -> str:
    """The flags as JSON, for the worker processes (they read the same file and environment)."""
    return json.dumps(asdict(flags))


def app_from_environment() -> Starlette:
    """The app factory of a `--workers` process: the same configuration as its parent."""
    flags = Overrides(**json.loads(os.environ.get(ENV_SERVE_FLAGS, "{}")))
    return create_app(resolve_config(flags))
