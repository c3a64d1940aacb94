"""The request log: one `toolmend.request/1` JSON line per request (docs/log-schema.md).

This module owns the record of one request and writing it: one `os.write` of one line to an
append-only descriptor, so lines from several workers never interleave. A streamed request's
line is written once its last frames have gone out (the client does not wait for it). A record
holds counts, ids and statuses; prompt and answer content only when the operator asked
(`--log-content`), and never a key, a header or an upstream secret. It also feeds the same
counts to the metrics, so the log and `/metrics` cannot disagree.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from toolmend.server import metrics, wirejson

SCHEMA = "toolmend.request/1"


def empty_counter() -> Counter[str]:
    """An empty `Counter`, as `Counter()` makes it, without running `Counter.__init__` (whose
    `update` call does nothing for no arguments): a request starts about ten of them (its record,
    its guidance, each answer's outcome) before its first chunk, at a third of the cost each."""
    return Counter.__new__(Counter)


@dataclass(slots=True)
class RequestRecord:
    """What one request did; filled in while it runs, written once at its end."""

    request_id: str
    endpoint: str
    started: float = field(default_factory=time.perf_counter)
    model: str = ""
    upstream: str = ""
    mode: str = "native"
    stream: bool = False
    status: int = 200
    upstream_status: int | None = None
    error: dict[str, str] | None = None
    first_chunk: float | None = None
    tool_calls: int = 0
    recovered: Counter[str] = field(default_factory=empty_counter)
    repairs: Counter[str] = field(default_factory=empty_counter)
    rejected: int = 0
    diagnostics: Counter[str] = field(default_factory=empty_counter)
    guidance: Counter[str] = field(default_factory=empty_counter)
    guidance_patterns: Counter[str] = field(default_factory=empty_counter)
    loops_broken: int = 0
    self_corrections: int = 0
    self_correction_ok: int = 0
    usage: dict[str, Any] | None = None
    content: dict[str, Any] | None = None

    def fail(self, status: int, kind: str, message: str) -> None:
        self.status = status
        self.error = {"type": kind, "message": message}

    def mark_first_chunk(self) -> None:
        if self.first_chunk is None:
            self.first_chunk = time.perf_counter()

    def to_json(self, now: float | None = None) -> dict[str, Any]:
        end = time.perf_counter() if now is None else now
        stamp = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        line: dict[str, Any] = {
            "schema": SCHEMA,
            "ts": stamp,
            "request_id": self.request_id,
            "endpoint": self.endpoint,
            "model": self.model,
            "upstream": self.upstream,
            "mode": self.mode,
            "stream": self.stream,
            "status": self.status,
            "upstream_status": self.upstream_status,
            "error": self.error,
            "latency_ms": round((end - self.started) * 1000, 3),
            "ttfc_ms": (
                round((self.first_chunk - self.started) * 1000, 3)
                if self.first_chunk is not None
                else None
            ),
            "tool_calls": self.tool_calls,
            "recovered": dict(self.recovered),
            "repairs": dict(self.repairs),
            "rejected": self.rejected,
            "diagnostics": dict(self.diagnostics),
            "guidance": dict(self.guidance),
            "guidance_patterns": dict(self.guidance_patterns),
            "loops_broken": self.loops_broken,
            "self_corrections": self.self_corrections,
            "self_correction_ok": self.self_correction_ok,
            "usage": self.usage,
        }
        if self.content is not None:
            line["content"] = self.content
        return line


class RequestLog:
    """Writes records as JSON lines to a file (appending) or to standard error."""

    def __init__(self, path: str | None = None) -> None:
        self._path = path
        self._fd = (
            os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o640)
            if path
            else sys.stderr.fileno()
        )

    def write(self, record: RequestRecord) -> None:
        now = time.perf_counter()
        line = wirejson.dumps(record.to_json(now)) + b"\n"  # orjson: a tenth of `json`'s time
        with contextlib.suppress(OSError):  # a full disk must not fail an answered request
            os.write(self._fd, line)
        _count(record, now)

    def close(self) -> None:
        if self._path:
            os.close(self._fd)


def _count(record: RequestRecord, now: float) -> None:
    metrics.REQUESTS.labels(record.endpoint, record.mode, str(record.status)).inc()
    metrics.LATENCY.labels(record.endpoint, record.mode).observe(now - record.started)
    if record.first_chunk is not None:
        metrics.FIRST_CHUNK.labels(record.mode).observe(record.first_chunk - record.started)
    for protocol, n in record.recovered.items():
        metrics.RECOVERED.labels(protocol).inc(n)
    for kind, n in record.repairs.items():
        metrics.REPAIRS.labels(kind).inc(n)
    for category, n in record.guidance.items():
        metrics.GUIDANCE.labels(category).inc(n)
    ok = record.self_correction_ok
    if ok:
        metrics.SELF_CORRECTIONS.labels("ok").inc(ok)
    if record.self_corrections - ok:
        metrics.SELF_CORRECTIONS.labels("still_invalid").inc(record.self_corrections - ok)
