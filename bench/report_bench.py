"""`toolmend report` over a million log lines: wall time and peak memory of the whole command.

Generates `toolmend.request/1` lines (docs/log-schema.md) as several replicas would write them
over a month — some files gzipped, a few bad lines among them — then runs `toolmend report` on
the glob in a fresh process, once per format, and reports its wall time and peak resident
memory (the process's own, DuckDB's native memory included), and the same for a parquet export.

Goal (issue 16): the report of a million lines in under 10 s and under 1 GiB on this machine.

    python bench/report_bench.py [--lines N] [--replicas N] [--keep DIR]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

GOAL_SECONDS = 10.0
GOAL_BYTES = 1 << 30
START = datetime(2026, 11, 1)
SPAN = timedelta(days=30)

#: Each model's habits: share of traffic, its usual tool-error categories (with weights),
#: the protocol its leaked calls are recovered from, its median latency in ms.
MODELS: dict[str, dict[str, Any]] = {
    "qwen3-coder-30b": {
        "share": 0.30,
        "guidance": {"PARAM_TYPE_MISMATCH": 5, "FILE_NOT_FOUND": 3, "DIFF_MATCH_FAILED": 2},
        "protocol": "qwen3-coder",
        "latency": 900,
    },
    "mimo-v2-flash": {
        "share": 0.20,
        "guidance": {"CWD_OBJECT_MISUSE": 16, "PARAM_MISSING": 2, "TOOL_NOT_FOUND": 2},
        "protocol": "hermes",
        "latency": 600,
    },
    "gemma-4-27b": {
        "share": 0.20,
        "guidance": {"INVALID_JSON_ARGUMENTS": 6, "TOOL_NOT_FOUND": 3, "MODEL_STUCK_LOOP": 1},
        "protocol": "gemma4",
        "latency": 1400,
    },
    "kimi-k2": {
        "share": 0.15,
        "guidance": {"DUPLICATE_CALL": 4, "SHELL_INTEGRATION": 3, "TIMEOUT": 1},
        "protocol": "kimi-xtml",
        "latency": 2200,
    },
    "glm-4.6": {
        "share": 0.15,
        "guidance": {"PARAM_MISSING": 3, "PERMISSION_DENIED": 2, "CONTEXT_OVERFLOW": 1},
        "protocol": "anthropic-xml",
        "latency": 1100,
    },
}
REPAIRS = ("type_coercion", "alias", "unknown_key_removed", "escape", "tool_name_alias")
DIAGNOSTICS = ("truncated_fragment_dropped", "unknown_tool", "concatenated_json")
ENDPOINTS = ("/v1/chat/completions", "/v1/messages", "/v1/responses")


def _weighted(rng: random.Random, weights: dict[str, int]) -> str:
    return rng.choices(list(weights), weights=list(weights.values()))[0]


def log_line(rng: random.Random, n: int) -> dict[str, Any]:
    """One plausible request record: most succeed, some leak calls, some fail, a few re-ask."""
    model = rng.choices(list(MODELS), weights=[m["share"] for m in MODELS.values()])[0]
    habits = MODELS[model]
    ts = START + SPAN * rng.random()
    stream = rng.random() < 0.7
    latency = rng.lognormvariate(0, 0.6) * habits["latency"]
    upstream_status: int | None = 200
    status = 200
    error = None
    roll = rng.random()
    if roll < 0.01:
        upstream_status, status = None, 502
        error = {"type": "upstream_unreachable", "message": "connection refused"}
    elif roll < 0.03:
        upstream_status = status = rng.choice((429, 500, 503))
        error = {"type": f"upstream_{upstream_status}", "message": "upstream error"}
    tool_calls = rng.choice((0, 1, 1, 1, 2, 3)) if error is None else 0
    recovered = {habits["protocol"]: 1} if tool_calls and rng.random() < 0.15 else {}
    repairs = {rng.choice(REPAIRS): 1} if tool_calls and rng.random() < 0.1 else {}
    rejected = 1 if tool_calls and rng.random() < 0.02 else 0
    diagnostics = {rng.choice(DIAGNOSTICS): 1} if rng.random() < 0.03 else {}
    guidance: dict[str, int] = {}
    patterns: dict[str, int] = {}
    if rng.random() < 0.12:
        category = _weighted(rng, habits["guidance"])
        guidance[category] = 1
        patterns[f"EI/{category}/{rng.randint(1, 3):03d}"] = 1
    corrections = rejected if rng.random() < 0.5 else 0
    return {
        "schema": "toolmend.request/1",
        "ts": ts.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ts.microsecond // 1000:03d}Z",
        "request_id": f"req_{n:08x}",
        "endpoint": rng.choice(ENDPOINTS),
        "model": model,
        "upstream": "local",
        "mode": "text" if habits["protocol"] in ("qwen3-coder", "gemma4") else "native",
        "stream": stream,
        "status": status,
        "upstream_status": upstream_status,
        "error": error,
        "latency_ms": round(latency, 1),
        "ttfc_ms": round(latency * rng.uniform(0.05, 0.3), 1) if stream else None,
        "tool_calls": tool_calls,
        "recovered": recovered,
        "repairs": repairs,
        "rejected": rejected,
        "diagnostics": diagnostics,
        "guidance": guidance,
        "guidance_patterns": patterns,
        "loops_broken": 1 if "MODEL_STUCK_LOOP" in guidance else 0,
        "self_corrections": corrections,
        "self_correction_ok": corrections if rng.random() < 0.7 else 0,
        "usage": {"prompt_tokens": rng.randint(500, 30000), "completion_tokens": 200},
    }


def log_lines(count: int, seed: int = 16) -> Iterator[str]:
    rng = random.Random(seed)
    for n in range(count):
        yield json.dumps(log_line(rng, n), separators=(",", ":"))


def write_replicas(directory: Path, count: int, replicas: int) -> None:
    """Split `count` lines over `replicas` files; every other one gzipped; three bad lines."""
    directory.mkdir(parents=True, exist_ok=True)
    lines = log_lines(count)
    per_file = count // replicas
    for r in range(replicas):
        name = directory / f"replica-{r}" / ("toolmend.log.gz" if r % 2 else "toolmend.log")
        name.parent.mkdir(exist_ok=True)
        with gzip.open(name, "wt", compresslevel=1) if r % 2 else open(name, "w") as out:
            for _ in range(per_file if r < replicas - 1 else count - per_file * r):
                out.write(next(lines) + "\n")
            if r == 0:
                out.write('{"schema":"toolmend.request/1","ts":"2026-11-0\n')
                out.write('{"schema":"toolmend.request/2","ts":"2026-11-02T00:00:00.000Z"}\n')
                out.write("Traceback (most recent call last):\n")


def run_measured(args: list[str]) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds and peak resident bytes of one `toolmend` process.

    CPU seconds are printed beside wall time because this machine's two cores are shared: when
    others are busy, wall time grows while CPU time barely moves.
    """
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "toolmend", *args], stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"toolmend {' '.join(args)} exited with {process.returncode}")
    cpu = usage.ru_utime + usage.ru_stime
    return seconds, cpu, usage.ru_maxrss * 1024  # ru_maxrss is in KiB on Linux


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--replicas", type=int, default=8)
    parser.add_argument("--keep", type=Path, help="write the logs here and keep them")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="toolmend-bench-") as tmp:
        logs = args.keep or Path(tmp) / "logs"
        start = time.perf_counter()
        write_replicas(logs, args.lines, args.replicas)
        print(
            f"generated {args.lines:,} lines in {args.replicas} files "
            f"in {time.perf_counter() - start:.1f} s"
        )
        glob = str(logs / "replica-*" / "toolmend.log*")
        runs = {
            "table": ["report", glob],
            "json": ["report", glob, "--format", "json"],
            "html": ["report", glob, "--format", "html", "--out", f"{tmp}/report.html"],
            "parquet export": ["report", glob, "--export", "parquet", f"{tmp}/parquet"],
        }
        print(f"load average before: {os.getloadavg()[0]:.1f} (2 cores)")
        goal = f"goal <{GOAL_SECONDS:.0f} s, <1 GiB"
        print(f"{'run':<16} {'wall s':>7} {'CPU s':>6} {'peak MiB':>9}  {goal}")
        for name, command in runs.items():
            seconds, cpu, peak = run_measured(command)
            ok = seconds < GOAL_SECONDS and peak < GOAL_BYTES
            verdict = "holds" if ok else "MISSED"
            print(f"{name:<16} {seconds:>7.2f} {cpu:>6.2f} {peak / 2**20:>9.0f}  {verdict}")


if __name__ == "__main__":
    main()
