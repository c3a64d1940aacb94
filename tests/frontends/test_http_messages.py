"""`/v1/messages` over real HTTP with the official `anthropic` client, against a leaking upstream."""

from __future__ import annotations

import base64
import json
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import pytest

from frontends.servers import (
    THINKING,
    WRITE_ARGS,
    Servers,
    anthropic_messages,
    anthropic_tools,
    running,
)
from toolmend.server import frontend_api
from toolmend.server.demo.cases import DemoCase, load_cases

WRITE_TOOL = {
    "name": "Write",
    "description": "Write a file to the local filesystem.",
    "input_schema": {
        "type": "object",
        "properties": {"file_path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["file_path", "content"],
        "additionalProperties": False,
    },
}
READ_TOOL = {
    "name": "Read",
    "description": "Read a file.",
    "input_schema": {
        "type": "object",
        "properties": {"file_path": {"type": "string"}},
        "required": ["file_path"],
    },
}
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n").decode()


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    with running(Path(tmp_path_factory.mktemp("messages"))) as running_servers:
        yield running_servers


@pytest.fixture(scope="module")
def client(servers: Servers) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=servers.url, api_key="sk-test", max_retries=0)


def _calls(message: Any) -> list[tuple[str, Any]]:
    return [(block.name, block.input) for block in message.content if block.type == "tool_use"]


def _text(message: Any) -> str:
    return "".join(block.text for block in message.content if block.type == "text")


def check_bundled_case(client: anthropic.Anthropic, case: DemoCase) -> None:
    """The case's calls come back as tool_use blocks, streamed and not, its markup gone."""
    request: dict[str, Any] = {
        "model": case.model,
        "max_tokens": 1024,
        "tools": anthropic_tools(case.tools),
        "messages": anthropic_messages(case.messages),
    }
    whole = client.messages.create(**request)
    with client.messages.stream(**request) as stream:
        streamed = stream.get_final_message()
    wanted = [(c["name"], c["arguments"]) for c in case.expect.get("calls", ())]
    for message in (whole, streamed):
        assert _calls(message) == wanted
        for marker in case.expect.get("text_excludes", ()):
            assert marker not in _text(message)
        if wanted:
            assert message.stop_reason == "tool_use"
        ids = [block.id for block in message.content if block.type == "tool_use"]
        assert len(set(ids)) == len(ids)


@pytest.mark.parametrize("case", load_cases(), ids=lambda case: case.id)
def test_every_bundled_leak_comes_back_as_tool_use_blocks_streamed_and_not(
    client: anthropic.Anthropic, case: DemoCase
) -> None:
    check_bundled_case(client, case)


def test_a_qwen3_coder_leak_streams_as_one_write_call_claude_code_can_run(
    client: anthropic.Anthropic,
) -> None:
    request = {
        "model": "leaky-coder",
        "max_tokens": 1024,
        "tools": [WRITE_TOOL],
        "messages": [{"role": "user", "content": "create hello.py that prints hello"}],
    }
    events = []
    with client.messages.stream(**request) as stream:
        events = [event.type for event in stream]
        message = stream.get_final_message()
    assert _calls(message) == [("Write", WRITE_ARGS)]
    assert message.stop_reason == "tool_use"
    assert "<function=" not in _text(message)
    assert events[0] == "message_start" and events[-1] == "message_stop"
    assert message.usage.input_tokens > 0


def test_think_tags_in_the_upstreams_content_become_a_thinking_block_streamed_and_not(
    client: anthropic.Anthropic,
) -> None:
    # A reasoning model behind a server with no reasoning parser writes `<think>…</think>` into
    # the content; Claude Code shows a thinking block, so it must arrive as one, never as text.
    request = {
        "model": "thinking-coder",
        "max_tokens": 1024,
        "tools": [WRITE_TOOL],
        "messages": [{"role": "user", "content": "create hello.py that prints hello"}],
    }
    whole = client.messages.create(**request)
    with client.messages.stream(**request) as stream:
        streamed = stream.get_final_message()
    for message in (whole, streamed):
        kinds = [block.type for block in message.content]
        assert kinds[0] == "thinking" and kinds.count("thinking") == 1
        thinking = message.content[0]
        assert thinking.thinking.strip() == THINKING
        assert thinking.signature == ""  # never a fake signature
        assert "<think>" not in _text(message) and "</think>" not in _text(message)
        assert THINKING not in _text(message)
        assert _calls(message) == [("Write", WRITE_ARGS)]
        assert message.stop_reason == "tool_use"


def test_a_claude_code_shaped_conversation_reaches_the_upstream_in_chat_order_with_guidance(
    client: anthropic.Anthropic, servers: Servers
) -> None:
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "Fix hello.py"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Reading both."},
                {
                    "type": "tool_use",
                    "id": "toolu_01",
                    "name": "Read",
                    "input": {"file_path": "missing.py"},
                },
                {
                    "type": "tool_use",
                    "id": "toolu_02",
                    "name": "Read",
                    "input": {"file_path": "shot.png"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "<system-reminder>keep it short</system-reminder>"},
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_01",
                    "is_error": True,
                    "content": "<tool_use_error>File does not exist.</tool_use_error>",
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_02",
                    "content": [
                        {"type": "text", "text": "image attached"},
                        {
                            "type": "image",
                            "source": {"type": "base64", "media_type": "image/png", "data": PNG},
                        },
                    ],
                },
            ],
        },
        {"role": "system", "content": "You are now in plan mode."},
        {"role": "user", "content": "go on"},
    ]
    message = client.messages.create(
        model="plain",
        max_tokens=256,
        system="You are Claude Code.",
        tools=[READ_TOOL, WRITE_TOOL],
        messages=messages,
    )
    assert _text(message) == "All done."
    sent = servers.last_upstream_body()["messages"]
    shape = [(m["role"], m.get("tool_call_id")) for m in sent]
    assert shape == [
        ("system", None),
        ("user", None),
        ("assistant", None),
        ("tool", "toolu_01"),
        ("tool", "toolu_02"),
        ("user", None),
        ("system", None),
        ("user", None),
    ]
    assert "[toolmend guidance" in sent[3]["content"]
    assert all("is_error" not in m for m in sent)
    follow = sent[5]["content"]
    assert [part["type"] for part in follow] == ["text", "image_url", "text"]
    assert message.usage.input_tokens == 12 and message.usage.output_tokens == 3


def test_count_tokens_answers_with_an_estimate(client: anthropic.Anthropic) -> None:
    small = client.messages.count_tokens(
        model="plain", messages=[{"role": "user", "content": "hi"}]
    )
    large = client.messages.count_tokens(
        model="plain", tools=[WRITE_TOOL], messages=[{"role": "user", "content": "hi " * 400}]
    )
    assert 0 < small.input_tokens < large.input_tokens


def test_an_unknown_model_comes_back_as_an_anthropic_error(client: anthropic.Anthropic) -> None:
    with pytest.raises(anthropic.NotFoundError) as caught:
        client.messages.create(
            model="nope", max_tokens=8, messages=[{"role": "user", "content": "x"}]
        )
    assert caught.value.body["type"] == "error"  # type: ignore[index]
    assert "not found" in caught.value.body["error"]["message"]  # type: ignore[index]


def test_a_body_without_messages_is_a_400_invalid_request_error(servers: Servers) -> None:
    client = anthropic.Anthropic(base_url=servers.url, api_key="sk-test", max_retries=0)
    with pytest.raises(anthropic.BadRequestError, match="messages"):
        client.post("/v1/messages", body={"model": "plain", "max_tokens": 8}, cast_to=object)


def test_an_upstream_that_drops_mid_stream_ends_with_an_error_event_the_sdk_raises(
    client: anthropic.Anthropic,
) -> None:
    request = {
        "model": "dropping",
        "max_tokens": 64,
        "messages": [{"role": "user", "content": "x"}],
    }
    with pytest.raises(anthropic.APIStatusError), client.messages.stream(**request) as stream:
        stream.get_final_message()


def test_pings_keep_a_silent_stream_alive(
    servers: Servers, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(frontend_api, "KEEPALIVE_SECONDS", 0.1)
    body = {
        "model": "slow",
        "max_tokens": 8,
        "stream": True,
        "messages": [{"role": "user", "content": "x"}],
    }
    post = urllib.request.Request(
        f"{servers.url}/v1/messages",
        json.dumps(body).encode(),
        {"content-type": "application/json"},
    )
    with urllib.request.urlopen(post, timeout=30) as response:
        lines = [raw.decode().rstrip("\n") for raw in response]
    names = [line.removeprefix("event: ") for line in lines if line.startswith("event: ")]
    first_text = names.index("content_block_start")
    assert names[:2] == ["message_start", "ping"]
    assert "ping" in names[2:first_text]
    assert names[-1] == "message_stop"


def test_a_client_that_leaves_mid_stream_cancels_the_upstream_request(
    client: anthropic.Anthropic, servers: Servers
) -> None:
    before = servers.upstream.disconnected
    request = {
        "model": "endless",
        "max_tokens": 4096,
        "messages": [{"role": "user", "content": "x"}],
    }
    with client.messages.stream(**request) as stream:
        for event in stream:
            if event.type == "content_block_delta":
                break
    deadline = time.monotonic() + 10
    while servers.upstream.disconnected == before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert servers.upstream.disconnected == before + 1


def test_a_failure_of_toolmend_itself_mid_stream_still_ends_with_an_error_event(
    client: anthropic.Anthropic, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(self: object, chunk: object) -> list[dict[str, Any]]:
        raise RuntimeError("a bug")

    monkeypatch.setattr(frontend_api.MessagesStream, "feed", broken)
    request = {"model": "plain", "max_tokens": 64, "messages": [{"role": "user", "content": "x"}]}
    with (
        pytest.raises(anthropic.APIStatusError, match="toolmend failed"),
        client.messages.stream(**request) as stream,
    ):
        stream.get_final_message()
