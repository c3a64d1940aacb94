"""minimax-m2: MiniMax-M2/M2.1 invokes in `<minimax:tool_call>`, on the invoke family's reader.
Corpus cases run in `tests/test_corpus_conformance.py`."""

from __future__ import annotations

import pytest

import toolmend
from support import check_all_invariants

BLOCK = (
    '<minimax:tool_call>\n<invoke name="create_event">\n<parameter name="title">Meeting'
    '</parameter>\n<parameter name="attendees">["stuart", "frida"]</parameter>\n'
    '<parameter name="count">42</parameter>\n</invoke>\n</minimax:tool_call>'
)


def test_undeclared_json_values_are_read_as_json_named_and_under_auto() -> None:
    for protocol in ("minimax-m2", "auto"):
        (call,) = toolmend.parse(BLOCK, protocol).tool_calls
        assert call.arguments == {"title": "Meeting", "attendees": ["stuart", "frida"], "count": 42}


def test_a_declared_string_keeps_its_text() -> None:
    tools = [
        {
            "name": "create_event",
            "parameters": {"type": "object", "properties": {"count": {"type": "string"}}},
        }
    ]
    (call,) = toolmend.parse(BLOCK, "minimax-m2", tools).tool_calls
    assert call.arguments["count"] == "42"


NULLABLE = [
    {
        "name": "the_tool",
        "parameters": {
            "type": "object",
            "properties": {
                "args": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "note": {"type": "string"},
            },
        },
    }
]


def test_null_for_a_nullable_string_is_null_and_for_a_plain_string_is_text() -> None:
    # SGLang's MiniMax-M2 tests (issue 16057): `hi` stays a string, `null` is null.
    for value, read in (("hi", "hi"), ("null", None)):
        text = (
            '<minimax:tool_call><invoke name="the_tool"><parameter name="args">'
            f'{value}</parameter><parameter name="note">null</parameter></invoke></minimax:tool_call>'
        )
        for protocol in ("minimax-m2", "anthropic-xml", "auto"):
            (call,) = toolmend.parse(text, protocol, NULLABLE).tool_calls
            assert call.arguments == {"args": read, "note": "null"}


def test_a_rendered_call_is_wrapped_in_minimax_tool_call_and_reads_back() -> None:
    call = toolmend.ToolCall(id="c", name="get_weather", arguments={"city": "Wanaka", "days": 2})
    text = toolmend.get_protocol("minimax-m2").render_call(call)
    assert text.startswith("<minimax:tool_call>") and text.endswith("</minimax:tool_call>")
    for protocol in ("minimax-m2", "auto"):
        (got,) = toolmend.parse(text, protocol).tool_calls
        assert got.arguments == call.arguments


def test_the_block_keeps_the_stream_invariants() -> None:
    check_all_invariants("minimax-m2", "Let me check.\n" + BLOCK + "\nDone.")


# A value on its own lines: Ollama's minimaxm2_test.go "parameter with newlines (should trim)"
# (`<parameter name="location">\nTokyo\n</parameter>` is "Tokyo"; vLLM's MiniMax-M2 parser
# trims the same line breaks). The sibling: code laid out so keeps its indentation and its
# inner blank lines; a value begun on its tag's line keeps its final line break.
ON_ITS_OWN_LINES = (
    '<minimax:tool_call>\n<invoke name="write_file">\n<parameter name="path">\na.py\n</parameter>\n'
    '<parameter name="content">\ndef f():\n\n    return 1\n\n</parameter>\n</invoke>\n'
    "</minimax:tool_call>"
)
FROM_ITS_TAG = (
    '<minimax:tool_call>\n<invoke name="write_file">\n<parameter name="path">a.py</parameter>\n'
    '<parameter name="content">x = 1\n</parameter>\n</invoke>\n</minimax:tool_call>'
)
WRITE_PY = [
    {
        "name": "write_file",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["path", "content"],
        },
    }
]


@pytest.mark.parametrize("protocol", ["minimax-m2", "auto"])
def test_a_value_on_its_own_lines_loses_only_the_layout_line_breaks(protocol: str) -> None:
    (call,) = toolmend.parse(ON_ITS_OWN_LINES, protocol, WRITE_PY).tool_calls
    assert call.arguments == {"path": "a.py", "content": "def f():\n\n    return 1\n"}
    (call,) = toolmend.parse(FROM_ITS_TAG, protocol, WRITE_PY).tool_calls
    assert call.arguments == {"path": "a.py", "content": "x = 1\n"}


@pytest.mark.parametrize("text", [ON_ITS_OWN_LINES, FROM_ITS_TAG], ids=["own-lines", "from-tag"])
def test_the_layout_line_breaks_reading_is_split_invariant(text: str) -> None:
    check_all_invariants("minimax-m2", text, WRITE_PY)
    check_all_invariants("auto", text, WRITE_PY)


# MiniMax-M2's template writes a value as it is (its guide's example holds raw quotes), so an
# entity in a value is the model's text: Ollama's minimaxm2_test.go "special characters in
# values" keeps `AI &amp; Machine Learning` (vLLM's parser decodes nothing either). The sibling:
# an HTML file whose entities must reach the disk as written.
ENTITY = (
    '<minimax:tool_call>\n<invoke name="write_file">\n<parameter name="path">a.html</parameter>\n'
    '<parameter name="content"><p>Tom &amp; Jerry &lt;3</p></parameter>\n</invoke>\n'
    "</minimax:tool_call>"
)


@pytest.mark.parametrize("protocol", ["minimax-m2", "auto"])
def test_a_value_is_raw_text_its_entities_kept(protocol: str) -> None:
    (call,) = toolmend.parse(ENTITY, protocol, WRITE_PY).tool_calls
    assert call.arguments == {"path": "a.html", "content": "<p>Tom &amp; Jerry &lt;3</p>"}
    check_all_invariants(protocol, ENTITY, WRITE_PY)


def test_a_raw_value_renders_as_it_is_and_one_holding_a_closer_is_refused() -> None:
    proto = toolmend.get_protocol("minimax-m2")
    call = toolmend.ToolCall(
        id="c1", name="write_file", arguments={"path": "a", "content": "a & <b>"}
    )
    assert '<parameter name="content">a & <b></parameter>' in proto.render_call(call)
    quoting = toolmend.ToolCall(id="c2", name="write_file", arguments={"content": "x</invoke>"})
    with pytest.raises(toolmend.CannotRenderError):
        proto.render_call(quoting)
