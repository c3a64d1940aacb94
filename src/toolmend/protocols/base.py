"""What a text tool-call protocol is: its renderers and its parser syntax, under one id.

A protocol module defines one `TextProtocol` subclass holding its whole wire format: the
system-prompt text that teaches the format (`render_tools`), how a past call and its result are
written back into a history (`render_call`, `render_result`), and the `ProtocolSyntax` hooks the
shared `StreamParser` runs on. This module never parses anything itself.

Two rules hold for every protocol, and live here once:

* a result can never end its envelope: `render_result` makes every occurrence of the format's
  `result_closers` in the content inert (`inert_closers`) before the format wraps it;
* a call is never written in a way that reads back as another call: text a format writes
  without escaping goes through `carried_raw`, which refuses a text holding one of the
  format's stops (`CannotRenderError`) instead of writing markup that ends the value early.
"""

from __future__ import annotations

import json
import re
from abc import abstractmethod
from collections.abc import Sequence
from enum import Enum
from functools import lru_cache
from typing import Unpack

from toolmend.core.engine import ParserOptions, StreamParser
from toolmend.core.reader import (
    MAX_TAG_LENGTH,
    BlockContext,
    BlockReader,
    EofVerdict,
    ProtocolSyntax,
)
from toolmend.model import CannotRenderError, Tool, ToolCall, ToolsLike, coerce_tools

#: How much of a block's body protocol detection may look at before it decides: enough for a
#: header after a run of blanks (`MAX_TAG_LENGTH` each), little enough to hold back.
MAX_DETECTION_LOOKAHEAD = 2 * MAX_TAG_LENGTH


class Claim(Enum):
    """A format's answer about a block's body (`TextProtocol.claims`)."""

    MINE = "mine"
    MAYBE = "maybe"
    NOT_MINE = "not mine"


def claim_by_first_char(body: str, starts: str) -> Claim:
    """`MINE` when the first non-blank character of `body` is one of `starts`, `MAYBE` while
    there is none yet, else `NOT_MINE`."""
    first = body.lstrip(" \t\r\n")[:1]
    if not first:
        return Claim.MAYBE
    return Claim.MINE if first in starts else Claim.NOT_MINE


def claim_unless_first_char(body: str, others: str) -> Claim:
    """`NOT_MINE` when the first non-blank character of `body` is one of `others` (another
    format's opening), `MAYBE` while there is none yet, else `MINE`."""
    first = body.lstrip(" \t\r\n")[:1]
    if not first:
        return Claim.MAYBE
    return Claim.NOT_MINE if first in others else Claim.MINE


class MarkupOnlyReader(BlockReader):
    """The block of a marker that is markup and nothing else (a stray end-of-message token,
    a header that only says "text follows"): the marker is removed from the text, recorded
    as stripped markup, and scanning resumes right after it."""

    def __init__(self, ctx: BlockContext) -> None:
        self.ctx = ctx

    def step(self, buf: str, pos: int, end: int, final: bool) -> int:
        self.ctx.end_block()
        return pos

    def at_eof(self) -> EofVerdict:
        return EofVerdict(recoverable=True)


class TextProtocol(ProtocolSyntax):
    """A registered text protocol: renderers plus parser syntax."""

    #: Other ids accepted by `get_protocol` (e.g. deprecated names).
    aliases: tuple[str, ...] = ()
    #: One line for `toolmend protocols` listings and docs.
    summary: str = ""
    #: The markup that would end (or break out of) the envelope `wrap_result` writes a result
    #: into; each begins with `<`. `render_result` makes every occurrence in content inert.
    result_closers: tuple[str, ...] = ()

    def claims(self, marker: str, body: str) -> Claim:
        """Whether a block opened by `marker` whose body begins with `body` is this format's.

        `body` is the text after the marker that has arrived (at most `MAX_DETECTION_LOOKAHEAD`
        characters). `MINE` and `NOT_MINE` must hold whatever follows; `MAYBE` means more text
        could tell (at the end of the stream, or past the lookahead, it counts as `NOT_MINE`).
        Only consulted by protocol detection (`auto`) when several formats share a marker.
        """
        return Claim.MINE

    @abstractmethod
    def render_tools(self, tools: Sequence[Tool]) -> str:
        """The system-prompt text that declares `tools` and teaches this call format."""

    @abstractmethod
    def render_call(self, call: ToolCall) -> str:
        """A past call written the way the model writes calls (parses back to `call`)."""

    def render_result(self, call_id: str, name: str, content: str) -> str:
        """A tool's result written the way this format feeds results back to the model.

        The content (a fetched web page, a file) cannot end its envelope and write into the
        prompt: every `result_closers` occurrence in it is made inert first.
        """
        return self.wrap_result(call_id, name, inert_closers(content, self.result_closers))

    @abstractmethod
    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        """The format's result envelope around `content` (which holds no `result_closers`)."""

    def stream_parser(
        self, tools: ToolsLike = None, **options: Unpack[ParserOptions]
    ) -> StreamParser:
        """A fresh sans-IO parser for one model output in this format (options: `ParserOptions`)."""
        return StreamParser(self, coerce_tools(tools), **options)

    def __repr__(self) -> str:
        return f"<protocol {self.id}>"


@lru_cache(maxsize=64)
def _closer_pattern(closers: tuple[str, ...]) -> re.Pattern[str]:
    """Any of `closers` in any letter case; a `</name>` closer also with blanks inside it."""
    alternatives = []
    for closer in sorted(set(closers), key=len, reverse=True):
        if not closer.startswith("<"):
            raise ValueError(f"a result closer begins with '<': {closer!r}")
        tag = re.fullmatch(r"</([\w:.-]+)>", closer)
        if tag:
            alternatives.append(rf"<\s*/\s*{re.escape(tag.group(1))}\s*>")
        else:
            alternatives.append(re.escape(closer))
    return re.compile("|".join(alternatives) or "(?!)", re.IGNORECASE)


def inert_closers(text: str, closers: tuple[str, ...]) -> str:
    """`text` with every one of `closers` in it written with `&lt;` for its `<`.

    A model reads `&lt;/tool_response>` as the text it is; no parser or template reads it as
    markup. Writing `&lt;` cannot form a new `<`, so the result holds no closer at all.
    """
    if "<" not in text or not closers:
        return text
    return _closer_pattern(closers).sub(lambda m: "&lt;" + m.group()[1:], text)


def carried_raw(text: str, stops: Sequence[str], *, protocol_id: str) -> str:
    """`text`, which a format writes without escaping; refused when it holds one of `stops`.

    Written raw, a stop would end the value early, and the call would read back as another
    call (or as text): `CannotRenderError` says so instead.
    """
    for stop in stops:
        if stop in text:
            raise CannotRenderError(
                f"{protocol_id} writes values unescaped and cannot carry {stop!r} inside one; "
                "render this call with a protocol that escapes values (e.g. hermes)"
            )
    return text


class ToolResponseResults:
    """Results fed back in Hermes' `<tool_response>` turn, which Hermes, the Qwen and GLM
    templates and the JSON-in-tags formats with no result turn of their own share: one envelope
    and its closer, written once. Listed before the protocol's base class."""

    result_closers: tuple[str, ...] = ("</tool_response>",)

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        return f"<tool_response>\n{content}\n</tool_response>"


def declare_tools(tools: Sequence[Tool], *, noun: str = "functions", wrap: bool = True) -> str:
    """The opening of a tools prompt: a heading and one OpenAI-style JSON definition per line.

    With `wrap` the declarations sit in `<tools></tools>` tags. The format's own instructions
    follow it.
    """
    body = "\n".join(json.dumps(t.to_openai(), ensure_ascii=False) for t in tools)
    if wrap:
        body = f"<tools>\n{body}\n</tools>"
    intro = f"You can call the {noun} declared below, one JSON definition per line:"
    return f"# Tools\n\n{intro}\n{body}\n\n"
