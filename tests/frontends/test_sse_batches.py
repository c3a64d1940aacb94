"""The front-ends' SSE bodies go out in batches of whole frames, each batch still the grammar.

Each chunk of the chunked body is one write of the proxy: the events that open the stream, the
events one upstream chunk becomes, and the events that end it (with the end of the body) each
go out together, and joined they are the documented Anthropic and Responses event sequences.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from frontends import anthropic_grammar, responses_grammar
from frontends.servers import QWEN_WRITE_LEAK, Servers, running
from server.http_chunks import post_chunks, sse_events
from server.test_frame_batches import Client, Log, Reads, event
from toolmend.server import create_app
from toolmend.server.chat import ServerState
from toolmend.server.config import Overrides, resolve_config
from toolmend.server.frontends.response_store import SQLiteResponseStore

MESSAGE = {"role": "user", "content": "hi"}
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


def _stream_through_app(path: str, body: dict[str, Any], reads: list[bytes]) -> list[bytes]:
    """The body writes `path` makes for an upstream body read as `reads` (the app called
    over ASGI, its upstream a real `UpstreamStream` over those reads)."""
    sent: list[bytes] = []
    config = resolve_config(Overrides(upstream="http://127.0.0.1:9/v1"))
    app = create_app(config)
    app.state.toolmend = ServerState(config, Client(Reads(reads, sent)), Log())  # type: ignore[arg-type]
    app.state.response_store = SQLiteResponseStore(":memory:")
    raw = json.dumps(body).encode()
    asked = False

    async def receive() -> dict[str, Any]:
        nonlocal asked
        if not asked:
            asked = True
            return {"type": "http.request", "body": raw, "more_body": False}
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.body" and message["body"]:
            sent.append(message["body"])

    scope = {
        "type": "http",
        "method": "POST",
        "path": path,
        "headers": [(b"content-type", b"application/json")],
        "query_string": b"",
    }
    asyncio.run(app(scope, receive, send))
    return sent


def _kinds(write: bytes) -> list[str]:
    return [json.loads(data)["type"] for _, data in sse_events(write)]


def _one_read_then_one() -> list[bytes]:
    role = event("")  # the role chunk vLLM opens with carries empty content
    return [role + event("a ") + event("b ") + event("c "), event("d "), b"data: [DONE]\n\n"]


def test_the_messages_events_of_one_upstream_read_go_out_in_one_write() -> None:
    body = {"model": "m", "max_tokens": 64, "stream": True, "messages": [MESSAGE]}
    sent = _stream_through_app("/v1/messages", body, _one_read_then_one())
    delta = "content_block_delta"
    assert [_kinds(write) for write in sent[:3]] == [
        ["message_start", "ping"],
        ["content_block_start", delta, delta, delta],
        [delta],
    ]
    events = [json.loads(data) for write in sent for _, data in sse_events(write)]
    anthropic_grammar.check_grammar(events)


def test_the_responses_events_of_one_upstream_read_go_out_in_one_write() -> None:
    body = {"model": "m", "stream": True, "input": "hi"}
    sent = _stream_through_app("/v1/responses", body, _one_read_then_one())
    delta = "response.output_text.delta"
    assert [_kinds(write) for write in sent[:3]] == [
        ["response.created", "response.in_progress"],
        ["response.output_item.added", "response.content_part.added", delta, delta, delta],
        [delta],
    ]
    events = [json.loads(data) for write in sent for _, data in sse_events(write)]
    final = responses_grammar.check_grammar(events)
    assert final["output"][0]["content"][0]["text"] == "a b c d "
