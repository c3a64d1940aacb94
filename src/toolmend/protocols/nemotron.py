"""NVIDIA Nemotron (Nemotron Nano v2, the Llama-Nemotron "Deci" models): a JSON list of calls
between `<TOOLCALL>` and `</TOOLCALL>`, as their chat template asks for it.

    <think>…</think><TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</TOOLCALL>

As llama.cpp (its Nemotron V2 format), vLLM (`nemotron_nano_v2`) and NVIDIA Dynamo
(`nemotron_deci`) read it. Owns the tags and the result envelope; reading (the list ends where
its JSON ends, a missing `</TOOLCALL>` after it is no loss) and rendering are `json_values'`.
"""

from __future__ import annotations

from toolmend.protocols.json_values import CallValuesProtocol, call_format

OPEN = "<TOOLCALL>"
CLOSE = "</TOOLCALL>"
RESULT_OPEN = "<TOOL_RESPONSE>"
RESULT_CLOSE = "</TOOL_RESPONSE>"


class NemotronProtocol(CallValuesProtocol):
    id = "nemotron"
    aliases = ("nemotron-nano-v2", "nemotron_nano_v2", "nemotron-deci", "nemotron_deci")
    summary = 'Nemotron: <TOOLCALL>[{"name": ..., "arguments": {...}}]</TOOLCALL>'
    opener = OPEN
    closer = CLOSE
    format = call_format(closers=(CLOSE,), reopeners=(OPEN,), block="a <TOOLCALL> list")
    result_closers = (RESULT_CLOSE,)

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        # As the Nemotron Nano v2 chat template renders a tool message (llama.cpp
        # `models/templates/NVIDIA-Nemotron-Nano-v2.jinja`@5801ed3): the results of one turn
        # in brackets, `<TOOL_RESPONSE>[…]</TOOL_RESPONSE>` (several joined by ", ").
        return f"{RESULT_OPEN}[{content}]{RESULT_CLOSE}"


PROTOCOL = NemotronProtocol()
