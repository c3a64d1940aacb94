"""Invariants every registered protocol keeps, checked on calls it renders itself.

Round trip (parsing `render_call(c)` gives back `c`), split-invariance at random chunk
boundaries and one character at a time, conservation of every input character, and argument
deltas that are prefixes of the final arguments JSON.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolmend
from support import (
    assert_conserved,
    assert_deltas_are_prefixes,
    comparable,
    run_chunks,
    split_at,
)
from toolmend.protocols.invoke_xml import PREFIX

# Text a model writes in arguments: code with < and >, quotes, braces, newlines, non-ASCII, and
# the markup of every format (closers, delimiters, entities, escapes): a format either carries
# it (escaped) or refuses the call (`CannotRenderError`); it never writes a call that reads back
# as another one.
_TEXT_ALPHABET = st.sampled_from(
    [*list("abcdefxyz ABC012_-.,:;=+*#!?'\"{}[]()<>\n\t"), "é", "中", "😀", "\\", "$", "&"]
)
_MARKUP = st.sampled_from(
    [
        "</parameter>",
        "</function>",
        "<parameter=",
        "</tool_call>",
        "<tool_call>",
        "</ifm|arg_value>",
        '<|"|>',
        "<tool_call|>",
        "<|close|>",
        "<|open|>",
        "<|sep|>",
        "</invoke>",
        f"</{PREFIX}parameter>",
        "</write_file>",
        "<write_file>",
        "]]>",
        "<![CDATA[",
        "&amp;",
        "&lt;",
        "\\u00e9",
        "```",
    ]
)
_text = st.lists(st.one_of(_TEXT_ALPHABET, _MARKUP), max_size=30).map("".join)
#: Formats that write values unescaped: they refuse what they cannot carry.
RAW_VALUE_FORMATS = {
    "minimax-m2",
    "qwen3-coder",
    "seed-oss",
    "gemma4",
    "yaml-xml",
    "glm45",
    "glm47",
    "k2-v3",
    "hy-v4",
    "lfm2",
    "olmo3",
    "minimax-m3",
}
_key = st.from_regex(r"[a-z][a-z0-9_]{0,9}", fullmatch=True)
_scalar = st.one_of(
    _text,
    st.integers(min_value=-(10**9), max_value=10**9),
    st.booleans(),
    st.floats(allow_nan=False, allow_infinity=False, width=32).filter(lambda f: f != int(f)),
)
_value = st.one_of(
    _scalar,
    st.lists(_text, max_size=3),
    st.dictionaries(_key, _text, max_size=3),
)
_arguments = st.dictionaries(_key, _value, max_size=4)


def schema_for(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"type": "boolean"}
    if isinstance(value, int):
        return {"type": "integer"}
    if isinstance(value, float):
        return {"type": "number"}
    if isinstance(value, str):
        return {"type": "string"}
    if isinstance(value, list):
        return {"type": "array", "items": {"type": "string"}}
    return {"type": "object", "properties": {k: schema_for(v) for k, v in value.items()}}


def tools_for(name: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": "generated",
                "parameters": {
                    "type": "object",
                    "properties": {k: schema_for(v) for k, v in arguments.items()},
                    "required": sorted(arguments),
                },
            },
        }
    ]


PROTOCOLS = toolmend.protocols()


@pytest.mark.parametrize("protocol", PROTOCOLS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(arguments=_arguments)
def test_parsing_a_rendered_call_gives_the_call_back(protocol: str, arguments: dict) -> None:
    proto = toolmend.get_protocol(protocol)
    call = toolmend.ToolCall(id="call_1", name="write_file", arguments=arguments)
    try:
        text = proto.render_call(call)
    except toolmend.CannotRenderError:
        assert protocol in RAW_VALUE_FORMATS
        return
    result = toolmend.parse(text, protocol, tools_for("write_file", arguments))
    assert [(c.name, c.arguments, c.incomplete) for c in result.tool_calls] == [
        ("write_file", arguments, False)
    ]
    assert result.text.strip() == ""


@pytest.mark.parametrize("protocol", PROTOCOLS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(arguments=_arguments, before=_text, after=_text, seed=st.integers(0, 2**16))
def test_rendered_calls_in_text_survive_any_split(
    protocol: str, arguments: dict, before: str, after: str, seed: int
) -> None:
    proto = toolmend.get_protocol(protocol)
    call = toolmend.ToolCall(id="call_1", name="write_file", arguments=arguments)
    try:
        rendered = proto.render_call(call)
    except toolmend.CannotRenderError:
        assert protocol in RAW_VALUE_FORMATS
        return
    text = f"{before}\n{rendered}\n{after}"
    tools = tools_for("write_file", arguments)
    whole = run_chunks(protocol, [text], tools)
    assert_conserved(text, whole)
    assert_deltas_are_prefixes(whole)
    reference = comparable(whole)
    rng = random.Random(seed)
    points = [rng.randint(1, max(1, len(text) - 1)) for _ in range(rng.randint(1, 12))]
    for chunks in (split_at(text, points), list(text)):
        events = run_chunks(protocol, chunks, tools)
        assert comparable(events) == reference
        assert_deltas_are_prefixes(events)
