"""Cohere Command-A / Command R7B: calls in `<|START_ACTION|>…<|END_ACTION|>` as a JSON list.

    <|START_ACTION|>[{"tool_call_id": "0", "tool_name": "get_weather", "parameters": {…}}]
    <|END_ACTION|>

Owns the markers, Cohere's key spellings (`tool_name`, `parameters`, `tool_call_id`) for
rendering, the `<|START_TOOL_RESULT|>` envelope, and `<|START_THINKING|>…<|END_THINKING|>` as
reasoning (a span the parser keeps apart); reading is `json_values`'.
"""

from __future__ import annotations

import json
from typing import Any

from toolmend.core.reader import ReasoningSpan
from toolmend.model import ToolCall
from toolmend.protocols.json_values import CallValuesProtocol, call_format

START_ACTION = "<|START_ACTION|>"
END_ACTION = "<|END_ACTION|>"
RESULT_OPEN = "<|START_TOOL_RESULT|>"
RESULT_END = "<|END_TOOL_RESULT|>"
#: Command-A Reasoning's reasoning span.
THINKING = "<|START_THINKING|>"
THINKING_END = "<|END_THINKING|>"


class CohereProtocol(CallValuesProtocol):
    id = "cohere"
    aliases = ("command-a", "command-r7b", "cohere-command-a")
    summary = 'Cohere Command-A: <|START_ACTION|>[{"tool_name": ..., "parameters": {...}}]'
    opener = START_ACTION
    closer = END_ACTION
    format = call_format(closers=(END_ACTION,), block="a <|START_ACTION|> block")
    name_key = "tool_name"
    arguments_key = "parameters"
    result_closers = (RESULT_END,)
    reasoning_spans = (ReasoningSpan(THINKING, (THINKING_END,)),)

    def call_object(self, call: ToolCall) -> dict[str, Any]:
        return {"tool_call_id": "0", **super().call_object(call)}

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        body = json.dumps([{"tool_call_id": "0", "results": {"0": content}}], ensure_ascii=False)
        return f"{RESULT_OPEN}{body}{RESULT_END}"


PROTOCOL = CohereProtocol()
