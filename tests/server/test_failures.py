"""Every upstream failure and every bad request ends in a clear OpenAI-style error, never a hang."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.request
from typing import Any

import openai
import pytest

from toolmend.server import Limits, ModelRule, ServerConfig, Upstream
from toolmend.server.demo.scripted import Answer, Failure
from toolmend.server.loopback import free_port

from .servers import ASK, HERMES_OSLO, TOOLS, ProxyHandle, ScriptedHandle, StartProxy
from .test_access_and_observability import documented_fields


def post(url: str, data: bytes, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    request = urllib.request.Request(
        f"{url}/v1/chat/completions",
        data=data,
        headers={"Content-Type": "application/json", **(headers or {})},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_an_unreachable_upstream_gives_a_502_naming_the_upstream(start_proxy: StartProxy) -> None:
    config = ServerConfig(upstreams=(Upstream("gone", f"http://127.0.0.1:{free_port()}/v1"),))
    proxy = start_proxy(config)
    with pytest.raises(openai.APIStatusError) as caught:
        proxy.client().chat.completions.create(model="any", messages=ASK)
    assert caught.value.status_code == 502
    assert "'gone' is unreachable" in caught.value.message
    assert proxy.log()[-1]["upstream_status"] is None
    assert proxy.log()[-1]["error"]["type"] == "upstream_unreachable"


def test_an_upstream_that_stalls_past_the_read_timeout_gives_a_504(
    upstream: ScriptedHandle, start_proxy: StartProxy
) -> None:
    proxy = start_proxy(limits=Limits(read_timeout=0.3))
    model = upstream.script(Answer("late"), failure=Failure("stall", seconds=3))
    started = time.perf_counter()
    with pytest.raises(openai.APIStatusError) as caught:
        proxy.client().chat.completions.create(model=model, messages=ASK, stream=True)
    assert caught.value.status_code == 504
    assert time.perf_counter() - started < 2.5


def test_an_upstream_that_goes_silent_mid_stream_past_the_read_timeout_ends_with_a_timeout(
    upstream: ScriptedHandle, start_proxy: StartProxy
) -> None:
    # The head comes at once, then each chunk 5 s apart: the silence after the head passes
    # the 1 s read timeout, so the stream ends with the timeout's error event, long before
    # the first chunk would have come. The read timeout also bounds the wait for the head,
    # so it leaves a loaded machine a second to bring it (0.3 s did not always suffice).
    proxy = start_proxy(limits=Limits(read_timeout=1.0))
    model = upstream.script(Answer("one two three four", chunk_size=4, pace_ms=5000))
    started = time.perf_counter()
    stream = proxy.client().chat.completions.create(model=model, messages=ASK, stream=True)
    with pytest.raises(openai.APIError) as caught:
        for _ in stream:
            pass
    assert "stopped sending" in str(caught.value.message)
    assert time.perf_counter() - started < 4.5
    assert proxy.log(at_least=1)[-1]["error"]["type"] == "upstream_timeout"


def test_a_stream_that_outlasts_the_total_timeout_ends_with_a_timeout_while_it_still_sends(
    upstream: ScriptedHandle, start_proxy: StartProxy
) -> None:
    # Chunks every 0.1 s never trip the 2 s read timeout; the 0.8 s total ends the answer.
    proxy = start_proxy(limits=Limits(read_timeout=2.0, total_timeout=0.8))
    model = upstream.script(Answer("word " * 40, chunk_size=5, pace_ms=100))
    started = time.perf_counter()
    stream = proxy.client().chat.completions.create(model=model, messages=ASK, stream=True)
    texts: list[str] = []
    with pytest.raises(openai.APIError) as caught:
        for chunk in stream:
            texts += [c.delta.content or "" for c in chunk.choices]
    assert "did not finish its answer in time" in str(caught.value.message)
    assert 0 < len("".join(texts)) < len("word " * 40)
    assert time.perf_counter() - started < 3


@pytest.mark.parametrize("status", [400, 404, 429, 500, 503])
def test_an_upstream_error_status_is_passed_through_with_its_body(
    upstream: ScriptedHandle, proxy: ProxyHandle, status: int
) -> None:
    body = json.dumps({"error": {"message": f"scripted {status}", "type": "x", "code": "c"}})
    model = upstream.script(Answer(""), failure=Failure("status", status=status, body=body))
    for stream in (False, True):
        with pytest.raises(openai.APIStatusError) as caught:
            proxy.client().chat.completions.create(model=model, messages=ASK, stream=stream)
        assert caught.value.status_code == status
        assert caught.value.body == {"message": f"scripted {status}", "type": "x", "code": "c"}
    assert proxy.log()[-1]["upstream_status"] == status


def test_an_upstream_answer_that_is_not_json_gives_a_502(
    upstream: ScriptedHandle, proxy: ProxyHandle
) -> None:
    model = upstream.script(Answer("x"), failure=Failure("invalid_json"))
    with pytest.raises(openai.APIStatusError) as caught:
        proxy.client().chat.completions.create(model=model, messages=ASK)
    assert caught.value.status_code == 502
    assert "invalid JSON" in caught.value.message


@pytest.mark.parametrize("kind", ["invalid_json", "invalid_sse", "drop"])
@pytest.mark.parametrize("mode", ["native", "text"])
def test_a_stream_that_breaks_delivers_the_complete_calls_then_an_error_event_then_done(
    upstream: ScriptedHandle, start_proxy: StartProxy, kind: str, mode: str
) -> None:
    rules = (ModelRule(match="*", mode="text", protocol="hermes"),) if mode == "text" else ()
    proxy = start_proxy(ServerConfig(upstreams=(Upstream("s", upstream.url),), models=rules))
    text = HERMES_OSLO + " And more text that never arrives in full."
    model = upstream.script(Answer(text, chunk_size=10), failure=Failure(kind, after_chunks=10))
    body = {"model": model, "messages": ASK, "tools": TOOLS, "stream": True}
    request = urllib.request.Request(
        f"{proxy.url}/v1/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 200
        raw = response.read()
    events = [e.removeprefix(b"data: ") for e in raw.split(b"\n\n") if e]
    assert events[-1] == b"[DONE]"
    error = json.loads(events[-2])
    assert error["error"]["type"] == f"upstream_{'dropped' if kind == 'drop' else kind}"
    chunks = [json.loads(e) for e in events[:-2]]
    calls = [p for c in chunks for ch in c["choices"] for p in ch["delta"].get("tool_calls", [])]
    assert [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in calls] == [
        ("get_weather", {"city": "Oslo"})
    ]
    assert proxy.log(at_least=1)[-1]["error"] is not None


def test_the_openai_client_raises_on_the_error_event_of_a_broken_stream(
    upstream: ScriptedHandle, proxy: ProxyHandle
) -> None:
    model = upstream.script(
        Answer("a" * 200, chunk_size=10), failure=Failure("drop", after_chunks=5)
    )
    stream = proxy.client().chat.completions.create(model=model, messages=ASK, stream=True)
    with pytest.raises(openai.APIError, match="closed the connection"):
        for _ in stream:
            pass


async def read_one_chunk_and_leave(proxy: ProxyHandle, model: str) -> None:
    """A client that reads the first chunk of a stream, then closes it and goes."""
    client = proxy.async_client()
    stream = await client.chat.completions.create(model=model, messages=ASK, stream=True)
    async for _ in stream:
        break
    await stream.close()
    await client.close()


def test_a_client_that_disconnects_cancels_the_upstream_request(
    upstream: ScriptedHandle, proxy: ProxyHandle
) -> None:
    model = upstream.script(Answer("tick " * 400, chunk_size=5, pace_ms=20))
    before = upstream.scripted.disconnected

    asyncio.run(read_one_chunk_and_leave(proxy, model))
    deadline = time.monotonic() + 5
    while upstream.scripted.disconnected == before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert upstream.scripted.disconnected == before + 1


def test_a_client_that_disconnects_is_logged_once_with_the_documented_fields(
    upstream: ScriptedHandle, proxy: ProxyHandle
) -> None:
    # The line of a streamed request is written after its last frames, off the client's path;
    # a client that leaves before them still gets exactly one line, with status 499.
    model = upstream.script(Answer("tick " * 400, chunk_size=5, pace_ms=20))

    asyncio.run(read_one_chunk_and_leave(proxy, model))
    (record,) = proxy.log(at_least=1)
    time.sleep(0.3)  # time for a second line, were one to come
    assert len(proxy.log()) == 1
    assert sorted(record) == sorted(f for f in documented_fields() if f != "content")
    assert record["status"] == 499 and record["stream"] is True
    assert record["error"]["type"] == "client_disconnected"
    assert record["ttfc_ms"] is not None and record["ttfc_ms"] <= record["latency_ms"]


def test_an_oversized_body_gets_413(start_proxy: StartProxy) -> None:
    proxy = start_proxy(limits=Limits(max_request_bytes=2048))
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "x" * 5000}]})
    status, answer = post(proxy.url, body.encode())
    assert status == 413
    assert answer["error"]["type"] == "request_too_large"


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"{not json", "not JSON"),
        (b"[1, 2]", "JSON object"),
        (b'{"messages": [{"role": "user", "content": "hi"}]}', "'model'"),
        (b'{"model": "m", "messages": []}', "'messages'"),
        (b'{"model": "m", "messages": ["hi"]}', "messages[0]"),
        (
            b'{"model": "m", "messages": [{"role": "user"}], "tools": [{"type": "function"}]}',
            "invalid tools",
        ),
        (b'{"model": "m", "messages": [{"role": "user"}], "stream": "yes"}', "'stream'"),
    ],
)
def test_a_malformed_request_gets_400_with_the_reason(
    proxy: ProxyHandle, data: bytes, reason: str
) -> None:
    status, answer = post(proxy.url, data)
    assert status == 400
    assert reason in answer["error"]["message"]
    assert answer["error"]["type"] == "invalid_request_error"


def test_concurrent_requests_are_independent(upstream: ScriptedHandle, proxy: ProxyHandle) -> None:
    leaking = upstream.script(Answer(HERMES_OSLO, chunk_size=2, pace_ms=2))
    failing = upstream.script(Answer("x"), failure=Failure("status", status=500))
    plain = upstream.script(Answer("plain text " * 20, chunk_size=3, pace_ms=1))

    async def run() -> list[Any]:
        client = proxy.async_client()

        async def ask(model: str) -> Any:
            try:
                return await client.chat.completions.create(model=model, messages=ASK, tools=TOOLS)
            except openai.APIStatusError as exc:
                return exc.status_code

        results = await asyncio.gather(*(ask(m) for m in [leaking, failing, plain] * 5))
        await client.close()
        return results

    results = asyncio.run(run())
    for i, result in enumerate(results):
        if i % 3 == 0:
            assert result.choices[0].message.tool_calls[0].function.name == "get_weather"
        elif i % 3 == 1:
            assert result == 500
        else:
            assert result.choices[0].message.content == "plain text " * 20


def test_a_failure_of_the_proxy_itself_is_an_openai_style_500_and_logged(
    upstream: ScriptedHandle, proxy: ProxyHandle, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolmend.server import chat

    def broken(*args: Any) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr(chat, "guard_request", broken)
    model = upstream.script(Answer("hi"))
    with pytest.raises(openai.InternalServerError) as caught:
        proxy.client().chat.completions.create(model=model, messages=ASK)
    assert caught.value.body == {
        "message": chat.INTERNAL_ERROR,
        "type": "internal_error",
        "param": None,
        "code": None,
    }
    assert proxy.log()[-1]["error"] == {"type": "internal_error", "message": "RuntimeError"}


def test_text_mode_skips_history_tool_calls_that_are_not_objects(
    upstream: ScriptedHandle, start_proxy: StartProxy
) -> None:
    rules = (ModelRule(match="*", mode="text", protocol="hermes"),)
    proxy = start_proxy(ServerConfig(upstreams=(Upstream("s", upstream.url),), models=rules))
    model = upstream.script(Answer("fine"))
    history = [
        *ASK,
        {"role": "assistant", "content": "x", "tool_calls": ["junk", {"function": "f"}]},
    ]
    status, answer = post(proxy.url, json.dumps({"model": model, "messages": history}).encode())
    assert status == 200
    assert answer["choices"][0]["message"]["content"] == "fine"


@pytest.mark.parametrize("stream", [True, False])
def test_a_lone_surrogate_escape_from_the_upstream_reaches_the_client_as_sent(
    upstream: ScriptedHandle, proxy: ProxyHandle, stream: bool
) -> None:
    # JSON allows `"\ud800"` and upstreams relay whatever the tokenizer produced; such a string
    # has no UTF-8 form, so the proxy writes it escaped rather than failing the response
    model = upstream.script(Answer("half an emoji: \ud83d, then more"))
    client = proxy.client()
    if stream:
        chunks = client.chat.completions.create(model=model, messages=ASK, stream=True)
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    else:
        reply = client.chat.completions.create(model=model, messages=ASK)
        text = reply.choices[0].message.content or ""
    assert text == "half an emoji: \ud83d, then more"
