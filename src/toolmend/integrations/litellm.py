"""The LiteLLM adapter: a `CustomLogger` for the LiteLLM proxy and wrappers for its SDK.

Owns `ToolmendHandler`, whose proxy hooks guard a request's history (`async_pre_call_hook`),
recover a whole reply (`async_post_call_success_hook`) and a streamed one
(`async_post_call_streaming_iterator_hook`), and `completion` / `acompletion`, which do the same
around `litellm.completion` / `litellm.acompletion` in the SDK (whose callbacks cannot rewrite a
stream). LiteLLM's responses are OpenAI-shaped: each is dumped to a dict, recovered by
`recover_response` / `recover_stream` and rebuilt as LiteLLM's own type.

Minimum LiteLLM: 1.80.9. The proxy ran a callback's `async_post_call_streaming_iterator_hook`
without consuming it (so a stream was never rewritten) up to 1.80.8; 1.80.9 is the first release
whose `proxy/utils.py` iterates the chain (checked in the released wheels). Never parses text,
repairs arguments or classifies errors itself.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Iterator, Mapping
from typing import Any

import litellm
from litellm.integrations.custom_logger import CustomLogger

from toolmend.integrations._chat import (
    ChatTurn,
    Recovery,
    chat_turn,
    declared_tools,
    guarded_messages,
)
from toolmend.recovery import arecover_stream, recover_stream
from toolmend.recovery.families import ProtocolsArg
from toolmend.recovery.stream import DiagnosticSink

#: The proxy's call types that carry a chat-completions request.
CHAT_CALL_TYPES = frozenset({"completion", "acompletion", "text_completion", "atext_completion"})


class LiteLLMRecovery:
    """Recovery around LiteLLM's own types: dumped to dicts, recovered, rebuilt."""

    def __init__(self, recovery: Recovery) -> None:
        self.recovery = recovery

    def response(self, turn: ChatTurn, response: Any) -> Any:
        """A `litellm.ModelResponse` recovered (anything else as it came)."""
        if not turn.recovers or not isinstance(response, litellm.ModelResponse):
            return response
        return litellm.ModelResponse(**self.recovery.response(turn, response.model_dump()))

    def stream(self, turn: ChatTurn, chunks: Iterator[Any]) -> Iterator[Any]:
        if not turn.recovers:
            yield from chunks
            return
        dicts = (_dumped(c) for c in chunks)
        for chunk in recover_stream(dicts, **self.recovery.options(turn)):
            yield litellm.ModelResponseStream(**chunk)

    async def astream(self, turn: ChatTurn, chunks: AsyncIterator[Any]) -> AsyncIterator[Any]:
        if not turn.recovers:
            async for chunk in chunks:
                yield chunk
            return

        async def dicts() -> AsyncIterator[dict[str, Any]]:
            async for chunk in chunks:
                yield _dumped(chunk)

        async for chunk in arecover_stream(dicts(), **self.recovery.options(turn)):
            yield litellm.ModelResponseStream(**chunk)


def _dumped(chunk: Any) -> dict[str, Any]:
    if isinstance(chunk, Mapping):
        return dict(chunk)
    dumped: dict[str, Any] = chunk.model_dump()
    return dumped


def _guarded(request: dict[str, Any]) -> dict[str, Any]:
    messages = request.get("messages")
    if not isinstance(messages, list):
        return request
    guarded = guarded_messages(messages, declared_tools(request))
    return request if guarded is None else {**request, "messages": guarded}


class ToolmendHandler(CustomLogger):
    """The LiteLLM proxy's callback: `litellm_settings: callbacks: toolmend_callbacks.handler`
    in the proxy's config, with `handler = ToolmendHandler()` in that module."""

    def __init__(
        self,
        *,
        protocols: ProtocolsArg = "auto",
        guard: bool = True,
        on_diagnostic: DiagnosticSink | None = None,
    ) -> None:
        super().__init__()
        self.recovery = LiteLLMRecovery(Recovery(protocols, on_diagnostic))
        self.guard = guard

    async def async_pre_call_hook(
        self, user_api_key_dict: Any, cache: Any, data: dict[str, Any], call_type: Any
    ) -> dict[str, Any]:
        if not self.guard or call_type not in CHAT_CALL_TYPES:
            return data
        return _guarded(data)

    async def async_post_call_success_hook(
        self, data: dict[str, Any], user_api_key_dict: Any, response: Any
    ) -> Any:
        return self.recovery.response(chat_turn(data), response)

    async def async_post_call_streaming_iterator_hook(
        self, user_api_key_dict: Any, response: Any, request_data: dict[str, Any]
    ) -> AsyncGenerator[Any, None]:
        async for chunk in self.recovery.astream(chat_turn(request_data), aiter(response)):
            yield chunk


def completion(
    *,
    protocols: ProtocolsArg = "auto",
    guard: bool = True,
    on_diagnostic: DiagnosticSink | None = None,
    **request: Any,
) -> Any:
    """`litellm.completion(**request)` with the history guarded and the reply recovered,
    whole or streamed (`stream=True` returns an iterator of `ModelResponseStream`)."""
    request = _guarded(request) if guard else request
    recovery = LiteLLMRecovery(Recovery(protocols, on_diagnostic))
    turn = chat_turn(request)
    response = litellm.completion(**request)
    if request.get("stream"):
        return recovery.stream(turn, iter(response))
    return recovery.response(turn, response)


async def acompletion(
    *,
    protocols: ProtocolsArg = "auto",
    guard: bool = True,
    on_diagnostic: DiagnosticSink | None = None,
    **request: Any,
) -> Any:
    """`litellm.acompletion(**request)`, guarded and recovered like `completion`."""
    request = _guarded(request) if guard else request
    recovery = LiteLLMRecovery(Recovery(protocols, on_diagnostic))
    turn = chat_turn(request)
    response = await litellm.acompletion(**request)
    if request.get("stream"):
        return recovery.astream(turn, aiter(response))
    return recovery.response(turn, response)
