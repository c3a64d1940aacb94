"""Log lines for the report tests: `toolmend.request/1` records as docs/log-schema.md has them.

`record()` is one valid line as the proxy writes it (a streamed chat completion that handed one
tool call on); tests override only the fields they are about.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from toolmend.report.store import LogStore

Line = dict[str, Any] | str


def record(**fields: Any) -> dict[str, Any]:
    line: dict[str, Any] = {
        "schema": "toolmend.request/1",
        "ts": "2026-12-01T09:14:03.412Z",
        "request_id": "req_01",
        "endpoint": "/v1/chat/completions",
        "model": "qwen3-coder-30b",
        "upstream": "local",
        "mode": "text",
        "stream": True,
        "status": 200,
        "upstream_status": 200,
        "error": None,
        "latency_ms": 812.5,
        "ttfc_ms": 95.0,
        "tool_calls": 1,
        "recovered": {},
        "repairs": {},
        "rejected": 0,
        "diagnostics": {},
        "guidance": {},
        "guidance_patterns": {},
        "loops_broken": 0,
        "self_corrections": 0,
        "self_correction_ok": 0,
        "usage": {"prompt_tokens": 1200, "completion_tokens": 80},
    }
    line.update(fields)
    return line


def text_of(lines: list[Line]) -> str:
    return "".join((ln if isinstance(ln, str) else json.dumps(ln)) + "\n" for ln in lines)


def write_log(path: Path, lines: list[Line]) -> Path:
    """Write lines to `path`, gzipped when its name ends in .gz."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text_of(lines).encode()
    path.write_bytes(gzip.compress(data) if path.name.endswith(".gz") else data)
    return path


def store_of(tmp_path: Path, lines: list[Line]) -> LogStore:
    return LogStore([str(write_log(tmp_path / "toolmend.log", lines))])
