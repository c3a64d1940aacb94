"""Each adapter's example runs offline and shows the leaked call made real and repaired."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
HOSTS = {
    "openai_sdk.py": "openai",
    "langchain_agent.py": "langchain",
    "pydantic_ai_agent.py": "pydantic_ai",
    "litellm_sdk.py": "litellm",
    "vllm_parser.py": "vllm",
}


@pytest.mark.parametrize("example", sorted(HOSTS))
def test_the_example_runs_and_the_call_arrives_repaired(example):
    if importlib.util.find_spec(HOSTS[example]) is None:
        pytest.skip(f"{HOSTS[example]} is not installed")
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    env.pop("OPENAI_BASE_URL", None)
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / example)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert '"days": 3' in done.stdout or "'days': 3" in done.stdout
    assert "<tool_call>" not in done.stdout
