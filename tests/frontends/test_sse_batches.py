"""The front-ends' SSE bodies go out in batches of whole frames, each batch still the grammar.

Each chunk of the chunked body is one write of the proxy: the events that open the stream, the
events one upstream chunk becomes, and the events that end it (with the end of the body) each
go out together, and joined they are the documented Anthropic and Responses event sequences.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from frontends import anthropic_grammar, responses_grammar
from frontends.servers import QWEN_WRITE_LEAK, Servers, running
from server.http_chunks import post_chunks, sse_events

WRITE = {
    "name": "Write",
    "description": "Write a file.",
    "input_schema": {
        "type": "object",
        "properties": {"file_path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["file_path", "content"],
    },
}


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    with running(Path(tmp_path_factory.mktemp("batches"))) as running_servers:
        yield running_servers


def _batches(chunks: list[bytes]) -> list[list[dict[str, object]]]:
    out = []
    for chunk in chunks:
        events = []
        for name, data in sse_events(chunk):
            event = json.loads(data)
            assert name == event["type"], "each frame is named by its payload's type"
            events.append(event)
        out.append(events)
    return out


def test_a_messages_stream_opens_in_one_write_and_ends_in_one_write_with_the_body(
    servers: Servers,
) -> None:
    body = {
        "model": "leaky-coder",
        "max_tokens": 256,
        "stream": True,
        "tools": [WRITE],
        "messages": [{"role": "user", "content": "Create hello.py."}],
    }
    status, chunks = post_chunks(f"{servers.url}/v1/messages", body)
    assert status == 200
    batches = _batches(chunks)
    events = [event for batch in batches for event in batch]
    anthropic_grammar.check_grammar(events)
    assert [e["type"] for e in batches[0]] == ["message_start", "ping"]
    last = [e["type"] for e in batches[-1]]
    assert last[-2:] == ["message_delta", "message_stop"] and "content_block_stop" in last
    assert events[-2]["delta"]["stop_reason"] == "tool_use"  # the leaked call, recovered
    assert QWEN_WRITE_LEAK not in json.dumps(events)


def test_a_responses_stream_ends_with_every_item_closed_and_completed_in_one_write(
    servers: Servers,
) -> None:
    body = {
        "model": "plain",
        "stream": True,
        "store": False,
        "input": "Say you are done.",
    }
    status, chunks = post_chunks(f"{servers.url}/v1/responses", body)
    assert status == 200
    batches = _batches(chunks)
    events = [event for batch in batches for event in batch]
    final = responses_grammar.check_grammar(events)
    assert batches[0][0]["type"] == "response.created"
    last = [e["type"] for e in batches[-1]]
    assert last[-1] == "response.completed" and "response.output_item.done" in last
    assert final["output"][0]["content"][0]["text"] == "All done."
