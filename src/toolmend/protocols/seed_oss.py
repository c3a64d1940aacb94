"""Seed-OSS (ByteDance): Qwen3-Coder's key/value tags in a `<seed:tool_call>` wrapper.

    <seed:think>The user wants the weather.</seed:think>
    <seed:tool_call>
    <function=get_weather>
    <parameter=city>
    Paris
    </parameter>
    </function>
    </seed:tool_call>

Owns the wrapper's tags, the `<seed:think>` reasoning span, and the result envelope (a `tool`
turn between `<seed:bos>` and `<seed:eos>`); everything inside the wrapper (values typed by the
schema, streaming, forgotten closers, R1–R4) is the Qwen3-Coder reader's, given this wrapper.
A bare `<function=` opens a call too (the wrapper dropped), read the same way.
"""

from __future__ import annotations

from toolmend.core.reader import ReasoningSpan
from toolmend.protocols.qwen3_coder import Qwen3CoderProtocol, Wrapper

SEED_OPEN = "<seed:tool_call>"
SEED_CLOSE = "</seed:tool_call>"
SEED_TOOL_CALL = Wrapper(SEED_OPEN, SEED_CLOSE)
THINK = "<seed:think>"
THINK_END = "</seed:think>"
TURN_START = "<seed:bos>"
TURN_END = "<seed:eos>"


class SeedOssProtocol(Qwen3CoderProtocol):
    id = "seed-oss"
    aliases = ("seed_oss", "seed-oss-36b")
    summary = (
        "Seed-OSS: <seed:tool_call><function=NAME><parameter=KEY>VALUE</parameter>"
        "</function></seed:tool_call>"
    )
    result_closers = (TURN_END, TURN_START)
    reasoning_spans = (ReasoningSpan(THINK, (THINK_END,)),)
    wrapper = SEED_TOOL_CALL

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        return f"{TURN_START}tool\n{content}{TURN_END}"


PROTOCOL = SeedOssProtocol()
