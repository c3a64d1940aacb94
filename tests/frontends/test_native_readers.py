"""Native upstreams' events read as chat chunks: the shapes servers send beside the documented one."""

from __future__ import annotations

from typing import Any

import pytest

from toolmend.server.frontends.anthropic_upstream import (
    AnthropicEventReader,
    anthropic_headers,
    anthropic_turns,
)
from toolmend.server.frontends.chat_stream import NATIVE_ITEM_FIELD, ChatStreamReader
from toolmend.server.frontends.responses_upstream import ResponsesEventReader, responses_items
from toolmend.server.frontends.toolnames import ToolNameMap
from toolmend.server.upstream import UpstreamError


def _read(chunks: list[dict[str, Any]]) -> ChatStreamReader:
    reader = ChatStreamReader(ToolNameMap(), (), "toolu_")
    for chunk in chunks:
        reader.feed(chunk)
    reader.finish()
    return reader


def _feed(
    reader: AnthropicEventReader | ResponsesEventReader, events: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    return [chunk for event in events for chunk in reader.feed(event)]


def test_a_tool_use_whose_input_comes_whole_in_its_start_keeps_it() -> None:
    chunks = _feed(
        AnthropicEventReader(),
        [
            {"type": "message_start", "message": {"id": "msg_1", "usage": {"input_tokens": 3}}},
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {
                    "type": "tool_use",
                    "id": "toolu_9",
                    "name": "Read",
                    "input": {"file_path": "a"},
                },
            },
            {"type": "content_block_stop", "index": 0},
            {
                "type": "message_delta",
                "delta": {"stop_reason": "tool_use"},
                "usage": {"output_tokens": 4},
            },
            {"type": "message_stop"},
        ],
    )
    reader = _read(chunks)
    assert [(c.id, c.name, c.arguments) for c in reader.calls.values()] == [
        ("toolu_9", "Read", '{"file_path": "a"}')
    ]
    assert reader.finish_reason == "tool_calls"
    assert reader.usage is not None and reader.usage["prompt_tokens"] == 3


def test_a_server_tool_block_is_passed_on_whole_with_its_input() -> None:
    chunks = _feed(
        AnthropicEventReader(),
        [
            {"type": "message_start", "message": {"id": "msg_1"}},
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {
                    "type": "server_tool_use",
                    "id": "srvtoolu_1",
                    "name": "web_search",
                    "input": {},
                },
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": '{"query"'},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": ': "x"}'},
            },
            {"type": "content_block_stop", "index": 0},
        ],
    )
    items = [
        c["choices"][0]["delta"][NATIVE_ITEM_FIELD]
        for c in chunks
        if NATIVE_ITEM_FIELD in c["choices"][0]["delta"]
    ]
    assert items == [
        {
            "type": "server_tool_use",
            "id": "srvtoolu_1",
            "name": "web_search",
            "input": {"query": "x"},
        }
    ]


def test_an_anthropic_error_event_is_an_upstream_error() -> None:
    with pytest.raises(UpstreamError, match="mid-stream"):
        AnthropicEventReader().feed(
            {"type": "error", "error": {"type": "overloaded_error", "message": "busy"}}
        )


def test_a_responses_call_sent_only_when_done_still_becomes_a_call() -> None:
    chunks = _feed(
        ResponsesEventReader(),
        [
            {"type": "response.created", "response": {"id": "resp_1", "model": "m"}},
            {
                "type": "response.output_item.done",
                "output_index": 0,
                "item": {
                    "type": "function_call",
                    "call_id": "call_7",
                    "name": "read",
                    "namespace": "mcp__fs__",
                    "arguments": '{"path": "a"}',
                },
            },
            {
                "type": "response.completed",
                "response": {"id": "resp_1", "usage": {"input_tokens": 5, "output_tokens": 2}},
            },
        ],
    )
    reader = _read(chunks)
    assert [(c.id, c.name, c.arguments) for c in reader.calls.values()] == [
        ("call_7", "mcp__fs__read", '{"path": "a"}')  # the joined name the request declared
    ]
    assert reader.finish_reason == "tool_calls"


def test_a_message_sent_only_when_done_still_becomes_text() -> None:
    chunks = _feed(
        ResponsesEventReader(),
        [
            {"type": "response.created", "response": {"id": "resp_1"}},
            {
                "type": "response.output_item.done",
                "output_index": 0,
                "item": {"type": "message", "content": [{"type": "output_text", "text": "hello"}]},
            },
            {
                "type": "response.incomplete",
                "response": {"incomplete_details": {"reason": "max_output_tokens"}},
            },
        ],
    )
    texts = [c["choices"][0]["delta"].get("content") for c in chunks if c["choices"]]
    assert "hello" in texts
    assert _read(chunks).finish_reason == "length"


def test_a_failed_response_is_an_upstream_error() -> None:
    with pytest.raises(UpstreamError):
        ResponsesEventReader().feed(
            {"type": "response.failed", "response": {"error": {"message": "x"}}}
        )


def test_a_reask_becomes_one_assistant_turn_and_one_user_turn_of_results() -> None:
    held = {
        "role": "assistant",
        "content": "Trying.",
        "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "X", "arguments": "{}"}},
            {"id": "b", "type": "function", "function": {"name": "Y", "arguments": '{"k": 1}'}},
        ],
    }
    results = [
        {"role": "tool", "tool_call_id": "a", "content": "guidance a"},
        {"role": "tool", "tool_call_id": "b", "content": "guidance b"},
    ]
    turns = anthropic_turns([held, *results])
    assert [t["role"] for t in turns] == ["assistant", "user"]
    assert [b["type"] for b in turns[0]["content"]] == ["text", "tool_use", "tool_use"]
    assert [(b["tool_use_id"], b["is_error"]) for b in turns[1]["content"]] == [
        ("a", True),
        ("b", True),
    ]
    items = responses_items([held, *results])
    assert [i["type"] for i in items] == [
        "message",
        "function_call",
        "function_call",
        "function_call_output",
        "function_call_output",
    ]


def test_the_upstreams_key_replaces_the_clients_and_the_clients_goes_only_when_allowed() -> None:
    client = {"x-api-key": "sk-client", "anthropic-version": "2023-06-01"}
    assert anthropic_headers("sk-ours", client, True)["x-api-key"] == "sk-ours"
    assert anthropic_headers(None, client, True)["x-api-key"] == "sk-client"
    assert "x-api-key" not in anthropic_headers(None, client, False)
