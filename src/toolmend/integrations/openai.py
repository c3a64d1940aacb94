"""The `openai` SDK adapter: an httpx transport that recovers replies and guards requests.

Owns `ToolmendTransport` / `AsyncToolmendTransport` (an `httpx` or `httpx2` transport around
another one) and `wrap(client)`, which puts an `OpenAI` or `AsyncOpenAI` client's own HTTP
client behind that transport through `client.with_options(http_client=...)`, so base URL, keys,
timeouts, retries, proxies and headers stay as they were. A `POST .../chat/completions` request
gets `guard_history` on its messages; its reply, whole (`recover_response`) or streamed as
server-sent events (`recover_stream`), is rewritten before the SDK parses it, so `create`
(streaming or not), the `.stream()` helpers and raw responses all see real, repaired calls.
Every other request and reply passes untouched. Never parses text or repairs arguments itself.
"""

from __future__ import annotations

import inspect
import json
import sys
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import Any, Protocol, TypeVar

from toolmend.integrations._chat import (
    ChatTurn,
    Recovery,
    chat_turn,
    declared_tools,
    guarded_messages,
)
from toolmend.integrations._sse import DONE, Event, aread_events, encode_chunk, read_events
from toolmend.recovery import arecover_stream, recover_stream
from toolmend.recovery.families import ProtocolsArg
from toolmend.recovery.stream import DiagnosticSink

#: The endpoint whose traffic is rewritten (any prefix: `/v1`, an Azure deployment path).
CHAT_COMPLETIONS = "/chat/completions"
#: Headers that describe the upstream body and stop being true once it is rewritten.
BODY_HEADERS = ("content-length", "content-encoding", "transfer-encoding")
#: The done sentinel as one SSE event.
DONE_EVENT = f"data: {DONE}\n\n".encode()


@dataclass(frozen=True, slots=True)
class Settings:
    """How replies are recovered and whether requests are guarded."""

    recovery: Recovery
    guard: bool = True


# ------------------------------------------------------------------------- the two httpx


def _library(obj: object) -> ModuleType:
    """`httpx` or `httpx2`, whichever `obj` (a request, a client) belongs to."""
    for cls in type(obj).__mro__:
        root = cls.__module__.split(".")[0]
        if root in ("httpx", "httpx2"):
            return sys.modules[root]
    raise TypeError(f"expected an httpx or httpx2 object, got {type(obj).__name__}")


@cache
def _stream_class(lib: ModuleType, asynchronous: bool) -> type:
    """The byte-stream class a response of `lib` accepts, around our body iterator."""
    base = lib.AsyncByteStream if asynchronous else lib.SyncByteStream
    return type("RecoveredBody", (_AsyncBody if asynchronous else _SyncBody, base), {})


class _SyncBody:
    def __init__(self, body: Iterator[bytes], upstream: Any) -> None:
        self._body = body
        self._upstream = upstream

    def __iter__(self) -> Iterator[bytes]:
        yield from self._body

    def close(self) -> None:
        close = getattr(self._body, "close", None)
        if callable(close):
            close()  # the recovery's terminal runs (an abort when the reader stopped early)
        self._upstream.close()


class _AsyncBody:
    def __init__(self, body: AsyncIterator[bytes], upstream: Any) -> None:
        self._body = body
        self._upstream = upstream

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for piece in self._body:
            yield piece

    async def aclose(self) -> None:
        aclose = getattr(self._body, "aclose", None)
        if callable(aclose):
            await aclose()
        await self._upstream.aclose()


# ------------------------------------------------------------------------- requests


def _prepare(request: Any, settings: Settings) -> tuple[Any, ChatTurn | None]:
    """The request to send and, for chat completions, what its reply is recovered for."""
    if request.method != "POST" or not request.url.path.endswith(CHAT_COMPLETIONS):
        return request, None
    try:
        body = json.loads(request.content)
    except (ValueError, UnicodeDecodeError, RuntimeError):  # RuntimeError: a body not read yet
        return request, None
    if not isinstance(body, dict):
        return request, None
    turn = chat_turn(body)
    messages = body.get("messages")
    if settings.guard and isinstance(messages, list):
        guarded = guarded_messages(messages, declared_tools(body))
        if guarded is not None:
            request = _with_body(request, {**body, "messages": guarded})
    return request, turn


def _with_body(request: Any, body: Mapping[str, Any]) -> Any:
    lib = _library(request)
    content = json.dumps(body, ensure_ascii=False).encode()
    headers = [(k, v) for k, v in request.headers.multi_items() if k.lower() not in BODY_HEADERS]
    return lib.Request(
        request.method,
        request.url,
        headers=[*headers, ("content-length", str(len(content)))],
        content=content,
        extensions=request.extensions,
    )


def _kind(response: Any, turn: ChatTurn | None) -> str | None:
    """ "json" or "sse" for a reply to rewrite, None to pass it on as it came."""
    if turn is None or not turn.recovers or not 200 <= response.status_code < 300:
        return None
    media = response.headers.get("content-type", "").split(";")[0].strip().lower()
    if media == "text/event-stream":
        return "sse"
    if media == "application/json" or media.endswith("+json"):
        return "json"
    return None


def _rewritten(response: Any, request: Any, **body: Any) -> Any:
    lib = _library(request)
    headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in BODY_HEADERS]
    return lib.Response(
        response.status_code,
        headers=headers,
        request=request,
        extensions=response.extensions,
        **body,
    )


def _recovered_json(content: bytes, turn: ChatTurn, settings: Settings) -> bytes | None:
    try:
        body = json.loads(content)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(body, dict) or not isinstance(body.get("choices"), list):
        return None
    return json.dumps(settings.recovery.response(turn, body), ensure_ascii=False).encode()


# ------------------------------------------------------------------------- streams


class _Sidecar:
    """SSE events that are not chunks (comments, odd data), kept in order between chunks."""

    __slots__ = ("done", "events")

    def __init__(self) -> None:
        self.events: list[bytes] = []
        self.done = False

    def take(self, event: Event) -> dict[str, Any] | None:
        """The chunk to recover, or None when the event was kept (or ended the stream)."""
        if event.done:
            self.done = True
        elif event.chunk is None:
            self.events.append(event.raw)
        return event.chunk

    def flush(self) -> list[bytes]:
        out, self.events = self.events, []
        return out


def _sse_body(upstream: Iterator[bytes], options: dict[str, Any]) -> Iterator[bytes]:
    sidecar = _Sidecar()

    def chunks() -> Iterator[dict[str, Any]]:
        for event in read_events(upstream):
            chunk = sidecar.take(event)
            if sidecar.done:
                return  # the terminal's chunks must come before `[DONE]`
            if chunk is not None:
                yield chunk

    for chunk in recover_stream(chunks(), **options):
        yield from sidecar.flush()
        yield encode_chunk(chunk)
    yield from sidecar.flush()
    if sidecar.done:
        yield DONE_EVENT


async def _asse_body(
    upstream: AsyncIterator[bytes], options: dict[str, Any]
) -> AsyncIterator[bytes]:
    sidecar = _Sidecar()

    async def chunks() -> AsyncIterator[dict[str, Any]]:
        async for event in aread_events(upstream):
            chunk = sidecar.take(event)
            if sidecar.done:
                return
            if chunk is not None:
                yield chunk

    async for chunk in arecover_stream(chunks(), **options):
        for event in sidecar.flush():
            yield event
        yield encode_chunk(chunk)
    for event in sidecar.flush():
        yield event
    if sidecar.done:
        yield DONE_EVENT


# ------------------------------------------------------------------------- transports


class _SyncSender(Protocol):
    def handle_request(self, request: Any) -> Any: ...


class _AsyncSender(Protocol):
    async def handle_async_request(self, request: Any) -> Any: ...


class _Rewriting:
    """What both transports share: their settings, and a whole reply's rewrite."""

    def __init__(
        self,
        inner: Any,
        *,
        protocols: ProtocolsArg = "auto",
        guard: bool = True,
        attach_diagnostics: bool = False,
        on_diagnostic: DiagnosticSink | None = None,
    ) -> None:
        self.inner = inner
        self.settings = Settings(Recovery(protocols, on_diagnostic, attach_diagnostics), guard)

    def _whole(self, response: Any, request: Any, content: bytes, turn: ChatTurn) -> Any:
        recovered = _recovered_json(content, turn, self.settings)
        return _rewritten(response, request, content=content if recovered is None else recovered)


class ToolmendTransport(_Rewriting):
    """An `httpx.BaseTransport` (or `httpx2`'s) that recovers chat-completions replies.

    `inner` is the transport that really sends (`httpx.HTTPTransport()`, a `MockTransport`).
    Use it directly, `OpenAI(http_client=httpx.Client(transport=ToolmendTransport(inner)))`,
    or let `wrap(client)` put a client's own HTTP client behind it.
    """

    def handle_request(self, request: Any) -> Any:
        request, turn = _prepare(request, self.settings)
        response = self.inner.handle_request(request)
        kind = _kind(response, turn)
        if kind is None or turn is None:
            return response
        if kind == "json":
            try:
                content = response.read()
            finally:
                response.close()
            return self._whole(response, request, content, turn)
        body = _sse_body(response.iter_bytes(), self.settings.recovery.options(turn))
        stream = _stream_class(_library(request), False)(body, response)
        return _rewritten(response, request, stream=stream)

    def close(self) -> None:
        close = getattr(self.inner, "close", None)
        if callable(close):
            close()

    def __enter__(self) -> ToolmendTransport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncToolmendTransport(_Rewriting):
    """The async twin of `ToolmendTransport` (an `httpx.AsyncBaseTransport`)."""

    async def handle_async_request(self, request: Any) -> Any:
        request, turn = _prepare(request, self.settings)
        response = await self.inner.handle_async_request(request)
        kind = _kind(response, turn)
        if kind is None or turn is None:
            return response
        if kind == "json":
            try:
                content = await response.aread()
            finally:
                await response.aclose()
            return self._whole(response, request, content, turn)
        options = self.settings.recovery.options(turn)
        body = _asse_body(response.aiter_bytes(), options)
        stream = _stream_class(_library(request), True)(body, response)
        return _rewritten(response, request, stream=stream)

    async def aclose(self) -> None:
        aclose = getattr(self.inner, "aclose", None)
        if callable(aclose):
            await aclose()

    async def __aenter__(self) -> AsyncToolmendTransport:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


# ------------------------------------------------------------------------- wrap


class _ClientSender:
    """A configured HTTP client used as the inner transport: its proxies, mounts, auth,
    redirects and event hooks all apply, and holding it keeps it from being closed by GC."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def handle_request(self, request: Any) -> Any:
        return self.client.send(request, stream=True)

    async def handle_async_request(self, request: Any) -> Any:
        return await self.client.send(request, stream=True)

    def close(self) -> None:
        self.client.close()

    async def aclose(self) -> None:
        await self.client.aclose()


ClientT = TypeVar("ClientT")


def wrap(
    client: ClientT,
    *,
    protocols: ProtocolsArg = "auto",
    guard: bool = True,
    attach_diagnostics: bool = False,
    on_diagnostic: DiagnosticSink | None = None,
) -> ClientT:
    """A copy of an `OpenAI` / `AsyncOpenAI` client whose chat completions are recovered.

    The copy is `client.with_options(http_client=...)`: base URL, API key, organization,
    timeouts and retries are kept, and the client's own HTTP client still sends every request.
    `protocols` picks the formats leaked calls are read in (`"auto"`: by model family);
    `guard=False` leaves request histories as they are; `attach_diagnostics` adds
    `toolmend_diagnostics` to replies (read them from `model_extra`).
    """
    http = getattr(client, "_client", None)
    with_options = getattr(client, "with_options", None)
    if http is None or not callable(with_options):
        kind = type(client).__name__
        raise TypeError(f"wrap() takes an OpenAI or AsyncOpenAI client, got {kind}")
    lib = _library(http)
    options: dict[str, Any] = {
        "protocols": protocols,
        "guard": guard,
        "attach_diagnostics": attach_diagnostics,
        "on_diagnostic": on_diagnostic,
    }
    sender = _ClientSender(http)
    if inspect.iscoroutinefunction(http.send):
        transport: Any = AsyncToolmendTransport(sender, **options)
        outer = lib.AsyncClient(transport=transport, timeout=http.timeout)
    else:
        transport = ToolmendTransport(sender, **options)
        outer = lib.Client(transport=transport, timeout=http.timeout)
    wrapped: ClientT = with_options(http_client=outer)
    return wrapped
