"""The official `openai` client reads recovered streams as it reads a model's own.

Its chunk type validates every recovered chunk, and its own stream accumulator
(`ChatCompletionStreamState`, what `client.chat.completions.stream()` runs) turns them into a
completion whose tool calls are the recovered ones. Skipped where `openai` is not installed.
"""

from __future__ import annotations

import json

import pytest

import toolmend

from .wire import TOOLS, content_stream, native_fragments, split_every

openai_types = pytest.importorskip("openai.types.chat")
streaming = pytest.importorskip("openai.lib.streaming.chat")

INVOKE = '<invoke name="read_file"><parameter name="path">a.py</parameter></invoke>'


def accumulate(chunks):
    state = streaming.ChatCompletionStreamState()
    for c in chunks:
        state.handle_chunk(openai_types.ChatCompletionChunk.model_validate(c))
    return state.get_final_completion()


def test_the_openai_accumulator_reads_the_recovered_call():
    upstream = content_stream(split_every(f"Reading.\n{INVOKE}", 4), model="claude-opus-4-1")
    completion = accumulate(toolmend.recover_stream(upstream, tools=TOOLS, model="claude-opus-4-1"))
    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content == "Reading.\n"
    [call] = choice.message.tool_calls
    assert call.function.name == "read_file"
    assert json.loads(call.function.arguments) == {"path": "a.py"}


def test_openai_chunk_objects_go_in_and_mixed_calls_come_out_in_order():
    native = native_fragments("call_n", "mcp_49f0-Todo", '{"item": "x"}')
    upstream = [
        openai_types.ChatCompletionChunk.model_validate(c)
        for c in content_stream(
            [INVOKE], model="claude-opus-4-1", native=native, finish="tool_calls"
        )
    ]
    completion = accumulate(toolmend.recover_stream(upstream, tools=TOOLS, model="claude-opus-4-1"))
    calls = completion.choices[0].message.tool_calls
    assert [c.function.name for c in calls] == ["read_file", "todo"]
    assert calls[1].id == "call_n"
