"""The upstream client: one pooled `aiohttp.ClientSession` per worker, OpenAI chat calls and
the event streams of the other APIs an upstream may speak.

This module owns talking to the configured model servers: the pooled session, the request
headers (the client's `Authorization` forwarded only when no key of our own is in play), the
timeouts, and turning every way an upstream can fail (unreachable, timing out, 4xx/5xx, not
JSON, broken SSE, dropped mid-stream) into one `UpstreamError` with a kind and a safe message.
It never decides what an answer means and never takes an address from a request.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Mapping
from dataclasses import dataclass
from typing import Any

import aiohttp
import orjson

from toolmend.server import wirejson
from toolmend.server.config import Limits, Upstream
from toolmend.server.sse import DONE_PAYLOAD, SSEDecoder, SSEError, parse_chunk
from toolmend.server.sse_response import FrameBatch

#: Upstream connections per worker (each open stream holds one; more wait for a free one).
POOL_LIMIT = 1024
#: Bytes of an upstream error body passed back to the client (its message, never our secrets).
MAX_ERROR_BODY = 64 * 1024


@dataclass
class UpstreamError(Exception):
    """The upstream did not give a usable answer.

    `kind`: `unreachable`, `timeout`, `http_status` (with `status` and the upstream's `body`),
    `invalid_json`, `invalid_sse` or `dropped`. `message` is safe to show and to log.
    """

    kind: str
    message: str
    status: int | None = None
    body: bytes = b""

    def __str__(self) -> str:
        return self.message


def upstream_headers(
    upstream: Upstream, client_authorization: str | None, forward_client_auth: bool
) -> dict[str, str]:
    """Headers for the upstream: our key, else the client's Authorization when allowed."""
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if upstream.api_key:
        headers["Authorization"] = f"Bearer {upstream.api_key}"
    elif forward_client_auth and client_authorization:
        headers["Authorization"] = client_authorization
    return headers


#: What reading an answer's body may raise that `body_failure` turns into an UpstreamError.
BODY_READ_ERRORS = (TimeoutError, aiohttp.ClientError)


def body_failure(upstream: Upstream, exc: BaseException) -> UpstreamError:
    """The UpstreamError for a failed body read: a silence past the read timeout or a drop."""
    if isinstance(exc, TimeoutError):
        return UpstreamError("timeout", f"upstream {upstream.name!r} stopped sending")
    return UpstreamError("dropped", f"upstream {upstream.name!r} closed the connection mid-answer")


async def read_body_part(upstream: Upstream, read: Awaitable[bytes]) -> bytes:
    """Bytes of an answer's body; a silence past the read timeout or a drop is an UpstreamError."""
    try:
        return await read
    except BODY_READ_ERRORS as exc:
        raise body_failure(upstream, exc) from None


class UpstreamClient:
    """The worker's connection pool to its upstreams (created in the app's lifespan)."""

    def __init__(self) -> None:
        self._session: aiohttp.ClientSession | None = None

    async def start(self) -> None:
        connector = aiohttp.TCPConnector(limit=POOL_LIMIT, limit_per_host=POOL_LIMIT)
        self._session = aiohttp.ClientSession(
            connector=connector, auto_decompress=True, trust_env=False
        )

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    @property
    def session(self) -> aiohttp.ClientSession:
        if self._session is None:
            raise RuntimeError("UpstreamClient.start() was not awaited")
        return self._session

    def _timeout(self, limits: Limits, *, stream: bool = False) -> aiohttp.ClientTimeout:
        if stream:  # its silences and its length are watched by `UpstreamStream` itself
            return aiohttp.ClientTimeout(sock_connect=limits.connect_timeout)
        return aiohttp.ClientTimeout(
            total=limits.total_timeout,
            sock_connect=limits.connect_timeout,
            sock_read=limits.read_timeout,
        )

    async def _open(
        self,
        upstream: Upstream,
        path: str,
        body: Mapping[str, Any] | None,
        headers: dict[str, str],
        limits: Limits,
        *,
        stream: bool = False,
    ) -> aiohttp.ClientResponse:
        url = f"{upstream.url}{path}"
        method = "GET" if body is None else "POST"
        data = None if body is None else wirejson.dumps(body)
        # A stream's wait for the answer's head is bounded here, its body by `UpstreamStream`.
        head_wait = min(limits.read_timeout, limits.total_timeout) if stream else None
        try:
            async with asyncio.timeout(head_wait):
                response = await self.session.request(
                    method,
                    url,
                    data=data,
                    headers=headers,
                    timeout=self._timeout(limits, stream=stream),
                )
        except TimeoutError:
            raise UpstreamError("timeout", f"upstream {upstream.name!r} timed out") from None
        except aiohttp.ClientError as exc:
            raise UpstreamError(
                "unreachable", f"upstream {upstream.name!r} is unreachable ({type(exc).__name__})"
            ) from None
        if response.status >= 400:
            try:
                error_body = await response.content.read(MAX_ERROR_BODY)
            except (aiohttp.ClientError, TimeoutError):
                error_body = b""
            finally:
                response.release()
            raise UpstreamError(
                "http_status",
                f"upstream {upstream.name!r} answered HTTP {response.status}",
                response.status,
                error_body,
            )
        return response

    async def get_json(
        self, upstream: Upstream, path: str, headers: dict[str, str], limits: Limits
    ) -> tuple[int, dict[str, Any]]:
        """GET a JSON object (the model list)."""
        response = await self._open(upstream, path, None, headers, limits)
        return response.status, await self._read_json(upstream, response)

    async def post_json(
        self, upstream: Upstream, body: Mapping[str, Any], headers: dict[str, str], limits: Limits
    ) -> tuple[int, dict[str, Any]]:
        """A non-streaming chat completion: (status, response object)."""
        response = await self._open(upstream, "/chat/completions", body, headers, limits)
        return response.status, await self._read_json(upstream, response)

    async def _read_json(
        self, upstream: Upstream, response: aiohttp.ClientResponse
    ) -> dict[str, Any]:
        try:
            raw = await read_body_part(upstream, response.read())
        finally:
            response.release()
        try:
            value = wirejson.loads(raw)
        except ValueError:
            raise UpstreamError(
                "invalid_json", f"upstream {upstream.name!r} answered with invalid JSON"
            ) from None
        if not isinstance(value, dict):
            raise UpstreamError(
                "invalid_json", f"upstream {upstream.name!r} answered with a non-object"
            )
        return value

    async def open_stream(
        self, upstream: Upstream, body: Mapping[str, Any], headers: dict[str, str], limits: Limits
    ) -> UpstreamStream:
        """Start a streaming chat completion; the status is known when this returns."""
        started = asyncio.get_running_loop().time()
        response = await self._open(
            upstream, "/chat/completions", body, headers, limits, stream=True
        )
        return UpstreamStream(upstream, response, limits, started)

    async def open_events(
        self,
        upstream: Upstream,
        path: str,
        body: Mapping[str, Any],
        headers: dict[str, str],
        limits: Limits,
    ) -> UpstreamStream:
        """Start a stream of another API at `path` (read with `UpstreamStream.events`)."""
        started = asyncio.get_running_loop().time()
        response = await self._open(upstream, path, body, headers, limits, stream=True)
        return UpstreamStream(upstream, response, limits, started)


def _finishes(chunk: Mapping[str, Any]) -> bool:
    """Whether a chunk carries a choice's finish_reason (the answer itself is complete)."""
    for choice in chunk.get("choices") or ():
        if isinstance(choice, dict) and choice.get("finish_reason"):
            return True
    return False


class UpstreamStream:
    """The chunks of one streaming answer. Closing it (or cancelling) drops the connection.

    The read timeout (the longest silence) and the total timeout are kept by one timer per
    stream that is re-armed only when it fires, not by aiohttp's per-read timers (a cancelled
    and a new timer on every read, about 2 µs a chunk here): each read notes when it came, and
    the timer, when it fires, ends the read waiting past either bound with a `timeout`.

    `more` is how many events of the read that brought the chunk being handed out are still
    to come (a consumer may hold that chunk's frame back and write it with theirs); `batch`,
    when given, is flushed before every read, so no held frame waits for the upstream.
    """

    def __init__(
        self,
        upstream: Upstream,
        response: aiohttp.ClientResponse,
        limits: Limits,
        started: float,
    ) -> None:
        """`started`: the event loop's time when the request went out (the total timeout's
        start)."""
        self.upstream = upstream
        self.status = response.status
        self._response = response
        self._loop = asyncio.get_running_loop()
        self._silence = limits.read_timeout
        self._heard = self._loop.time()  # when the upstream last sent bytes
        self._deadline = started + limits.total_timeout
        self.more = 0
        self.batch: FrameBatch | None = None
        self._watch = self._loop.call_at(
            min(self._heard + self._silence, self._deadline), self._check
        )

    def _check(self) -> None:
        now = self._loop.time()
        name = self.upstream.name
        if now >= self._deadline:
            message = f"upstream {name!r} did not finish its answer in time"
        elif now - self._heard >= self._silence:
            message = f"upstream {name!r} stopped sending"
        else:
            wake = min(self._heard + self._silence, self._deadline)
            self._watch = self._loop.call_at(wake, self._check)
            return
        self._response.content.set_exception(UpstreamError("timeout", message))

    async def _read(self) -> bytes:
        try:
            raw = await self._response.content.readany()
        except BODY_READ_ERRORS as exc:
            raise body_failure(self.upstream, exc) from None
        self._heard = self._loop.time()
        return raw

    async def chunks(self) -> AsyncIterator[dict[str, Any]]:
        """Each chat.completion.chunk dict in order, until `[DONE]` or the end of the body."""
        name = self.upstream.name
        decoder = SSEDecoder()
        done = False
        finished = False  # a chunk carried a finish_reason: the answer itself is complete
        batch = self.batch
        readany = self._response.content.readany
        loop = self._loop
        try:
            while True:
                if batch is not None and batch.frames:
                    await batch.flush()
                try:  # `_read`, inlined: a coroutine less per read
                    raw = await readany()
                except BODY_READ_ERRORS as exc:
                    raise body_failure(self.upstream, exc) from None
                self._heard = loop.time()
                if done:
                    # Read to the end of the body so the connection goes back to the pool.
                    if not raw:
                        return
                    continue
                payloads = decoder.feed(raw) if raw else decoder.finish()
                left = len(payloads)
                for payload in payloads:
                    left -= 1
                    # A chunk is a JSON object: only a payload not opening with `{` is read
                    # for `[DONE]` (stripping copies the payload).
                    if payload[:1] != b"{" and payload.strip() == DONE_PAYLOAD:
                        done = True
                        break
                    try:  # `parse_chunk`'s common case, two calls less per chunk
                        chunk = orjson.loads(payload)
                    except orjson.JSONDecodeError:
                        chunk = parse_chunk(payload)  # what orjson refuses and JSON allows
                    if type(chunk) is not dict:
                        chunk = parse_chunk(payload)  # says why it is no chunk
                    if "error" in chunk and "choices" not in chunk:
                        raise UpstreamError(
                            "upstream_error",
                            f"upstream {name!r} reported an error mid-stream",
                            body=json.dumps(chunk).encode()[:MAX_ERROR_BODY],
                        )
                    if not finished:
                        finished = _finishes(chunk)
                    self.more = left
                    yield chunk
                self.more = 0
                if decoder.error is not None and not done:
                    raise decoder.error
                if not raw:
                    if done or finished:  # some servers end a complete answer without [DONE]
                        return
                    raise UpstreamError(
                        "dropped", f"upstream {name!r} ended the stream without [DONE]"
                    )
        except SSEError as exc:
            raise UpstreamError(
                exc.kind, f"upstream {name!r} sent a broken stream: {exc}"
            ) from None
        finally:
            await self.aclose()

    async def events(self) -> AsyncIterator[dict[str, Any]]:
        """Each event's JSON object in order, until the body ends.

        For the APIs whose stream ends with an event of their own (Anthropic's `message_stop`,
        Responses' `response.completed`): the caller decides whether the end came too early.
        """
        decoder = SSEDecoder()
        try:
            while True:
                raw = await self._read()
                for payload in decoder.feed(raw) if raw else decoder.finish():
                    yield parse_chunk(payload)
                if decoder.error is not None:
                    raise decoder.error
                if not raw:
                    return
        except SSEError as exc:
            raise UpstreamError(
                exc.kind, f"upstream {self.upstream.name!r} sent a broken stream: {exc}"
            ) from None
        finally:
            await self.aclose()

    async def aclose(self) -> None:
        """Drop the connection without reading the rest, which stops the upstream's work."""
        self._watch.cancel()
        if not self._response.closed:
            self._response.close()
