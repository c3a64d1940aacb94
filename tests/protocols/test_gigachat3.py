"""GigaChat 3 and 3.1 (vLLM's `gigachat3` parser tests): one JSON call object after the
function-call header, `<|message_sep|>` before GigaChat 3's header and `</s>` after the call
being the template's markup."""

from __future__ import annotations

import json

import pytest

import toolmend
from support import check_all_invariants

ARGS = {"action": "create", "id": "preferences"}
CALL = json.dumps({"name": "manage_user_memory", "arguments": ARGS})
HEADERS = {
    "gigachat3": "<|message_sep|>\n\nfunction call<|role_sep|>\n",
    "gigachat31": "<|function_call|>",
}


@pytest.mark.parametrize("header", list(HEADERS.values()), ids=list(HEADERS))
def test_a_call_after_either_header_is_read_and_its_markup_removed(header: str) -> None:
    text = "I'll check that for you." + header + CALL + "</s>"
    for protocol in ("gigachat3", "auto"):
        result = toolmend.parse(text, protocol)
        assert [(c.name, c.arguments) for c in result.tool_calls] == [("manage_user_memory", ARGS)]
        assert result.text.strip() == "I'll check that for you."
    check_all_invariants("gigachat3", text, None)
    check_all_invariants("auto", text, None)


def test_a_call_with_no_arguments_is_read() -> None:
    text = '<|function_call|>{"name": "manage_user_memory", "arguments": {}}'
    (call,) = toolmend.parse(text, "gigachat3").tool_calls
    assert (call.name, call.arguments, call.executable) == ("manage_user_memory", {}, True)


def test_a_rendered_call_reads_back() -> None:
    proto = toolmend.get_protocol("gigachat3")
    call = toolmend.ToolCall(id="c1", name="manage_user_memory", arguments=ARGS)
    (read,) = toolmend.parse(proto.render_call(call), "gigachat3").tool_calls
    assert (read.name, read.arguments) == (call.name, call.arguments)


def test_prose_that_says_function_call_is_text() -> None:
    text = "The function call failed, so I will retry."
    result = toolmend.parse(text, "gigachat3")
    assert (result.tool_calls, result.text) == ([], text)
