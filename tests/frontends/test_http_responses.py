"""`/v1/responses` over real HTTP with the official `openai` client's Responses API."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest

from frontends.servers import (
    THINKING,
    WRITE_ARGS,
    Servers,
    responses_input,
    responses_tools,
    running,
)
from toolmend.server.demo.cases import DemoCase, load_cases

SHELL = {
    "type": "function",
    "name": "shell",
    "description": "Runs a shell command and returns its output.",
    "strict": False,
    "parameters": {
        "type": "object",
        "properties": {
            "command": {"type": "array", "items": {"type": "string"}},
            "workdir": {"type": "string"},
        },
        "required": ["command"],
        "additionalProperties": False,
    },
}


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    with running(Path(tmp_path_factory.mktemp("responses"))) as running_servers:
        yield running_servers


@pytest.fixture(scope="module")
def client(servers: Servers) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{servers.url}/v1", api_key="sk-test", max_retries=0)


def _calls(response: Any) -> list[tuple[str, Any]]:
    return [
        (item.name, json.loads(item.arguments))
        for item in response.output
        if item.type == "function_call"
    ]


def check_bundled_case(client: openai.OpenAI, case: DemoCase) -> None:
    """The case's calls come back as function_call items, streamed and not, its markup gone."""
    request: dict[str, Any] = {
        "model": case.model,
        "tools": responses_tools(case.tools),
        "input": responses_input(case.messages),
    }
    whole = client.responses.create(**request)
    with client.responses.stream(**request) as stream:
        streamed = stream.get_final_response()
    wanted = [(c["name"], c["arguments"]) for c in case.expect.get("calls", ())]
    for response in (whole, streamed):
        assert _calls(response) == wanted
        for marker in case.expect.get("text_excludes", ()):
            assert marker not in response.output_text
        assert response.status == "completed"


@pytest.mark.parametrize("case", load_cases(), ids=lambda case: case.id)
def test_every_bundled_leak_comes_back_as_function_call_items_streamed_and_not(
    client: openai.OpenAI, case: DemoCase
) -> None:
    check_bundled_case(client, case)


WRITE = {
    "type": "function",
    "name": "Write",
    "description": "Write a file.",
    "parameters": {
        "type": "object",
        "properties": {"file_path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["file_path", "content"],
    },
}


def test_think_tags_in_the_upstreams_content_become_a_reasoning_item_streamed_and_not(
    client: openai.OpenAI,
) -> None:
    # `<think>…</think>` written into the content by a server with no reasoning parser is a
    # reasoning item for a Responses client, never output text.
    request: dict[str, Any] = {
        "model": "thinking-coder",
        "tools": [WRITE],
        "input": "create hello.py that prints hello",
    }
    whole = client.responses.create(**request)
    with client.responses.stream(**request) as stream:
        streamed = stream.get_final_response()
    for response in (whole, streamed):
        kinds = [item.type for item in response.output]
        assert kinds[0] == "reasoning" and kinds.count("reasoning") == 1
        reasoning = response.output[0]
        texts = [part.text for part in reasoning.content or []]
        assert "".join(texts).strip() == THINKING
        assert "<think>" not in response.output_text and THINKING not in response.output_text
        assert _calls(response) == [("Write", WRITE_ARGS)]


def test_a_codex_shaped_conversation_continues_from_previous_response_id(
    client: openai.OpenAI, servers: Servers
) -> None:
    first = client.responses.create(
        model="leaky-codex",
        instructions="You are Codex.",
        tools=[SHELL],
        input=[
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "make hello.txt"}],
            }
        ],
    )
    calls = [item for item in first.output if item.type == "function_call"]
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [
        ("shell", {"command": ["bash", "-lc", "echo hi > hello.txt"]})
    ]
    assert "<tool_call>" not in first.output_text
    with client.responses.stream(
        model="plain",
        instructions="You are Codex.",
        tools=[SHELL],
        previous_response_id=first.id,
        input=[{"type": "function_call_output", "call_id": calls[0].call_id, "output": "exit 0"}],
    ) as stream:
        second = stream.get_final_response()
    assert second.output_text == "All done."
    sent = servers.last_upstream_body()["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool"]
    assert sent[2]["tool_calls"][0]["id"] == calls[0].call_id
    assert sent[3] == {"role": "tool", "tool_call_id": calls[0].call_id, "content": "exit 0"}


def test_an_unknown_previous_response_id_is_a_400(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError, match="not found"):
        client.responses.create(model="plain", previous_response_id="resp_nope", input="hi")


def test_a_forced_hosted_tool_is_refused_with_the_reason(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError, match="web_search"):
        client.responses.create(
            model="plain",
            input="search",
            tools=[{"type": "web_search"}],
            tool_choice={"type": "web_search"},
        )


def test_usage_comes_from_the_upstream(client: openai.OpenAI) -> None:
    response = client.responses.create(model="plain", input="hi")
    assert response.usage is not None
    assert (response.usage.input_tokens, response.usage.output_tokens) == (12, 3)


def test_an_upstream_that_drops_mid_stream_ends_with_response_failed(client: openai.OpenAI) -> None:
    with client.responses.stream(model="dropping", input="x") as stream:
        events = [event.type for event in stream]
    assert events[-1] == "response.failed"
    # whatever text got through before the drop, its item was closed first
    assert events.count("response.output_item.added") == events.count("response.output_item.done")
