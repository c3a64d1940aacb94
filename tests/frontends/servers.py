"""A scripted leaking upstream and toolmend in front of it, both on loopback, for front-end tests.

The scripts are the demo's bundled real cases (each with its provenance in
`toolmend/server/demo/cases/cases.json`) plus the conversations these tests drive; chat
histories are rewritten into each front-end's own shapes by the helpers below.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolmend.server import create_app
from toolmend.server.config import ServerConfig, Upstream
from toolmend.server.demo.cases import DemoCase, load_cases, scripts_for
from toolmend.server.demo.scripted import Answer, Failure, Script, ScriptedUpstream
from toolmend.server.frontends.response_store import SQLiteResponseStore
from toolmend.server.loopback import LoopbackServer

WRITE_ARGS = {"file_path": "hello.py", "content": "print('hello')\n"}
#: Qwen3-Coder's XML call written into the text (its chat template's format), for a Write call.
QWEN_WRITE_LEAK = (
    "I'll create it.\n<tool_call>\n<function=Write>\n<parameter=file_path>\nhello.py\n"
    "</parameter>\n<parameter=content>\nprint('hello')\n\n</parameter>\n</function>\n</tool_call>"
)
HERMES_SHELL_LEAK = (
    '<tool_call>\n{"name": "shell", "arguments": {"command": ["bash", "-lc", '
    '"echo hi > hello.txt"]}}\n</tool_call>'
)
#: A reasoning model served without a reasoning parser: its `<think>` span arrives as content.
THINKING = "The user wants hello.py; I will write it."
THINK_THEN_LEAK = f"<think>\n{THINKING}\n</think>\n\n{QWEN_WRITE_LEAK}"
EXTRA_SCRIPTS = {
    "leaky-coder": Script(Answer(content=QWEN_WRITE_LEAK, chunk_size=5)),
    "thinking-coder": Script(Answer(content=THINK_THEN_LEAK, chunk_size=3)),
    "leaky-codex": Script(Answer(content=HERMES_SHELL_LEAK, chunk_size=7)),
    "plain": Script(
        Answer(content="All done.", usage={"prompt_tokens": 12, "completion_tokens": 3})
    ),
    "dropping": Script(
        Answer(content="partial answer " * 8, chunk_size=4), failure=Failure("drop", after_chunks=3)
    ),
    "slow": Script(Answer(content="late", chunk_size=2, pace_ms=400)),
    "endless": Script(Answer(content="word " * 400, chunk_size=5, pace_ms=50)),
}


def demo_cases() -> list[DemoCase]:
    """The bundled cases whose answer alone decides the outcome (no history of failures)."""
    return [case for case in load_cases() if case.script.guided is None]


@dataclass
class Servers:
    upstream: ScriptedUpstream
    url: str

    def last_upstream_body(self) -> dict[str, Any]:
        return dict(self.upstream.received[-1]["body"])


@contextmanager
def running(tmp: Path) -> Iterator[Servers]:
    upstream = ScriptedUpstream({**scripts_for(load_cases()), **EXTRA_SCRIPTS})
    with LoopbackServer(upstream.app()) as model_server:
        config = ServerConfig(
            upstreams=(Upstream("scripted", f"{model_server.url}/v1"),), source="test"
        )
        app = create_app(config)
        app.state.response_store = SQLiteResponseStore(tmp / "responses.sqlite3")
        with LoopbackServer(app) as proxy:
            yield Servers(upstream, proxy.url)


def anthropic_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for tool in tools:
        function = tool["function"]
        out.append(
            {
                "name": function["name"],
                "description": function.get("description", ""),
                "input_schema": function["parameters"],
            }
        )
    return out


def anthropic_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A chat history as Anthropic messages (tool results join the next user turn)."""
    out: list[dict[str, Any]] = []
    for message in messages:
        role = message["role"]
        if role == "assistant":
            blocks: list[dict[str, Any]] = []
            if message.get("content"):
                blocks.append({"type": "text", "text": message["content"]})
            for call in message.get("tool_calls") or ():
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": call["id"],
                        "name": call["function"]["name"],
                        "input": json.loads(call["function"]["arguments"]),
                    }
                )
            out.append({"role": "assistant", "content": blocks})
        elif role == "tool":
            block = {
                "type": "tool_result",
                "tool_use_id": message["tool_call_id"],
                "content": message["content"],
            }
            if out and out[-1]["role"] == "user" and isinstance(out[-1]["content"], list):
                out[-1]["content"].append(block)
            else:
                out.append({"role": "user", "content": [block]})
        else:
            out.append({"role": "user", "content": [{"type": "text", "text": message["content"]}]})
    return out


def responses_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"type": "function", **tool["function"]} for tool in tools]


def responses_input(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A chat history as Responses input items."""
    out: list[dict[str, Any]] = []
    for message in messages:
        role = message["role"]
        if role == "assistant":
            if message.get("content"):
                out.append(
                    {
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": message["content"]}],
                    }
                )
            for call in message.get("tool_calls") or ():
                out.append(
                    {
                        "type": "function_call",
                        "call_id": call["id"],
                        "name": call["function"]["name"],
                        "arguments": call["function"]["arguments"],
                    }
                )
        elif role == "tool":
            out.append(
                {
                    "type": "function_call_output",
                    "call_id": message["tool_call_id"],
                    "output": message["content"],
                }
            )
        else:
            out.append(
                {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": message["content"]}],
                }
            )
    return out
