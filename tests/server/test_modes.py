"""Both modes over real HTTP with the `openai` client, streaming and not, and the SSE framing."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import openai
import pytest

import toolmend
from toolmend.server import ModelRule, ServerConfig, Upstream
from toolmend.server.demo.scripted import Answer

from .servers import ASK, HERMES_OSLO, TOOLS, ProxyHandle, ScriptedHandle, StartProxy, stream_parts


def raw_stream(url: str, body: dict[str, Any]) -> bytes:
    request = urllib.request.Request(
        f"{url}/v1/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        data: bytes = response.read()
        return data


def test_native_mode_turns_leaked_hermes_markup_into_a_real_call_without_streaming(
    upstream: ScriptedHandle, proxy: ProxyHandle
) -> None:
    model = upstream.script(Answer(HERMES_OSLO))
    answer = proxy.client().chat.completions.create(model=model, messages=ASK, tools=TOOLS)
    message = answer.choices[0].message
    assert message.content == "Checking. "
    assert [c.function.name for c in message.tool_calls or []] == ["get_weather"]
    assert json.loads(message.tool_calls[0].function.arguments) == {"city": "Oslo"}  # type: ignore[index]
    assert answer.choices[0].finish_reason == "tool_calls"


def test_native_mode_turns_leaked_markup_into_a_real_call_while_streaming(
    upstream: ScriptedHandle, proxy: ProxyHandle
) -> None:
    model = upstream.script(Answer(HERMES_OSLO, chunk_size=3))
    stream = proxy.client().chat.completions.create(
        model=model, messages=ASK, tools=TOOLS, stream=True
    )
    text, calls, finishes = stream_parts(stream)
    assert text == "Checking. "
    assert [c["name"] for c in calls.values()] == ["get_weather"]
    assert json.loads(calls[0]["arguments"]) == {"city": "Oslo"}
    assert finishes == ["tool_calls"]


def test_native_mode_passes_the_tools_through_to_the_upstream(
    upstream: ScriptedHandle, proxy: ProxyHandle
) -> None:
    model = upstream.script(Answer("Hello."))
    proxy.client().chat.completions.create(model=model, messages=ASK, tools=TOOLS)
    sent = upstream.requests_for(model)[-1]["body"]
    assert sent["tools"] == TOOLS
    assert sent["messages"] == ASK


def test_the_stream_is_framed_as_openai_frames_it(
    upstream: ScriptedHandle, proxy: ProxyHandle
) -> None:
    model = upstream.script(Answer(HERMES_OSLO, chunk_size=4))
    raw = raw_stream(proxy.url, {"model": model, "messages": ASK, "tools": TOOLS, "stream": True})
    assert raw.endswith(b"\n\ndata: [DONE]\n\n")
    events = raw.split(b"\n\n")
    assert events[-1] == b""
    payloads = [e.removeprefix(b"data: ") for e in events[:-1]]
    assert all(e.startswith(b"data: ") for e in events[:-1])
    assert payloads[-1] == b"[DONE]"
    chunks = [json.loads(p) for p in payloads[:-1]]
    assert {c["object"] for c in chunks} == {"chat.completion.chunk"}
    assert len({c["id"] for c in chunks}) == 1
    assert all(isinstance(c["created"], int) and c["model"] for c in chunks)
    finishes = [ch["finish_reason"] for c in chunks for ch in c["choices"]]
    assert [f for f in finishes if f is not None] == ["tool_calls"]
    assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"


def test_usage_asked_for_in_a_stream_arrives_in_a_last_chunk_without_choices(
    upstream: ScriptedHandle, proxy: ProxyHandle
) -> None:
    model = upstream.script(Answer("Hi there."))
    stream = proxy.client().chat.completions.create(
        model=model, messages=ASK, stream=True, stream_options={"include_usage": True}
    )
    chunks = list(stream)
    assert chunks[-1].choices == []
    assert chunks[-1].usage is not None and chunks[-1].usage.total_tokens > 0


def text_proxy(start_proxy: StartProxy, upstream: ScriptedHandle, **rule: Any) -> ProxyHandle:
    config = ServerConfig(
        upstreams=(Upstream("scripted", upstream.url),),
        models=(ModelRule(match="text-*", mode="text", **rule),),
    )
    return start_proxy(config)


def test_text_mode_writes_the_tools_into_the_system_message_and_sends_no_native_tools(
    upstream: ScriptedHandle, start_proxy: StartProxy
) -> None:
    proxy = text_proxy(start_proxy, upstream, protocol="hermes")
    model = upstream.script(Answer("Fine."), family="text")
    messages = [{"role": "system", "content": "You are terse."}, *ASK]
    proxy.client().chat.completions.create(
        model=model, messages=messages, tools=TOOLS, tool_choice="auto", parallel_tool_calls=True
    )
    sent = upstream.requests_for(model)[-1]["body"]
    assert not {"tools", "tool_choice", "parallel_tool_calls"} & set(sent)
    system = sent["messages"][0]
    assert system["role"] == "system"
    assert system["content"].startswith("You are terse.")
    assert "<tool_call>" in system["content"] and '"get_weather"' in system["content"]


def test_text_mode_re_encodes_past_calls_and_results_in_the_protocol(
    upstream: ScriptedHandle, start_proxy: StartProxy
) -> None:
    proxy = text_proxy(start_proxy, upstream, protocol="qwen3-coder")
    model = upstream.script(Answer("It is sunny."), family="text")
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
    }
    messages = [
        *ASK,
        {"role": "assistant", "content": "Let me look.", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny, 21 C"},
    ]
    proxy.client().chat.completions.create(model=model, messages=messages, tools=TOOLS)
    sent = upstream.requests_for(model)[-1]["body"]["messages"]
    assistant, result = sent[-2], sent[-1]
    assert assistant == {
        "role": "assistant",
        "content": "Let me look.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n"
        "</parameter>\n</function>\n</tool_call>",
    }
    assert result == {"role": "user", "content": "<tool_response>\nsunny, 21 C\n</tool_response>"}


def test_a_past_call_the_protocol_cannot_carry_is_written_in_hermes_json_and_served(
    upstream: ScriptedHandle, start_proxy: StartProxy
) -> None:
    # qwen3-coder writes values unescaped: a file that holds its own `</parameter>` (an agent
    # writing docs about tool calling) cannot be written back in it. The turn is still served,
    # the call written as Hermes' JSON, which escapes it; the model's next answer is read as before.
    proxy = text_proxy(start_proxy, upstream, protocol="qwen3-coder")
    model = upstream.script(Answer("Written."), family="text")
    content = "<parameter=city>\nOslo\n</parameter>\n"
    call = {
        "id": "call_1",
        "type": "function",
        "function": {
            "name": "write_file",
            "arguments": json.dumps({"file_path": "docs/qwen.md", "content": content}),
        },
    }
    tools = [
        *TOOLS,
        {
            "type": "function",
            "function": {
                "name": "write_file",
                "parameters": {
                    "type": "object",
                    "properties": {"file_path": {"type": "string"}, "content": {"type": "string"}},
                },
            },
        },
    ]
    messages = [
        *ASK,
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": "ok"},
    ]
    answer = proxy.client().chat.completions.create(model=model, messages=messages, tools=tools)
    assert answer.choices[0].message.content == "Written."
    assistant = upstream.requests_for(model)[-1]["body"]["messages"][-2]
    written = toolmend.parse(assistant["content"], protocol="hermes").tool_calls
    assert [(c.name, c.arguments) for c in written] == [
        ("write_file", {"file_path": "docs/qwen.md", "content": content})
    ]


def test_text_mode_returns_the_parsed_call_as_real_tool_calls_streaming_and_not(
    upstream: ScriptedHandle, start_proxy: StartProxy
) -> None:
    proxy = text_proxy(start_proxy, upstream, protocol="hermes")
    written = (
        '<tool_call>{"name": "get_weather", "arguments": {"City": "Oslo", "days": "3"}}</tool_call>'
    )
    model = upstream.script(Answer(f"Looking.\n{written}", chunk_size=2), family="text")
    client = proxy.client()
    whole = client.chat.completions.create(model=model, messages=ASK, tools=TOOLS)
    calls = whole.choices[0].message.tool_calls or []
    assert [json.loads(c.function.arguments) for c in calls] == [{"city": "Oslo", "days": 3}]
    assert whole.choices[0].finish_reason == "tool_calls"
    text, streamed, finishes = stream_parts(
        client.chat.completions.create(model=model, messages=ASK, tools=TOOLS, stream=True)
    )
    assert text == "Looking.\n"
    assert json.loads(streamed[0]["arguments"]) == {"city": "Oslo", "days": 3}
    assert finishes == ["tool_calls"]
    record = proxy.log(at_least=2)[-1]
    assert record["mode"] == "text" and record["recovered"] == {"hermes": 1}
    assert record["repairs"] == {"rename": 1, "coerce": 1}


def test_a_long_call_streams_as_monotonic_argument_fragments(
    upstream: ScriptedHandle, start_proxy: StartProxy
) -> None:
    proxy = text_proxy(start_proxy, upstream, protocol="hermes")
    city = "Oslo " * 3000
    call = json.dumps({"name": "get_weather", "arguments": {"city": city}})
    model = upstream.script(Answer(f"<tool_call>{call}</tool_call>", chunk_size=50), family="text")
    stream = proxy.client().chat.completions.create(
        model=model, messages=ASK, tools=TOOLS, stream=True
    )
    fragments = [
        part.function.arguments
        for chunk in stream
        for choice in chunk.choices
        for part in choice.delta.tool_calls or ()
        if part.function is not None and part.function.arguments
    ]
    assert len(fragments) > 1
    assert json.loads("".join(fragments)) == {"city": city}


def test_a_tool_choice_naming_no_declared_tool_is_a_400_in_text_mode(
    upstream: ScriptedHandle, start_proxy: StartProxy
) -> None:
    proxy = text_proxy(start_proxy, upstream, protocol="hermes")
    model = upstream.script(Answer("Fine."), family="text")
    client = proxy.client()
    for choice in ({"type": "function", "function": {"name": "nope"}}, {"type": "function"}, 7):
        with pytest.raises(openai.BadRequestError, match="tool_choice"):
            client.chat.completions.create(
                model=model,
                messages=ASK,
                tools=TOOLS,
                tool_choice=choice,  # type: ignore[arg-type]
            )


def test_tool_choice_none_sends_no_tools_prompt(
    upstream: ScriptedHandle, start_proxy: StartProxy
) -> None:
    proxy = text_proxy(start_proxy, upstream, protocol="hermes")
    model = upstream.script(Answer("No tools."), family="text")
    proxy.client().chat.completions.create(
        model=model, messages=ASK, tools=TOOLS, tool_choice="none"
    )
    sent = upstream.requests_for(model)[-1]["body"]["messages"]
    assert sent == ASK


def test_a_named_tool_choice_becomes_an_instruction_in_the_prompt(
    upstream: ScriptedHandle, start_proxy: StartProxy
) -> None:
    proxy = text_proxy(start_proxy, upstream, protocol="hermes")
    model = upstream.script(Answer(HERMES_OSLO), family="text")
    choice = {"type": "function", "function": {"name": "get_weather"}}
    proxy.client().chat.completions.create(
        model=model,
        messages=ASK,
        tools=TOOLS,
        tool_choice=choice,  # type: ignore[arg-type]
    )
    system = upstream.requests_for(model)[-1]["body"]["messages"][0]["content"]
    assert system.endswith("In this answer you must call the function `get_weather`.")


def test_a_required_call_that_is_missed_is_asked_for_again(
    upstream: ScriptedHandle, start_proxy: StartProxy
) -> None:
    proxy = text_proxy(start_proxy, upstream, protocol="hermes")
    model = upstream.script(
        Answer("I think it is sunny."), guided=Answer(HERMES_OSLO), family="text"
    )
    answer = proxy.client().chat.completions.create(
        model=model, messages=ASK, tools=TOOLS, tool_choice="required"
    )
    sent = upstream.requests_for(model)
    assert len(sent) == 2
    assert "requires a function call" in sent[-1]["body"]["messages"][-1]["content"]
    assert answer.choices[0].message.content == "I think it is sunny.Checking. "
    assert [c.function.name for c in answer.choices[0].message.tool_calls or []] == ["get_weather"]
    assert proxy.log()[-1]["self_corrections"] == 1
    assert proxy.log()[-1]["self_correction_ok"] == 1


def test_the_model_family_picks_the_text_protocol_when_the_rule_names_none(
    upstream: ScriptedHandle, start_proxy: StartProxy
) -> None:
    proxy = text_proxy(start_proxy, upstream)
    model = upstream.script(Answer("ok"), family="text-kimi-k2")
    proxy.client().chat.completions.create(model=model, messages=ASK, tools=TOOLS)
    system = upstream.requests_for(model)[-1]["body"]["messages"][0]["content"]
    assert "<|open|>tools<|sep|>" in system
