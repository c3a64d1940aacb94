"""Client keys, Authorization forwarding, the request log's schema, /metrics, /v1/models."""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path

import openai
import pytest

from toolmend.server import ServerConfig, Upstream
from toolmend.server.config import ApiKey
from toolmend.server.demo.scripted import Answer

from .servers import ASK, HERMES_OSLO, TOOLS, ProxyHandle, ScriptedHandle, StartProxy

SCHEMA_DOC = Path(__file__).resolve().parents[2] / "docs" / "log-schema.md"
CLIENT_KEY = "sk-toolmend-client-0123456789"
UPSTREAM_KEY = "sk-upstream-secret-9876543210"


def get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as response:
        text: str = response.read().decode()
        return text


def documented_fields() -> list[str]:
    text = SCHEMA_DOC.read_text(encoding="utf-8")
    section = text.split("## `toolmend.request/1`", 1)[1]
    return re.findall(r"^\| `([a-z_]+)` \|", section, re.M)


def test_with_keys_configured_a_request_without_a_known_key_gets_401(
    upstream: ScriptedHandle, start_proxy: StartProxy
) -> None:
    proxy = start_proxy(keys=(ApiKey("alice", CLIENT_KEY),))
    model = upstream.script(Answer("hi"))
    with pytest.raises(openai.AuthenticationError):
        proxy.client(api_key="sk-wrong").chat.completions.create(model=model, messages=ASK)
    answer = proxy.client(api_key=CLIENT_KEY).chat.completions.create(model=model, messages=ASK)
    assert answer.choices[0].message.content == "hi"


def test_the_client_authorization_is_forwarded_only_when_it_is_not_ours(
    upstream: ScriptedHandle, start_proxy: StartProxy
) -> None:
    model = upstream.script(Answer("hi"))
    open_proxy = start_proxy()
    open_proxy.client(api_key="sk-for-the-upstream").chat.completions.create(
        model=model, messages=ASK
    )
    assert (
        upstream.requests_for(model)[-1]["headers"]["authorization"] == "Bearer sk-for-the-upstream"
    )
    keyed = start_proxy(keys=(ApiKey("alice", CLIENT_KEY),))
    keyed.client(api_key=CLIENT_KEY).chat.completions.create(model=model, messages=ASK)
    assert "authorization" not in upstream.requests_for(model)[-1]["headers"]
    own_key = start_proxy(ServerConfig(upstreams=(Upstream("s", upstream.url, UPSTREAM_KEY),)))
    own_key.client(api_key="sk-client").chat.completions.create(model=model, messages=ASK)
    assert upstream.requests_for(model)[-1]["headers"]["authorization"] == f"Bearer {UPSTREAM_KEY}"


def test_no_key_or_header_appears_in_the_log_an_error_or_the_metrics(
    upstream: ScriptedHandle, start_proxy: StartProxy
) -> None:
    config = ServerConfig(upstreams=(Upstream("s", upstream.url, UPSTREAM_KEY),))
    proxy = start_proxy(config, keys=(ApiKey("alice", CLIENT_KEY),))
    model = upstream.script(Answer(HERMES_OSLO))
    client = proxy.client(api_key=CLIENT_KEY)
    client.chat.completions.create(model=model, messages=ASK, tools=TOOLS)
    with pytest.raises(openai.AuthenticationError) as caught:
        proxy.client(api_key=CLIENT_KEY[:-1]).chat.completions.create(model=model, messages=ASK)
    seen = proxy.log_path.read_text() + json.dumps(caught.value.body) + get(f"{proxy.url}/metrics")
    for secret in (CLIENT_KEY, CLIENT_KEY[:-1], UPSTREAM_KEY, "Bearer"):
        assert secret not in seen


def test_every_log_line_has_exactly_the_documented_fields_and_no_content(
    upstream: ScriptedHandle, proxy: ProxyHandle
) -> None:
    model = upstream.script(Answer(HERMES_OSLO, chunk_size=5))
    client = proxy.client()
    client.chat.completions.create(model=model, messages=ASK, tools=TOOLS)
    list(client.chat.completions.create(model=model, messages=ASK, tools=TOOLS, stream=True))
    fields = documented_fields()
    assert "content" in fields
    records = proxy.log(at_least=2)
    assert len(records) == 2
    for record in records:
        assert sorted(record) == sorted(f for f in fields if f != "content")
        assert record["schema"] == "toolmend.request/1"
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", record["ts"])
        assert record["tool_calls"] == 1 and record["status"] == 200
        assert "Oslo" not in json.dumps(record)
    streamed = records[1]
    assert streamed["stream"] is True and streamed["ttfc_ms"] <= streamed["latency_ms"]
    assert records[0]["ttfc_ms"] is None


def test_with_log_content_the_request_and_the_answer_text_are_logged(
    upstream: ScriptedHandle, start_proxy: StartProxy
) -> None:
    proxy = start_proxy(log_content=True)
    model = upstream.script(Answer("The answer."))
    proxy.client().chat.completions.create(model=model, messages=ASK)
    content = proxy.log()[-1]["content"]
    assert content["request"]["messages"] == ASK
    assert content["response_text"] == "The answer."


def test_the_request_id_is_sent_as_a_header_and_logged(
    upstream: ScriptedHandle, proxy: ProxyHandle
) -> None:
    model = upstream.script(Answer("hi"))
    raw = proxy.client().chat.completions.with_raw_response.create(model=model, messages=ASK)
    assert raw.headers["x-request-id"] == proxy.log()[-1]["request_id"]


def test_metrics_count_requests_recoveries_repairs_and_first_chunks(
    upstream: ScriptedHandle, proxy: ProxyHandle
) -> None:
    leaked = (
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo", "days": "2"}}</tool_call>'
    )
    model = upstream.script(Answer(leaked, chunk_size=7))
    before = get(f"{proxy.url}/metrics")
    list(
        proxy.client().chat.completions.create(model=model, messages=ASK, tools=TOOLS, stream=True)
    )
    after = get(f"{proxy.url}/metrics")

    def value(text: str, name: str) -> float:
        found = re.search(rf"^{re.escape(name)} (\S+)$", text, re.M)
        return float(found.group(1)) if found else 0.0

    requests = 'toolmend_requests_total{endpoint="/v1/chat/completions",mode="native",status="200"}'
    assert value(after, requests) == value(before, requests) + 1
    recovered = [k for k in re.findall(r"^toolmend_recovered_calls_total\{[^}]*\}", after, re.M)]
    assert recovered
    assert value(after, 'toolmend_repairs_total{kind="coerce"}') >= 1
    assert value(after, 'toolmend_first_chunk_seconds_count{mode="native"}') >= 1


def test_models_lists_the_upstream_models_and_the_aliases(
    upstream: ScriptedHandle, start_proxy: StartProxy
) -> None:
    model = upstream.script(Answer("hi"))
    proxy = start_proxy(aliases={"fast": model})
    ids = [m.id for m in proxy.client().models.list()]
    assert model in ids and ids[-1] == "fast"
    answer = proxy.client().chat.completions.create(model="fast", messages=ASK)
    assert answer.choices[0].message.content == "hi"
    assert upstream.requests_for(model)[-1]["body"]["model"] == model


def test_healthz_answers_without_a_key(start_proxy: StartProxy) -> None:
    proxy = start_proxy(keys=(ApiKey("alice", CLIENT_KEY),))
    assert json.loads(get(f"{proxy.url}/healthz"))["status"] == "ok"
