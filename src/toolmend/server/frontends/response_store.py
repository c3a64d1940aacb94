"""Where `/v1/responses` keeps conversations for `previous_response_id`.

A stored response is the list of Responses items that lead to and make up its answer (the
earlier conversation, this request's input, this answer's output), so a later request that
names it continues from exactly there. `SQLiteResponseStore` is the default (one file, embedded,
safe across the workers of one machine); `RedisResponseStore` is for several replicas behind a
load balancer, which must all see every response. Both expire entries after `ttl_seconds`.
`open_store(url)` picks one from a URL (`sqlite:///path`, `redis://host:port/db`).

The stores are blocking (a disk write, a network round trip): the proxy calls them from a
worker thread (`asyncio.to_thread`), never on its event loop, where one commit would stall
every stream. The SQLite file is written in WAL mode with `synchronous=NORMAL` (a commit
does not wait for the disk; a power cut may lose the last responses, never the file), and its
expired rows are found through an index, so a write costs the same with a month of responses
kept. Every failure is a `ResponseStoreError` naming the store. This module owns storage only;
it never translates items.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Protocol

from toolmend.server import wirejson

#: How long a response stays retrievable; OpenAI keeps stored responses for 30 days.
DEFAULT_TTL_SECONDS = 30 * 24 * 3600
REDIS_KEY_PREFIX = "toolmend:response:"


class ResponseStoreError(RuntimeError):
    """The store cannot be opened or used; the message names the store and the reason."""


class ResponseStore(Protocol):
    def get(self, response_id: str) -> list[dict[str, Any]] | None: ...

    def put(self, response_id: str, items: list[dict[str, Any]]) -> None: ...

    def close(self) -> None: ...


class SQLiteResponseStore:
    """Responses in one SQLite file (`:memory:` for a process-local store)."""

    def __init__(self, path: str | Path, ttl_seconds: int = DEFAULT_TTL_SECONDS) -> None:
        self._ttl = ttl_seconds
        self._lock = threading.Lock()
        try:
            if str(path) != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(path), check_same_thread=False, timeout=10)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS responses "
                "(id TEXT PRIMARY KEY, items TEXT NOT NULL, expires REAL NOT NULL)"
            )
            self._db.execute(
                "CREATE INDEX IF NOT EXISTS responses_by_expiry ON responses (expires)"
            )
            self._db.commit()
        except (OSError, sqlite3.Error) as exc:
            raise ResponseStoreError(f"cannot open the response store {path}: {exc}") from None
        self._path = path

    def get(self, response_id: str) -> list[dict[str, Any]] | None:
        try:
            with self._lock:
                row = self._db.execute(
                    "SELECT items FROM responses WHERE id = ? AND expires > ?",
                    (response_id, time.time()),
                ).fetchone()
        except sqlite3.Error as exc:
            raise ResponseStoreError(f"the response store {self._path}: {exc}") from None
        return None if row is None else list(wirejson.loads(row[0]))

    def put(self, response_id: str, items: list[dict[str, Any]]) -> None:
        body = wirejson.dumps(items).decode()
        now = time.time()
        try:
            with self._lock:
                self._db.execute("DELETE FROM responses WHERE expires <= ?", (now,))
                self._db.execute(
                    "INSERT OR REPLACE INTO responses (id, items, expires) VALUES (?, ?, ?)",
                    (response_id, body, now + self._ttl),
                )
                self._db.commit()
        except sqlite3.Error as exc:
            raise ResponseStoreError(f"the response store {self._path}: {exc}") from None

    def close(self) -> None:
        with self._lock:
            self._db.close()


class RedisResponseStore:
    """Responses in Redis, shared by every replica (needs the `redis` package)."""

    def __init__(self, url: str, ttl_seconds: int = DEFAULT_TTL_SECONDS) -> None:
        try:
            import redis
        except ImportError:
            raise ResponseStoreError(
                "a redis:// response store needs the redis package: pip install redis"
            ) from None
        self._ttl = ttl_seconds
        self._client = redis.Redis.from_url(url)
        self._errors: tuple[type[Exception], ...] = (redis.RedisError, OSError)

    def get(self, response_id: str) -> list[dict[str, Any]] | None:
        try:
            raw = self._client.get(REDIS_KEY_PREFIX + response_id)
        except self._errors as exc:
            raise ResponseStoreError(f"the Redis response store: {exc}") from None
        return None if raw is None else list(wirejson.loads(raw))

    def put(self, response_id: str, items: list[dict[str, Any]]) -> None:
        body = wirejson.dumps(items)
        try:
            self._client.set(REDIS_KEY_PREFIX + response_id, body, ex=self._ttl)
        except self._errors as exc:
            raise ResponseStoreError(f"the Redis response store: {exc}") from None

    def close(self) -> None:
        self._client.close()


def open_store(url: str, ttl_seconds: int = DEFAULT_TTL_SECONDS) -> ResponseStore:
    """The store a URL names: `sqlite:///path/to/file`, `sqlite://:memory:`, `redis://…`."""
    if url.startswith(("redis://", "rediss://", "unix://")):
        return RedisResponseStore(url, ttl_seconds)
    if url.startswith("sqlite://"):
        return SQLiteResponseStore(url.removeprefix("sqlite://") or ":memory:", ttl_seconds)
    raise ResponseStoreError(f"unknown response store URL {url!r}: use sqlite:// or redis://")
