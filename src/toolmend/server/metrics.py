"""The proxy's Prometheus metrics, correct under one worker or several.

This module owns the metric names, their labels and the `/metrics` rendering. With several
workers, `toolmend serve` sets `PROMETHEUS_MULTIPROC_DIR` before anything imports
`prometheus_client`, every worker writes its values to files there, and `/metrics` (whichever
worker answers) aggregates them all. Labels hold ids and categories only: never a key, a
header, a prompt or an answer.
"""

from __future__ import annotations

import os

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.multiprocess import MultiProcessCollector

from toolmend.server.config import ENV_METRICS_DIR

#: Seconds; first chunks are expected in milliseconds, whole answers in seconds to minutes.
LATENCY_BUCKETS = (
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1,
    2.5,
    5,
    10,
    30,
    60,
    120,
    300,
)

REGISTRY = CollectorRegistry(auto_describe=True)

REQUESTS = Counter(
    "toolmend_requests", "Requests answered.", ["endpoint", "mode", "status"], registry=REGISTRY
)
UPSTREAM_ERRORS = Counter(
    "toolmend_upstream_errors", "Upstream failures by kind.", ["kind"], registry=REGISTRY
)
LATENCY = Histogram(
    "toolmend_request_seconds",
    "Time from request received to last byte sent.",
    ["endpoint", "mode"],
    buckets=LATENCY_BUCKETS,
    registry=REGISTRY,
)
FIRST_CHUNK = Histogram(
    "toolmend_first_chunk_seconds",
    "Time from request received to the first chunk sent (streams).",
    ["mode"],
    buckets=LATENCY_BUCKETS,
    registry=REGISTRY,
)
RECOVERED = Counter(
    "toolmend_recovered_calls",
    "Tool calls recovered from text, by protocol.",
    ["protocol"],
    registry=REGISTRY,
)
REPAIRS = Counter(
    "toolmend_repairs", "Argument and name repairs, by kind.", ["kind"], registry=REGISTRY
)
GUIDANCE = Counter(
    "toolmend_guidance",
    "Guidance given in tool results, by category.",
    ["category"],
    registry=REGISTRY,
)
SELF_CORRECTIONS = Counter(
    "toolmend_self_corrections",
    "Upstream re-asks after an unusable call, by outcome (ok: the next answer was valid).",
    ["outcome"],
    registry=REGISTRY,
)
REJECTED = Counter(
    "toolmend_rejected_calls",
    "Calls that could not be made valid.",
    ["disposition"],
    registry=REGISTRY,
)


def render() -> tuple[bytes, str]:
    """The metrics text and its content type (all workers' values under multiprocess mode)."""
    directory = os.environ.get(ENV_METRICS_DIR)
    if directory:
        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=directory)  # type: ignore[no-untyped-call]
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
