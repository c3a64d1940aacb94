"""The HTML report: one self-contained page whose every chart draws in a real headless browser."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from toolmend.report.aggregate import build_report
from toolmend.report.html import CHARTS, render_html
from toolmend.report.summary import Report

from .browser import chromium, probe_charts
from .logs import Line, record, store_of

NO_CHROMIUM = "Debian's chromium is not installed (apt-get install chromium; .ci/run installs it)"


def day_of_traffic() -> list[Line]:
    """Three models over a morning; every chart's every series has something to draw."""
    lines: list[Line] = []
    for hour in range(8, 12):
        ts = f"2026-12-01T{hour:02d}:15:00.000Z"
        lines += [
            record(ts=ts, model="mimo-v2-flash", latency_ms=600.0 + hour, ttfc_ms=80.0,
                   recovered={"hermes": 1}, guidance={"CWD_OBJECT_MISUSE": 4},
                   guidance_patterns={"EI/CWD_OBJECT_MISUSE/001": 4}, diagnostics={"unknown_tool": 1}),
            record(ts=ts, model="qwen3-coder-30b", latency_ms=1400.0, ttfc_ms=210.0,
                   repairs={"type_coercion": 2}, rejected=1, self_corrections=1,
                   self_correction_ok=1, guidance={"PARAM_TYPE_MISMATCH": 1}),
            record(ts=ts, model="gemma-4-27b", latency_ms=2600.0, ttfc_ms=400.0, loops_broken=1,
                   recovered={"gemma4": 2}, guidance={"MODEL_STUCK_LOOP": 1},
                   status=502, upstream_status=None,
                   error={"type": "upstream_unreachable", "message": "connection refused"}),
        ]  # fmt: skip
    return lines


def report_of(tmp_path: Path, lines: list[Line]) -> Report:
    with store_of(tmp_path, lines) as store:
        return build_report(store, {}, store.select())


@pytest.mark.skipif(chromium() is None, reason=NO_CHROMIUM)
def test_every_chart_draws_in_headless_chromium(tmp_path: Path) -> None:
    report = report_of(tmp_path, day_of_traffic())
    page = tmp_path / "report.html"
    page.write_text(render_html(report), encoding="utf-8")
    drawn = probe_charts(page)
    assert sorted(drawn) == sorted(chart.id for chart in CHARTS)
    for chart in CHARTS:
        figure = chart.figure(report)
        assert figure is not None, chart.id
        seen = drawn[chart.id]
        assert seen["svg"] is not None, f"{chart.id}: no chart SVG"
        assert seen["svg"]["rendered"] > 100 and seen["svg"]["height"] > 100, chart.id
        assert len(seen["traces"]) == len(figure.data), f"{chart.id}: {seen['traces']}"
        for trace in seen["traces"]:
            assert trace["width"] > 0 and trace["height"] > 0, f"{chart.id}: an empty series"


def test_the_page_is_one_file_whose_markup_loads_nothing_from_elsewhere(tmp_path: Path) -> None:
    page = render_html(report_of(tmp_path, day_of_traffic()))
    assert re.search(r"<script[^>]+src=", page) is None
    markup = re.sub(r"<script\b[^>]*>.*?</script>", "", page, flags=re.S)  # code, not links
    assert re.search(r"<link\b|<img\b|<iframe\b|@import|url\(", markup) is None
    assert re.search(r"""(src|href)\s*=\s*["']?https?:""", markup) is None
    assert page.count('data-chart="') == len(CHARTS)


def test_a_chart_with_nothing_to_show_says_so_instead_of_drawing_nothing(tmp_path: Path) -> None:
    quiet = [record(ts=f"2026-12-01T09:0{n}:00.000Z", stream=False, ttfc_ms=None) for n in range(3)]
    report = report_of(tmp_path, quiet)
    page = render_html(report)
    assert (
        '<div class="chart" data-chart="failures-by-model"><p>No failures recorded.</p></div>'
        in page
    )
    assert (
        '<div class="chart" data-chart="ttfc-distribution"><p>No streamed requests.</p></div>'
        in page
    )
    assert 'data-chart="latency-distribution"><div' in page


def test_a_model_name_cannot_break_out_of_the_page(tmp_path: Path) -> None:
    hostile = '</script><script>alert("x")</script><b>'
    page = render_html(report_of(tmp_path, [record(model=hostile, guidance={"TIMEOUT": 1})]))
    assert hostile not in page
    assert "&lt;/script&gt;&lt;script&gt;" in page  # the tables show it, escaped


def test_an_empty_selection_is_a_page_that_says_so(tmp_path: Path) -> None:
    with store_of(tmp_path, ["not a log line"]) as store:
        page = render_html(build_report(store, {}, store.select()))
    assert "Nothing to report: no toolmend.request/1 log lines in the 1 file(s) selected." in page
    assert "data-chart" not in page
