"""`toolmend report` on the command line: formats, stdin, times, export, and its errors."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import duckdb
import pytest

from toolmend import cli
from toolmend.report.command import parse_time
from toolmend.report.sources import ReportError

from .logs import Line, record, text_of, write_log

CLI = [sys.executable, "-m", "toolmend", "report"]
DAY: list[Line] = [
    record(model="mimo-v2-flash", ts="2026-11-30T23:10:00.000Z", guidance={"CWD_OBJECT_MISUSE": 4},
           diagnostics={"unknown_tool": 1}),
    record(model="qwen3-coder-30b", ts="2026-12-01T09:00:00.000Z", recovered={"qwen3-coder": 1}),
    record(model="qwen3-coder-30b", ts="2026-12-01T10:00:00.000Z", status=502, upstream_status=None,
           error={"type": "upstream_unreachable", "message": "connection refused"}),
    '{"schema":"toolmend.request/1","ts":"2026-12-01T11:00:00.000Z","model":"qwen3-co',
]  # fmt: skip


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args], input=stdin, capture_output=True, text=True, timeout=120, check=False
    )


@pytest.fixture
def log(tmp_path: Path) -> str:
    return str(write_log(tmp_path / "logs" / "toolmend.log", DAY))


def test_the_table_names_each_model_its_dominant_failure_and_the_bad_lines(log: str) -> None:
    done = run(log)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith(
        "toolmend report: 3 requests, 2026-11-30T23:10:00Z to 2026-12-01T10:00:00Z"
    )
    assert "3 log lines, 1 truncated" in out
    mimo_row = next(ln for ln in out.splitlines() if ln.startswith("mimo-v2-flash") and "%" in ln)
    assert "CWD_OBJECT_MISUSE 80% · unknown_tool 20%" in mimo_row
    assert "upstream_unreachable" in out


def test_json_is_the_whole_report_under_its_schema(log: str) -> None:
    data = json.loads(run(log, "--format", "json").stdout)
    assert data["schema"] == "toolmend.report/1"
    assert data["input"]["lines"]["truncated"] == 1
    assert [m["model"] for m in data["models"]] == ["qwen3-coder-30b", "mimo-v2-flash"]
    assert data["overall"]["upstream_errors"] == 1
    assert data["models"][1]["failure_modes"][0] == {
        "mode": "CWD_OBJECT_MISUSE", "source": "guidance", "count": 4, "share": 0.8,
    }  # fmt: skip


def test_log_lines_piped_in_are_read_when_no_path_is_given() -> None:
    done = run("--format", "json", stdin=text_of(DAY))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["overall"]["requests"] == 3


def test_since_until_and_model_narrow_the_report(log: str) -> None:
    data = json.loads(
        run(log, "--format", "json", "--since", "2026-12-01", "--until", "2026-12-01T09:30Z").stdout
    )
    assert data["overall"]["requests"] == 1
    assert data["selection"]["since"] == "2026-12-01T00:00:00"
    data = json.loads(run(log, "--format", "json", "--model", "mimo-*").stdout)
    assert [m["model"] for m in data["models"]] == ["mimo-v2-flash"]


def test_an_empty_selection_says_so(log: str, tmp_path: Path) -> None:
    done = run(log, "--model", "claude-*")
    assert done.returncode == 0
    assert (
        "Nothing to report: none of the 3 log lines is inside --since/--until/--model."
        in done.stdout
    )
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "Nothing to report: no files in the selection." in run(str(empty)).stdout


def test_times_read_as_utc_dates_times_or_ages() -> None:
    now = datetime(2026, 12, 1, 12, 0)
    assert parse_time("2026-11-30", now) == datetime(2026, 11, 30)
    assert parse_time("2026-12-01T09:00Z", now) == datetime(2026, 12, 1, 9)
    assert parse_time("2026-12-01T10:00+01:00", now) == datetime(2026, 12, 1, 9)
    assert parse_time("24h", now) == datetime(2026, 11, 30, 12)
    assert parse_time("30m", now) == datetime(2026, 12, 1, 11, 30)
    assert parse_time("2w", now) == datetime(2026, 11, 17, 12)
    with pytest.raises(ReportError, match="not a time"):
        parse_time("last tuesday", now)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--since", "soon"], "not a time: 'soon'"),
        (["--export", "csv", "out"], "--export knows only parquet"),
        (["/no/such/dir/toolmend.log"], "no such file or directory: /no/such/dir/toolmend.log"),
    ],
)
def test_a_caller_mistake_is_one_line_on_stderr_and_status_2(
    log: str, args: list[str], message: str
) -> None:
    done = run(log, *args)
    assert done.returncode == 2
    assert done.stderr.startswith("toolmend: error: ")
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_export_writes_the_events_as_parquet_partitioned_by_day(log: str, tmp_path: Path) -> None:
    target = tmp_path / "parquet"
    done = run(log, "--export", "parquet", str(target), "--out", str(tmp_path / "report.txt"))
    assert done.returncode == 0, done.stderr
    assert "exported 3 events" in done.stderr
    assert sorted(p.name for p in target.iterdir()) == ["day=2026-11-30", "day=2026-12-01"]
    rows = duckdb.sql(
        f"SELECT day, model, recovered, guidance FROM read_parquet('{target}/**/*.parquet', "
        "hive_partitioning = true) ORDER BY ts"
    ).fetchall()
    assert [(str(day), model) for day, model, _, _ in rows] == [
        ("2026-11-30", "mimo-v2-flash"),
        ("2026-12-01", "qwen3-coder-30b"),
        ("2026-12-01", "qwen3-coder-30b"),
    ]
    assert rows[0][3] == {"CWD_OBJECT_MISUSE": 4} and rows[1][2] == {"qwen3-coder": 1}


def test_export_never_writes_into_a_directory_that_holds_files(log: str, tmp_path: Path) -> None:
    target = tmp_path / "parquet"
    target.mkdir()
    (target / "keep.txt").write_text("mine")
    done = run(log, "--export", "parquet", str(target))
    assert done.returncode == 2
    assert "exists and is not empty" in done.stderr
    assert [p.name for p in target.iterdir()] == ["keep.txt"]


def test_without_the_report_extra_the_command_says_how_to_get_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], log: str
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "duckdb" else real(name, *a)
    )
    with pytest.raises(SystemExit) as exit_:
        cli.main(["report", log])
    assert exit_.value.code == 2
    assert capsys.readouterr().err == (
        "toolmend: error: toolmend report needs duckdb: pip install 'toolmend[report]'\n"
    )
