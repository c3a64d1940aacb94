"""Text mode: tool calling for models without usable native tool calls.

This module owns both directions of one text protocol: `text_request` removes the request's
`tools`, writes them into the system message with the protocol's `render_tools`, re-encodes past
calls and results with `render_call` / `render_result` and turns `tool_choice` into an
instruction; `TextAnswer` runs the protocol's streaming parser over the answer's content and
hands each call to the gate, then to the client as real `tool_calls`. It never opens a
connection and never re-asks the upstream (the pipeline does, from the outcome).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from toolmend.events import Diagnostic, TextDelta, ToolCallEnd
from toolmend.guard.history import _text_of as message_text
from toolmend.model import CallIdFactory, Tool, ToolCall
from toolmend.protocols import get_protocol
from toolmend.server.answer import ChunkWriter, Outcome
from toolmend.server.guarding import CallGate, arguments_of, unknown_tool_call

#: Request keys that only make sense to a server doing native tool calling.
NATIVE_TOOL_KEYS = ("tools", "tool_choice", "parallel_tool_calls", "functions", "function_call")
#: Chunk delta keys passed on as they are (reasoning is never scanned for calls).
REASONING_KEYS = ("reasoning_content", "reasoning")


class RequestError(ValueError):
    """The client's request cannot be served as asked; the message says why (HTTP 400)."""


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
    proto = get_protocol(protocol_id)
    tool_choice = body.get("tool_choice")
    names: dict[str, str] = {}
    out: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        if role == "assistant" and message.get("tool_calls"):
            parts = [message_text(message.get("content"))]
            for call in message["tool_calls"]:
                if not isinstance(call, Mapping):
                    continue
                function = call.get("function")
                function = function if isinstance(function, Mapping) else {}
                name = str(function.get("name") or "")
                call_id = str(call.get("id") or "")
                names[call_id] = name
                parts.append(proto.render_call(ToolCall(call_id, name, arguments_of(call))))
            out.append({"role": "assistant", "content": "\n".join(p for p in parts if p)})
        elif role == "tool":
            call_id = str(message.get("tool_call_id") or "")
            name = names.get(call_id) or str(message.get("name") or "")
            result = proto.render_result(call_id, name, message_text(message.get("content")))
            if out and out[-1].get("role") == "user" and out[-1].get("_tool_results"):
                out[-1]["content"] += "\n" + result
            else:
                out.append({"role": "user", "content": result, "_tool_results": True})
        else:
            out.append(dict(message))
    for message in out:
        message.pop("_tool_results", None)
    if tools and tool_choice != "none":
        prompt = proto.render_tools(list(tools)) + tool_choice_instruction(tool_choice, tools)
        out = _with_prompt(out, prompt)
    upstream = {k: v for k, v in body.items() if k not in NATIVE_TOOL_KEYS}
    upstream["messages"] = out
    return upstream


class TextAnswer:
    """One upstream answer in text mode: content through the parser, calls through the gate."""

    def __init__(
        self,
        protocol_id: str,
        tools: Sequence[Tool] | None,
        writer: ChunkWriter,
        gate: CallGate,
        *,
        max_fragment: int,
        hold_rejected: bool,
    ) -> None:
        self.protocol = get_protocol(protocol_id).id
        self._parser = get_protocol(protocol_id).stream_parser(tools, max_fragment=max_fragment)
        self._writer = writer
        self._gate = gate
        self._hold_rejected = hold_rejected
        self._ids = CallIdFactory()
        self.outcome = Outcome()

    async def run(self, chunks: AsyncIterator[dict[str, Any]]) -> AsyncIterator[dict[str, Any]]:
        """The client's chunks for the upstream's, in order; `outcome` is complete at the end."""
        try:
            async for chunk in chunks:
                for out in self.feed(chunk):
                    yield out
            for out in self.finish():
                yield out
        except Exception:
            if self.outcome.held:  # no re-ask after a failure: the held calls go on flagged
                yield self._writer.rejected(self.outcome.release_held())
            raise

    def feed(self, chunk: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The client chunks for one upstream chunk (finish reasons and usage are kept back)."""
        self._writer.adopt(chunk)
        if chunk.get("usage"):
            self.outcome.usage = dict(chunk["usage"])
        out: list[dict[str, Any]] = []
        for choice in chunk.get("choices") or ():
            if not isinstance(choice, Mapping) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            reasoning = {k: delta[k] for k in REASONING_KEYS if isinstance(delta.get(k), str)}
            if reasoning:
                out.append(self._writer.chunk(reasoning))
            content = delta.get("content")
            if isinstance(content, str) and content:
                out += self._events(self._parser.feed(content))
            if choice.get("finish_reason"):
                self.outcome.finish_reason = str(choice["finish_reason"])
        return out

    def finish(self) -> list[dict[str, Any]]:
        return self._events(self._parser.finish())

    def _events(self, events: Sequence[object]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        text: list[str] = []
        for event in events:
            if isinstance(event, TextDelta):
                text.append(event.text)
                continue
            if text:
                out.append(self._text("".join(text)))
                text = []
            if isinstance(event, ToolCallEnd):
                out += self._call(event.call)
            elif isinstance(event, Diagnostic):
                self.outcome.diagnostics[event.code] += 1
                name = event.metadata.get("name")
                if event.code == "unknown_tool" and isinstance(name, str):
                    out += self._call(unknown_tool_call(self._ids.next_id(), name))
        if text:
            out.append(self._text("".join(text)))
        return out

    def _text(self, text: str) -> dict[str, Any]:
        self.outcome.text.append(text)
        return self._writer.content(text)

    def _call(self, call: ToolCall) -> list[dict[str, Any]]:
        verdict = self._gate.check(call)
        if verdict.allowed:
            self.outcome.count_call(call, self.protocol)
            self.outcome.handed.append(call)
            return self._writer.tool_call(call)
        if self._hold_rejected:
            self.outcome.held.append((call, verdict.guidance))
            return []
        self.outcome.flagged.append(call)
        return [self._writer.rejected([(call, verdict.guidance)])]
