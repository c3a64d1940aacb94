"""The app's way in: a request naming one of its plain routes goes straight to the route's
handler; every other request (wrong method, unknown path, an embedder's middleware) takes
Starlette's own way, with the same answers as before."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.types import ASGIApp, Receive, Scope, Send

from toolmend.server import ServerConfig, Upstream, create_app
from toolmend.server.demo.scripted import Answer
from toolmend.server.loopback import LoopbackServer

from .servers import ASK, TOOLS, ProxyHandle, ScriptedHandle, stream_parts


class StackRecorder:
    """Starlette's middleware stack, noting the path of every request that goes through it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.paths: list[str] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            self.paths.append(scope["path"])
        await self.app(scope, receive, send)


@pytest.fixture
def served(upstream: ScriptedHandle, tmp_path: Path) -> Iterator[tuple[Starlette, ProxyHandle]]:
    config = ServerConfig(
        upstreams=(Upstream("scripted", upstream.url),), log_file=str(tmp_path / "log.jsonl")
    )
    app = create_app(config)
    with LoopbackServer(app) as server:
        yield app, ProxyHandle(server.url, tmp_path / "log.jsonl", config)


def _record_stack(app: Starlette) -> StackRecorder:
    assert app.middleware_stack is not None  # built when the lifespan started
    recorder = StackRecorder(app.middleware_stack)
    app.middleware_stack = recorder
    return recorder


def _status_and_body(request: urllib.request.Request) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_a_streamed_chat_request_is_answered_by_its_handler_without_starlettes_stack(
    served: tuple[Starlette, ProxyHandle], upstream: ScriptedHandle
) -> None:
    app, proxy = served
    recorder = _record_stack(app)
    model = upstream.script(Answer("The weather in Oslo is mild."))
    stream = proxy.client().chat.completions.create(
        model=model, messages=ASK, tools=TOOLS, stream=True
    )
    text, calls, finishes = stream_parts(stream)
    assert (text, calls, finishes) == ("The weather in Oslo is mild.", {}, ["stop"])
    with urllib.request.urlopen(f"{proxy.url}/healthz", timeout=30) as response:
        assert json.loads(response.read())["status"] == "ok"
    assert recorder.paths == []
    assert [r["status"] for r in proxy.log(1)] == [200]


def test_a_wrong_method_or_an_unknown_path_still_gets_starlettes_error_answers(
    served: tuple[Starlette, ProxyHandle],
) -> None:
    app, proxy = served
    recorder = _record_stack(app)
    wrong = urllib.request.Request(f"{proxy.url}/v1/chat/completions", method="GET")
    status, body = _status_and_body(wrong)
    assert status == 405
    assert body["error"]["type"] == "method_not_allowed"
    status, body = _status_and_body(urllib.request.Request(f"{proxy.url}/v1/nothing"))
    assert (status, body["error"]["type"]) == (404, "not_found")
    assert recorder.paths == ["/v1/chat/completions", "/v1/nothing"]


def test_an_embedders_middleware_still_sees_every_request(
    upstream: ScriptedHandle, tmp_path: Path
) -> None:
    seen: list[str] = []

    class Seen:
        def __init__(self, app: ASGIApp) -> None:
            self.app = app

        async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] == "http":
                seen.append(scope["path"])
            await self.app(scope, receive, send)

    config = ServerConfig(
        upstreams=(Upstream("scripted", upstream.url),), log_file=str(tmp_path / "log.jsonl")
    )
    app = create_app(config)
    app.add_middleware(Seen)
    model = upstream.script(Answer("hi"))
    with LoopbackServer(app) as server:
        proxy = ProxyHandle(server.url, tmp_path / "log.jsonl", config)
        stream = proxy.client().chat.completions.create(model=model, messages=ASK, stream=True)
        assert stream_parts(stream)[0] == "hi"
    assert seen == ["/v1/chat/completions"]
