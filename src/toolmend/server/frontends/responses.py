"""OpenAI Responses requests (Codex, the Responses clients) translated into chat/completions.

This module owns the request direction of `/v1/responses`: `instructions` and `input` items
(messages of every role, `function_call`, `function_call_output`, Codex's `custom_tool_call`
and `local_shell_call` with their outputs, `reasoning` items) become chat messages, results
right after their calls; the conversation a `previous_response_id` names is passed in by the
caller (the store is I/O, not here) and comes first. Tools: `function` passes on; a
`namespace`'s tools pass on under joined names (`namespace` + tool); a `custom` (freeform) tool
becomes a function with one string parameter `input`; `local_shell` becomes a function taking
the exec action. Hosted tools (`web_search`, `file_search`, `code_interpreter`, …) cannot run
behind a chat/completions server: they are left out with a diagnostic, and a request that
forces one (`tool_choice`) is refused with a `ResponsesRequestError` that says so.
`ToolKinds` remembers what each wire name was, so answers come back as the right item type.

The body is parsed JSON, so its objects are checked as `dict`s (an ABC check such as
`Mapping`'s costs ten times more, and every item and part of a Codex history is checked).
The answer direction lives in `responses_stream`. This module does no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from toolmend.model import ToolmendError
from toolmend.server.frontends.chat_history import place_tool_results
from toolmend.server.frontends.chat_request import (
    ChatRequest,
    content_value,
    echoes_reasoning,
    image_part,
)

PROTOCOL = "openai-responses"
CALL_ID_PREFIX = "call_"
LOCAL_SHELL = "local_shell"
#: Client-side tool types a chat upstream can call as functions.
MAPPED_TOOL_TYPES = frozenset({"function", "namespace", "custom", LOCAL_SHELL})
_TEXT_PARTS = frozenset({"input_text", "output_text", "text", "summary_text", "reasoning_text"})
_TEXT_OR_REFUSAL_PARTS = _TEXT_PARTS | {"refusal"}
_CUSTOM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"input": {"type": "string", "description": "The tool's raw input text."}},
    "required": ["input"],
}
_LOCAL_SHELL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "command": {"type": "array", "items": {"type": "string"}},
        "working_directory": {"type": "string"},
        "timeout_ms": {"type": "integer"},
    },
    "required": ["command"],
}
_NAMESPACE_SEPARATORS = ("_", "-", ".", ":", "/")

Kind = Literal["function", "custom", "local_shell"]


class ResponsesRequestError(ToolmendError, ValueError):
    """The body is not a Responses request we can serve; the message says which field and why."""


class ToolKind(NamedTuple):
    """What a wire tool name stands for: its item type, and its name and namespace as declared
    (a tuple: one is made per declared tool, for every request, at a fifth of a frozen
    dataclass's cost)."""

    kind: Kind
    name: str
    namespace: str | None = None


@dataclass(slots=True)
class ResponsesChatRequest(ChatRequest):
    """A translated Responses request: the chat request plus what the answer items need."""

    kinds: dict[str, ToolKind] = field(default_factory=dict)
    items: list[dict[str, Any]] = field(default_factory=list)

    def kind_of(self, client_name: str) -> ToolKind:
        """The declared kind of an answered call (by the client's joined name)."""
        return self.kinds.get(client_name) or ToolKind("function", client_name)


def joined_name(namespace: str | None, name: str) -> str:
    """The one name a namespaced tool has upstream: `mcp__fs__` + `read`, `crm` + `__` + `find`."""
    if not namespace:
        return name
    separator = "" if namespace.endswith(_NAMESPACE_SEPARATORS) else "__"
    return f"{namespace}{separator}{name}"


def _note(out: ChatRequest, code: str, message: str, **metadata: Any) -> None:
    out.note(code, message, PROTOCOL, **metadata)


def _function(
    out: ResponsesChatRequest, name: str, kind: ToolKind, tool: Mapping[str, Any], schema: object
) -> dict[str, Any]:
    out.kinds[name] = kind
    function: dict[str, Any] = {
        "name": out.names.add(name),
        "parameters": dict(schema) if isinstance(schema, dict) else {"type": "object"},
    }
    description = tool.get("description")
    fmt = tool.get("format")
    if kind.kind == "custom" and isinstance(fmt, dict) and fmt.get("type") == "grammar":
        grammar = f"Input grammar ({fmt.get('syntax', 'unknown')}):\n{fmt.get('definition', '')}"
        description = f"{description}\n\n{grammar}" if description else grammar
    if isinstance(description, str):
        function["description"] = description
    if tool.get("strict") is True:
        function["strict"] = True
    return {"type": "function", "function": function}


def _tools(body: Mapping[str, Any], out: ResponsesChatRequest) -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = []
    declared = body.get("tools")
    if declared is not None and not isinstance(declared, list):
        raise ResponsesRequestError("`tools` must be a list of tools")
    for tool in declared or ():
        if not isinstance(tool, dict):
            continue
        kind = tool.get("type")
        if kind == "namespace":
            namespace = str(tool.get("name") or "")
            inner_tools = tool.get("tools")
            for inner in inner_tools if isinstance(inner_tools, list) else ():
                if isinstance(inner, dict):
                    tools += _declared(inner, out, namespace or None)
        elif isinstance(kind, str) and kind in MAPPED_TOOL_TYPES:
            tools += _declared(tool, out, None)
        else:
            _note(
                out,
                "hosted_tool_dropped",
                "a hosted tool cannot run behind a chat/completions upstream and was left out",
                tool_type=str(kind)[:40],
            )
    return tools


def _declared(
    tool: Mapping[str, Any], out: ResponsesChatRequest, namespace: str | None
) -> list[dict[str, Any]]:
    kind = tool.get("type")
    if kind == LOCAL_SHELL:
        return [
            _function(
                out, LOCAL_SHELL, ToolKind("local_shell", LOCAL_SHELL), tool, _LOCAL_SHELL_SCHEMA
            )
        ]
    name = tool.get("name")
    if not isinstance(name, str) or not name.strip():
        _note(out, "tool_dropped", "a tool without a name was dropped")
        return []
    full = joined_name(namespace, name)
    if kind == "custom":
        return [_function(out, full, ToolKind("custom", name, namespace), tool, _CUSTOM_SCHEMA)]
    return [
        _function(out, full, ToolKind("function", name, namespace), tool, tool.get("parameters"))
    ]


def _tool_choice(choice: object, out: ResponsesChatRequest) -> object:
    if choice in ("auto", "none", "required"):
        return choice
    if not isinstance(choice, dict):
        return None
    kind = choice.get("type")
    if kind in ("function", "custom") and isinstance(choice.get("name"), str):
        name = joined_name(choice.get("namespace"), choice["name"])
        return {"type": "function", "function": {"name": out.names.add(name)}}
    if kind == LOCAL_SHELL:
        return {"type": "function", "function": {"name": LOCAL_SHELL}}
    if kind == "allowed_tools" and choice.get("mode") in ("auto", "required"):
        return choice["mode"]
    raise ResponsesRequestError(
        f"tool_choice forces the hosted tool {str(kind)[:40]!r}, which cannot run behind a "
        "chat/completions upstream; use a function tool or tool_choice 'auto'"
    )


def _part_text(part: object) -> str | None:
    if isinstance(part, str):
        return part
    if isinstance(part, dict) and part.get("type") in _TEXT_OR_REFUSAL_PARTS:
        text = part.get("text", part.get("refusal"))
        return text if isinstance(text, str) else None
    return None


class _Translator:
    def __init__(self, out: ResponsesChatRequest, echo_reasoning: bool) -> None:
        self.out = out
        self.echo_reasoning = echo_reasoning
        self.messages: list[dict[str, Any]] = []
        self.reasoning: list[str] = []

    def parts(self, content: object, role: str) -> list[dict[str, Any]]:
        if isinstance(content, str):
            return [{"type": "text", "text": content}]
        parts: list[dict[str, Any]] = []
        for part in content if isinstance(content, list) else ():
            text = _part_text(part)
            if text is not None:
                parts.append({"type": "text", "text": text})
                continue
            kind = part.get("type") if isinstance(part, dict) else None
            image = image_part(part.get("image_url")) if kind == "input_image" else None
            if image is not None and isinstance(part, dict):
                parts.append(image)
            else:
                _note(
                    self.out,
                    "content_part_dropped",
                    "a content part a chat upstream cannot read was dropped",
                    part_type=str(kind)[:40],
                    role=role,
                )
        return parts

    def assistant(self) -> dict[str, Any]:
        """The assistant message a call joins: the last one, unless a result or user came since."""
        last = self.messages[-1] if self.messages else None
        if last is None or last["role"] != "assistant":
            last = {"role": "assistant", "content": None}
            self.messages.append(last)
        if self.reasoning:
            if self.echo_reasoning:
                last["reasoning_content"] = "\n".join(self.reasoning)
            self.reasoning = []
        return last

    def message(self, item: Mapping[str, Any]) -> None:
        role = item.get("role")
        if role == "assistant":
            text = "".join(
                p["text"]
                for p in self.parts(item.get("content"), "assistant")
                if p["type"] == "text"
            )
            message = self.assistant()
            if message.get("tool_calls"):  # text after calls is a new turn
                message = {"role": "assistant", "content": None}
                self.messages.append(message)
            message["content"] = (message.get("content") or "") + text
            return
        if role not in ("user", "system", "developer"):
            _note(
                self.out,
                "unknown_role_as_user",
                "a message with an unknown role was sent as the user's",
                role=str(role)[:40],
            )
        chat_role = "system" if role in ("system", "developer") else "user"
        parts = self.parts(item.get("content"), chat_role)
        if chat_role == "system":
            parts = [p for p in parts if p["type"] == "text"]
        self.messages.append({"role": chat_role, "content": content_value(parts)})

    def call(self, item: Mapping[str, Any], name: str, arguments: str) -> None:
        message = self.assistant()
        call_id = item.get("call_id") or item.get("id") or ""
        message.setdefault("tool_calls", []).append(
            {
                "id": str(call_id),
                "type": "function",
                "function": {"name": self.out.names.add(name), "arguments": arguments},
            }
        )

    def output(self, item: Mapping[str, Any]) -> None:
        call_id = str(item.get("call_id") or item.get("id") or "")
        output = item.get("output")
        if isinstance(output, str):
            texts, images = [output], []
        else:
            parts = self.parts(output, "tool")
            texts = [p["text"] for p in parts if p["type"] == "text"]
            images = [p for p in parts if p["type"] != "text"]
        self.messages.append({"role": "tool", "tool_call_id": call_id, "content": "\n".join(texts)})
        if images:
            label = {"type": "text", "text": f"Image(s) returned by tool call {call_id}:"}
            self.messages.append({"role": "user", "content": [label, *images]})

    def item(self, item: Mapping[str, Any]) -> None:
        kind = item.get("type", "message" if "role" in item else None)
        if kind == "message":
            self.message(item)
        elif kind == "function_call":
            name = joined_name(item.get("namespace"), str(item.get("name") or ""))
            self.call(item, name, str(item.get("arguments") or ""))
        elif kind == "custom_tool_call":
            name = joined_name(item.get("namespace"), str(item.get("name") or ""))
            self.call(
                item, name, json.dumps({"input": str(item.get("input") or "")}, ensure_ascii=False)
            )
        elif kind == "local_shell_call":
            action = item.get("action")
            action = (
                {k: v for k, v in action.items() if k != "type"} if isinstance(action, dict) else {}
            )
            self.call(item, LOCAL_SHELL, json.dumps(action, ensure_ascii=False))
        elif kind in ("function_call_output", "custom_tool_call_output", "local_shell_call_output"):
            self.output(item)
        elif kind == "reasoning":
            text = _reasoning_text(item)
            if text:
                self.reasoning.append(text)
        else:
            _note(
                self.out,
                "item_dropped",
                "an input item a chat upstream cannot read was dropped",
                item_type=str(kind)[:40],
            )


def _reasoning_text(item: Mapping[str, Any]) -> str:
    """A reasoning item's raw text when it has one, else its summary."""
    for key in ("content", "summary"):
        texts = [t for t in map(_part_text, item.get(key) or ()) if t]
        if texts:
            return "\n".join(texts)
    return ""


def input_items(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The request's `input` as a list of items (a string is one user message)."""
    raw = body.get("input")
    if isinstance(raw, str):
        return [{"type": "message", "role": "user", "content": raw}]
    if isinstance(raw, list):
        return [dict(item) for item in raw if isinstance(item, dict)]
    if raw is None:
        return []
    raise ResponsesRequestError("`input` must be a string or a list of items")


def translate_request(
    body: Mapping[str, Any],
    *,
    previous_items: Sequence[Mapping[str, Any]] = (),
    upstream_model: str | None = None,
) -> ResponsesChatRequest:
    """The chat/completions request for a Responses request body.

    `previous_items` is the conversation `previous_response_id` names (its inputs and outputs),
    read from the response store by the caller. Raises `ResponsesRequestError` when `model` or
    `input` is unusable, or a hosted tool is forced.
    """
    if not isinstance(body, dict):
        raise ResponsesRequestError("the request body must be a JSON object")
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise ResponsesRequestError("`model` must be a non-empty string")
    out = ResponsesChatRequest()
    out.items = [dict(item) for item in previous_items] + input_items(body)
    tools = _tools(body, out)
    translator = _Translator(out, echoes_reasoning(upstream_model or model))
    instructions = body.get("instructions")
    if isinstance(instructions, str) and instructions:
        translator.messages.append({"role": "system", "content": instructions})
    for item in out.items:
        translator.item(item)
    messages, placement = place_tool_results(translator.messages, PROTOCOL)
    out.diagnostics.extend(placement)
    chat: dict[str, Any] = {"model": model, "messages": messages}
    if isinstance(body.get("max_output_tokens"), int):
        chat["max_tokens"] = body["max_output_tokens"]
    for name in ("temperature", "top_p"):
        if body.get(name) is not None:
            chat[name] = body[name]
    if tools:
        chat["tools"] = tools
        choice = _tool_choice(body.get("tool_choice"), out)
        if choice is not None:
            chat["tool_choice"] = choice
        if isinstance(body.get("parallel_tool_calls"), bool):
            chat["parallel_tool_calls"] = body["parallel_tool_calls"]
    elif isinstance(body.get("tool_choice"), dict):
        _tool_choice(body["tool_choice"], out)  # a forced hosted tool is refused even alone
    fmt = (body.get("text") or {}).get("format") if isinstance(body.get("text"), dict) else None
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
        schema = {k: fmt[k] for k in ("name", "schema", "strict") if k in fmt}
        chat["response_format"] = {"type": "json_schema", "json_schema": schema}
    elif isinstance(fmt, dict) and fmt.get("type") == "json_object":
        chat["response_format"] = {"type": "json_object"}
    reasoning = body.get("reasoning")
    if isinstance(reasoning, dict) and isinstance(reasoning.get("effort"), str):
        chat["reasoning_effort"] = reasoning["effort"]
    if body.get("stream") is True:
        chat["stream"] = True
        chat["stream_options"] = {"include_usage": True}
    out.finish(chat)
    return out
