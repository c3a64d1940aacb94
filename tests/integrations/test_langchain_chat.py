"""`ToolmendChatModel`: token streams and whole replies of a wrapped chat model, recovered.

The inner model is LangChain's `GenericFakeChatModel`, which streams a reply in word pieces the
way provider integrations stream tokens.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain.agents", reason="the langchain extra is not installed")

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AIMessageChunk

from toolmend.integrations.langchain import ToolmendMiddleware
from toolmend.integrations.langchain_chat import ToolmendChatModel

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
