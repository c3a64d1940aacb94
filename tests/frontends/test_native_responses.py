"""`/v1/responses` forwarded to a native Responses upstream (`api = "responses"`), over real HTTP
with the official `openai` client: recovery, repair and the guard still apply."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest

from frontends.native_upstreams import ENCRYPTED, NativeScript, NativeUpstream, post, sse_events
from frontends.responses_grammar import check_grammar
from frontends.servers import HERMES_SHELL_LEAK, demo_cases
from frontends.test_http_responses import SHELL, check_bundled_case
from toolmend.server import create_app
from toolmend.server.config import ModelRule, ServerConfig, Upstream
from toolmend.server.demo.cases import DemoCase
from toolmend.server.demo.scripted import Answer
from toolmend.server.frontends.response_store import SQLiteResponseStore
from toolmend.server.loopback import LoopbackServer

REPEAT = {
    "type": "function",
    "name": "repeat",
    "description": "Say a word several times.",
    "parameters": {
        "type": "object",
        "properties": {"word": {"type": "string"}, "times": {"type": "integer"}},
        "required": ["word", "times"],
        "additionalProperties": False,
    },
}
SHELL_ARGS = {"command": ["bash", "-lc", "echo hi > hello.txt"]}
SCRIPTS = {
    "gpt-leak": NativeScript((Answer(content=HERMES_SHELL_LEAK, chunk_size=7),), thinking="plan"),
    "gpt-repair": NativeScript(
        (Answer(tool_calls=({"name": "repeat", "arguments": '{"word": "hi", "times": "3"}'},)),)
    ),
    "gpt-plain": NativeScript((Answer(content="Done."),)),
    "gpt-drop": NativeScript((Answer(content="partial answer " * 4, chunk_size=4),), drop_after=6),
    **{case.model: NativeScript((case.script.answer,)) for case in demo_cases()},
}


@pytest.fixture(scope="module")
def upstream() -> NativeUpstream:
    return NativeUpstream(dict(SCRIPTS))


@pytest.fixture(scope="module")
def proxy_url(upstream: NativeUpstream, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with LoopbackServer(upstream.app()) as model_server:
        config = ServerConfig(
            upstreams=(Upstream("openai", f"{model_server.url}/v1", api="responses"),),
            models=(ModelRule(match="*", upstream="openai"),),
            source="test",
        )
        app = create_app(config)
        store = Path(tmp_path_factory.mktemp("native-responses")) / "responses.sqlite3"
        app.state.response_store = SQLiteResponseStore(store)
        with LoopbackServer(app) as proxy:
            yield proxy.url


@pytest.fixture(scope="module")
def client(proxy_url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{proxy_url}/v1", api_key="sk-client", max_retries=0)


def _calls(response: Any) -> list[tuple[str, Any]]:
    return [
        (item.name, json.loads(item.arguments))
        for item in response.output
        if item.type == "function_call"
    ]


@pytest.mark.parametrize("case", demo_cases(), ids=lambda case: case.id)
def test_every_bundled_leak_in_a_responses_upstreams_text_becomes_function_call_items(
    client: openai.OpenAI, case: DemoCase
) -> None:
    check_bundled_case(client, case)


def test_a_leaked_call_streams_in_the_responses_grammar_beside_the_encrypted_reasoning(
    proxy_url: str,
) -> None:
    body = {"model": "gpt-leak", "tools": [SHELL], "input": "make hello.txt"}
    final = check_grammar(sse_events(f"{proxy_url}/v1/responses", body))
    kinds = [item["type"] for item in final["output"]]
    assert kinds == ["reasoning", "function_call"]
    reasoning, call = final["output"]
    assert reasoning["encrypted_content"] == ENCRYPTED  # the upstream's item, whole
    assert reasoning["summary"] == [{"type": "summary_text", "text": "plan"}]
    assert (call["name"], json.loads(call["arguments"])) == ("shell", SHELL_ARGS)
    assert final["usage"]["input_tokens"] == 140
    assert final["usage"]["input_tokens_details"]["cached_tokens"] == 100


def test_native_function_call_arguments_are_repaired_by_the_schema_gate(
    client: openai.OpenAI,
) -> None:
    response = client.responses.create(model="gpt-repair", tools=[REPEAT], input="hi x3")  # type: ignore[list-item]
    assert _calls(response) == [("repeat", {"word": "hi", "times": 3})]
    assert response.output[0].call_id == "call_upstream_0"  # type: ignore[union-attr]


def test_the_conversation_goes_upstream_whole_with_failed_results_guided(
    client: openai.OpenAI, upstream: NativeUpstream
) -> None:
    first = client.responses.create(
        model="gpt-leak",
        tools=[SHELL],  # type: ignore[list-item]
        input="make hello.txt",
        reasoning={"effort": "high"},
    )
    call = next(item for item in first.output if item.type == "function_call")
    client.responses.create(
        model="gpt-plain",
        tools=[SHELL],  # type: ignore[list-item]
        previous_response_id=first.id,
        input=[
            {
                "type": "function_call_output",
                "call_id": call.call_id,
                "output": "Error: ENOENT: no such file or directory, open hello.txt",
            }
        ],
        reasoning={"effort": "high"},
    )
    body = upstream.last()["body"]
    assert "previous_response_id" not in body  # served from toolmend's own store
    assert body["reasoning"] == {"effort": "high"} and body["stream"] is True
    kinds = [item.get("type") for item in body["input"]]
    assert kinds == ["message", "reasoning", "function_call", "function_call_output"]
    assert body["input"][1]["encrypted_content"] == ENCRYPTED
    output = body["input"][-1]["output"]
    assert output.startswith("[toolmend guidance v1]")
    assert "ENOENT" in output


def test_a_forced_hosted_tool_goes_to_the_upstream(
    client: openai.OpenAI, upstream: NativeUpstream
) -> None:
    client.responses.create(
        model="gpt-plain",
        tools=[{"type": "web_search"}],
        tool_choice={"type": "web_search"},  # type: ignore[typeddict-item]
        input="news?",
    )
    body = upstream.last()["body"]
    assert body["tools"] == [{"type": "web_search"}]
    assert body["tool_choice"] == {"type": "web_search"}


def test_an_upstream_that_drops_before_completing_ends_with_response_failed(
    proxy_url: str,
) -> None:
    events = sse_events(f"{proxy_url}/v1/responses", {"model": "gpt-drop", "input": "hi"})
    assert events[-1]["type"] == "response.failed"
    assert "response.completed" in events[-1]["response"]["error"]["message"]


def test_messages_and_chat_refuse_a_model_whose_upstream_speaks_responses(
    proxy_url: str,
) -> None:
    chat = {"model": "gpt-plain", "messages": [{"role": "user", "content": "hi"}]}
    for path in ("/v1/chat/completions", "/v1/messages"):
        status, answer = post(f"{proxy_url}{path}", {**chat, "max_tokens": 10})
        assert status == 400
        assert "speaks the responses API" in answer["error"]["message"]
