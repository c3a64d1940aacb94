"""With `tools=None`, a bare JSON or pythonic call list counts only as the whole output.

"Whole output" means the visible output: blanks and reasoning before it do not count as text
(vllm-mlx's `test_after_think`: `<think>…</think>[{"name": "search", …}]` is a call), while
prose or another block before it does. A call block right after it (blanks aside) does not
make it prose: the output holds nothing but calls.
"""

from __future__ import annotations

import pytest

import toolmend
from support import check_all_invariants

# waybarrios/vllm-mlx@4b654c09e61029afa1c061a3684bff0d4c385b3c
# tests/test_tool_parsers.py::test_after_think (Apache-2.0), in tests/corpus/engines.
AFTER_THINK = '<think>Let me search for this</think>[{"name": "search", "arguments": {}}]'
PYTHONIC_AFTER_THINK = '<think>Searching.</think>\n[search(query="x")]'


@pytest.mark.parametrize(
    ("protocol", "text"),
    [
        ("json", AFTER_THINK),
        ("auto", AFTER_THINK),
        ("json", '\n\n  {"name": "search", "arguments": {"q": 1}}\n'),
        ("pythonic", PYTHONIC_AFTER_THINK),
        ("auto", PYTHONIC_AFTER_THINK),
    ],
)
def test_a_bare_call_after_reasoning_or_blanks_is_the_whole_output(
    protocol: str, text: str
) -> None:
    result = toolmend.parse(text, protocol, None)
    assert [c.name for c in result.tool_calls] == ["search"]
    assert result.text.strip() == ""
    check_all_invariants(protocol, text, None)


@pytest.mark.parametrize("protocol", ["json", "pythonic", "auto"])
def test_prose_before_a_bare_call_keeps_it_text(protocol: str) -> None:
    body = '[{"name": "search", "arguments": {}}]' if protocol != "pythonic" else '[search(q="x")]'
    text = f"<think>Hm.</think>Here is an example:\n{body}"
    result = toolmend.parse(text, protocol, None)
    assert result.tool_calls == []
    assert result.text.endswith(body)


# mudler/LocalAI@82c191afadf5f005281e798ccfa0ffd0d5805030 pkg/functions/parse_test.go::It(should
# parse the result by matching the JSONRegexMatch) (MIT), in tests/corpus/engines: the prompt
# wrote `<tool_call>`, the model the JSON and the closer.
BEFORE_CLOSER = '\n{"name": "add", "arguments": {"x": 5, "y": 3}}\n</tool_call>'


@pytest.mark.parametrize("protocol", ["json", "llama3-json", "auto"])
def test_a_closer_after_a_bare_call_is_markup_and_the_call_still_the_whole_output(
    protocol: str,
) -> None:
    result = toolmend.parse(BEFORE_CLOSER, protocol, None)
    assert [(c.name, c.arguments) for c in result.tool_calls] == [("add", {"x": 5, "y": 3})]
    assert result.text.strip() == ""
    check_all_invariants(protocol, BEFORE_CLOSER, None)
    after = BEFORE_CLOSER + "\nThat adds them."
    assert toolmend.parse(after, protocol, None).tool_calls == []
    check_all_invariants(protocol, after, None)


# ollama/ollama@fb30760996871fa9460115c753afd2c60d4ab0f7 tools/tools_test.go "list trailing ]"
# (MIT), in tests/corpus/engines: one `]` too many after the call list.
TRAILING_BRACKET = '[{"name": "get_conditions", "arguments": {"location": "Tokyo"}}]]'


@pytest.mark.parametrize("protocol", ["json", "llama3-json", "auto"])
def test_a_surplus_bracket_after_the_call_list_is_the_lists_markup(protocol: str) -> None:
    for text in (TRAILING_BRACKET, TRAILING_BRACKET.replace("]]", "] ]\n")):
        result = toolmend.parse(text, protocol, None)
        assert [c.name for c in result.tool_calls] == ["get_conditions"]
        assert result.text.strip() == ""
        check_all_invariants(protocol, text, None)
    prose = TRAILING_BRACKET.replace("]]", "] is the list]")
    assert toolmend.parse(prose, protocol, None).tool_calls == []


# mudler/LocalAI@82c191afadf5f005281e798ccfa0ffd0d5805030 pkg/functions/parse_test.go::It(should
# parse XML tool calls alongside JSON tool calls) (MIT), in tests/corpus/engines.
BEFORE_BLOCK = (
    '{"name": "add", "arguments": {"x": 5, "y": 3}}\n<tool_call>\n<function=subtract>\n'
    "<parameter=x>\n10\n</parameter>\n<parameter=y>\n7\n</parameter>\n</function>\n</tool_call>"
)


def test_a_bare_call_followed_only_by_another_calls_block_is_a_call() -> None:
    result = toolmend.parse(BEFORE_BLOCK, "auto", None)
    calls = [(c.name, c.arguments) for c in result.tool_calls]
    assert calls == [("add", {"x": 5, "y": 3}), ("subtract", {"x": 10, "y": 7})]
    assert result.text.strip() == ""
    check_all_invariants("auto", BEFORE_BLOCK, None)


@pytest.mark.parametrize(
    "text",
    [
        "Here is an example:\n" + BEFORE_BLOCK,  # prose before the object
        BEFORE_BLOCK.replace("}}\n<tool_call>", "}} is the shape; the tag is\n<tool_call>"),
    ],
)
def test_prose_beside_a_bare_call_keeps_it_text_though_a_block_follows(text: str) -> None:
    result = toolmend.parse(text, "auto", None)
    assert [c.name for c in result.tool_calls] == ["subtract"]
    assert '{"name": "add"' in result.text
    check_all_invariants("auto", text, None)


@pytest.mark.parametrize(("blanks", "names"), [(1, ["add", "sub"]), (200, ["sub"])])
def test_a_bare_call_closed_by_its_dropped_openers_closer_may_be_followed_by_a_block(
    blanks: int, names: list[str]
) -> None:
    # (past a tag's length of blanks the block after it is too far to count, whatever the split)
    text = BEFORE_CLOSER + " " * blanks + '<|python_tag|>{"name": "sub", "parameters": {"x": 1}}'
    result = toolmend.parse(text, "auto", None)
    assert [c.name for c in result.tool_calls] == names
    check_all_invariants("auto", text, None)
