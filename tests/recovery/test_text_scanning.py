"""Deliver 1: leaked calls in `delta.content` become `delta.tool_calls`; the rest stays text."""

from __future__ import annotations

import json

import pytest

import toolmend

from .wire import (
    TOOLS,
    chunk,
    content_stream,
    fold,
    recover,
    split_every,
    splits_at_every_boundary,
)

INVOKE = '<invoke name="read_file"><parameter name="path">src/app.py</parameter></invoke>'
HERMES = '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo", "days": 2}}</tool_call>'


def test_a_leaked_invoke_from_a_claude_model_becomes_a_tool_call_and_the_text_around_it_stays():
    text = f"Let me look.\n{INVOKE}\nDone."
    got = recover(split_every(text, 5), model="claude-sonnet-4-5")
    assert got["calls"] == [("read_file", {"path": "src/app.py"})]
    assert got["text"] == "Let me look.\n\nDone."
    assert got["finish"] == ["tool_calls"]


def test_a_leaked_hermes_call_from_any_other_model_is_read_by_auto():
    got = recover(split_every(f"Checking. {HERMES}", 3), model="qwen3-32b")
    assert got["calls"] == [("get_weather", {"city": "Oslo", "days": 2})]
    assert got["text"] == "Checking. "


@pytest.mark.parametrize("pieces", list(splits_at_every_boundary(f"a {INVOKE} b")))
def test_the_recovered_call_and_text_are_the_same_however_the_content_is_split(pieces):
    got = recover(pieces, model="claude-opus-4-1")
    assert got["calls"] == [("read_file", {"path": "src/app.py"})]
    assert got["text"] == "a  b"


def test_arguments_arrive_as_one_whole_fragment_that_parses_to_the_call():
    chunks = content_stream([INVOKE], model="claude-opus-4-1")
    out = list(toolmend.recover_stream(chunks, tools=TOOLS, model="claude-opus-4-1"))
    entries = [e for c in out for ch in c["choices"] for e in ch["delta"].get("tool_calls", [])]
    assert len(entries) == 1
    assert entries[0]["index"] == 0 and entries[0]["type"] == "function"
    assert entries[0]["id"].startswith("call_")
    assert entries[0]["function"] == {"name": "read_file", "arguments": '{"path": "src/app.py"}'}


def test_markup_inside_a_fenced_block_or_inline_code_stays_text():
    text = f"Example:\n```xml\n{INVOKE}\n```\nand inline `{HERMES}` too."
    got = recover(split_every(text, 4), model="claude-opus-4-1")
    assert got["calls"] == []
    assert got["text"] == text
    got = recover(split_every(text, 4), model="qwen3")
    assert got["calls"] == [] and got["text"] == text


def test_reasoning_content_passes_through_and_is_never_scanned():
    chunks = [
        chunk({"role": "assistant", "reasoning_content": f"I could write {HERMES} here"}),
        chunk({"content": "The answer is 4."}),
        chunk({}, "stop"),
    ]
    got = fold(toolmend.recover_stream(chunks, tools=TOOLS, model="qwen3"))
    assert got["calls"] == []
    assert got["reasoning"] == f"I could write {HERMES} here"
    assert got["finish"] == ["stop"]


def test_markup_of_an_unknown_tool_stays_text():
    text = '<invoke name="delete_everything"><parameter name="x">1</parameter></invoke>'
    got = recover([text], model="claude-opus-4-1")
    assert got["calls"] == []
    assert got["text"] == text
    assert got["finish"] == ["stop"]


def test_protocols_overrides_the_model_family_default():
    # A Claude model is read as antml by default: Hermes markup stays text...
    got = recover([HERMES], model="claude-opus-4-1")
    assert got["calls"] == [] and got["text"] == HERMES
    # ...unless the caller names the format.
    got = recover([HERMES], model="claude-opus-4-1", protocols=["hermes"])
    assert got["calls"] == [("get_weather", {"city": "Oslo", "days": 2})]


def test_two_named_protocols_are_both_read_in_one_reply():
    text = f"{HERMES} then {INVOKE}"
    got = recover(split_every(text, 6), protocols=["hermes", "antml"])
    assert got["calls"] == [
        ("get_weather", {"city": "Oslo", "days": 2}),
        ("read_file", {"path": "src/app.py"}),
    ]
    assert got["text"] == " then "


def test_several_leaked_calls_get_contiguous_indices_and_distinct_ids():
    text = f"{INVOKE}\n{INVOKE.replace('src/app.py', 'b.py')}"
    got = recover(split_every(text, 5), model="claude-opus-4-1")
    assert [c[1]["path"] for c in got["calls"]] == ["src/app.py", "b.py"]
    assert len(set(got["ids"])) == 2


def test_a_reply_without_markup_keeps_every_chunk_and_its_text():
    text = "Plain prose, nothing to see <here> & there."
    chunks = content_stream(split_every(text, 3))
    out = list(toolmend.recover_stream(chunks, tools=TOOLS, model="gpt-4o"))

    def without_content(cs):
        return [
            {
                **c,
                "choices": [
                    {**ch, "delta": {**ch["delta"], "content": None}} for ch in c["choices"]
                ],
            }
            for c in cs
        ]

    # A parser may hold a few characters back until it knows they open no markup.
    assert without_content(out) == without_content(chunks)
    assert fold(out)["text"] == text


def test_an_unknown_protocol_fails_before_any_chunk_is_read():
    def never() -> object:
        raise AssertionError("the source must not be read")
        yield

    with pytest.raises(toolmend.UnknownProtocolError):
        toolmend.recover_stream(never(), tools=TOOLS, protocols="nope")


def test_a_call_whose_arguments_do_not_validate_is_flagged_and_not_emitted():
    text = '<tool_call>{"name": "read_file", "arguments": {"mode": "r"}}</tool_call>'
    got = recover([text], model="qwen3")
    assert got["calls"] == []
    assert [r["function"]["name"] for r in got["rejected"]] == ["read_file"]
    assert got["rejected"][0]["incomplete"] is True and got["rejected"][0]["error"]
    assert got["finish"] == ["stop"]


def test_the_non_streaming_path_recovers_the_same_calls():
    response = {
        "id": "chatcmpl-9",
        "object": "chat.completion",
        "created": 5,
        "model": "claude-opus-4-1",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": f"Reading.\n{INVOKE}"},
                "finish_reason": "stop",
                "logprobs": None,
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3},
    }
    out = toolmend.recover_response(response, tools=TOOLS, id_prefix="r")
    message = out["choices"][0]["message"]
    assert message["content"] == "Reading.\n"
    assert message["tool_calls"] == [
        {
            "id": "r1",
            "type": "function",
            "function": {"name": "read_file", "arguments": '{"path": "src/app.py"}'},
        }
    ]
    assert out["choices"][0]["finish_reason"] == "tool_calls"
    assert out["usage"] == response["usage"] and out["usage"] is not response["usage"]
    assert out["object"] == "chat.completion" and out["created"] == 5
    assert response["choices"][0]["message"]["content"] == f"Reading.\n{INVOKE}"  # not mutated


def test_a_call_inside_think_tags_in_the_content_is_not_recovered():
    text = f"<think>I could call {HERMES} but no.</think>Answer: sunny."
    got = recover([text], model="qwen3")
    assert got["calls"] == []


def test_think_tags_in_the_content_become_reasoning_content_split_anywhere():
    text = f"<think>I could call {HERMES} but no.</think>Answer: sunny."
    diags: list[dict] = []
    got = recover(split_every(text, 3), model="qwen3", on_diagnostic=diags.append)
    assert got["reasoning"] == f"I could call {HERMES} but no."
    assert got["text"] == "Answer: sunny."
    assert got["rejected"] and got["rejected"][0]["error"] == "written inside reasoning"
    assert "reasoning_in_content" in [d["code"] for d in diags]


def test_think_tags_inside_code_in_the_content_stay_text():
    text = "Wrap it in `<think>` tags, then call it.\n"
    got = recover(split_every(text, 2), model="qwen3")
    assert got["text"] == text and got.get("reasoning", "") == ""


def test_without_a_model_argument_the_streams_own_model_picks_the_family():
    # A Claude stream leaks the missing-angle invoke, which only the antml default reads.
    ns = "antml" + ":"
    text = (
        f'x\n{ns}invoke name="read_file"><{ns}parameter name="path">a</{ns}parameter></{ns}invoke>'
    )
    chunks = content_stream([text], model="claude-opus-4-1")
    got = fold(toolmend.recover_stream(chunks, tools=TOOLS))
    assert got["calls"] == [("read_file", {"path": "a"})]
    got = fold(toolmend.recover_stream(chunks, tools=TOOLS, protocols=["hermes"]))
    assert got["calls"] == []


LONG_CONTENT = "".join(f'line {i}: <b>&amp; "quoted" {{braces}}</b>\n' for i in range(120))


@pytest.mark.parametrize("size", [1, 3, 5, 64, 300])
@pytest.mark.parametrize("model", ["claude-opus-4-1", "qwen3", "kimi-k2"])
def test_a_long_leaked_call_and_the_text_after_it_come_out_whole_however_it_is_chunked(model, size):
    call = toolmend.ToolCall(
        id="x", name="write_file", arguments={"file_path": "a.md", "content": LONG_CONTENT}
    )
    written = {"claude-opus-4-1": "antml", "qwen3": "hermes", "kimi-k2": "kimi-xtml"}[model]
    markup = toolmend.get_protocol(written).render_call(call)
    text = f"Writing it.\n{markup}\nWritten; next I will explain `<tool_call>`."
    got = recover(split_every(text, size), model=model)
    assert got["calls"] == [("write_file", {"file_path": "a.md", "content": LONG_CONTENT})]
    assert got["text"] == "Writing it.\n\nWritten; next I will explain `<tool_call>`."


@pytest.mark.parametrize("pieces", list(splits_at_every_boundary(f"a {HERMES} b")))
def test_under_auto_a_recovered_call_is_credited_to_the_format_that_read_it_however_split(pieces):
    diags: list[dict] = []
    got = recover(pieces, model="qwen3-32b", on_diagnostic=diags.append)
    assert got["calls"] == [("get_weather", {"city": "Oslo", "days": 2})]
    recovered = [d["protocol"] for d in diags if d["code"] == "leaked_call_recovered"]
    assert recovered == ["hermes"]


#: An OpenAI assistant message's `tool_calls` written as text, two calls in it.
ENVELOPE = json.dumps(
    {
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
            },
            {
                "id": "call_2",
                "type": "function",
                "function": {"name": "get_weather", "arguments": {"city": "Bergen"}},
            },
        ]
    }
)


@pytest.mark.parametrize("pieces", list(splits_at_every_boundary(f"On it. {ENVELOPE}")))
def test_a_leaked_openai_tool_calls_envelope_becomes_its_tool_calls_at_every_split(pieces):
    got = recover(pieces, model="qwen3-32b")
    assert got["calls"] == [("get_weather", {"city": "Oslo"}), ("get_weather", {"city": "Bergen"})]
    assert got["text"] == "On it. "
    assert got["finish"] == ["tool_calls"]
