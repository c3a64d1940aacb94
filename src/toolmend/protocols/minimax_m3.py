"""minimax-m3: MiniMax-M3's namespaced invokes, each tag led by the `]<]minimax[>[` token and
each parameter named by its own tag.

    ]<]minimax[>[<tool_call>
    ]<]minimax[>[<invoke name="get_weather">]<]minimax[>[<city>Paris]<]minimax[>[</city>
    ]<]minimax[>[<days>3]<]minimax[>[</days>]<]minimax[>[</invoke>
    ]<]minimax[>[</tool_call>

As llama.cpp's MiniMax-M3 template (`tests/test-chat.cpp`) writes it; reasoning is
`<mm:think>…</mm:think>`, and a turn without reasoning opens with a bare `</mm:think>` (markup).
Models and the servers behind them also drop the token before some tags (`<query>…</query>`
closed without it, a bare `<tool_call>` around namespaced invokes, users' reports): every tag is
read with or without it, and an invoke opens a block even without its wrapper.

Values are typed by the tool's schema: a parameter whose schema allows a string is its text as
written (whatever it looks like: `<text>hi</text>` stays text for `oneOf: [string, object]`);
any other value is morph-xml's element syntax with the tokens taken out (`morph_xml`): an
object one element per key, an array `<item>` elements, a scalar its trimmed text; where the
schema offers alternatives, child elements pick the structured one, text the scalar one. An
invoke is read once it closes (its values do not stream); one whose tool is unknown stays text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from toolmend.core.fastpath import ValueText
from toolmend.core.reader import (
    MAX_TAG_LENGTH,
    BlockContext,
    BlockReader,
    EofVerdict,
    ReasoningSpan,
)
from toolmend.core.textscan import partial_marker_start, skip_blanks
from toolmend.model import Tool, ToolCall
from toolmend.names import ToolResolver
from toolmend.protocols.base import MarkupOnlyReader, TextProtocol, carried_raw, declare_tools
from toolmend.protocols.morph_xml import ITEM, ValueError_, decode_value, render_string
from toolmend.schema_gate import Policy, declared_types, schema_types

NS = "]<]minimax[>["
#: What opens a block: the token's head, then the rest of the token and `<tool_call>` or
#: `<invoke`.
MARK = "]<]minimax"
OPEN = f"{NS}<tool_call>"
CLOSE_TAG = "</tool_call>"
INVOKE = "<invoke"
INVOKE_CLOSE = "</invoke>"
#: An invoke's closer, with or without its token: what ends the text an invoke holds, as the
#: fast path is told it (`INVOKE_TEXT`; the text is kept as written, nothing is decoded).
INVOKE_STOPS = (NS + INVOKE_CLOSE, INVOKE_CLOSE)
INVOKE_TEXT = ValueText(INVOKE_STOPS)
THINK = ReasoningSpan("<mm:think>", ("</mm:think>",))
#: A turn without reasoning opens with the reasoning's closer alone.
BARE_THINK_END = "</mm:think>"
STRUCTURED = frozenset(("array", "object"))

_HEADER = re.compile(r'[ \t\r\n]+name="([^"<>\n]*)"[ \t\r\n]*>')
_ELEMENT = re.compile(rf"(?:{re.escape(NS)})?<([A-Za-z_][\w.:-]*)>")


def _closer_at(buf: str, at: int, tag: str) -> int:
    """The length of `tag`'s closer (token-led or bare) starting at `buf[at]`, or 0."""
    for closer in (NS + tag, tag):
        if buf.startswith(closer, at):
            return len(closer)
    return 0


def _find_closer(text: str, tag: str, start: int, end: int | None = None) -> tuple[int, int]:
    """Where the first closer `tag` (token-led or bare) begins in `text[start:end]`, and its
    length; (-1, 0) when there is none."""
    at = text.find(tag, start, len(text) if end is None else end)
    if at < 0:
        return -1, 0
    if text.startswith(NS, at - len(NS)) and at - len(NS) >= start:
        return at - len(NS), len(NS) + len(tag)
    return at, len(tag)


def _nested_end(text: str, tag: str, start: int) -> tuple[int, int]:
    """Where the element `tag` whose content starts at `start` closes, counting nested
    elements of the same name (token-led or bare), and its closer's length; (-1, 0) if never.
    One pass over that name's tags."""
    depth = 0
    for m in re.finditer(rf"(?:{re.escape(NS)})?<(/?){re.escape(tag)}>", text[start:]):
        if not m.group(1):
            depth += 1
        elif depth:
            depth -= 1
        else:
            return start + m.start(), m.end() - m.start()
    return -1, 0


def _alternative(schema: Any, structured: bool) -> Any:
    """The branch of an `anyOf`/`oneOf` a value takes: a structured one for child elements,
    a scalar one for text (the schema itself when it has no such branch)."""
    if not isinstance(schema, dict):
        return schema
    for keyword in ("anyOf", "oneOf"):
        for branch in schema.get(keyword) or ():
            if bool(schema_types(branch) & STRUCTURED) == structured:
                return branch
    return schema


def parameter_value(raw: str, schema: Any, where: str) -> Any:
    """A parameter's value from its raw text (tokens included), typed by its schema."""
    if "string" in (declared_types(schema) or ()):
        return raw
    plain = raw.replace(NS, "")
    structured = plain.lstrip(" \t\r\n").startswith("<")
    return decode_value(plain, _alternative(schema, structured), where)


def read_arguments(body: str, schema: Any) -> dict[str, Any]:
    """The arguments of one invoke from its body (between its header and its closer)."""
    properties = schema.get("properties") if isinstance(schema, dict) else None
    props = properties if isinstance(properties, dict) else {}
    out: dict[str, Any] = {}
    i = 0
    while True:
        i = skip_blanks(body, i, len(body))
        if i == len(body):
            return out
        m = _ELEMENT.match(body, i)
        if m is None:
            raise ValueError_("text between the parameters")
        key = m.group(1)
        if "string" in (declared_types(props.get(key)) or ()):
            close, length = _find_closer(body, f"</{key}>", m.end())  # text as written
        else:
            close, length = _nested_end(body, key, m.end())
        if close < 0:
            raise ValueError_(f"{key}: its closer is missing")
        if key in out:
            raise ValueError_(f"{key}: given twice")
        out[key] = parameter_value(body[m.end() : close], props.get(key), key)
        i = close + length


def render_element(key: str, value: Any, *, top: bool = False) -> str:
    """One parameter (or nested element) `<key>…</key>`, every tag led by the token."""
    if isinstance(value, str):
        text = value if top else render_string(value, f"</{key}>")
    elif isinstance(value, list):
        text = "".join(render_element(ITEM, v) for v in value)
    elif isinstance(value, dict):
        text = "".join(render_element(k, v) for k, v in value.items())
    else:
        text = json.dumps(value)
    return f"{NS}<{key}>{text}{NS}</{key}>"


def _strings(value: Any) -> list[str]:
    """Every string a JSON value holds, itself included."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [t for v in value for t in _strings(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _strings(v)]
    return []


class MiniMaxM3Protocol(TextProtocol):
    id = "minimax-m3"
    aliases = ("minimax_m3",)
    summary = (
        f'MiniMax-M3: {NS}<tool_call>{NS}<invoke name="NAME">{NS}<KEY>VALUE{NS}</KEY>'
        f"{NS}</invoke>{NS}</tool_call>"
    )
    default_policy = Policy.LENIENT
    incremental_arguments = False
    reasoning_spans = (THINK,)
    result_closers = ("</response>",)  # the token-led closer holds it too

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        # The token's head only: the whole token holds `[`, the bare JSON list's marker, and
        # an opener after a marker that began earlier would take the block from it.
        return (MARK, BARE_THINK_END)

    def closing_markers(self) -> Sequence[str]:
        return (NS + CLOSE_TAG, NS + INVOKE_CLOSE)

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        if marker == BARE_THINK_END:
            return MarkupOnlyReader(ctx)
        return InvokesReader(ctx)

    def render_tools(self, tools: Sequence[Tool]) -> str:
        return declare_tools(tools) + (
            "To call a function, write every tag led by the token " + NS + ":\n"
            f'{NS}<tool_call>\n{NS}<invoke name="FUNCTION_NAME">{NS}<PARAMETER>VALUE'
            f"{NS}</PARAMETER>{NS}</invoke>\n{NS}</tool_call>\n"
            "Write a text value as it is; a list as <item> elements, an object as one element "
            "per key, numbers and booleans as JSON. Several invokes in one block are parallel "
            "calls."
        )

    def render_call(self, call: ToolCall) -> str:
        for key, value in call.arguments.items():
            # Values are written raw and closers are read with or without the token: a text
            # holding the token or a closer that ends its element or the invoke is refused.
            for text in _strings(value):
                carried_raw(text, (NS, INVOKE_CLOSE, f"</{key}>"), protocol_id=self.id)
        name = carried_raw(call.name, ('"', "<", ">", "\n"), protocol_id=self.id)
        for key in call.arguments:
            if not re.fullmatch(r"[A-Za-z_][\w.:-]*", key):
                carried_raw(key, (key,), protocol_id=self.id)  # not a tag name: refused
        body = "".join(render_element(k, v, top=True) for k, v in call.arguments.items())
        return f'{OPEN}\n{NS}<invoke name="{name}">{body}{NS}</invoke>\n{NS}{CLOSE_TAG}'

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        return f"{NS}<response>{content}{NS}</response>"


class InvokesReader(BlockReader):
    """One block: invokes (in the wrapper, or one bare), each read once its closer arrives.

    An invoke's text is consumed as it arrives and kept (`parts`); the closer is looked for in
    what arrived since, after the few characters before it that could begin one (`window`),
    so a block fed one character at a time stays linear. While nothing read could begin a
    closer, the fast path takes the plain chunks that follow straight into `parts`.
    """

    def __init__(self, ctx: BlockContext) -> None:
        self.ctx = ctx
        self.opened = False
        self.head = ""  # the opening consumed after the marker (text again if no call comes)
        self.wrapped = False
        self.first = False  # the opening held the first invoke's `<invoke`
        self.calls = 0
        self.in_invoke = False
        self.parts: list[str] = []  # the invoke's text so far (the blanks and tag before it)
        self.tag_end = 0  # where in it the header begins
        self.window = ""
        self.closed_at: int | None = None  # after the wrapper's closer, once it came

    def _open(self, buf: str, pos: int, end: int, final: bool) -> int:
        """After the marker: the token's rest and `<tool_call>` (a wrapper) or `<invoke` (one
        bare invoke); the position after them, -1 while they may still come, -2 if not."""
        for opening in (OPEN, NS + INVOKE):
            rest = opening[len(MARK) :]
            if buf.startswith(rest, pos, end):
                self.opened, self.wrapped = True, opening == OPEN
                self.first = not self.wrapped
                self.head = rest
                return pos + len(rest)
        held = buf[pos:end]
        if not final and any(o[len(MARK) :].startswith(held) for o in (OPEN, NS + INVOKE)):
            return -1
        return -2

    def step(self, buf: str, pos: int, end: int, final: bool) -> int:
        if not self.opened:
            at = self._open(buf, pos, end, final)
            if at == -1:
                return pos
            if at == -2:
                self.ctx.revert("", rescan=True)  # nothing consumed yet
                return pos
            pos = at
        while True:
            if not self.in_invoke:
                start = pos if self.first else self._next_invoke(buf, pos, end, final)
                if start < 0:
                    return pos if start == -1 else self._stop(pos)
                self.parts = [buf[pos:start]]
                self.tag_end = start - pos
                self.in_invoke, self.first, self.window = True, False, ""
                pos = start
            done, more = self._invoke(buf, pos, end, final)
            if not more:
                return done
            pos = done
            if not self.wrapped:
                self.ctx.end_block()
                return pos

    def _next_invoke(self, buf: str, pos: int, end: int, final: bool) -> int:
        """Between invokes: the position after the next `<invoke`; -1 while it may still come,
        -2 when text follows, -3 when the wrapper's closer ends the block."""
        j = skip_blanks(buf, pos, end)
        closed = _closer_at(buf, j, CLOSE_TAG) if self.wrapped else 0
        if closed:
            self.ctx.end_block()
            self.closed_at = j + closed
            return -3
        invoke = next((t for t in (NS + INVOKE, INVOKE) if buf.startswith(t, j)), "")
        if invoke:
            return j + len(invoke)
        held = buf[j:end]
        growing = any(t.startswith(held) for t in (NS + INVOKE, INVOKE, NS + CLOSE_TAG))
        if growing and not final and end - j < len(NS) + MAX_TAG_LENGTH:
            return -1
        return -2

    def _stop(self, pos: int) -> int:
        if self.closed_at is not None:
            return self.closed_at
        if self.calls == 0:
            self.ctx.revert(self.head, rescan=True)
        else:
            self.ctx.end_block()  # the wrapper ends unclosed: the rest is text again
        return pos

    def _invoke(self, buf: str, pos: int, end: int, final: bool) -> tuple[int, bool]:
        """Consume the invoke's text up to `end`; once its closer is there, make its call and
        return the position after it, with whether the block goes on."""
        hay = self.window + buf[pos:end]
        k, length = _find_closer(hay, INVOKE_CLOSE, 0)
        if k < 0:
            self.parts.append(buf[pos:end])
            if partial_marker_start(hay, 0, len(hay), INVOKE_STOPS) == len(hay):
                # No closer can have begun: the invoke's text goes on until one does, and the
                # fast path takes it (into `parts`) while it plainly is text.
                self.window = ""
                self.ctx.stream_value(INVOKE_TEXT, raw=(self.parts,))
            else:
                self.window = hay[-(len(NS) + len(INVOKE_CLOSE)) :]
                self.ctx.stop_value()
            if final and self.calls == 0:
                self.ctx.revert(self.head + "".join(self.parts), rescan=True)
            return end, False
        self.ctx.stop_value()
        after = pos + k + length - len(self.window)
        self.parts.append(buf[pos:after])
        self.in_invoke = False
        text = "".join(self.parts)
        close = len(text) - length
        header = _HEADER.match(text, self.tag_end, min(close, self.tag_end + 2 * MAX_TAG_LENGTH))
        if header is None or not self.ctx.begin_call(header.group(1)):
            return self._not_a_call(text, after), False
        tool = self.ctx.current_tool
        schema = tool.parameters if tool is not None else None
        try:
            arguments, error = read_arguments(text[header.end() : close], schema), None
        except ValueError_ as exc:
            arguments, error = {}, str(exc)
        self.ctx.end_call(arguments, at=after, error=error)
        self.calls += 1
        return after, True

    def _not_a_call(self, text: str, after: int) -> int:
        """An invoke whose tool is unknown (or whose header is broken) is text as written: the
        block's first with the opening, a later one as the block's text, ending it."""
        if self.calls == 0:
            self.ctx.revert(self.head + text, rescan=False)
        else:
            self.ctx.text(text)
            self.ctx.end_block()
        return after

    def at_eof(self) -> EofVerdict:
        if not self.in_invoke:
            return EofVerdict(recoverable=self.calls > 0)
        text = "".join(self.parts)
        header = _HEADER.match(text, self.tag_end, self.tag_end + 2 * MAX_TAG_LENGTH)
        return EofVerdict(recoverable=False, name=header.group(1) if header else None)


PROTOCOL = MiniMaxM3Protocol()
