"""The `toolmend` command: one JSON object out, one-line errors with status 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

CLI = [sys.executable, "-m", "toolmend"]
HERMES = (
    '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo", "days": "2"}}</tool_call>'
)
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


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args], input=stdin, capture_output=True, text=True, timeout=60, check=False
    )


@pytest.fixture
def tools_file(tmp_path: Path) -> str:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(TOOLS))
    return str(path)


def test_the_bundled_sample_parses_to_two_repaired_calls_and_keeps_the_code_example() -> None:
    out = run("parse", "--sample", "--id-prefix", "c")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert [c["arguments"] for c in result["tool_calls"]] == [
        {"city": "Seoul", "days": 3},
        {"city": "Paris", "days": 2},
    ]
    assert "`<tool_call>" in result["text"]


def test_parse_reads_stdin_and_applies_the_tools_file(tools_file: str) -> None:
    out = run("parse", "--protocol", "hermes", "--tools", tools_file, "-", stdin=HERMES)
    assert out.returncode == 0, out.stderr
    [call] = json.loads(out.stdout)["tool_calls"]
    assert call["arguments"] == {"city": "Oslo", "days": 2}
    assert set(call) >= {"id", "name", "arguments", "incomplete", "error"}


def test_chunked_parsing_prints_the_same_object(tools_file: str, tmp_path: Path) -> None:
    src = tmp_path / "out.txt"
    src.write_text("before " + HERMES + " after")
    whole = run("parse", "--tools", tools_file, "--id-prefix", "c", str(src))
    chunked = run("parse", "--tools", tools_file, "--id-prefix", "c", "--chunk-size", "3", str(src))
    assert whole.returncode == chunked.returncode == 0
    assert json.loads(whole.stdout) == json.loads(chunked.stdout)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["parse", "--protocol", "nope", "x.txt"], "unknown protocol 'nope'"),
        (["parse", "/nonexistent/file.txt"], "cannot read /nonexistent/file.txt"),
        (["parse", "--max-fragment", "5", "-"], "max_fragment must be at least"),
    ],
)
def test_caller_mistakes_print_one_line_and_exit_2(args: list[str], message: str) -> None:
    out = run(*args, stdin="")
    assert out.returncode == 2
    assert out.stdout == ""
    assert message in out.stderr and out.stderr.count("\n") == 1


@pytest.mark.parametrize(
    "content",
    ["{not json", '{"name": "x"}', '[{"name": "x", "parameters": {"type": "nonsense"}}]'],
)
def test_an_invalid_tools_file_prints_one_line_and_exits_2(tmp_path: Path, content: str) -> None:
    path = tmp_path / "tools.json"
    path.write_text(content)
    out = run("parse", "--tools", str(path), "-", stdin=HERMES)
    assert out.returncode == 2
    assert (
        out.stderr.startswith("toolmend: error: invalid tools file") and out.stderr.count("\n") == 1
    )


def test_protocols_lists_every_registered_id() -> None:
    import toolmend

    out = run("protocols")
    assert out.returncode == 0
    listed = [line.split(" ")[0].rstrip(":") for line in out.stdout.splitlines()]
    assert listed == toolmend.protocols()
