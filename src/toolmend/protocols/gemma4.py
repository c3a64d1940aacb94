"""Gemma 4: `<|tool_call>call:NAME{key:<|"|>text<|"|>,n:1}<tool_call|>`, `<|tool_response>`.

The native tool-call format of Google's Gemma 4 models (their special tokens written out as
text). A block holds one call, or several written back to back (`call:a{..}call:b{..}`); several
blocks are parallel calls. `<turn|>` (end of turn) also ends a block, and a block whose arguments
closed needs no terminator at all (the next `<|tool_call>`, text, or the end of the stream ends
it). Stray `<tool_call|>` and `<|tool_response>` tokens right after a call are markup, not text.
Some Gemma 4 builds write Python-style arguments, `call:NAME(key="v", n=1)`; they are read too.
When the model drops its `<|tool_call>` opener, a bare `call:NAME{…}` first in the visible
output (only reasoning and blanks before it) is read as a block when NAME is a declared tool.

A terminator inside an open `<|"|>` string is text of that string (as in Ollama's parser: the
delimiter may hold anything but itself). When such a string is never closed, the call is read
as if it had ended at that terminator (the model forgot the closing `<|"|>`), and the text after
it belongs to the call. String arguments of the top-level object stream while they are written;
a trailing `}`, `]` or whitespace is held back until it is known to be text, because the repair
of a forgotten `<|"|>` reads it as structure.

FunctionGemma writes the same blocks with other tokens (`functiongemma`): the reader and the
renderers here take a `GemmaMarkup`, Gemma 4's by default. The argument language itself (and
its repairs) lives in `gemma4_args`. This module never
validates arguments (the schema gate does) and never reads `<|channel>thought` reasoning (the
parser keeps it apart: `reasoning_spans`).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolmend.core.fastpath import ValueRun, ValueText
from toolmend.core.reader import (
    MAX_TAG_LENGTH,
    Anchor,
    BlockContext,
    BlockReader,
    EofVerdict,
    ReasoningSpan,
)
from toolmend.core.textscan import skip_blanks
from toolmend.jsontext import as_json_data
from toolmend.model import Tool, ToolCall
from toolmend.names import ToolResolver
from toolmend.protocols.base import TextProtocol, carried_raw, inert_closers
from toolmend.protocols.gemma4_args import (
    GEMMA4,
    STRING_DELIMITER,
    GemmaArguments,
    GemmaDialect,
    decode_arguments,
)
from toolmend.schema_gate import Policy, declared_types

OPEN = "<|tool_call>"
RESPONSE_OPEN = "<|tool_response>"
RESPONSE_CLOSE = "<tool_response|>"
DECLARATION_OPEN = "<|tool>"
DECLARATION_CLOSE = "<tool|>"
CALL_PREFIX = "call:"
#: Whitespace between a call and what may follow it (a terminator, another `call:`) is held
#: while undecided; past this many characters it is text, so holding it stays bounded.
MAX_GAP = 64
#: Python-style arguments are parsed with `ast` (a syntax tree per call): only up to this size.
MAX_PYTHON_ARGUMENTS = 64 * 1024

_NAME = r"[^\s{}()\[\],<>\"'|:]+"
#: A call's header. A stray `:` may stand before `call:` (`<|tool_call>:call:bash{…}`, a
#: Gemma 4 output vLLM's tests hold): it is markup of the header.
_HEADER = re.compile(rf"[ \t\r\n]*:?call:[ \t]*({_NAME})[ \t]*([{{(])")
_HEADER_PREFIX = re.compile(rf"[ \t\r\n]*:?(?:c|ca|cal|call|call:[ \t]*(?:{_NAME}[ \t]*)?)?")
_HEADER_NAME = re.compile(rf"[ \t\r\n]*:?call:[ \t]*({_NAME})")
#: The same three after a bare `call:` (the block's marker: its `<|tool_call>` was dropped).
_BARE_HEADERS = (
    re.compile(rf"[ \t]*({_NAME})[ \t]*([{{(])"),
    re.compile(rf"[ \t]*(?:{_NAME}[ \t]*)?"),
    re.compile(rf"[ \t]*({_NAME})"),
)
_HEADERS = (_HEADER, _HEADER_PREFIX, _HEADER_NAME)
_BARE_KEY = re.compile(r"\w+")
#: What a string's streamed text holds back at its end (the trailing run of these characters):
#: the repair of a forgotten `<|"|>` reads a final `}` or `]`, and the whitespace around it, as
#: structure.
_HELD = "}] \t\r\n"


@dataclass(frozen=True)
class GemmaMarkup:
    """The tokens of one Gemma family's call blocks, declarations and results."""

    #: What opens a call block.
    open: str
    #: The string delimiter and the call terminators.
    dialect: GemmaDialect
    response_open: str
    response_close: str
    declaration_open: str
    declaration_close: str
    #: Tokens right after a call that are markup, not text: the terminators and a stray
    #: result opener (a stop sequence the engine may let through).
    noise: tuple[str, ...] = field(init=False)
    #: How a string is written, for the fast path: it ends at the delimiter or a terminator,
    #: and its trailing structure and blanks are held back from the argument stream.
    string_text: ValueText = field(init=False)
    #: The tokens Python-style arguments are read by.
    paren_search: re.Pattern[str] = field(init=False)

    def __post_init__(self) -> None:
        ends = self.dialect.terminators
        object.__setattr__(self, "noise", (*ends, self.response_open))
        object.__setattr__(self, "string_text", ValueText(self.dialect.stops, hold=_HELD))
        search = re.compile(r"[()\[\]{}\"'\\]|" + "|".join(re.escape(t) for t in ends))
        object.__setattr__(self, "paren_search", search)


GEMMA4_MARKUP = GemmaMarkup(
    OPEN, GEMMA4, RESPONSE_OPEN, RESPONSE_CLOSE, DECLARATION_OPEN, DECLARATION_CLOSE
)

_HEADER_STATE, _ARGS, _PAREN, _AFTER, _AFTER_CLOSE = range(5)


def _property_names(tool: Tool | None) -> tuple[list[str], list[str]]:
    """(string-typed top-level properties, all top-level properties) of a tool's schema."""
    props = tool.parameters.get("properties") if tool is not None else None
    if not isinstance(props, dict):
        return [], []
    return [k for k, v in props.items() if "string" in (declared_types(v) or ())], list(props)


class _CallArguments(GemmaArguments):
    """The argument object of one call, streaming its top-level values through `ctx.args`."""

    def __init__(self, ctx: BlockContext, markup: GemmaMarkup) -> None:
        super().__init__(allow_repair=ctx.policy is Policy.LENIENT, dialect=markup.dialect)
        self.ctx = ctx
        self.markup = markup
        self.done_args: dict[str, Any] = {}  # top-level values complete so far
        self.partial_key: str | None = None  # the key of the open top-level string
        self.streaming = False
        # While a string streams: its fast-path run, which also keeps the string's trailing
        # `}`/`]`/whitespace that is not streamed yet (`held`).
        self.run: ValueRun | None = None

    def on_string_open(self, key: str) -> None:
        self.partial_key = key
        self.streaming = self.ctx.args.open_string(key)
        if self.streaming:
            self.run = self.ctx.stream_value(self.markup.string_text, raw=(self.raw,))

    def on_string_text(self, text: str) -> None:
        if not self.streaming:
            return
        run = self.run
        assert run is not None
        kept = text.rstrip(_HELD)
        if kept:
            self.ctx.args.string_chunk(run.held + kept)
            run.held = text[len(kept) :]
        else:
            run.held += text

    def _stop_streaming(self) -> None:
        self.ctx.stop_value()
        self.streaming = False

    def on_string_terminator(self) -> None:
        if self.streaming:
            self._stop_streaming()
            self.ctx.args.halt()

    def on_value(self, key: str, value: Any, streamed: bool) -> None:
        self.done_args[key] = value
        if streamed and key == self.partial_key:
            self.partial_key = None
            if self.streaming and self.run is not None:
                self.ctx.args.string_chunk(self.run.held)
                self.ctx.args.close_string()
                self._stop_streaming()
            return
        self.ctx.args.put(key, value)

    def on_bare_word(self) -> None:
        self.ctx.args.halt()

    def on_broken(self) -> None:
        self.ctx.args.halt()

    def best_effort(self) -> dict[str, Any]:
        args = dict(self.done_args)
        if self.partial_key is not None and self.partial_key not in args:
            args[self.partial_key] = self.string_text()
        return args


def decode_python_arguments(inner: str) -> tuple[dict[str, Any] | None, str | None]:
    """Keyword arguments written as a Python call's (`key="v", n=1`), as JSON values."""
    if len(inner) > MAX_PYTHON_ARGUMENTS:
        return None, f"Python-style arguments longer than {MAX_PYTHON_ARGUMENTS} characters"
    try:
        tree = ast.parse(f"f({inner})", mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None, "the Python-style arguments do not parse"
    call = tree.body
    if not isinstance(call, ast.Call) or call.args or any(k.arg is None for k in call.keywords):
        return None, "Python-style arguments must all be keyword arguments"
    out: dict[str, Any] = {}
    for keyword in call.keywords:
        try:
            out[str(keyword.arg)] = as_json_data(ast.literal_eval(keyword.value))
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            return None, f"argument {keyword.arg!r} is not a literal value"
    return out, None


class Gemma4Reader(BlockReader):
    """Reads one `<|tool_call>` block: one or more `call:NAME{...}` and an optional terminator."""

    def __init__(
        self, ctx: BlockContext, markup: GemmaMarkup = GEMMA4_MARKUP, *, bare: bool = False
    ) -> None:
        self.ctx = ctx
        self.markup = markup
        #: Opened by a bare `call:` at the output's start (the model dropped `<|tool_call>`):
        #: its first header lacks `call:`, and it is a call only of a declared tool.
        self.bare = bare
        self.terminators = markup.dialect.terminators
        self.state = _HEADER_STATE
        self.calls = 0  # calls begun in this block
        self.args: _CallArguments | None = None
        self.paren: list[str] = []  # raw Python-style arguments
        self.paren_stack: list[str] = []
        self.paren_quote = ""
        self.header_name: str | None = None  # for a header cut off by the end of the stream

    # ---------------------------------------------------------------------------- BlockReader

    def step(self, buf: str, pos: int, end: int, final: bool) -> int:
        while True:
            state = self.state
            if state == _ARGS:
                new_pos, more = self._arguments(buf, pos, end, final)
            elif state == _HEADER_STATE:
                new_pos, more = self._header(buf, pos, end, final)
            elif state == _PAREN:
                new_pos, more = self._python_arguments(buf, pos, end, final)
            else:
                new_pos, more = self._after(buf, pos, end, final)
            if not more:
                return new_pos
            pos = new_pos

    def at_eof(self) -> EofVerdict:
        if self.state == _HEADER_STATE:
            return EofVerdict(recoverable=False, name=self.header_name)
        if self.state == _ARGS and self.args is not None:
            scan = self.args
            if scan.in_string and scan.ignored_close_at >= 0:
                # A `<|"|>` never closed, but a terminator came: the call ended there.
                decoded = self._decode(scan.raw_text()[: scan.ignored_close_at])
                if decoded.arguments is not None:
                    return EofVerdict(recoverable=True, arguments=decoded.arguments)
            return EofVerdict(recoverable=False, arguments=scan.best_effort())
        if self.state == _PAREN:
            return EofVerdict(recoverable=False)
        return EofVerdict(recoverable=True)

    # ----------------------------------------------------------------------------- the header

    def _header(self, buf: str, pos: int, end: int, final: bool) -> tuple[int, bool]:
        bare = self.bare and self.calls == 0
        if bare and self.ctx.resolver.accepts_any:
            return self._not_a_call(pos)  # no tools: a bare call would have to be the whole output
        header, header_prefix, header_name = _BARE_HEADERS if bare else _HEADERS
        # A header longer than `MAX_TAG_LENGTH` is not one, however much of it is there.
        m = header.match(buf, pos, min(end, pos + MAX_TAG_LENGTH))
        if m is None:
            seg = buf[pos : min(end, pos + MAX_TAG_LENGTH)]
            rest = seg.lstrip(" \t\r\n")
            terminators = self.terminators
            if self.calls == 0 and rest and any(rest.startswith(t) for t in terminators):
                stop = (
                    pos
                    + len(seg)
                    - len(rest)
                    + len(next(t for t in terminators if rest.startswith(t)))
                )
                self.ctx.end_block()  # an empty block: markup without a call
                return stop, False
            undecided = header_prefix.fullmatch(seg) is not None or (
                self.calls == 0 and any(t.startswith(rest) for t in terminators)
            )
            if undecided and not final and end - pos < MAX_TAG_LENGTH:
                named = header_name.match(seg)
                self.header_name = named.group(1) if named else None
                return pos, False
            if final and undecided:
                named = header_name.match(seg)
                self.header_name = named.group(1) if named else None
                return end, False
            return self._not_a_call(pos)
        name, opener = m.group(1), m.group(2)
        if bare and self.ctx.resolver.resolve(name) is None:
            return self._not_a_call(pos)
        if not self.ctx.begin_call(name):
            return self._not_a_call(pos)
        self.calls += 1
        self.header_name = None
        if opener == "{":
            self.args = _CallArguments(self.ctx, self.markup)
            self.state = _ARGS
            return m.end() - 1, True
        self.ctx.args.halt()
        self.paren, self.paren_stack, self.paren_quote = [], [], ""
        self.state = _PAREN
        return m.end(), True

    def _not_a_call(self, pos: int) -> tuple[int, bool]:
        """What follows is no call of a declared tool: it is text again."""
        if self.calls == 0:
            self.ctx.revert("", rescan=False)
        else:
            self.ctx.end_block()
        return pos, False

    # -------------------------------------------------------------------------- the arguments

    def _decode(self, raw: str) -> Any:
        string_keys, known = _property_names(self.ctx.current_tool)
        return decode_arguments(
            raw,
            string_keys=string_keys,
            known_keys=known,
            allow_repair=self.ctx.policy is Policy.LENIENT,
            dialect=self.markup.dialect,
        )

    def _arguments(self, buf: str, pos: int, end: int, final: bool) -> tuple[int, bool]:
        scan = self.args
        assert scan is not None
        new_pos, stop = scan.scan(buf, pos, end, final)
        if scan.done:
            if scan.error is None:
                assert scan.value is not None
                self.ctx.end_call(scan.value, at=new_pos, repairs=scan.repairs)
            else:
                self._end_repaired(scan, new_pos)
            self.state = _AFTER
            return new_pos, True
        if stop is not None:
            self._end_repaired(scan, new_pos)
            self.state = _AFTER_CLOSE
            return new_pos + len(stop), True
        return new_pos, False

    def _end_repaired(self, scan: _CallArguments, at: int) -> None:
        """The call's text ended with its arguments malformed: repair or end it incomplete."""
        decoded = self._decode(scan.raw_text())
        if decoded.arguments is not None:
            self.ctx.end_call(decoded.arguments, at=at, repairs=decoded.repairs)
        else:
            self.ctx.end_call(scan.best_effort(), at=at, error=decoded.error)

    def _python_arguments(self, buf: str, pos: int, end: int, final: bool) -> tuple[int, bool]:
        """`call:NAME(key="v", n=1)`: up to the matching `)` outside quotes."""
        while True:
            m = self.markup.paren_search.search(buf, pos, end)
            if m is None:
                self.paren.append(buf[pos:end])
                return end, False
            tok = m.group()
            i = m.start()
            if tok in self.terminators and not self.paren_quote:
                self.paren.append(buf[pos:i])
                self.ctx.end_call({}, at=i, error="the Python-style arguments are not closed")
                self.state = _AFTER_CLOSE
                return i + len(tok), True
            if tok == "\\":
                if m.end() >= end and not final:
                    self.paren.append(buf[pos:i])
                    return i, False
                stop = min(i + 2, end)
                self.paren.append(buf[pos:stop])
                pos = stop
                continue
            self.paren.append(buf[pos : m.end()])
            pos = m.end()
            if self.paren_quote:
                if tok == self.paren_quote:
                    self.paren_quote = ""
            elif tok in "\"'":
                self.paren_quote = tok
            elif tok in "([{":
                self.paren_stack.append(tok)
            elif self.paren_stack:
                self.paren_stack.pop()
            elif tok == ")":
                inner = "".join(self.paren)[:-1]
                arguments, error = decode_python_arguments(inner)
                if arguments is None:
                    self.ctx.end_call({}, at=pos, error=error)
                else:
                    self.ctx.end_call(arguments, at=pos, repairs=["python-arguments"])
                self.state = _AFTER
                return pos, True

    # ---------------------------------------------------------------------- after the call

    def _after(self, buf: str, pos: int, end: int, final: bool) -> tuple[int, bool]:
        """After a call: its terminator, post-call noise, another `call:`, or the block's end."""
        closed = self.state == _AFTER_CLOSE
        i = skip_blanks(buf, pos, end)
        if i - pos > MAX_GAP:
            return self._end(pos)
        noise = self.markup.noise
        rest = buf[i : min(end, i + max(map(len, (*noise, self.markup.open))))]
        for marker in noise:
            if rest.startswith(marker):
                self.state = _AFTER_CLOSE
                return i + len(marker), True
        if not closed and rest.startswith(CALL_PREFIX):
            self.state = _HEADER_STATE
            return i, True
        candidates = (
            (*noise, self.markup.open) if closed else (*noise, self.markup.open, CALL_PREFIX)
        )
        if rest == "" or any(m.startswith(rest) and m != rest for m in candidates):
            if not final:
                return pos, False
            if rest and any(m.startswith(rest) for m in noise):
                return self._end(end)  # a cut-off terminator is markup
        return self._end(pos)

    def _end(self, at: int) -> tuple[int, bool]:
        self.ctx.end_block()
        return at, False


def _as_written(text: str) -> str:
    return text


def _format_key(key: str, text: Callable[[str], str], delimiter: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else delimiter + text(key) + delimiter


def format_value(
    value: Any, text: Callable[[str], str] = _as_written, delimiter: str = STRING_DELIMITER
) -> str:
    """A JSON value written in Gemma's argument language (object keys sorted, as its template).

    Strings are raw between `delimiter`s; `text` is applied to each string and quoted key
    first (to refuse or make inert a delimiter inside one).
    """
    if isinstance(value, str):
        return delimiter + text(value) + delimiter
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    if isinstance(value, dict):
        items = sorted(value.items(), key=lambda kv: (str(kv[0]).lower(), str(kv[0])))
        pairs = (
            f"{_format_key(str(k), text, delimiter)}:{format_value(v, text, delimiter)}"
            for k, v in items
        )
        return "{" + ",".join(pairs) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(format_value(v, text, delimiter) for v in value) + "]"
    return format_value(str(value), text, delimiter)


def _declare_schema(schema: dict[str, Any], delimiter: str) -> str:
    """A property's JSON Schema in the shape of Gemma's tool declarations."""

    def value(v: Any) -> str:
        return format_value(v, _as_written, delimiter)

    parts: list[str] = []
    if isinstance(schema.get("description"), str):
        parts.append(f"description:{value(schema['description'])}")
    if schema.get("nullable") is True:
        parts.append("nullable:true")
    if isinstance(schema.get("enum"), list):
        parts.append(f"enum:{value(schema['enum'])}")
    props = schema.get("properties")
    if isinstance(props, dict):
        parts.append(f"properties:{_declare_properties(props, delimiter)}")
    required = schema.get("required")
    if isinstance(required, list) and required:
        parts.append(f"required:{value(required)}")
    items = schema.get("items")
    if isinstance(items, dict) and items:
        parts.append(f"items:{{{_declare_schema(items, delimiter)}}}")
    declared = schema.get("type")
    if isinstance(declared, str):
        parts.append(f"type:{value(declared.upper())}")
    elif isinstance(declared, list):
        parts.append(f"type:{value([str(t).upper() for t in declared])}")
    return ",".join(parts)


def _declare_properties(props: dict[str, Any], delimiter: str) -> str:
    items = sorted(props.items(), key=lambda kv: kv[0].lower())
    return (
        "{"
        + ",".join(
            f"{_format_key(k, _as_written, delimiter)}:"
            f"{{{_declare_schema(v if isinstance(v, dict) else {}, delimiter)}}}"
            for k, v in items
        )
        + "}"
    )


def declare_tool(tool: Tool, markup: GemmaMarkup = GEMMA4_MARKUP) -> str:
    """One tool as the family's chat template declares it: `<|tool>declaration:NAME{...}<tool|>`."""
    delimiter = markup.dialect.delimiter
    params = tool.parameters
    body = f"description:{format_value(tool.description, _as_written, delimiter)}"
    inner = _declare_schema({k: v for k, v in params.items() if k != "description"}, delimiter)
    if inner:
        body += f",parameters:{{{inner}}}"
    return f"{markup.declaration_open}declaration:{tool.name}{{{body}}}{markup.declaration_close}"


class Gemma4Protocol(TextProtocol):
    """Gemma 4's blocks; another Gemma family is this class with its own `markup`."""

    id = "gemma4"
    markup = GEMMA4_MARKUP
    #: The thought channel is reasoning: the parser never scans it for calls.
    reasoning_spans: tuple[ReasoningSpan, ...] = (
        ReasoningSpan("<|channel>thought", ("<channel|>",)),
    )
    #: Gemma 4 drops its `<|tool_call>` opener at times (vLLM's Gemma 4 parser reads such bare
    #: calls in a fallback tier): `call:NAME{…}` first in the visible output, only reasoning
    #: and blanks before it, is a call when NAME is a declared tool (prose may write
    #: `call:x{…}`; with tools=None it stays text).
    bare_calls = True
    aliases = ("gemma4-delimiter",)
    summary = '<|tool_call>call:NAME{key:<|"|>text<|"|>,n:1}<tool_call|> (Gemma 4)'
    #: Its envelope's closer, and the delimiter of the raw string the content is written in.
    result_closers = (RESPONSE_CLOSE, STRING_DELIMITER)

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return (self.markup.open, CALL_PREFIX) if self.bare_calls else (self.markup.open,)

    def anchors(self, resolver: ToolResolver) -> Mapping[str, Anchor]:
        return {CALL_PREFIX: "output"} if self.bare_calls else {}

    def cut_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return (self.markup.open,)  # a bare `call:` is a word: an output ending in `call` shows it

    def closing_markers(self) -> Sequence[str]:
        return self.markup.dialect.terminators

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        return Gemma4Reader(ctx, self.markup, bare=marker == CALL_PREFIX)

    def render_tools(self, tools: Sequence[Tool]) -> str:
        markup = self.markup
        declarations = "".join(declare_tool(t, markup) for t in tools)
        q, close = markup.dialect.delimiter, markup.dialect.terminators[0]
        return (
            f"{declarations}\n\n"
            f"To call a tool, write `{markup.open}call:` and its name, then its arguments in "
            f"braces, then `{close}`; write one such block per call:\n"
            f"{markup.open}call:NAME{{key:{q}text{q},count:1,flag:true,list:[1,2],"
            f"object:{{a:1}}}}{close}\n"
            f"Keys are bare words; every string value is enclosed in {q} on both sides; "
            "numbers, booleans and null are written bare."
        )

    def render_call(self, call: ToolCall) -> str:
        markup = self.markup
        delimiter = markup.dialect.delimiter

        def raw(text: str) -> str:
            return carried_raw(text, (delimiter,), protocol_id=self.id)

        arguments = format_value(call.arguments, raw, delimiter)
        return f"{markup.open}{CALL_PREFIX}{call.name}{arguments}{markup.dialect.terminators[0]}"

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        markup = self.markup
        delimiter = markup.dialect.delimiter
        try:
            value = json.loads(content)
        except ValueError:
            value = None

        def inert(text: str) -> str:  # a JSON escape may have spelled a closer
            return inert_closers(text, self.result_closers)

        body = (
            format_value(value, inert, delimiter)
            if isinstance(value, dict)
            else "{value:" + format_value(content, _as_written, delimiter) + "}"
        )
        return f"{markup.response_open}response:{name}{body}{markup.response_close}"


PROTOCOL = Gemma4Protocol()
