"""apertus: Apertus (Swiss AI) calls, a JSON list of objects keyed by the tool's name.

    <|inner_prefix|>Need the weather.<|inner_suffix|>I will check.
    <|tools_prefix|>[{"get_weather": {"city": "Zurich"}}, {"get_time": {}}]<|tools_suffix|>

As llama.cpp's Apertus-8B-Instruct template (`tests/test-chat.cpp`) and Ollama's `apertus1.5`
parser read it. Owns the markers, the shape of a call (one key, the tool's name, whose value is
the arguments object: `{"NAME": {…}}`), `<|inner_prefix|>…<|inner_suffix|>` as reasoning, the
assistant turn's own tokens as markup, and the `<|tool_output_start|>` result envelope; reading
the list (its end where its JSON ends, the suffix token missing or consumed by the server) is
the JSON-values family's (`json_values`). An object with several keys, or whose value is no
object, is no call: Ollama refuses those too.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from toolmend.core.reader import BlockContext, BlockReader, ReasoningSpan
from toolmend.model import Tool, ToolCall
from toolmend.names import ToolResolver
from toolmend.protocols.base import MarkupOnlyReader, declare_tools
from toolmend.protocols.json_values import CallValuesProtocol, CallValuesReader, call_format

OPEN = "<|tools_prefix|>"
CLOSE = "<|tools_suffix|>"
INNER = ReasoningSpan("<|inner_prefix|>", ("<|inner_suffix|>",))
#: The assistant turn's own tokens: markup, never text.
TURN_TOKENS = ("<|assistant_start|>", "<|assistant_end|>")
RESULT_OPEN = "<|tool_output_start|>"
RESULT_CLOSE = "<|tool_output_end|>"


def named_call(obj: dict[str, Any]) -> dict[str, Any]:
    """`{"NAME": {…}}` as the family's call object `{"name": NAME, "arguments": {…}}`; any
    other object as it is (the family then finds it no call)."""
    if len(obj) == 1:
        ((name, arguments),) = obj.items()
        if isinstance(arguments, dict) and name not in ("name", "function"):
            return {"name": name, "arguments": arguments}
    return obj


class NamedObjectsReader(CallValuesReader):
    """The family's reader, each call object keyed by its tool's name."""

    def _finish_object(self, obj: dict[str, Any], repairs: list[str], *, at: int) -> None:
        super()._finish_object(named_call(obj), repairs, at=at)


class ApertusProtocol(CallValuesProtocol):
    id = "apertus"
    aliases = ("apertus1.5", "apertus-1.5")
    summary = 'Apertus: <|tools_prefix|>[{"NAME": {...arguments...}}]<|tools_suffix|>'
    opener = OPEN
    closer = CLOSE
    format = call_format(closers=(CLOSE,), reopeners=(OPEN,), block="a <|tools_prefix|> list")
    reasoning_spans = (INNER,)
    result_closers = (RESULT_CLOSE,)

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return (OPEN, *TURN_TOKENS)

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        if marker in TURN_TOKENS:
            return MarkupOnlyReader(ctx)
        return NamedObjectsReader(ctx, self.format, marker)

    def call_object(self, call: ToolCall) -> dict[str, Any]:
        return {call.name: call.arguments}

    def render_tools(self, tools: Sequence[Tool]) -> str:
        example = json.dumps([{"<function-name>": {"<argument>": "<value>"}}])
        return (
            declare_tools(tools)
            + f"To call functions, write {OPEN}, then a JSON list with one object per call, "
            f"keyed by the function's name, its value the arguments object, then {CLOSE}:\n"
            f"{OPEN}{example}{CLOSE}"
        )

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        return f"{RESULT_OPEN}{content}{RESULT_CLOSE}"


PROTOCOL = ApertusProtocol()
