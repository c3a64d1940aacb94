"""`<tool_calls>…</tool_calls>` holding JSON calls: Jamba, Hunyuan (a list) and MiniMax M1 (one
call object a line).

    <tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_calls>
    <tool_calls>
    {"name": "get_weather", "arguments": {"city": "Paris"}}
    {"name": "get_time", "arguments": {}}
    </tool_calls>

Owns the tags and the result envelope; reading and rendering are `json_values`'.
"""

from __future__ import annotations

from toolmend.protocols.base import ToolResponseResults
from toolmend.protocols.json_values import CallValuesProtocol, call_format

OPEN = "<tool_calls>"
CLOSE = "</tool_calls>"


class ToolCallsTagProtocol(ToolResponseResults, CallValuesProtocol):
    id = "minimax-m1"
    aliases = ("jamba", "hunyuan", "hunyuan-a13b", "minimax_m1")
    summary = (
        'Jamba, Hunyuan, MiniMax M1: <tool_calls>[{"name": ..., "arguments": {...}}]</tool_calls>'
    )
    opener = OPEN
    closer = CLOSE
    format = call_format(closers=(CLOSE,), reopeners=(OPEN,), block="a <tool_calls> block")


PROTOCOL = ToolCallsTagProtocol()
