"""`ToolmendChatModel`: token streams and whole replies of a wrapped chat model, recovered.

The inner model is LangChain's `GenericFakeChatModel`, which streams a reply in word pieces the
way provider integrations stream tokens.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import Field

pytest.importorskip("langchain.agents", reason="the langchain extra is not installed")

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    convert_to_messages,
    convert_to_openai_messages,
)

from toolmend.integrations.langchain import ToolmendMiddleware
from toolmend.integrations.langchain_chat import ToolmendChatModel
from toolmend.model import coerce_tools
from toolmend.recovery.textmode import text_request

from .langchain_host import Workspace, ai_message
from .scenarios import SCENARIOS, TOOLS, header


class WordStreamingModel(GenericFakeChatModel):
    model_name: str = "qwen3-32b"

    def bind_tools(self, tools: Any, **kwargs: Any) -> WordStreamingModel:
        return self


def wrapped(*replies: AIMessage, model: str = "qwen3-32b") -> Any:
    inner = WordStreamingModel(messages=iter(replies), model_name=model)
    return ToolmendChatModel(inner=inner).bind_tools(TOOLS)


TEXT_LEAKS = [s for s in SCENARIOS if s.content and not s.native]


@pytest.mark.parametrize("scenario", TEXT_LEAKS, ids=lambda s: s.name)
def test_the_token_stream_carries_the_text_and_the_calls_whole_never_the_markup(scenario):
    model = wrapped(ai_message(scenario), model=scenario.model)
    pieces = list(model.stream("Read a.txt"))
    merged = pieces[0]
    for piece in pieces[1:]:
        merged = merged + piece
    assert isinstance(merged, AIMessageChunk)
    assert "".join(str(p.content) for p in pieces) == (scenario.text or "")
    assert [(c["name"], c["args"]) for c in merged.tool_calls] == list(scenario.calls)
    refused = merged.additional_kwargs.get("toolmend_rejected_calls", [])
    assert [c["function"]["name"] for c in refused] == list(scenario.rejected)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_a_whole_reply_is_recovered_like_the_middleware_does(scenario):
    reply = wrapped(ai_message(scenario), model=scenario.model).invoke("Read a.txt")
    assert [(c["name"], c["args"]) for c in reply.tool_calls] == list(scenario.calls)
    refused = reply.additional_kwargs.get("toolmend_rejected_calls", [])
    assert [c["function"]["name"] for c in refused] == list(scenario.rejected)


def test_an_agent_streaming_messages_never_shows_the_leaked_markup():
    leak = SCENARIOS[0]
    workspace = Workspace()
    model = ToolmendChatModel(
        inner=WordStreamingModel(messages=iter([ai_message(leak), AIMessage("Done.")]))
    )
    agent = create_agent(model, [workspace.tool], middleware=[ToolmendMiddleware()])
    tokens = [
        chunk.content
        for chunk, meta in agent.stream(
            {"messages": [{"role": "user", "content": "Read a.txt"}]}, stream_mode="messages"
        )
        if isinstance(chunk, AIMessageChunk)
    ]
    assert "".join(map(str, tokens)) == leak.text + "Done."
    assert workspace.calls == [{"file_path": "a.txt", "limit": 10}]


@pytest.mark.parametrize("scenario", [s for s in SCENARIOS if s.rejected], ids=lambda s: s.name)
def test_a_refused_call_from_the_model_is_answered_by_the_middleware(scenario):
    workspace = Workspace()
    inner = WordStreamingModel(messages=iter([ai_message(scenario), AIMessage("Done.")]))
    agent = create_agent(
        ToolmendChatModel(inner=inner, model=scenario.model),
        [workspace.tool],
        middleware=[ToolmendMiddleware()],
    )
    state = agent.invoke({"messages": [{"role": "user", "content": "Read a.txt"}]})
    answers = [m for m in state["messages"] if m.type == "tool"]
    assert workspace.calls == []
    assert [a.status for a in answers] == ["error"]
    assert header(answers[0].content).startswith(scenario.rejected_guidance)
    assert state["messages"][-1].content == "Done."


# ------------------------------------------------------------------- text-protocol mode


class TextOnlyModel(WordStreamingModel):
    """A model without native tool calling: binding tools to it is an error; it keeps what
    it was sent."""

    seen: list[Any] = Field(default_factory=list)

    def bind_tools(self, tools: Any, **kwargs: Any) -> WordStreamingModel:
        raise AssertionError("a text-protocol model is never bound to tools")

    def _generate(self, messages: Any, *args: Any, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        return super()._generate(messages, *args, **kwargs)

    def _stream(self, messages: Any, *args: Any, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        return super()._stream(messages, *args, **kwargs)


def text_mode(*replies: AIMessage) -> tuple[TextOnlyModel, Any]:
    inner = TextOnlyModel(messages=iter(replies), seen=[])
    model = ToolmendChatModel(inner=inner, text_protocol="hermes")
    return inner, model.bind_tools(TOOLS, tool_choice="read_file")


HISTORY = [
    {"role": "system", "content": "You are careful."},
    {"role": "user", "content": "Read a.txt"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "read_file", "arguments": '{"file_path": "a.txt"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "contents of a.txt"},
]


@pytest.mark.parametrize("streamed", [False, True], ids=["invoke", "stream"])
def test_in_text_mode_the_model_is_sent_what_the_proxys_text_mode_sends(streamed):
    inner, model = text_mode(AIMessage("Done."))
    history = convert_to_messages(HISTORY)
    if streamed:
        list(model.stream(history))
    else:
        model.invoke(history)
    body = text_request(
        {"tool_choice": {"type": "function", "function": {"name": "read_file"}}},
        HISTORY,
        coerce_tools(TOOLS),
        "hermes",
    )
    sent = [
        {"role": m["role"], "content": m["content"]}
        for m in convert_to_openai_messages(inner.seen[0])
    ]
    assert sent == body["messages"]
    assert "read_file" in sent[0]["content"] and "must call the function" in sent[0]["content"]
    assert "<tool_call>" in sent[2]["content"]
    assert sent[3]["role"] == "user" and "contents of a.txt" in sent[3]["content"]


def test_in_text_mode_a_reply_written_in_the_protocol_becomes_real_calls():
    leak = SCENARIOS[0]
    _, model = text_mode(AIMessage(leak.content), AIMessage(leak.content))
    reply = model.invoke("Read a.txt")
    assert [(c["name"], c["args"]) for c in reply.tool_calls] == list(leak.calls)
    assert reply.content == leak.text
    pieces = list(model.stream("Read a.txt"))
    merged = pieces[0]
    for piece in pieces[1:]:
        merged = merged + piece
    assert [(c["name"], c["args"]) for c in merged.tool_calls] == list(leak.calls)
    assert "".join(str(p.content) for p in pieces) == leak.text


def test_in_text_mode_the_reply_is_read_with_that_protocol_only():
    qwen = next(s for s in SCENARIOS if s.name == "a qwen3-coder call leaked into the text")
    _, model = text_mode(AIMessage(qwen.content))
    assert model.invoke("Read a.txt").tool_calls == []
