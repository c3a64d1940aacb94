"""`/v1/messages` forwarded to a native Anthropic upstream (`api = "anthropic"`), over real HTTP
with the official `anthropic` client: recovery, repair and the guard still apply."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anthropic
import pytest

from frontends.anthropic_grammar import check_grammar, sdk_message
from frontends.native_upstreams import (
    REDACTED,
    SIGNATURE,
    NativeScript,
    NativeUpstream,
    post,
    sse_events,
)
from frontends.servers import (
    QWEN_WRITE_LEAK,
    WRITE_ARGS,
    demo_cases,
)
from frontends.test_http_messages import READ_TOOL, WRITE_TOOL, check_bundled_case
from toolmend.server import create_app
from toolmend.server.config import ModelRule, ServerConfig, Upstream
from toolmend.server.demo.cases import DemoCase
from toolmend.server.demo.scripted import Answer
from toolmend.server.loopback import LoopbackServer

COUNT_TOOL = {
    "name": "Repeat",
    "description": "Say a word several times.",
    "input_schema": {
        "type": "object",
        "properties": {"word": {"type": "string"}, "times": {"type": "integer"}},
        "required": ["word", "times"],
        "additionalProperties": False,
    },
}
SCRIPTS = {
    "qwen3-coder-leak": NativeScript(
        (Answer(content=QWEN_WRITE_LEAK, chunk_size=5),), thinking="The user wants hello.py."
    ),
    "claude-repair": NativeScript(
        (Answer(tool_calls=({"name": "Repeat", "arguments": '{"word": "hi", "times": "3"}'},)),)
    ),
    "claude-reask": NativeScript(
        (
            Answer(tool_calls=({"name": "Delete", "arguments": '{"path": "x"}'},)),
            Answer(tool_calls=({"name": "Read", "arguments": '{"file_path": "x"}'},)),
        )
    ),
    "claude-plain": NativeScript((Answer(content="Done."),)),
    "claude-stop": NativeScript((Answer(content="one two"),), stop_sequence="THREE"),
    "claude-drop": NativeScript(
        (Answer(content="partial answer " * 4, chunk_size=4),), drop_after=8
    ),
    **{case.model: NativeScript((case.script.answer,)) for case in demo_cases()},
}


@pytest.fixture(scope="module")
def upstream() -> NativeUpstream:
    return NativeUpstream(dict(SCRIPTS))


@pytest.fixture(scope="module")
def proxy_url(upstream: NativeUpstream) -> Iterator[str]:
    with LoopbackServer(upstream.app()) as model_server:
        config = ServerConfig(
            upstreams=(
                Upstream("claude", f"{model_server.url}/v1", "sk-upstream", api="anthropic"),
            ),
            models=(ModelRule(match="*", upstream="claude"),),
            aliases={"sonnet": "claude-plain"},
            source="test",
        )
        with LoopbackServer(create_app(config)) as proxy:
            yield proxy.url


@pytest.fixture(scope="module")
def client(proxy_url: str) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=proxy_url, api_key="sk-client", max_retries=0)


def _calls(message: Any) -> list[tuple[str, Any]]:
    return [(block.name, block.input) for block in message.content if block.type == "tool_use"]


def _request(model: str, tools: list[dict[str, Any]], text: str = "go") -> dict[str, Any]:
    return {
        "model": model,
        "max_tokens": 1024,
        "tools": tools,
        "messages": [{"role": "user", "content": text}],
    }


@pytest.mark.parametrize("case", demo_cases(), ids=lambda case: case.id)
def test_every_bundled_leak_in_an_anthropic_upstreams_text_becomes_tool_use_blocks(
    client: anthropic.Anthropic, case: DemoCase
) -> None:
    check_bundled_case(client, case)


def test_a_leaked_call_streams_in_the_messages_grammar_beside_the_upstreams_signed_thinking(
    proxy_url: str,
) -> None:
    events = sse_events(f"{proxy_url}/v1/messages", _request("qwen3-coder-leak", [WRITE_TOOL]))
    check_grammar(events)
    message = sdk_message(events)
    kinds = [block["type"] for block in message["content"]]
    assert kinds == ["thinking", "redacted_thinking", "text", "tool_use"]
    thinking, redacted, text, call = message["content"]
    assert thinking["signature"] == SIGNATURE  # the upstream's own, verbatim
    assert thinking["thinking"] == "The user wants hello.py."
    assert redacted["data"] == REDACTED
    assert "<function=" not in text["text"]
    assert (call["name"], call["input"]) == ("Write", WRITE_ARGS)
    assert message["stop_reason"] == "tool_use"


def test_the_upstreams_usage_comes_back_with_cache_reads_and_writes_apart(
    client: anthropic.Anthropic,
) -> None:
    message = client.messages.create(**_request("claude-plain", []))
    assert message.usage.input_tokens == 40
    assert message.usage.cache_read_input_tokens == 100
    assert message.usage.cache_creation_input_tokens == 7
    assert message.usage.output_tokens == 25
    assert message.content[0].type == "text" and message.content[0].text == "Done."
    assert message.stop_reason == "end_turn"


def test_a_native_tool_use_input_is_repaired_by_the_schema_gate(
    client: anthropic.Anthropic,
) -> None:
    with client.messages.stream(**_request("claude-repair", [COUNT_TOOL])) as stream:
        message = stream.get_final_message()
    assert _calls(message) == [("Repeat", {"word": "hi", "times": 3})]
    assert message.content[-1].id == "toolu_upstream_0"


def test_a_matched_stop_sequence_is_reported(client: anthropic.Anthropic) -> None:
    message = client.messages.create(**{**_request("claude-stop", []), "stop_sequences": ["THREE"]})
    assert (message.stop_reason, message.stop_sequence) == ("stop_sequence", "THREE")


def test_the_forwarded_request_is_the_clients_with_its_history_guarded_and_no_unsigned_thinking(
    client: anthropic.Anthropic, upstream: NativeUpstream
) -> None:
    messages = [
        {"role": "user", "content": "read x.py"},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "recovered, unsigned", "signature": ""},
                {"type": "thinking", "thinking": "signed", "signature": SIGNATURE},
                {
                    "type": "tool_use",
                    "id": "toolu_01",
                    "name": "Read",
                    "input": {"file_path": "x.py"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_01",
                    "content": [
                        {
                            "type": "text",
                            "text": "<tool_use_error>File does not exist.</tool_use_error>",
                        }
                    ],
                    "is_error": True,
                },
                {"type": "text", "text": "try again"},
            ],
        },
    ]
    client.messages.create(
        model="sonnet",
        max_tokens=1024,
        system=[{"type": "text", "text": "be brief", "cache_control": {"type": "ephemeral"}}],
        tools=[READ_TOOL],
        messages=messages,
        extra_headers={
            "anthropic-beta": "interleaved-thinking-2025-05-14",
            "anthropic-version": "2023-06-01",
        },
    )
    sent = upstream.last()
    body, headers = sent["body"], sent["headers"]
    assert sent["path"] == "/v1/messages"
    assert body["model"] == "claude-plain"  # the alias's
    assert body["stream"] is True
    assert body["system"][0]["cache_control"] == {"type": "ephemeral"}  # passed as it came
    assert body["tools"] == [READ_TOOL]
    assistant = body["messages"][1]["content"]
    assert [b.get("thinking") for b in assistant if b["type"] == "thinking"] == ["signed"]
    result = body["messages"][2]["content"][0]
    assert result["is_error"] is True
    assert result["content"].startswith("[toolmend guidance v1]")  # guided in place
    assert "File does not exist." in result["content"]
    assert headers["x-api-key"] == "sk-upstream"
    assert "authorization" not in headers
    assert headers["anthropic-version"] == "2023-06-01"
    assert headers["anthropic-beta"] == "interleaved-thinking-2025-05-14"


def test_a_client_that_names_no_api_version_gets_the_current_one_upstream(
    proxy_url: str, upstream: NativeUpstream
) -> None:
    status, _ = post(f"{proxy_url}/v1/messages", _request("claude-plain", []))
    assert status == 200
    assert upstream.last()["headers"]["anthropic-version"] == "2023-06-01"


def test_an_unusable_call_is_asked_again_in_the_messages_api(
    client: anthropic.Anthropic, upstream: NativeUpstream
) -> None:
    message = client.messages.create(**_request("claude-reask", [READ_TOOL]))
    assert _calls(message) == [("Read", {"file_path": "x"})]
    reask = upstream.last()["body"]["messages"]
    assert [turn["role"] for turn in reask] == ["user", "assistant", "user"]
    held = reask[1]["content"][0]
    assert (held["type"], held["name"]) == ("tool_use", "Delete")
    result = reask[2]["content"][0]
    assert result["type"] == "tool_result" and result["tool_use_id"] == held["id"]
    assert result["is_error"] is True and "Delete" in result["content"]


def test_an_upstream_that_drops_before_message_stop_ends_with_an_error_event(
    proxy_url: str,
) -> None:
    events = sse_events(f"{proxy_url}/v1/messages", _request("claude-drop", []))
    assert events[-1]["type"] == "error"
    assert "message_stop" in events[-1]["error"]["message"]


def test_the_chat_endpoint_refuses_a_model_whose_upstream_speaks_anthropic(
    proxy_url: str,
) -> None:
    body = {"model": "claude-plain", "messages": [{"role": "user", "content": "hi"}]}
    chat = post(f"{proxy_url}/v1/chat/completions", body)
    responses = post(f"{proxy_url}/v1/responses", {"model": "claude-plain", "input": "hi"})
    for status, answer in (chat, responses):
        assert status == 400
        assert "speaks the anthropic API" in answer["error"]["message"]
