"""Pythonic calls: `[get_weather(city="Paris"), f(x=1)]`, read with Python's `ast`, never run.

The call syntax of Llama 3.2/4's pythonic template, LFM2 (`<|tool_call_start|>[...]
<|tool_call_end|>`), OLMo 3 (`<function_calls>f(a=1)\\ng(b=2)</function_calls>`), Gemma's
`tool_code` fences (```` ```tool_code\\nf(a=1)\\n``` ````, at a line start) and the unfenced
`tool_code = f(a=1)` line small Gemma models write (anchored as a bare list is, and its
`print(tool_code)` line after it markup), the
`[Calling tool: f({...})]` lines some Qwen-served agents leak, and bare lists. One mechanism,
configured per format by a `PythonicFormat` (markers, closer, anchoring); this module owns it:

* `read_calls(source)` parses the source with `ast` (a list, a tuple, or one call per line) and
  turns every argument into data with `literal` (literals only: strings, numbers, booleans and
  `None`, the JSON spellings `true`/`false`/`null`, lists, tuples, dicts, and a unary minus).
  A set (`{'urgent', 'bug'}`) is read as a list, as JSON has no sets. Nothing is evaluated;
  a name, an attribute, an operator, a nested call, bytes or a number no JSON number holds
  (`1e999`) is refused. In a list whose other calls are well formed, a
  call with a refused argument is a call that cannot run (incomplete, with the reason); a list
  with no well-formed call is refused whole. A call
  with one positional dict and no keywords (`read({"path": "a"})`) takes the dict as arguments.
* Source Python cannot parse as written (raw line breaks or NUL in a string, `month=07`, a
  value holding its own quote) is read again after `pythonic_repair` rewrote it, and only when
  the first call's name resolves: each call carries its repairs, and a call whose repair was a
  guess (where a string ends) is flagged, never run. Python's warnings about the source
  (`'\\,'`: an invalid escape) are not ours to show: `ast.parse` runs with them silenced.
* Formats with a closer (`<|tool_call_end|>`, `</function_calls>`) collect the block to it;
  a block that holds JSON call objects instead (LFM2 asked for JSON) is read as JSON.
  Bracketed formats (a bare list, `[Calling tool: ...]`) end at the bracket that closes the
  list, found by `BracketScan`, which tracks strings and nesting one character at a time.
* A bare list is anchored: it opens only at the start of the output or of a line, becomes calls
  only when every name resolves against the given tools, and with `tools=None` only when it
  stands alone as the whole output (blanks around it). Otherwise it stays text, as written.
  Llama 4's `<|python_start|>[...]<|python_end|>` is a special token's block: it opens wherever
  it stands.

It never executes or imports anything, never scans text outside its block (the engine's
`TextScanner` does, with the code mask) and never validates arguments (the schema gate does).
"""

from __future__ import annotations

import ast
import io
import json
import keyword
import math
import re
import tokenize
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from toolmend.core.fastpath import Escapes, ValueText
from toolmend.core.reader import (
    MAX_TAG_LENGTH,
    Anchor,
    BlockContext,
    BlockReader,
    BodyStart,
    EofVerdict,
)
from toolmend.core.textscan import find_closer
from toolmend.jsontext import MAX_NESTING
from toolmend.model import Tool, ToolCall, canonical_json
from toolmend.names import ToolResolver
from toolmend.protocols.base import (
    Claim,
    TextProtocol,
    ToolResponseResults,
    carried_raw,
    declare_tools,
)
from toolmend.protocols.json_calls import ARGUMENT_KEYS, NAME_KEYS, call_name, call_object
from toolmend.protocols.pythonic_repair import repaired

#: Names that stand for a JSON constant in a call (models trained on JSON write them).
_CONSTANTS = {"True": True, "False": False, "None": None, "true": True, "false": False}
_CONSTANTS.update({"null": None, "none": None})


#: How an anchored list must begin (`[name(`), and every text that may still grow into that:
#: the reader refuses any other body at once, so the parser asks this before building one.
CALL_START = BodyStart(
    re.compile(r"[ \t]*[A-Za-z_][\w.-]*[ \t]*\("),
    re.compile(r"[ \t]*(?:[A-Za-z_][\w.-]*[ \t]*)?"),
)


CALLING_TOOL_MARKER = "[Calling tool:"


class NotALiteral(ValueError):
    """Source that is not a literal call list (said in a few words, never the source)."""


# ------------------------------------------------------------------------------ the calls


@dataclass(frozen=True)
class PythonicCall:
    name: str
    arguments: dict[str, Any]
    #: Why the call cannot run (an argument that is no literal, beside well-formed siblings).
    error: str | None = None
    #: The repairs its source needed before Python could parse it (`pythonic_repair`).
    repairs: tuple[str, ...] = ()


def literal(node: ast.AST, depth: int = 0) -> Any:
    """The data a literal expression stands for; `NotALiteral` for anything else."""
    if depth > MAX_NESTING:
        raise NotALiteral(f"an argument is nested more than {MAX_NESTING} levels deep")
    if isinstance(node, ast.Constant) and isinstance(node.value, float):
        if not math.isfinite(node.value):  # `1e999`: no JSON number holds it
            raise NotALiteral("an argument is a number too large for JSON")
        return node.value
    if isinstance(node, ast.Constant) and isinstance(node.value, str | int | bool):
        return node.value
    if isinstance(node, ast.Constant) and node.value is None:
        return None
    if isinstance(node, ast.Name) and node.id in _CONSTANTS:
        return _CONSTANTS[node.id]
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return [literal(e, depth + 1) for e in node.elts]
    if isinstance(node, ast.Dict):
        out = {}
        for key, value in zip(node.keys, node.values, strict=True):
            k = literal(key, depth + 1) if key is not None else None
            if not isinstance(k, str):
                raise NotALiteral("a dict key is not a string")
            out[k] = literal(value, depth + 1)
        return out
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub | ast.UAdd)
        and isinstance(node.operand, ast.Constant)
        and isinstance(node.operand.value, int | float)
        and not isinstance(node.operand.value, bool)
    ):
        number: int | float = literal(node.operand, depth + 1)
        return -number if isinstance(node.op, ast.USub) else number
    raise NotALiteral(f"an argument is a {type(node).__name__} expression, not a literal")


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr}" if head else None
    return None


def _call(node: ast.AST) -> PythonicCall:
    if not isinstance(node, ast.Call):
        raise NotALiteral("an element is not a call")
    dotted = _dotted(node.func)
    if dotted is None:
        raise NotALiteral("a call's function is not a name")
    name = dotted.replace(_HYPHEN, "-")
    arguments: dict[str, Any] = {}
    if node.args:
        if len(node.args) != 1 or node.keywords:
            raise NotALiteral(f"{name}() has positional arguments")
        only = literal(node.args[0])
        if not isinstance(only, dict):
            raise NotALiteral(f"{name}() has a positional argument that is not an object")
        return PythonicCall(name, only)
    for kw in node.keywords:
        if kw.arg is None:
            raise NotALiteral(f"{name}() unpacks arguments")
        arguments[kw.arg.removeprefix(_KEYWORD_ARG)] = literal(kw.value)
    return PythonicCall(name, arguments)


#: A keyword argument named by a Python keyword (`from=`, `class=`) is parsed under this prefix.
_KEYWORD_ARG = "_toolmend_kw_"
#: A hyphen in a call's name (`add-note(`: MCP tool names hold them) is parsed as this.
_HYPHEN = "_toolmend_hyphen_"


def _adjacent(a: tokenize.TokenInfo, b: tokenize.TokenInfo | None) -> bool:
    return b is not None and a.end == b.start


def _hyphenated_name_end(tokens: list[tokenize.TokenInfo], i: int) -> int:
    """Where the hyphenated call name starting at `tokens[i]` ends (`NAME-NAME…(`, written
    without blanks), or `i` when there is none there."""
    j = i
    while (
        j + 2 < len(tokens)
        and tokens[j + 1].string == "-"
        and tokens[j + 2].type == tokenize.NAME
        and _adjacent(tokens[j], tokens[j + 1])
        and _adjacent(tokens[j + 1], tokens[j + 2])
    ):
        j += 2
    if j > i and j + 1 < len(tokens) and tokens[j + 1].string == "(":
        return j
    return i


#: A `-` glued between two words (a hyphenated name may be there), an `=` that may follow a
#: keyword argument, and the word right before such an `=` (Python's keywords are short).
#: (Each opens with its literal character, so the search jumps between them.)
_GLUED_HYPHEN = re.compile(r"-(?<=\w-)(?=[A-Za-z_])")
_ASSIGN = re.compile(r"=(?<![=!<>]=)(?!=)")
_WORD_BEFORE = re.compile(r"([A-Za-z_]\w*)[ \t]*\Z")
#: How far before an `=` its keyword is looked for: the longest keyword (8) and some blanks.
_KEYWORD_REACH = 16


def _may_rename(source: str) -> bool:
    """Whether `source` may hold what `_python_renamed` renames: looked for first, as
    tokenizing is slow and most source holds neither (cost: per `=`, not per character)."""
    if _GLUED_HYPHEN.search(source):
        return True
    for m in _ASSIGN.finditer(source):
        word = _WORD_BEFORE.search(source, max(0, m.start() - _KEYWORD_REACH), m.start())
        if word is not None and keyword.iskeyword(word.group(1)):
            return True
    return False


def _python_renamed(source: str) -> str | None:
    """`source` with what models write that Python cannot parse renamed, or None when it holds
    none or does not tokenize: every `KEYWORD=` argument (`from="SFO"` for a parameter called
    `from`) and every hyphenated call name (`weather-forecast(city="London")`)."""
    if not _may_rename(source):
        return None
    out, renamed = [], False
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        after = tokens[i + 1] if i + 1 < len(tokens) else None
        if tok.type == tokenize.NAME and keyword.iskeyword(tok.string) and after is not None:
            if after.string == "=":
                tok = tok._replace(string=_KEYWORD_ARG + tok.string)
                renamed = True
        elif tok.type == tokenize.NAME:
            last = _hyphenated_name_end(tokens, i)
            if last > i:
                name = _HYPHEN.join(t.string for t in tokens[i : last + 1 : 2])
                tok = tok._replace(string=name, end=tokens[last].end)
                renamed = True
                i = last
        out.append(tok)
        i += 1
    return tokenize.untokenize(out) if renamed else None


def json_calls(source: str) -> list[PythonicCall] | None:
    """The calls of a block holding JSON call objects instead of Python calls, or None.

    LFM2 asked for JSON writes `[{"name": ..., "arguments": {...}}]`, or one such object, between
    its tokens (SGLang's LFM2 detector reads both); the key spellings are the JSON family's.
    """
    text = source.strip()
    if not text.startswith(("{", "[")):
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    calls = []
    for obj in value if isinstance(value, list) else [value]:
        if not isinstance(obj, dict):
            return None
        inner = call_object(obj, NAME_KEYS)
        name = call_name(inner, NAME_KEYS)
        if not isinstance(name, str):
            return None
        arguments: Any = next((inner[k] for k in ARGUMENT_KEYS if k in inner), {})
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except (ValueError, RecursionError):
                return None
        if not isinstance(arguments, dict):
            return None
        calls.append(PythonicCall(name, arguments))
    return calls or None


def read_calls(source: str) -> list[PythonicCall]:
    """The calls `source` writes: `[f(a=1), g()]`, `f(a=1), g()`, or one call per line.

    What does not parse as calls is read again with the names Python cannot take renamed
    (`_python_renamed`): `add-note(…)` is valid Python (a subtraction) but no call.
    """
    text = source.strip()
    try:
        return _calls_of(text)
    except NotALiteral:
        renamed = _python_renamed(text)
        if renamed is None:
            raise
        return _calls_of(renamed)


#: Why a call read by a guessed repair does not run.
GUESSED_REPAIR = "a string held its own quote unescaped; where it ends is a guess, so it is not run"


def read_repaired(source: str) -> list[PythonicCall]:
    """The calls of `source`, which does not parse as written, read after `pythonic_repair`
    rewrote it: first keeping what was written, else by guessing where strings end (those
    calls are flagged). `NotALiteral` when neither parses."""
    for guess in (False, True):
        fixed = repaired(source, guess=guess)
        if fixed is None:
            continue
        try:
            calls = read_calls(fixed.source)
        except NotALiteral:
            continue
        flag = GUESSED_REPAIR if fixed.guess else None
        return [replace(c, repairs=fixed.repairs, error=c.error or flag) for c in calls]
    raise NotALiteral("not Python call syntax, even repaired")


def _calls_of(source: str) -> list[PythonicCall]:
    try:
        with warnings.catch_warnings():
            # `'\,'` warns (an invalid escape) and still means `\,`: the model's text, as read.
            warnings.simplefilter("ignore", SyntaxWarning)
            warnings.simplefilter("ignore", DeprecationWarning)
            tree = ast.parse(source, mode="exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise NotALiteral(f"not Python call syntax ({type(exc).__name__})") from None
    calls: list[PythonicCall] = []
    for stmt in tree.body:
        if not isinstance(stmt, ast.Expr):
            raise NotALiteral("a statement is not an expression")
        value = stmt.value
        elements = value.elts if isinstance(value, ast.List | ast.Tuple) else [value]
        calls += [_sibling(e) for e in elements]
    if not calls:
        raise NotALiteral("no call")
    if all(c.error is not None for c in calls):
        raise NotALiteral(calls[0].error or "no call")
    return calls


def _sibling(node: ast.AST) -> PythonicCall:
    """A call of a list: one whose argument is no literal (`b'z'`, `1e999`) is a call that
    cannot run, beside siblings that can (a list with none stays what it was: not calls)."""
    try:
        return _call(node)
    except NotALiteral as exc:
        name = _dotted(node.func) if isinstance(node, ast.Call) else None
        if name is None:
            raise
        return PythonicCall(name.replace(_HYPHEN, "-"), {}, error=str(exc))


def render_literal(value: Any) -> str:
    """A JSON value as a Python literal (`True`, `None`, quoted strings), which `literal` reads."""
    if value is True or value is False or value is None:
        return repr(value)
    if isinstance(value, str | int | float):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(render_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        items = (
            f"{json.dumps(k, ensure_ascii=False)}: {render_literal(v)}" for k, v in value.items()
        )
        return "{" + ", ".join(items) + "}"
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def render_calls(calls: Sequence[ToolCall]) -> str:
    """`[f(a=1), g()]` (names must be Python identifiers, possibly dotted)."""
    parts = []
    for call in calls:
        args = ", ".join(f"{k}={render_literal(v)}" for k, v in call.arguments.items())
        parts.append(f"{call.name}({args})")
    return "[" + ", ".join(parts) + "]"


class BracketScan:
    """Finds the bracket that closes a list, one character at a time across feeds.

    It tracks nesting of `()[]{}` and Python string literals (either quote, backslash escapes),
    so a bracket inside a string does not count. `feed` looks only at new text.
    """

    __slots__ = ("depth", "escape", "quote")

    def __init__(self, depth: int) -> None:
        self.depth = depth
        self.quote = ""
        self.escape = False

    def feed(self, text: str, start: int, end: int) -> int:
        """The index just after the closing bracket in `text[start:end]`, or -1."""
        for i in range(start, end):
            c = text[i]
            if self.quote:
                if self.escape:
                    self.escape = False
                elif c == "\\":
                    self.escape = True
                elif c == self.quote:
                    self.quote = ""
            elif c in "\"'":
                self.quote = c
            elif c in "([{":
                self.depth += 1
            elif c in ")]}":
                self.depth -= 1
                if self.depth == 0:
                    return i + 1
        return -1


# ------------------------------------------------------------------------------ the protocol


@dataclass(frozen=True)
class PythonicFormat:
    id: str
    summary: str
    #: The opening markers, and the closer of a block (None: it ends at its closing bracket).
    openers: tuple[str, ...]
    closer: str | None
    #: Bracket depth after the opener (a bracketed format's opener holds its own `[`).
    depth: int = 1
    #: Opens only at the start of the output or of a line, and only around resolving names.
    anchored: bool = False
    #: The opener is a code fence's (the scanner finds it only at a line start) and a rendered
    #: call is one call on its line.
    fenced: bool = False
    aliases: tuple[str, ...] = ()
    #: How a rendered call is written: the markers around `render_calls`' list.
    render_open: str = ""
    render_close: str = ""
    #: A line that may follow the call and belongs to its markup (removed with it).
    trailer: str = ""


TOOL_CALL_OPEN = "<tool_call>"
#: The head of a `<tool_call>` body that is one pythonic call: a (dotted) name, then `(`.
_CALL_HEAD = re.compile(r"\s*[A-Za-z_][\w.-]*(\()?")


def claim_call_head(body: str) -> Claim:
    """Whether a `<tool_call>` body is a pythonic call (`NAME(`): MAYBE while only the name
    has come (GLM writes a bare name there too)."""
    m = _CALL_HEAD.match(body)
    if m is None or not body.strip():
        return Claim.MAYBE if not body.strip() else Claim.NOT_MINE
    if m.group(1):
        return Claim.MINE
    return Claim.MAYBE if m.end() == len(body) else Claim.NOT_MINE


class PythonicProtocol(ToolResponseResults, TextProtocol):
    def __init__(self, fmt: PythonicFormat, *variants: PythonicFormat) -> None:
        """`fmt` is the format as it is prompted; `variants` are other shapes of the same
        calls that models write unprompted, read too."""
        self.format = fmt
        self.formats = {opener: f for f in (fmt, *variants) for opener in f.openers}
        self.id = fmt.id
        self.summary = fmt.summary
        self.aliases = fmt.aliases

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return tuple(self.formats)

    def anchors(self, resolver: ToolResolver) -> Mapping[str, Anchor]:
        # With no tools to check names against, a bare list is a call only as the whole output.
        anchor: Anchor = "output" if resolver.accepts_any else "line"
        return {m: anchor for m, f in self.formats.items() if f.anchored}

    def body_starts(self, resolver: ToolResolver) -> Mapping[str, BodyStart]:
        return {m: CALL_START for m, f in self.formats.items() if f.anchored}  # `_confirm`'s

    def closing_markers(self) -> Sequence[str]:
        ends = {(f.closer or ("]" if f.depth else ")")): None for f in self.formats.values()}
        return tuple(ends)

    def claims(self, marker: str, body: str) -> Claim:
        first = body.lstrip(" \t\r\n")[:1]
        if not first:
            return Claim.MAYBE
        if marker.endswith("["):
            # A list of calls opens with a name (`[get_weather(`); `[{` is a JSON list of calls.
            return Claim.MINE if first.isidentifier() else Claim.NOT_MINE
        if marker == TOOL_CALL_OPEN:
            return claim_call_head(body)
        # `<function_calls>` also wraps invokes (`<function_calls><invoke ...>`).
        return Claim.NOT_MINE if first == "<" else Claim.MINE

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        return PythonicReader(self.formats[marker], ctx)

    def render_tools(self, tools: Sequence[Tool]) -> str:
        example = f'{self.format.render_open}[get_weather(city="Paris", days=3)]'
        return (
            declare_tools(tools)
            + "To call functions, write them as a Python list of calls with keyword arguments, "
            "literal values only:\n"
            f"{self.format.render_open}[FUNCTION_NAME(KEY=VALUE, ...), ...]"
            f"{self.format.render_close}\n"
            f"For example: {example}{self.format.render_close}"
        )

    def render_call(self, call: ToolCall) -> str:
        if self.format.openers == (CALLING_TOOL_MARKER,):
            return f"{CALLING_TOOL_MARKER} {call.name}({canonical_json(call.arguments)})]"
        body = render_calls([call])
        if self.format.fenced:
            # One call on its line, as the fence is written; a backtick can stand only inside
            # a string literal, where `\x60` spells it without closing the fence.
            body = body[1:-1].replace("`", "\\x60")
        if self.format.closer:
            carried_raw(body, (self.format.closer,), protocol_id=self.id)
        return f"{self.format.render_open}{body}{self.format.render_close}"


# -------------------------------------------------------------------------------- the reader

_READ, _TRAILER, _AFTER, _DONE = range(4)


class PythonicReader(BlockReader):
    """Collects one block (to its closer, or to its closing bracket), then reads it whole."""

    def __init__(self, fmt: PythonicFormat, ctx: BlockContext) -> None:
        self.fmt = fmt
        self.ctx = ctx
        self.state = _READ
        self.pieces: list[str] = []  # the block as consumed after the opener
        self.scan = BracketScan(fmt.depth) if fmt.closer is None else None
        self.calls: list[PythonicCall] = []
        self.confirmed = False  # an anchored list: `[name(` seen
        if fmt.closer is not None:
            ctx.stream_value(ValueText((fmt.closer,)), raw=(self.pieces,))

    def step(self, buf: str, pos: int, end: int, final: bool) -> int:
        if self.state == _READ:
            if self.fmt.anchored and not self.confirmed:
                return self._confirm(buf, pos, end, final)
            return self._read(buf, pos, end, final)
        if self.state == _TRAILER:
            return self._trailer(buf, pos, end, final)
        if self.state == _AFTER:
            return self._after(buf, pos, end, final)
        return pos

    def _confirm(self, buf: str, pos: int, end: int, final: bool) -> int:
        """An anchored list (at a line start: `anchors`) opens only as `[name(`: else it is
        text."""
        opens = CALL_START.verdict(buf, pos, end, final)
        if opens:
            self.confirmed = True
            return self._read(buf, pos, end, final)
        if opens is False:
            self.ctx.revert("", rescan=False)
        return pos

    def _read(self, buf: str, pos: int, end: int, final: bool) -> int:
        closer = self.fmt.closer
        if closer is not None:
            k, closed = find_closer(buf, pos, end, (closer,), final=final)
            if not closed:
                self.pieces.append(buf[pos:k])
                return k
            source = "".join(self.pieces) + buf[pos:k]
            self.pieces.append(buf[pos : k + len(closer)])
            return self._close(buf, source, k + len(closer), end, final)
        assert self.scan is not None
        k = self.scan.feed(buf, pos, end)
        if k < 0:
            self.pieces.append(buf[pos:end])
            if final and self.fmt.anchored:
                return self._as_text(end)  # never closed: it was prose
            # Inside a string literal, text without its quote or a backslash changes nothing
            # the scan tracks: the engine may append it without calling the reader.
            quote = self.scan.quote if not self.scan.escape else ""
            if quote:
                self.ctx.stream_value(_STRING_TEXT[quote], raw=(self.pieces,))
            else:
                self.ctx.stop_value()
            return end
        # A list without its closing bracket; a lone call (depth 0) whole.
        source = "".join(self.pieces) + buf[pos : k - 1 if self.fmt.depth else k]
        self.pieces.append(buf[pos:k])
        return self._close(buf, source, k, end, final)

    def _close(self, buf: str, source: str, at: int, end: int, final: bool) -> int:
        """The block's source is complete up to `buf[at]`: read it, then emit or revert."""
        self.ctx.stop_value()
        bracketed = self.fmt.closer is None and self.fmt.depth > 0
        written_as_json = json_calls(source) if self.fmt.closer is not None else None
        text = f"[{source}]" if bracketed else source
        try:
            self.calls = written_as_json or read_calls(text)
        except NotALiteral as exc:
            try:
                self.calls = self._repaired(text, exc)
            except NotALiteral:
                if self.fmt.anchored:
                    return self._as_text(at)
                self.ctx.fail_block("".join(self.pieces), "malformed_call", str(exc))
                self.state = _DONE
                return at
        resolve = self.ctx.resolver.resolve
        if all(resolve(c.name) is None for c in self.calls) or (
            self.fmt.anchored and any(resolve(c.name) is None for c in self.calls)
        ):
            return self._as_text(at)
        if self.fmt.trailer:
            self.state = _TRAILER
            return self._trailer(buf, at, end, final)
        return self._settle(at, end, final)

    def _repaired(self, text: str, failure: NotALiteral) -> list[PythonicCall]:
        """The calls of source that failed to parse, repaired, when its first call's name
        resolves (prose is never repaired into calls); else the parse's `failure`."""
        head = _FIRST_NAME.match(text)
        if head is None or self.ctx.resolver.resolve(head.group(1)) is None:
            raise failure
        return read_repaired(text)

    def _trailer(self, buf: str, pos: int, end: int, final: bool) -> int:
        """Blanks and the format's trailer line after the call are its markup; else nothing."""
        trailer = self.fmt.trailer
        j = pos
        while j < end and j - pos <= MAX_TAG_LENGTH and buf[j] in " \t\r\n":
            j += 1
        rest = buf[j:end]
        if rest.startswith(trailer):
            self.pieces.append(buf[pos : j + len(trailer)])
            return self._settle(j + len(trailer), end, final)
        if not final and j - pos <= MAX_TAG_LENGTH and trailer.startswith(rest):
            return pos  # blanks, or the trailer's beginning: wait
        return self._settle(pos, end, final)

    def _settle(self, at: int, end: int, final: bool) -> int:
        """The calls are read and end at `buf[at]`: emit them, or wait for the end (below)."""
        self.state = _READ
        if self.fmt.anchored and self.ctx.resolver.accepts_any:
            # With no tools to check names against, a bare list is a call only when it is the
            # whole output (it opened at its start: `anchors`): what follows must be blanks.
            self.state = _AFTER
            return self._emit(at) if final and at == end else at
        return self._emit(at)

    def _after(self, buf: str, pos: int, end: int, final: bool) -> int:
        if buf[pos:end].strip():
            self.state = _DONE
            self.ctx.revert("".join(self.pieces), rescan=False)
            return pos  # what follows is read as text again
        self.pieces.append(buf[pos:end])
        return self._emit(end) if final else end

    def _as_text(self, at: int) -> int:
        self.state = _DONE
        self.ctx.revert("".join(self.pieces), rescan=False)
        return at

    def _emit(self, at: int) -> int:
        for call in self.calls:
            if self.ctx.begin_call(call.name):
                self.ctx.end_call(call.arguments, at=at, error=call.error, repairs=call.repairs)
        self.state = _DONE
        self.ctx.end_block()
        return at

    def at_eof(self) -> EofVerdict:
        return EofVerdict(recoverable=False)


#: The name of the first call of a block's source (`[get_weather(`, `f(`).
_FIRST_NAME = re.compile(r"[\s\[]*([A-Za-z_][\w.-]*)[ \t]*\(")

#: Inside a Python string literal: it ends at its quote; a backslash begins an escape, which
#: the reader's scan must see (the fast path never takes it).
_STRING_TEXT = {q: ValueText((q,), Escapes(("\\",), "(?!)")) for q in "\"'"}


LFM2 = PythonicProtocol(
    PythonicFormat(
        id="lfm2",
        summary="LFM2 pythonic calls: <|tool_call_start|>[f(a=1), g()]<|tool_call_end|>",
        openers=("<|tool_call_start|>",),
        closer="<|tool_call_end|>",
        aliases=("liquid",),
        render_open="<|tool_call_start|>",
        render_close="<|tool_call_end|>",
    )
)
OLMO3 = PythonicProtocol(
    PythonicFormat(
        id="olmo3",
        summary="OLMo 3 pythonic calls, one per line: <function_calls>f(a=1)</function_calls>",
        openers=("<function_calls>",),
        closer="</function_calls>",
        aliases=("olmo-3",),
        render_open="<function_calls>",
        render_close="</function_calls>",
    )
)
PYTHONIC = PythonicProtocol(
    PythonicFormat(
        id="pythonic",
        summary="bare pythonic call lists (Llama 3.2/4): [get_weather(city='Paris'), f(x=1)]",
        openers=("[",),
        closer=None,
        anchored=True,
        aliases=("llama4-pythonic",),
    ),
    # Llama 4's special tokens around the list: a call wherever they stand, mid-line after
    # prose too (as SGLang's pythonic detector reads them); `<|python_end|>` is their markup.
    PythonicFormat(
        id="pythonic",
        summary="",
        openers=("<|python_start|>[",),
        closer=None,
        trailer="<|python_end|>",
    ),
    # Calls in Hermes's tags (SGLang's multi-format "python" dialect): `<tool_call>f(a=1)
    # </tool_call>`; under `auto` only a body that opens as `NAME(` is this (`claims`).
    PythonicFormat(id="pythonic", summary="", openers=(TOOL_CALL_OPEN,), closer="</tool_call>"),
)
GEMMA_TOOL_CODE = PythonicProtocol(
    PythonicFormat(
        id="gemma-tool-code",
        summary="Gemma tool_code fences, one call per line: ```tool_code\\nf(a=1)\\n```",
        openers=("```tool_code",),
        closer="```",
        fenced=True,
        aliases=("tool-code", "gemma3"),
        render_open="```tool_code\n",
        render_close="\n```",
    ),
    # The fence left out (small Gemma models, as vllm-mlx's Gemma parser reads them):
    # `tool_code = f(a=1)` on its own line, often with `print(tool_code)` after it. Anchored
    # as a bare list is: names must resolve, or with `tools=None` it is the whole output.
    PythonicFormat(
        id="gemma-tool-code",
        summary="",
        openers=("tool_code = ", "tool_code="),
        closer=None,
        depth=0,
        anchored=True,
        trailer="print(tool_code)",
    ),
)
CALLING_TOOL = PythonicProtocol(
    PythonicFormat(
        id="calling-tool",
        summary='leaked agent lines: [Calling tool: get_weather({"city": "Tokyo"})]',
        openers=(CALLING_TOOL_MARKER,),
        closer=None,
        render_open="",
    )
)
