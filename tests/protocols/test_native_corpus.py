"""Real outputs of the model-native formats (tests/corpus/engines/, other engines' test suites):
their streams keep the invariants, and upstream's own chunking reads as the whole text does.

Whether each case gives upstream's calls, named and under `auto`, is the corpus conformance
test's (`tests/test_corpus_conformance.py`), with its list of the cases decided differently.
"""

from __future__ import annotations

import pytest

import toolmend
from conformance import FORMAT_PROTOCOLS, case_text, case_tools
from support import check_all_invariants, load_cases, run_chunks
from toolmend.events import ToolCallEnd

#: The model-native formats of this issue's JSON and special-token families that are read.
NATIVE = (
    "mistral",
    "mistral_v11",
    "deepseek_v3",
    "deepseek_v31",
    "kimi_k2",
    "harmony",
    "functionary_v3.1",
    "functionary_v2",
    "functiongemma",
)
CASES = [
    (FORMAT_PROTOCOLS[case["format"]], case)
    for name in ("ollama_parser_tests", "vllm_mlx_tests", "localai_parse_tests", "mlx_lm_tests")
    for case in load_cases(f"engines/{name}.jsonl")
    if case["format"] in NATIVE
]


@pytest.mark.parametrize(("own", "case"), CASES, ids=[c["id"] for _, c in CASES])
def test_corpus_text_keeps_the_stream_invariants(own: str, case: dict) -> None:
    check_all_invariants(own, case_text(case), case_tools(case))


CHUNKED = [(p, c) for p, c in CASES if c.get("chunks")]


@pytest.mark.parametrize(("own", "case"), CHUNKED, ids=[c["id"] for _, c in CHUNKED])
def test_corpus_upstream_chunking_gives_the_calls_of_the_whole_text(own: str, case: dict) -> None:
    tools = case_tools(case)
    whole = toolmend.parse(case_text(case), own, tools)
    events = run_chunks(own, case["chunks"], tools)
    ends = [e.call for e in events if isinstance(e, ToolCallEnd)]
    assert [(c.name, c.arguments) for c in ends] == [
        (c.name, c.arguments) for c in whole.tool_calls
    ]
