"""The `toolmend report` subcommand: its options, and the run from paths to printed report.

    toolmend report [PATH ...] [--since T] [--until T] [--model GLOB] [--format table|json|html]
                    [--out FILE] [--export parquet DIR]

This module owns the command line of the report and the reading of its times (`2026-12-01`,
`2026-12-01T09:00Z`, or `24h` / `7d` ago). It imports DuckDB and Plotly only when it runs, so
`toolmend` works without the `report` extra and says how to get it. Mistakes of the caller
raise `ReportError` (the CLI prints one line and exits 2); bad log lines are data in the report.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import shutil
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolmend.report.sources import ReportError

if TYPE_CHECKING:  # the summary imports DuckDB, which the CLI must not need to start
    from toolmend.report.summary import Report

FORMATS = ("table", "json", "html")
EXPORT_FORMATS = ("parquet",)
RELATIVE_TIME = re.compile(r"(\d+)\s*([mhdw])")
UNIT_MINUTES = {"m": 1, "h": 60, "d": 1440, "w": 10080}
EXTRA_HINT = "pip install 'toolmend[report]'"


def add_parser(commands: Any) -> None:
    """Add `report` to the CLI's subcommands (`commands` is argparse's subparsers action)."""
    p = commands.add_parser(
        "report",
        help="what went wrong, by model and category, from the proxy's log lines",
        description="Read the proxy's JSON log lines (files, directories, globs, .gz) and report "
        "per model and overall: requests, tool calls, recoveries, repairs, rejections, "
        "guidance, loops broken, self-corrections, upstream errors, latency.",
    )
    p.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="log files, directories or quoted globs ('logs/*/toolmend.log*'); none: stdin",
    )
    p.add_argument("--since", metavar="T", help="from this time on: 2026-12-01[T09:00Z] or 24h")
    p.add_argument("--until", metavar="T", help="before this time (same forms as --since)")
    p.add_argument(
        "--model",
        action="append",
        metavar="GLOB",
        help="only models matching this glob (repeatable)",
    )
    p.add_argument("--format", choices=FORMATS, default="table", help="default: table")
    p.add_argument("--out", metavar="FILE", help="write the report here instead of stdout")
    p.add_argument(
        "--export",
        nargs=2,
        metavar=("FORMAT", "DIR"),
        help="also write the selected events as Parquet partitioned by day: --export parquet DIR",
    )


def parse_time(text: str, now: datetime) -> datetime:
    """A UTC time without a zone from an ISO date/time or an age such as `24h` (before `now`)."""
    relative = RELATIVE_TIME.fullmatch(text.strip())
    if relative:
        minutes = int(relative.group(1)) * UNIT_MINUTES[relative.group(2)]
        return now - timedelta(minutes=minutes)
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ReportError(
            f"not a time: {text!r} (use 2026-12-01, 2026-12-01T09:00Z, or an age: 30m 24h 7d 2w)"
        ) from None
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment


def _require(module: str, what: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise ReportError(f"{what} needs {module}: {EXTRA_HINT}")


def _render(report: Report, form: str) -> str:
    if form == "json":
        return json.dumps(report.to_dict(), ensure_ascii=False, indent=2) + "\n"
    if form == "html":
        from toolmend.report.html import render_html

        return render_html(report)
    from toolmend.report.text import render_table

    text: str = render_table(report)
    return text


def run(args: argparse.Namespace) -> int:
    """Run `toolmend report` with parsed arguments; print or write the report; return 0."""
    _require("duckdb", "toolmend report")
    if args.format == "html":
        _require("plotly", "toolmend report --format html")
    if args.export and args.export[0] not in EXPORT_FORMATS:
        raise ReportError(f"--export knows only parquet, not {args.export[0]!r}")
    if args.format == "html" and not args.out and sys.stdout.isatty():
        raise ReportError("--format html writes a whole page: give --out FILE or redirect")
    from toolmend.report.aggregate import build_report
    from toolmend.report.export import export_parquet
    from toolmend.report.store import LogStore

    now = datetime.now(UTC).replace(tzinfo=None)
    since = parse_time(args.since, now) if args.since else None
    until = parse_time(args.until, now) if args.until else None
    selection = {
        "paths": args.paths or ["-"],
        "since": since.isoformat() if since else None,
        "until": until.isoformat() if until else None,
        "models": args.model or [],
    }
    with tempfile.TemporaryDirectory(prefix="toolmend-stdin-") as spool:
        paths = args.paths or [_spool_stdin(Path(spool))]
        with LogStore(paths) as store:
            selected = store.select(since, until, args.model)
            report = build_report(store, selection, selected)
            if args.export:
                written = export_parquet(store, args.export[1])
                print(
                    f"toolmend report: exported {written:,} events to {args.export[1]}",
                    file=sys.stderr,
                )
    output = _render(report, args.format)
    if not args.out:
        sys.stdout.write(output)
        return 0
    try:
        Path(args.out).write_text(output, encoding="utf-8")
    except OSError as exc:
        raise ReportError(f"cannot write {args.out}: {exc.strerror or exc}") from None
    return 0


def _spool_stdin(directory: Path) -> str:
    """Standard input copied to a file, so DuckDB can scan it like any log."""
    if sys.stdin.isatty():
        raise ReportError("give log files, directories or globs, or pipe log lines in")
    target = directory / "stdin.log"
    with open(target, "wb") as out:
        shutil.copyfileobj(sys.stdin.buffer, out)
    return str(target)
