"""Calls written as a tag named after the tool: `<tool_name>` ... `</tool_name>`, or `<tool_name/>`.

This module owns what the morph-xml and yaml-xml formats share: the opening markers (built from
the declared tool names only, so with `tools=None` or no tools nothing can open a call), the
opening tag (`<name>`, `<name/>`, `<name >`, `<name />`), the search for the exact closer
`</name>` that holds back only a partial closer, and the deferred start of a call. A format
subclass reads the body between the tags. It never decides what the body means.

A call is begun (`ToolCallStart`) only once its body shows it is one (the format decides, see
`ToolTagReader.body_step`), so a tool name mentioned in prose as `<search>` can still revert to
text. At the end of a stream, a block whose body held nothing but whitespace (and perhaps part of
the closer) is begun then, and completes under R1–R4 like any other.
"""

from __future__ import annotations

import re
from abc import abstractmethod
from collections.abc import Sequence

from toolmend.core.reader import MAX_TAG_LENGTH, BlockContext, BlockReader, EofVerdict
from toolmend.names import ToolResolver
from toolmend.protocols.base import Claim, TextProtocol

#: Tool names that can be an XML-like tag name; a declared name with other characters (spaces,
#: quotes, angle brackets) never opens a call in these formats.
TAG_NAME = re.compile(r"[A-Za-z_][\w.:-]*")
#: What may follow `<name ` in an opening tag: spaces, then `>` or `/>` (no attributes).
_HEADER_REST = re.compile(r"[ \t]*(/?)>")
_HEADER_PARTIAL = re.compile(r"[ \t]*/?\Z")


def tag_markers(resolver: ToolResolver) -> tuple[str, ...]:
    """`<name>`, `<name/>` and `<name ` for every declared tool name usable as a tag."""
    markers: list[str] = []
    for name in resolver.names():
        if TAG_NAME.fullmatch(name):
            markers += [f"<{name}>", f"<{name}/>", f"<{name} "]
    return tuple(markers)


def marker_name(marker: str) -> str:
    """The tool name inside an opening marker made by `tag_markers`."""
    return marker[1:].rstrip(" />")


def render_tag_result(name: str, content: str) -> str:
    """A tool result as both tool-name tag formats feed it back."""
    return f'<tool_response name="{name}">\n{content}\n</tool_response>'


class ToolTagSyntax(TextProtocol):
    """Markers and closers of the tool-name tag formats, and their result envelope."""

    result_closers = ("</tool_response>",)
    #: The format's body is child tags (morph-xml) rather than text (yaml-xml): how `auto`
    #: tells the two apart on the body after the shared `<tool_name>`.
    body_is_tags: bool = True

    def claims(self, marker: str, body: str) -> Claim:
        if marker.endswith("/>"):
            return Claim.MINE  # a call without arguments: the same in both formats
        if marker.endswith(" "):
            m = _HEADER_REST.match(body)
            if m is None:
                partial = _HEADER_PARTIAL.match(body) and len(body) < MAX_TAG_LENGTH
                return Claim.MAYBE if partial else Claim.NOT_MINE
            if m.group(1):
                return Claim.MINE
            body = body[m.end() :]
        rest = body.lstrip(" \t\r\n")
        if not rest:
            return Claim.MAYBE
        closer = f"</{marker_name(marker)}>"
        if rest[0] != "<":
            return Claim.NOT_MINE if self.body_is_tags else Claim.MINE
        if closer.startswith(rest[: len(closer)]):
            # An empty body (or perhaps one): either format reads it.
            return Claim.MINE if rest.startswith(closer) else Claim.MAYBE
        return Claim.MINE if self.body_is_tags else Claim.NOT_MINE

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        return render_tag_result(name, content)

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return tag_markers(resolver)

    def closing_markers(self) -> Sequence[str]:
        return ()  # the closer depends on the tool name: see `closing_markers_after`

    def cut_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return ()  # `<get_wea` may be prose about a tool as well: a cut one stays text

    def closing_markers_after(self, marker: str) -> Sequence[str]:
        return (f"</{marker_name(marker)}>",)


class ToolTagReader(BlockReader):
    """Reads the opening tag of one tool-name call; a subclass reads its body.

    The subclass implements `body_step` (consume body text, call `begin()` once the body shows a
    call, `finish_call()` at the closer) and `body_verdict` (the state at the end of a stream).
    """

    def __init__(self, marker: str, ctx: BlockContext) -> None:
        self.ctx = ctx
        self.name = marker_name(marker)
        self.closer = f"</{self.name}>"
        self.header_done = marker.endswith(">")
        self.self_closing = marker.endswith("/>")
        self.consumed: list[str] = []  # raw text after the marker, for a revert or a failure
        self.begun = False
        self.tail = ""  # what the last step held back (set on the final step)

    # ---------------------------------------------------------------------- for subclasses

    @abstractmethod
    def body_step(self, buf: str, pos: int, end: int, final: bool) -> int:
        """Consume body text from `buf[pos:end]`; return the new position."""

    @abstractmethod
    def body_verdict(self) -> EofVerdict:
        """The stream ended inside the body (after the header); `self.tail` was held back."""

    def begin(self) -> bool:
        """Begin the call (once). False when its name does not resolve."""
        if not self.begun:
            self.begun = self.ctx.begin_call(self.name)
        return self.begun

    def not_a_call(self) -> None:
        """The body shows this was not a call: the marker and what followed become text."""
        self.ctx.revert("".join(self.consumed), rescan=True)

    def finish_call(self, arguments: dict[str, object], at: int, error: str | None) -> int:
        """The closer ends at `buf[at]`: end the call and the block there."""
        if self.begin():
            self.ctx.end_call(arguments, at=at, error=error)
            self.ctx.end_block()
        else:
            self.ctx.revert("".join(self.consumed), rescan=False)
        return at

    # ------------------------------------------------------------------------ BlockReader

    def step(self, buf: str, pos: int, end: int, final: bool) -> int:
        if not self.header_done:
            pos = self._read_header(buf, pos, end, final)
            if not self.header_done:
                return pos
        if self.self_closing:
            if not self.begin():
                self.ctx.revert("".join(self.consumed), rescan=False)
                return pos
            self.ctx.end_call({}, at=pos)
            self.ctx.end_block()
            return pos
        return self.body_step(buf, pos, end, final)

    def _read_header(self, buf: str, pos: int, end: int, final: bool) -> int:
        """After `<name `: spaces, then `>` or `/>`; anything else means this is not a tag.

        Only `MAX_TAG_LENGTH` characters are looked at, however many are there, so a long run
        of blanks is decided the same whole or in pieces.
        """
        m = _HEADER_REST.match(buf, pos, min(end, pos + MAX_TAG_LENGTH))
        if m is not None:
            self.consumed.append(m.group())
            self.header_done = True
            self.self_closing = m.group(1) == "/"
            return m.end()
        if _HEADER_PARTIAL.match(buf, pos, end) and end - pos < MAX_TAG_LENGTH:
            if final:
                self.tail = buf[pos:end]
            return pos  # the tag may still close
        self.not_a_call()
        return pos

    def at_eof(self) -> EofVerdict:
        if not self.header_done:
            return EofVerdict(recoverable=False, name=self.name)
        return self.body_verdict()
