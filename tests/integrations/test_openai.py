"""The openai SDK adapter: the conformance table through `wrap(client)` over a mock transport.

Every scenario runs through the real `openai` client (sync and async, whole and streamed),
with both HTTP libraries the SDK accepts (`httpx2`, and the legacy `httpx`), so what the agent
reads is what the SDK parsed from the rewritten bytes.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

openai = pytest.importorskip("openai", reason="the openai extra is not installed")

from toolmend.integrations.openai import ToolmendTransport, wrap  # noqa: E402

from .scenarios import (  # noqa: E402
    FIRST_FAILURE,
    SCENARIOS,
    THIRD_FAILURE,
    TOOLS,
    chunks,
    completion,
    expected,
    failing_history,
    header,
    sdk_stream_outcome,
    sse,
)

LIBRARIES = [pytest.importorskip(name) for name in ("httpx",)]
try:
    import httpx2

    LIBRARIES.append(httpx2)
except ImportError:  # openai 2.x runs on httpx alone
    pass

USER = [{"role": "user", "content": "Read a.txt"}]


class Upstream:
    """A scripted model server: answers every chat completion with one scenario's reply."""

    def __init__(self, lib: Any, reply: dict[str, Any], stream_body: bytes | None = None) -> None:
        self.lib = lib
        self.reply = reply
        self.stream_body = stream_body
        self.requests: list[dict[str, Any]] = []
        self.closed = 0

    def __call__(self, request: Any) -> Any:
        body = json.loads(request.content) if request.content else {}
        self.requests.append(body)
        if body.get("stream"):
            return self.lib.Response(
                200, headers={"content-type": "text/event-stream"}, content=self.stream_body
            )
        return self.lib.Response(200, json=self.reply)


def client_for(lib: Any, upstream: Upstream, *, asynchronous: bool = False, **options: Any) -> Any:
    transport = lib.MockTransport(upstream)
    if asynchronous:
        http = lib.AsyncClient(transport=transport)
        return wrap(
            openai.AsyncOpenAI(
                api_key="sk-test", base_url="http://127.0.0.1:9/v1", http_client=http
            ),
            **options,
        )
    http = lib.Client(transport=transport)
    return wrap(
        openai.OpenAI(api_key="sk-test", base_url="http://127.0.0.1:9/v1", http_client=http),
        **options,
    )


def message_outcome(message: Any) -> dict[str, Any]:
    calls = [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or []]
    extra = message.model_extra or {}
    rejected = [c["function"]["name"] for c in extra.get("toolmend_rejected_calls") or []]
    return {"calls": calls, "rejected": rejected}


async def astreamed_outcome(stream: Any) -> dict[str, Any]:
    collected = [chunk async for chunk in stream]
    return sdk_stream_outcome(collected)


@pytest.mark.parametrize("lib", LIBRARIES, ids=lambda m: m.__name__)
@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_a_whole_reply_reaches_the_agent_with_the_same_calls_as_every_host(lib, scenario):
    upstream = Upstream(lib, completion(scenario))
    client = client_for(lib, upstream)
    reply = client.chat.completions.create(model=scenario.model, messages=USER, tools=TOOLS)
    assert message_outcome(reply.choices[0].message) == expected(scenario)
    if scenario.text is not None:
        assert reply.choices[0].message.content == scenario.text
    assert reply.choices[0].finish_reason == ("tool_calls" if scenario.calls else "stop")


@pytest.mark.parametrize("lib", LIBRARIES, ids=lambda m: m.__name__)
@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_a_streamed_reply_reaches_the_agent_with_the_same_calls_as_every_host(lib, scenario):
    upstream = Upstream(lib, {}, sse(chunks(scenario)))
    client = client_for(lib, upstream)
    stream = client.chat.completions.create(
        model=scenario.model, messages=USER, tools=TOOLS, stream=True
    )
    assert sdk_stream_outcome(stream) == expected(scenario)


@pytest.mark.parametrize("lib", LIBRARIES, ids=lambda m: m.__name__)
@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_the_async_client_recovers_whole_and_streamed_replies_alike(lib, scenario):
    async def run() -> tuple[dict[str, Any], dict[str, Any]]:
        whole = client_for(lib, Upstream(lib, completion(scenario)), asynchronous=True)
        reply = await whole.chat.completions.create(
            model=scenario.model, messages=USER, tools=TOOLS
        )
        streamed = client_for(lib, Upstream(lib, {}, sse(chunks(scenario))), asynchronous=True)
        stream = await streamed.chat.completions.create(
            model=scenario.model, messages=USER, tools=TOOLS, stream=True
        )
        return message_outcome(reply.choices[0].message), await astreamed_outcome(stream)

    whole, streamed = asyncio.run(run())
    assert whole == streamed == expected(scenario)


def test_the_stream_helper_and_raw_responses_see_the_recovered_reply():
    import httpx

    scenario = SCENARIOS[0]
    client = client_for(httpx, Upstream(httpx, completion(scenario), sse(chunks(scenario))))
    with client.chat.completions.stream(model=scenario.model, messages=USER, tools=TOOLS) as stream:
        final = stream.get_final_completion()
    assert message_outcome(final.choices[0].message) == expected(scenario)
    raw = client.chat.completions.with_raw_response.create(
        model=scenario.model, messages=USER, tools=TOOLS
    )
    body = json.loads(raw.http_response.content)
    assert body["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "read_file"
    assert "<tool_call>" not in body["choices"][0]["message"]["content"]


def test_a_third_identical_failure_reaches_the_model_as_the_loop_breakers_guidance():
    import httpx

    upstream = Upstream(httpx, completion(SCENARIOS[0]))
    client = client_for(httpx, upstream)
    client.chat.completions.create(model="gpt-4.1", messages=failing_history(3), tools=TOOLS)
    sent = upstream.requests[-1]["messages"]
    assert header(sent[2]["content"]).startswith(FIRST_FAILURE)
    assert header(sent[-1]["content"]).startswith(THIRD_FAILURE)


def test_guard_false_sends_the_history_as_the_agent_wrote_it():
    import httpx

    upstream = Upstream(httpx, completion(SCENARIOS[0]))
    client = client_for(httpx, upstream, guard=False)
    client.chat.completions.create(model="gpt-4.1", messages=failing_history(3), tools=TOOLS)
    assert upstream.requests[-1]["messages"] == failing_history(3)


def test_a_request_without_tools_gets_the_reply_as_the_model_wrote_it():
    import httpx

    scenario = SCENARIOS[0]
    client = client_for(httpx, Upstream(httpx, completion(scenario)))
    reply = client.chat.completions.create(model=scenario.model, messages=USER)
    assert reply.choices[0].message.content == scenario.content
    assert reply.choices[0].message.tool_calls is None


def test_wrap_keeps_the_clients_base_url_key_timeout_and_retries():
    import httpx

    base = openai.OpenAI(
        api_key="sk-kept",
        base_url="http://127.0.0.1:9/v9",
        timeout=12.5,
        max_retries=7,
        http_client=httpx.Client(transport=httpx.MockTransport(lambda r: httpx.Response(404))),
    )
    wrapped = wrap(base)
    assert (str(wrapped.base_url), wrapped.api_key, wrapped.timeout, wrapped.max_retries) == (
        "http://127.0.0.1:9/v9/",
        "sk-kept",
        12.5,
        7,
    )


def test_other_endpoints_pass_through_untouched():
    import httpx

    seen: list[str] = []

    def handler(request: Any) -> Any:
        seen.append(request.url.path)
        return httpx.Response(
            200,
            json={
                "object": "list",
                "data": [{"id": "m", "object": "model", "created": 1, "owned_by": "me"}],
            },
        )

    client = wrap(
        openai.OpenAI(
            api_key="k",
            base_url="http://127.0.0.1:9/v1",
            http_client=httpx.Client(transport=httpx.MockTransport(handler)),
        )
    )
    assert [m.id for m in client.models.list()] == ["m"]
    assert seen == ["/v1/models"]


def test_an_error_reported_mid_stream_still_raises_in_the_sdk():
    import httpx

    scenario = SCENARIOS[0]
    items = [
        *chunks(scenario)[:3],
        {"error": {"message": "upstream overloaded", "type": "server_error"}},
    ]
    client = client_for(httpx, Upstream(httpx, {}, sse(items)))
    stream = client.chat.completions.create(
        model=scenario.model, messages=USER, tools=TOOLS, stream=True
    )
    with pytest.raises(openai.APIError, match="upstream overloaded"):
        list(stream)


def test_closing_a_stream_early_closes_the_upstream_body():
    import httpx

    closed: list[bool] = []

    class Body(httpx.SyncByteStream):
        def __iter__(self):
            yield from (sse(chunks(SCENARIOS[0]))[i : i + 40] for i in range(0, 4000, 40))

        def close(self) -> None:
            closed.append(True)

    def handler(request: Any) -> Any:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=Body())

    transport = ToolmendTransport(httpx.MockTransport(handler))
    client = openai.OpenAI(
        api_key="k", base_url="http://127.0.0.1:9/v1", http_client=httpx.Client(transport=transport)
    )
    stream = client.chat.completions.create(model="qwen3", messages=USER, tools=TOOLS, stream=True)
    next(iter(stream))
    stream.close()
    assert closed == [True]


def test_comments_and_the_done_sentinel_keep_their_place_in_the_stream():
    import httpx

    scenario = SCENARIOS[0]
    items = chunks(scenario)
    body = b": keep-alive\n\n" + sse(items)
    upstream = Upstream(httpx, {}, body)
    transport = ToolmendTransport(httpx.MockTransport(upstream))
    http = httpx.Client(transport=transport)
    request = {"model": scenario.model, "messages": USER, "tools": TOOLS, "stream": True}
    with http.stream("POST", "http://127.0.0.1:9/v1/chat/completions", json=request) as response:
        text = b"".join(response.iter_bytes()).decode()
    assert text.startswith(": keep-alive\n\n")
    assert text.endswith("data: [DONE]\n\n") and text.count("[DONE]") == 1
    assert '"read_file"' in text and "<tool_call>" not in text
