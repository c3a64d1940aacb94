"""What an answer's first chunk waits for: its parsers are built while the upstream works.

Building the first answer's parsers (under `auto`, every format's tables: the largest cost of
the first chunk) happens once the upstream request is under way and before the upstream has
answered, so the first chunk that comes only goes through them. What every request made
afresh and never changes (the default rule of a set of limits) is made once, and what it
makes (its counters) is what it made before.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import pytest

from toolmend.recovery import stream as recovery_stream
from toolmend.server import text_mode
from toolmend.server.chat import ChatPipeline, ServerState
from toolmend.server.config import Limits, ModelRule, Overrides, Upstream, resolve_config
from toolmend.server.guarding import GuidanceCounts
from toolmend.server.requestlog import RequestRecord
from toolmend.server.upstream import UpstreamClient, UpstreamStream

from .test_frame_batches import Log, Reads, Response, event, texts


class HeldClient(UpstreamClient):
    """An upstream that notes when a request starts and answers once `head` is set."""

    def __init__(self, content: Reads, order: list[str]) -> None:
        super().__init__()
        self._content = content
        self.order = order
        self.head = asyncio.Event()

    async def open_stream(
        self, upstream: Upstream, body: Mapping[str, Any], headers: dict[str, str], limits: Limits
    ) -> UpstreamStream:
        self.order.append("request")
        await self.head.wait()
        self.order.append("head")
        loop = asyncio.get_running_loop()
        return UpstreamStream(upstream, Response(self._content), limits, loop.time())  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", ["native", "text"])
def test_the_first_answers_parsers_are_built_after_the_request_left_and_before_the_head(
    monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    order: list[str] = []
    real_leg = recovery_stream.TextLeg

    def noted_leg(*args: Any) -> Any:
        order.append("parsers")
        return real_leg(*args)

    monkeypatch.setattr(recovery_stream, "TextLeg", noted_leg)
    sent: list[bytes] = []
    content = Reads([event("Hello "), event("there"), b"data: [DONE]\n\n"], sent)
    client = HeldClient(content, order)
    config = resolve_config(Overrides(upstream="http://127.0.0.1:9/v1"))
    rule = config.rule_for("m")
    if mode == "text":
        rule = replace(rule, mode="text", protocol="hermes")
        real_protocol = text_mode.get_protocol

        def noted_protocol(protocol_id: str) -> Any:
            proto = real_protocol(protocol_id)

            class Noted:
                id = proto.id

                def stream_parser(self, *args: Any, **kw: Any) -> Any:
                    order.append("parsers")
                    return proto.stream_parser(*args, **kw)

            return Noted()

        monkeypatch.setattr(text_mode, "get_protocol", noted_protocol)
    state = ServerState(config, client, Log())  # type: ignore[arg-type]
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True}
    record = RequestRecord("req_test", "/v1/chat/completions")
    pipeline = ChatPipeline(
        state, record, body, rule, config.upstream(None), None, body["messages"], {}, guard=None
    )

    async def run() -> list[str]:
        opening = asyncio.ensure_future(pipeline.open(pipeline.history))
        for _ in range(10):
            await asyncio.sleep(0)
        before_head = list(order)
        client.head.set()
        source = await opening
        async for frames in pipeline.sse(source):
            sent.append(frames)
        return before_head

    before_head = asyncio.run(run())
    assert before_head == ["request", "parsers"]
    assert order == ["request", "parsers", "head"]  # the first chunk built nothing more
    assert "".join(t or "" for write in sent for t in texts(write)) == "Hello there"


def test_models_no_rule_matches_share_the_one_default_rule_of_their_limits() -> None:
    config = resolve_config(Overrides(upstream="http://127.0.0.1:9/v1"))
    rule = config.rule_for("qwen3-coder")
    assert rule is config.rule_for("some-other-model")
    assert rule == ModelRule(limits=config.limits)
    other = replace(config, limits=replace(config.limits, read_timeout=7.0))
    assert other.rule_for("qwen3-coder").limits.read_timeout == 7.0


def test_a_request_records_counters_are_counters_as_counter_makes_them() -> None:
    record = RequestRecord("req_test", "/v1/chat/completions")
    for counter in (record.recovered, record.repairs, record.guidance, GuidanceCounts().by_pattern):
        assert type(counter) is Counter and counter == Counter()
        counter["hermes"] += 1
        counter.update({"hermes": 2, "json": 1})
        assert counter.most_common() == [("hermes", 3), ("json", 1)]
    assert RequestRecord("req_other", "/v1/chat/completions").recovered == Counter()
