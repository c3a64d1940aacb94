"""The worked example of `docs/writing-a-protocol.md`: a whole new format, registered and tested.

`<|call|>{"name": ..., "arguments": {...}}<|/call|>` is a delimiter-plus-JSON format. The module
part (the class and `PROTOCOL`) is all a format author writes; the JSON reading, streaming,
repairs, R1–R4, the code mask and reasoning come from the shared mechanisms.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from importlib import import_module

import pytest

import toolmend
from support import check_all_invariants, run_chunks, streamed_arguments
from toolmend.core.reader import BlockContext, BlockReader
from toolmend.model import Tool, ToolCall, canonical_json
from toolmend.names import ToolResolver
from toolmend.protocols.base import TextProtocol, declare_tools
from toolmend.protocols.json_calls import JsonCallFormat, JsonCallsReader

# ------------------------------------------------------------ the module: protocols/pipe_call.py

OPEN, CLOSE = "<|call|>", "<|/call|>"


class PipeCallProtocol(TextProtocol):
    id = "pipe-call"
    summary = 'JSON between <|call|> and <|/call|>: <|call|>{"name": ..., "arguments": {...}}'
    result_closers = ("</result>",)
    block = JsonCallFormat(closers=(CLOSE,), reopeners=(OPEN,), block="a <|call|> block")

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return (OPEN,)

    def closing_markers(self) -> Sequence[str]:
        return (CLOSE,)

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        return JsonCallsReader(ctx, self.block, marker)

    def render_tools(self, tools: Sequence[Tool]) -> str:
        return declare_tools(tools) + (
            f'To call a function, write {OPEN}{{"name": ..., "arguments": {{...}}}}{CLOSE}.'
        )

    def render_call(self, call: ToolCall) -> str:
        return OPEN + canonical_json({"name": call.name, "arguments": call.arguments}) + CLOSE

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        return f"<result>\n{content}\n</result>"


PROTOCOL = PipeCallProtocol()

# ---------------------------------------------------------------------------- its tests

WRITE = [
    {
        "name": "write_file",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["path", "content"],
        },
    }
]
TEXT = (
    'Writing.<|call|>{"name": "write_file", "arguments": {"path": "a", "content": "hi"}}<|/call|>'
)


@pytest.fixture(autouse=True)
def registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """One line in `protocols/__init__.py` (`_MODULES`) registers a real module."""
    registry = import_module("toolmend.protocols")
    monkeypatch.setitem(registry._MODULES, PROTOCOL.id, __name__)
    monkeypatch.setitem(registry._loaded, PROTOCOL.id, PROTOCOL)
    yield


def test_the_example_reads_its_call_and_leaves_the_text() -> None:
    result = toolmend.parse(TEXT, protocol="pipe-call", tools=WRITE)
    assert result.text == "Writing."
    assert [(c.name, c.arguments) for c in result.tool_calls] == [
        ("write_file", {"path": "a", "content": "hi"})
    ]


def test_the_example_streams_string_arguments_and_keeps_every_invariant() -> None:
    assert streamed_arguments(run_chunks("pipe-call", list(TEXT), WRITE)).endswith('"hi"}')
    check_all_invariants("pipe-call", TEXT, WRITE)


def test_the_example_reads_back_what_it_renders_and_never_reads_reasoning() -> None:
    call = ToolCall(id="c", name="write_file", arguments={"path": "p", "content": 'a "q"'})
    written = PROTOCOL.render_call(call)
    assert toolmend.parse(written, protocol="pipe-call", tools=WRITE).tool_calls[0].arguments == (
        call.arguments
    )
    assert toolmend.parse(f"<think>{written}</think>", "pipe-call", WRITE).tool_calls == []


def test_a_cut_off_call_of_the_example_follows_r1_to_r4() -> None:
    cut = TEXT[: -len(CLOSE) + 3]  # the closer cut off: complete but for it (R3)
    (call,) = toolmend.parse(cut, protocol="pipe-call", tools=WRITE).tool_calls
    assert call.executable
    (call,) = toolmend.parse(TEXT[:-20], protocol="pipe-call", tools=WRITE).tool_calls
    assert call.incomplete and not call.executable


def test_the_guide_shows_this_module_as_it_is() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    guide = (root / "docs" / "writing-a-protocol.md").read_text(encoding="utf-8")
    source = Path(__file__).read_text(encoding="utf-8")
    module = source.split('OPEN, CLOSE = "<|call|>"', 1)[1].split("# ----", 1)[0].strip()
    assert module in guide
    assert len(module.splitlines()) < 150
