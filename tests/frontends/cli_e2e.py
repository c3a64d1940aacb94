"""Drive a real agent CLI (Claude Code or Codex) through toolmend against a leaking model.

Run inside a network namespace with only loopback up (the test does:
`unshare -n sh -c 'ip link set lo up && python cli_e2e.py AGENT CLI WORKDIR API'`). It starts a
scripted upstream that writes its tool call as text, in the format its model family leaks
(Qwen3-Coder's `<function=…>` XML for Claude Code's `Write`, a Hermes `<tool_call>` JSON block
for Codex's shell tool), speaking API `chat` (chat/completions, translated to) or `native` (the
agent's own API, Anthropic Messages or Responses, forwarded to), and toolmend in front of it,
both on 127.0.0.1; then runs the CLI headless in WORKDIR and prints one JSON line: the CLI's
exit status, whether the file it was asked to create holds the expected text, and the tool
names and endpoints the upstream saw.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from native_upstreams import NativeScript, anthropic_events, responses_events
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from toolmend.server import create_app
from toolmend.server.config import ServerConfig, Upstream
from toolmend.server.demo.scripted import Answer
from toolmend.server.frontends.response_store import SQLiteResponseStore
from toolmend.server.loopback import LoopbackServer

FILE_NAME = "hello.txt"
FILE_TEXT = "hello from toolmend"
CLI_TIMEOUT = 240
DONE_TEXT = f"Done: {FILE_NAME} is created."


def _leak(agent: str, tools: list[str], workdir: str) -> str | None:
    """The leaked call for this agent's tools, or None when none of them can write the file."""
    target = os.path.join(workdir, FILE_NAME)
    if agent == "claude" and "Write" in tools:
        return (
            "I'll create the file.\n<tool_call>\n<function=Write>\n<parameter=file_path>\n"
            f"{target}\n</parameter>\n<parameter=content>\n{FILE_TEXT}\n\n</parameter>\n"
            "</function>\n</tool_call>"
        )
    script = f"printf '%s\\n' '{FILE_TEXT}' > {FILE_NAME}"
    for name, arguments in (
        ("shell", {"command": ["bash", "-lc", script], "workdir": workdir}),
        ("shell_command", {"command": script, "workdir": workdir}),
        ("exec_command", {"cmd": script, "workdir": workdir}),
    ):
        if name in tools:
            call = json.dumps({"name": name, "arguments": arguments})
            return f"Creating it now.\n<tool_call>\n{call}\n</tool_call>"
    return None


class LeakingModel:
    """A chat/completions server whose model writes its one call as text, then says it is done."""

    def __init__(self, agent: str, workdir: str) -> None:
        self.agent = agent
        self.workdir = workdir
        self.seen: list[dict[str, Any]] = []

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/v1/chat/completions", self._chat, methods=["POST"]),
                Route("/v1/messages", self._messages, methods=["POST"]),
                Route("/v1/responses", self._responses, methods=["POST"]),
            ]
        )

    def _reply(self, path: str, model: object, tools: list[str], turns: int, answered: bool) -> str:
        self.seen.append({"path": path, "model": model, "tools": tools, "turns": turns})
        if answered:
            return DONE_TEXT
        return _leak(self.agent, tools, self.workdir) or "OK."

    def _answer(self, body: dict[str, Any]) -> str:
        messages = [m for m in body.get("messages") or [] if m.get("role") != "system"]
        tools = [t["function"]["name"] for t in body.get("tools") or [] if "function" in t]
        answered = any(m.get("role") == "tool" for m in messages)
        return self._reply(
            "/v1/chat/completions", body.get("model"), tools, len(messages), answered
        )

    async def _messages(self, request: Request) -> Response:
        body = await request.json()
        turns = body.get("messages") or []
        tools = [str(t.get("name")) for t in body.get("tools") or []]
        answered = any(
            isinstance(block, dict) and block.get("type") == "tool_result"
            for turn in turns
            if isinstance(turn.get("content"), list)
            for block in turn["content"]
        )
        text = self._reply("/v1/messages", body.get("model"), tools, len(turns), answered)
        answer = Answer(content=text)
        events = anthropic_events(NativeScript((answer,)), answer, str(body.get("model")))
        return _event_stream(events)

    async def _responses(self, request: Request) -> Response:
        body = await request.json()
        items = body.get("input") if isinstance(body.get("input"), list) else []
        tools = [str(t.get("name")) for t in body.get("tools") or [] if t.get("type") == "function"]
        answered = any(
            item.get("type") in ("function_call_output", "custom_tool_call_output")
            for item in items
        )
        text = self._reply("/v1/responses", body.get("model"), tools, len(items), answered)
        answer = Answer(content=text)
        events = responses_events(NativeScript((answer,)), answer, str(body.get("model")))
        return _event_stream(events)

    async def _chat(self, request: Request) -> Response:
        body = await request.json()
        text = self._answer(body)
        model = str(body.get("model", "m"))
        base = {"id": "chatcmpl-e2e", "created": 0, "model": model}
        usage = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
        if not body.get("stream"):
            message = {"role": "assistant", "content": text}
            choice = {"index": 0, "message": message, "finish_reason": "stop"}
            return JSONResponse(
                {**base, "object": "chat.completion", "choices": [choice], "usage": usage}
            )

        async def chunks() -> Any:
            pieces = [text[i : i + 9] for i in range(0, len(text), 9)]
            for index, piece in enumerate(pieces):
                delta = (
                    {"role": "assistant", "content": piece} if index == 0 else {"content": piece}
                )
                choice = {"index": 0, "delta": delta, "finish_reason": None}
                yield _data({**base, "object": "chat.completion.chunk", "choices": [choice]})
            end = {"index": 0, "delta": {}, "finish_reason": "stop"}
            yield _data({**base, "object": "chat.completion.chunk", "choices": [end]})
            yield _data({**base, "object": "chat.completion.chunk", "choices": [], "usage": usage})
            yield b"data: [DONE]\n\n"

        return StreamingResponse(chunks(), media_type="text/event-stream")


def _data(value: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(value).encode() + b"\n\n"


def _event_stream(events: Any) -> StreamingResponse:
    frames = [f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events]
    return StreamingResponse(iter(frames), media_type="text/event-stream")


def _claude(cli: str, proxy: str, workdir: str, home: str) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": home,
        "ANTHROPIC_BASE_URL": proxy,
        "ANTHROPIC_API_KEY": "sk-toolmend-e2e",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "IS_SANDBOX": "1",
    }
    prompt = f"Create the file {FILE_NAME} in the current directory containing '{FILE_TEXT}'."
    return subprocess.run(
        [
            cli,
            "-p",
            prompt,
            "--model",
            "qwen3-coder",
            "--permission-mode",
            "acceptEdits",
            "--allowedTools",
            "Write",
        ],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT,
        check=False,
    )


def _codex(cli: str, proxy: str, workdir: str, home: str) -> subprocess.CompletedProcess[str]:
    codex_home = Path(home) / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text(
        'model = "qwen3-coder"\nmodel_provider = "toolmend"\n\n'
        "[model_providers.toolmend]\n"
        'name = "toolmend"\n'
        f'base_url = "{proxy}/v1"\n'
        'wire_api = "responses"\n'
        'env_key = "TOOLMEND_E2E_KEY"\n'
    )
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": home,
        "CODEX_HOME": str(codex_home),
        "TOOLMEND_E2E_KEY": "sk-toolmend-e2e",
    }
    prompt = f"Create the file {FILE_NAME} in the current directory containing '{FILE_TEXT}'."
    return subprocess.run(
        [
            cli,
            "exec",
            "--skip-git-repo-check",
            "--dangerously-bypass-approvals-and-sandbox",
            prompt,
        ],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT,
        check=False,
        stdin=subprocess.DEVNULL,
    )


def main(agent: str, cli: str, workdir: str, api: str) -> int:
    home = os.path.join(workdir, ".home")
    project = os.path.join(workdir, "project")
    os.makedirs(home, exist_ok=True)
    os.makedirs(project, exist_ok=True)
    model = LeakingModel(agent, project)
    with LoopbackServer(model.app()) as upstream:
        native = "anthropic" if agent == "claude" else "responses"
        config = ServerConfig(
            upstreams=(
                Upstream(
                    "leaking", f"{upstream.url}/v1", api=native if api == "native" else "chat"
                ),
            ),
            log_file=os.path.join(workdir, "requests.jsonl"),
            source="e2e",
        )
        app = create_app(config)
        app.state.response_store = SQLiteResponseStore(os.path.join(workdir, "responses.db"))
        with LoopbackServer(app) as proxy:
            run = (_claude if agent == "claude" else _codex)(cli, proxy.url, project, home)
    target = Path(project) / FILE_NAME
    created = target.is_file() and target.read_text().strip() == FILE_TEXT
    log = Path(workdir, "requests.jsonl")
    endpoints = sorted(
        {json.loads(line)["endpoint"] for line in log.read_text().splitlines()}
        if log.exists()
        else set()
    )
    print(
        json.dumps(
            {
                "returncode": run.returncode,
                "created": created,
                "upstream_saw": model.seen[:6],
                "upstream_paths": sorted({entry["path"] for entry in model.seen}),
                "endpoints": endpoints,
                "stdout_tail": run.stdout[-1500:],
                "stderr_tail": run.stderr[-1500:],
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]))
