"""Text mode's request side: tools written into the prompt, tool history re-encoded as text.

Owns what a model without usable native tool calls is sent instead of `tools`: the protocol's
`render_tools` (and `tool_choice` as an instruction) for the prompt, `render_call` for the
calls in an assistant turn and `render_result` for tool results, over OpenAI chat messages
(`text_request`, the proxy's text mode) or piece by piece (`tools_prompt`, `calls_text`,
`result_text`, for hosts whose messages are their own types, such as pydantic-ai). The answer
is read back by the protocol's parser (the proxy's `TextAnswer`, or `StreamRecovery` with that
one protocol in the adapters). Never parses model output and never opens a connection.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from toolmend.guard.history import _text_of as message_text
from toolmend.model import CannotRenderError, Tool, ToolCall
from toolmend.protocols import get_protocol

#: Request keys that only make sense to a server doing native tool calling.
NATIVE_TOOL_KEYS = ("tools", "tool_choice", "parallel_tool_calls", "functions", "function_call")
#: The format a past call is written in when the protocol cannot carry one of its values (a
#: format that writes values unescaped, such as qwen3-coder's, cannot write a file holding its
#: own `</parameter>`): Hermes' JSON escapes every value, so the model still sees the call it
#: made, and the conversation goes on rather than every later request of it failing.
PAST_CALL_FALLBACK = "hermes"


class RequestError(ValueError):
    """The client's request cannot be served as asked; the message says why (HTTP 400)."""


def arguments_of(call: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments of an OpenAI `tool_calls` entry as a dict (an unreadable string: empty)."""
    function = call.get("function")
    raw = function.get("arguments") if isinstance(function, Mapping) else None
    if isinstance(raw, Mapping):
        return dict(raw)
    try:
        value = json.loads(raw) if isinstance(raw, str) and raw.strip() else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def required_tool(tool_choice: object, tools: Sequence[Tool]) -> tuple[bool, str | None]:
    """(whether a call is required, the one tool it must be) from an OpenAI `tool_choice`."""
    if tool_choice in (None, "auto", "none"):
        return False, None
    if tool_choice == "required":
        return True, None
    if isinstance(tool_choice, Mapping):
        function = tool_choice.get("function")
        name = function.get("name") if isinstance(function, Mapping) else None
        if isinstance(name, str) and any(t.name == name for t in tools):
            return True, name
        raise RequestError(f"tool_choice names a tool that is not in tools: {name!r}")
    raise RequestError(
        f"tool_choice must be none, auto, required or a function, got {tool_choice!r}"
    )


def tool_choice_instruction(tool_choice: object, tools: Sequence[Tool]) -> str:
    required, name = required_tool(tool_choice, tools)
    if name is not None:
        return f"\n\nIn this answer you must call the function `{name}`."
    if required:
        return "\n\nIn this answer you must call at least one of the functions."
    return ""


def tools_prompt(protocol_id: str, tools: Sequence[Tool] | None, tool_choice: object) -> str:
    """The prompt that declares `tools` in the protocol's format ("" when there is none to call)."""
    if not tools or tool_choice == "none":
        return ""
    prompt = get_protocol(protocol_id).render_tools(list(tools))
    return prompt + tool_choice_instruction(tool_choice, tools)


def calls_text(protocol_id: str, text: str, calls: Sequence[Mapping[str, Any]]) -> str:
    """An assistant turn as the protocol writes it: its text, then each call (OpenAI entries;
    one the protocol cannot carry as `PAST_CALL_FALLBACK` writes it)."""
    proto = get_protocol(protocol_id)
    parts = [text]
    for call in calls:
        function = call.get("function")
        function = function if isinstance(function, Mapping) else {}
        name = str(function.get("name") or "")
        past = ToolCall(str(call.get("id") or ""), name, arguments_of(call))
        try:
            parts.append(proto.render_call(past))
        except CannotRenderError:
            parts.append(get_protocol(PAST_CALL_FALLBACK).render_call(past))
    return "\n".join(p for p in parts if p)


def result_text(protocol_id: str, call_id: str, name: str, content: object) -> str:
    """A tool result as the protocol writes it into the next user turn."""
    return get_protocol(protocol_id).render_result(call_id, name, message_text(content))


def _with_prompt(messages: list[dict[str, Any]], prompt: str) -> list[dict[str, Any]]:
    for i, message in enumerate(messages):
        if message.get("role") in ("system", "developer"):
            text = message_text(message.get("content"))
            messages[i] = {**message, "content": f"{text}\n\n{prompt}" if text else prompt}
            return messages
    return [{"role": "system", "content": prompt}, *messages]


def text_request(
    body: Mapping[str, Any],
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Tool] | None,
    protocol_id: str,
) -> dict[str, Any]:
    """The upstream body for text mode: no native tool fields, tools and history as text."""
    names: dict[str, str] = {}
    out: list[dict[str, Any]] = []
    results_open = False  # the last message is a user turn made of tool results
    for message in messages:
        role = message.get("role")
        if role == "assistant" and message.get("tool_calls"):
            calls = [c for c in message["tool_calls"] if isinstance(c, Mapping)]
            for call in calls:
                function = call.get("function")
                name = function.get("name") if isinstance(function, Mapping) else None
                names[str(call.get("id") or "")] = str(name or "")
            text = calls_text(protocol_id, message_text(message.get("content")), calls)
            out.append({"role": "assistant", "content": text})
            results_open = False
        elif role == "tool":
            call_id = str(message.get("tool_call_id") or "")
            name = names.get(call_id) or str(message.get("name") or "")
            result = result_text(protocol_id, call_id, name, message.get("content"))
            if results_open:
                out[-1]["content"] += "\n" + result
            else:
                out.append({"role": "user", "content": result})
            results_open = True
        else:
            out.append(dict(message))
            results_open = False
    prompt = tools_prompt(protocol_id, tools, body.get("tool_choice"))
    if prompt:
        out = _with_prompt(out, prompt)
    upstream = {k: v for k, v in body.items() if k not in NATIVE_TOOL_KEYS}
    upstream["messages"] = out
    return upstream
