"""The real Claude Code and Codex CLIs, through toolmend, create the file a leaking model asked for.

Each runs headless in a network namespace with only loopback up (`unshare -n`), against a
scripted model that writes its call as text (see `cli_e2e.py`), served as chat/completions
(translated to) and in the agent's own API (a native upstream, forwarded to). The CLIs are
found in `TOOLMEND_E2E_CLAUDE` / `TOOLMEND_E2E_CODEX`, else in `.e2e/node_modules/.bin/` of the
repository (`npm install --prefix .e2e @anthropic-ai/claude-code @openai/codex`), else on PATH;
a test is skipped, saying why, where its CLI or the namespace is not available.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).with_name("cli_e2e.py")
AGENTS = {"claude": "TOOLMEND_E2E_CLAUDE", "codex": "TOOLMEND_E2E_CODEX"}


def _cli(agent: str) -> str | None:
    configured = os.environ.get(AGENTS[agent])
    if configured:
        return configured
    local = REPO / ".e2e" / "node_modules" / ".bin" / agent
    return str(local) if local.exists() else shutil.which(agent)


def _namespace_problem() -> str | None:
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return "unshare or ip is not installed"
    probe = subprocess.run(
        ["unshare", "-n", "sh", "-c", "ip link set lo up"], capture_output=True, check=False
    )
    return None if probe.returncode == 0 else "cannot make a network namespace (needs root)"


@pytest.mark.parametrize("api", ["chat", "native"])
@pytest.mark.parametrize("agent", sorted(AGENTS))
def test_the_agent_cli_creates_the_file_through_toolmend_from_a_leaked_call(
    agent: str, api: str, tmp_path: Path
) -> None:
    """`api`: the upstream speaks chat/completions, or the agent's own API (forwarded to)."""
    cli = _cli(agent)
    if cli is None:
        pytest.skip(
            f"the {agent} CLI is not installed: npm install --prefix .e2e "
            "@anthropic-ai/claude-code @openai/codex, or set " + AGENTS[agent]
        )
    problem = _namespace_problem()
    if problem is not None:
        pytest.skip(f"no loopback-only namespace: {problem}")
    command = f"ip link set lo up && exec {sys.executable} {DRIVER} {agent} {cli} {tmp_path} {api}"
    run = subprocess.run(
        ["unshare", "-n", "sh", "-c", command],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    outcome = json.loads(run.stdout.strip().splitlines()[-1])
    assert outcome["created"], outcome
    endpoint = "/v1/messages" if agent == "claude" else "/v1/responses"
    assert outcome["endpoints"] == [endpoint]
    assert outcome["upstream_paths"] == [endpoint if api == "native" else "/v1/chat/completions"]
