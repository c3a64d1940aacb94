"""Qwen3-Coder: `<tool_call><function=NAME><parameter=KEY>VALUE</parameter></function>`.

The XML-like format of Qwen3-Coder (and Qwen3.5/3.6, Nemotron and others trained on its
template). This module owns the whole format: the system prompt that declares the tools, how a
past call and its result are written back, the block reader, and the typing of parameter values.

Parsing, in short:

* `<tool_call>` and a bare `<function=` both open a block (models often drop the wrapper). One
  block holds one function; a `</tool_call>` right after `</function>` belongs to it.
* A parameter value is raw text: one leading and one trailing newline are the template's and are
  trimmed, the trailing one only after a leading one (Seed-OSS's template writes a value right after
  its tag, so a final line break there is the value's, as llama.cpp reads it: an edit tool's
  `oldString` keeps it; but when its `</parameter>` is forgotten, the line break before the next tag
  is the layout that puts each tag on its own line); nothing else is trimmed or decoded. A model
  whose text went through one JSON encoding too many writes the template's line breaks as the two
  characters `\n` (LocalAI's "literal \n between tags"): such escaped blanks between the tags are
  layout too, and then so is one `\n` at each edge of a value (never one inside it). Only
  `</parameter>` ends a value, or (the closer forgotten) the next `<parameter=`, `</function>`, or
  the wrapper's `</tool_call>`, which then ends the call and the block (`core/closers.py`); any
  other `<`, `>` or tag is content. A value may quote the format's own markup: its `</parameter>`
  ends it only where the call goes on after it (a declared parameter, a closer, a new call, the
  end), and a `<parameter=` inside it that names no declared parameter not given yet is text whose
  own `</parameter>` pairs with it (`core/closers.Continuation`). A value whose closer is missing
  and that holds markup of a call is never executed: cut short, most likely.
* Values are typed by the tool's schema (`parameter_value`): a string keeps its text; numbers,
  booleans and null are read from the text; objects and arrays from JSON or Python literals.
  Without a declared type, JSON numbers, booleans, null, objects and arrays are read and
  everything else stays text. String parameters stream as argument deltas while written.
* A `<tool_call>` holding JSON (`{"name": ..., "arguments": ...}`) is read by the Hermes reader.
* Truncation follows R1–R4 (see `toolmend.core.calls`).

It never scans text for markers itself (the engine's `TextScanner` does), never repairs arguments
(the schema gate does) and never decodes entities or escapes inside a value.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from toolmend.core.closers import (
    Continuation,
    NameRead,
    NestedClosers,
    enclosing_closer_is_text,
)
from toolmend.core.fastpath import ValueText
from toolmend.core.keyrules import duplicate_key_error
from toolmend.core.reader import (
    CUT_AFTER_HEADER,
    CUT_OFF,
    MAX_TAG_LENGTH,
    BlockContext,
    BlockReader,
    EofVerdict,
)
from toolmend.core.textscan import closers, find_closer, is_proper_prefix, partial_marker_start
from toolmend.jsontext import decode_json_object
from toolmend.model import Tool, ToolCall, canonical_json
from toolmend.names import ToolResolver
from toolmend.protocols.base import (
    Claim,
    TextProtocol,
    ToolResponseResults,
    carried_raw,
    claim_by_first_char,
)
from toolmend.protocols.hermes import hermes_reader
from toolmend.protocols.json_calls import JsonCallsReader, arguments_from_text
from toolmend.schema_gate import Policy, declared_types
from toolmend.textvalue import typed_value

OPEN = "<tool_call>"
CLOSE = "</tool_call>"
FUNCTION = "<function="
FUNCTION_END = "</function>"
PARAMETER = "<parameter="
PARAMETER_END = "</parameter>"

#: At the end of the stream a value followed by a proper prefix of its closer is complete (R3)
#: only when that prefix is at least this long: `<`, `</`, `</p`, `</f` are ordinary in code and
#: HTML, so a value cut just there may be unfinished and must not be executed.
MIN_PARTIAL_CLOSER = 4


def _parameter_name(buf: str, i: int, end: int, final: bool) -> NameRead:
    """`NAME>` of a `<parameter=NAME>` tag at `buf[i:end]` (see `Continuation.read_name`)."""
    limit = min(end, i + MAX_TAG_LENGTH)
    close = buf.find(">", i, limit)
    name = buf[i:close] if close >= 0 else buf[i:limit]
    if "\n" in name or "<" in name:
        return False, "", -1
    if close >= 0:
        return True, name.strip(), close + 1
    return (None, "", -1) if limit - i < MAX_TAG_LENGTH and not final else (False, "", -1)


def value_end(wrap_close: str | None) -> tuple[NestedClosers, ValueText]:
    """Where a value ends, level by level: its own closer (or the next parameter), the
    function's, and inside a wrapper the wrapper's (`wrap_close`); and how the fast path takes
    its text: raw, a final newline held back (it may be the template's, trimmed before the
    closer)."""
    levels = [(PARAMETER_END, PARAMETER), (FUNCTION_END,), *([(wrap_close,)] if wrap_close else [])]
    nested = NestedClosers(levels)
    return nested, ValueText(nested.markers, held="\n")


@lru_cache(maxsize=8)
def escaped_value_text(stops: tuple[str, ...]) -> ValueText:
    """The fast path's `ValueText` in a block with escaped layout: a final `\n` written as two
    characters is held back too (it may be the template's, trimmed before the closer)."""
    return ValueText(stops, held="\n" + ESCAPED_NEWLINE)


def _layout_end(text: str, pos: int = 0, end: int | None = None) -> int:
    """The end of the layout (blanks, escaped or not) at `pos`."""
    m = _LAYOUT.match(text, pos, len(text) if end is None else end)
    assert m is not None  # the pattern matches the empty string
    return m.end()


@dataclass(frozen=True)
class Wrapper:
    """The tags a call block may be wrapped in (`<tool_call>`; Seed-OSS's `<seed:tool_call>`),
    and the markers the reader looks for because of them (declared when the wrapper is)."""

    open: str
    close: str
    #: What ends unexpected text between parameters.
    body_markers: tuple[str, ...] = field(init=False)
    #: What ends a JSON arguments body: the function's closer or the wrapper's.
    closers: tuple[str, ...] = field(init=False)
    #: `value_end` of a function inside the wrapper (True) and of a bare one (False).
    value_ends: dict[bool, tuple[NestedClosers, ValueText]] = field(
        init=False, repr=False, compare=False
    )
    #: What may follow a value's `</parameter>` for it to end the value.
    continuation: Continuation = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        body = closers(PARAMETER, FUNCTION_END, self.close, FUNCTION, self.open)
        object.__setattr__(self, "body_markers", body)
        object.__setattr__(self, "closers", closers(FUNCTION_END, self.close))
        ends = {True: value_end(self.close), False: value_end(None)}
        object.__setattr__(self, "value_ends", ends)
        goes_on = closers(FUNCTION_END, self.close, FUNCTION, self.open)
        continuation = Continuation(PARAMETER_END, goes_on, PARAMETER, _parameter_name, _layout_end)
        object.__setattr__(self, "continuation", continuation)


TOOL_CALL = Wrapper(OPEN, CLOSE)


#: Blanks between tags, written as they are or escaped (`\n`, `\r`, `\t` as two characters).
_LAYOUT = re.compile(r"(?:\s|\\[nrt])*")
#: The template's line break at a value's edge, written escaped.
ESCAPED_NEWLINE = "\\n"
_STRING = frozenset(("string",))

_QUOTES = "\"'"


# ------------------------------------------------------------------------ parameter values


def trim_value(body: str) -> str:
    """A parameter body without the one leading and one trailing newline the template adds
    (the trailing one only after a leading one: the template writes both or neither)."""
    if body.startswith("\n"):
        body = body[1:]
        if body.endswith("\n"):
            body = body[:-1]
    return body


def parameter_value(body: str, schema: Any) -> Any:
    """The value of one `<parameter=...>` body, typed by the parameter's JSON schema."""
    return typed_value(trim_value(body), declared_types(schema))


def _unquoted(name: str) -> str | None:
    if len(name) >= 2 and name[0] == name[-1] and name[0] in _QUOTES:
        return name[1:-1].strip()
    return None


# ------------------------------------------------------------------------------ the protocol


class Qwen3CoderProtocol(ToolResponseResults, TextProtocol):
    id = "qwen3-coder"
    summary = (
        "XML-like tags: <tool_call><function=NAME><parameter=KEY>VALUE</parameter>"
        "</function></tool_call>"
    )
    #: The tags a call block is wrapped in (a format of the same tags in another wrapper
    #: sets its own).
    wrapper = TOOL_CALL

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return (self.wrapper.open, FUNCTION)

    def token_openers(self) -> Sequence[str]:
        # The wrapper is a special token of Qwen3-Coder's and Seed-OSS's tokenizers; a bare
        # `<function=` is plain text to them.
        return (self.wrapper.open,)

    def closing_markers(self) -> Sequence[str]:
        # A skipped block ends at the first of these (its wrapper's closer may stay text).
        return (self.wrapper.close, FUNCTION_END)

    def claims(self, marker: str, body: str) -> Claim:
        # A `<tool_call>` body that starts with a name is GLM's (`<tool_call>NAME<arg_key>`).
        if marker != self.wrapper.open:
            return Claim.MINE
        rest = body[_layout_end(body) :]
        return Claim.MAYBE if rest == "\\" else claim_by_first_char(rest, "<{")

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        return Qwen3CoderReader(ctx, wrapped=marker == self.wrapper.open, wrapper=self.wrapper)

    def render_tools(self, tools: Sequence[Tool]) -> str:
        declared = "\n".join(_render_tool(t) for t in tools)
        open_, close = self.wrapper.open, self.wrapper.close
        return (
            "# Tools\n\n"
            "You can call the functions declared below to help with the user's request.\n\n"
            f"<tools>\n{declared}\n</tools>\n\n"
            "To call a function, write a block in exactly this shape, and nothing else inside "
            "it:\n\n"
            f"{open_}\n<function=FUNCTION_NAME>\n<parameter=PARAMETER_NAME>\nVALUE\n"
            "</parameter>\n<parameter=OTHER_PARAMETER_NAME>\nVALUE\n</parameter>\n</function>\n"
            f"{close}\n\n"
            "For example, with a function named `get_weather`:\n\n"
            f"{open_}\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
            f"<parameter=days>\n3\n</parameter>\n</function>\n{close}\n\n"
            "Rules:\n"
            "- Give every required parameter; leave out optional ones you do not need.\n"
            "- Write a value as plain text on the lines between its tags: text and code as they "
            "are (no quotes, no escaping), numbers and true/false as they are, lists and "
            "objects as JSON.\n"
            f"- For several calls, write one {open_} block after another.\n"
            "- You may write a short explanation before a call, never after it."
        )

    def render_call(self, call: ToolCall) -> str:
        lines = [self.wrapper.open, f"{FUNCTION}{call.name}>"]
        for key, value in call.arguments.items():
            text = value if isinstance(value, str) else canonical_json(value)
            carried_raw(text, self.wrapper.value_ends[True][0].markers, protocol_id=self.id)
            lines.append(f"{PARAMETER}{key}>\n{text}\n{PARAMETER_END}")
        lines += [FUNCTION_END, self.wrapper.close]
        return "\n".join(lines)


def _render_tool(tool: Tool) -> str:
    schema = tool.parameters
    props = schema.get("properties")
    props = props if isinstance(props, dict) else {}
    required = schema.get("required")
    parts = [f"<function>\n<name>{tool.name}</name>"]
    if tool.description:
        parts.append(f"<description>{tool.description.strip()}</description>")
    parts.append("<parameters>")
    for key, sub in props.items():
        sub = sub if isinstance(sub, dict) else {}
        parts.append(f"<parameter>\n<name>{key}</name>")
        if "type" in sub:
            kind = sub["type"]
            parts.append(f"<type>{kind if isinstance(kind, str) else json.dumps(kind)}</type>")
        if isinstance(sub.get("description"), str):
            parts.append(f"<description>{sub['description'].strip()}</description>")
        for keyword, detail in sub.items():
            if keyword not in ("type", "description"):
                parts.append(f"<{keyword}>{json.dumps(detail, ensure_ascii=False)}</{keyword}>")
        parts.append("</parameter>")
    if isinstance(required, list) and required:
        parts.append(f"<required>{json.dumps(required, ensure_ascii=False)}</required>")
    parts.append("</parameters>\n</function>")
    return "\n".join(parts)


# -------------------------------------------------------------------------------- the reader

_PRELUDE, _HEADER, _BODY, _PARAM_HEADER, _VALUE, _JSON_BODY, _AFTER, _DONE = range(8)


class Qwen3CoderReader(BlockReader):
    """Reads one block: `<tool_call>` (or a bare `<function=`) holding one function.

    `step` runs a small state machine; every state either consumes input or holds back a bounded
    undecided tail (a partial tag, whitespace before a tag, a value's possible final newline).
    """

    def __init__(self, ctx: BlockContext, *, wrapped: bool, wrapper: Wrapper = TOOL_CALL) -> None:
        self.ctx = ctx
        self.wrapped = wrapped
        self.wrapper = wrapper
        self.value_closers, self.value_text = wrapper.value_ends[wrapped]
        self.state = _PRELUDE if wrapped else _HEADER
        self.name_offset = 0  # _HEADER: where the name starts, counted from the held position
        self.begun = False
        self.done: dict[str, Any] = {}  # parameters completed so far
        self.key = ""  # the parameter being read
        self.types: frozenset[str] | None = None
        self.started_value = False
        #: The value began with the template's line break: then a final one is the template's too.
        self.broke = False
        self.streaming = False
        self.pieces: list[str] = []  # released text of the value being read
        #: Quoted `<parameter=` tags open in the value being read, each awaiting its closer.
        self.quoted = 0
        self.json_pieces: list[str] = []  # a JSON arguments body written inside <function=...>
        self.repairs: list[str] = []
        self.error: str | None = None
        self.tail = ""  # at the end of the stream: the undecided text left over
        self.hermes: JsonCallsReader | None = None
        #: The layout between the tags was written escaped (`\n` as two characters).
        self.escaped = False
        self._stop = 0  # where the block ended, once `end_block`/`revert` was called

    # ------------------------------------------------------------------------ the machine

    def step(self, buf: str, pos: int, end: int, final: bool) -> int:
        while True:
            if self.hermes is not None:
                return self.hermes.step(buf, pos, end, final)
            state = self.state
            if pos >= end and state != _AFTER:
                return pos
            new: int | None
            if state == _VALUE:
                new = self._value(buf, pos, end, final)
            elif state == _BODY:
                new = self._body(buf, pos, end, final)
            elif state == _PARAM_HEADER:
                new = self._param_header(buf, pos, end, final)
            elif state == _HEADER:
                new = self._header(buf, pos, end, final)
            elif state == _PRELUDE:
                new = self._prelude(buf, pos, end, final)
            elif state == _JSON_BODY:
                new = self._json_body(buf, pos, end, final)
            elif state == _AFTER:
                new = self._after(buf, pos, end, final)
            else:
                return pos
            if new is None:  # the block is over (ended or reverted): the engine takes it
                return self._stop
            if self.hermes is None and self.state == state and (new == pos or state == _VALUE):
                return new  # a value reads all it can in one go; others stop when stuck
            pos = new

    def _finish_block(self, at: int) -> None:
        self.state = _DONE
        self.ctx.end_block()
        self._stop = at

    def _revert(self, consumed: str, rescan: bool, at: int) -> None:
        self.state = _DONE
        self.ctx.revert(consumed, rescan=rescan)
        self._stop = at

    def _layout(self, buf: str, pos: int, limit: int) -> int:
        """Where the layout at `pos` ends (at most `limit`); notes escaped layout."""
        k = _LAYOUT.match(buf, pos, limit).end()  # type: ignore[union-attr]  # it matches ""
        if not self.escaped and "\\" in buf[pos:k]:
            self.escaped = True
        return k

    # ------------------------------------------------------------------ wrapper and header

    def _prelude(self, buf: str, pos: int, end: int, final: bool) -> int | None:
        """After `<tool_call>`: whitespace, then `<function=`, JSON, or the closer.

        More than `MAX_TAG_LENGTH` blanks first is not a call, whatever follows them (so the
        decision is the same however the blanks arrive).
        """
        limit = min(end, pos + MAX_TAG_LENGTH + 1)
        k = self._layout(buf, pos, limit)
        if k == limit:
            if end - pos > MAX_TAG_LENGTH:
                self._revert("", True, pos)
                return None
            return pos
        if buf[k] == "\\" and k + 1 == end and not final:
            return pos  # an escaped line break, maybe
        if buf.startswith(FUNCTION, k, end):
            self.state = _HEADER
            self.name_offset = k + len(FUNCTION) - pos
            return pos
        if buf[k] == "{":
            self.hermes = hermes_reader(self.ctx, self.wrapper.open, self.wrapper.close)
            return pos
        if buf.startswith(self.wrapper.close, k, end):
            self._finish_block(k + len(self.wrapper.close))  # an empty wrapper: markup, no call
            return None
        if not final and is_proper_prefix(buf[k:end], (FUNCTION, self.wrapper.close)):
            return pos
        self._revert("", True, pos)  # not a call: the marker is text, the rest is scanned
        return None

    def _header(self, buf: str, pos: int, end: int, final: bool) -> int | None:
        """`NAME>` of `<function=NAME>` (unconsumed until the whole tag is there)."""
        start = pos + self.name_offset
        limit = min(end, start + MAX_TAG_LENGTH)
        close = buf.find(">", start, limit)
        name = buf[start:close] if close >= 0 else buf[start:limit]
        if "\n" in name or "<" in name or (close < 0 and limit - start >= MAX_TAG_LENGTH):
            self._revert("", True, pos)  # not a tag
            return None
        if close < 0:
            return pos
        name = self._resolvable(name.strip())
        if not name or not self.ctx.begin_call(name):
            # An unknown tool: its header becomes text (already looked at, so not rescanned).
            self._revert(buf[pos : close + 1], False, close + 1)
            return None
        self.begun = True
        self.state = _BODY
        return close + 1

    def _resolvable(self, name: str) -> str:
        """The name as written, or without quotes when only that resolves."""
        bare = _unquoted(name)
        resolve = self.ctx.resolver.resolve
        if bare and resolve(name) is None and resolve(bare) is not None:
            return bare
        return name

    # -------------------------------------------------------------------------- the body

    def _body(self, buf: str, pos: int, end: int, final: bool) -> int | None:
        """Between parameters: whitespace, then a parameter, the function's end, or a new call."""
        k = self._layout(buf, pos, end)
        if k == end:
            return end
        if buf[k] == "\\" and k + 1 == end and not final:
            return k  # an escaped line break, maybe
        if buf.startswith(PARAMETER, k, end):
            self.state = _PARAM_HEADER
            return k + len(PARAMETER)
        if buf.startswith(FUNCTION_END, k, end):
            self._end_call(k + len(FUNCTION_END))
            self.state = _AFTER
            return k + len(FUNCTION_END)
        if buf.startswith(self.wrapper.close, k, end):
            self._forgotten("close-function", f"the function is not closed with {FUNCTION_END}")
            self._end_call(k + len(self.wrapper.close))
            self._finish_block(k + len(self.wrapper.close))
            return None
        if buf.startswith(FUNCTION, k, end) or buf.startswith(self.wrapper.open, k, end):
            self._forgotten("close-function", f"the function is not closed with {FUNCTION_END}")
            self._end_call(k)
            self._finish_block(k)  # the next call is scanned as a block of its own
            return None
        if is_proper_prefix(buf[k:end], self.wrapper.body_markers):
            if final:
                self.tail = buf[k:end]
                return end
            return k
        if buf[k] == "{" and not self.done and self.error is None:
            self.state = _JSON_BODY
            self.ctx.args.halt()
            return k
        # Text between the tags: the parameters cannot be trusted to be what was meant.
        if self.error is None:
            self.error = "unexpected text between the parameters of the call"
        return find_closer(buf, k + 1, end, self.wrapper.body_markers, final=final)[0]

    def _param_header(self, buf: str, pos: int, end: int, final: bool) -> int:
        """`KEY>` of `<parameter=KEY>`."""
        limit = min(end, pos + MAX_TAG_LENGTH)
        close = buf.find(">", pos, limit)
        key = buf[pos:close] if close >= 0 else buf[pos:limit]
        if "\n" in key or "<" in key or (close < 0 and (limit - pos >= MAX_TAG_LENGTH)):
            if self.error is None:
                self.error = "a <parameter=...> tag is malformed"
            self.state = _BODY  # the rest is text between tags, and the call is incomplete
            return pos
        if close < 0:
            if final:
                self.tail = buf[pos:end]
                return end
            return pos
        self._open_value(key.strip())
        return close + 1

    def _open_value(self, key: str) -> None:
        gate = self.ctx.gate_for(self.ctx.current_tool.name) if self.ctx.current_tool else None
        bare = _unquoted(key)
        if bare and gate is not None and not gate.declares(key) and gate.declares(bare):
            key = bare
        self.key = key
        self.types = declared_types(self._property_schema(key))
        self.state = _VALUE
        self.started_value = False
        self.broke = False
        self.pieces = []
        self.quoted = 0
        self.streaming = False
        if key in self.done:
            self.ctx.args.halt()
        elif self.types == _STRING:
            self.streaming = self.ctx.args.open_string(key)

    def _property_schema(self, key: str) -> Any:
        tool = self.ctx.current_tool
        props = tool.parameters.get("properties") if tool is not None else None
        return props.get(key) if isinstance(props, dict) else None

    # ------------------------------------------------------------------------- the value

    def _value(self, buf: str, pos: int, end: int, final: bool) -> int:
        """Raw value text up to its closer; released as it comes, minus a possible final newline."""
        if not self.started_value:
            if self.escaped and buf[pos] == "\\" and end - pos < 2 and not final:
                return pos  # the template's first line break, escaped, maybe
            self.started_value = True
            if buf[pos] == "\n":
                pos += 1
                self.broke = True
            elif self.escaped and buf.startswith(ESCAPED_NEWLINE, pos, end):
                pos += 2
                self.broke = True
            if self.streaming:
                stops = self.value_text.stops
                fast = escaped_value_text(stops) if self.escaped else self.value_text
                self.ctx.stream_value(fast, raw=(self.pieces,))
        k, marker, level = self.value_closers.find(buf, pos, end)
        if not marker:
            if final:
                self.tail = buf[pos:end]
                return end
            return self._release_before(buf, pos, k)
        stop = k + len(marker)
        if level == 0:
            quoted = self._quoted_markup(buf, stop, end, marker, final)
            if quoted is None:
                return self._release_before(buf, pos, k)  # decided once the window is there
            if quoted:
                self._release(buf[pos:stop])
                return stop
        else:  # the function's or the wrapper's closer, the value's own not written
            literal = enclosing_closer_is_text(
                buf, stop, end, PARAMETER_END, (self.wrapper.open, FUNCTION), final=final
            )
            if literal is None:
                return self._release_before(buf, pos, k)  # decided once the window is there
            if literal:
                self._release(buf[pos:stop])  # a value quoting the closer: its text
                return stop
        text = buf[pos:k]
        if not self.broke and marker == PARAMETER_END:
            pass  # a value written on its tag's line: its final line break is its own
        elif text.endswith("\n"):
            text = text[:-1]
        elif self.escaped and text.endswith(ESCAPED_NEWLINE):
            text = text[:-2]
        self._release(text)
        if marker == PARAMETER_END:
            self._close_value()
            self.state = _BODY
            return stop
        self._forgotten("close-parameter", f"parameter {self.key[:64]!r} is not closed")
        self._refuse_if_nested()
        self._close_value()
        if marker == PARAMETER:
            self.state = _PARAM_HEADER
            return stop
        if level == 2:  # the wrapper's closer: the function's is missing too
            self._forgotten("close-function", f"the function is not closed with {FUNCTION_END}")
            self._end_call(stop)
            self._finish_block(stop)
            return stop
        self._end_call(stop)
        self.state = _AFTER
        return stop

    def _quoted_markup(
        self, buf: str, stop: int, end: int, marker: str, final: bool
    ) -> bool | None:
        """Whether the value's `</parameter>` or `<parameter=` ending at `stop` is its text, a
        quote of the format's markup (see the module docstring); None while undecided."""
        verdict, self.quoted = self.wrapper.continuation.quoted_markup(
            buf,
            stop,
            end,
            self.quoted,
            closer=marker == PARAMETER_END,
            next_parameter=self._next_parameter,
            declared=self._declares,
            final=final,
        )
        return verdict

    def _next_parameter(self, name: str) -> bool:
        """`name` (quoted or not) opens a parameter the tool declares that is not given yet."""
        names = {name, _unquoted(name) or name}
        return self.key not in names and names.isdisjoint(self.done) and self._declares(name)

    def _declares(self, name: str) -> bool:
        """The call's tool declares a parameter `name` (or declares none). After a value's
        closer such a parameter continues the call even when given already (a repeat, which
        the duplicate rule answers); inside a value, only one not given yet ends it."""
        tool = self.ctx.current_tool
        if tool is None:
            return True
        gate = self.ctx.gate_for(tool.name)
        return gate.declares(name) or gate.declares(_unquoted(name) or name)

    def _refuse_if_nested(self) -> None:
        """A value whose closer is missing, and that holds the opening of a call
        (`<function=`, `<tool_call>`) or a parameter's tag (quoted: it did not end the value),
        is most likely a quote (a template, a parser's fixture) whose markup ended it: cut
        short, it is never executed."""
        value = "".join(self.pieces)  # joined: an opener may straddle two chunks
        if self.error is None and any(
            m in value for m in (FUNCTION, self.wrapper.open, PARAMETER, PARAMETER_END)
        ):
            self.error = (
                f"parameter {self.key[:64]!r} holds a call's markup and is not closed: "
                "its value may be cut short at a quoted closer"
            )

    def _release_before(self, buf: str, pos: int, cut: int) -> int:
        """Release the value text `buf[pos:cut]` but for a final line break that may be the
        template's (trimmed if a closer follows it) or, after a value written on its tag's line,
        the layout before the next tag when the value's `</parameter>` was forgotten; return
        where the release stopped."""
        if cut > pos and buf[cut - 1] == "\n":
            cut -= 1  # maybe the template's final newline: decided by what follows
        elif self.escaped and cut - 2 >= pos and buf.startswith(ESCAPED_NEWLINE, cut - 2, cut):
            cut -= 2  # the same, escaped
        elif self.escaped and cut > pos and buf[cut - 1] == "\\":
            cut -= 1  # maybe its first half
        if cut > pos:
            self._release(buf[pos:cut])
        return cut

    def _release(self, text: str) -> None:
        if text:
            self.pieces.append(text)
            if self.streaming:
                self.ctx.args.string_chunk(text)

    def _close_value(self) -> None:
        value = typed_value("".join(self.pieces), self.types)
        self.pieces = []
        if self.streaming:
            self.ctx.stop_value()
            self.ctx.args.close_string()
            self.streaming = False
        key = self.key
        if key in self.done:
            if self.error is None:
                self.error = duplicate_key_error(key)
            return
        self.done[key] = value
        if self.types != _STRING:
            self.ctx.args.put(key, value)

    # ----------------------------------------------------------- JSON body, after the call

    def _json_body(self, buf: str, pos: int, end: int, final: bool) -> int | None:
        """`<function=NAME>{...json arguments...}</function>` (a model mixing the formats)."""
        at, closer = find_closer(buf, pos, end, self.wrapper.closers, final=final)
        if not closer:
            self.json_pieces.append(buf[pos:at])
            if final:
                self.tail = "".join(self.json_pieces)
            return at
        self.json_pieces.append(buf[pos:at])
        read = arguments_from_text("".join(self.json_pieces), self.ctx, repairs=["json-arguments"])
        if read.error is None:
            self.done = read.arguments
            self.repairs += read.repairs
        elif self.error is None:
            self.error = read.error
        stop = at + len(closer)
        self._end_call(stop)
        if closer == self.wrapper.close:
            self._finish_block(stop)
            return None
        self.state = _AFTER
        return stop

    def _after(self, buf: str, pos: int, end: int, final: bool) -> int | None:
        """After `</function>`: a `</tool_call>` that follows belongs to the block."""
        limit = min(end, pos + MAX_TAG_LENGTH)
        k = self._layout(buf, pos, limit)
        found = k < limit
        if found and buf[k] == "\\" and k + 1 == end and not final:
            return pos  # an escaped line break, maybe
        if found and buf.startswith(self.wrapper.close, k, end):
            self._finish_block(k + len(self.wrapper.close))
            return None
        if not found and end - pos < MAX_TAG_LENGTH:
            if not final:
                return pos
            if self.wrapped:  # the wrapper's closer is missing: only whitespace was left (R3)
                self._finish_block(end)
                return None
        if found and is_proper_prefix(buf[k:end], (self.wrapper.close,)):
            if not final:
                return pos
            self._finish_block(end)  # a closer cut off by the end of the stream
            return None
        self._finish_block(pos)
        return None

    # ---------------------------------------------------------------------- call endings

    def _forgotten(self, repair: str, error: str) -> None:
        """A closing tag is missing where the next tag makes the structure plain."""
        if self.ctx.policy is Policy.LENIENT:
            self.repairs.append(repair)
        elif self.error is None:
            self.error = error

    def _end_call(self, at: int) -> None:
        self.ctx.end_call(self.done, at=at, error=self.error, repairs=self.repairs)
        self.begun = False

    def at_eof(self) -> EofVerdict:
        if self.hermes is not None:
            return self.hermes.at_eof()
        state = self.state
        if not self.begun:
            return EofVerdict(recoverable=False)
        if state == _VALUE:
            return self._value_at_eof()
        if state == _JSON_BODY:
            text = self.tail
            text = text[: partial_marker_start(text, 0, len(text), self.wrapper.closers)]
            decoded = decode_json_object(text, allow_repair=False)
            if decoded.error is None and len(decoded.objects) == 1:
                return self._verdict(True, decoded.objects[0])
            return self._verdict(False, {})
        if state == _BODY:
            tail = self.tail.strip()
            # `<` may as well open another parameter: only a tail no parameter starts with.
            clean = _is_closer_rest(tail, self.wrapper) and not (
                tail and PARAMETER.startswith(tail)
            )
            if not tail and not self.done:
                return self._verdict(False, reason=CUT_AFTER_HEADER)
            return self._verdict(clean)
        return self._verdict(False)  # inside a parameter tag

    def _value_at_eof(self) -> EofVerdict:
        tail = self.tail
        wrapper_close = (self.wrapper.close,) if self.wrapped else ()
        for marker in (PARAMETER_END, FUNCTION_END, *wrapper_close):
            cut = partial_marker_start(tail, 0, len(tail), (marker,))
            if len(tail) - cut >= MIN_PARTIAL_CLOSER:
                if marker != PARAMETER_END:
                    self._forgotten("close-parameter", f"parameter {self.key[:64]!r} is not closed")
                text = tail[:cut]
                self._release(text[:-1] if self.broke and text.endswith("\n") else text)
                self._close_value()
                return self._verdict(True)
        args = dict(self.done)
        if self.key not in args:
            text = "".join(self.pieces) + tail
            args[self.key] = typed_value(
                text[:-1] if self.broke and text.endswith("\n") else text, self.types
            )
        return self._verdict(False, args)

    def _verdict(
        self, complete: bool, arguments: dict[str, Any] | None = None, reason: str = CUT_OFF
    ) -> EofVerdict:
        args = dict(self.done) if arguments is None else arguments
        if complete and self.error is None:
            return EofVerdict(recoverable=True, arguments=args)
        if self.error is not None:
            return EofVerdict(recoverable=False, arguments=args, reason=self.error)
        return EofVerdict(recoverable=False, arguments=args, reason=reason)


def _is_closer_rest(text: str, wrapper: Wrapper) -> bool:
    """Empty, or a proper prefix of a closer: a block complete but for its closing tags (R3)."""
    return not text or is_proper_prefix(text, wrapper.closers)


PROTOCOL = Qwen3CoderProtocol()
