"""Leaks users reported in public trackers, replayed through `recover_stream` as they were sent.

Each case of `reported_leaks.json` is the text a model wrote into `content`, copied from the
report named by its `source` (with the repository and its licence), the model id as reported
(recovery chooses its formats by it), the tools reduced to the ones the text calls, and the
calls the user expected. Every case is streamed whole, in 1-, 3- and 7-character deltas and cut
in two at every boundary: the expected calls come out as `tool_calls` (nothing rejected, the
turn ending as `tool_calls`), and no markup stays in the visible text.

A case with `"flagged"` is one toolmend deliberately does not execute (the reason is in the
field): its call must come out flagged in `toolmend_rejected_calls`, never executable.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from .wire import recover, split_every, splits_at_every_boundary

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "reported_leaks.json").read_text(encoding="utf-8")
)
#: What only call markup puts in these outputs; none of it may be left in the visible text. (A
#: `</think>` with no opener before it stays: the reasoning it closes was opened by the prompt.)
MARKUP = re.compile(r"<tool_call|<function=|<\||\[TOOL_CALLS\]|to=functions\.|<invoke|</(?!think>)")


def tools_of(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """OpenAI tools from `{name: [string params]}` or `{name: {param: json type}}`."""
    out = []
    for name, params in spec.items():
        types = params if isinstance(params, dict) else dict.fromkeys(params, "string")
        schema = {
            "type": "object",
            "properties": {p: {"type": t} for p, t in types.items()},
            "required": list(types),
        }
        out.append({"type": "function", "function": {"name": name, "parameters": schema}})
    return out


def splittings(text: str) -> list[list[str]]:
    return [
        [text],
        split_every(text, 1),
        split_every(text, 3),
        split_every(text, 7),
        *splits_at_every_boundary(text),
    ]


def check_case(case: dict[str, Any], pieces: list[str]) -> None:
    got = recover(pieces, tools=tools_of(case["tools"]), model=case["model"])
    expected = [(c["name"], c["arguments"]) for c in case["calls"]]
    if "flagged" in case:
        assert got["calls"] == []
        assert [(r["function"]["name"], r["incomplete"]) for r in got["rejected"]] == [
            (name, True) for name, _ in expected
        ]
        return
    assert got["calls"] == expected
    assert got["rejected"] == []
    assert got["finish"] == ["tool_calls"]
    if "text" in case:
        assert got["text"] == case["text"]
    assert MARKUP.search(got["text"]) is None, got["text"]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_a_reported_leak_comes_out_as_the_calls_the_user_expected(case: dict[str, Any]) -> None:
    for pieces in splittings(case["content"]):
        check_case(case, pieces)


def test_every_reported_leak_names_its_source_repository_and_licence() -> None:
    for case in CASES:
        assert case["source"].startswith("https://github.com/" + case["repo"] + "/")
        assert case["license"]
        assert case["model"] and case["family"]
