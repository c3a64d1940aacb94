"""The Grafana dashboard: every panel queries metrics the proxy exports, by labels they have."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .proxy_metrics import SCRAPE_LABELS, exported_metrics, series_names

DASHBOARD = Path(__file__).parents[2] / "dashboards" / "toolmend.json"
METRIC = re.compile(r"\b(toolmend_[a-z0-9_]+)\b")
GROUPING = re.compile(r"\b(?:by|without)\s*\(([^)]*)\)")
MATCHER = re.compile(r"([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)\s*\"")
LEGEND_LABEL = re.compile(r"\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}")


def dashboard() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    return data


def panels(data: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for panel in data["panels"]:
        yield panel
        yield from panel.get("panels", [])  # panels inside a collapsed row


def queries() -> list[tuple[str, dict[str, Any]]]:
    return [
        (panel["title"], target)
        for panel in panels(dashboard())
        if panel["type"] != "row"
        for target in panel["targets"]
    ]


SOURCE, METRICS = exported_metrics()
SERIES = series_names(METRICS)


def test_every_panel_but_a_row_has_a_query() -> None:
    data = dashboard()
    for panel in panels(data):
        if panel["type"] != "row":
            assert panel["targets"], panel["title"]
            assert all(t["expr"].strip() for t in panel["targets"]), panel["title"]


@pytest.mark.parametrize(
    ("title", "target"), queries(), ids=lambda v: v if isinstance(v, str) else ""
)
def test_every_query_names_only_metrics_the_proxy_exports(
    title: str, target: dict[str, Any]
) -> None:
    names = METRIC.findall(target["expr"])
    assert names, f"{title}: the query names no toolmend metric"
    unknown = [n for n in names if n not in SERIES]
    assert not unknown, f"{title}: {unknown} not exported ({SOURCE}: {sorted(METRICS)})"


@pytest.mark.parametrize(
    ("title", "target"), queries(), ids=lambda v: v if isinstance(v, str) else ""
)
def test_every_label_a_query_uses_is_a_label_of_its_metrics(
    title: str, target: dict[str, Any]
) -> None:
    expr = target["expr"]
    families = {SERIES[n] for n in METRIC.findall(expr) if n in SERIES}
    allowed = set(SCRAPE_LABELS)
    for family in families:
        kind, labels = METRICS[family]
        allowed.update(labels)
        if kind == "histogram":
            allowed.add("le")
    used = {label.strip() for group in GROUPING.findall(expr) for label in group.split(",")}
    used |= set(MATCHER.findall(expr)) | set(LEGEND_LABEL.findall(target.get("legendFormat", "")))
    used.discard("")
    assert used <= allowed, (
        f"{title}: {sorted(used - allowed)} are not labels of {sorted(families)}"
    )


def test_panels_have_unique_ids_fit_the_grid_and_query_the_chosen_datasource() -> None:
    data = dashboard()
    ids = [panel["id"] for panel in panels(data)]
    assert len(ids) == len(set(ids))
    variables = {v["name"] for v in data["templating"]["list"]}
    assert {"datasource", "job"} <= variables
    for panel in panels(data):
        grid = panel["gridPos"]
        assert grid["x"] >= 0 and grid["x"] + grid["w"] <= 24, panel["title"]
        if panel["type"] != "row":
            assert panel["datasource"]["uid"] == "${datasource}", panel["title"]
            for target in panel["targets"]:
                assert '$job"' in target["expr"], f"{panel['title']}: ignores the job variable"


def test_the_dashboard_shows_every_metric_the_proxy_exports() -> None:
    shown = {SERIES[n] for _, target in queries() for n in METRIC.findall(target["expr"])}
    assert shown == set(METRICS), f"not on the dashboard: {sorted(set(METRICS) - shown)}"
