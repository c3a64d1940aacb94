"""A report as one self-contained HTML file with charts (`--format html`), readable offline.

This module owns the pictures: failures by model and category, what toolmend did per model,
recoveries over time, and the latency and first-chunk distributions, drawn with Plotly (its
JavaScript bundle is written into the file once, so nothing is fetched when it is opened), plus
the main tables. Every chart sits in an element with `data-chart="<id>"`; a chart with nothing
to show is replaced by a sentence saying so. It never computes a number (that is `aggregate`).
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import plotly.colors  # type: ignore[import-untyped]
import plotly.graph_objects as go  # type: ignore[import-untyped]
import plotly.offline  # type: ignore[import-untyped]

from toolmend.report.summary import ALL_MODELS, HistogramBin, ModelSummary, Report, TimelinePoint
from toolmend.report.text import failures_rows, input_lines, requests_rows

#: Failure modes drawn in their own colour; the rest are summed as "other" (a legend of more
#: than this many entries stops being readable).
CHART_MODES = 12
#: 24 distinct colours, so every drawn mode and every model of a busy proxy keeps its own.
COLOURS = plotly.colors.qualitative.Dark24
CHART_HEIGHT_PX = 420
PLOTLY_CONFIG = {"displaylogo": False, "responsive": True}
TEMPLATE = "plotly_white"
#: What toolmend did for a model, as drawn per model: series name and its count.
OUTCOMES: tuple[tuple[str, Callable[[ModelSummary], int]], ...] = (
    ("recovered from text", lambda m: m.recovered),
    ("repairs", lambda m: m.repairs),
    ("rejected", lambda m: m.rejected),
    ("self-corrections then valid", lambda m: m.self_corrections_ok),
    ("loops broken", lambda m: m.loops_broken),
)
#: The same over time (all models), with what still failed.
TIMELINE_SERIES: tuple[tuple[str, Callable[[TimelinePoint], int]], ...] = (
    ("recovered from text", lambda p: p.recovered),
    ("repairs", lambda p: p.repairs),
    ("self-corrections then valid", lambda p: p.self_corrections_ok),
    ("rejected", lambda p: p.rejected),
    ("failures", lambda p: p.failures),
)
STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; padding: 0 1.5rem;
       max-width: 72rem; color: #222; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 2rem; }
table { border-collapse: collapse; font-size: 0.85rem; }
th, td { padding: 0.2rem 0.6rem; border-bottom: 1px solid #ddd; text-align: right; }
th:first-child, td:first-child { text-align: left; white-space: nowrap; }
table.modes td:last-child, table.modes th:last-child { text-align: left; }
.input { color: #555; font-size: 0.85rem; white-space: pre-wrap; }
.chart { min-height: 3rem; }
"""


def _figure_div(chart_id: str, figure: go.Figure) -> str:
    figure.update_layout(
        template=TEMPLATE, colorway=COLOURS, margin={"t": 40, "r": 20, "b": 40, "l": 20}
    )
    div: str = figure.to_html(
        full_html=False,
        include_plotlyjs=False,
        div_id=f"{chart_id}-plot",
        default_height=f"{CHART_HEIGHT_PX}px",
        config=PLOTLY_CONFIG,
    )
    return div


def _chart(chart_id: str, title: str, figure: go.Figure | None, empty: str) -> str:
    body = _figure_div(chart_id, figure) if figure is not None else f"<p>{html.escape(empty)}</p>"
    return f'<h2>{html.escape(title)}</h2>\n<div class="chart" data-chart="{chart_id}">{body}</div>'


def failures_figure(report: Report) -> go.Figure | None:
    """Stacked bars: each model's failures, by category (guidance) or code (diagnostics)."""
    totals: Counter[str] = Counter()
    for m in report.models:
        totals.update({mode.mode: mode.count for mode in m.failure_modes})
    if not totals:
        return None
    drawn = [mode for mode, _ in totals.most_common(CHART_MODES)]
    models = [m.model for m in reversed(report.models)]
    figure = go.Figure()
    per_model = [
        {mode.mode: mode.count for mode in m.failure_modes} for m in reversed(report.models)
    ]
    for mode in drawn:
        figure.add_bar(name=mode, y=models, x=[c.get(mode, 0) for c in per_model], orientation="h")
    other = [sum(n for k, n in c.items() if k not in drawn) for c in per_model]
    if any(other):
        figure.add_bar(name="other", y=models, x=other, orientation="h")
    figure.update_layout(barmode="stack", xaxis_title="failures (guidance and diagnostics)")
    return figure


def outcomes_figure(report: Report) -> go.Figure | None:
    """Grouped bars: per model, calls recovered, repairs, rejections and re-asks that worked."""
    if not report.models:
        return None
    models = [m.model for m in report.models]
    bars = [go.Bar(name=n, x=models, y=[of(m) for m in report.models]) for n, of in OUTCOMES]
    figure = go.Figure(bars)
    figure.update_layout(barmode="group", yaxis_title="count")
    return figure


def timeline_figure(report: Report) -> go.Figure | None:
    """Lines over time: what toolmend recovered and repaired, and what still failed."""
    if not report.timeline:
        return None
    starts = [p.start for p in report.timeline]
    figure = go.Figure(
        [
            go.Scatter(name=n, x=starts, y=[of(p) for p in report.timeline], mode="lines+markers")
            for n, of in TIMELINE_SERIES
        ]
    )
    figure.update_layout(yaxis_title=f"per {report.timeline_bucket}", xaxis_title="time (UTC)")
    return figure


def distribution_figure(histograms: dict[str, list[HistogramBin]], axis: str) -> go.Figure | None:
    """Per model, the share of requests in each (log-scale) millisecond bin."""
    per_model = {k: v for k, v in histograms.items() if k != ALL_MODELS}
    if not per_model:
        return None
    figure = go.Figure()
    for model, bins in per_model.items():
        total = sum(b.count for b in bins)
        figure.add_scatter(
            name=model,
            x=[(b.low_ms * b.high_ms) ** 0.5 for b in bins],
            y=[b.count / total for b in bins],
            mode="lines+markers",
            line_shape="hvh",
        )
    figure.update_layout(xaxis_type="log", xaxis_title=axis, yaxis_title="share of requests")
    figure.update_yaxes(tickformat=".0%")
    return figure


def latency_figure(report: Report) -> go.Figure | None:
    return distribution_figure(report.latency_histogram, "latency (ms, log scale)")


def ttfc_figure(report: Report) -> go.Figure | None:
    return distribution_figure(report.ttfc_histogram, "time to first chunk (ms, log scale)")


@dataclass(frozen=True)
class Chart:
    """One chart of the page: its element id, its title ({bucket} is the timeline's), the
    figure it draws (None when there is nothing to draw) and the sentence shown instead."""

    id: str
    title: str
    figure: Callable[[Report], go.Figure | None]
    empty: str


CHARTS = (
    Chart(
        "failures-by-model",
        "Failures by model and category",
        failures_figure,
        "No failures recorded.",
    ),
    Chart("outcomes-by-model", "What toolmend did, by model", outcomes_figure, "No requests."),
    Chart(
        "recoveries-over-time",
        "Recoveries over time (per {bucket})",
        timeline_figure,
        "No requests.",
    ),
    Chart("latency-distribution", "Latency distribution", latency_figure, "No latency recorded."),
    Chart(
        "ttfc-distribution", "Time to first chunk (streams)", ttfc_figure, "No streamed requests."
    ),
)


def _html_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], css: str = "") -> str:
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(cell))}</td>" for cell in row) + "</tr>"
        for row in rows
    )
    return f'<table class="{css}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _tables(report: Report) -> str:
    assert report.overall is not None
    rows = [report.overall, *report.models]
    requests = _html_table(*requests_rows(rows))
    failures = _html_table(*failures_rows(rows), css="modes")
    return f"<h2>Requests and tool calls</h2>{requests}<h2>What fails, by model</h2>{failures}"


def render_html(report: Report) -> str:
    """The whole report as one HTML document (Plotly's bundle inline: ~5 MB, works offline)."""
    seen = html.escape("\n".join(input_lines(report.input)))
    if report.overall is None:
        summary = "nothing to report"
        body = f"<p>Nothing to report: {html.escape(report.empty_reason or '')}.</p>"
    else:
        o = report.overall
        span = f"{_when(o.first_ts)} to {_when(o.last_ts)} UTC"
        summary = f"{o.requests:,} requests, {span}"
        charts = [
            _chart(
                chart.id,
                chart.title.format(bucket=report.timeline_bucket),
                chart.figure(report),
                chart.empty,
            )
            for chart in CHARTS
        ]
        body = _tables(report) + "\n".join(charts)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>toolmend report: {html.escape(summary)}</title><style>{STYLE}</style>"
        f'<script type="text/javascript">{plotly.offline.get_plotlyjs()}</script></head>'
        f"<body><h1>toolmend report</h1><p>{html.escape(summary)}</p>"
        f'<p class="input">{seen}</p>{body}</body></html>\n'
    )


def _when(iso: str) -> str:
    """`2026-11-30T23:59:45Z` as `2026-11-30 23:59`, for people."""
    return iso[:16].replace("T", " ")
