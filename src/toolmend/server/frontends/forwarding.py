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

from toolmend.model import Tool
from toolmend.server.chat import ChatPipeline, ServerState
from toolmend.server.config import ModelRule, Upstream
from toolmend.server.requestlog import RequestRecord


class ForwardedApi(Protocol):
    """One upstream API as the pipeline uses it: where to post, what, and how to read it."""

    path: str

    def body(self, messages: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """The upstream's body for this history (the guarded one, or it and a re-ask's turns)."""
        ...

    def chunks(self, events: AsyncIterator[dict[str, Any]]) -> AsyncIterator[dict[str, Any]]:
        """The upstream's stream events as chat.completion.chunk dicts."""
        ...


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
    ) -> None:
        super().__init__(state, record, body, rule, upstream, tools, history, headers)
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
