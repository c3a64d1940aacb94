"""Text mode's answer side: tool calling for models without usable native tool calls.

This module owns `TextAnswer`, which runs the protocol's streaming parser over the answer's
content and hands each call to the gate, then to the client as real `tool_calls`. The request
side (`text_request`: tools into the system message with `render_tools`, past calls and results
re-encoded with `render_call` / `render_result`, `tool_choice` as an instruction) is
`toolmend.recovery.textmode`, shared with the adapters' text-protocol modes. It never opens a
connection and never re-asks the upstream (the pipeline does, from the outcome).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from toolmend.events import Diagnostic, TextDelta, ToolCallEnd
from toolmend.model import CallIdFactory, Tool, ToolCall
from toolmend.protocols import get_protocol
from toolmend.server.answer import ChunkWriter, Outcome
from toolmend.server.guarding import CallGate, unknown_tool_call

#: Chunk delta keys passed on as they are (reasoning is never scanned for calls).
REASONING_KEYS = ("reasoning_content", "reasoning")


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
