"""OpenAI Responses requests become chat requests, and chat chunks the Responses event grammar."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

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
from frontends.responses_grammar import check_grammar
from toolmend.server.frontends.responses import (
    ResponsesRequestError,
    joined_name,
    translate_request,
)
from toolmend.server.frontends.responses_stream import ResponsesStream, response_from_completion

SHELL = {
    "type": "function",
    "name": "shell",
    "description": "Runs a shell command",
    "strict": False,
    "parameters": {
        "type": "object",
        "properties": {"command": {"type": "array", "items": {"type": "string"}}},
        "required": ["command"],
    },
}
APPLY_PATCH = {
    "type": "custom",
    "name": "apply_patch",
    "description": "Apply a patch",
    "format": {"type": "grammar", "syntax": "lark", "definition": "start: begin_patch"},
}
NAMESPACE = {
    "type": "namespace",
    "name": "mcp__fs__",
    "description": "file tools",
    "tools": [{"type": "function", "name": "read", "parameters": {"type": "object"}}],
}


def _body(input_: Any, **extra: Any) -> dict[str, Any]:
    return {"model": "qwen3-coder", "instructions": "You are Codex.", "input": input_, **extra}


def _run(body: dict[str, Any], chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    request = translate_request(body)
    stream = ResponsesStream(request, body, model=body["model"], input_tokens=50)
    events: list[dict[str, Any]] = []
    for item in chunks:
        events += stream.feed(item)
    return events + stream.finish()


def test_instructions_and_a_string_input_become_system_and_user_messages() -> None:
    messages = translate_request(_body("list files")).body["messages"]
    assert messages == [
        {"role": "system", "content": "You are Codex."},
        {"role": "user", "content": "list files"},
    ]


def test_developer_messages_become_system_messages_in_place() -> None:
    items = [
        {
            "type": "message",
            "role": "developer",
            "content": [{"type": "input_text", "text": "sandbox: read-only"}],
        },
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
    ]
    messages = translate_request(_body(items)).body["messages"]
    assert messages[1] == {"role": "system", "content": "sandbox: read-only"}


def test_function_calls_and_their_outputs_become_tool_calls_and_tool_messages() -> None:
    items = [
        {"type": "message", "role": "user", "content": "ls"},
        {
            "type": "function_call",
            "call_id": "call_1",
            "name": "shell",
            "arguments": '{"command": ["ls"]}',
        },
        {"type": "function_call_output", "call_id": "call_1", "output": "a.txt"},
    ]
    messages = translate_request(_body(items, tools=[SHELL])).body["messages"]
    assert messages[2] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "shell", "arguments": '{"command": ["ls"]}'},
            }
        ],
    }
    assert messages[3] == {"role": "tool", "tool_call_id": "call_1", "content": "a.txt"}


def test_parallel_calls_join_one_assistant_message_and_text_before_them_stays_in_it() -> None:
    items = [
        {"type": "message", "role": "user", "content": "go"},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Running both."}],
        },
        {"type": "function_call", "call_id": "a", "name": "shell", "arguments": "{}"},
        {"type": "function_call", "call_id": "b", "name": "shell", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "b", "output": "B"},
        {"type": "function_call_output", "call_id": "a", "output": "A"},
    ]
    messages = translate_request(_body(items, tools=[SHELL])).body["messages"]
    assert messages[2]["content"] == "Running both."
    assert [c["id"] for c in messages[2]["tool_calls"]] == ["a", "b"]
    assert [(m["role"], m.get("tool_call_id")) for m in messages[3:]] == [
        ("tool", "a"),
        ("tool", "b"),
    ]


def test_reasoning_items_are_echoed_for_families_that_need_them() -> None:
    items = [
        {"type": "message", "role": "user", "content": "go"},
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [],
            "content": [{"type": "reasoning_text", "text": "list first"}],
        },
        {"type": "function_call", "call_id": "a", "name": "shell", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "a", "output": "A"},
    ]
    body = _body(items, tools=[SHELL])
    assert (
        translate_request(body, upstream_model="kimi-k2-thinking").body["messages"][2][
            "reasoning_content"
        ]
        == "list first"
    )
    assert "reasoning_content" not in translate_request(body).body["messages"][2]


def test_a_custom_tool_becomes_a_function_with_one_string_input_and_its_grammar() -> None:
    request = translate_request(_body("patch it", tools=[APPLY_PATCH]))
    function = request.body["tools"][0]["function"]
    assert function["parameters"]["required"] == ["input"]
    assert "start: begin_patch" in function["description"]


def test_namespace_tools_are_joined_to_one_name_and_calls_come_back_with_their_namespace() -> None:
    body = _body("read a", tools=[NAMESPACE], stream=True)
    assert translate_request(body).body["tools"][0]["function"]["name"] == "mcp__fs__read"
    final = check_grammar(
        _run(body, [call(0, id="c1", name="mcp__fs__read", arguments='{"p": "a"}')])
    )
    item = final["output"][0]
    assert (item["type"], item["name"], item["namespace"]) == ("function_call", "read", "mcp__fs__")
    assert joined_name("crm", "find") == "crm__find"


def test_hosted_tools_are_left_out_with_a_diagnostic_and_refused_when_forced() -> None:
    request = translate_request(_body("x", tools=[SHELL, {"type": "web_search"}]))
    assert [t["function"]["name"] for t in request.body["tools"]] == ["shell"]
    assert [d.code for d in request.diagnostics] == ["hosted_tool_dropped"]
    with pytest.raises(ResponsesRequestError, match="web_search"):
        translate_request(
            _body("x", tools=[{"type": "web_search"}], tool_choice={"type": "web_search"})
        )


def test_previous_items_come_first() -> None:
    previous = [
        {"type": "message", "role": "user", "content": "first"},
        {
            "type": "function_call",
            "call_id": "c",
            "name": "shell",
            "arguments": "{}",
            "id": "fc_1",
            "status": "completed",
        },
    ]
    body = _body(
        [{"type": "function_call_output", "call_id": "c", "output": "done"}], tools=[SHELL]
    )
    messages = translate_request(body, previous_items=previous).body["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool"]


def test_image_outputs_move_to_a_user_message_after_the_tool_message() -> None:
    output = [
        {"type": "input_text", "text": "shot"},
        {"type": "input_image", "image_url": "data:image/png;base64,AAA="},
    ]
    items = [
        {"type": "function_call", "call_id": "c", "name": "shell", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c", "output": output},
    ]
    messages = translate_request(_body(items, tools=[SHELL])).body["messages"]
    assert messages[2] == {"role": "tool", "tool_call_id": "c", "content": "shot"}
    assert messages[3]["role"] == "user" and messages[3]["content"][1]["type"] == "image_url"


def test_a_text_answer_follows_the_grammar_and_the_sdk_reads_it() -> None:
    events = _run(
        _body("hi"), [text("Hel"), text("lo"), chunk(finish="stop"), usage(20, 2, cached=8)]
    )
    final = check_grammar(events)
    assert [e["type"] for e in events] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert final["output"][0]["content"][0]["text"] == "Hello"
    assert final["usage"]["input_tokens_details"]["cached_tokens"] == 8
    assert (final["usage"]["input_tokens"], final["usage"]["output_tokens"]) == (20, 2)


def test_a_streamed_call_keeps_its_first_fragment_and_ends_with_the_whole_arguments() -> None:
    arguments = json.dumps({"command": ["bash", "-lc", "echo hi > hello.txt"]})
    events = _run(
        _body("x", tools=[SHELL]),
        [text("ok"), *split_call_stream(arguments, name="shell"), chunk(finish="tool_calls")],
    )
    final = check_grammar(events)
    deltas = "".join(
        e["delta"] for e in events if e["type"] == "response.function_call_arguments.delta"
    )
    assert deltas == arguments
    item = final["output"][1]
    assert (item["type"], item["call_id"], item["arguments"], item["status"]) == (
        "function_call",
        "call_0",
        arguments,
        "completed",
    )


def test_a_custom_tool_call_comes_back_as_a_custom_tool_call_item_with_raw_input() -> None:
    patch = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch"
    chunks = [call(0, id="c", name="apply_patch", arguments=json.dumps({"input": patch}))]
    final = check_grammar(_run(_body("x", tools=[APPLY_PATCH]), chunks))
    assert final["output"][0]["type"] == "custom_tool_call" and final["output"][0]["input"] == patch


def test_a_local_shell_call_comes_back_as_a_local_shell_call_item() -> None:
    chunks = [call(0, id="c", name="local_shell", arguments='{"command": ["ls", "-a"]}')]
    final = check_grammar(_run(_body("x", tools=[{"type": "local_shell"}]), chunks))
    assert final["output"][0]["action"]["command"] == ["ls", "-a"]


def test_reasoning_becomes_a_reasoning_item_before_the_message() -> None:
    final = check_grammar(_run(_body("x"), [reasoning("hmm"), text("yes"), chunk(finish="stop")]))
    assert [i["type"] for i in final["output"]] == ["reasoning", "message"]
    assert final["output"][0]["content"] == [{"type": "reasoning_text", "text": "hmm"}]


def test_a_length_stop_ends_as_incomplete_with_its_reason() -> None:
    events = _run(_body("x"), [text("a"), chunk(finish="length")])
    final = check_grammar(events)
    assert events[-1]["type"] == "response.incomplete"
    assert final["incomplete_details"] == {"reason": "max_output_tokens"}


def test_a_failure_closes_the_open_item_then_fails_the_response() -> None:
    body = _body("x")
    stream = ResponsesStream(translate_request(body), body, model="m", input_tokens=1)
    events = stream.feed(text("par")) + stream.fail("upstream dropped the connection")
    final = check_grammar(events)
    assert (
        final["status"] == "failed"
        and final["error"]["message"] == "upstream dropped the connection"
    )


def test_the_non_streaming_response_matches_the_streamed_one() -> None:
    completion = make_completion("run", [("call_9", "shell", '{"command": ["ls"]}')], (3, 4))
    body = _body("x", tools=[SHELL])
    response, items = response_from_completion(
        completion, translate_request(body), body, model="m", input_tokens=3
    )
    assert response["status"] == "completed" and response["output"] == items
    assert [i["type"] for i in items] == ["message", "function_call"]
    assert response["tools"] == [SHELL]


def test_the_input_is_counted_only_when_the_upstream_reports_no_prompt_tokens() -> None:
    counted: list[int] = []

    def count() -> int:
        counted.append(1)
        return 77

    body = _body("x")
    reported = ResponsesStream(translate_request(body), body, model="m", input_tokens=count)
    reported.feed(text("a"))
    reported.feed(chunk(finish="stop"))
    reported.feed(usage(12, 3))
    assert reported.finish()[-1]["response"]["usage"]["input_tokens"] == 12 and not counted
    silent = ResponsesStream(translate_request(body), body, model="m", input_tokens=count)
    silent.feed(text("a"))
    assert silent.finish()[-1]["response"]["usage"]["input_tokens"] == 77 and counted == [1]


@given(st.lists(st.sampled_from(PLAN_STEPS), max_size=12))
def test_any_mix_of_pieces_keeps_the_grammar(plan: list[str]) -> None:
    chunks = plan_chunks(plan, "shell")
    check_grammar(_run(_body("x", tools=[SHELL]), [*chunks, chunk(finish="stop")]))
