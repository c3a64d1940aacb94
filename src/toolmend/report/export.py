"""`--export parquet DIR`: the selected, normalised events as Parquet, partitioned by day.

This module owns the export: DuckDB writes the `events` view (one row per log line, typed
columns, count maps as MAP(VARCHAR, BIGINT)) to `DIR/day=YYYY-MM-DD/*.parquet`, a Hive layout
any engine a team already runs (DuckDB, Spark, Trino, pandas, Polars) reads as one table. It
never overwrites: a directory that already holds files is refused.
"""

from __future__ import annotations

from pathlib import Path

from toolmend.report.sources import ReportError
from toolmend.report.store import LogStore, sql_text


def export_parquet(store: LogStore, directory: str) -> int:
    """Write the store's `events` under `directory`; return how many rows were written."""
    target = Path(directory)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise ReportError(f"export directory {directory} exists and is not empty")
    target.mkdir(parents=True, exist_ok=True)
    row = store.connection.execute(
        "COPY (SELECT *, strftime(ts, '%Y-%m-%d') AS day FROM events) "
        f"TO {sql_text(str(target))} (FORMAT parquet, PARTITION_BY (day), "
        "OVERWRITE_OR_IGNORE true)"
    ).fetchone()
    return int(row[0]) if row else 0
