"""toolmend in a pydantic-ai agent: a leaked call runs, repaired; errors come back as guidance.

Offline: pydantic-ai's `FunctionModel` plays a model that leaks a Hermes call into its text with
a wrong argument name, then answers. Use any model name (`"openai:gpt-4.1"`) to go live.

    python examples/pydantic_ai_agent.py
"""

from __future__ import annotations

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from toolmend.pydantic_ai import Toolmend

#: What such a model writes: its call as text, `days` as a string where the schema says integer.
LEAKED = (
    "Checking.\n<tool_call>\n"
    '{"name": "get_weather", "arguments": {"city": "Oslo", "days": "3"}}\n</tool_call>'
)


def offline_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if len(messages) == 1:
        return ModelResponse(parts=[TextPart(LEAKED)], model_name="qwen3-32b")
    return ModelResponse(parts=[TextPart("Snowy, 4 °C.")])


agent = Agent(FunctionModel(offline_model), capabilities=[Toolmend()])  # the one line


@agent.tool_plain
def get_weather(city: str, days: int = 1) -> str:
    """The weather of a city for the next days."""
    return f"{city}, {days} days: 4 °C, light snow"


def main() -> None:
    result = agent.run_sync("Weather in Oslo?")
    for message in result.all_messages():
        for part in message.parts:
            shown = getattr(part, "content", None) or getattr(part, "args", "")
            print(f"{part.part_kind:>12}: {shown!r}")
    print("output:", result.output)


if __name__ == "__main__":
    main()
