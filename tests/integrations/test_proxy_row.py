"""The proxy as a row of the conformance table: the same replies through `toolmend serve`.

A scripted model on loopback answers each request with the reply of the scenario its user
message names (whole, or as server-sent events in small pieces); the proxy runs in front of it
with its default configuration (native mode, guard on, one re-ask) on its own loopback port;
the agent is the official `openai` client. The proxy must hand over the same calls as every
adapter, refuse the same ones (after telling the model why, in its re-ask, with the same
guidance header the adapters answer them with), and guard the same failing history.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

openai = pytest.importorskip("openai", reason="the openai extra is not installed")
pytest.importorskip("starlette", reason="the server extra is not installed")

from starlette.applications import Starlette  # noqa: E402
from starlette.requests import Request  # noqa: E402
from starlette.responses import JSONResponse, Response  # noqa: E402
from starlette.routing import Route  # noqa: E402

from toolmend.server import ServerConfig, Upstream, create_app  # noqa: E402
from toolmend.server.loopback import LoopbackServer  # noqa: E402

from .scenarios import (  # noqa: E402
    FIRST_FAILURE,
    SCENARIOS,
    THIRD_FAILURE,
    TOOLS,
    Scenario,
    chunks,
    completion,
    expected,
    failing_history,
    header,
    sdk_stream_outcome,
    sse,
)
from .test_openai import message_outcome  # noqa: E402

#: What the scripted model answers a request that names no scenario (the failing history).
PLAIN = Scenario("a plain answer", "gpt-4.1", content="I will stop here.")
BY_NAME = {s.name: s for s in [*SCENARIOS, PLAIN]}


class ScriptedModel:
    """Replies with the scenario the first user message names; keeps every request body."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    async def chat(self, request: Request) -> Response:
        body = await request.json()
        self.requests.append(body)
        asked = next(m["content"] for m in body["messages"] if m["role"] == "user")
        scenario = BY_NAME.get(asked, PLAIN)
        if body.get("stream"):
            return Response(sse(chunks(scenario, size=5)), media_type="text/event-stream")
        return JSONResponse(completion(scenario))

    def app(self) -> Starlette:
        return Starlette(routes=[Route("/v1/chat/completions", self.chat, methods=["POST"])])


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[ScriptedModel, Any]]:
    model = ScriptedModel()
    with LoopbackServer(model.app()) as upstream:
        config = ServerConfig(upstreams=(Upstream("scripted", f"{upstream.url}/v1"),))
        with LoopbackServer(create_app(config)) as proxy:
            client = openai.OpenAI(api_key="local", base_url=f"{proxy.url}/v1", max_retries=0)
            yield model, client


def ask(client: Any, scenario: Scenario, **options: Any) -> Any:
    return client.chat.completions.create(
        model=scenario.model,
        messages=[{"role": "user", "content": scenario.name}],
        tools=TOOLS,
        **options,
    )


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_the_proxy_hands_over_the_tables_calls_whole(served, scenario):
    _, client = served
    message = ask(client, scenario).choices[0].message
    assert message_outcome(message) == expected(scenario)
    if scenario.text is not None and not scenario.rejected:
        assert message.content == scenario.text


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_the_proxy_hands_over_the_tables_calls_streamed(served, scenario):
    _, client = served
    pieces = list(ask(client, scenario, stream=True))
    assert sdk_stream_outcome(pieces) == expected(scenario)
    text = "".join(c.choices[0].delta.content or "" for c in pieces if c.choices)
    if scenario.text is not None and not scenario.rejected:
        assert text == scenario.text


REFUSED = [s for s in SCENARIOS if s.rejected]


@pytest.mark.parametrize("scenario", REFUSED, ids=lambda s: s.name)
def test_the_proxy_tells_the_model_why_a_call_was_refused_in_the_adapters_words(served, scenario):
    model, client = served
    before = len(model.requests)
    ask(client, scenario)
    reasked = model.requests[before + 1]["messages"]
    assert reasked[-1]["role"] == "tool"
    assert header(reasked[-1]["content"]).startswith(scenario.rejected_guidance)


def test_the_proxy_guards_the_repeated_failure_up_to_the_loop_breaker(served):
    model, client = served
    client.chat.completions.create(model="gpt-4.1", messages=failing_history(3), tools=TOOLS)
    sent = [m for m in model.requests[-1]["messages"] if m["role"] == "tool"]
    assert header(sent[0]["content"]).startswith(FIRST_FAILURE)
    assert header(sent[-1]["content"]).startswith(THIRD_FAILURE)
