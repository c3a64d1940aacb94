"""The JSON-in-delimiters family reader (`toolmend.protocols.json_calls`), through two small
formats declared here the way a new format module declares them: a header-named one (the
shape of Kimi K2's `<|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{...}`) and
a call-object one (Jamba's `<tool_calls>[{...}]</tool_calls>`). Hermes runs on the same reader;
its own tests cover the call-object shape in depth."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from importlib import import_module
from typing import Any

import pytest

import toolmend
from support import check_all_invariants, run_chunks, streamed_arguments
from tool_fixtures import WEATHER, WRITE
from toolmend.core.reader import Anchor, BlockContext, BlockReader
from toolmend.events import Diagnostic, ToolCallDelta, ToolCallEnd
from toolmend.model import Tool, ToolCall, canonical_json
from toolmend.names import ToolResolver
from toolmend.protocols.base import TextProtocol
from toolmend.protocols.json_calls import JsonCallFormat, JsonCallsReader, NamedArgumentsReader

registry = import_module("toolmend.protocols")  # the package (its name is also a function)

BEGIN = "<|tool_call_begin|>"
ARGS = "<|tool_call_argument_begin|>"
END = "<|tool_call_end|>"


def k2_name(header: str) -> str | None:
    """`functions.get_weather:0` -> `get_weather`."""
    name = header.strip().removeprefix("functions.").rpartition(":")[0]
    return name or None


class HeaderNamed(TextProtocol):
    id = "test-header-named"
    calls = JsonCallFormat(closers=(END,), block="a tool call")

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return (BEGIN,)

    def closing_markers(self) -> Sequence[str]:
        return (END,)

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        return NamedArgumentsReader(ctx, self.calls, marker, header_end=ARGS, name_of=k2_name)

    def render_tools(self, tools: Sequence[Tool]) -> str:
        return ""

    def render_call(self, call: ToolCall) -> str:
        return f"{BEGIN}functions.{call.name}:0{ARGS}{canonical_json(call.arguments)}{END}"

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        return content


class CallObjects(HeaderNamed):
    id = "test-call-objects"
    calls = JsonCallFormat(closers=("</tool_calls>",), block="a <tool_calls> block")

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return ("<tool_calls>",)

    def closing_markers(self) -> Sequence[str]:
        return ("</tool_calls>",)

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        return JsonCallsReader(ctx, self.calls, marker)


class LineAnchored(HeaderNamed):
    """`[TOOL]NAME\n{...}[/TOOL]`, counted only at the start of the output or of a line."""

    id = "test-line-anchored"
    calls = JsonCallFormat(closers=("[/TOOL]",), block="a [TOOL] block")

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return ("[TOOL]",)

    def closing_markers(self) -> Sequence[str]:
        return ("[/TOOL]",)

    def anchors(self, resolver: ToolResolver) -> Mapping[str, Anchor]:
        return {"[TOOL]": "line"}

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        return NamedArgumentsReader(ctx, self.calls, marker, header_end="\n", name_of=str.strip)


@pytest.fixture(autouse=True)
def registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for proto in (HeaderNamed(), CallObjects(), LineAnchored()):
        monkeypatch.setitem(registry._MODULES, proto.id, __name__)
        monkeypatch.setitem(registry._loaded, proto.id, proto)
    yield


def parse(text: str, protocol: str = HeaderNamed.id, **kw: Any) -> toolmend.ParseResult:
    return toolmend.parse(text, protocol, kw.pop("tools", WEATHER), id_prefix="call_", **kw)


CALL = f'{BEGIN}functions.get_weather:0{ARGS}{{"city": "Oslo"}}{END}'


def test_a_header_named_call_reads_its_json_arguments() -> None:
    result = parse(f"Let me check.{CALL} Done.")
    assert [(c.name, c.arguments, c.executable) for c in result.tool_calls] == [
        ("get_weather", {"city": "Oslo"}, True)
    ]
    assert result.text == "Let me check. Done."


def test_a_header_named_string_argument_streams_before_the_call_closes() -> None:
    text = (
        f'{BEGIN}functions.write_file:0{ARGS}{{"file_path": "a.py", "content": "print(1)\\n"}}{END}'
    )
    events = run_chunks(HeaderNamed.id, list(text), WRITE)
    end_at = next(i for i, e in enumerate(events) if isinstance(e, ToolCallEnd))
    early = streamed_arguments(events[:end_at])
    assert early.startswith('{"file_path": "a.py", "content": "print(1)')
    assert streamed_arguments(events) == '{"file_path": "a.py", "content": "print(1)\\n"}'


def test_header_named_calls_keep_the_stream_invariants() -> None:
    text = (
        f'Text {CALL}\n{BEGIN}functions.get_weather:1{ARGS} {{"city": "a{END}b", "unit": "c"}} '
        f'{END} and {BEGIN}functions.get_weather:2{ARGS}{{"city": "cut'
    )
    check_all_invariants(HeaderNamed.id, text, WEATHER)


def test_a_header_naming_an_undeclared_tool_stays_text_as_written() -> None:
    text = f'{BEGIN}functions.launch:0{ARGS}{{"x": 1}}{END}'
    result = parse(text)
    assert result.tool_calls == []
    assert result.text == text


def test_a_header_that_is_too_long_is_not_a_call() -> None:
    text = f"{BEGIN}{'x' * 300}{ARGS}{{}}{END}"
    assert parse(text).text == text


def test_a_repeated_argument_rejects_a_header_named_call() -> None:
    (call,) = parse(
        f'{BEGIN}functions.get_weather:0{ARGS}{{"city": "a", "city": "b"}}{END}'
    ).tool_calls
    assert call.incomplete
    assert call.error == "argument 'city' is given twice"


def test_glued_argument_objects_are_never_merged() -> None:
    result = parse(f'{BEGIN}functions.get_weather:0{ARGS}{{"city": "a"}}{{"city": "b"}}{END}')
    (call,) = result.tool_calls
    assert call.incomplete and "one tool call per object" in (call.error or "")
    assert call.arguments == {"city": "a"}  # what streamed before the second object: a prefix
    [diag] = [d for d in result.diagnostics if d.code == "concatenated_json"]
    assert diag.metadata["count"] == 2


def test_arguments_that_are_not_an_object_make_the_call_incomplete() -> None:
    (call,) = parse(f"{BEGIN}functions.get_weather:0{ARGS}[1, 2]{END}").tool_calls
    assert call.incomplete
    assert call.error == "arguments must be a JSON object, got array"


def test_an_unclosed_arguments_object_is_repaired_only_under_the_lenient_policy() -> None:
    text = f'{BEGIN}functions.get_weather:0{ARGS}{{"city": "Oslo"{END}'
    (lenient,) = parse(text).tool_calls
    assert lenient.executable and lenient.arguments == {"city": "Oslo"}
    (strict,) = parse(text, policy="strict").tool_calls
    assert strict.incomplete


def test_a_header_named_call_cut_off_before_its_closer_is_complete() -> None:
    (call,) = parse(f'{BEGIN}functions.get_weather:0{ARGS}{{"city": "Oslo"}}').tool_calls
    assert call.executable and call.arguments == {"city": "Oslo"}


def test_a_header_named_call_cut_off_inside_its_arguments_is_incomplete() -> None:
    result = parse(f'{BEGIN}functions.get_weather:0{ARGS}{{"city": "Os')
    (call,) = result.tool_calls
    assert call.incomplete and call.arguments == {"city": "Os"}
    assert result.text == ""


def test_a_stream_cut_off_inside_the_header_drops_the_fragment() -> None:
    result = parse(f"Hi {BEGIN}functions.get_wea")
    assert result.tool_calls == []
    assert result.text == "Hi "
    assert [d.code for d in result.diagnostics] == ["truncated_fragment_dropped"]


def test_an_array_of_call_objects_is_parallel_calls() -> None:
    text = (
        '<tool_calls>[{"name": "get_weather", "arguments": {"city": "a"}}, '
        '{"name": "get_weather", "parameters": {"city": "b"}}]</tool_calls>'
    )
    result = parse(text, CallObjects.id)
    assert [c.arguments for c in result.tool_calls] == [{"city": "a"}, {"city": "b"}]
    check_all_invariants(CallObjects.id, text, WEATHER)


def test_a_call_object_block_without_a_call_is_recorded_under_its_own_name() -> None:
    result = parse('<tool_calls>{"nothing": 1}</tool_calls>', CallObjects.id)
    assert result.text == ""
    codes = [(d.code, d.message) for d in result.diagnostics if isinstance(d, Diagnostic)]
    assert ("malformed_call", "a <tool_calls> block held no usable call") in codes


def test_only_declared_string_arguments_stream_as_deltas() -> None:
    events = run_chunks(HeaderNamed.id, list(CALL), WEATHER)
    deltas = [e for e in events if isinstance(e, ToolCallDelta)]
    assert "".join(d.arguments_delta for d in deltas) == '{"city": "Oslo"}'


def test_a_marker_anchored_at_line_starts_opens_a_call_only_there() -> None:
    call = '[TOOL]get_weather\n{"city": "Oslo"}[/TOOL]'
    text = f"{call}\nSee {call} inline.\n{call}"
    result = parse(text, LineAnchored.id)
    assert len(result.tool_calls) == 2
    assert f"See {call} inline." in result.text
    check_all_invariants(LineAnchored.id, text, WEATHER)
