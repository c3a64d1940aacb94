"""A Responses upstream behind `/v1/responses`: the request forwarded in its own API, the answer
read as chat chunks so recovery, repair and the guard apply as for a chat upstream.

`ResponsesUpstream` builds what goes upstream: the client's body with `input` the whole
conversation (a `previous_response_id` is served from toolmend's own store, as on the
translated path, so the guard sees every earlier result and the ids the client holds stay
toolmend's), each `function_call_output` whose result the guard rewrote carrying that guidance
(the guard reads the conversation through its chat translation, and the guided results are
put back by `call_id`), the model the alias's, and the answer always streamed. A re-ask
appends the held calls as `function_call` items and their guidance as `function_call_output`
items.

`ResponsesEventReader` reads the upstream's events into chat.completion.chunk dicts:
`response.output_text.delta` as `content` (which recovery scans for leaked calls),
`function_call` items as `tool_calls` by output index (a namespaced call under its joined name,
its arguments then meeting the schema gate), every other item (reasoning with its encrypted
content, hosted tools' calls, freeform calls) whole under `NATIVE_ITEM_FIELD`, and
`response.completed` / `.incomplete` as the finish reason and usage. A stream that ends before
either, `response.failed` or an `error` event, is an `UpstreamError`. This module never writes
the client's grammar (`responses_stream` does).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from toolmend.server.frontends.chat_stream import NATIVE_ITEM_FIELD
from toolmend.server.frontends.forwarding import read_events
from toolmend.server.frontends.responses import joined_name
from toolmend.server.upstream import MAX_ERROR_BODY, UpstreamError

RESPONSES_PATH = "/responses"
#: The items that carry a tool's result back, by `call_id`.
OUTPUT_ITEMS = frozenset({"function_call_output", "custom_tool_call_output"})
#: Fields of the client's body that toolmend answers itself instead of the upstream.
_OWN_FIELDS = frozenset({"input", "previous_response_id"})


def guided_items(
    items: Sequence[Mapping[str, Any]],
    translated: Sequence[Mapping[str, Any]],
    guarded: Sequence[Mapping[str, Any]],
) -> list[dict[str, Any]]:
    """`items` with each result the guard rewrote (in the chat translation) put back."""
    guided = {
        str(after.get("tool_call_id")): after.get("content")
        for before, after in zip(translated, guarded, strict=True)
        if after.get("role") == "tool" and after.get("content") != before.get("content")
    }
    out = []
    for item in items:
        call_id = str(item.get("call_id"))
        if item.get("type") in OUTPUT_ITEMS and isinstance(guided.get(call_id), str):
            out.append({**item, "output": guided[call_id]})
        else:
            out.append(dict(item))
    return out


def responses_items(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """A re-ask's chat turns (the held calls, their guidance) as Responses input items."""
    out: list[dict[str, Any]] = []
    for message in messages:
        content = message.get("content")
        role = message.get("role")
        if role == "tool":
            output = content if isinstance(content, str) else ""
            call_id = str(message.get("tool_call_id") or "")
            out.append({"type": "function_call_output", "call_id": call_id, "output": output})
            continue
        if isinstance(content, str) and content:
            kind = "output_text" if role == "assistant" else "input_text"
            out.append(
                {
                    "type": "message",
                    "role": "assistant" if role == "assistant" else "user",
                    "content": [{"type": kind, "text": content}],
                }
            )
        for call in message.get("tool_calls") or ():
            function = call.get("function") or {}
            out.append(
                {
                    "type": "function_call",
                    "call_id": str(call.get("id") or ""),
                    "name": str(function.get("name") or ""),
                    "arguments": str(function.get("arguments") or "{}"),
                }
            )
    return out


class ResponsesUpstream:
    """The `ForwardedApi` of a Responses upstream."""

    path = RESPONSES_PATH

    def __init__(
        self,
        body: Mapping[str, Any],
        items: list[dict[str, Any]],
        history_length: int,
        model: str,
        upstream_name: str,
    ) -> None:
        self._body = {k: v for k, v in body.items() if k not in _OWN_FIELDS}
        self._items = items
        self._history_length = history_length
        self._model = model
        self._name = upstream_name

    def body(self, messages: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        items = [*self._items, *responses_items(messages[self._history_length :])]
        return {**self._body, "model": self._model, "input": items, "stream": True}

    def chunks(self, events: AsyncIterator[dict[str, Any]]) -> AsyncIterator[dict[str, Any]]:
        reader = ResponsesEventReader(self._name)
        return read_events(reader, events, self._name, "response.completed")


class ResponsesEventReader:
    """Responses stream events in, chat.completion.chunk dicts out."""

    def __init__(self, upstream_name: str = "responses") -> None:
        self._name = upstream_name
        self._base: dict[str, Any] = {"id": "", "object": "chat.completion.chunk", "model": ""}
        self._calls: dict[int, int] = {}  # output index -> tool call index
        self._streamed: set[int] = set()  # output indexes whose text or arguments streamed
        self.complete = False

    def feed(self, event: Mapping[str, Any]) -> list[dict[str, Any]]:
        kind = event.get("type")
        index = event.get("output_index")
        if kind == "response.output_text.delta":  # the hot path first
            text = event.get("delta")
            if not isinstance(text, str) or not text:
                return []
            self._streamed.add(index if isinstance(index, int) else -1)
            return [self._chunk({"content": text})]
        if kind == "response.function_call_arguments.delta":
            fragment = event.get("delta")
            if not isinstance(index, int) or index not in self._calls or not fragment:
                return []
            self._streamed.add(index)
            entry = {"index": self._calls[index], "function": {"arguments": str(fragment)}}
            return [self._chunk({"tool_calls": [entry]})]
        item = event.get("item")
        if kind == "response.output_item.added" and isinstance(item, Mapping):
            return self._added(index, item)
        if kind == "response.output_item.done" and isinstance(item, Mapping):
            return self._done(index, item)
        if kind == "response.created":
            response = event.get("response")
            response = response if isinstance(response, Mapping) else {}
            self._base["id"] = str(response.get("id") or "resp_upstream")
            self._base["model"] = str(response.get("model") or "")
            return [self._chunk({"role": "assistant", "content": ""})]
        if kind in ("response.completed", "response.incomplete"):
            self.complete = True
            response = event.get("response")
            return self._end(response if isinstance(response, Mapping) else {})
        if kind in ("response.failed", "error"):
            raise UpstreamError(
                "upstream_error",
                f"upstream {self._name!r} reported an error mid-stream",
                body=json.dumps(dict(event)).encode()[:MAX_ERROR_BODY],
            )
        return []  # in_progress, content parts, summaries (their items come whole when done)

    def _chunk(self, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice: dict[str, Any] = {"index": 0, "delta": delta, "finish_reason": finish}
        return {**self._base, "choices": [choice]}

    def _added(self, index: object, item: Mapping[str, Any]) -> list[dict[str, Any]]:
        if item.get("type") != "function_call" or not isinstance(index, int):
            return []
        call = self._calls[index] = len(self._calls)
        entry = {
            "index": call,
            "id": str(item.get("call_id") or ""),
            "type": "function",
            "function": {
                "name": joined_name(item.get("namespace"), str(item.get("name") or "")),
                "arguments": "",
            },
        }
        return [self._chunk({"tool_calls": [entry]})]

    def _done(self, index: object, item: Mapping[str, Any]) -> list[dict[str, Any]]:
        kind = item.get("type")
        if kind == "function_call":
            if not isinstance(index, int):
                return []
            chunks = [] if index in self._calls else self._added(index, item)
            arguments = item.get("arguments")
            if index not in self._streamed and isinstance(arguments, str) and arguments:
                entry = {"index": self._calls[index], "function": {"arguments": arguments}}
                chunks.append(self._chunk({"tool_calls": [entry]}))
            return chunks
        if kind == "message":
            if index in self._streamed:
                return []
            texts = [
                part.get("text", "")
                for part in item.get("content") or ()
                if isinstance(part, Mapping) and isinstance(part.get("text"), str)
            ]
            text = "".join(texts)
            return [self._chunk({"content": text})] if text else []
        return [self._chunk({NATIVE_ITEM_FIELD: dict(item)})]

    def _end(self, response: Mapping[str, Any]) -> list[dict[str, Any]]:
        details = response.get("incomplete_details")
        reason = details.get("reason") if isinstance(details, Mapping) else None
        if reason == "max_output_tokens":
            finish = "length"
        else:
            finish = "tool_calls" if self._calls else "stop"
        chunks = [self._chunk({}, finish)]
        usage = response.get("usage")
        if isinstance(usage, Mapping):
            chunks.append({**self._base, "choices": [], "usage": _chat_usage(usage)})
        return chunks


def _chat_usage(usage: Mapping[str, Any]) -> dict[str, Any]:
    def number(value: object) -> int:
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    given = usage.get("input_tokens_details")
    cached = number(given.get("cached_tokens")) if isinstance(given, Mapping) else 0
    produced = usage.get("output_tokens_details")
    reasoning = number(produced.get("reasoning_tokens")) if isinstance(produced, Mapping) else 0
    prompt, completion = number(usage.get("input_tokens")), number(usage.get("output_tokens"))
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cached},
        "completion_tokens_details": {"reasoning_tokens": reasoning},
    }
