"""An Anthropic Messages upstream behind `/v1/messages`: the request forwarded in its own API,
the answer read as chat chunks so recovery, repair and the guard apply as for a chat upstream.

`AnthropicUpstream` builds what goes upstream: the client's body as it is, except that its
history has been through the guard (`guard_history` reads `tool_result` blocks with their
`is_error`), thinking blocks without a signature are left out (toolmend wrote them from a chat
upstream's or a recovered reasoning; a real Anthropic upstream refuses a signature it did not
make, and none is ever invented), the model is the alias's and the answer always streams. A
re-ask appends the held calls as one assistant turn and their guidance as one user turn of
`tool_result` blocks with `is_error`.

`AnthropicEventReader` reads the upstream's stream events into chat.completion.chunk dicts:
text deltas as `content` (which recovery scans for leaked calls), `tool_use` blocks as
`tool_calls` by block index (their input then meets the schema gate), thinking, redacted
thinking and server-tool blocks whole under `NATIVE_ITEM_FIELD`, the stop reason as a finish
reason (the matched stop sequence beside it, as vLLM names it), and the usage, cache reads and
writes apart, in a last chunk. A stream that ends before `message_stop`, or an `error` event,
is an `UpstreamError`. This module never writes the client's grammar (`messages_stream` does).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from toolmend.model import Tool, coerce_tools
from toolmend.recovery.textmode import arguments_of
from toolmend.server.frontends.chat_request import ChatRequest
from toolmend.server.frontends.chat_stream import NATIVE_ITEM_FIELD
from toolmend.server.frontends.forwarding import read_events
from toolmend.server.frontends.messages import PROTOCOL
from toolmend.server.frontends.messages_stream import CACHE_CREATION_FIELD
from toolmend.server.upstream import MAX_ERROR_BODY, UpstreamError

MESSAGES_PATH = "/messages"
#: The API version sent when the client named none (the one every current SDK sends).
ANTHROPIC_VERSION = "2023-06-01"
#: Client headers passed on to the upstream as they are (the version and opted-in betas).
FORWARDED_HEADERS = ("anthropic-version", "anthropic-beta")
#: Chat finish reasons for Anthropic stop reasons; the others pass as they are.
_FINISH_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "tool_calls",
}
#: Blocks whose input streams as `input_json_delta` like a `tool_use`'s.
_INPUT_BLOCKS = frozenset({"server_tool_use", "mcp_tool_use"})
#: What a tool without an `input_schema` (a typed tool the upstream defines) is checked against.
_ANY_OBJECT: dict[str, Any] = {"type": "object"}


def anthropic_headers(
    api_key: str | None, client: Mapping[str, str], forward_client_auth: bool
) -> dict[str, str]:
    """Headers for an Anthropic upstream: our key as `x-api-key`, else the client's own."""
    headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
    for name in FORWARDED_HEADERS:
        if client.get(name):
            headers[name] = client[name]
    headers.setdefault("anthropic-version", ANTHROPIC_VERSION)
    if api_key:
        headers["x-api-key"] = api_key
    elif forward_client_auth and client.get("x-api-key"):
        headers["x-api-key"] = client["x-api-key"]
    elif forward_client_auth and client.get("authorization"):
        headers["Authorization"] = client["authorization"]
    return headers


def declared_tools(body: Mapping[str, Any]) -> list[Tool] | None:
    """The request's tools under the names the upstream sees (typed tools as any object)."""
    tools = []
    for tool in body.get("tools") or ():
        if not isinstance(tool, Mapping):
            continue
        name = tool.get("name")
        if not isinstance(name, str) or not name.strip():
            continue
        schema = tool.get("input_schema")
        description = tool.get("description")
        tools.append(
            {
                "name": name,
                "description": description if isinstance(description, str) else "",
                "parameters": dict(schema) if isinstance(schema, Mapping) else _ANY_OBJECT,
            }
        )
    return coerce_tools(tools) if tools else None


def without_unsigned_thinking(
    messages: Sequence[Mapping[str, Any]], request: ChatRequest
) -> list[dict[str, Any]]:
    """The history without the thinking blocks no Anthropic model signed, each one noted."""
    out: list[dict[str, Any]] = []
    for message in messages:
        content = message.get("content")
        if message.get("role") != "assistant" or not isinstance(content, list):
            out.append(dict(message))
            continue
        kept = [block for block in content if not _unsigned_thinking(block)]
        if len(kept) != len(content):
            request.note(
                "unsigned_thinking_dropped",
                "thinking without a signature was not sent to the Anthropic upstream",
                PROTOCOL,
                blocks=len(content) - len(kept),
            )
        out.append({**message, "content": kept})
    return out


def _unsigned_thinking(block: object) -> bool:
    return (
        isinstance(block, Mapping)
        and block.get("type") == "thinking"
        and not (isinstance(block.get("signature"), str) and block["signature"])
    )


def anthropic_turns(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """A re-ask's chat turns (the held calls, their guidance) as Messages turns."""
    out: list[dict[str, Any]] = []
    results: list[dict[str, Any]] | None = None  # the user turn the results go in
    for message in messages:
        role = message.get("role")
        content = message.get("content")
        if role == "tool":
            if results is None:
                results = []
                out.append({"role": "user", "content": results})
            results.append(
                {
                    "type": "tool_result",
                    "tool_use_id": str(message.get("tool_call_id") or ""),
                    "content": content if isinstance(content, str) else "",
                    "is_error": True,
                }
            )
            continue
        results = None
        if role == "assistant":
            blocks: list[dict[str, Any]] = []
            if isinstance(content, str) and content:
                blocks.append({"type": "text", "text": content})
            for call in message.get("tool_calls") or ():
                function = call.get("function") or {}
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": str(call.get("id") or ""),
                        "name": str(function.get("name") or ""),
                        "input": arguments_of(call),
                    }
                )
            out.append({"role": "assistant", "content": blocks})
        else:
            out.append({"role": "user", "content": content if content else ""})
    return out


class AnthropicUpstream:
    """The `ForwardedApi` of an Anthropic Messages upstream."""

    path = MESSAGES_PATH

    def __init__(
        self,
        body: Mapping[str, Any],
        history: list[dict[str, Any]],
        model: str,
        upstream_name: str,
    ) -> None:
        self._body = {k: v for k, v in body.items() if k != "messages"}
        self._history = history
        self._model = model
        self._name = upstream_name

    def body(self, messages: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        turns = [*self._history, *anthropic_turns(messages[len(self._history) :])]
        return {**self._body, "model": self._model, "messages": turns, "stream": True}

    def chunks(self, events: AsyncIterator[dict[str, Any]]) -> AsyncIterator[dict[str, Any]]:
        return read_events(AnthropicEventReader(self._name), events, self._name, "message_stop")


class AnthropicEventReader:
    """Anthropic stream events in, chat.completion.chunk dicts out."""

    def __init__(self, upstream_name: str = "anthropic") -> None:
        self._name = upstream_name
        self._base: dict[str, Any] = {"id": "", "object": "chat.completion.chunk", "model": ""}
        self._calls: dict[int, int] = {}  # block index -> tool call index
        self._held: dict[int, dict[str, Any]] = {}  # block index -> a block passed on whole
        self._inputs: dict[int, list[str]] = {}  # block index -> its input JSON so far
        self._usage: dict[str, int] = {}
        self._stop_reason: str | None = None
        self._stop_sequence: str | None = None
        self.complete = False

    def feed(self, event: Mapping[str, Any]) -> list[dict[str, Any]]:
        kind = event.get("type")
        if kind == "content_block_delta":  # the hot path first
            return self._delta(event)
        if kind == "message_start":
            message = event.get("message")
            message = message if isinstance(message, Mapping) else {}
            self._base["id"] = str(message.get("id") or "msg_upstream")
            self._base["model"] = str(message.get("model") or "")
            self._take_usage(message.get("usage"))
            return [self._chunk({"role": "assistant", "content": ""})]
        if kind == "content_block_start":
            return self._start(event)
        if kind == "content_block_stop":
            return self._stop(event)
        if kind == "message_delta":
            delta = event.get("delta")
            if isinstance(delta, Mapping):
                if isinstance(delta.get("stop_reason"), str):
                    self._stop_reason = delta["stop_reason"]
                if isinstance(delta.get("stop_sequence"), str):
                    self._stop_sequence = delta["stop_sequence"]
            self._take_usage(event.get("usage"))
            return []
        if kind == "message_stop":
            self.complete = True
            return self._end()
        if kind == "error":
            raise UpstreamError(
                "upstream_error",
                f"upstream {self._name!r} reported an error mid-stream",
                body=json.dumps(dict(event)).encode()[:MAX_ERROR_BODY],
            )
        return []  # `ping` and events of later API versions

    def _chunk(self, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice: dict[str, Any] = {"index": 0, "delta": delta, "finish_reason": finish}
        return {**self._base, "choices": [choice]}

    def _start(self, event: Mapping[str, Any]) -> list[dict[str, Any]]:
        index = event.get("index")
        block = event.get("content_block")
        if not isinstance(index, int) or not isinstance(block, Mapping):
            return []
        kind = block.get("type")
        if kind == "text":
            text = block.get("text")
            return [self._chunk({"content": text})] if isinstance(text, str) and text else []
        if kind == "tool_use":
            call = self._calls[index] = len(self._calls)
            given = block.get("input")
            arguments = json.dumps(given, ensure_ascii=False) if given else ""
            entry = {
                "index": call,
                "id": str(block.get("id") or ""),
                "type": "function",
                "function": {"name": str(block.get("name") or ""), "arguments": arguments},
            }
            return [self._chunk({"tool_calls": [entry]})]
        self._held[index] = dict(block)
        return []

    def _delta(self, event: Mapping[str, Any]) -> list[dict[str, Any]]:
        index = event.get("index")
        delta = event.get("delta")
        if not isinstance(index, int) or not isinstance(delta, Mapping):
            return []
        kind = delta.get("type")
        if kind == "text_delta":
            text = delta.get("text")
            return [self._chunk({"content": text})] if isinstance(text, str) and text else []
        if kind == "input_json_delta":
            partial = delta.get("partial_json")
            if not isinstance(partial, str) or not partial:
                return []
            if index in self._calls:
                entry = {"index": self._calls[index], "function": {"arguments": partial}}
                return [self._chunk({"tool_calls": [entry]})]
            self._inputs.setdefault(index, []).append(partial)
            return []
        held = self._held.get(index)
        if held is None:
            return []
        if kind == "thinking_delta" and isinstance(delta.get("thinking"), str):
            held["thinking"] = str(held.get("thinking") or "") + delta["thinking"]
        elif kind == "signature_delta" and isinstance(delta.get("signature"), str):
            held["signature"] = delta["signature"]
        return []

    def _stop(self, event: Mapping[str, Any]) -> list[dict[str, Any]]:
        index = event.get("index")
        block = self._held.pop(index, None) if isinstance(index, int) else None
        if block is None:
            return []
        if block.get("type") in _INPUT_BLOCKS:
            text = "".join(self._inputs.pop(index, [])) if isinstance(index, int) else ""
            try:
                block["input"] = json.loads(text) if text else block.get("input") or {}
            except ValueError:
                block["input"] = {}
        return [self._chunk({NATIVE_ITEM_FIELD: block})]

    def _take_usage(self, usage: object) -> None:
        if isinstance(usage, Mapping):
            for key, value in usage.items():
                if isinstance(value, int) and not isinstance(value, bool):
                    self._usage[key] = value

    def _end(self) -> list[dict[str, Any]]:
        reason = self._stop_reason or "end_turn"
        finish = self._chunk({}, _FINISH_REASONS.get(reason, reason))
        if reason == "stop_sequence" and self._stop_sequence is not None:
            finish["choices"][0]["stop_reason"] = self._stop_sequence
        usage = self._usage
        read = usage.get("cache_read_input_tokens", 0)
        written = usage.get(CACHE_CREATION_FIELD, 0)
        chat_usage: dict[str, Any] = {
            "prompt_tokens": usage.get("input_tokens", 0) + read + written,
            "completion_tokens": usage.get("output_tokens", 0),
            "total_tokens": usage.get("input_tokens", 0)
            + read
            + written
            + usage.get("output_tokens", 0),
            "prompt_tokens_details": {"cached_tokens": read},
        }
        if written:
            chat_usage[CACHE_CREATION_FIELD] = written
        return [finish, {**self._base, "choices": [], "usage": chat_usage}]
