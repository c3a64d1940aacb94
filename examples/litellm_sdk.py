"""toolmend around LiteLLM: `toolmend.integrations.litellm.completion` for `litellm.completion`.

Offline: LiteLLM's own `mock_response` plays a model that leaks a Hermes call into its text.
Drop `mock_response` (and set the provider's key) to go live. For the LiteLLM proxy, register
`ToolmendHandler()` as a callback instead (see the README).

    python examples/litellm_sdk.py
"""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network for the cost map

import toolmend.litellm

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                "required": ["city"],
            },
        },
    }
]
#: What such a model writes: its call as text, `days` as a string where the schema says integer.
LEAKED = (
    "Checking.\n<tool_call>\n"
    '{"name": "get_weather", "arguments": {"city": "Oslo", "days": "3"}}\n</tool_call>'
)


def main() -> None:
    request = {
        "model": "openai/qwen3-32b",
        "messages": [{"role": "user", "content": "Weather in Oslo?"}],
        "tools": TOOLS,
        "mock_response": LEAKED,
    }
    reply = toolmend.litellm.completion(**request)
    message = reply.choices[0].message
    print("text:", repr(message.content))
    for call in message.tool_calls or []:
        print("call:", call.function.name, call.function.arguments)
    stream = toolmend.litellm.completion(**request, stream=True)
    streamed = [c.choices[0].delta for c in stream if c.choices]
    calls = [t.function.arguments for d in streamed for t in d.tool_calls or []]
    print("streamed call arguments:", calls)


if __name__ == "__main__":
    main()
