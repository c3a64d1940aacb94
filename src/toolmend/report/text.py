"""A report as plain-text tables for a terminal (`--format table`).

This module owns the wording and layout people read in a terminal: what was read (and what
was not usable), the per-model tables, each model's dominant failure modes as shares, and the
breakdowns. It never computes a number (that is `aggregate`); it only formats the `Report`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from toolmend.report.store import LINE_KINDS, InputSummary
from toolmend.report.summary import ModelSummary, Percentiles, Report

#: Rows per model shown in a breakdown table; the JSON format holds them all.
BREAKDOWN_ROWS = 10
#: Failure modes named per model in the "what fails" table.
DOMINANT_MODES = 3
LINE_KIND_WORDS = {
    "log": "log lines",
    "truncated": "truncated",
    "not_json": "not JSON",
    "other_schema": "other schema",
    "invalid": "invalid log lines",
    "too_long": "too long",
}
#: The columns of the requests table, after the model.
REQUEST_COLUMNS: tuple[tuple[str, Callable[[ModelSummary], int]], ...] = (
    ("requests", lambda m: m.requests),
    ("failed", lambda m: m.failed_requests),
    ("upstream errors", lambda m: m.upstream_errors),
    ("tool calls", lambda m: m.tool_calls),
    ("recovered", lambda m: m.recovered),
    ("repairs", lambda m: m.repairs),
    ("rejected", lambda m: m.rejected),
    ("guidance", lambda m: m.guidance),
    ("loops broken", lambda m: m.loops_broken),
    ("self-corrections", lambda m: m.self_corrections),
    ("then valid", lambda m: m.self_corrections_ok),
)
#: The breakdown tables: title, the column naming the key, and where the counts are.
BREAKDOWN_TABLES: tuple[tuple[str, str, Callable[[ModelSummary], dict[str, int]]], ...] = (
    ("Calls recovered from text, by protocol", "protocol", lambda m: m.recovered_by_protocol),
    ("Repairs, by kind", "kind", lambda m: m.repairs_by_kind),
    ("Guidance, by category", "category", lambda m: m.guidance_by_category),
    ("Guidance, by pattern", "pattern", lambda m: m.guidance_by_pattern),
    ("Diagnostics, by code", "code", lambda m: m.diagnostics_by_code),
    ("Upstream errors, by kind", "kind", lambda m: m.upstream_errors_by_kind),
)


def _n(value: int) -> str:
    return f"{value:,}"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def _share(value: float) -> str:
    return f"{value:.0%}" if value >= 0.01 else "<1%"


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], align: str = "") -> list[str]:
    """Columns padded to their widest cell; `align` says `l` or `r` per column (default: the
    first left, numbers right)."""
    widths = [max(len(row[i]) for row in [headers, *rows]) for i in range(len(headers))]
    align = align or "l" + "r" * (len(headers) - 1)

    def line(cells: Sequence[str]) -> str:
        padded = (
            cell.ljust(width) if how == "l" else cell.rjust(width)
            for cell, width, how in zip(cells, widths, align, strict=True)
        )
        return "  ".join(padded).rstrip()

    return [line(headers), *(line(row) for row in rows)]


def input_lines(seen: InputSummary) -> list[str]:
    """What was read, and every file or line that was not a usable log line."""
    counts = ", ".join(
        f"{_n(seen.lines[kind])} {LINE_KIND_WORDS[kind]}"
        for kind in LINE_KINDS
        if seen.lines[kind] or kind == "log"
    )
    total = sum(seen.lines.values())
    out = [f"read {_n(seen.files)} file(s), {_n(total)} line(s): {counts}"]
    if seen.other_schemas:
        schemas = ", ".join(f"{name}: {_n(n)}" for name, n in seen.other_schemas.most_common())
        out.append(f"  other schemas (not read): {schemas}")
    out += [f"  skipped {s.path}: {s.reason}" for s in seen.skipped_files]
    out += [f"  no log line in {path}" for path in seen.non_log_files]
    out += [
        f"  {path}: gzip stream ends early; read up to the cut" for path in seen.cut_short_files
    ]
    return out


def _latency(p: Percentiles) -> list[str]:
    return [_ms(p.p50), _ms(p.p90), _ms(p.p99)]


def requests_rows(rows: list[ModelSummary]) -> tuple[list[str], list[list[str]]]:
    """The requests table (headers, rows), as text and HTML both show it."""
    headers = ["model", *(name for name, _ in REQUEST_COLUMNS)]
    return headers, [[m.model, *(_n(of(m)) for _, of in REQUEST_COLUMNS)] for m in rows]


def _latency_table(rows: list[ModelSummary]) -> list[str]:
    headers = ["model", "latency p50", "p90", "p99", "first chunk p50", "p90", "p99"]
    return table(headers, [[m.model, *_latency(m.latency_ms), *_latency(m.ttfc_ms)] for m in rows])


def failures_rows(rows: list[ModelSummary]) -> tuple[list[str], list[list[str]]]:
    """The "what fails" table (headers, rows): each model's dominant failure modes as shares."""
    body = []
    for m in rows:
        top = " · ".join(
            f"{mode.mode} {_share(mode.share)}" for mode in m.failure_modes[:DOMINANT_MODES]
        )
        body.append([m.model, _n(m.failures), top or "-"])
    return ["model", "failures", "dominant failure modes (share of the model's)"], body


def _breakdown_table(
    key_name: str, rows: list[ModelSummary], counts_of: Callable[[ModelSummary], dict[str, int]]
) -> list[str]:
    body = []
    for m in rows:
        counts = counts_of(m)
        total = sum(counts.values())
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        body += [[m.model, key, _n(n), _share(n / total)] for key, n in ranked[:BREAKDOWN_ROWS]]
        if len(ranked) > BREAKDOWN_ROWS:
            body.append([m.model, f"… {len(ranked) - BREAKDOWN_ROWS} more", "", ""])
    return table(["model", key_name, "count", "share"], body, align="llrr") if body else ["(none)"]


def render_table(report: Report) -> str:
    """The whole report as text, ending in a newline."""
    out = ["toolmend report", *input_lines(report.input)]
    if report.overall is None:
        out += ["", f"Nothing to report: {report.empty_reason}."]
        return "\n".join(out) + "\n"
    overall = report.overall
    rows = [overall, *report.models]
    out[0] += f": {_n(overall.requests)} requests, {overall.first_ts} to {overall.last_ts}"
    sections = [
        ("Requests and tool calls", table(*requests_rows(rows))),
        ("Latency and time to first chunk (ms)", _latency_table(rows)),
        ("What fails, by model", table(*failures_rows(rows), align="lrl")),
        *((title, _breakdown_table(key, rows, of)) for title, key, of in BREAKDOWN_TABLES),
    ]
    for title, lines in sections:
        out += ["", title, *lines]
    return "\n".join(out) + "\n"
