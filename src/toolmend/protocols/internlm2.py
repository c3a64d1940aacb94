"""InternLM2 / InternLM2.5 / Intern-S1: one call object between `<|action_start|><|plugin|>`
(or the two tokens a blank apart, as a detokenizer spaces special tokens) and `<|action_end|>`.

    <|action_start|><|plugin|>
    {"name": "get_weather", "parameters": {"city": "Paris"}}<|action_end|>

Owns the markers, the `parameters` key for rendering and the `environment` result turn of its
template; reading is `json_values`'.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from toolmend.model import ToolCall
from toolmend.names import ToolResolver
from toolmend.protocols.json_values import CallValuesProtocol, call_format

ACTION = "<|action_start|><|plugin|>"
#: The two tokens with the blank a detokenizer puts between special tokens (vLLM's
#: `spaces_between_special_tokens`, on by default): Intern-S1's output as vLLM's test
#: `test_nonstreaming_supports_spaced_special_tokens` writes it.
SPACED_ACTION = "<|action_start|> <|plugin|>"
ACTION_END = "<|action_end|>"
RESULT_OPEN = "<|im_start|>environment name=<|plugin|>\n"
RESULT_END = "<|im_end|>"


class InternLM2Protocol(CallValuesProtocol):
    id = "internlm2"
    aliases = ("internlm",)
    summary = (
        'InternLM2: <|action_start|><|plugin|>{"name": ..., "parameters": {...}}<|action_end|>'
    )
    opener = ACTION
    closer = ACTION_END
    format = call_format(closers=(ACTION_END,), block="an <|action_start|> block")
    arguments_key = "parameters"
    result_closers = (RESULT_END,)

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return (ACTION, SPACED_ACTION)

    def render_call(self, call: ToolCall) -> str:
        return f"{ACTION}\n{json.dumps(self.call_object(call), ensure_ascii=False)}{ACTION_END}"

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        return f"{RESULT_OPEN}{content}{RESULT_END}"


PROTOCOL = InternLM2Protocol()
