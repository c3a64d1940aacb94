"""Server-sent events of a chat-completions stream, read and written for the adapters.

Owns the byte-level reading of an SSE body into events (each with its raw bytes and its joined
`data`), which of them are `chat.completion.chunk` objects, the `[DONE]` sentinel, and writing a
chunk back as one event. Linear in the body: every byte is looked at once, and only the last
unfinished line is held back. Never decides what a chunk becomes (recovery does).
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

DONE = "[DONE]"


@dataclass(frozen=True, slots=True)
class Event:
    """One SSE event: its bytes as they came and, when its data is a JSON object, the chunk."""

    raw: bytes
    chunk: dict[str, Any] | None
    done: bool


#: SSE line ends: CRLF, LF or CR, and nothing else (not the other breaks `splitlines` knows).
LINE_END = re.compile(r"\r\n|\r|\n")


class EventReader:
    """Bytes in (any split), events out; `finish()` gives an event left without a blank line.

    Only the new piece is searched for line ends; an unfinished line is kept as a list of
    parts and joined once, so a long line arriving in many pieces costs its length, once.
    """

    __slots__ = ("_data", "_decoder", "_held", "_lines", "_partial")

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._partial: list[str] = []
        #: A line that ended in "\r" at the end of a piece: its "\n" may be in the next one.
        self._held: str | None = None
        self._lines: list[str] = []
        self._data: list[str] = []

    def feed(self, data: bytes) -> list[Event]:
        text = self._decoder.decode(data)
        events: list[Event] = []
        if self._held is not None and text:
            line, self._held = self._held, None
            if text.startswith("\n"):
                line, text = line + "\n", text[1:]
            self._take(line, events)
        start = 0
        for end in LINE_END.finditer(text):
            self._partial.append(text[start : end.end()])
            start = end.end()
            line = "".join(self._partial)
            self._partial = []
            if end.group() == "\r" and start == len(text):
                self._held = line
            else:
                self._take(line, events)
        if start < len(text):
            self._partial.append(text[start:])
        return events

    def finish(self) -> list[Event]:
        events: list[Event] = []
        if self._held is not None:
            line, self._held = self._held, None
            self._take(line, events)
        rest = "".join(self._partial) + self._decoder.decode(b"", final=True)
        self._partial = []
        if rest:
            self._lines.append(rest)
            self._field(rest)
        if self._lines:
            events.append(self._event())
        return events

    def _take(self, line: str, events: list[Event]) -> None:
        event = self._line(line)
        if event is not None:
            events.append(event)

    def _line(self, line: str) -> Event | None:
        self._lines.append(line)
        if line.strip("\r\n"):
            self._field(line.rstrip("\r\n"))
            return None
        return self._event()

    def _field(self, line: str) -> None:
        name, _, value = line.partition(":")
        if name == "data":
            self._data.append(value[1:] if value.startswith(" ") else value)

    def _event(self) -> Event:
        raw = "".join(self._lines).encode()
        data = "\n".join(self._data)
        self._lines, self._data = [], []
        return Event(raw, _chunk(data), data.strip() == DONE)


def _chunk(data: str) -> dict[str, Any] | None:
    if not data.lstrip().startswith("{"):
        return None
    try:
        value = json.loads(data)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def encode_chunk(chunk: Mapping[str, Any]) -> bytes:
    """One chunk as one SSE event."""
    data = json.dumps(chunk, ensure_ascii=False, separators=(",", ":"))
    return b"data: " + data.encode() + b"\n\n"


def read_events(body: Iterable[bytes]) -> Iterator[Event]:
    reader = EventReader()
    for piece in body:
        yield from reader.feed(piece)
    yield from reader.finish()


async def aread_events(body: AsyncIterable[bytes]) -> AsyncIterator[Event]:
    reader = EventReader()
    async for piece in body:
        for event in reader.feed(piece):
            yield event
    for event in reader.finish():
        yield event
