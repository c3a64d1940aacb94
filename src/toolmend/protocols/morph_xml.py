"""Morph XML: `<tool_name><param>value</param>...</tool_name>`, one tag per parameter.

The format of the ai-sdk-tool-call-middleware's morphXml protocol (canonical id `morph-xml`, the
deprecated id `xml` is an alias). Only a declared tool name opens a call (`<name>`, `<name/>`,
`<name >`); with `tools=None` nothing can open one, since any tag could be a name.

Values are read by their parameter's schema type:

* a string parameter is raw text up to its exact closer `</param>`: code holding `<`, `>`, `&`
  or even `<param>` survives, and XML entities are NOT decoded (models write code raw, so
  `&lt;` stays `&lt;`). One newline right after the opening tag and one newline (plus the
  closer's indentation, at most `MAX_LAYOUT_INDENT` spaces or tabs) right before the closer are
  layout, not value. A value starting with `<![CDATA[` is the content of its CDATA sections
  (several adjacent sections are concatenated); that is how `render_call` writes a string that
  holds its own closer. String parameters stream as argument deltas while they are written.
* numbers, booleans and null are the tag's text, trimmed, converted to the declared type;
* an array is `<item>` children, or the parameter tag repeated once per element, or a JSON
  array; an object is child tags (or a JSON object); both are typed recursively by the schema.
  An array of objects whose items are not objects is rejected (the call is incomplete), never
  turned into strings;
* an undeclared parameter is a string unless its text is all child tags.

Roo Code's shapes are read against the tool's own schema: an undeclared `<args>` wrapper is
transparent (`<read_file><args><file>…</file></args></read_file>`), and a tag whose name is
undeclared but whose plural is a declared array (`<file>` for `files`, `<line_range>` for
`line_ranges`) is one element of that array (Roo's native `read_file` takes `files: [{path,
line_ranges}]`).

`<tool_name/>` is a call without arguments. A body whose first non-blank character is not a tag
is not a call: the opening tag stays text. Text between parameter tags, a parameter given twice,
or a malformed value make the call incomplete with an error. The module never executes, renames
or repairs anything: the schema gate does that.

Known limit: inside an array or object parameter, a string holding the closer of an enclosing
tag (`</param>`) ends that tag early; `render_call` cannot write such a nested string.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from toolmend.core.fastpath import Escapes, ValueText
from toolmend.core.keyrules import duplicate_key_error
from toolmend.core.reader import MAX_TAG_LENGTH, BlockContext, BlockReader, EofVerdict
from toolmend.core.textscan import find_closer, is_proper_prefix, partial_marker_start
from toolmend.model import Tool, ToolCall
from toolmend.protocols.base import declare_tools
from toolmend.protocols.toolname_tags import ToolTagReader, ToolTagSyntax
from toolmend.schema_gate import schema_types
from toolmend.textvalue import NOT_READ, read_as, typed_value
from toolmend.xmltext import CDATA_CLOSE, CDATA_OPEN, unwrap_cdata

#: Spaces or tabs before a closer on its own line that count as layout (the closer's indent).
#: Bounds what a streaming string holds back while it cannot tell layout from value.
MAX_LAYOUT_INDENT = 64
#: Nesting depth of array/object values decoded; deeper markup is rejected, so a hostile value
#: cannot make decoding quadratic or exhaust the stack.
MAX_VALUE_DEPTH = 32

ITEM = "item"

_PARAM_TAG = re.compile(r"<([A-Za-z_][\w.:-]*)[ \t]*(/?)>")
_CLOSE_TAG = re.compile(r"</([A-Za-z_][\w.:-]*)[ \t]*>")
_TRAILING_LAYOUT = re.compile(rf"\r?\n[ \t]{{0,{MAX_LAYOUT_INDENT}}}\Z")
_WS = " \t\r\n"
#: In a chunk of a raw string value, a line break that cannot be layout before the closer:
#: value text (not indentation, not a `<` that might open the closer) follows it inside the
#: chunk. So whether it is text is decided by characters present: a prefix of a chunk that
#: matches is value text whatever comes after it.
_INNER_LINE_BREAK = r"\r?\n[ \t]*(?=[^ \t\r\n<])"
#: For the fast path, a line break is plain only as an inner one; other layout waits for what
#: follows it (it may be trimmed before the closer).
_LINE_BREAKS = Escapes(("\r", "\n"), _INNER_LINE_BREAK)


# ------------------------------------------------------------------------- value decoding


def is_raw_string(schema: Any) -> bool:
    """A parameter read as raw text: string-typed and neither array nor object."""
    types = schema_types(schema)
    return "string" in types and not types & {"array", "object"}


def decode_string(raw: str) -> tuple[str, str | None]:
    """A string value from its raw inner text: layout newlines off, CDATA sections unwrapped."""
    if raw.startswith("\r\n"):
        raw = raw[2:]
    elif raw.startswith("\n"):
        raw = raw[1:]
    if not raw.startswith(CDATA_OPEN):
        return _TRAILING_LAYOUT.sub("", raw, count=1), None
    return unwrap_cdata(raw)


def _raw_end(text: str, start: int, closer: str) -> int:
    """Where a string element whose content starts at `start` closes (CDATA content skipped)."""
    p = start + (2 if text.startswith("\r\n", start) else 1 if text.startswith("\n", start) else 0)
    while text.startswith(CDATA_OPEN, p):
        q = text.find(CDATA_CLOSE, p + len(CDATA_OPEN))
        if q < 0:
            break
        p = q + len(CDATA_CLOSE)
    return text.find(closer, p)


def _nested_end(text: str, start: int, name: str) -> int:
    """Where a structured element named `name` closes, counting nested same-name elements.

    One left-to-right pass over the tags of that name, so deep nesting stays linear.
    """
    depth = 0
    for m in re.finditer(f"<(/?){re.escape(name)}>", text[start:]):
        if not m.group(1):
            depth += 1
        elif depth:
            depth -= 1
        else:
            return start + m.start()
    return -1


def split_elements(text: str, is_raw: Callable[[str], bool]) -> list[tuple[str, str]] | None:
    """`text` as a sequence of `<tag>inner</tag>` / `<tag/>` elements, or None if it is not.

    An element for which `is_raw(tag)` holds is raw text up to its first closer; any other
    counts nested elements of the same name.
    """
    out: list[tuple[str, str]] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i] in _WS:
            i += 1
        if i == n:
            return out
        m = _PARAM_TAG.match(text, i)
        if m is None:
            return None
        name = m.group(1)
        if m.group(2):
            out.append((name, ""))
            i = m.end()
            continue
        closer = f"</{name}>"
        j = _raw_end(text, m.end(), closer) if is_raw(name) else _nested_end(text, m.end(), name)
        if j < 0:
            return None
        out.append((name, text[m.end() : j]))
        i = j + len(closer)


def _scalar(text: str, types: set[str]) -> Any:
    """A number, boolean or null written as tag text (an empty tag is null when null is
    declared); the trimmed text when none fits."""
    s = text.strip(_WS)
    if "null" in types and not s:
        return None
    return typed_value(s, frozenset(types))


class ValueError_(Exception):
    """A value that cannot be what its schema asks (the message is the call's error)."""


def decode_value(raw: str, schema: Any, where: str, depth: int = 0) -> Any:
    """The value of one element from its raw inner text, typed by `schema`."""
    if depth > MAX_VALUE_DEPTH:
        raise ValueError_(f"{where}: nested deeper than {MAX_VALUE_DEPTH} levels")
    types = schema_types(schema)
    if is_raw_string(schema):
        value, error = decode_string(raw)
        if error is not None:
            raise ValueError_(f"{where}: {error}")
        return value
    if "array" in types:
        return _decode_array([raw], schema, where, depth)
    if "object" in types:
        return _decode_object(raw, schema, where, depth)
    if types:
        return _scalar(raw, types)
    # No type declared: child tags are structure, anything else a string.
    elements = split_elements(raw, _never)
    if elements:
        if all(name == ITEM for name, _ in elements):
            return [decode_value(inner, None, where, depth + 1) for _, inner in elements]
        return _decode_object(raw, {}, where, depth)
    value, error = decode_string(raw)
    if error is not None:
        raise ValueError_(f"{where}: {error}")
    return value


def _items_schema(schema: Any) -> Any:
    items = schema.get("items") if isinstance(schema, dict) else None
    return items if isinstance(items, dict) else None


def _decode_array(occurrences: list[str], schema: Any, where: str, depth: int) -> list[Any]:
    """An array from its tag's occurrences: one holding `<item>`s (or JSON), or one per element."""
    items = _items_schema(schema)
    if len(occurrences) > 1:
        return [
            decode_value(r, items, f"{where}[{i}]", depth + 1) for i, r in enumerate(occurrences)
        ]
    raw = occurrences[0]
    raw_items = is_raw_string(items)
    elements = split_elements(raw, lambda _: raw_items)
    if elements is not None:
        if not elements:
            return []
        if all(name == ITEM for name, _ in elements):
            return [
                decode_value(inner, items, f"{where}[{i}]", depth + 1)
                for i, (_, inner) in enumerate(elements)
            ]
    listed = read_as(raw, "array")
    if listed is not NOT_READ:
        return list(listed)
    # One element written as the repeated parameter tag, once.
    return [decode_value(raw, items, f"{where}[0]", depth + 1)]


#: The wrapper Roo Code writes around a call's parameters (`<read_file><args>…</args>`).
ARGS_WRAPPER = "args"


def declared_name(schema: Any, name: str) -> str:
    """The property a tag `name` stands for: itself, or its plural when only that is declared
    as an array (Roo Code's `<file>` element of `files`)."""
    props = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(props, dict) or name in props:
        return name
    plural = props.get(name + "s")
    return name + "s" if "array" in schema_types(plural) else name


def _property_schema(schema: Any, name: str) -> Any:
    """The subschema of property `name` of an object schema (None when it has none)."""
    if not isinstance(schema, dict):
        return None
    props = schema.get("properties")
    if isinstance(props, dict) and isinstance(props.get(name), dict):
        return props[name]
    extra = schema.get("additionalProperties")
    return extra if isinstance(extra, dict) else None


def _never(_: str) -> bool:
    return False


def _decode_object(raw: str, schema: Any, where: str, depth: int) -> dict[str, Any]:
    elements = split_elements(raw, lambda name: is_raw_string(_property_schema(schema, name)))
    if elements is None:
        mapping = read_as(raw, "object")
        if mapping is NOT_READ:
            raise ValueError_(f"{where}: an object must be written as child tags")
        return dict(mapping)
    grouped: dict[str, list[str]] = {}
    for name, inner in elements:
        grouped.setdefault(declared_name(schema, name), []).append(inner)
    out: dict[str, Any] = {}
    for name, raws in grouped.items():
        sub = _property_schema(schema, name)
        path = f"{where}.{name}"
        if "array" in schema_types(sub):
            out[name] = _decode_array(raws, sub, path, depth + 1)
        elif len(raws) > 1:
            raise ValueError_(f"{path}: given {len(raws)} times")
        else:
            out[name] = decode_value(raws[0], sub, path, depth + 1)
    return out


# ------------------------------------------------------------------------------- rendering


def render_string(value: str, closer: str) -> str:
    """A string as raw inner text that `decode_string` gives back exactly."""
    if closer in value or value.startswith(CDATA_OPEN) or value.endswith("\r"):
        return CDATA_OPEN + value.replace(CDATA_CLOSE, "]]]]><![CDATA[>") + CDATA_CLOSE
    if "\n" in value or "\r" in value:
        return f"\n{value}\n"
    return value


def render_value(key: str, value: Any, indent: str = "") -> str:
    """One element `<key>...</key>` for a JSON value."""
    closer = f"</{key}>"
    if isinstance(value, str):
        return f"{indent}<{key}>{render_string(value, closer)}{closer}"
    if isinstance(value, list):
        inner = "".join(f"\n{render_value(ITEM, v, indent + '  ')}" for v in value)
    elif isinstance(value, dict):
        inner = "".join(f"\n{render_value(k, v, indent + '  ')}" for k, v in value.items())
    else:
        return f"{indent}<{key}>{json.dumps(value)}{closer}"
    return f"{indent}<{key}>{inner}\n{indent}{closer}" if inner else f"{indent}<{key}>{closer}"


# --------------------------------------------------------------------------------- protocol


class MorphXmlProtocol(ToolTagSyntax):
    id = "morph-xml"
    aliases = ("xml",)
    summary = "XML tags named after the tool and its parameters: <tool><param>v</param></tool>"

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        return MorphXmlReader(marker, ctx)

    def render_tools(self, tools: Sequence[Tool]) -> str:
        return (
            declare_tools(tools)
            + "To call a function, write a tag named after it holding one tag per argument, "
            "named after the argument:\n"
            "<get_weather>\n<city>Paris</city>\n<days>3</days>\n</get_weather>\n\n"
            "Write text arguments as they are, code included (no escaping). Write a list as "
            "<item> tags inside the argument's tag, an object as one tag per field, and a call "
            "without arguments as <function-name/>. Write one block per call."
        )

    def render_call(self, call: ToolCall) -> str:
        if not call.arguments:
            return f"<{call.name}/>"
        body = "\n".join(render_value(k, v) for k, v in call.arguments.items())
        return f"<{call.name}>\n{body}\n</{call.name}>"


# ----------------------------------------------------------------------------------- reader

_BODY, _VALUE = 0, 1
_LEAD, _RAW, _CDATA, _AFTER_CDATA, _TAIL, _COLLECT = range(6)


class _Value:
    """The parameter being read: its raw inner text, and how much of it was streamed."""

    __slots__ = ("closer", "depth", "key", "mode", "raw", "schema", "sent", "streaming")

    def __init__(self, key: str, schema: Any, tag: str) -> None:
        self.key = key
        self.schema = schema
        self.closer = f"</{tag}>"
        self.raw: list[str] = []
        # A string decides at its first characters whether it is raw text or CDATA (_LEAD).
        self.mode = _LEAD if is_raw_string(schema) else _COLLECT
        self.streaming = False
        self.sent: list[str] = []  # the pieces of the decoded value already streamed
        self.depth = 0  # nested elements of the same name open inside a structured value


class MorphXmlReader(ToolTagReader):
    """Reads one morph-xml call body: parameter tags up to `</tool_name>`."""

    def __init__(self, marker: str, ctx: BlockContext) -> None:
        super().__init__(marker, ctx)
        self.state = _BODY
        self.value: _Value | None = None
        self.values: dict[str, Any] = {}  # decoded arguments in first-occurrence order
        self.arrays: dict[str, list[str]] = {}  # raw occurrences of array parameters
        self.pending: str | None = None  # the array parameter read last: it may repeat
        self.error: str | None = None
        self.stopped = False  # the block ended or reverted during this step
        self.in_args = False  # inside Roo Code's `<args>` wrapper

    def _schema_of(self, key: str) -> Any:
        tool = self.ctx.current_tool
        return _property_schema(tool.parameters, key) if tool is not None else None

    def _fail(self, message: str) -> None:
        if self.error is None:
            self.error = message
        self.ctx.args.halt()

    # -- between parameters

    def body_step(self, buf: str, pos: int, end: int, final: bool) -> int:
        while pos < end and not self.stopped:
            if self.state == _VALUE:
                pos = self._value_step(buf, pos, end, final)
                if self.state == _VALUE:
                    return pos
                continue
            start = pos
            while pos < end and buf[pos] in _WS:
                pos += 1
            if pos > start and not self.begun:
                self.consumed.append(buf[start:pos])
            if pos == end:
                break
            if buf[pos] != "<":
                if not self.begun:
                    self.not_a_call()  # prose after a tool name in angle brackets
                    return pos
                nxt = buf.find("<", pos, end)
                self._fail("text between parameter tags")
                pos = end if nxt < 0 else nxt
                continue
            gt = buf.find(">", pos, min(end, pos + MAX_TAG_LENGTH))
            if gt < 0:
                if end - pos < MAX_TAG_LENGTH:
                    if final:
                        self.tail = buf[pos:end]
                    return pos  # the tag may still close
                if not self.begun:
                    self.not_a_call()
                    return pos
                self._fail("a '<' between parameters that starts no tag")
                pos += 1
                continue
            pos = self._tag(buf[pos : gt + 1], pos, gt + 1)
        if final:
            self.tail = ""
        return pos

    def _tag(self, tag: str, at: int, after: int) -> int:
        """A complete tag between parameters at `at`; returns the position to go on from."""
        close = _CLOSE_TAG.fullmatch(tag)
        if close is not None and close.group(1) == self.name:
            self._flush_pending()
            self.stopped = True
            return self.finish_call(self._settled(), after, self.error)
        if close is not None and close.group(1) == ARGS_WRAPPER and self.in_args:
            self.in_args = False
            return after
        param = _PARAM_TAG.fullmatch(tag)
        if param is None or not self.begin():
            if not self.begun:
                self.stopped = True
                self.not_a_call()
                return at
            self._fail("a malformed tag between parameters")
            return after
        written = param.group(1)
        tool = self.ctx.current_tool
        schema = tool.parameters if tool is not None else None
        wrapper = written == ARGS_WRAPPER and not param.group(2) and not self.in_args
        if wrapper and tool is not None and self._schema_of(ARGS_WRAPPER) is None:
            self.in_args = True  # Roo Code's wrapper: its children are the parameters
            return after
        key = declared_name(schema, written)
        if self.pending is not None and key != self.pending:
            self._flush_pending()
        self.value = _Value(key, self._schema_of(key), written)
        self.state = _VALUE
        if param.group(2):  # <key/>: an empty value
            self._close_value()
        return after

    # -- inside a parameter

    def _value_step(self, buf: str, pos: int, end: int, final: bool) -> int:
        v = self.value
        assert v is not None
        if v.mode == _COLLECT:
            return self._collect_step(v, buf, pos, end, final)
        while True:
            if v.mode == _LEAD:
                pos = self._decide_lead(v, buf, pos, end, final)
                if v.mode == _LEAD:
                    break
            if v.mode == _CDATA:  # inside a section only `]]>` counts, never the closer
                at, closed = find_closer(buf, pos, end, (CDATA_CLOSE,))
                if not closed:
                    self._take(v, buf[pos:at])
                    pos = at
                    break
                self._take(v, buf[pos:at])
                v.raw.append(CDATA_CLOSE)
                pos = at + len(CDATA_CLOSE)
                v.mode = _AFTER_CDATA
                continue
            stop, closed = find_closer(buf, pos, end, (v.closer,))
            if v.mode == _AFTER_CDATA:
                if buf.startswith(CDATA_OPEN, pos, end):
                    v.raw.append(CDATA_OPEN)
                    pos += len(CDATA_OPEN)
                    v.mode = _CDATA
                    continue
                rest = buf[pos : pos + len(CDATA_OPEN)]
                if not closed and not final and CDATA_OPEN.startswith(rest):
                    break  # another section may begin
                v.mode = _TAIL  # layout before the closer (or text the decoder refuses)
            if closed:
                v.raw.append(buf[pos:stop])
                self._close_value()
                return stop + len(v.closer)
            hold = _layout_hold(buf, pos, stop) if v.mode == _RAW else stop
            if v.mode == _RAW:
                self._take(v, buf[pos:hold])
            else:
                v.raw.append(buf[pos:hold])
            pos = hold
            break
        if final:
            self.tail = buf[pos:end]
        return pos

    def _decide_lead(self, v: _Value, buf: str, pos: int, end: int, final: bool) -> int:
        """At a string's start: drop a layout newline, and tell raw text from CDATA."""
        lead = 2 if buf.startswith("\r\n", pos, end) else int(buf.startswith("\n", pos, end))
        if lead == 0 and end - pos == 1 and buf[pos] == "\r" and not final:
            return pos  # "\r\n" or not: undecided
        rest = buf[pos + lead : pos + lead + len(CDATA_OPEN)]
        if is_proper_prefix(rest, (CDATA_OPEN,)) and not final:
            return pos  # a CDATA section may begin
        v.raw.append(buf[pos : pos + lead])
        pos += lead
        v.mode = _RAW
        if rest == CDATA_OPEN:
            v.raw.append(CDATA_OPEN)
            pos += len(CDATA_OPEN)
            v.mode = _CDATA
        v.streaming = v.key not in self.values and self.ctx.args.open_string(v.key)
        if v.streaming and v.mode == _RAW:
            # A whole chunk that is value text as written (no closer can begin in it, no layout
            # newline can end it): the parser's plain-text run streams it directly.
            text = ValueText((v.closer,), _LINE_BREAKS, trailing=" \t\r\n")
            self.ctx.stream_value(text, raw=(v.raw, v.sent))
        return pos

    def _collect_step(self, v: _Value, buf: str, pos: int, end: int, final: bool) -> int:
        """A structured or typed value: its raw text up to the closer matching its tag."""
        opener = "<" + v.closer[2:]  # the tag as written (`<file>` of `files`)
        while True:
            at, closed = find_closer(buf, pos, end, (v.closer,))
            nested = buf.find(opener, pos, at)
            if nested >= 0:
                v.depth += 1
                v.raw.append(buf[pos : nested + len(opener)])
                pos = nested + len(opener)
            elif not closed:
                stop = partial_marker_start(buf, pos, end, (opener, v.closer))
                v.raw.append(buf[pos:stop])
                if final:
                    self.tail = buf[stop:end]
                return stop
            elif v.depth:
                v.depth -= 1
                v.raw.append(buf[pos : at + len(v.closer)])
                pos = at + len(v.closer)
            else:
                v.raw.append(buf[pos:at])
                self._close_value()
                return at + len(v.closer)

    def _take(self, v: _Value, text: str) -> None:
        """Raw string text that is value text as written: kept, and streamed if streaming."""
        if text:
            v.raw.append(text)
            if v.streaming:
                v.sent.append(text)
                self.ctx.args.string_chunk(text)

    def _close_value(self) -> None:
        v = self.value
        assert v is not None
        if v.streaming:
            self.ctx.stop_value()
        self.value = None
        self.state = _BODY
        raw = "".join(v.raw)
        key = v.key
        if "array" in schema_types(v.schema):
            if key in self.arrays and self.pending != key:
                self._fail(duplicate_key_error(key))
                return
            self.arrays.setdefault(key, []).append(raw)
            self.values.setdefault(key, None)
            self.pending = key
            return
        if key in self.values:
            self._fail(duplicate_key_error(key))
            return
        try:
            value = decode_value(raw, v.schema, key)
        except ValueError_ as exc:
            self.values[key] = decode_string(raw)[0] if v.streaming else raw
            self._fail(str(exc))
            return
        args = self.ctx.args
        if v.streaming:
            args.string_chunk(value[sum(map(len, v.sent)) :])
            args.close_string()
        else:
            args.put(key, value)
        self.values[key] = value

    def _flush_pending(self) -> None:
        key = self.pending
        if key is None:
            return
        self.pending = None
        try:
            value = _decode_array(self.arrays[key], self._schema_of(key), key, 0)
        except ValueError_ as exc:
            del self.values[key]
            self._fail(str(exc))
            return
        self.values[key] = value
        self.ctx.args.put(key, value)

    # -- end of stream

    def body_verdict(self) -> EofVerdict:
        if not self.begun:
            # An empty body is complete only with (a prefix of) its closer after it (R3).
            closing = self.tail and self.closer.startswith(self.tail)
            if self.state == _BODY and closing and self.begin():
                return EofVerdict(recoverable=True, arguments={})
            return EofVerdict(
                recoverable=False,
                name=self.name,
                reason="the call was cut off before its first parameter",
            )
        if self.state == _VALUE:
            return EofVerdict(recoverable=False, arguments=self._best_effort())
        self._flush_pending()
        if self.error is not None:
            return EofVerdict(recoverable=False, arguments=self._settled(), reason=self.error)
        return EofVerdict(recoverable=self.closer.startswith(self.tail), arguments=self._settled())

    def _settled(self) -> dict[str, Any]:
        """The arguments read so far (array parameters still pending are left out)."""
        return {k: v for k, v in self.values.items() if k not in self.arrays or v is not None}

    def _best_effort(self) -> dict[str, Any]:
        args = self._settled()
        v = self.value
        if v is not None and v.key not in args and v.mode != _COLLECT and v.mode != _LEAD:
            args[v.key] = decode_string("".join(v.raw))[0]
        return args


def _layout_hold(buf: str, pos: int, stop: int) -> int:
    """Where text that may still be trailing layout (`\\r?\\n` + indent, or a `\\r`) begins."""
    lo = max(pos, stop - MAX_LAYOUT_INDENT - 1)
    nl = buf.rfind("\n", lo, stop)
    if nl >= 0 and not buf[nl + 1 : stop].strip(" \t"):
        return nl - 1 if nl > pos and buf[nl - 1] == "\r" else nl
    if stop > pos and buf[stop - 1] == "\r":
        return stop - 1
    return stop


PROTOCOL = MorphXmlProtocol()
