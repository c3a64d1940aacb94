"""The chat endpoint's pipeline over an upstream that speaks the client's own API.

When `/v1/messages` has an Anthropic upstream or `/v1/responses` a Responses upstream, the
request is not translated to chat: the client's body goes on in its own API (`ForwardedApi`
builds it, for the first request and for every re-ask) and the upstream's events come back as
chat.completion.chunk dicts, so that the same recovery, argument repair, call gate and
self-correction of `ChatPipeline` apply, and the front-end's writer turns them back into the
client's grammar. This module owns only that seam; each API's side lives in its own module
(`anthropic_upstream`, `responses_upstream`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any, Protocol

from toolmend.guard.history import HistoryGuard
from toolmend.model import Tool
from toolmend.server.chat import ChatPipeline, ServerState
from toolmend.server.config import ModelRule, Upstream
from toolmend.server.requestlog import RequestRecord
from toolmend.server.upstream import UpstreamError


class ForwardedApi(Protocol):
    """One upstream API as the pipeline uses it: where to post, what, and how to read it."""

    path: str

    def body(self, messages: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """The upstream's body for this history (the guarded one, or it and a re-ask's turns)."""
        ...

    def chunks(self, events: AsyncIterator[dict[str, Any]]) -> AsyncIterator[dict[str, Any]]:
        """The upstream's stream events as chat.completion.chunk dicts."""
        ...


class EventReader(Protocol):
    """One API's stream events in, chat chunks out; `complete` once its last event came."""

    complete: bool

    def feed(self, event: Mapping[str, Any]) -> list[dict[str, Any]]: ...


async def read_events(
    reader: EventReader, events: AsyncIterator[dict[str, Any]], upstream: str, last_event: str
) -> AsyncIterator[dict[str, Any]]:
    """The chunks of every event; a stream that ends before `last_event` was dropped."""
    async for event in events:
        for chunk in reader.feed(event):
            yield chunk
    if not reader.complete:
        message = f"upstream {upstream!r} ended the stream before {last_event}"
        raise UpstreamError("dropped", message)


class ForwardingPipeline(ChatPipeline):
    """`ChatPipeline` whose upstream requests go out in `api`'s own shape (always streamed)."""

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
        api: ForwardedApi,
        *,
        guard: HistoryGuard | None,
    ) -> None:
        super().__init__(state, record, body, rule, upstream, tools, history, headers, guard=guard)
        self.api = api

    async def open(self, messages: Sequence[Mapping[str, Any]]) -> AsyncIterator[dict[str, Any]]:
        """One upstream request; a client that asked for one object still gets it folded."""
        client = self.state.client
        body = self.api.body(messages)
        stream = await client.open_events(
            self.upstream, self.api.path, body, self.headers, self.rule.limits
        )
        self.record.upstream_status = stream.status
        return self.api.chunks(stream.events())
