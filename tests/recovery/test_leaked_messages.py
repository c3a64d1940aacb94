"""A whole assistant message leaked into `delta.content` as JSON is recovered as its calls.

Models trained on chat-completion transcripts write the wire's own message as their text:
`{"role": "assistant", "content": …, "tool_calls": [...]}` (OpenAI items, or Ollama's
`{"function": {…}}` ones; devstral behind llama.cpp wrote the `tool_calls` envelope,
ggml-org/llama.cpp#14697), or the legacy `{"function_call": {…}}`. Read by `auto` (any model
family without formats of its own), streamed or whole, however the content is split: the
message's content stays visible text in its place, unknown tools stay text, with `tools=None`
only a message that is the whole output is read, and JSON that merely has these keys never
becomes a call.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import toolmend

from .wire import TOOLS, recover, split_every, splits_at_every_boundary

MODEL = "qwen2.5-coder-14b"
OSLO = {"city": "Oslo"}
ITEM = {
    "id": "call_9",
    "type": "function",
    "function": {"name": "get_weather", "arguments": json.dumps(OSLO)},
}
MESSAGE = json.dumps({"role": "assistant", "content": "Checking.", "tool_calls": [ITEM]})
LEGACY = json.dumps(
    {
        "role": "assistant",
        "content": None,
        "function_call": {"name": "read_file", "arguments": '{"path": "a.py"}'},
    }
)
#: devstral's leak as reported (ggml-org/llama.cpp#14697), with this suite's tool.
DEVSTRAL = (
    '{\n  "tool_calls": [\n    {\n      "name": "read_file",\n      "arguments": {\n'
    '        "path": "src/util.rs"\n      },\n      "id": "162875335"\n    }\n  ]\n}'
)


@pytest.mark.parametrize("pieces", list(splits_at_every_boundary(f"On it. {MESSAGE} Bye.")))
def test_a_leaked_message_is_its_call_and_its_content_stays_in_place_at_every_split(pieces):
    got = recover(pieces, model=MODEL)
    assert got["calls"] == [("get_weather", OSLO)]
    assert got["text"] == "On it. Checking. Bye."
    assert got["finish"] == ["tool_calls"]
    assert got["rejected"] == []


@pytest.mark.parametrize("pieces", list(splits_at_every_boundary(LEGACY)))
def test_a_leaked_legacy_function_call_is_a_tool_call_at_every_split(pieces):
    got = recover(pieces, model=MODEL)
    assert got["calls"] == [("read_file", {"path": "a.py"})]
    assert got["text"] == ""
    assert got["finish"] == ["tool_calls"]


def test_devstrals_reported_envelope_is_its_call():
    got = recover(split_every(DEVSTRAL, 5), model="devstral-small-2505")
    assert got["calls"] == [("read_file", {"path": "src/util.rs"})]
    assert got["text"] == ""


def test_a_list_of_messages_keeps_each_content_before_its_call():
    both = json.dumps(
        [
            json.loads(MESSAGE),
            {
                "role": "assistant",
                "content": "Then.",
                "function_call": json.loads(LEGACY)["function_call"],
            },
        ]
    )
    got = recover(split_every(both, 3), model=MODEL)
    assert got["calls"] == [("get_weather", OSLO), ("read_file", {"path": "a.py"})]
    assert got["text"] == "Checking.Then."


def test_a_non_streamed_response_whose_content_is_a_message_gets_its_calls():
    response = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 5,
        "model": MODEL,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": MESSAGE},
                "finish_reason": "stop",
            }
        ],
    }
    out = toolmend.recover_response(response, tools=TOOLS, id_prefix="r")
    message = out["choices"][0]["message"]
    assert message["content"] == "Checking."
    assert [c["function"]["name"] for c in message["tool_calls"]] == ["get_weather"]
    assert json.loads(message["tool_calls"][0]["function"]["arguments"]) == OSLO
    assert out["choices"][0]["finish_reason"] == "tool_calls"


def test_a_leaked_message_naming_an_unknown_tool_stays_text():
    text = f"Example: {MESSAGE.replace('get_weather', 'launch_rocket')}"
    got = recover(split_every(text, 4), model=MODEL)
    assert got["calls"] == []
    assert got["text"] == text
    assert got["finish"] == ["stop"]


def test_with_no_tools_given_a_message_is_read_only_as_the_whole_output():
    whole = recover(split_every(LEGACY, 6), tools=None, model=MODEL)
    assert whole["calls"] == [("read_file", {"path": "a.py"})]
    in_prose = recover(split_every(f"Like this: {LEGACY}", 6), tools=None, model=MODEL)
    assert in_prose["calls"] == []
    assert in_prose["text"] == f"Like this: {LEGACY}"


#: Prose and examples that hold these keys but are no assistant message making calls.
NOT_CALLS: dict[str, Any] = {
    "a user message": {"role": "user", "content": "Read a.py"},
    "an assistant reply without calls": {"role": "assistant", "content": "Done."},
    "a tool result": {"role": "tool", "tool_call_id": "call_9", "content": "ok"},
    "a request body": {
        "model": "gpt-4o",
        "messages": [{"role": "assistant", "content": None, "tool_calls": [ITEM]}],
    },
    "a message with a field no reply has": {
        "role": "assistant",
        "content": None,
        "tool_calls": [ITEM],
        "tool_choice": "auto",
    },
    "a null function_call": {"role": "assistant", "content": "Hi", "function_call": None},
}


@pytest.mark.parametrize("case", list(NOT_CALLS))
def test_json_that_only_mentions_these_keys_stays_text(case):
    text = f"The API takes {json.dumps(NOT_CALLS[case])} like so."
    for size in (1, 5, len(text)):
        got = recover(split_every(text, size), model=MODEL)
        assert got["calls"] == [] and got["rejected"] == []
        assert got["text"] == text
        assert got["finish"] == ["stop"]


@pytest.mark.parametrize("fence", ["```json\n{}\n```", "`{}`"])
def test_a_message_in_a_code_fence_or_inline_code_is_never_a_call(fence):
    text = "Here is the shape:\n" + fence.replace("{}", MESSAGE) + "\nThat's all."
    got = recover(split_every(text, 4), model=MODEL)
    assert got["calls"] == []
    assert got["text"] == text
