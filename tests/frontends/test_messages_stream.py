"""Chat chunks become the Anthropic Messages event grammar (the answer direction)."""

from __future__ import annotations

import json
from typing import Any

from anthropic.types import Message
from hypothesis import given
from hypothesis import strategies as st

from frontends.anthropic_grammar import check_grammar, sdk_message
from frontends.chunks import (
    PLAN_STEPS,
    call,
    chunk,
    plan_chunks,
    reasoning,
    split_call_stream,
    text,
    usage,
)
from frontends.chunks import (
    completion as make_completion,
)
from toolmend.server.frontends.chat_request import ChatRequest
from toolmend.server.frontends.messages import translate_request
from toolmend.server.frontends.messages_stream import (
    INVALID_ARGUMENTS_KEY,
    MessagesStream,
    assemble_message,
    message_from_completion,
)
from toolmend.server.frontends.toolnames import BLANK_NAME

WRITE = {
    "name": "Write",
    "input_schema": {
        "type": "object",
        "properties": {"file_path": {"type": "string"}, "content": {"type": "string"}},
    },
}


def _request(messages: list[dict[str, Any]] | None = None, **extra: Any) -> ChatRequest:
    body = {"model": "claude-sonnet-4-5", "max_tokens": 100, "tools": [WRITE], **extra}
    body["messages"] = messages or [{"role": "user", "content": "write hello.py"}]
    return translate_request(body)


def _run(
    chunks: list[dict[str, Any]], request: ChatRequest | None = None, tokens: int = 42
) -> list[dict[str, Any]]:
    stream = MessagesStream(request or _request(), model="claude-sonnet-4-5", input_tokens=tokens)
    events: list[dict[str, Any]] = []
    for item in chunks:
        events += stream.feed(item)
    return events + stream.finish()


def _types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] if e["type"] != "content_block_delta" else e["delta"]["type"] for e in events]


def test_a_text_answer_follows_the_documented_grammar_and_the_sdk_reads_it() -> None:
    events = _run([text("Hel"), text("lo"), chunk(finish="stop"), usage(30, 2)])
    check_grammar(events)
    assert _types(events) == [
        "message_start",
        "ping",
        "content_block_start",
        "text_delta",
        "text_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    message = sdk_message(events)
    assert message["content"] == [{"type": "text", "text": "Hello"}]
    assert message["stop_reason"] == "end_turn"


def test_message_start_carries_the_input_estimate_and_message_delta_the_upstreams_usage() -> None:
    events = _run([text("a"), chunk(finish="stop"), usage(1200, 7, cached=1000)], tokens=1234)
    assert events[0]["message"]["usage"] == {"input_tokens": 1234, "output_tokens": 0}
    assert events[-2]["usage"] == {
        "input_tokens": 200,
        "output_tokens": 7,
        "cache_read_input_tokens": 1000,
    }


def test_message_delta_waits_for_the_usage_chunk_after_the_finish_reason() -> None:
    stream = MessagesStream(_request(), model="m", input_tokens=1)
    early = stream.feed(text("a")) + stream.feed(chunk(finish="stop"))
    assert "message_delta" not in _types(early)
    late = stream.feed(usage(5, 3)) + stream.finish()
    assert late[-2]["usage"]["output_tokens"] == 3


def test_the_fragment_that_opens_a_tool_call_is_never_dropped() -> None:
    arguments = json.dumps({"file_path": "hello.py", "content": "print('hi')\n"})
    events = _run([*split_call_stream(arguments), chunk(finish="tool_calls")])
    check_grammar(events)
    partial = "".join(
        e["delta"]["partial_json"] for e in events if e["type"] == "content_block_delta"
    )
    assert partial == arguments
    assert sdk_message(events)["content"][0]["input"] == json.loads(arguments)


def test_arguments_sent_before_the_name_arrive_right_after_the_block_start() -> None:
    events = _run(
        [call(0, arguments='{"file_path":'), call(0, id="c1", name="Write", arguments=' "a"}')]
    )
    start = next(i for i, e in enumerate(events) if e["type"] == "content_block_start")
    assert events[start]["content_block"]["name"] == "Write"
    assert events[start + 1]["delta"] == {
        "type": "input_json_delta",
        "partial_json": '{"file_path": "a"}',
    }


def test_stop_reason_is_tool_use_whenever_a_call_was_emitted_whatever_the_finish_reason() -> None:
    for finish in ("stop", "tool_calls", None):
        events = _run(
            [text("ok"), call(0, id="c", name="Write", arguments="{}"), chunk(finish=finish)]
        )
        assert events[-2]["delta"]["stop_reason"] == "tool_use"


def test_length_is_max_tokens_and_a_matched_stop_string_is_stop_sequence() -> None:
    assert _run([text("a"), chunk(finish="length")])[-2]["delta"]["stop_reason"] == "max_tokens"
    events = _run(
        [text("a"), chunk(finish="stop", stop_reason="END")], _request(stop_sequences=["END"])
    )
    assert events[-2]["delta"] == {"stop_reason": "stop_sequence", "stop_sequence": "END"}


def test_reasoning_becomes_a_thinking_block_with_no_invented_signature() -> None:
    for key in ("reasoning_content", "reasoning"):
        events = _run(
            [reasoning("think", key), reasoning("ing", key), text("answer"), chunk(finish="stop")]
        )
        check_grammar(events)
        content = sdk_message(events)["content"]
        assert content == [
            {"type": "thinking", "thinking": "thinking", "signature": ""},
            {"type": "text", "text": "answer"},
        ]
        assert "signature_delta" not in _types(events)


def test_parallel_calls_are_tracked_by_index_even_when_the_upstream_repeats_ids() -> None:
    chunks = [
        call(0, id="call_0", name="Write", arguments='{"file_path": "a"}'),
        call(1, id="call_0", name="Write", arguments='{"file_path":'),
        call(1, arguments=' "b"}'),
        chunk(finish="tool_calls"),
    ]
    content = sdk_message(_run(chunks))["content"]
    assert [block["input"] for block in content] == [{"file_path": "a"}, {"file_path": "b"}]
    ids = [block["id"] for block in content]
    assert ids[0] == "call_0" and ids[1] != "call_0"


def test_an_id_already_used_in_the_history_is_replaced_and_a_missing_one_is_minted() -> None:
    history = [
        {"role": "user", "content": "a"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "call_0", "name": "Write", "input": {}}],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "call_0", "content": "ok"}],
        },
    ]
    events = _run(
        [call(0, id="call_0", name="Write", arguments="{}"), call(1, name="Write", arguments="{}")],
        _request(history),
    )
    ids = [b["id"] for b in sdk_message(events)["content"]]
    assert "call_0" not in ids and len(set(ids)) == 2
    assert all(i.startswith("toolu_") for i in ids)


def test_a_long_tool_name_maps_back_to_the_clients_name() -> None:
    long_name = "mcp__" + "x" * 70
    request = translate_request(
        {
            "model": "m",
            "messages": [],
            "tools": [{"name": long_name, "input_schema": {"type": "object"}}],
        }
    )
    wire = request.body["tools"][0]["function"]["name"]
    events = _run([call(0, id="c", name=wire, arguments="{}")], request)
    assert sdk_message(events)["content"][0]["name"] == long_name


def test_a_call_whose_name_never_arrives_is_kept_under_the_placeholder_name() -> None:
    events = _run([call(0, id="c", arguments='{"a": 1}'), chunk(finish="tool_calls")])
    check_grammar(events)
    block = sdk_message(events)["content"][0]
    assert (block["name"], block["input"]) == (BLANK_NAME, {"a": 1})


def test_text_after_a_call_opens_a_new_block_and_closes_the_call() -> None:
    events = _run(
        [call(0, id="c", name="Write", arguments="{}"), text("done"), chunk(finish="stop")]
    )
    check_grammar(events)
    assert [b["type"] for b in sdk_message(events)["content"]] == ["tool_use", "text"]


def test_the_non_streaming_message_equals_the_streamed_one_and_validates() -> None:
    completion = make_completion(
        "Writing.",
        [("call_1", "Write", '{"file_path": "h.py"}')],
        (10, 5),
        reasoning_content="plan",
    )
    message = message_from_completion(
        completion, _request(), model="claude-sonnet-4-5", input_tokens=9
    )
    Message.model_validate(message)
    assert [b["type"] for b in message["content"]] == ["thinking", "text", "tool_use"]
    assert message["content"][2]["input"] == {"file_path": "h.py"}
    assert message["stop_reason"] == "tool_use"
    assert message["usage"] == {"input_tokens": 10, "output_tokens": 5}


def test_arguments_that_are_not_a_json_object_are_named_not_replaced_by_an_empty_object() -> None:
    message = assemble_message(_run([call(0, id="c", name="Write", arguments='{"file_path": "a"')]))
    assert message["content"][0]["input"] == {INVALID_ARGUMENTS_KEY: '{"file_path": "a"'}


@given(st.lists(st.sampled_from(PLAN_STEPS), max_size=12))
def test_any_mix_of_pieces_keeps_the_grammar_and_loses_no_text(plan: list[str]) -> None:
    chunks = plan_chunks(plan, "Write")
    events = _run([*chunks, chunk(finish="stop")])
    check_grammar(events)
    message = sdk_message(events)
    visible = "".join(b.get("text", "") + b.get("thinking", "") for b in message["content"])
    assert visible.count("t") == plan.count("text") and visible.count("r") == plan.count(
        "reasoning"
    )
