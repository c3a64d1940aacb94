"""The library entry points for parsing: `parse` (whole text) and `stream_parser` (pieces).

Both run the same streaming parser; `parse` simply feeds the whole text (or fixed-size chunks)
and folds the events. This module adds no parsing of its own.
"""

from __future__ import annotations

from typing import Unpack

from toolmend.core.engine import ParserOptions, StreamParser
from toolmend.events import Event, ParseResult, collect
from toolmend.model import ToolsLike
from toolmend.protocols import get_protocol


def stream_parser(
    protocol: str, tools: ToolsLike = None, **options: Unpack[ParserOptions]
) -> StreamParser:
    """A sans-IO parser: `feed(chunk) -> events`, then `finish() -> events`.

    Options (`ParserOptions`): `policy`, `max_fragment`, `keep_failed_markup`, `id_prefix`, `seed`.
    """
    return get_protocol(protocol).stream_parser(tools, **options)


def parse(
    text: str,
    protocol: str = "hermes",
    tools: ToolsLike = None,
    *,
    chunk_size: int | None = None,
    **options: Unpack[ParserOptions],
) -> ParseResult:
    """Parse a whole model output: visible text, tool calls and diagnostics.

    `chunk_size` feeds the text in pieces of that many characters (the result is the same; it
    exists to show and test exactly that). Other options as for `stream_parser`.
    """
    if not isinstance(text, str):
        raise TypeError(f"parse() takes str, got {type(text).__name__}")
    if chunk_size is not None and chunk_size < 1:
        raise ValueError("chunk_size must be at least 1")
    parser = stream_parser(protocol, tools, **options)
    step = chunk_size or max(len(text), 1)
    events: list[Event] = []
    for start in range(0, len(text), step):
        events += parser.feed(text[start : start + step])
    events += parser.finish()
    return collect(events)
