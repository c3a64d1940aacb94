"""Anthropic Messages requests become chat/completions requests (the request direction)."""

from __future__ import annotations

import json

import pytest

from toolmend.server.frontends.messages import MessagesRequestError, translate_request
from toolmend.server.frontends.toolnames import BLANK_NAME, WIRE_NAME

READ_TOOL = {
    "name": "Read",
    "description": "Read a file",
    "input_schema": {
        "type": "object",
        "properties": {"file_path": {"type": "string"}},
        "required": ["file_path"],
    },
}
PNG = "iVBORw0KGgo="


def _body(messages: list, **extra: object) -> dict:
    return {"model": "qwen3-coder", "max_tokens": 512, "messages": messages, **extra}


def _tool_use(call_id: str, name: str = "Read", **tool_input: object) -> dict:
    return {"type": "tool_use", "id": call_id, "name": name, "input": tool_input}


def test_system_blocks_become_one_system_message_first() -> None:
    body = _body(
        [{"role": "user", "content": "hi"}],
        system=[
            {
                "type": "text",
                "text": "You are Claude Code.",
                "cache_control": {"type": "ephemeral"},
            },
            {"type": "text", "text": "Be brief."},
        ],
    )
    messages = translate_request(body).body["messages"]
    assert messages[0] == {"role": "system", "content": "You are Claude Code.\nBe brief."}
    assert messages[1] == {"role": "user", "content": "hi"}


def test_tools_become_functions_with_their_input_schema() -> None:
    chat = translate_request(_body([{"role": "user", "content": "x"}], tools=[READ_TOOL])).body
    assert chat["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "Read",
                "parameters": READ_TOOL["input_schema"],
                "description": "Read a file",
            },
        }
    ]


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ({"type": "auto"}, "auto"),
        ({"type": "any"}, "required"),
        ({"type": "none"}, "none"),
        ({"type": "tool", "name": "Read"}, {"type": "function", "function": {"name": "Read"}}),
    ],
)
def test_tool_choice_maps_to_the_chat_equivalent(choice: dict, expected: object) -> None:
    body = _body([{"role": "user", "content": "x"}], tools=[READ_TOOL], tool_choice=choice)
    assert translate_request(body).body["tool_choice"] == expected


def test_disable_parallel_tool_use_turns_parallel_calls_off() -> None:
    choice = {"type": "auto", "disable_parallel_tool_use": True}
    body = _body([{"role": "user", "content": "x"}], tools=[READ_TOOL], tool_choice=choice)
    assert translate_request(body).body["parallel_tool_calls"] is False


def test_tool_use_becomes_assistant_tool_calls_with_json_arguments() -> None:
    body = _body(
        [
            {"role": "user", "content": "read a.py"},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Reading."},
                    _tool_use("toolu_01", file_path="a.py"),
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_01", "content": "print(1)"}
                ],
            },
        ]
    )
    messages = translate_request(body).body["messages"]
    assert messages[1] == {
        "role": "assistant",
        "content": "Reading.",
        "tool_calls": [
            {
                "id": "toolu_01",
                "type": "function",
                "function": {"name": "Read", "arguments": '{"file_path": "a.py"}'},
            }
        ],
    }
    assert messages[2] == {"role": "tool", "tool_call_id": "toolu_01", "content": "print(1)"}


def test_tool_results_come_before_the_users_own_text_in_the_same_turn() -> None:
    body = _body(
        [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [_tool_use("toolu_a"), _tool_use("toolu_b")]},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "<system-reminder>todo list empty</system-reminder>"},
                    {"type": "tool_result", "tool_use_id": "toolu_b", "content": "B"},
                    {"type": "tool_result", "tool_use_id": "toolu_a", "content": "A"},
                    {"type": "text", "text": "and then?"},
                ],
            },
        ]
    )
    roles = [(m["role"], m.get("tool_call_id")) for m in translate_request(body).body["messages"]]
    assert roles == [
        ("user", None),
        ("assistant", None),
        ("tool", "toolu_a"),
        ("tool", "toolu_b"),
        ("user", None),
    ]


def test_a_result_answered_a_turn_late_moves_right_after_its_call() -> None:
    body = _body(
        [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [_tool_use("toolu_a")]},
            {"role": "user", "content": "hurry"},
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_a", "content": "A"}],
            },
        ]
    )
    roles = [m["role"] for m in translate_request(body).body["messages"]]
    assert roles == ["user", "assistant", "tool", "user"]


def test_is_error_is_kept_on_the_tool_message() -> None:
    body = _body(
        [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [_tool_use("toolu_a")]},
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_a",
                        "is_error": True,
                        "content": [
                            {
                                "type": "text",
                                "text": "<tool_use_error>File does not exist.</tool_use_error>",
                            }
                        ],
                    }
                ],
            },
        ]
    )
    tool = translate_request(body).body["messages"][2]
    assert tool == {
        "role": "tool",
        "tool_call_id": "toolu_a",
        "content": "<tool_use_error>File does not exist.</tool_use_error>",
        "is_error": True,
    }


def test_array_result_content_is_flattened_and_its_images_follow_in_a_user_message() -> None:
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}
    body = _body(
        [
            {"role": "user", "content": "screenshot"},
            {"role": "assistant", "content": [_tool_use("toolu_s", name="Shot")]},
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_s",
                        "content": [
                            {"type": "text", "text": "line 1"},
                            image,
                            {"type": "text", "text": "line 2"},
                        ],
                    },
                    {"type": "text", "text": "what do you see?"},
                ],
            },
        ]
    )
    messages = translate_request(body).body["messages"]
    assert messages[2] == {"role": "tool", "tool_call_id": "toolu_s", "content": "line 1\nline 2"}
    follow = messages[3]
    assert follow["role"] == "user"
    kinds = [part["type"] for part in follow["content"]]
    assert kinds == ["text", "image_url", "text"]
    assert follow["content"][1]["image_url"]["url"] == f"data:image/png;base64,{PNG}"
    assert "toolu_s" in follow["content"][0]["text"]
    assert follow["content"][2]["text"] == "what do you see?"


def test_a_mid_conversation_system_message_stays_in_place() -> None:
    body = _body(
        [
            {"role": "user", "content": "a"},
            {"role": "assistant", "content": "b"},
            {"role": "system", "content": [{"type": "text", "text": "Plan mode is on."}]},
            {"role": "user", "content": "c"},
        ]
    )
    messages = translate_request(body).body["messages"]
    assert messages[2] == {"role": "system", "content": "Plan mode is on."}


def test_thinking_is_echoed_as_reasoning_content_for_families_that_need_it() -> None:
    turn = {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "I should read it.", "signature": ""},
            {"type": "text", "text": "Done."},
        ],
    }
    body = _body([{"role": "user", "content": "a"}, turn, {"role": "user", "content": "b"}])
    assert translate_request(body, upstream_model="deepseek-v3.2").body["messages"][1] == {
        "role": "assistant",
        "content": "Done.",
        "reasoning_content": "I should read it.",
    }
    assert "reasoning_content" not in translate_request(body).body["messages"][1]


def test_unknown_blocks_with_text_pass_as_text_and_others_are_dropped_with_a_diagnostic() -> None:
    body = _body(
        [
            {
                "role": "user",
                "content": [
                    {"type": "future_block", "text": "keep me"},
                    {"type": "container_upload", "file_id": "f1"},
                ],
            }
        ]
    )
    out = translate_request(body)
    assert out.body["messages"] == [{"role": "user", "content": "keep me"}]
    codes = [d.code for d in out.diagnostics]
    assert codes == ["unknown_block_as_text", "block_dropped"]


def test_an_unknown_role_is_sent_as_the_users_with_a_diagnostic() -> None:
    out = translate_request(_body([{"role": "critic", "content": "too long"}]))
    assert out.body["messages"] == [{"role": "user", "content": "too long"}]
    assert [d.code for d in out.diagnostics] == ["unknown_role_as_user"]


def test_repeated_tool_use_ids_are_replaced_and_their_results_follow_the_new_id() -> None:
    body = _body(
        [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [_tool_use("call_0", file_path="a")]},
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "call_0", "content": "A"}],
            },
            {"role": "assistant", "content": [_tool_use("call_0", file_path="b")]},
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "call_0", "content": "B"}],
            },
        ]
    )
    messages = translate_request(body).body["messages"]
    first, second = messages[1]["tool_calls"][0]["id"], messages[3]["tool_calls"][0]["id"]
    assert first == "call_0" and second != "call_0"
    assert (messages[2]["tool_call_id"], messages[2]["content"]) == (first, "A")
    assert (messages[4]["tool_call_id"], messages[4]["content"]) == (second, "B")


def test_a_tool_name_over_64_characters_gets_a_stable_wire_name_that_maps_back() -> None:
    long_name = "mcp__" + "very_long_server_name_" * 3 + "__search_everything"
    tool = {**READ_TOOL, "name": long_name}
    out = translate_request(_body([{"role": "user", "content": "x"}], tools=[tool]))
    wire = out.body["tools"][0]["function"]["name"]
    assert WIRE_NAME.fullmatch(wire) and wire != long_name
    assert translate_request(_body([], tools=[tool])).body["tools"][0]["function"]["name"] == wire
    assert out.names.to_client(wire) == long_name


def test_a_blank_tool_name_is_dropped_and_a_blank_call_name_becomes_the_placeholder() -> None:
    body = _body(
        [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [_tool_use("toolu_x", name="  ")]},
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_x", "content": "?"}],
            },
        ],
        tools=[{**READ_TOOL, "name": ""}, READ_TOOL],
    )
    out = translate_request(body)
    assert [t["function"]["name"] for t in out.body["tools"]] == ["Read"]
    assert out.body["messages"][1]["tool_calls"][0]["function"]["name"] == BLANK_NAME
    assert "tool_dropped" in [d.code for d in out.diagnostics]


def test_a_result_without_its_call_becomes_user_text_and_a_call_without_result_is_answered() -> (
    None
):
    body = _body(
        [
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "gone", "content": "old"}],
            },
            {"role": "assistant", "content": [_tool_use("toolu_q")]},
            {"role": "user", "content": "never mind"},
        ]
    )
    out = translate_request(body)
    roles = [m["role"] for m in out.body["messages"]]
    assert roles == ["user", "assistant", "tool", "user"]
    assert "old" in out.body["messages"][0]["content"]
    assert {d.code for d in out.diagnostics} == {
        "tool_result_without_call",
        "tool_call_without_result",
    }


def test_streaming_asks_the_upstream_for_its_usage_chunk() -> None:
    chat = translate_request(_body([{"role": "user", "content": "x"}], stream=True)).body
    assert chat["stream"] is True and chat["stream_options"] == {"include_usage": True}


def test_sampling_and_stop_sequences_carry_over() -> None:
    body = _body(
        [{"role": "user", "content": "x"}], temperature=0.2, top_k=20, stop_sequences=["END"]
    )
    chat = translate_request(body).body
    assert (chat["temperature"], chat["top_k"], chat["stop"], chat["max_tokens"]) == (
        0.2,
        20,
        ["END"],
        512,
    )


@pytest.mark.parametrize(
    "body",
    [[], {"messages": []}, {"model": "m", "messages": "hi"}],
    ids=["not an object", "no model", "messages not a list"],
)
def test_a_body_that_is_not_a_messages_request_is_refused_with_the_field_named(
    body: object,
) -> None:
    with pytest.raises(MessagesRequestError, match=r"body|model|messages"):
        translate_request(body)  # type: ignore[arg-type]


def test_the_translated_request_is_json() -> None:
    body = _body([{"role": "user", "content": [{"type": "text", "text": "é"}]}], tools=[READ_TOOL])
    json.dumps(translate_request(body).body)
