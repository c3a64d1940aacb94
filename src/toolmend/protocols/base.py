"""What a text tool-call protocol is: its renderers and its parser syntax, under one id.

A protocol module defines one `TextProtocol` subclass holding its whole wire format: the
system-prompt text that teaches the format (`render_tools`), how a past call and its result are
written back into a history (`render_call`, `render_result`), and the `ProtocolSyntax` hooks the
shared `StreamParser` runs on. This module never parses anything itself.
"""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import Sequence
from typing import Unpack

from toolmend.core.engine import ParserOptions, ProtocolSyntax, StreamParser
from toolmend.model import Tool, ToolCall, ToolsLike, coerce_tools


class TextProtocol(ProtocolSyntax):
    """A registered text protocol: renderers plus parser syntax."""

    #: Other ids accepted by `get_protocol` (e.g. deprecated names).
    aliases: tuple[str, ...] = ()
    #: One line for `toolmend protocols` listings and docs.
    summary: str = ""

    def accepts_body(self, marker: str, first_char: str) -> bool:
        """Whether a block opened by `marker` whose body starts with `first_char` is this format.

        Only consulted by protocol detection (`auto`) when several formats share a marker.
        """
        return True

    @abstractmethod
    def render_tools(self, tools: Sequence[Tool]) -> str:
        """The system-prompt text that declares `tools` and teaches this call format."""

    @abstractmethod
    def render_call(self, call: ToolCall) -> str:
        """A past call written the way the model writes calls (parses back to `call`)."""

    @abstractmethod
    def render_result(self, call_id: str, name: str, content: str) -> str:
        """A tool's result written the way this format feeds results back to the model."""

    def stream_parser(
        self, tools: ToolsLike = None, **options: Unpack[ParserOptions]
    ) -> StreamParser:
        """A fresh sans-IO parser for one model output in this format (options: `ParserOptions`)."""
        return StreamParser(self, coerce_tools(tools), **options)

    def __repr__(self) -> str:
        return f"<protocol {self.id}>"


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
