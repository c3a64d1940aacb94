"""A LangChain v1 agent on LangChain's own fake chat model, for the adapter's tests."""

from __future__ import annotations

import json
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.tools import tool

from toolmend.integrations.langchain import ToolmendMiddleware

from .scenarios import ENOENT, Scenario


class ScriptedModel(FakeMessagesListChatModel):
    """LangChain's fake model with tools bindable (the agent binds them), named like a model."""

    model_name: str = "qwen3-32b"

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedModel:
        return self


def ai_message(scenario: Scenario) -> AIMessage:
    """The scenario as LangChain's provider integrations hand it over: parsed or invalid calls."""
    calls, invalid = [], []
    for i, (name, raw) in enumerate(scenario.native):
        try:
            args = json.loads(raw)
        except ValueError:
            invalid.append({"name": name, "args": raw, "id": f"call_n{i}", "error": "bad json"})
        else:
            calls.append({"name": name, "args": args, "id": f"call_n{i}"})
    return AIMessage(content=scenario.content or "", tool_calls=calls, invalid_tool_calls=invalid)


class Workspace:
    """The agent's one tool; records what it was called with."""

    def __init__(self, *, missing: bool = False) -> None:
        self.calls: list[dict[str, Any]] = []
        self.missing = missing

        @tool
        def read_file(file_path: str, limit: int = 10) -> str:
            """Read a file of the workspace."""
            self.calls.append({"file_path": file_path, "limit": limit})
            if self.missing:
                raise FileNotFoundError(2, "No such file or directory", file_path)
            return f"contents of {file_path}"

        self.tool = read_file


def run_agent(
    replies: list[BaseMessage], workspace: Workspace, model: str = "qwen3-32b"
) -> list[BaseMessage]:
    chat = ScriptedModel(responses=replies, model_name=model)
    agent = create_agent(chat, [workspace.tool], middleware=[ToolmendMiddleware()])
    state = agent.invoke({"messages": [{"role": "user", "content": "Read a.txt"}]})
    return list(state["messages"])


def missing_error() -> str:
    return ENOENT
