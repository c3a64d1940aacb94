"""Drive a real agent CLI (Claude Code, Codex, OpenCode, Qwen Code, pi, Continue's cn, Cline,
Kilo Code, mini-swe-agent: `LAUNCHERS`) through toolmend against a leaking model.

Run inside a network namespace with only loopback up (the test does: `unshare -n sh -c 'ip link
set lo up && python cli_e2e.py AGENT CLI WORKDIR API SCENARIO FAILURE'`). It starts a scripted
upstream that writes its tool calls as text, in the format its model family leaks (Qwen3-Coder's
`<function=…>` XML, a Hermes `<tool_call>` JSON block) with the agent's own tool and argument
names, speaking API `chat` (chat/completions, translated to) or `native` (the agent's own API,
Anthropic Messages or Responses, forwarded to), and toolmend in front of it, both on 127.0.0.1;
then runs the CLI headless in WORKDIR and prints one JSON line: the CLI's exit status (or that it
timed out), whether the file it was asked to create holds the expected text, what the upstream
saw (tool names, stream options, the tool results as they reached it) and what the request log
counted (guidance, loops broken). SCENARIO `create` asks for the file; `loop` has the model
repeat failure number FAILURE of the agent (`FAILURES`) until the loop breaker's guidance
reaches it.
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
GAVE_UP_TEXT = "I could not do it: the tool keeps failing, so I stop here."
#: The `loop` scenario's model repeats its failing call this many times at most (the loop
#: breaker engages at the third identical failure; more repeats mean it did not).
MAX_REPEATS = 6
#: The scenario's existing file, which the failing edit names with a string it does not hold.
NOTES_NAME = "notes.txt"
NOTES_TEXT = "the notes of the project\n"
#: A leaked call: its form, the tool's name and the arguments (placeholders filled per run).
Call = tuple[str, str, dict[str, Any]]
#: Per agent, how its model leaks (`xml`: Qwen3-Coder's `<function=…>`, `hermes`: a
#: `<tool_call>` JSON block) and the tool and argument names the agent declares for writing.
WRITE_CALLS: dict[str, Call] = {
    "claude": ("xml", "Write", {"file_path": "{target}", "content": FILE_TEXT}),
    "cline": ("hermes", "editor", {"path": "{target}", "new_text": FILE_TEXT}),
    "cn": ("hermes", "Write", {"filepath": "{target}", "content": FILE_TEXT}),
    "kilo": ("xml", "write", {"filePath": "{target}", "content": FILE_TEXT}),
    "opencode": ("xml", "write", {"filePath": "{target}", "content": FILE_TEXT}),
    "pi": ("xml", "write", {"path": "{target}", "content": FILE_TEXT}),
    "qwen": ("hermes", "write_file", {"file_path": "{target}", "content": FILE_TEXT}),
}
#: OpenCode's two failures: a read of a missing file, an edit whose old string is absent.
OPENCODE_FAILURES: tuple[tuple[Call, ...], ...] = (
    (("xml", "read", {"filePath": "{missing}"}),),
    (("xml", "edit", {"filePath": "{notes}", "oldString": "absent", "newString": "x"}),),
)
#: Per agent, the `loop` scenario's failures: each is the calls its model makes once (Qwen Code
#: edits only a file it has read), then the call it repeats, which fails the same way each
#: time: a read of a path that does not exist, an edit whose old string the file does not hold.
FAILURES: dict[str, tuple[tuple[Call, ...], ...]] = {
    "mini": ((("hermes", "bash", {"command": "cat {missing}"}),),),
    "cline": (
        (("hermes", "read_files", {"files": [{"path": "{missing}"}]}),),
        (("hermes", "editor", {"path": "{notes}", "old_text": "absent", "new_text": "x"}),),
    ),
    "cn": (
        (("hermes", "Read", {"filepath": "{missing}"}),),
        (
            ("hermes", "Read", {"filepath": "{notes}"}),
            (
                "hermes",
                "MultiEdit",
                {"file_path": "{notes}", "edits": [{"old_string": "absent", "new_string": "x"}]},
            ),
        ),
    ),
    "opencode": OPENCODE_FAILURES,
    "kilo": OPENCODE_FAILURES,  # Kilo Code's CLI keeps OpenCode's tools
    "pi": (
        (("xml", "read", {"path": "{missing}"}),),
        (("xml", "edit", {"path": "{notes}", "edits": [{"oldText": "absent", "newText": "x"}]}),),
    ),
    "qwen": (
        (("hermes", "read_file", {"file_path": "{missing}"}),),
        (
            ("hermes", "read_file", {"file_path": "{notes}"}),
            ("hermes", "edit", {"file_path": "{notes}", "old_string": "absent", "new_string": "x"}),
        ),
    ),
}


def _leaked(form: str, name: str, arguments: dict[str, Any]) -> str:
    """A call written as text, in the form its model family leaks it."""
    if form == "hermes":
        call = json.dumps({"name": name, "arguments": arguments})
        return f"On it.\n<tool_call>\n{call}\n</tool_call>"
    parameters = "".join(
        f"<parameter={key}>\n{value if isinstance(value, str) else json.dumps(value)}\n</parameter>\n"
        for key, value in arguments.items()
    )
    return f"On it.\n<tool_call>\n<function={name}>\n{parameters}</function>\n</tool_call>"


def _filled(arguments: Any, workdir: str) -> Any:
    """The arguments with `{target}`, `{missing}` and `{notes}` made paths in `workdir`, at any
    depth (pi's edit takes a list of edits)."""
    places = {
        "target": os.path.join(workdir, FILE_NAME),
        "missing": os.path.join(workdir, "missing.txt"),
        "notes": os.path.join(workdir, NOTES_NAME),
    }
    if isinstance(arguments, str):
        return arguments.format(**places)
    if isinstance(arguments, list):
        return [_filled(item, workdir) for item in arguments]
    return {key: _filled(value, workdir) for key, value in arguments.items()}


def _leak(agent: str, tools: list[str], workdir: str) -> str | None:
    """The leaked call for this agent's tools, or None when none of them can write the file."""
    if agent in WRITE_CALLS:
        form, name, arguments = WRITE_CALLS[agent]
        return _leaked(form, name, _filled(arguments, workdir)) if name in tools else None
    script = f"printf '%s\\n' '{FILE_TEXT}' > {FILE_NAME}"
    for name, shell in (
        ("shell", {"command": ["bash", "-lc", script], "workdir": workdir}),
        ("shell_command", {"command": script, "workdir": workdir}),
        ("exec_command", {"cmd": script, "workdir": workdir}),
        ("bash", {"command": script}),
    ):
        if name in tools:
            call = json.dumps({"name": name, "arguments": shell})
            return f"Creating it now.\n<tool_call>\n{call}\n</tool_call>"
    return None


def _failing(agent: str, failure: int, results: int, tools: list[str], workdir: str) -> str:
    """The `loop` scenario's next call, leaked, after `results` tool results (the calls made
    once first, then the failing one); it gives up once `MAX_REPEATS` failures came back."""
    calls = FAILURES[agent][failure]
    prelude = len(calls) - 1
    if results - prelude >= MAX_REPEATS:
        return GAVE_UP_TEXT
    form, name, arguments = calls[min(results, prelude)]
    return _leaked(form, name, _filled(arguments, workdir)) if name in tools else "OK."


#: Agents that end only on a command of their own, not on a text answer: mini-swe-agent's
#: model finishes by running `echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT` with its bash tool.
FINISHING_CALLS = {
    "mini": ("hermes", "bash", {"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"})
}


def _final(agent: str, text: str) -> str:
    """The model's last answer: `text`, with the agent's finishing call where it needs one."""
    if agent not in FINISHING_CALLS:
        return text
    form, name, arguments = FINISHING_CALLS[agent]
    return text + "\n" + _leaked(form, name, arguments).removeprefix("On it.\n")


class LeakingModel:
    """A scripted model that writes its calls as text, served in the three APIs.

    Scenario `create`: one call that creates the file, then it says it is done. Scenario
    `loop`: the agent's failure number `failure` (`FAILURES`) again and again, until a tool
    result carries the loop breaker's guidance (then it gives up) or `MAX_REPEATS` failures
    came back.
    """

    def __init__(
        self,
        agent: str,
        workdir: str,
        scenario: str = "create",
        failure: int = 0,
        bodies: Path | None = None,
    ):
        self.agent = agent
        self.bodies = bodies
        self.workdir = workdir
        self.scenario = scenario
        self.failure = failure
        self.seen: list[dict[str, Any]] = []

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/v1/chat/completions", self._chat, methods=["POST"]),
                Route("/v1/messages", self._messages, methods=["POST"]),
                Route("/v1/responses", self._responses, methods=["POST"]),
            ]
        )

    def _reply(
        self, path: str, body: dict[str, Any], tools: list[str], turns: int, results: list[str]
    ) -> str:
        if self.bodies is not None:
            with self.bodies.open("a") as dump:
                dump.write(json.dumps(body) + "\n")
        self.seen.append(
            {
                "path": path,
                "model": body.get("model"),
                "tools": tools,
                "turns": turns,
                "stream": body.get("stream"),
                "stream_options": body.get("stream_options"),
                "tool_choice": body.get("tool_choice"),
                "results": [result[:200] for result in results],
            }
        )
        if self.scenario == "create":
            if results:
                return _final(self.agent, DONE_TEXT)
            return _leak(self.agent, tools, self.workdir) or "OK."
        if any("MODEL_STUCK_LOOP" in result for result in results):
            return _final(self.agent, GAVE_UP_TEXT)
        answer = _failing(self.agent, self.failure, len(results), tools, self.workdir)
        return _final(self.agent, answer) if answer == GAVE_UP_TEXT else answer

    def _answer(self, body: dict[str, Any]) -> str:
        messages = [m for m in body.get("messages") or [] if m.get("role") != "system"]
        tools = [t["function"]["name"] for t in body.get("tools") or [] if "function" in t]
        results = [_text(m.get("content")) for m in messages if m.get("role") == "tool"]
        return self._reply("/v1/chat/completions", body, tools, len(messages), results)

    async def _messages(self, request: Request) -> Response:
        body = await request.json()
        turns = body.get("messages") or []
        tools = [str(t.get("name")) for t in body.get("tools") or []]
        results = [
            _text(block.get("content"))
            for turn in turns
            if isinstance(turn.get("content"), list)
            for block in turn["content"]
            if isinstance(block, dict) and block.get("type") == "tool_result"
        ]
        text = self._reply("/v1/messages", body, tools, len(turns), results)
        answer = Answer(content=text)
        events = anthropic_events(NativeScript((answer,)), answer, str(body.get("model")))
        return _event_stream(events)

    async def _responses(self, request: Request) -> Response:
        body = await request.json()
        items = body.get("input") if isinstance(body.get("input"), list) else []
        tools = [str(t.get("name")) for t in body.get("tools") or [] if t.get("type") == "function"]
        results = [
            _text(item.get("output"))
            for item in items
            if item.get("type") in ("function_call_output", "custom_tool_call_output")
        ]
        text = self._reply("/v1/responses", body, tools, len(items), results)
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


def _text(content: object) -> str:
    """A tool result's text: a string, or the text of its parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _data(value: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(value).encode() + b"\n\n"


def _event_stream(events: Any) -> StreamingResponse:
    frames = [f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events]
    return StreamingResponse(iter(frames), media_type="text/event-stream")


#: A headless run: the argv (the prompt is its last word) and the environment.
Launch = tuple[list[str], dict[str, str]]


def _base_env(home: str) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home}


def _claude(cli: str, proxy: str, home: str) -> Launch:
    env = {
        **_base_env(home),
        "ANTHROPIC_BASE_URL": proxy,
        "ANTHROPIC_API_KEY": "sk-toolmend-e2e",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "IS_SANDBOX": "1",
    }
    argv = [cli, "--model", "qwen3-coder", "--permission-mode", "acceptEdits"]
    return [*argv, "--allowedTools", "Write", "-p"], env


def _codex(cli: str, proxy: str, home: str) -> Launch:
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
    env = {**_base_env(home), "CODEX_HOME": str(codex_home), "TOOLMEND_E2E_KEY": "sk-toolmend-e2e"}
    bypass = "--dangerously-bypass-approvals-and-sandbox"
    return [cli, "exec", "--skip-git-repo-check", bypass], env


def _opencode(cli: str, proxy: str, home: str, prefix: str = "OPENCODE") -> Launch:
    """OpenCode with toolmend as a custom OpenAI-compatible provider (its bundled AI SDK one);
    Kilo Code's CLI, a fork of it, reads the same file from `KILO_*` variables."""
    provider = {
        "npm": "@ai-sdk/openai-compatible",
        "name": "toolmend",
        "options": {"baseURL": f"{proxy}/v1", "apiKey": "sk-toolmend-e2e"},
        "models": {"qwen3-coder": {"name": "qwen3-coder"}},
    }
    config = {
        "$schema": "https://opencode.ai/config.json",
        "provider": {"toolmend": provider},
        "model": "toolmend/qwen3-coder",
        "permission": {"edit": "allow", "bash": "allow"},
        "autoupdate": False,
        "share": "disabled",
    }
    path = Path(home) / "opencode.json"
    path.write_text(json.dumps(config))
    env = {**_base_env(home), f"{prefix}_CONFIG": str(path), f"{prefix}_DISABLE_AUTOUPDATE": "1"}
    return [cli, "run"], env


def _kilo(cli: str, proxy: str, home: str) -> Launch:
    return _opencode(cli, proxy, home, prefix="KILO")


def _qwen(cli: str, proxy: str, home: str) -> Launch:
    """Qwen Code on its OpenAI-compatible auth (the environment), approving every tool."""
    env = {
        **_base_env(home),
        "OPENAI_BASE_URL": f"{proxy}/v1",
        "OPENAI_API_KEY": "sk-toolmend-e2e",
        "OPENAI_MODEL": "qwen3-coder",
    }
    return [cli, "--yolo", "-p"], env


def _pi(cli: str, proxy: str, home: str) -> Launch:
    """pi with toolmend as a custom provider on its `openai-completions` API (models.json)."""
    agent_dir = Path(home) / ".pi" / "agent"
    agent_dir.mkdir(parents=True, exist_ok=True)
    provider = {
        "baseUrl": f"{proxy}/v1",
        "api": "openai-completions",
        "apiKey": "sk-toolmend-e2e",
        "models": [{"id": "qwen3-coder"}],
    }
    (agent_dir / "models.json").write_text(json.dumps({"providers": {"toolmend": provider}}))
    env = {**_base_env(home), "PI_OFFLINE": "1"}
    argv = [cli, "--provider", "toolmend", "--model", "qwen3-coder", "--no-session"]
    return [*argv, "--offline", "-p"], env


def _continue(cli: str, proxy: str, home: str) -> Launch:
    """Continue's CLI with a config.yaml naming toolmend as an `openai` provider's `apiBase`."""
    path = Path(home) / "continue.yaml"
    model = {
        "name": "qwen3-coder",
        "provider": "openai",
        "model": "qwen3-coder",
        "apiBase": f"{proxy}/v1",
        "apiKey": "sk-toolmend-e2e",
        "roles": ["chat", "edit", "apply"],
        "capabilities": ["tool_use"],
    }
    config = {"name": "toolmend", "version": "1.0.0", "schema": "v1", "models": [model]}
    path.write_text(json.dumps(config))  # YAML holds JSON
    return [cli, "--config", str(path), "--auto", "-p"], _base_env(home)


def _cline(cli: str, proxy: str, home: str) -> Launch:
    """Cline's CLI on its OpenAI-compatible provider, configured by its own `auth` command."""
    config = str(Path(home) / ".cline")
    env = _base_env(home)
    auth = [cli, "auth", "-p", "openai", "-k", "sk-toolmend-e2e", "-m", "qwen3-coder"]
    subprocess.run(
        [*auth, "-b", f"{proxy}/v1", "--config", config],
        env=env,
        capture_output=True,
        check=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    return [cli, "--config", config, "--auto-approve", "true", "--compaction", "off"], env


def _mini(cli: str, proxy: str, home: str) -> Launch:
    """mini-swe-agent (litellm) on an `openai/` model at toolmend, confirming nothing."""
    env = {
        **_base_env(home),
        "OPENAI_API_KEY": "sk-toolmend-e2e",
        "MSWEA_COST_TRACKING": "ignore_errors",
        "MSWEA_CONFIGURED": "true",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    settings = ["mini.yaml", f"model.model_kwargs.api_base={proxy}/v1"]
    configs = [word for setting in settings for word in ("-c", setting)]
    argv = [cli, "-m", "openai/qwen3-coder", *configs, "-y", "-l", "0", "--exit-immediately"]
    return [*argv, "-t"], env


LAUNCHERS = {
    "claude": _claude,
    "mini": _mini,
    "cline": _cline,
    "cn": _continue,
    "kilo": _kilo,
    "codex": _codex,
    "opencode": _opencode,
    "pi": _pi,
    "qwen": _qwen,
}
#: The upstream API a native run forwards to, per agent (the chat agents have none but chat).
NATIVE_APIS = {"claude": "anthropic", "codex": "responses"}
PROMPTS = {
    "create": f"Create the file {FILE_NAME} in the current directory containing '{FILE_TEXT}'.",
    "loop": f"Read missing.txt, then put its first line at the top of {NOTES_NAME}.",
}


def _run(launch: Launch, prompt: str, workdir: str) -> dict[str, Any]:
    """The CLI's exit status and output tails; `timed_out` when it did not end in time."""
    argv, env = launch
    try:
        run = subprocess.run(
            [*argv, prompt],
            cwd=workdir,
            env=env,
            capture_output=True,
            text=True,
            timeout=CLI_TIMEOUT,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
        return {"returncode": None, "timed_out": True, "stdout_tail": out[-1500:]}
    tails = {"stdout_tail": run.stdout[-1500:], "stderr_tail": run.stderr[-1500:]}
    return {"returncode": run.returncode, "timed_out": False, **tails}


def _logged(log: Path) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


def main(agent: str, cli: str, workdir: str, api: str, scenario: str, failure: int) -> int:
    home = os.path.join(workdir, ".home")
    project = os.path.join(workdir, "project")
    os.makedirs(home, exist_ok=True)
    os.makedirs(project, exist_ok=True)
    Path(project, NOTES_NAME).write_text(NOTES_TEXT)
    model = LeakingModel(agent, project, scenario, failure, Path(workdir, "bodies.jsonl"))
    log = Path(workdir, "requests.jsonl")
    with LoopbackServer(model.app()) as upstream:
        upstream_api = NATIVE_APIS[agent] if api == "native" else "chat"
        config = ServerConfig(
            upstreams=(Upstream("leaking", f"{upstream.url}/v1", api=upstream_api),),
            log_file=str(log),
            source="e2e",
        )
        app = create_app(config)
        app.state.response_store = SQLiteResponseStore(os.path.join(workdir, "responses.db"))
        with LoopbackServer(app) as proxy:
            run = _run(LAUNCHERS[agent](cli, proxy.url, home), PROMPTS[scenario], project)
    target = Path(project) / FILE_NAME
    records = _logged(log)
    print(
        json.dumps(
            {
                **run,
                "created": target.is_file() and target.read_text().strip() == FILE_TEXT,
                "notes_kept": Path(project, NOTES_NAME).read_text() == NOTES_TEXT,
                "upstream_saw": model.seen[-8:],
                "upstream_paths": sorted({entry["path"] for entry in model.seen}),
                "endpoints": sorted({record["endpoint"] for record in records}),
                "guidance": [record.get("guidance") for record in records],
                "loops_broken": sum(record.get("loops_broken", 0) for record in records),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(
        main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]))
    )
