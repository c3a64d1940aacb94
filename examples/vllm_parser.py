"""toolmend as vLLM's tool parser: a reply whose call needs a repair, read the way vLLM reads it.

Runs offline and needs no GPU or model: vLLM's own `ParserManager` builds the parser a server
started with these flags would use, and parses a reply such a model writes.

    vllm serve MODEL --enable-auto-tool-choice \\
        --tool-parser-plugin toolmend.vllm --tool-call-parser toolmend

    python examples/vllm_parser.py
"""

from __future__ import annotations

from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
from vllm.parser.parser_manager import ParserManager

import toolmend.vllm  # noqa: F401  (what --tool-parser-plugin toolmend.vllm imports)

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
#: What such a model writes: `days` as a string where the schema says integer.
REPLY = (
    "Checking.\n<tool_call>\n"
    '{"name": "get_weather", "arguments": {"city": "Oslo", "days": "3"}}\n</tool_call>'
)


def main() -> None:
    parser_cls = ParserManager.get_parser(tool_parser_name="toolmend", enable_auto_tools=True)
    request = ChatCompletionRequest(
        model="qwen3-32b",
        messages=[{"role": "user", "content": "Weather in Oslo?"}],
        tools=TOOLS,
    )
    parser = parser_cls(None, request.tools)  # vLLM builds one per request
    _, content, calls = parser.parse(REPLY, request, enable_auto_tools=True)
    print("text:", repr(content))
    for call in calls or []:
        print("call:", call.name, call.arguments)


if __name__ == "__main__":
    main()
