"""The Prometheus metrics the proxy exports, as the dashboard test checks them.

When the proxy (`toolmend.server.metrics`) is installed, its metric objects are the truth: their
names, types and labels are read from the module. Until then, `ASSUMED_METRICS` stands in: the
names, types and labels of `src/toolmend/server/metrics.py` on the proxy branch as of
2026-12-01 (not yet on main when the dashboard was written).
"""

from __future__ import annotations

import importlib
from typing import Any

#: family name -> (type, labels). Counters are exposed with `_total`, histograms with
#: `_bucket`, `_sum` and `_count`.
ASSUMED_METRICS: dict[str, tuple[str, tuple[str, ...]]] = {
    "toolmend_requests": ("counter", ("endpoint", "mode", "status")),
    "toolmend_upstream_errors": ("counter", ("kind",)),
    "toolmend_request_seconds": ("histogram", ("endpoint", "mode")),
    "toolmend_first_chunk_seconds": ("histogram", ("mode",)),
    "toolmend_recovered_calls": ("counter", ("protocol",)),
    "toolmend_repairs": ("counter", ("kind",)),
    "toolmend_guidance": ("counter", ("category",)),
    "toolmend_self_corrections": ("counter", ("outcome",)),
    "toolmend_rejected_calls": ("counter", ("disposition",)),
}
#: Labels Prometheus adds to every series it scrapes (one `instance` per replica).
SCRAPE_LABELS = ("job", "instance")
SUFFIXES = {
    "counter": ("_total", "_created"),
    "histogram": ("_bucket", "_sum", "_count", "_created"),
}


def exported_metrics() -> tuple[str, dict[str, tuple[str, tuple[str, ...]]]]:
    """Where the metric list came from, and the list."""
    try:
        module: Any = importlib.import_module("toolmend.server.metrics")
    except ImportError:
        return "assumed (proxy not installed)", ASSUMED_METRICS
    from prometheus_client.metrics import MetricWrapperBase

    found = {
        metric._name: (metric._type, tuple(metric._labelnames))
        for metric in vars(module).values()
        if isinstance(metric, MetricWrapperBase)
    }
    return "toolmend.server.metrics", found


def series_names(metrics: dict[str, tuple[str, tuple[str, ...]]]) -> dict[str, str]:
    """Every series name Prometheus stores for these metrics -> its family name."""
    names: dict[str, str] = {}
    for family, (kind, _) in metrics.items():
        names[family] = family
        for suffix in SUFFIXES.get(kind, ()):
            names[family + suffix] = family
    return names
