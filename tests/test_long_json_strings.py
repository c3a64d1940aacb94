"""A long JSON string value in one piece (a batch parse, a large chunk) is read whole by the C
decoder when it can be (`json_calls._whole_string`), and its delta reuses the text as written
when that is already its canonical encoding: both give exactly what reading it in small pieces
gives, whatever escapes it holds."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

import toolmend
from support import comparable, run_chunks, split_at, streamed_arguments
from toolmend.core.argstream import is_canonical_json_string, json_string_text
from toolmend.protocols.json_calls import LONG_STRING

TOOLS = [
    {
        "name": "write_file",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["path", "content"],
        },
    }
]
#: Pieces of a JSON string's source: plain text, every escape JSON has (valid and not), raw
#: control characters and non-ASCII text, a surrogate pair and a lone surrogate.
SOURCE_PIECES = [
    "plain text ",
    "x" * 300,
    '\\"',
    "\\\\",
    "\\/",
    "\\n",
    "\\t",
    "\\b\\f\\r",
    "\\u00e9",
    "\\ud83d\\ude00",
    "\\ud800",
    "\\x",
    "\t",
    "\x01",
    "é",
    "</tool_call>",
    "\\\\u",
]


def hermes_call(source: str) -> str:
    return (
        '<tool_call>\n{"name": "write_file", "arguments": {"path": "a.py", "content": "'
        + source
        + '"}}\n</tool_call>\nDone.'
    )


@settings(max_examples=60, deadline=None)
@given(pieces=st.lists(st.sampled_from(SOURCE_PIECES), min_size=1, max_size=12))
def test_a_long_string_read_whole_gives_what_small_pieces_give(pieces: list[str]) -> None:
    source = "".join(pieces)
    source += "y" * max(0, LONG_STRING + 10 - len(source))  # long enough to be tried whole
    text = hermes_call(source)
    whole = run_chunks("hermes", [text], TOOLS)
    small = run_chunks("hermes", split_at(text, range(7, len(text), 7)), TOOLS)
    assert comparable(whole) == comparable(small)
    result = toolmend.parse(text, "hermes", TOOLS)
    call = result.tool_calls[0] if result.tool_calls else None
    if call is not None and call.executable and not call.repairs:
        # (a repaired call's deltas stop where the repair changed what was sent)
        assert streamed_arguments(whole) == toolmend.model.canonical_json(call.arguments)


def test_a_long_string_from_a_json_encoder_streams_its_source_as_its_delta() -> None:
    content = 'value = f("q") \\ <tags> & more\n' * 100
    source = json.dumps(content)[1:-1]
    assert is_canonical_json_string(source)
    assert json_string_text(content) == source
    result = toolmend.parse(hermes_call(source), "hermes", TOOLS)
    assert result.tool_calls[0].arguments["content"] == content


def test_source_that_is_not_the_encoders_own_is_encoded_again() -> None:
    for source in ["\\/", "\\u0041", "é", "\t", "\\\\u"]:
        assert not is_canonical_json_string(source), source
