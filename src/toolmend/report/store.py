"""The proxy's log lines, read and normalised into DuckDB: one row per line, each line judged.

This module owns reading: every selected file is scanned by DuckDB as plain lines (plain or
`.gz`, many files in one scan), each line is classified (`log`, `truncated`, `not_json`,
`other_schema`, `invalid`, `too_long`, `blank`) and a `toolmend.request/1` line is normalised into
typed columns (missing counts are zero, as docs/log-schema.md says). It builds the `events` view
a report aggregates over (the log lines inside the time window and model globs). It never
aggregates (that is `aggregate`) and never guesses at a line of another schema version.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any

import duckdb

from toolmend.report.sources import SkippedFile, salvage_gzip, select_files

SCHEMA = "toolmend.request/1"
#: The longest line read; longer lines are counted as `too_long`. A line with `--log-content`
#: holds a whole request, so this is far above a plain line (~1 KB), and bounded so one runaway
#: line cannot take the reader's memory.
MAX_LINE_BYTES = 16 * 1024 * 1024
#: DuckDB's memory ceiling: past it, it spills to the report's scratch directory. A month of
#: logs (a million lines) needs about 500 MB resident; this keeps a report under 1 GiB.
MEMORY_LIMIT = "640MB"
#: JSON text never holds a raw control character, so splitting on one reads each line whole.
NEVER_IN_A_LOG_LINE = "\x01"
COUNT_MAP = "MAP(VARCHAR, BIGINT)"
#: The fields read from a line, with the types docs/log-schema.md gives them. A value of the
#: wrong type reads as NULL (then zero for a count), never as an error.
LINE_STRUCTURE = (
    "{"
    '"schema": "VARCHAR", "ts": "VARCHAR", "request_id": "VARCHAR", "endpoint": "VARCHAR",'
    '"model": "VARCHAR", "upstream": "VARCHAR", "mode": "VARCHAR", "stream": "BOOLEAN",'
    '"status": "INTEGER", "upstream_status": "INTEGER", "error": {"type": "VARCHAR"},'
    '"latency_ms": "DOUBLE", "ttfc_ms": "DOUBLE", "tool_calls": "BIGINT",'
    f'"recovered": "{COUNT_MAP}", "repairs": "{COUNT_MAP}", "rejected": "BIGINT",'
    f'"diagnostics": "{COUNT_MAP}", "guidance": "{COUNT_MAP}",'
    f'"guidance_patterns": "{COUNT_MAP}", "loops_broken": "BIGINT",'
    '"self_corrections": "BIGINT", "self_correction_ok": "BIGINT",'
    '"usage": {"prompt_tokens": "BIGINT", "completion_tokens": "BIGINT"}'
    "}"
)
#: The kinds of line, in the order a report lists them.
LINE_KINDS = ("log", "truncated", "not_json", "other_schema", "invalid", "too_long")

_RECORDS_DDL = f"""
CREATE TABLE records (
    file VARCHAR, kind VARCHAR, other_schema VARCHAR,
    ts TIMESTAMP, request_id VARCHAR, endpoint VARCHAR, model VARCHAR, upstream VARCHAR,
    mode VARCHAR, stream BOOLEAN, status INTEGER, upstream_status INTEGER, error_type VARCHAR,
    latency_ms DOUBLE, ttfc_ms DOUBLE, tool_calls BIGINT, recovered {COUNT_MAP},
    repairs {COUNT_MAP}, rejected BIGINT, diagnostics {COUNT_MAP}, guidance {COUNT_MAP},
    guidance_patterns {COUNT_MAP}, loops_broken BIGINT, self_corrections BIGINT,
    self_correction_ok BIGINT, prompt_tokens BIGINT, completion_tokens BIGINT
)"""


def _count(expr: str) -> str:
    return f"coalesce({expr}, 0)"


def _count_map(expr: str) -> str:
    """A count map without NULL or non-positive values (a bad value reads as a zero count)."""
    empty = f"MAP {{}}::{COUNT_MAP}"
    kept = f"map_from_entries(list_filter(map_entries({expr}), lambda e: e.value > 0))"
    # Most lines hold empty maps: they skip the filter (a fifth of the reading time otherwise).
    return f"CASE WHEN cardinality({expr}) > 0 THEN {kept} ELSE {empty} END"


_INSERT = f"""
INSERT INTO records
WITH lines AS (
    SELECT coalesce(?, filename) AS file, trim(line, ' \t') AS line
    FROM read_csv(?, columns = {{'line': 'VARCHAR'}}, delim = '{NEVER_IN_A_LOG_LINE}',
                  quote = '', escape = '', header = false, auto_detect = false,
                  filename = true, max_line_size = {MAX_LINE_BYTES},
                  buffer_size = {2 * MAX_LINE_BYTES}, ignore_errors = true,
                  store_rejects = true)
), parsed AS (
    SELECT file, line,
        CASE WHEN line[1] = '{{' THEN try(json_transform(line, '{LINE_STRUCTURE}')) END AS r
    FROM lines
), timed AS (
    SELECT *, try_cast(r.ts AS TIMESTAMPTZ)::TIMESTAMP AS ts FROM parsed
), judged AS (
    SELECT *,
        CASE WHEN line IS NULL OR line = '' THEN 'blank'
             WHEN line[1] <> '{{' THEN 'not_json'
             WHEN r IS NULL THEN 'truncated'
             WHEN r.schema IS DISTINCT FROM '{SCHEMA}' THEN 'other_schema'
             WHEN ts IS NULL OR r.model IS NULL THEN 'invalid'
             ELSE 'log' END AS kind
    FROM timed
)
SELECT file, kind,
    CASE WHEN kind = 'other_schema' THEN coalesce(r.schema, '(no schema field)') END,
    ts, r.request_id, r.endpoint, r.model, r.upstream, r.mode, r.stream, r.status,
    r.upstream_status, r.error.type, r.latency_ms, r.ttfc_ms, {_count("r.tool_calls")},
    {_count_map("r.recovered")}, {_count_map("r.repairs")}, {_count("r.rejected")},
    {_count_map("r.diagnostics")}, {_count_map("r.guidance")},
    {_count_map("r.guidance_patterns")}, {_count("r.loops_broken")},
    {_count("r.self_corrections")}, {_count("r.self_correction_ok")},
    r.usage.prompt_tokens, r.usage.completion_tokens
FROM judged
"""

#: What a file's content (not a mistake in this module's SQL) can make a scan raise.
DATA_ERRORS = (duckdb.IOException, duckdb.InvalidInputException, duckdb.ConversionException)

_REJECTS = """
SELECT s.file_path, e.error_type, count(*)
FROM reject_errors e JOIN reject_scans s USING (scan_id, file_id)
GROUP BY ALL
"""


def sql_text(value: str) -> str:
    """A SQL string literal (a view's definition cannot take parameters)."""
    return "'" + value.replace("'", "''") + "'"


@dataclass
class InputSummary:
    """What was read: files, lines by kind, and everything that was not a usable log line."""

    files: int = 0
    lines: Counter[str] = field(default_factory=Counter)
    other_schemas: Counter[str] = field(default_factory=Counter)
    skipped_files: list[SkippedFile] = field(default_factory=list)
    #: Files read whole in which not one line was a toolmend log line.
    non_log_files: list[str] = field(default_factory=list)
    #: `.gz` files whose stream ends early; their lines up to the cut were read.
    cut_short_files: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "lines": {kind: self.lines[kind] for kind in LINE_KINDS},
            "other_schemas": dict(self.other_schemas.most_common()),
            "skipped_files": [{"path": s.path, "reason": s.reason} for s in self.skipped_files],
            "non_log_files": self.non_log_files,
            "cut_short_files": self.cut_short_files,
        }


class LogStore:
    """An in-memory DuckDB database holding the selected log lines, judged and normalised.

    Use as a context manager; `connection` runs queries over `records` and `events`.
    """

    def __init__(self, paths: list[str]) -> None:
        self._scratch = tempfile.TemporaryDirectory(prefix="toolmend-report-")
        self.connection = duckdb.connect()
        self.connection.execute("SET TimeZone = 'UTC'")
        self.connection.execute(f"SET temp_directory = {sql_text(self._scratch.name)}")
        self.connection.execute(f"SET memory_limit = '{MEMORY_LIMIT}'")
        # Rows need no order (reports aggregate; the export partitions): less memory to write.
        self.connection.execute("SET preserve_insertion_order = false")
        self.connection.execute(_RECORDS_DDL)
        #: Lines the CSV reader itself refused, per file, by kind.
        self._rejected: dict[str, Counter[str]] = {}
        try:
            selection = select_files(paths)
            self.input = InputSummary(
                files=selection.file_count, skipped_files=list(selection.skipped)
            )
            self._load(selection.readable)
            self._summarise()
            self.select()
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> LogStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self.connection.close()
        self._scratch.cleanup()

    def _scan(self, files: list[str], label: str | None = None) -> None:
        try:
            self.connection.execute(_INSERT, [label, files])
            for path, error_type, n in self.connection.execute(_REJECTS).fetchall():
                kind = "too_long" if "LINE SIZE" in error_type else "not_json"
                self._rejected[label or path][kind] += n
        finally:
            # Each scan adds to the reject tables, a failed one too: the next counts only its own.
            self.connection.execute(
                "DROP TABLE IF EXISTS reject_errors; DROP TABLE IF EXISTS reject_scans"
            )

    def _load(self, files: list[str]) -> None:
        for file in files:
            self._rejected[file] = Counter()
        if files:
            self._load_group(files)

    def _load_group(self, files: list[str]) -> None:
        """Scan files in one go; when one breaks the scan, halve the group until it is found.

        A failed scan inserts nothing (one statement), so each half is simply scanned again:
        one bad file among a thousand costs about twenty scans, not a thousand.
        """
        try:
            self._scan(files)
            return
        except DATA_ERRORS as exc:
            reason = str(exc).splitlines()[0]
        if len(files) > 1:
            half = len(files) // 2
            self._load_group(files[:half])
            self._load_group(files[half:])
            return
        [file] = files
        if file.endswith(".gz"):
            try:
                self._scan([salvage_gzip(file, Path(self._scratch.name))], label=file)
                self.input.cut_short_files.append(file)
                return
            except DATA_ERRORS as exc:
                reason = str(exc).splitlines()[0]
        self.input.skipped_files.append(SkippedFile(file, reason))
        del self._rejected[file]

    def _summarise(self) -> None:
        per_file: dict[str, Counter[str]] = {f: Counter(c) for f, c in self._rejected.items()}
        rows = self.connection.execute(
            "SELECT file, kind, count(*) FROM records WHERE kind <> 'blank' GROUP BY ALL"
        ).fetchall()
        for file, kind, n in rows:
            per_file.setdefault(file, Counter())[kind] += n
        for file in sorted(per_file):
            counts = per_file[file]
            self.input.lines.update(counts)
            if counts["log"] == 0:
                self.input.non_log_files.append(file)
        self.input.other_schemas.update(
            dict(
                self.connection.execute(
                    "SELECT other_schema, count(*) FROM records "
                    "WHERE kind = 'other_schema' GROUP BY ALL"
                ).fetchall()
            )
        )

    def select(
        self,
        since: datetime | None = None,
        until: datetime | None = None,
        models: list[str] | None = None,
    ) -> int:
        """Make `events` the log lines in [since, until) whose model matches a glob; count them.

        Times are UTC without a zone, as `records.ts` is.
        """
        where = ["kind = 'log'"]
        if since is not None:
            where.append(f"ts >= TIMESTAMP {sql_text(since.isoformat(sep=' '))}")
        if until is not None:
            where.append(f"ts < TIMESTAMP {sql_text(until.isoformat(sep=' '))}")
        if models:
            where.append("(" + " OR ".join(f"model GLOB {sql_text(m)}" for m in models) + ")")
        self.connection.execute(
            "CREATE OR REPLACE VIEW events AS SELECT * EXCLUDE (kind, other_schema) "
            f"FROM records WHERE {' AND '.join(where)}"
        )
        row = self.connection.execute("SELECT count(*) FROM events").fetchone()
        return int(row[0]) if row else 0
