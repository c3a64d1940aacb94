"""An ASGI app served by uvicorn on a free loopback port, in a thread, with a handle to stop it.

This module owns running a server in-process: `toolmend demo` runs the proxy and its scripted
upstream this way, and the tests start and stop their servers through the same handle. The
socket is bound before uvicorn starts (port 0, so the system picks a free port), which makes
the address known without polling and never reachable from another machine.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from types import TracebackType
from typing import Any

import uvicorn

LOOPBACK = "127.0.0.1"
#: Seconds to wait for a server to start or stop before giving up with an error.
START_TIMEOUT = 20.0


def free_port() -> int:
    """A loopback port free right now (for a server started by another process)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((LOOPBACK, 0))
        port: int = sock.getsockname()[1]
        return port


class LoopbackServer:
    """`with LoopbackServer(app) as server: ... server.url ...` serves `app` on 127.0.0.1."""

    def __init__(self, app: Any, *, access_log: bool = False) -> None:
        self._app = app
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind((LOOPBACK, 0))
        self.port: int = self._sock.getsockname()[1]
        config = uvicorn.Config(
            app, log_level="warning", access_log=access_log, lifespan="on", timeout_keep_alive=30
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._run, name=f"uvicorn:{self.port}", daemon=True)
        self._error: BaseException | None = None

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    def _run(self) -> None:
        try:
            asyncio.run(self._server.serve(sockets=[self._sock]))
        except BaseException as exc:  # reported by start() or stop()
            self._error = exc

    def start(self) -> LoopbackServer:
        self._thread.start()
        waited = 0.0
        while not self._server.started:
            if self._error is not None or not self._thread.is_alive():
                raise RuntimeError(f"server on port {self.port} failed to start: {self._error!r}")
            if waited > START_TIMEOUT:
                raise RuntimeError(f"server on port {self.port} did not start in {START_TIMEOUT}s")
            self._thread.join(0.01)
            waited += 0.01
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(START_TIMEOUT)
        self._sock.close()
        if self._thread.is_alive():
            raise RuntimeError(f"server on port {self.port} did not stop")

    def __enter__(self) -> LoopbackServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
