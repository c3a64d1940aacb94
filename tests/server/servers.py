"""Handles and fixtures data for the proxy tests: the scripted upstream, proxies, tools."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import openai

from toolmend.server import ServerConfig
from toolmend.server.demo.scripted import Answer, Failure, Script, ScriptedUpstream

WEATHER_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city"],
            "additionalProperties": False,
        },
    },
}
COMMAND_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "execute_command",
        "description": "Run a command.",
        "parameters": {
            "type": "object",
            "properties": {"command": {"type": "string"}, "cwd": {"type": "string"}},
            "required": ["command"],
        },
    },
}
TOOLS = [WEATHER_TOOL, COMMAND_TOOL]
ASK = [{"role": "user", "content": "What is the weather in Oslo?"}]
HERMES_OSLO = (
    'Checking. <tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>'
)

_names = itertools.count(1)


@dataclass
class ScriptedHandle:
    scripted: ScriptedUpstream
    url: str

    def script(
        self,
        answer: Answer,
        *,
        guided: Answer | None = None,
        failure: Failure | None = None,
        family: str = "model",
    ) -> str:
        """A new model id answering with `answer` (ids are unique per test run)."""
        model = f"{family}-{next(_names)}"
        self.scripted.scripts[model] = Script(answer, guided, failure)
        return model

    def requests_for(self, model: str) -> list[dict[str, Any]]:
        return [r for r in self.scripted.received if r["body"].get("model") == model]


@dataclass
class ProxyHandle:
    url: str
    log_path: Path
    config: ServerConfig

    def client(self, api_key: str = "sk-client", **kwargs: Any) -> openai.OpenAI:
        return openai.OpenAI(
            base_url=f"{self.url}/v1", api_key=api_key, max_retries=0, timeout=30, **kwargs
        )

    def async_client(self, api_key: str = "sk-client") -> openai.AsyncOpenAI:
        return openai.AsyncOpenAI(
            base_url=f"{self.url}/v1", api_key=api_key, max_retries=0, timeout=60
        )

    def log(self, at_least: int = 0, wait: float = 10.0) -> list[dict[str, Any]]:
        """The request log's records, waiting up to `wait` seconds for `at_least` of them.

        A streamed request's line is written after its last chunk has gone out, so a client
        that has read the whole stream can get here first on a loaded machine.
        """
        deadline = time.monotonic() + wait
        while True:
            records = self._read_log()
            if len(records) >= at_least or time.monotonic() > deadline:
                return records
            time.sleep(0.02)

    def _read_log(self) -> list[dict[str, Any]]:
        if not self.log_path.exists():
            return []
        lines = self.log_path.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]


def stream_parts(stream: Any) -> tuple[str, dict[int, dict[str, str]], list[Any]]:
    """(text, calls by index as {id, name, arguments}, finish reasons) of an openai stream."""
    text: list[str] = []
    calls: dict[int, dict[str, str]] = {}
    finishes: list[Any] = []
    for chunk in stream:
        for choice in chunk.choices:
            text.append(choice.delta.content or "")
            for part in choice.delta.tool_calls or ():
                slot = calls.setdefault(part.index, {"id": "", "name": "", "arguments": ""})
                slot["id"] += part.id or ""
                if part.function is not None:
                    slot["name"] += part.function.name or ""
                    slot["arguments"] += part.function.arguments or ""
            if choice.finish_reason is not None:
                finishes.append(choice.finish_reason)
    return "".join(text), calls, finishes


StartProxy = Callable[..., ProxyHandle]
