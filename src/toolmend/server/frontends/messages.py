"""Anthropic Messages requests translated into chat/completions requests.

This module owns the request direction of `/v1/messages`: `system` (a string or text blocks),
`tools` (`input_schema`), `tool_choice`, `tool_use` blocks as assistant `tool_calls`, and
`tool_result` blocks as `role: tool` messages right after the assistant turn that called them,
before the user's own text and images, with `is_error` kept on the message (the guard reads it)
and array contents flattened to text; images inside a result move to the user message that
follows. Thinking blocks are echoed back as `reasoning_content` for the model families whose
chat templates need their reasoning on the next turn. Unknown block types and roles are passed
on as text when they carry text and dropped otherwise, each with a diagnostic; a request is
refused only when it is not a Messages request at all. Ids of the history are made valid and
unique; tool names that a chat upstream would refuse get wire names (`toolnames`).

The answer direction lives in `messages_stream`. This module does no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from toolmend.model import ToolmendError
from toolmend.server.frontends.chat_history import place_tool_results
from toolmend.server.frontends.chat_request import (
    ChatRequest,
    content_value,
    echoes_reasoning,
    image_part,
)
from toolmend.server.frontends.ids import UniqueIds

PROTOCOL = "anthropic-messages"
TOOL_USE_ID_PREFIX = "toolu_"
#: Sampling fields with the same meaning on both APIs.
_SAME_FIELDS = ("temperature", "top_p", "top_k")
_EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


class MessagesRequestError(ToolmendError, ValueError):
    """The body is not an Anthropic Messages request; the message says which field and why."""


def _note(out: ChatRequest, code: str, message: str, **metadata: Any) -> None:
    out.note(code, message, PROTOCOL, **metadata)


def _text_blocks(content: object) -> str:
    """A string or a list of blocks flattened to its text, one block per line."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, Mapping):
            text = _block_text(block)
            if text is not None:
                parts.append(text)
    return "\n".join(parts)


def _block_text(block: Mapping[str, Any]) -> str | None:
    """The text a block carries: its `text`, or the text of its own content (search results)."""
    if isinstance(block.get("text"), str):
        return str(block["text"])
    if block.get("type") in ("search_result", "document") and "content" in block:
        return _text_blocks(block["content"])
    source = block.get("source")
    if block.get("type") != "document" or not isinstance(source, Mapping):
        return None
    data = source.get("data")
    return data if source.get("type") == "text" and isinstance(data, str) else None


def _image_part(block: Mapping[str, Any]) -> dict[str, Any] | None:
    source = block.get("source")
    if not isinstance(source, Mapping):
        return None
    if source.get("type") == "base64" and isinstance(source.get("data"), str):
        media = source.get("media_type") or "image/png"
        return image_part(f"data:{media};base64,{source['data']}")
    if source.get("type") == "url":
        return image_part(source.get("url"))
    return None


class _Translator:
    """One request's translation state: ids remapped so far and the output being built."""

    def __init__(self, out: ChatRequest, echo_reasoning: bool) -> None:
        self.out = out
        self.echo_reasoning = echo_reasoning
        self.ids = UniqueIds(TOOL_USE_ID_PREFIX)
        self.latest_id: dict[str, str] = {}  # client id -> id sent upstream, latest call wins
        self.messages: list[dict[str, Any]] = []

    def user_parts(self, block: Mapping[str, Any], role: str) -> list[dict[str, Any]]:
        kind = block.get("type")
        if kind == "image":
            image = _image_part(block)
            if image is not None:
                return [image]
            _note(self.out, "image_dropped", "an image without a usable source was dropped")
            return []
        text = _block_text(block)
        if text is not None:
            if kind not in ("text", "document", "search_result"):
                _note(
                    self.out,
                    "unknown_block_as_text",
                    "an unknown block was sent as text",
                    block_type=str(kind),
                    role=role,
                )
            return [{"type": "text", "text": text}]
        _note(
            self.out,
            "block_dropped",
            "a block with no text for a chat upstream was dropped",
            block_type=str(kind),
            role=role,
        )
        return []

    def tool_result(self, block: Mapping[str, Any], images: list[dict[str, Any]]) -> None:
        client_id = block.get("tool_use_id")
        call_id = self.latest_id.get(client_id, client_id) if isinstance(client_id, str) else ""
        content = block.get("content")
        texts: list[str] = []
        own_images: list[dict[str, Any]] = []
        for part in content if isinstance(content, list) else [content]:
            if isinstance(part, Mapping) and part.get("type") == "image":
                image = _image_part(part)
                if image is not None:
                    own_images.append(image)
            elif part is not None:
                texts.append(_text_blocks([part]))
        message: dict[str, Any] = {
            "role": "tool",
            "tool_call_id": call_id,
            "content": "\n".join(texts),
        }
        if block.get("is_error") is True:
            message["is_error"] = True
        if own_images:
            label = f"Image(s) returned by tool call {call_id}:"
            images.append({"type": "text", "text": label})
            images.extend(own_images)
            if not message["content"]:
                message["content"] = "(the result is the image(s) in the next message)"
        self.messages.append(message)

    def user_turn(self, content: object, role: str) -> None:
        if isinstance(content, str):
            self.messages.append({"role": "user", "content": content})
            return
        parts: list[dict[str, Any]] = []
        moved_images: list[dict[str, Any]] = []
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, Mapping):
                continue
            if block.get("type") == "tool_result":
                self.tool_result(block, moved_images)
            else:
                parts.extend(self.user_parts(block, role))
        parts = moved_images + parts
        if parts:
            self.messages.append({"role": "user", "content": content_value(parts)})

    def tool_call(self, block: Mapping[str, Any]) -> dict[str, Any]:
        client_id = block.get("id")
        call_id = self.ids.claim(client_id)
        if isinstance(client_id, str) and client_id != call_id:
            _note(
                self.out,
                "tool_use_id_replaced",
                "a missing, invalid or repeated tool_use id was replaced",
                tool_use_id=client_id[:80],
            )
        if isinstance(client_id, str):
            self.latest_id[client_id] = call_id
        name = block.get("name") if isinstance(block.get("name"), str) else ""
        tool_input = block.get("input")
        arguments = (
            tool_input
            if isinstance(tool_input, str)
            else json.dumps(tool_input if tool_input is not None else {}, ensure_ascii=False)
        )
        return {
            "id": call_id,
            "type": "function",
            "function": {"name": self.out.names.add(str(name)), "arguments": arguments},
        }

    def assistant_turn(self, content: object) -> None:
        if isinstance(content, str):
            self.messages.append({"role": "assistant", "content": content})
            return
        texts: list[str] = []
        reasoning: list[str] = []
        calls: list[dict[str, Any]] = []
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, Mapping):
                continue
            kind = block.get("type")
            if kind == "tool_use":
                calls.append(self.tool_call(block))
            elif kind == "thinking":
                if isinstance(block.get("thinking"), str):
                    reasoning.append(block["thinking"])
            elif kind == "redacted_thinking":
                continue  # encrypted for Anthropic's own models; no other model can read it
            else:
                text = _block_text(block)
                if text is None:
                    _note(
                        self.out,
                        "block_dropped",
                        "a block with no text for a chat upstream was dropped",
                        block_type=str(kind),
                        role="assistant",
                    )
                    continue
                if kind != "text":
                    _note(
                        self.out,
                        "unknown_block_as_text",
                        "an unknown block was sent as text",
                        block_type=str(kind),
                        role="assistant",
                    )
                texts.append(text)
        message: dict[str, Any] = {"role": "assistant", "content": "".join(texts) or None}
        if calls:
            message["tool_calls"] = calls
        if reasoning and self.echo_reasoning:
            message["reasoning_content"] = "\n".join(reasoning)
        if message["content"] is None and not calls and "reasoning_content" not in message:
            message["content"] = ""
        self.messages.append(message)


def _tools(body: Mapping[str, Any], out: ChatRequest) -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = []
    declared = body.get("tools")
    if declared is not None and not isinstance(declared, list):
        raise MessagesRequestError("`tools` must be a list of tools")
    for tool in declared or ():
        if not isinstance(tool, Mapping):
            continue
        name = tool.get("name")
        if not isinstance(name, str) or not name.strip():
            _note(out, "tool_dropped", "a tool without a name was dropped")
            continue
        schema = tool.get("input_schema")
        kind = tool.get("type")
        if not isinstance(schema, Mapping) and kind not in (None, "custom"):
            _note(
                out,
                "tool_dropped",
                "a server or built-in tool cannot run on a chat upstream",
                tool=name[:80],
                tool_type=str(kind),
            )
            continue
        function: dict[str, Any] = {
            "name": out.names.add(name),
            "parameters": dict(schema) if isinstance(schema, Mapping) else dict(_EMPTY_SCHEMA),
        }
        if isinstance(tool.get("description"), str):
            function["description"] = tool["description"]
        tools.append({"type": "function", "function": function})
    return tools


def _tool_choice(choice: object, out: ChatRequest) -> object:
    if not isinstance(choice, Mapping):
        return None
    kind = choice.get("type")
    if kind == "auto":
        return "auto"
    if kind == "any":
        return "required"
    if kind == "none":
        return "none"
    if kind == "tool" and isinstance(choice.get("name"), str):
        return {"type": "function", "function": {"name": out.names.add(choice["name"])}}
    _note(out, "tool_choice_ignored", "an unknown tool_choice was ignored", kind=str(kind))
    return None


def translate_request(body: Mapping[str, Any], *, upstream_model: str | None = None) -> ChatRequest:
    """The chat/completions request for an Anthropic Messages request body.

    `upstream_model` is the model the upstream will run (after aliases); it decides whether
    reasoning is echoed back. Raises `MessagesRequestError` only when `messages` or `model`
    is missing or of the wrong type.
    """
    if not isinstance(body, Mapping):
        raise MessagesRequestError("the request body must be a JSON object")
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise MessagesRequestError("`model` must be a non-empty string")
    turns = body.get("messages")
    if not isinstance(turns, list):
        raise MessagesRequestError("`messages` must be a list of messages")
    out = ChatRequest()
    tools = _tools(body, out)
    translator = _Translator(out, echoes_reasoning(upstream_model or model))
    system = _text_blocks(body.get("system"))
    if system:
        translator.messages.append({"role": "system", "content": system})
    for turn in turns:
        if not isinstance(turn, Mapping):
            _note(out, "message_dropped", "a message that is not an object was dropped")
            continue
        role = turn.get("role")
        content = turn.get("content")
        if role == "assistant":
            translator.assistant_turn(content)
        elif role in ("system", "developer"):
            translator.messages.append({"role": "system", "content": _text_blocks(content)})
        else:
            if role != "user":
                _note(
                    out,
                    "unknown_role_as_user",
                    "a message with an unknown role was sent as the user's",
                    role=str(role)[:40],
                )
            translator.user_turn(content, "user")
    messages, placement = place_tool_results(translator.messages, PROTOCOL)
    out.diagnostics.extend(placement)
    chat: dict[str, Any] = {"model": model, "messages": messages}
    if isinstance(body.get("max_tokens"), int):
        chat["max_tokens"] = body["max_tokens"]
    for name in _SAME_FIELDS:
        if name in body:
            chat[name] = body[name]
    stops = body.get("stop_sequences")
    if isinstance(stops, list) and stops:
        chat["stop"] = [s for s in stops if isinstance(s, str)]
    if tools:
        chat["tools"] = tools
        choice = body.get("tool_choice")
        translated = _tool_choice(choice, out)
        if translated is not None:
            chat["tool_choice"] = translated
        if isinstance(choice, Mapping) and choice.get("disable_parallel_tool_use") is True:
            chat["parallel_tool_calls"] = False
    if body.get("stream") is True:
        chat["stream"] = True
        chat["stream_options"] = {"include_usage": True}
    out.finish(chat)
    return out
