"""The LiteLLM adapter: the conformance table through the SDK wrappers and the proxy hooks.

Replies come from LiteLLM's own `mock_response` / `mock_tool_calls`, with the local model-cost
map (no network), so what is recovered is what LiteLLM itself built and streamed.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
litellm = pytest.importorskip("litellm", reason="the litellm extra is not installed")

from toolmend.integrations.litellm import ToolmendHandler, acompletion, completion  # noqa: E402

from .scenarios import (  # noqa: E402
    FIRST_FAILURE,
    SCENARIOS,
    THIRD_FAILURE,
    TOOLS,
    Scenario,
    chunks,
    expected,
    failing_history,
    header,
    sdk_stream_outcome,
)

USER = [{"role": "user", "content": "Read a.txt"}]


def mock(scenario: Scenario) -> dict[str, Any]:
    """The request options that make LiteLLM answer with the scenario's reply."""
    options: dict[str, Any] = {"mock_response": scenario.content or ""}
    if scenario.native:
        options["mock_tool_calls"] = [
            {"id": f"call_n{i}", "type": "function", "function": {"name": n, "arguments": a}}
            for i, (n, a) in enumerate(scenario.native)
        ]
    return options


def request(scenario: Scenario, **more: Any) -> dict[str, Any]:
    return {
        "model": f"openai/{scenario.model}",
        "messages": USER,
        "tools": TOOLS,
        **mock(scenario),
        **more,
    }


def native_stream(scenario: Scenario) -> list[Any]:
    """LiteLLM's mock streams text only (it drops `mock_tool_calls`): a native scenario's
    stream is built from the table's chunks as LiteLLM's own `ModelResponseStream`s."""
    return [litellm.ModelResponseStream(**c) for c in chunks(scenario)]


async def aiterate(items: list[Any]) -> Any:
    for item in items:
        yield item


def whole_outcome(response: Any) -> dict[str, Any]:
    message = response.choices[0].message
    calls = [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or []]
    rejected = [
        c["function"]["name"] for c in getattr(message, "toolmend_rejected_calls", None) or []
    ]
    return {"calls": calls, "rejected": rejected}


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_the_sdk_wrapper_gives_the_same_calls_as_every_host(scenario):
    got = completion(**request(scenario))
    assert whole_outcome(got) == expected(scenario)
    if scenario.text is not None:
        assert got.choices[0].message.content == scenario.text


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_the_sdk_wrapper_recovers_a_stream_alike(scenario, monkeypatch):
    if scenario.native:
        monkeypatch.setattr(litellm, "completion", lambda **_: iter(native_stream(scenario)))
    got = list(completion(**request(scenario, stream=True)))
    assert sdk_stream_outcome(got) == expected(scenario)


def test_the_async_wrapper_recovers_whole_and_streamed_replies():
    scenario = SCENARIOS[0]

    async def run() -> tuple[Any, list[Any]]:
        whole = await acompletion(**request(scenario))
        stream = await acompletion(**request(scenario, stream=True))
        return whole, [c async for c in stream]

    whole, streamed = asyncio.run(run())
    assert whole_outcome(whole) == sdk_stream_outcome(streamed) == expected(scenario)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_the_proxy_hooks_recover_whole_and_streamed_replies(scenario):
    handler = ToolmendHandler()
    data = request(scenario)

    async def run() -> tuple[Any, list[Any]]:
        response = await litellm.acompletion(**data)
        whole = await handler.async_post_call_success_hook(data, None, response)
        if scenario.native:
            stream = aiterate(native_stream(scenario))
        else:
            stream = await litellm.acompletion(**{**data, "stream": True})
        hook = handler.async_post_call_streaming_iterator_hook(None, stream, data)
        return whole, [c async for c in hook]

    whole, streamed = asyncio.run(run())
    assert whole_outcome(whole) == expected(scenario)
    assert sdk_stream_outcome(streamed) == expected(scenario)


def test_the_pre_call_hook_guards_the_history_up_to_the_loop_breaker():
    handler = ToolmendHandler()
    data = {"model": "openai/gpt-4.1", "messages": failing_history(3), "tools": TOOLS}
    guarded = asyncio.run(handler.async_pre_call_hook(None, None, data, "acompletion"))
    assert header(guarded["messages"][2]["content"]).startswith(FIRST_FAILURE)
    assert header(guarded["messages"][-1]["content"]).startswith(THIRD_FAILURE)
    assert data["messages"] == failing_history(3)


def test_a_request_without_tools_is_answered_as_the_model_wrote_it():
    scenario = SCENARIOS[0]
    got = completion(model="openai/qwen3-32b", messages=USER, mock_response=scenario.content)
    assert got.choices[0].message.content == scenario.content
