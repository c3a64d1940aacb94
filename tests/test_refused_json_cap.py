"""A refused bare JSON value (JSON that holds call-like objects but is no call) longer than a
small `max_fragment` the caller chose: its text is passed over up to the cap and scanned as
text after it, never cut off as an oversized call (`fragment_overflow`) and dropped."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolmend
from support import assert_conserved, comparable, run_chunks, split_at
from tool_fixtures import WEATHER

#: The formats that read bare JSON, and `auto`.
BARE_JSON_FORMATS = ("hermes", "json", "llama3-json", "auto")
#: The smallest cap there is (`MAX_TAG_LENGTH`) and a few above it.
CAPS = (128, 129, 200, 512)


def request_body(content: str) -> str:
    """A request body written as text: it holds an assistant message with a call, no call."""
    item = {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}
    message = {"role": "assistant", "content": content, "tool_calls": [item]}
    return json.dumps({"model": "m", "messages": [message]})


@pytest.mark.parametrize("protocol", BARE_JSON_FORMATS)
@pytest.mark.parametrize("tools", [WEATHER, None], ids=["tools", "no-tools"])
def test_a_refused_value_over_the_cap_is_all_text(protocol: str, tools: object) -> None:
    text = "The API takes " + request_body("x" * 400) + " like so."
    result = toolmend.parse(text, protocol, tools, max_fragment=200)
    assert result.text == text
    assert result.tool_calls == []
    assert [d.code for d in result.diagnostics] == []


@pytest.mark.parametrize("protocol", BARE_JSON_FORMATS)
@settings(max_examples=15, deadline=None)
@given(
    content=st.text(alphabet='ab {}[]"\\:,\n', min_size=100, max_size=260),
    cap=st.sampled_from(CAPS),
    with_tools=st.booleans(),
)
def test_a_refused_value_over_the_cap_is_text_at_every_split(
    protocol: str, content: str, cap: int, with_tools: bool
) -> None:
    text = "See " + request_body(content) + " and go on."
    tools = WEATHER if with_tools else None
    whole = run_chunks(protocol, [text], tools, max_fragment=cap)
    assert_conserved(text, whole)
    codes = {e.code for e in whole if isinstance(e, toolmend.Diagnostic)}
    assert not codes & {"fragment_overflow", "overflow_skipped"}
    assert "".join(e.text for e in whole if isinstance(e, toolmend.TextDelta)) == text
    reference = comparable(whole)
    splits = [list(text), *(split_at(text, [i]) for i in range(1, len(text)))]
    for chunks in splits:
        got = comparable(run_chunks(protocol, chunks, tools, max_fragment=cap))
        assert got == reference, f"split {[len(c) for c in chunks][:4]} changed the events"
