"""The response store keeps conversations for `previous_response_id`, in SQLite or Redis."""

from __future__ import annotations

import shutil
import socket
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolmend.server.frontends.response_store import (
    ResponseStore,
    ResponseStoreError,
    SQLiteResponseStore,
    open_store,
)

ITEMS = [
    {"type": "message", "role": "user", "content": "héllo"},
    {"type": "function_call", "call_id": "c", "name": "shell", "arguments": "{}"},
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    server = shutil.which("redis-server")
    if server is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server)")
    pytest.importorskip("redis", reason="the redis package is not installed (pip install redis)")
    port = _free_port()
    proc = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(10)


def _round_trip(store: ResponseStore) -> None:
    assert store.get("resp_missing") is None
    store.put("resp_1", ITEMS)
    assert store.get("resp_1") == ITEMS


def test_sqlite_keeps_a_conversation_across_store_instances(tmp_path: Path) -> None:
    path = tmp_path / "responses.sqlite3"
    first = open_store(f"sqlite://{path}")
    _round_trip(first)
    first.close()
    second = SQLiteResponseStore(path)
    assert second.get("resp_1") == ITEMS
    second.close()


def test_an_expired_response_is_gone(tmp_path: Path) -> None:
    store = SQLiteResponseStore(tmp_path / "r.sqlite3", ttl_seconds=-1)
    store.put("resp_old", ITEMS)
    assert store.get("resp_old") is None


def test_redis_is_shared_by_two_replicas(redis_url: str) -> None:
    one, two = open_store(redis_url), open_store(redis_url)
    _round_trip(one)
    assert two.get("resp_1") == ITEMS
    one.close()
    two.close()


def test_a_redis_store_that_cannot_be_reached_fails_with_a_store_error() -> None:
    pytest.importorskip("redis", reason="the redis package is not installed (pip install redis)")
    store = open_store(f"redis://127.0.0.1:{_free_port()}/0")  # nothing listens there
    with pytest.raises(ResponseStoreError, match="Redis response store"):
        store.get("resp_1")
    with pytest.raises(ResponseStoreError, match="Redis response store"):
        store.put("resp_1", ITEMS)
    store.close()


def test_expired_responses_are_removed_when_the_next_one_is_written(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite3"
    old = SQLiteResponseStore(path, ttl_seconds=-1)
    old.put("resp_old", ITEMS)
    old.close()
    store = SQLiteResponseStore(path)
    store.put("resp_new", ITEMS)
    store.close()
    with sqlite3.connect(path) as db:
        assert [row[0] for row in db.execute("SELECT id FROM responses")] == ["resp_new"]


def test_an_unknown_store_url_is_refused_by_name() -> None:
    with pytest.raises(ResponseStoreError, match="ftp://x"):
        open_store("ftp://x")
