"""The floor the hop itself costs: a minimal Starlette + aiohttp relay of `/v1/chat/completions`.

The proxy issue measures toolmend against what any relay pays on this machine: a Starlette app
under uvicorn (uvloop and httptools when installed, as `toolmend serve` runs) that reads the
request's body, sends it to the upstream through one pooled `aiohttp.ClientSession`, and
streams the upstream's bytes back as they arrive (`iter_any`), touching none of them: no JSON,
no SSE framing, no guard, no recovery, no log. `bench/proxy_bench.py` runs it as a row beside
toolmend, and `bench/frontends_instructions.py --server relay` counts its instructions under
callgrind, so the README can show the hop's own cost beside toolmend's.

    python bench/minimal_relay.py --port PORT --upstream http://127.0.0.1:UP/v1
"""

from __future__ import annotations

import argparse
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import aiohttp
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route


def relay_app(upstream: str) -> Starlette:
    """The relay of `upstream` (its base URL, ending in `/v1`)."""
    pool: dict[str, aiohttp.ClientSession] = {}

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        pool["session"] = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=1024))
        try:
            yield
        finally:
            await pool["session"].close()

    async def chat(request: Request) -> Response:
        body = await request.body()
        headers = {"Content-Type": "application/json"}
        if "authorization" in request.headers:
            headers["Authorization"] = request.headers["authorization"]
        answer = await pool["session"].post(
            f"{upstream}/chat/completions", data=body, headers=headers
        )

        async def relayed() -> AsyncIterator[bytes]:
            try:
                async for piece in answer.content.iter_any():
                    yield piece
            finally:
                answer.release()

        media_type = answer.headers.get("Content-Type", "text/event-stream")
        return StreamingResponse(relayed(), answer.status, media_type=media_type)

    async def healthz(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    routes = [
        Route("/v1/chat/completions", chat, methods=["POST"]),
        Route("/healthz", healthz, methods=["GET"]),
    ]
    return Starlette(routes=routes, lifespan=lifespan)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--upstream", required=True, help="the upstream's base URL (…/v1)")
    args = parser.parse_args()
    import uvicorn

    app = relay_app(args.upstream.rstrip("/"))
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning", access_log=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
