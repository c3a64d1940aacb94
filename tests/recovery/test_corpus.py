"""Real model outputs (`tests/corpus/`, each case with its `source` and `license`) fed to the
recovery as `delta.content`: the leaked calls come out as `tool_calls`.

Every case of a format toolmend reads whose `expected` is known is streamed in 5-character
pieces, and in the upstream's own token chunks where the case keeps them, once with its format
named and once with the default (`auto`). Named, the calls must be the expected ones (the cases
the protocol tests decide differently are skipped with their reason); under `auto` they must be
exactly what `toolmend.parse(..., "auto")` reads, since recovery adds no parsing of its own;
so must every case of every format in the engines' corpus (`tests/corpus/engines/`).
"""

from __future__ import annotations

from typing import Any

import pytest

import conformance
import toolmend
from support import load_cases, load_exceptions

from .wire import content_stream, fold, split_every

FORMATS = {"hermes.jsonl": "hermes", "qwen3_coder.jsonl": "qwen3-coder", "gemma4.jsonl": "gemma4"}
CASES = [
    (protocol, case, load_exceptions(name.replace(".jsonl", ".exceptions.json")))
    for name, protocol in FORMATS.items()
    for case in load_cases(name)
    # Inner segments (`call:...` whose markers upstream's test stripped) are not outputs a
    # server streams; the protocol tests read them.
    if case.get("expected") is not None and not case["text"].startswith("call:")
]


def case_text(case: dict[str, Any]) -> str:
    delimiters = case.get("delimiters")
    return delimiters[0] + case["text"] + delimiters[1] if delimiters else case["text"]


def recovered(pieces: list[str], case: dict[str, Any], **kw: Any) -> list[dict[str, Any]]:
    chunks = content_stream(pieces, model=case.get("model") or "served-model")
    got = fold(toolmend.recover_stream(chunks, tools=case.get("tools"), **kw))
    return [{"name": name, "arguments": arguments} for name, arguments in got["calls"]]


def chunkings(case: dict[str, Any]) -> list[list[str]]:
    text = case_text(case)
    out = [split_every(text, 5)]
    if case.get("chunks") and "".join(case["chunks"]) == text:
        out.append([c for c in case["chunks"] if c])
    return out


@pytest.mark.parametrize(
    ("protocol", "case", "exceptions"),
    CASES,
    ids=lambda v: v["id"] if isinstance(v, dict) and "id" in v else None,
)
def test_a_corpus_output_streamed_as_content_yields_the_expected_calls(protocol, case, exceptions):
    if case["id"] in exceptions:
        pytest.skip(exceptions[case["id"]])
    for pieces in chunkings(case):
        got = recovered(pieces, case, protocols=[protocol])
        if case.get("expected_partial"):
            assert [g["name"] for g in got] == [e["name"] for e in case["expected"]]
        else:
            assert got == case["expected"]


@pytest.mark.parametrize(
    ("protocol", "case", "exceptions"),
    CASES,
    ids=lambda v: v["id"] if isinstance(v, dict) and "id" in v else None,
)
def test_a_corpus_output_under_auto_yields_what_the_parser_reads(protocol, case, exceptions):
    parsed = toolmend.parse(case_text(case), "auto", case.get("tools"))
    want = [{"name": c.name, "arguments": c.arguments} for c in parsed.tool_calls if c.executable]
    for pieces in chunkings(case):
        assert recovered(pieces, case) == want


ENGINE_CASES = conformance.load_engine_cases()


@pytest.mark.parametrize("case", ENGINE_CASES, ids=lambda case: case["id"])
def test_every_engine_corpus_output_streamed_as_content_yields_what_auto_reads(
    case: dict[str, Any],
) -> None:
    # Every format toolmend reads, as a server with no (or the wrong) tool parser streams it:
    # recovery under `auto` returns exactly the calls `toolmend.parse(..., "auto")` does.
    text, tools = conformance.case_text(case), conformance.case_tools(case)
    chunks = content_stream(split_every(text, 5), model="served-model")
    try:
        want = conformance.executable_calls(text, "auto", tools)
    except toolmend.ToolSchemaError:  # a tool list the parser refuses, recovery refuses too
        with pytest.raises(toolmend.ToolSchemaError):
            fold(toolmend.recover_stream(chunks, tools=tools, protocols="auto"))
        return
    got = fold(toolmend.recover_stream(chunks, tools=tools, protocols="auto"))
    assert [{"name": name, "arguments": arguments} for name, arguments in got["calls"]] == want
