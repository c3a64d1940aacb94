"""Native mode: the model's own tool calling, with the request's tools passed through.

This module owns the answer side of native mode. Until `toolmend.recover_stream` is available
it is an honest pass-through: chunks go to the client as the upstream sent them (only their
finish reason and usage are kept back for the pipeline's closing chunk), nothing is recovered
and nothing is checked, and `RECOVERY_AVAILABLE` says so. It never rewrites a request.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from toolmend.model import Tool
from toolmend.server.answer import ChunkWriter, Outcome
from toolmend.server.guarding import CallGate

#: False while native mode cannot recover leaked calls (the recovery package is not there).
RECOVERY_AVAILABLE = False


class NativeAnswer:
    """One upstream answer in native mode."""

    def __init__(
        self,
        tools: Sequence[Tool] | None,
        model: str,
        protocols: str | tuple[str, ...],
        writer: ChunkWriter,
        gate: CallGate,
        *,
        hold_rejected: bool,
    ) -> None:
        self._writer = writer
        self.outcome = Outcome()
        self._calls_seen: set[int] = set()

    async def run(self, chunks: AsyncIterator[dict[str, Any]]) -> AsyncIterator[dict[str, Any]]:
        async for chunk in chunks:
            self._writer.adopt(chunk)
            if chunk.get("usage"):
                self.outcome.usage = dict(chunk.pop("usage"))
            choices = chunk.get("choices")
            if not choices:
                continue
            for choice in choices:
                if isinstance(choice, dict):
                    self._note(choice)
            yield chunk

    def _note(self, choice: dict[str, Any]) -> None:
        if choice.get("finish_reason") and choice.get("index", 0) == 0:
            self.outcome.finish_reason = str(choice.pop("finish_reason"))
            choice["finish_reason"] = None
        delta = choice.get("delta")
        if not isinstance(delta, Mapping):
            return
        content = delta.get("content")
        if isinstance(content, str):
            self.outcome.text.append(content)
        for part in delta.get("tool_calls") or ():
            if isinstance(part, Mapping) and part.get("index") not in self._calls_seen:
                self._calls_seen.add(int(part.get("index") or 0))
                self._writer.next_index += 1

    @property
    def native_calls(self) -> int:
        return len(self._calls_seen)
