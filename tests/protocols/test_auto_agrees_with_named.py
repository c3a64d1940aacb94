"""`auto` reads what the named protocol reads where that is safe: a ```` ```json ```` fence
inside `<tool_call>` (Hermes reads it), and, with `tools=None`, a bare call after a call block
as well as before one (an output of calls only)."""

from __future__ import annotations

import toolmend
from support import check_all_invariants

FENCED = (
    '<tool_call>\n```json\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```\n'
    "</tool_call>"
)


def names(text: str, protocol: str, tools: object = None) -> tuple[list[str], str]:
    result = toolmend.parse(text, protocol, tools)  # type: ignore[arg-type]
    return [c.name for c in result.tool_calls if c.executable], result.text


def test_a_fenced_json_call_inside_tool_call_is_read_by_auto_as_hermes_reads_it() -> None:
    assert names(FENCED, "auto") == names(FENCED, "hermes") == (["get_weather"], "")
    check_all_invariants("auto", FENCED, None)


def test_a_fence_inside_tool_call_that_holds_no_json_is_no_call_under_auto() -> None:
    text = "<tool_call>\n```python\nprint(1)\n```\n</tool_call>"
    assert names(text, "auto")[0] == []
    assert names(text, "hermes")[0] == []


BLOCK = '<tool_call>{"name": "a", "arguments": {}}</tool_call>'
BARE = '{"name": "b", "arguments": {"x": 1}}'


def test_with_no_tools_a_bare_call_after_a_call_block_is_read_as_one_before_it_is() -> None:
    after = f"{BLOCK}\n{BARE}"
    before = f"{BARE}\n{BLOCK}"
    assert names(after, "auto") == (["a", "b"], "\n")
    assert names(before, "auto") == (["b", "a"], "\n")
    check_all_invariants("auto", after, None)


def test_with_no_tools_a_bare_call_after_a_block_and_before_prose_stays_text() -> None:
    text = f"{BLOCK}\n{BARE}\nThat is all."
    assert names(text, "auto") == (["a"], f"\n{BARE}\nThat is all.")


def test_with_no_tools_a_bare_call_after_prose_after_a_block_stays_text() -> None:
    text = f"{BLOCK}\nThen:\n{BARE}"
    assert names(text, "auto") == (["a"], f"\nThen:\n{BARE}")
