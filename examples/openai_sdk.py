"""toolmend around the openai SDK: a model that writes its call as text still makes a real call.

Offline by default: a scripted server answers with a Hermes `<tool_call>` written into the text.
Set OPENAI_BASE_URL (and OPENAI_API_KEY, MODEL) to run it against a real OpenAI-compatible server.

    python examples/openai_sdk.py
"""

from __future__ import annotations

import json
import os

import httpx
import openai

import toolmend.openai

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


def scripted(request: httpx.Request) -> httpx.Response:
    """A model server whose model leaks its call into the text."""
    model = json.loads(request.content)["model"]
    message = {"role": "assistant", "content": LEAKED}
    choice = {"index": 0, "finish_reason": "stop", "message": message}
    body = {
        "id": "1",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [choice],
    }
    return httpx.Response(200, json=body)


def main() -> None:
    if os.environ.get("OPENAI_BASE_URL"):
        client = openai.OpenAI()
    else:
        http = httpx.Client(transport=httpx.MockTransport(scripted))
        client = openai.OpenAI(
            api_key="offline", base_url="http://127.0.0.1:9/v1", http_client=http
        )
    client = toolmend.openai.wrap(client)  # the one line
    reply = client.chat.completions.create(
        model=os.environ.get("MODEL", "qwen3-32b"),
        messages=[{"role": "user", "content": "Weather in Oslo?"}],
        tools=TOOLS,
    )
    message = reply.choices[0].message
    print("text:", repr(message.content))
    for call in message.tool_calls or []:
        print("call:", call.function.name, call.function.arguments)


if __name__ == "__main__":
    main()
