"""Reading logs: every line judged and counted, bad files set aside with a reason, never a crash."""

from __future__ import annotations

import gzip
import json
from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolmend.report.sources import ReportError
from toolmend.report.store import MAX_LINE_BYTES, LogStore

from .logs import Line, record, store_of, text_of, write_log

TRUNCATED = '{"schema":"toolmend.request/1","ts":"2026-12-01T09:14:03.412Z","model":"qwen3-co'
OTHER_SCHEMA = {"schema": "toolmend.request/2", "ts": "2026-12-01T09:14:03.412Z", "model": "m"}
#: What ends up in a log file besides the proxy's lines: a traceback, a uvicorn access line.
NOT_JSON = [
    "Traceback (most recent call last):",
    'INFO:     127.0.0.1:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
    "[1, 2, 3]",
]


def test_each_kind_of_bad_line_is_counted_beside_the_log_lines(tmp_path: Path) -> None:
    lines: list[Line] = [record(), TRUNCATED, OTHER_SCHEMA, *NOT_JSON, "", record(ts="yesterday")]
    with store_of(tmp_path, lines) as store:
        assert dict(store.input.lines) == {
            "log": 1,
            "truncated": 1,
            "other_schema": 1,
            "not_json": 3,
            "invalid": 1,
        }
        assert dict(store.input.other_schemas) == {"toolmend.request/2": 1}
        assert store.select() == 1


def test_windows_line_ends_a_byte_order_mark_and_indentation_do_not_hide_a_line(
    tmp_path: Path,
) -> None:
    line = json.dumps(record())
    data = "\ufeff" + "\r\n".join([line, "  " + line + "\t", "\t" + line]) + "\r\n"
    (tmp_path / "windows.log").write_bytes(data.encode())
    with LogStore([str(tmp_path)]) as store:
        assert dict(store.input.lines) == {"log": 3}


def test_a_line_of_another_schema_version_is_never_read_as_a_request(tmp_path: Path) -> None:
    newer = record(schema="toolmend.request/2")
    unversioned = {k: v for k, v in record().items() if k != "schema"}
    with store_of(tmp_path, [newer, unversioned]) as store:
        assert store.select() == 0
        assert dict(store.input.other_schemas) == {
            "toolmend.request/2": 1,
            "(no schema field)": 1,
        }


def test_a_count_of_the_wrong_type_reads_as_zero_and_keeps_the_line(tmp_path: Path) -> None:
    line = record(tool_calls="many", recovered={"hermes": "two", "gemma4": 1}, repairs=[1])
    with store_of(tmp_path, [line]) as store:
        store.select()
        row = store.connection.execute(
            "SELECT tool_calls, recovered, repairs, status FROM events"
        ).fetchone()
        assert row == (0, {"gemma4": 1}, {}, 200)


def test_a_line_over_the_limit_is_counted_too_long_and_the_rest_is_read(tmp_path: Path) -> None:
    huge = record(content={"response_text": "x" * MAX_LINE_BYTES})  # --log-content run away
    with store_of(tmp_path, [record(), huge, record()]) as store:
        assert dict(store.input.lines) == {"log": 2, "too_long": 1}
        assert store.select() == 2


def test_a_binary_file_is_skipped_with_its_reason(tmp_path: Path) -> None:
    write_log(tmp_path / "a.log", [record()])
    (tmp_path / "core.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with LogStore([str(tmp_path)]) as store:
        assert store.input.files == 2
        [skipped] = store.input.skipped_files
        assert skipped.path.endswith("core.png")
        assert "binary" in skipped.reason
        assert store.select() == 1


def test_a_gz_name_on_data_that_is_not_gzip_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "toolmend.log.gz").write_text(text_of([record()]))
    with LogStore([str(tmp_path)]) as store:
        [skipped] = store.input.skipped_files
        assert "not gzip" in skipped.reason
        assert store.select() == 0


def test_gzip_logs_read_the_same_as_plain_ones(tmp_path: Path) -> None:
    lines: list[Line] = [record(model="a"), record(model="b"), TRUNCATED]
    write_log(tmp_path / "plain" / "toolmend.log", lines)
    write_log(tmp_path / "packed" / "toolmend.log.gz", lines)
    query = "SELECT model, tool_calls, recovered FROM events ORDER BY model"
    with LogStore([str(tmp_path / "plain")]) as plain, LogStore([str(tmp_path / "packed")]) as gz:
        assert plain.select() == gz.select() == 2
        assert plain.connection.execute(query).fetchall() == gz.connection.execute(query).fetchall()
        assert plain.input.lines == gz.input.lines


def test_a_gzip_stream_cut_short_still_counts_its_lines_up_to_the_cut(tmp_path: Path) -> None:
    lines = [record(request_id=f"req_{n}", model=f"model-{n % 7}") for n in range(2000)]
    whole = gzip.compress(text_of(lines).encode())
    cut = tmp_path / "rotated.log.gz"
    cut.write_bytes(whole[: len(whole) // 2])  # a replica's log copied while it was written
    write_log(tmp_path / "other.log", [record(), "a line with a \x01 control character"])
    with LogStore([str(tmp_path)]) as store:
        assert store.input.cut_short_files == [str(cut)]
        assert store.input.lines["not_json"] == 1  # counted once, though read in a second pass
        read = store.select() - 1
        assert 0 < read < 2000
        assert store.input.lines["truncated"] <= 1  # the line the cut went through
        assert store.input.skipped_files == []


def test_a_small_gzip_cut_early_keeps_every_line_before_the_cut(tmp_path: Path) -> None:
    lines = [record(request_id=f"req_{n}") for n in range(40)]
    whole = gzip.compress(text_of(lines).encode())
    (tmp_path / "early.log.gz").write_bytes(whole[: len(whole) - 30])  # only the end is lost
    with LogStore([str(tmp_path)]) as store:
        assert 30 <= store.select() < 40
        assert store.input.lines["truncated"] <= 1


def test_gzip_members_written_one_after_another_are_each_salvaged(tmp_path: Path) -> None:
    first = gzip.compress(text_of([record(request_id=f"a{n}") for n in range(20)]).encode())
    second = gzip.compress(text_of([record(request_id=f"b{n}") for n in range(20)]).encode())
    (tmp_path / "joined.log.gz").write_bytes(first + second[: len(second) - 30])
    with LogStore([str(tmp_path)]) as store:
        assert store.input.cut_short_files
        assert store.select() > 20


def test_one_broken_file_among_many_costs_a_few_scans_not_one_per_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(64):
        write_log(tmp_path / f"r{n:02d}.log", [record(request_id=f"req_{n}")])
    whole = gzip.compress(text_of([record()] * 50).encode())
    (tmp_path / "r99.log.gz").write_bytes(whole[: len(whole) // 2])
    scans: list[int] = []
    real_scan = LogStore._scan

    def counted(store: LogStore, files: list[str], label: str | None = None) -> None:
        scans.append(len(files))
        real_scan(store, files, label)

    monkeypatch.setattr(LogStore, "_scan", counted)
    with LogStore([str(tmp_path)]) as store:
        assert store.select() >= 64
        assert store.input.skipped_files == []
    assert len(scans) <= 2 * 7 + 2  # halving 65 files down to the one: two scans per level


def test_a_directory_is_read_recursively_and_a_file_without_log_lines_is_named(
    tmp_path: Path,
) -> None:
    write_log(tmp_path / "replica-1" / "toolmend.log", [record()])
    write_log(tmp_path / "replica-2" / "deep" / "toolmend.log", [record()])
    notes = write_log(tmp_path / "notes.txt", ["remember to rotate the logs"])
    write_log(tmp_path / ".hidden" / "toolmend.log", [record()])
    with LogStore([str(tmp_path)]) as store:
        assert store.input.files == 3
        assert store.select() == 2
        assert store.input.non_log_files == [str(notes)]


def test_a_glob_over_replicas_reads_every_matching_file_once(tmp_path: Path) -> None:
    for n in range(5):
        suffix = ".log.gz" if n % 2 else ".log"
        write_log(tmp_path / f"replica-{n}" / f"toolmend{suffix}", [record(upstream=f"r{n}")])
    pattern = str(tmp_path / "replica-*" / "toolmend.log*")
    with LogStore([pattern, str(tmp_path / "replica-0")]) as store:
        assert store.input.files == 5
        assert store.select() == 5


def test_a_glob_that_matches_nothing_is_an_empty_selection(tmp_path: Path) -> None:
    with LogStore([str(tmp_path / "nothing-*.log")]) as store:
        assert store.input.files == 0
        assert store.select() == 0


def test_a_missing_path_is_a_caller_error(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="no such file or directory"):
        LogStore([str(tmp_path / "missing.log")])


def test_the_selection_is_a_half_open_time_window_and_model_globs(tmp_path: Path) -> None:
    lines: list[Line] = [
        record(ts="2026-12-01T08:59:59.999Z", model="qwen3-coder-30b"),
        record(ts="2026-12-01T09:00:00.000Z", model="qwen3-coder-30b"),
        record(ts="2026-12-01T10:00:00.000Z", model="mimo-v2-flash"),
        record(ts="2026-12-01T09:30:00.000+01:00", model="gemma-4-27b"),  # 08:30 UTC
    ]
    with store_of(tmp_path, lines) as store:
        assert store.select(since=datetime(2026, 12, 1, 9)) == 2
        assert store.select(until=datetime(2026, 12, 1, 9)) == 2
        assert store.select(since=datetime(2026, 12, 1, 9), until=datetime(2026, 12, 1, 10)) == 1
        assert store.select(models=["qwen3-*"]) == 2
        assert store.select(models=["mimo*", "gemma*"]) == 2
        assert store.select(models=["it's-*"]) == 0  # a quote in a glob is a literal


LINE_KINDS = {
    "log": record(),
    "truncated": TRUNCATED,
    "other_schema": OTHER_SCHEMA,
    "not_json": NOT_JSON[0],
    "invalid": record(model=None),
}


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    kinds=st.lists(st.sampled_from(sorted(LINE_KINDS)), max_size=30),
    files=st.integers(min_value=1, max_value=4),
    gz=st.booleans(),
)
def test_every_line_is_counted_once_however_lines_are_spread_over_files(
    tmp_path_factory: pytest.TempPathFactory, kinds: list[str], files: int, gz: bool
) -> None:
    root = tmp_path_factory.mktemp("logs")
    for n in range(files):
        mine = [LINE_KINDS[k] for k in kinds[n::files]]
        write_log(root / f"replica-{n}.log{'.gz' if gz else ''}", mine)
    with LogStore([str(root)]) as store:
        expected = {k: kinds.count(k) for k in LINE_KINDS if kinds.count(k)}
        assert dict(store.input.lines) == expected
        assert store.select() == kinds.count("log")


def test_a_record_keeps_every_field_the_schema_defines(tmp_path: Path) -> None:
    line = record(
        error={"type": "upstream_timeout", "message": "no answer in 60 s"},
        upstream_status=None,
        status=504,
        recovered={"hermes": 2},
        guidance={"TOOL_NOT_FOUND": 1},
        guidance_patterns={"EI/TOOL_NOT_FOUND/001": 1},
    )
    with store_of(tmp_path, [line]) as store:
        store.select()
        cursor = store.connection.execute("SELECT * FROM events")
        row = dict(zip([d[0] for d in cursor.description], cursor.fetchone() or (), strict=True))
    assert row["ts"] == datetime(2026, 12, 1, 9, 14, 3, 412000)
    assert (row["status"], row["upstream_status"], row["error_type"]) == (
        504,
        None,
        "upstream_timeout",
    )
    assert row["recovered"] == {"hermes": 2}
    assert row["guidance_patterns"] == {"EI/TOOL_NOT_FOUND/001": 1}
    assert (row["prompt_tokens"], row["completion_tokens"]) == (1200, 80)
    assert json.dumps(row, default=str)  # nothing in a record that JSON cannot hold
