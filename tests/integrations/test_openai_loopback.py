"""`wrap` over the SDK's own default HTTP client, against a real server on loopback.

The server is the standard library's, answering chat completions with a leaked call, whole or
as server-sent events written in small pieces; the clients are `OpenAI` / `AsyncOpenAI` with
no `http_client` of ours, so the real connection pool, streaming and timeouts are in the path.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

openai = pytest.importorskip("openai", reason="the openai extra is not installed")

from toolmend.integrations.openai import wrap  # noqa: E402

from .scenarios import SCENARIOS, TOOLS, chunks, completion, expected, sdk_stream_outcome, sse  # noqa: E402

LEAK = SCENARIOS[0]


class ScriptedModel(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:  # keep the test output quiet
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        if body.get("stream"):
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()
            data = sse(chunks(LEAK))
            for i in range(0, len(data), 23):  # written in pieces that cut lines and JSON
                self.wfile.write(data[i : i + 23])
                self.wfile.flush()
            return
        payload = gzip.compress(json.dumps(completion(LEAK)).encode())
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-encoding", "gzip")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture
def base_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), ScriptedModel)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_the_default_client_gets_a_gzipped_reply_and_a_stream_recovered(base_url):
    client = wrap(openai.OpenAI(api_key="sk-test", base_url=base_url, max_retries=0))
    reply = client.chat.completions.create(
        model=LEAK.model, messages=[{"role": "user", "content": "x"}], tools=TOOLS
    )
    calls = [
        (c.function.name, json.loads(c.function.arguments))
        for c in reply.choices[0].message.tool_calls
    ]
    assert calls == expected(LEAK)["calls"]
    assert reply.choices[0].message.content == LEAK.text
    stream = client.chat.completions.create(
        model=LEAK.model, messages=[{"role": "user", "content": "x"}], tools=TOOLS, stream=True
    )
    assert sdk_stream_outcome(stream) == expected(LEAK)
    client.close()


def test_the_default_async_client_gets_a_stream_recovered(base_url):
    async def run() -> dict[str, Any]:
        client = wrap(openai.AsyncOpenAI(api_key="sk-test", base_url=base_url, max_retries=0))
        stream = await client.chat.completions.create(
            model=LEAK.model, messages=[{"role": "user", "content": "x"}], tools=TOOLS, stream=True
        )
        got = sdk_stream_outcome([chunk async for chunk in stream])
        await client.close()
        return got

    assert asyncio.run(run()) == expected(LEAK)
