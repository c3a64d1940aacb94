"""The library entry points for parsing: `parse` (whole text) and `stream_parser` (pieces).

Both run the same streaming parser; `parse` simply feeds the whole text (or fixed-size chunks)
and folds the events. This module adds no parsing of its own.
"""

from __future__ import annotations

from toolmend.core.engine import DEFAULT_MAX_FRAGMENT, StreamParser
from toolmend.events import collect
from toolmend.model import ParseResult, ToolsLike
from toolmend.protocols import get_protocol
from toolmend.schema_gate import Policy


def stream_parser(
    protocol: str,
    tools: ToolsLike = None,
    *,
    policy: Policy | str | None = None,
    max_fragment: int = DEFAULT_MAX_FRAGMENT,
    keep_failed_markup: bool = False,
    id_prefix: str | None = None,
    seed: int | str | None = None,
) -> StreamParser:
    """A sans-IO parser: `feed(chunk) -> events`, then `finish() -> events`."""
    return get_protocol(protocol).stream_parser(
        tools,
        policy=policy,
        max_fragment=max_fragment,
        keep_failed_markup=keep_failed_markup,
        id_prefix=id_prefix,
        seed=seed,
    )


def parse(
    text: str,
    protocol: str = "hermes",
    tools: ToolsLike = None,
    *,
    chunk_size: int | None = None,
    policy: Policy | str | None = None,
    max_fragment: int = DEFAULT_MAX_FRAGMENT,
    keep_failed_markup: bool = False,
    id_prefix: str | None = None,
    seed: int | str | None = None,
) -> ParseResult:
    """Parse a whole model output: visible text, tool calls and diagnostics.

    `chunk_size` feeds the text in pieces of that many characters (the result is the same; it
    exists to show and test exactly that).
    """
    if not isinstance(text, str):
        raise TypeError(f"parse() takes str, got {type(text).__name__}")
    if chunk_size is not None and chunk_size < 1:
        raise ValueError("chunk_size must be at least 1")
    parser = stream_parser(
        protocol,
        tools,
        policy=policy,
        max_fragment=max_fragment,
        keep_failed_markup=keep_failed_markup,
        id_prefix=id_prefix,
        seed=seed,
    )
    step = chunk_size or max(len(text), 1)
    events = []
    for start in range(0, len(text), step):
        events += parser.feed(text[start : start + step])
    events += parser.finish()
    return collect(events)
