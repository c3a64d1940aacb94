"""The report's numbers: per model and overall, failure modes as shares, time, and latency."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolmend.report.aggregate import build_report
from toolmend.report.store import LogStore
from toolmend.report.summary import ALL_MODELS, ModelSummary, Report

from .logs import Line, record, store_of, write_log


def report_of(tmp_path: Path, lines: list[Line], **select: Any) -> Report:
    with store_of(tmp_path, lines) as store:
        return build_report(store, {}, store.select(**select))


def by_model(report: Report) -> dict[str, ModelSummary]:
    return {m.model: m for m in report.models}


def test_each_count_of_the_log_is_summed_per_model_and_overall(tmp_path: Path) -> None:
    lines: list[Line] = [
        record(model="qwen3-coder-30b", tool_calls=2, recovered={"qwen3-coder": 2},
               repairs={"type_coercion": 1, "alias": 1}, diagnostics={"unknown_tool": 1}),
        record(model="qwen3-coder-30b", tool_calls=1, rejected=1, self_corrections=1,
               self_correction_ok=1, loops_broken=1),
        record(model="gpt-oss-120b", tool_calls=3, recovered={"hermes": 1},
               guidance={"FILE_NOT_FOUND": 2}, guidance_patterns={"EI/FILE_NOT_FOUND/001": 2}),
    ]  # fmt: skip
    report = report_of(tmp_path, lines)
    qwen, gpt = by_model(report)["qwen3-coder-30b"], by_model(report)["gpt-oss-120b"]
    assert (qwen.requests, qwen.tool_calls, qwen.rejected, qwen.loops_broken) == (2, 3, 1, 1)
    assert qwen.recovered_by_protocol == {"qwen3-coder": 2}
    assert qwen.repairs_by_kind == {"type_coercion": 1, "alias": 1}
    assert (qwen.self_corrections, qwen.self_corrections_ok) == (1, 1)
    assert gpt.guidance_by_pattern == {"EI/FILE_NOT_FOUND/001": 2}
    overall = report.overall
    assert overall is not None and overall.model == ALL_MODELS
    assert overall.requests == 3 and overall.tool_calls == 6
    assert overall.recovered_by_protocol == {"qwen3-coder": 2, "hermes": 1}
    assert overall.guidance_by_category == {"FILE_NOT_FOUND": 2}
    assert [m.model for m in report.models] == ["qwen3-coder-30b", "gpt-oss-120b"]


def test_a_models_dominant_failure_mode_is_its_share_of_that_models_failures(
    tmp_path: Path,
) -> None:
    # Seed 000: "~80% of MiMo diagnostics show CWD_OBJECT_MISUSE as the dominant failure mode".
    mimo = [record(model="mimo-v2-flash", guidance={"CWD_OBJECT_MISUSE": 1}) for _ in range(8)]
    mimo += [
        record(model="mimo-v2-flash", guidance={"SHELL_INTEGRATION": 1}),
        record(model="mimo-v2-flash", diagnostics={"unknown_tool": 1}),
    ]
    other = [record(model="qwen3-coder-30b", guidance={"FILE_NOT_FOUND": 5})]
    report = report_of(tmp_path, [*mimo, *other])
    modes = by_model(report)["mimo-v2-flash"].failure_modes
    assert (modes[0].mode, modes[0].source, modes[0].count) == ("CWD_OBJECT_MISUSE", "guidance", 8)
    assert modes[0].share == pytest.approx(0.8)
    assert {(m.mode, m.source) for m in modes[1:]} == {
        ("SHELL_INTEGRATION", "guidance"),
        ("unknown_tool", "diagnostic"),
    }
    assert sum(m.share for m in modes) == pytest.approx(1.0)
    assert report.overall is not None
    assert report.overall.failure_modes[0].share == pytest.approx(8 / 15)


def test_upstream_errors_are_upstream_failures_and_unreachable_upstreams_only(
    tmp_path: Path,
) -> None:
    lines: list[Line] = [
        record(status=429, upstream_status=429, error={"type": "rate_limited", "message": "x"}),
        record(status=502, upstream_status=None, error={"type": "upstream_unreachable", "message": "refused"}),
        record(status=500, upstream_status=503, error=None),
        record(status=400, upstream_status=None, error={"type": "invalid_request", "message": "no model"}),
        record(),
    ]  # fmt: skip
    overall = report_of(tmp_path, lines).overall
    assert overall is not None
    assert overall.upstream_errors == 3
    assert overall.upstream_errors_by_kind == {
        "rate_limited": 1,
        "upstream_unreachable": 1,
        "http_503": 1,
    }
    assert overall.failed_requests == 4  # the client's own mistake failed, but not upstream


def test_latency_and_first_chunk_percentiles_are_per_model(tmp_path: Path) -> None:
    fast = [record(model="fast", latency_ms=float(ms), ttfc_ms=None) for ms in range(1, 101)]
    slow = [record(model="slow", latency_ms=1000.0 * n, ttfc_ms=100.0) for n in (1, 2, 3)]
    report = report_of(tmp_path, [*fast, *slow])
    models = by_model(report)
    assert models["fast"].latency_ms.p50 == pytest.approx(50.5)
    assert models["fast"].latency_ms.p99 == pytest.approx(99.01)
    assert models["fast"].ttfc_ms.p50 is None  # no stream: nothing to measure
    assert models["slow"].latency_ms.p50 == pytest.approx(2000.0)
    assert models["slow"].ttfc_ms.p90 == pytest.approx(100.0)
    assert sum(b.count for b in report.latency_histogram["fast"]) == 100
    assert "fast" not in report.ttfc_histogram
    for bins in report.latency_histogram.values():
        assert all(b.low_ms < b.high_ms for b in bins)


def test_a_latency_falls_in_the_bin_that_holds_it(tmp_path: Path) -> None:
    report = report_of(tmp_path, [record(latency_ms=812.5), record(latency_ms=0)])
    bins = report.latency_histogram[ALL_MODELS]
    assert [b.count for b in bins] == [1, 1]
    assert bins[1].low_ms <= 812.5 < bins[1].high_ms
    assert bins[0].low_ms == pytest.approx(0.1)


@pytest.mark.parametrize(
    ("last_ts", "bucket"),
    [
        ("2026-12-01T09:59:00.000Z", "1 minute"),  # 59 buckets
        ("2026-12-02T08:00:00.000Z", "15 minutes"),  # 92 (5 minutes would be 276)
        ("2026-12-31T08:00:00.000Z", "6 hours"),  # 120 (1 hour would be 719)
    ],
)
def test_the_timeline_bucket_widens_with_the_span_it_covers(
    tmp_path: Path, last_ts: str, bucket: str
) -> None:
    lines: list[Line] = [
        record(ts="2026-12-01T09:00:00.000Z"),
        record(ts=last_ts, recovered={"hermes": 1}),
    ]
    report = report_of(tmp_path, lines)
    assert report.timeline_bucket == bucket
    assert len(report.timeline) == 2  # only buckets that hold requests
    assert sum(p.recovered for p in report.timeline) == 1


def test_an_empty_selection_says_why(tmp_path: Path) -> None:
    with LogStore([str(tmp_path)]) as store:
        assert build_report(store, {}, store.select()).empty_reason == "no files in the selection"
    write_log(tmp_path / "notes.txt", ["not a log"])
    with LogStore([str(tmp_path)]) as store:
        report = build_report(store, {}, store.select())
        assert report.overall is None and report.models == []
        assert "no toolmend.request/1 log lines" in (report.empty_reason or "")
    report = report_of(tmp_path / "logs", [record(model="a")], models=["b*"])
    assert report.empty_reason == "none of the 1 log lines is inside --since/--until/--model"


count_maps = st.dictionaries(
    st.sampled_from(["hermes", "gemma4", "alias", "x"]), st.integers(1, 5), max_size=3
)
records = st.builds(
    record,
    model=st.sampled_from(["a", "b", "c"]),
    tool_calls=st.integers(0, 4),
    rejected=st.integers(0, 2),
    recovered=count_maps,
    guidance=count_maps,
    latency_ms=st.floats(0, 60_000),
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(lines=st.lists(records, min_size=1, max_size=25))
def test_the_overall_row_is_the_sum_of_the_models(
    tmp_path_factory: pytest.TempPathFactory, lines: list[Line]
) -> None:
    report = report_of(tmp_path_factory.mktemp("logs"), lines)
    overall = report.overall
    assert overall is not None
    for field in ("requests", "tool_calls", "rejected", "recovered", "guidance", "failures"):
        assert getattr(overall, field) == sum(getattr(m, field) for m in report.models), field
    assert overall.requests == len(lines)
    latencies = [line["latency_ms"] for line in lines if isinstance(line, dict)]
    assert overall.latency_ms.p50 is not None
    assert min(latencies) - 1e-6 <= overall.latency_ms.p50 <= max(latencies) + 1e-6


def test_the_log_the_proxy_itself_wrote_reads_whole() -> None:
    # tests/report/data/README.md: `toolmend demo`'s request log, sixteen real lines.
    with LogStore([str(Path(__file__).parent / "data" / "proxy_demo.jsonl")]) as store:
        report = build_report(store, {}, store.select())
    assert dict(report.input.lines) == {"log": 16}
    assert report.overall is not None
    assert report.overall.recovered_by_protocol == {"auto": 6, "antml": 2, "kimi-xtml": 2}
    models = by_model(report)
    mimo = models["mimo-v2.5-pro"]
    assert (mimo.rejected, mimo.self_corrections, mimo.self_corrections_ok) == (2, 2, 2)
    looping = models["mimo-v2.5-pro:loop"]
    assert looping.loops_broken == 2
    assert [(m.mode, m.share) for m in looping.failure_modes] == [("MODEL_STUCK_LOOP", 1.0)]
    assert models["zoo-code-child-task"].diagnostics_by_code == {"concatenated_json_split": 2}
    assert models["zoo-code-child-task"].tool_calls == 6
