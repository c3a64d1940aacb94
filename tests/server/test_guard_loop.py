"""The guard in the loop and self-correction: guidance upstream, unusable calls asked again."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolmend.server import ModelRule, ServerConfig, Upstream
from toolmend.server.demo.scripted import Answer

from .servers import ASK, TOOLS, ProxyHandle, ScriptedHandle, StartProxy, stream_parts

CWD_OBJECT = {
    "name": "execute_command",
    "arguments": json.dumps({"command": "npm test", "cwd": {"command": "npm test"}}),
}
CWD_FIXED = {
    "name": "execute_command",
    "arguments": json.dumps({"command": "npm test", "cwd": "/w"}),
}
UNKNOWN_TOOL = {"name": "launch_rocket", "arguments": "{}"}


def failing_history(times: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Read src/app.ts"}]
    for i in range(times):
        call = {
            "id": f"call_{i}",
            "type": "function",
            "function": {"name": "read_file", "arguments": '{"path": "src/app.ts"}'},
        }
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append(
            {
                "role": "tool",
                "tool_call_id": f"call_{i}",
                "content": "Error: ENOENT: no such file or directory, open 'src/app.ts'",
            }
        )
    return messages


READ_TOOL = {
    "type": "function",
    "function": {
        "name": "read_file",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
    },
}


def test_a_failing_tool_result_reaches_the_upstream_as_guidance(
    upstream: ScriptedHandle, proxy: ProxyHandle
) -> None:
    model = upstream.script(Answer("ok"))
    proxy.client().chat.completions.create(
        model=model, messages=failing_history(1), tools=[READ_TOOL]
    )
    sent = upstream.requests_for(model)[-1]["body"]["messages"][-1]["content"]
    assert sent.startswith("[toolmend guidance v1] FILE_NOT_FOUND")
    assert "ENOENT" in sent
    record = proxy.log()[-1]
    assert record["guidance"] == {"FILE_NOT_FOUND": 1}
    assert record["loops_broken"] == 0


def test_a_third_identical_failure_meets_the_loop_breaker_from_the_history_alone(
    upstream: ScriptedHandle, proxy: ProxyHandle
) -> None:
    model = upstream.script(Answer("ok"))
    proxy.client().chat.completions.create(
        model=model, messages=failing_history(3), tools=[READ_TOOL]
    )
    sent = upstream.requests_for(model)[-1]["body"]["messages"]
    assert "MODEL_STUCK_LOOP" in sent[-1]["content"]
    assert proxy.log()[-1]["loops_broken"] == 1
    assert proxy.log()[-1]["guidance_patterns"] == {"EI/MODEL_STUCK_LOOP/001": 1}


def test_with_the_guard_off_the_history_goes_upstream_unchanged(
    upstream: ScriptedHandle, start_proxy: StartProxy
) -> None:
    config = ServerConfig(
        upstreams=(Upstream("s", upstream.url),), models=(ModelRule(match="*", guard=False),)
    )
    proxy = start_proxy(config)
    model = upstream.script(Answer("ok"))
    history = failing_history(2)
    proxy.client().chat.completions.create(model=model, messages=history, tools=[READ_TOOL])
    assert upstream.requests_for(model)[-1]["body"]["messages"] == history


def test_a_cwd_object_is_not_handed_on_but_asked_again_with_guidance(
    upstream: ScriptedHandle, proxy: ProxyHandle
) -> None:
    model = upstream.script(
        Answer(tool_calls=(CWD_OBJECT,)), guided=Answer(tool_calls=(CWD_FIXED,))
    )
    for stream in (False, True):
        request = {"model": model, "messages": ASK, "tools": TOOLS}
        if stream:
            _, calls, _ = stream_parts(
                proxy.client().chat.completions.create(**request, stream=True)
            )
            got = [json.loads(c["arguments"]) for c in calls.values()]
        else:
            answer = proxy.client().chat.completions.create(**request)
            got = [
                json.loads(c.function.arguments) for c in answer.choices[0].message.tool_calls or []
            ]
        assert got == [{"command": "npm test", "cwd": "/w"}]
        reask = upstream.requests_for(model)[-1]["body"]["messages"]
        assert reask[-2]["role"] == "assistant"
        assert reask[-2]["tool_calls"][0]["function"]["name"] == "execute_command"
        assert reask[-1]["role"] == "tool"
        assert reask[-1]["content"].startswith("[toolmend guidance v1] PARAM_TYPE_MISMATCH")
        record = proxy.log(at_least=1 + stream)[-1]
        assert (record["self_corrections"], record["self_correction_ok"]) == (1, 1)
        assert record["rejected"] == 1 and record["tool_calls"] == 1
        assert record["guidance"] == {"PARAM_TYPE_MISMATCH": 1}


def test_when_the_budget_is_spent_the_call_arrives_flagged_never_dropped(
    upstream: ScriptedHandle, proxy: ProxyHandle
) -> None:
    model = upstream.script(Answer("Launching.", tool_calls=(UNKNOWN_TOOL,)))
    answer = proxy.client().chat.completions.create(model=model, messages=ASK, tools=TOOLS)
    message = answer.choices[0].message
    assert message.tool_calls is None
    flagged = (message.model_extra or {})["toolmend_rejected_calls"]
    assert [f["function"]["name"] for f in flagged] == ["launch_rocket"]
    assert flagged[0]["incomplete"] is True and flagged[0]["error"]
    assert "[toolmend] The call to `launch_rocket` was not run" in (message.content or "")
    assert len(upstream.requests_for(model)) == 2  # the answer, then one re-ask
    record = proxy.log()[-1]
    assert (record["self_corrections"], record["self_correction_ok"]) == (1, 0)
    assert record["rejected"] == 2


def test_a_budget_of_zero_flags_the_call_without_asking_again(
    upstream: ScriptedHandle, start_proxy: StartProxy
) -> None:
    config = ServerConfig(
        upstreams=(Upstream("s", upstream.url),), models=(ModelRule(match="*", self_correction=0),)
    )
    proxy = start_proxy(config)
    model = upstream.script(
        Answer(tool_calls=(CWD_OBJECT,)), guided=Answer(tool_calls=(CWD_FIXED,))
    )
    stream = proxy.client().chat.completions.create(
        model=model, messages=ASK, tools=TOOLS, stream=True
    )
    chunks = list(stream)
    flagged = [
        f
        for c in chunks
        for ch in c.choices
        for f in (ch.delta.model_extra or {}).get("toolmend_rejected_calls") or ()
    ]
    assert [f["function"]["name"] for f in flagged] == ["execute_command"]
    assert not any(ch.delta.tool_calls for c in chunks for ch in c.choices)
    assert len(upstream.requests_for(model)) == 1


def test_text_mode_asks_again_after_a_call_to_an_unknown_tool(
    upstream: ScriptedHandle, start_proxy: StartProxy
) -> None:
    config = ServerConfig(
        upstreams=(Upstream("s", upstream.url),),
        models=(ModelRule(match="*", mode="text", protocol="hermes"),),
    )
    proxy = start_proxy(config)
    bad = '<tool_call>{"name": "launch_rocket", "arguments": {}}</tool_call>'
    good = '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>'
    model = upstream.script(Answer(bad), guided=Answer(good))
    answer = proxy.client().chat.completions.create(model=model, messages=ASK, tools=TOOLS)
    assert [c.function.name for c in answer.choices[0].message.tool_calls or []] == ["get_weather"]
    reask = upstream.requests_for(model)[-1]["body"]["messages"]
    assert "TOOL_NOT_FOUND" in reask[-1]["content"] and reask[-1]["role"] == "user"


#: The bare errors OpenCode 1.18.33 and Qwen Code 0.15.10 send as a failing tool's result over
#: chat/completions (no prefix, no flag), captured through `toolmend serve` by
#: tests/frontends/cli_e2e.py: (tool, arguments, result, the guidance's category).
BARE_AGENT_ERRORS = [
    ("read", {"filePath": "/w/missing.txt"}, "File not found: /w/missing.txt", "FILE_NOT_FOUND"),
    (
        "read_file",
        {"file_path": "/w/missing.txt"},
        "File not found: /w/missing.txt",
        "FILE_NOT_FOUND",
    ),
    (
        "read",
        {"filePath": "/w/missing.txt"},
        "File not found: /w/missing.txt\n\nDid you mean one of these?\n/w/missing.txt.orig",
        "FILE_NOT_FOUND",
    ),
    (
        "edit",
        {"filePath": "/w/notes.txt", "oldString": "absent", "newString": "x"},
        "Could not find oldString in the file. It must match exactly, including whitespace, "
        "indentation, and line endings.",
        "DIFF_MATCH_FAILED",
    ),
]


def _repeated(name: str, arguments: dict[str, str], result: str, times: int) -> list[Any]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Go on."}]
    for i in range(times):
        function = {"name": name, "arguments": json.dumps(arguments)}
        call = {"id": f"c{i}", "type": "function", "function": function}
        messages.append({"role": "assistant", "content": "On it.", "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": result})
    return messages


@pytest.mark.parametrize(
    ("name", "arguments", "result", "category"),
    BARE_AGENT_ERRORS,
    ids=["opencode-read", "qwen-read", "opencode-read-suggesting", "opencode-edit"],
)
def test_an_agents_bare_error_is_guidance_and_its_third_repeat_meets_the_loop_breaker(
    upstream: ScriptedHandle,
    proxy: ProxyHandle,
    name: str,
    arguments: dict[str, str],
    result: str,
    category: str,
) -> None:
    """Before, these passed through unguided, so the second repeat was taken for a duplicate
    (blocked, its guidance saying the call had already run) and the loop breaker never came."""
    model = upstream.script(Answer("ok"))
    tool = {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
    for times, expected in ((1, category), (3, "MODEL_STUCK_LOOP")):
        proxy.client().chat.completions.create(
            model=model, messages=_repeated(name, arguments, result, times), tools=[tool]
        )
        sent = upstream.requests_for(model)[-1]["body"]["messages"]
        assert sent[-1]["content"].startswith(f"[toolmend guidance v1] {expected} ")
        assert result in sent[-1]["content"]
        assert proxy.log()[-1]["guidance"] == {expected: 1}
    assert proxy.log()[-1]["loops_broken"] == 1
