"""toolmend in a LangChain v1 agent: leaked calls run, failing tools are answered with guidance.

Offline: LangChain's fake chat model plays a model that leaks a Hermes call into its text with
a wrong argument name, then answers. Swap in any chat model (`init_chat_model(...)`) to go live.

    python examples/langchain_agent.py
"""

from __future__ import annotations

from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool

from toolmend.langchain import ToolmendMiddleware

#: What such a model writes: its call as text, `days` as a string where the schema says integer.
LEAKED = (
    "Checking.\n<tool_call>\n"
    '{"name": "get_weather", "arguments": {"city": "Oslo", "days": "3"}}\n</tool_call>'
)


class OfflineModel(FakeMessagesListChatModel):
    model_name: str = "qwen3-32b"

    def bind_tools(self, tools: Any, **kwargs: Any) -> OfflineModel:
        return self


@tool
def get_weather(city: str, days: int = 1) -> str:
    """The weather of a city for the next days."""
    return f"{city}, {days} days: 4 °C, light snow"


def main() -> None:
    model = OfflineModel(responses=[AIMessage(content=LEAKED), AIMessage(content="Snowy, 4 °C.")])
    agent = create_agent(model, [get_weather], middleware=[ToolmendMiddleware()])  # the one line
    state = agent.invoke({"messages": [{"role": "user", "content": "Weather in Oslo?"}]})
    for message in state["messages"]:
        calls = getattr(message, "tool_calls", None)
        print(f"{message.type:>5}: {message.content!r}" + (f" calls={calls}" if calls else ""))


if __name__ == "__main__":
    main()
