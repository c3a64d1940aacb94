"""Seed 000's before/after table, run end to end through guard_history."""

from __future__ import annotations

import json
import re

import pytest

from toolmend.guard import guard_history

from .conftest import DATA

SEED = json.loads((DATA / "seed000_before_after.json").read_text(encoding="utf-8"))
HEADER = re.compile(r"\[toolmend guidance v1\] (?P<category>\S+) (?P<pattern_id>\S+)")


@pytest.mark.parametrize("row", SEED["rows"], ids=[r["scenario"] for r in SEED["rows"]])
def test_seed_scenario_gets_the_guidance_of_the_after_column(row: dict[str, object]) -> None:
    out = guard_history(row["messages"], tools=SEED["tools"])  # type: ignore[arg-type]
    results = {m["tool_call_id"]: m["content"] for m in out if m.get("role") == "tool"}
    for expect in row["expect"]:  # type: ignore[attr-defined]
        content = results[expect["tool_call_id"]]
        header = HEADER.search(content)
        assert header, content
        assert header["category"] == expect["category"]
        if "pattern_id" in expect:
            assert header["pattern_id"] == expect["pattern_id"]
        for needle in expect.get("contains", []):
            assert needle in content, (needle, content)
        block = content.split("--- original tool output")[0]
        for needle in expect.get("absent", []):
            assert needle not in block, (needle, block)
