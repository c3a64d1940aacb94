"""Protocol detection (`auto`): each block is read by the format its markup belongs to."""

from __future__ import annotations

import pytest

import toolmend
from support import check_all_invariants
from toolmend.model import ToolmendError


def test_auto_reads_a_hermes_block_like_hermes() -> None:
    text = 'a <tool_call>{"name": "x", "arguments": {"n": 1}}</tool_call> b'
    auto = toolmend.parse(text, "auto", id_prefix="c")
    hermes = toolmend.parse(text, "hermes", id_prefix="c")
    assert auto == hermes


def test_auto_keeps_the_stream_invariants() -> None:
    check_all_invariants(
        "auto", 'x <tool_call>\n{"name": "x", "arguments": {"s": "v"}}\n</tool_call>\n'
    )


def test_auto_is_accepted_by_get_protocol_but_is_not_a_listed_format() -> None:
    assert toolmend.get_protocol("AUTO").id == "auto"
    assert "auto" not in toolmend.protocols()


def test_auto_refuses_to_render_because_a_prompt_needs_one_format() -> None:
    with pytest.raises(ToolmendError, match="chosen protocol"):
        toolmend.get_protocol("auto").render_call(toolmend.ToolCall(id="c", name="x"))
