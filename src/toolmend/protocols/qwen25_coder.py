"""Qwen2.5-Coder: JSON calls in `<tools>…</tools>`, one call object or a list of them.

    <tools>
    {"name": "get_weather", "arguments": {"city": "Paris"}}
    </tools>

Qwen2.5-Coder's template asks for Hermes' `<tool_call>`, but the model mostly answers with a
fenced or bare JSON object; prompted with `<tools>` examples it writes the block above on every
call (measured in vLLM issue #32926, read by vLLM's `qwen2_5_coder` parser, `arguments` or
`parameters`). Without this protocol `auto` still read the JSON inside for a declared tool, but
left the tags in the text. Owns the tags; reading and rendering are `json_values`'. Results
(our choice: the format has no result turn of its own) go back in Hermes' `<tool_response>`.
"""

from __future__ import annotations

from toolmend.protocols.base import ToolResponseResults
from toolmend.protocols.json_values import CallValuesProtocol, call_format

OPEN = "<tools>"
CLOSE = "</tools>"


class Qwen25CoderProtocol(ToolResponseResults, CallValuesProtocol):
    id = "qwen25-coder"
    aliases = ("qwen2.5-coder", "qwen2_5_coder", "qwen25_coder")
    summary = 'Qwen2.5-Coder: <tools>{"name": ..., "arguments": {...}}</tools>, or a list of calls'
    opener = OPEN
    closer = CLOSE
    format = call_format(closers=(CLOSE,), reopeners=(OPEN,), block="a <tools> block")


PROTOCOL = Qwen25CoderProtocol()
