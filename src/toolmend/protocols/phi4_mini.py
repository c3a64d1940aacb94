"""Phi-4-mini: `functools` then a JSON list of call objects.

    functools[{"name": "get_weather", "arguments": {"city": "Paris"}}]

Owns the marker (the `[` belongs to the list: it is read as JSON) and the result envelope;
reading and rendering are `json_values`'.
"""

from __future__ import annotations

from toolmend.core.reader import BlockContext, BlockReader
from toolmend.protocols.json_values import CallValuesProtocol, CallValuesReader

MARKER = "functools["


class Phi4MiniProtocol(CallValuesProtocol):
    id = "phi4-mini"
    aliases = ("phi-4-mini", "phi4mini")
    summary = 'Phi-4-mini: functools[{"name": ..., "arguments": {...}}]'
    opener = "functools"
    result_closers = ("</tool_result>",)

    def opening_markers(self, resolver: object) -> tuple[str, ...]:
        return (MARKER,)

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        return CallValuesReader(ctx, self.format, marker, prime="[")

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        return f"<tool_result>{content}</tool_result>"


PROTOCOL = Phi4MiniProtocol()
