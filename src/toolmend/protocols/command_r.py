"""command-r-plus: Cohere Command R / R+ calls, `Action:` and a fenced JSON list.

    I'll look that up.
    Action: ```json
    [{"tool_name": "get_weather", "parameters": {"city": "Paris"}}]
    ```

As llama.cpp's Command R+ template (`tests/test-chat.cpp`) and Ollama's `command-r` parser read
it: `Action:` at the start of a line, then (on the same line or the next) a ```` ```json ````
fence holding a list of call objects (or one object), `tool_name` and `parameters` as Cohere
spells them. The fence's closer ends the block; a stream that ends before it loses nothing.
`directly-answer` is the model's way of saying it calls no tool: never a call. Reading is the
JSON-values family's (`json_values`); Command R7B and Command-A write `<|START_ACTION|>`, the
`cohere` protocol's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from toolmend.core.reader import Anchor, BlockContext, BlockReader, EofVerdict
from toolmend.model import Tool, ToolCall
from toolmend.names import ToolResolver
from toolmend.protocols.base import declare_tools
from toolmend.protocols.json_calls import JsonCallFormat
from toolmend.protocols.json_values import CallValuesProtocol, CallValuesReader, call_format

#: What opens a block: `Action:` at a line's start. The fence after it is the reader's: as a
#: marker it would meet the code mask's own reading of the fence.
ACTION = "Action:"
#: The fence line after `Action:` (on its line or the next), up to the JSON.
FENCE = re.compile(r"[ \t]*(?:\r?\n[ \t]*)?```(?:json)?[ \t]*(?:\r?\n[ \t]*)?")
#: How far after `Action:` the JSON must have begun (the fence line and its blanks).
MAX_FENCE = 32
FENCE_CLOSE = "```"
#: The action a model takes to answer without a tool (Command R's prompt offers it).
NO_TOOL = "directly-answer"
RESULT_OPEN = "<results>"
RESULT_CLOSE = "</results>"


class ActionReader(CallValuesReader):
    """The family's reader; `directly-answer` is read as a name no tool has (its block stays
    text, as an unknown tool's does)."""

    def _begin(self) -> None:
        if self.name == NO_TOOL and not self.begun:
            self.unknown = True
            self.not_a_call = self.calls_ended == 0 and self.objects_seen == 1
            self.decided = self.not_a_call
            return
        super()._begin()

    def _finish_object(self, obj: dict[str, Any], repairs: list[str], *, at: int) -> None:
        if obj.get("tool_name") == NO_TOOL:
            obj = {k: v for k, v in obj.items() if k != "tool_name"}  # no name: no call
        super()._finish_object(obj, repairs, at=at)


class FencedReader(BlockReader):
    """After `Action:`: the fence line, then the calls, read by `ActionReader` (which keeps the
    fence line as read, so a block that is no call is text again whole)."""

    def __init__(self, ctx: BlockContext, fmt: JsonCallFormat) -> None:
        self.ctx = ctx
        self.fmt = fmt
        self.inner: ActionReader | None = None

    def step(self, buf: str, pos: int, end: int, final: bool) -> int:
        if self.inner is not None:
            return self.inner.step(buf, pos, end, final)
        window = buf[pos : min(end, pos + MAX_FENCE)]
        json_at = min((i for i in (window.find("["), window.find("{")) if i >= 0), default=-1)
        if json_at < 0 and not final and len(window) < MAX_FENCE:
            return pos  # the fence line may still be coming
        m = FENCE.match(window)
        if m is None or m.end() != (json_at if json_at >= 0 else len(window)):
            self.ctx.revert("", rescan=True)
            return pos
        self.inner = ActionReader(self.ctx, self.fmt, ACTION)
        self.inner.consumed.append(m.group())
        return self.inner.step(buf, pos + m.end(), end, final)

    def at_eof(self) -> EofVerdict:
        return self.inner.at_eof() if self.inner is not None else EofVerdict(recoverable=False)


class CommandRProtocol(CallValuesProtocol):
    id = "command-r-plus"
    aliases = ("command-r", "command_r", "command-r+")
    summary = 'Command R/R+: Action: ```json [{"tool_name": ..., "parameters": {...}}] ```'
    opener = ACTION
    closer = "\n" + FENCE_CLOSE
    format = call_format(closers=(FENCE_CLOSE,), block="an Action: block")
    name_key = "tool_name"
    arguments_key = "parameters"
    result_closers = (RESULT_CLOSE,)

    def anchors(self, resolver: ToolResolver) -> Mapping[str, Anchor]:
        return {ACTION: "line"}

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        return FencedReader(ctx, self.format)

    def render_tools(self, tools: Sequence[Tool]) -> str:
        example = json.dumps([{"tool_name": "<function-name>", "parameters": {}}])
        return (
            declare_tools(tools)
            + "To call functions, write Action: and a json code block holding a list of "
            f"calls, each with its tool_name and its parameters object:\n"
            f"Action: ```json\n{example}\n```\n"
            f'To answer without a tool, write the action "{NO_TOOL}".'
        )

    def render_call(self, call: ToolCall) -> str:
        # A backtick escaped, so no string in the JSON can close the fence.
        body = json.dumps([self.call_object(call)], ensure_ascii=False).replace("`", "\\u0060")
        return f"{ACTION} ```json\n{body}\n{FENCE_CLOSE}"

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        return f"{RESULT_OPEN}\n{content}\n{RESULT_CLOSE}"


PROTOCOL = CommandRProtocol()
