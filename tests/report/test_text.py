"""The terminal tables: what was read, aligned columns, and long breakdowns cut with a count."""

from __future__ import annotations

from pathlib import Path

from toolmend.report.aggregate import build_report
from toolmend.report.text import BREAKDOWN_ROWS, render_table, table

from .logs import Line, record, store_of


def rendered(tmp_path: Path, lines: list[Line]) -> str:
    with store_of(tmp_path, lines) as store:
        return render_table(build_report(store, {}, store.select()))


def test_columns_line_up_with_text_left_and_numbers_right() -> None:
    lines = table(["model", "requests"], [["qwen3-coder-30b", "1,204"], ["kimi-k2", "7"]])
    assert lines == [
        "model            requests",
        "qwen3-coder-30b     1,204",
        "kimi-k2                 7",
    ]


def test_a_long_breakdown_shows_the_largest_rows_and_counts_the_rest(tmp_path: Path) -> None:
    patterns = {f"EI/TIMEOUT/{n:03d}": n for n in range(1, BREAKDOWN_ROWS + 4)}
    out = rendered(tmp_path, [record(model="kimi-k2", guidance_patterns=patterns)])
    section = out.split("Guidance, by pattern\n", 1)[1].split("\n\n", 1)[0].splitlines()
    kimi = [row for row in section if row.startswith("kimi-k2")]
    assert len(kimi) == BREAKDOWN_ROWS + 1
    assert "EI/TIMEOUT/013" in kimi[0]
    assert kimi[-1].split() == ["kimi-k2", "…", "3", "more"]


def test_every_kind_of_unusable_input_is_named_above_the_numbers(tmp_path: Path) -> None:
    out = rendered(tmp_path, [record(), '{"schema": "toolmend.request/1", "ts', "garbage"])
    head = out.split("\n\n", 1)[0]
    assert "read 1 file(s), 3 line(s): 1 log lines, 1 truncated, 1 not JSON" in head
