"""The report's numbers, computed by DuckDB over the `events` view of a `LogStore`.

This module owns the queries: per-model and overall sums, percentiles and breakdowns (one
GROUPING SETS query each, so the overall row is computed by the engine and not summed here),
the timeline and the latency histograms, and each model's failure modes as shares. It never
reads files (that is `store`) and never formats (that is `text` and `html`).
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import Any

from toolmend.report.store import LogStore
from toolmend.report.summary import (
    ALL_MODELS,
    FailureMode,
    HistogramBin,
    ModelSummary,
    Percentiles,
    Report,
    TimelinePoint,
)

#: An upstream error: the upstream answered 400 or more, or was never reached and the client got
#: a 5xx (a request refused by the proxy itself before it went upstream is not one).
UPSTREAM_ERROR = "(upstream_status >= 400 OR (upstream_status IS NULL AND status >= 500))"
#: The count maps of a log line, by the name the report gives their breakdown.
BREAKDOWNS = {
    "recovered_by_protocol": "recovered",
    "repairs_by_kind": "repairs",
    "diagnostics_by_code": "diagnostics",
    "guidance_by_category": "guidance",
    "guidance_by_pattern": "guidance_patterns",
}
#: Timeline bucket widths in minutes, smallest first; a report takes the smallest that keeps
#: the timeline within MAX_TIMELINE_BUCKETS points (readable as a chart, small in JSON).
BUCKET_MINUTES = (1, 5, 15, 60, 360, 1440, 10080)
MAX_TIMELINE_BUCKETS = 200
#: Histogram bins per decade of milliseconds (1, 1.6, 2.5, 4, 6.3, 10, …).
BINS_PER_DECADE = 5
#: A duration below this reads as this, so a 0 ms entry has a bin (log scale).
SMALLEST_MS = 0.1
ISO = "%Y-%m-%dT%H:%M:%SZ"

_MODEL = "CASE WHEN grouping(model) = 1 THEN NULL ELSE model END"

_TOTALS = f"""
SELECT {_MODEL}, count(*), count(*) FILTER (WHERE status >= 400),
    count(*) FILTER (WHERE {UPSTREAM_ERROR}), sum(tool_calls), sum(rejected), sum(loops_broken),
    sum(self_corrections), sum(self_correction_ok),
    quantile_cont(latency_ms, [0.5, 0.9, 0.99]), quantile_cont(ttfc_ms, [0.5, 0.9, 0.99]),
    coalesce(sum(prompt_tokens), 0), coalesce(sum(completion_tokens), 0),
    strftime(min(ts), '{ISO}'), strftime(max(ts), '{ISO}')
FROM events GROUP BY GROUPING SETS ((model), ())
"""

_ENTRIES = " UNION ALL ".join(
    f"SELECT model, '{name}' AS measure, unnest(map_entries({column})) AS e FROM events"
    for name, column in BREAKDOWNS.items()
)
_BREAKDOWNS = f"""
WITH flat AS (
    SELECT model, measure, e.key AS key, e.value AS value FROM ({_ENTRIES})
    UNION ALL
    SELECT model, 'upstream_errors_by_kind',
        coalesce(error_type, 'http_' || upstream_status, 'unreachable'), 1
    FROM events WHERE {UPSTREAM_ERROR}
)
SELECT {_MODEL}, measure, key, sum(value)
FROM flat GROUP BY GROUPING SETS ((model, measure, key), (measure, key))
ORDER BY 4 DESC, 3
"""


def _map_total(column: str) -> str:
    return f"coalesce(list_sum(map_values({column})), 0)"


_TIMELINE = f"""
SELECT strftime(time_bucket(INTERVAL (?) MINUTE, ts), '{ISO}') AS bucket, count(*),
    sum({_map_total("recovered")}), sum({_map_total("repairs")}), sum(rejected),
    sum(self_correction_ok), sum({_map_total("guidance")} + {_map_total("diagnostics")})
FROM events GROUP BY bucket ORDER BY bucket
"""


def _histogram_query(column: str) -> str:
    bin_of = f"floor(log10(greatest({column}, {SMALLEST_MS})) * {BINS_PER_DECADE})::INTEGER"
    return f"""
    SELECT {_MODEL}, {bin_of} AS bin, count(*) FROM events WHERE {column} IS NOT NULL
    GROUP BY GROUPING SETS ((model, bin), (bin)) ORDER BY bin
    """


def _percentiles(values: list[float] | None) -> Percentiles:
    p50, p90, p99 = values if values else (None, None, None)
    return Percentiles(p50, p90, p99)


def failure_modes(guidance: dict[str, int], diagnostics: dict[str, int]) -> list[FailureMode]:
    """What a model got wrong, as shares of all of it: tool-error categories and diagnostics."""
    counted = [(mode, "guidance", n) for mode, n in guidance.items()]
    counted += [(mode, "diagnostic", n) for mode, n in diagnostics.items()]
    total = sum(n for _, _, n in counted)
    counted.sort(key=lambda item: (-item[2], item[0]))
    return [FailureMode(mode, source, n, n / total) for mode, source, n in counted]


def _bucket_minutes(first: str, last: str) -> int:
    span = datetime.strptime(last, ISO) - datetime.strptime(first, ISO)
    minutes = span.total_seconds() / 60
    for width in BUCKET_MINUTES:
        if minutes / width < MAX_TIMELINE_BUCKETS:
            return width
    return BUCKET_MINUTES[-1]


def _bucket_name(minutes: int) -> str:
    if minutes % 1440 == 0:
        days = minutes // 1440
        return "1 week" if days == 7 else f"{days} day" + ("s" if days > 1 else "")
    if minutes % 60 == 0:
        return f"{minutes // 60} hour" + ("s" if minutes > 60 else "")
    return f"{minutes} minute" + ("s" if minutes > 1 else "")


class _Aggregator:
    def __init__(self, store: LogStore) -> None:
        self.sql = store.connection

    def summaries(self) -> tuple[ModelSummary, list[ModelSummary]]:
        breakdowns: dict[str | None, dict[str, dict[str, int]]] = defaultdict(
            lambda: defaultdict(dict)
        )
        for model, measure, key, total in self.sql.execute(_BREAKDOWNS).fetchall():
            breakdowns[model][measure][key] = int(total)
        overall: ModelSummary | None = None
        models: list[ModelSummary] = []
        for row in self.sql.execute(_TOTALS).fetchall():
            model, parts = row[0], breakdowns[row[0]]
            summary = ModelSummary(
                model=ALL_MODELS if model is None else model,
                requests=row[1],
                failed_requests=row[2],
                upstream_errors=row[3],
                tool_calls=int(row[4]),
                rejected=int(row[5]),
                loops_broken=int(row[6]),
                self_corrections=int(row[7]),
                self_corrections_ok=int(row[8]),
                latency_ms=_percentiles(row[9]),
                ttfc_ms=_percentiles(row[10]),
                prompt_tokens=int(row[11]),
                completion_tokens=int(row[12]),
                first_ts=row[13],
                last_ts=row[14],
                recovered_by_protocol=parts["recovered_by_protocol"],
                repairs_by_kind=parts["repairs_by_kind"],
                diagnostics_by_code=parts["diagnostics_by_code"],
                guidance_by_category=parts["guidance_by_category"],
                guidance_by_pattern=parts["guidance_by_pattern"],
                upstream_errors_by_kind=parts["upstream_errors_by_kind"],
            )
            summary.failure_modes = failure_modes(
                summary.guidance_by_category, summary.diagnostics_by_code
            )
            if model is None:
                overall = summary
            else:
                models.append(summary)
        assert overall is not None  # GROUPING SETS always yields the () row
        models.sort(key=lambda m: (-m.requests, m.model))
        return overall, models

    def timeline(self, overall: ModelSummary) -> tuple[str, list[TimelinePoint]]:
        minutes = _bucket_minutes(overall.first_ts, overall.last_ts)
        rows = self.sql.execute(_TIMELINE, [minutes]).fetchall()
        points = [TimelinePoint(row[0], *(int(v) for v in row[1:])) for row in rows]
        return _bucket_name(minutes), points

    def histogram(self, column: str) -> dict[str, list[HistogramBin]]:
        bins: dict[str, list[HistogramBin]] = defaultdict(list)
        for model, index, count in self.sql.execute(_histogram_query(column)).fetchall():
            low, high = (10 ** (i / BINS_PER_DECADE) for i in (index, index + 1))
            bins[ALL_MODELS if model is None else model].append(
                HistogramBin(round(low, 3), round(high, 3), count)
            )
        return dict(bins)


def _empty_reason(store: LogStore, selected: int) -> str | None:
    if selected:
        return None
    seen = store.input
    if seen.files == 0:
        return "no files in the selection"
    logs = seen.lines["log"]
    if logs == 0:
        return f"no toolmend.request/1 log lines in the {seen.files} file(s) selected"
    return f"none of the {logs} log lines is inside --since/--until/--model"


def build_report(store: LogStore, selection: dict[str, Any], selected: int) -> Report:
    """The report over the store's current `events` (`selected` of them)."""
    reason = _empty_reason(store, selected)
    if reason is not None:
        return Report(selection, store.input, None, [], empty_reason=reason)
    aggregator = _Aggregator(store)
    overall, models = aggregator.summaries()
    bucket, timeline = aggregator.timeline(overall)
    return Report(
        selection,
        store.input,
        overall,
        models,
        timeline_bucket=bucket,
        timeline=timeline,
        latency_histogram=aggregator.histogram("latency_ms"),
        ttfc_histogram=aggregator.histogram("ttfc_ms"),
    )
