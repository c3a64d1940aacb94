"""The frames of the events one upstream read brought go out in one write, and none waits.

A proxy that fell behind reads several events at once; their frames are written together
(`FrameBatch`), one write per read instead of one per event. A frame is held only while events
of the same read are still to come, and the held frames are written before the upstream is read
again, so recovery holding back the read's last text can never keep earlier text waiting.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any

from toolmend.server.chat import ChatPipeline, ServerState
from toolmend.server.config import Limits, Overrides, Upstream, resolve_config
from toolmend.server.requestlog import RequestRecord
from toolmend.server.sse_response import SSEResponse
from toolmend.server.upstream import UpstreamClient, UpstreamStream


def event(content: str) -> bytes:
    chunk = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": None}],
    }
    return b"data: " + json.dumps(chunk).encode() + b"\n\n"


class Reads:
    """An upstream body read by read; notes what the client had been sent at each read."""

    def __init__(self, reads: list[bytes], sent: list[bytes]) -> None:
        self._reads = iter(reads)
        self._sent = sent
        self.sent_before_read: list[list[bytes]] = []

    async def readany(self) -> bytes:
        self.sent_before_read.append(list(self._sent))
        return next(self._reads, b"")

    def set_exception(self, exc: BaseException) -> None:
        raise AssertionError(f"the stream timed out: {exc}")


class Response:
    status = 200
    closed = False

    def __init__(self, content: Reads) -> None:
        self.content = content

    def close(self) -> None:
        self.closed = True


class Client(UpstreamClient):
    def __init__(self, content: Reads) -> None:
        super().__init__()
        self._content = content

    async def open_stream(
        self, upstream: Upstream, body: Mapping[str, Any], headers: dict[str, str], limits: Limits
    ) -> UpstreamStream:
        loop = asyncio.get_running_loop()
        return UpstreamStream(upstream, Response(self._content), limits, loop.time())  # type: ignore[arg-type]


class Log:
    def write(self, record: RequestRecord) -> None:
        pass


def stream_through(reads: list[bytes]) -> tuple[list[bytes], Reads]:
    """The body writes the client got for an upstream body read as `reads`, and the reads."""
    sent: list[bytes] = []
    content = Reads(reads, sent)
    config = resolve_config(Overrides(upstream="http://127.0.0.1:9/v1"))
    rule = config.rule_for("m")
    state = ServerState(config, Client(content), Log())  # type: ignore[arg-type]
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True}
    record = RequestRecord("req_test", "/v1/chat/completions")
    upstream = config.upstream(rule.upstream)
    pipeline = ChatPipeline(
        state, record, body, rule, upstream, None, body["messages"], {}, guard=None
    )

    async def receive() -> dict[str, Any]:
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.body":
            sent.append(message["body"])

    async def run() -> None:
        source = await pipeline.open(pipeline.history)
        response = SSEResponse(pipeline.sse(source), batch=pipeline.batch)
        await response({"type": "http"}, receive, send)

    asyncio.run(run())
    return sent, content


def texts(write: bytes) -> list[str]:
    frames = [f for f in write.split(b"\n\n") if f and f != b"data: [DONE]"]
    chunks = [json.loads(f.removeprefix(b"data: ")) for f in frames]
    return [c["choices"][0]["delta"].get("content") for c in chunks if c["choices"]]


def test_the_events_of_one_read_go_out_in_one_write() -> None:
    reads = [event("a ") + event("b ") + event("c "), event("d "), b"data: [DONE]\n\n"]
    sent, _ = stream_through(reads)
    assert [texts(write) for write in sent] == [["a ", "b ", "c "], ["d "], [None]]


def test_an_event_read_alone_is_written_alone() -> None:
    sent, _ = stream_through([event("a "), event("b "), b"data: [DONE]\n\n"])
    assert [texts(write) for write in sent] == [["a "], ["b "], [None]]


def test_frames_held_for_a_read_are_written_before_the_upstream_is_read_again() -> None:
    # Recovery holds the read's last text ("<tool", a call's possible start): the frames
    # before it are written before the next read, not kept until the hold resolves.
    reads = [
        event("Hello ") + event("there ") + event("<tool"),
        event("s> ok"),
        b"data: [DONE]\n\n",
    ]
    sent, content = stream_through(reads)
    before_second_read = content.sent_before_read[1]
    assert [texts(write) for write in before_second_read] == [["Hello ", "there "]]
    assert "".join(t or "" for write in sent for t in texts(write)) == "Hello there <tools> ok"


def test_frames_held_when_the_read_breaks_go_out_before_the_error_event() -> None:
    sent, _ = stream_through([event("a ") + event("b ") + b"data: {not json\n\n"])
    (write,) = sent
    *frames, error, done = [f for f in write.split(b"\n\n") if f]
    assert [texts(frame + b"\n\n") for frame in frames] == [["a "], ["b "]]
    assert json.loads(error.removeprefix(b"data: "))["error"]["type"] == "upstream_invalid_json"
    assert done == b"data: [DONE]"
