"""Servers for the proxy tests: a scripted upstream and proxies, each on a loopback port.

Every server here is a real uvicorn on 127.0.0.1, started and stopped by the fixture that owns
it; requests go through the official `openai` client or plain HTTP.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from toolmend.server import ServerConfig, Upstream, create_app
from toolmend.server.demo.scripted import ScriptedUpstream
from toolmend.server.loopback import LoopbackServer

from .servers import ProxyHandle, ScriptedHandle, StartProxy


@pytest.fixture(scope="session")
def upstream() -> Iterator[ScriptedHandle]:
    scripted = ScriptedUpstream()
    with LoopbackServer(scripted.app()) as server:
        yield ScriptedHandle(scripted, f"{server.url}/v1")


@pytest.fixture
def start_proxy(upstream: ScriptedHandle, tmp_path: Path) -> Iterator[StartProxy]:
    servers: list[LoopbackServer] = []
    counter = itertools.count(1)

    def start(config: ServerConfig | None = None, **changes: Any) -> ProxyHandle:
        log_path = tmp_path / f"requests-{next(counter)}.jsonl"
        base = config or ServerConfig(upstreams=(Upstream("scripted", upstream.url),))
        final = replace(base, log_file=str(log_path), **changes)
        server = LoopbackServer(create_app(final)).start()
        servers.append(server)
        return ProxyHandle(server.url, log_path, final)

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def proxy(start_proxy: StartProxy) -> ProxyHandle:
    """A proxy with the default configuration (native mode, guard on, one re-ask)."""
    return start_proxy()
