"""A raw HTTP/1.1 client that keeps the chunks of a chunked body apart.

The proxy writes an SSE body as ASGI body messages, and uvicorn sends each message as one
chunk of the chunked transfer encoding; reading the chunks undecoded shows which frames went
out together (an HTTP client library joins them). Loopback only.
"""

from __future__ import annotations

import json
import socket
from typing import Any
from urllib.parse import urlsplit


def post_chunks(url: str, body: dict[str, Any]) -> tuple[int, list[bytes]]:
    """POST `body` as JSON to `url`; the status and the body's chunks, in order."""
    parts = urlsplit(url)
    assert parts.hostname == "127.0.0.1"
    payload = json.dumps(body).encode()
    head = (
        f"POST {parts.path} HTTP/1.1\r\nHost: 127.0.0.1:{parts.port}\r\n"
        "Content-Type: application/json\r\nConnection: close\r\n"
        f"Content-Length: {len(payload)}\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", parts.port or 80), timeout=30) as sock:
        sock.sendall(head + payload)
        raw = b""
        while piece := sock.recv(65536):
            raw += piece
    header, _, rest = raw.partition(b"\r\n\r\n")
    status = int(header.split(b" ", 2)[1])
    assert b"transfer-encoding: chunked" in header.lower()
    chunks: list[bytes] = []
    while True:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line, 16)
        if size == 0:
            assert rest == b"\r\n", "the body ends with the last chunk"
            return status, chunks
        chunks.append(rest[:size])
        assert rest[size : size + 2] == b"\r\n"
        rest = rest[size + 2 :]


def sse_events(chunk: bytes) -> list[tuple[str | None, bytes]]:
    """The (event name, data) of each whole SSE frame in `chunk`; a chunk holds whole frames."""
    assert chunk.endswith(b"\n\n"), f"a chunk ends at a frame's end: {chunk[-40:]!r}"
    out: list[tuple[str | None, bytes]] = []
    for frame in chunk[:-2].split(b"\n\n"):
        name: str | None = None
        data: list[bytes] = []
        for line in frame.split(b"\n"):
            field, _, value = line.partition(b": ")
            if field == b"event":
                name = value.decode()
            elif field == b"data":
                data.append(value)
            else:
                assert line.startswith(b":"), f"not an SSE line: {line!r}"
        out.append((name, b"\n".join(data)))
    return out
