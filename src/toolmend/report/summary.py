"""What a report says, as plain data: per-model summaries, the timeline, latency histograms.

This module owns the report's shape and its JSON form (`Report.to_dict`, schema
`toolmend.report/1`). It never queries (that is `aggregate`) and never formats for people
(that is `text` and `html`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from toolmend.report.store import InputSummary

REPORT_SCHEMA = "toolmend.report/1"
#: How a report names the row that sums every model.
ALL_MODELS = "(all models)"


@dataclass(frozen=True)
class Percentiles:
    """Milliseconds at the 50th, 90th and 99th percentile; None where nothing was measured."""

    p50: float | None
    p90: float | None
    p99: float | None


@dataclass(frozen=True)
class FailureMode:
    """One kind of thing a model got wrong, and its share of everything that model got wrong.

    `source` says where it was seen: `guidance` (a tool error classified in the history, by
    category) or `diagnostic` (markup the proxy could not use, by code).
    """

    mode: str
    source: str
    count: int
    share: float


@dataclass
class ModelSummary:
    """The numbers for one model (or for all of them, `model == ALL_MODELS`)."""

    model: str
    requests: int
    #: Requests answered with an HTTP status of 400 or more.
    failed_requests: int
    #: Requests the upstream answered with 400 or more, or could not be reached for (5xx sent).
    upstream_errors: int
    tool_calls: int
    rejected: int
    loops_broken: int
    self_corrections: int
    #: Of those re-asks, the ones whose answer was then valid.
    self_corrections_ok: int
    latency_ms: Percentiles
    ttfc_ms: Percentiles
    prompt_tokens: int
    completion_tokens: int
    first_ts: str
    last_ts: str
    recovered_by_protocol: dict[str, int] = field(default_factory=dict)
    repairs_by_kind: dict[str, int] = field(default_factory=dict)
    diagnostics_by_code: dict[str, int] = field(default_factory=dict)
    guidance_by_category: dict[str, int] = field(default_factory=dict)
    guidance_by_pattern: dict[str, int] = field(default_factory=dict)
    upstream_errors_by_kind: dict[str, int] = field(default_factory=dict)
    #: Everything this model got wrong, largest first, with shares that add up to one.
    failure_modes: list[FailureMode] = field(default_factory=list)

    @property
    def recovered(self) -> int:
        return sum(self.recovered_by_protocol.values())

    @property
    def repairs(self) -> int:
        return sum(self.repairs_by_kind.values())

    @property
    def guidance(self) -> int:
        return sum(self.guidance_by_category.values())

    @property
    def failures(self) -> int:
        return sum(mode.count for mode in self.failure_modes)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.update(
            recovered=self.recovered,
            repairs=self.repairs,
            guidance=self.guidance,
            failures=self.failures,
        )
        return data


@dataclass(frozen=True)
class TimelinePoint:
    """What toolmend did in one time bucket (all models)."""

    start: str
    requests: int
    recovered: int
    repairs: int
    rejected: int
    self_corrections_ok: int
    failures: int


@dataclass(frozen=True)
class HistogramBin:
    """Requests whose milliseconds fell in [low_ms, high_ms)."""

    low_ms: float
    high_ms: float
    count: int


@dataclass
class Report:
    """A whole report: what was asked, what was read, and what it shows."""

    selection: dict[str, Any]
    input: InputSummary
    overall: ModelSummary | None
    models: list[ModelSummary]
    timeline_bucket: str = ""
    timeline: list[TimelinePoint] = field(default_factory=list)
    latency_histogram: dict[str, list[HistogramBin]] = field(default_factory=dict)
    ttfc_histogram: dict[str, list[HistogramBin]] = field(default_factory=dict)
    #: Why there is nothing to show, or None when the selection holds requests.
    empty_reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": REPORT_SCHEMA,
            "selection": self.selection,
            "input": self.input.to_dict(),
            "empty_reason": self.empty_reason,
            "overall": self.overall.to_dict() if self.overall else None,
            "models": [m.to_dict() for m in self.models],
            "timeline_bucket": self.timeline_bucket,
            "timeline": [asdict(p) for p in self.timeline],
            "latency_histogram": {
                k: [asdict(b) for b in v] for k, v in self.latency_histogram.items()
            },
            "ttfc_histogram": {k: [asdict(b) for b in v] for k, v in self.ttfc_histogram.items()},
        }
