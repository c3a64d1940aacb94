"""`/v1/responses` stores each answer off the event loop, before the answer's last event, over
real HTTP with the official `openai` client: a client that reads `response.completed` can name
it at once, a slow store stalls no other request, and a failing one costs no answer."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import openai
import pytest

from toolmend.server import create_app
from toolmend.server.config import ServerConfig, Upstream
from toolmend.server.demo.scripted import Answer, Script, ScriptedUpstream
from toolmend.server.frontends.response_store import ResponseStoreError, SQLiteResponseStore
from toolmend.server.loopback import LoopbackServer

#: How long a test waits for something that, done right, happens at once.
PATIENCE_SECONDS = 10
SCRIPTS = {
    "plain": Script(Answer(content="All done.", chunk_size=3)),
    "long": Script(Answer(content="word " * 40, chunk_size=5)),
}


class GatedStore(SQLiteResponseStore):
    """An SQLite store whose writes wait until the test opens the gate (a slow disk, a far
    Redis), saying when one has begun."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.writing = threading.Event()
        self.gate = threading.Event()

    def put(self, response_id: str, items: list[dict[str, Any]]) -> None:
        self.writing.set()
        if not self.gate.wait(PATIENCE_SECONDS):
            raise ResponseStoreError("the test never opened the gate")
        super().put(response_id, items)


class BrokenStore(SQLiteResponseStore):
    """A store whose writes fail, as a full disk or a Redis gone away does."""

    def put(self, response_id: str, items: list[dict[str, Any]]) -> None:
        raise ResponseStoreError("the response store /full/disk: database or disk is full")


class UnreadableStore(SQLiteResponseStore):
    """A store whose reads fail, as a damaged file does."""

    def get(self, response_id: str) -> list[dict[str, Any]] | None:
        raise ResponseStoreError("the response store /r.sqlite3: database disk image is malformed")


@dataclass
class Proxy:
    url: str
    log: Path

    def client(self) -> openai.OpenAI:
        return openai.OpenAI(base_url=f"{self.url}/v1", api_key="sk-test", max_retries=0)

    def logged(self, endpoint: str, count: int) -> list[dict[str, Any]]:
        """The request log's records of `endpoint`, once there are `count` of them: a stream's
        line is written after its last byte, so the client can finish before it is there."""
        deadline = time.monotonic() + PATIENCE_SECONDS
        while True:
            lines = self.log.read_text().splitlines() if self.log.exists() else []
            records = [r for r in map(json.loads, lines) if r["endpoint"] == endpoint]
            if len(records) >= count or time.monotonic() > deadline:
                return records
            time.sleep(0.01)


def _proxy(tmp_path: Path, store: SQLiteResponseStore) -> Iterator[Proxy]:
    upstream = ScriptedUpstream(dict(SCRIPTS))
    log = tmp_path / "requests.jsonl"
    with LoopbackServer(upstream.app()) as model_server:
        config = ServerConfig(
            upstreams=(Upstream("scripted", f"{model_server.url}/v1"),),
            log_file=str(log),
            source="test",
        )
        app = create_app(config)
        app.state.response_store = store
        with LoopbackServer(app) as proxy:
            yield Proxy(proxy.url, log)
    store.close()


@pytest.fixture
def gated(tmp_path: Path) -> Iterator[tuple[Proxy, GatedStore]]:
    store = GatedStore(tmp_path / "responses.sqlite3")
    for proxy in _proxy(tmp_path, store):
        yield proxy, store
    store.gate.set()


def test_each_streamed_turn_is_stored_before_its_completed_event_so_the_next_names_it_at_once(
    tmp_path: Path,
) -> None:
    path = tmp_path / "responses.sqlite3"
    reader = SQLiteResponseStore(path)  # another connection, as another worker would have
    for proxy in _proxy(tmp_path, SQLiteResponseStore(path)):
        client = proxy.client()
        previous: str | None = None
        for turn in range(4):
            extra: dict[str, Any] = {} if previous is None else {"previous_response_id": previous}
            with client.responses.stream(model="plain", input=f"turn {turn}", **extra) as stream:
                for event in stream:
                    if event.type == "response.completed":
                        stored = reader.get(event.response.id)
                        assert stored is not None  # stored when the client first hears of it
                        assert stored[-1]["content"][0]["text"] == "All done."
                response = stream.get_final_response()
            previous = response.id
        conversation = reader.get(previous)
        assert conversation is not None
        said = [item["content"] for item in conversation if item.get("role") == "user"]
        assert said == ["turn 0", "turn 1", "turn 2", "turn 3"]
    reader.close()


def test_a_slow_store_write_stalls_no_other_request_and_holds_back_only_its_own_end(
    gated: tuple[Proxy, GatedStore],
) -> None:
    proxy, store = gated
    client = proxy.client()
    with ThreadPoolExecutor(2) as pool:

        def first() -> list[str]:
            with client.responses.stream(model="plain", input="hi") as stream:
                return [event.type for event in stream]

        stored = pool.submit(first)
        assert store.writing.wait(PATIENCE_SECONDS)
        # The proxy is waiting on the store: another stream is served meanwhile, to its end
        # (its own write waits at the same gate, so it is asked not to store).
        other = client.responses.create(model="long", input="meanwhile", store=False)
        assert other.output_text == "word " * 40
        assert not stored.done()  # the first answer's last event waits for its write
        store.gate.set()
        events = stored.result(PATIENCE_SECONDS)
    assert events[-1] == "response.completed"


def test_a_failing_store_costs_no_answer_and_is_named_in_the_request_log(
    tmp_path: Path,
) -> None:
    for proxy in _proxy(tmp_path, BrokenStore(tmp_path / "responses.sqlite3")):
        client = proxy.client()
        whole = client.responses.create(model="plain", input="hi")
        with client.responses.stream(model="plain", input="hi") as stream:
            streamed = stream.get_final_response()
        assert whole.output_text == streamed.output_text == "All done."
        assert streamed.status == "completed"
        records = proxy.logged("/v1/responses", 2)
        assert [r["diagnostics"].get("response_store_failed") for r in records] == [1, 1]


def test_a_store_that_cannot_be_read_is_a_500_that_names_it(tmp_path: Path) -> None:
    for proxy in _proxy(tmp_path, UnreadableStore(tmp_path / "responses.sqlite3")):
        with pytest.raises(openai.InternalServerError, match="database disk image is malformed"):
            proxy.client().responses.create(
                model="plain", input="more", previous_response_id="resp_1"
            )


class BuggyStore(SQLiteResponseStore):
    """A store with a bug of its own (not a store failure): the proxy's failure, not the
    client's."""

    def get(self, response_id: str) -> list[dict[str, Any]] | None:
        raise KeyError(response_id)


def test_a_failure_of_toolmend_itself_is_a_500_in_the_apis_own_error_shape(tmp_path: Path) -> None:
    for proxy in _proxy(tmp_path, BuggyStore(tmp_path / "responses.sqlite3")):
        with pytest.raises(openai.InternalServerError) as caught:
            proxy.client().responses.create(
                model="plain", input="more", previous_response_id="resp_1"
            )
        assert caught.value.status_code == 500
        assert isinstance(caught.value.body, dict) and caught.value.body["type"] == "internal_error"
        assert [r["status"] for r in proxy.logged("/v1/responses", 1)] == [500]
