"""With `tools=None`, a bare JSON or pythonic call list counts only as the whole output.

"Whole output" means the visible output: blanks and reasoning before it do not count as text
(vllm-mlx's `test_after_think`: `<think>…</think>[{"name": "search", …}]` is a call), while
prose or another block before it does.
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
