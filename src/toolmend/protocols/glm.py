"""GLM-4.5/4.6 and GLM-4.7: `<tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value>...`.

The key/value-tag format of Zhipu's GLM-4.5, 4.6 and 4.7 (and models trained on their template,
such as Laguna). GLM-4.5/4.6 write a newline after the name and after each tag; GLM-4.7 writes
none; both read the same. This module owns the format: its markers, the reading of one block
body (pure functions, `split_name` and `read_pairs`), the reader glue, and the renderers.

Reading, in short:

* `<tool_call>` opens a block; the name runs to the first `<`, `{` or line break, and must look
  like a name (no blanks or brackets inside), so prose that mentions the tag stays text.
* `<arg_key>K</arg_key><arg_value>V</arg_value>` pairs follow; a value is raw text (no entity
  decoding, no trimming), typed by the tool's schema (`typed_value`: a string keeps its text,
  numbers, booleans, null, arrays and objects are read; without a declared type every JSON value
  is read, a quoted string literal too, as vLLM's and mlx-lm's GLM parsers deserialize each
  value whose parameter is not declared a string). A key given twice keeps its last value
  (`DuplicateRule.LAST_WINS`, recorded).
* A forgotten tag where the next tag makes the structure plain (`</arg_value>` before the next
  `<arg_key>` or before `</tool_call>`, `<arg_value>` or `</arg_key>`) is a repair under the
  lenient policy, an error under strict. A value whose `</arg_value>` is missing ends at
  `</tool_call>`, its trailing blanks trimmed.
* The name-then-JSON variant (`<tool_call>NAME\\n{"k": "v"}</tool_call>`) and a JSON call object
  (`<tool_call>{"name": ..., "arguments": ...}`, read by the Hermes reader) are read too, and
  so is the plain variant `<tool_call>NAME k=v k2="v 2"</tool_call>` (seen in GLM outputs, read
  by mlx-lm): only when every word after the name is `key=value` and `</tool_call>` follows
  on the same line, each value typed as a tag value is.
* GLM-4-0414 writes a call with no tag at all, its name on the first line and its arguments as
  JSON on the next (`get_weather\n{"city": "Paris"}`): read only at the very start of the
  output (reasoning and blanks aside) and only for a declared tool's name (`LEADING_CALL`).
  Under `auto` those markers are Functionary v3's, whose first recipient reads the same.
* A `<tool_call>` before the block's `</tool_call>` ends the unclosed call incomplete, unless it
  stands inside a value whose `</arg_value>` follows before any `<arg_key>`, `<tool_call>` or
  `</tool_call>`: then the value mentions the tag (as a value quoting `</tool_call>` does).

LongCat-Flash writes the same blocks with its own tag names (`<longcat_tool_call>`,
`<longcat_arg_key>`, ...): the reading takes a `KeyValueTags` (GLM's by default) and the JSON
reader of the format's blocks, so `longcat` reuses it whole; K2V3's IFM tags (`k2v3`) too, with
the type hint its tags may carry between a key and its value (`<ifm|arg_type>string</…>`: it types
a value whose property declares no type, never one the schema types) and a JSON list of calls.

It never scans text outside its block (the engine's `TextScanner` does), never validates or
repairs arguments (the schema gate does), and streams no argument deltas before the block
closes (a later duplicate may replace a value).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolmend.core.closers import enclosing_closer_is_text
from toolmend.core.fastpath import ValueText
from toolmend.core.keyrules import DUPLICATE_KEPT
from toolmend.core.reader import (
    CUT_AFTER_HEADER,
    MAX_TAG_LENGTH,
    Anchor,
    BlockContext,
    BlockReader,
    EofVerdict,
)
from toolmend.core.textscan import closers, find_closer, partial_marker_start, skip_blanks
from toolmend.model import Tool, ToolCall, canonical_json
from toolmend.names import ToolResolver
from toolmend.protocols.base import (
    Claim,
    TextProtocol,
    ToolResponseResults,
    carried_raw,
    claim_unless_first_char,
    declare_tools,
)
from toolmend.protocols.hermes import hermes_reader
from toolmend.protocols.json_args import HeaderJsonReader, HeaderJsonSyntax, header_name_by
from toolmend.protocols.json_calls import arguments_from_text
from toolmend.protocols.pythonic import claim_call_head
from toolmend.protocols.qwen3_coder import ESCAPED_NEWLINE
from toolmend.schema_gate import Policy, declared_types
from toolmend.textvalue import typed_value

OPEN = "<tool_call>"
CLOSE = "</tool_call>"
ARG_KEY, ARG_KEY_END = "<arg_key>", "</arg_key>"
ARG_VALUE, ARG_VALUE_END = "<arg_value>", "</arg_value>"
#: The canonical spelling of a type hint's tags (a format's own are in its `KeyValueTags`).
ARG_TYPE_TAGS = ARG_TYPE, ARG_TYPE_END = "<arg_type>", "</arg_type>"


@dataclass(frozen=True)
class KeyValueTags:
    """The tag names of one key/value-tag format: its block and its key and value tags."""

    open: str
    close: str
    arg_key: str
    arg_key_end: str
    arg_value: str
    arg_value_end: str
    #: A type hint's tags between a key and its value (K2V3's `<ifm|arg_type>string</…>`);
    #: empty in a format that has none.
    arg_type: str = ""
    arg_type_end: str = ""
    #: Any of the argument tags.
    tag: re.Pattern[str] = field(init=False)
    #: The argument tag as written -> GLM's spelling of it (what `read_pairs` compares).
    canonical: dict[str, str] = field(init=False)
    #: The end of a block body: its closer, or a new block opening before it.
    block_end: tuple[str, str] = field(init=False)
    #: The body as the fast path may take it: text in which no block end can begin.
    body_text: ValueText = field(init=False)
    #: What a raw key or value cannot hold: it would read back as structure.
    stops: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        written: tuple[str, ...] = (
            self.arg_key,
            self.arg_key_end,
            self.arg_value,
            self.arg_value_end,
        )
        glm: tuple[str, ...] = ("<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>")
        if self.arg_type:
            written, glm = (*written, self.arg_type, self.arg_type_end), (*glm, *ARG_TYPE_TAGS)
        put = object.__setattr__
        put(self, "tag", re.compile("|".join(map(re.escape, written))))
        put(self, "canonical", dict(zip(written, glm, strict=True)))
        put(self, "block_end", closers(self.close, self.open))
        put(self, "body_text", ValueText(self.block_end))
        put(self, "stops", (*written, self.open, self.close))


GLM_TAGS = KeyValueTags(OPEN, CLOSE, ARG_KEY, ARG_KEY_END, ARG_VALUE, ARG_VALUE_END)
_NAME_END = re.compile(r"[<{\n]")
#: A tool name as models write it: no blanks, brackets, quotes or sentence punctuation.
_NAME = re.compile(r"[^\s<>{}\[\]()\"'`,;=!?*]+")
#: One `key=value` word of the plain variant (`multiply a=12 b="x y"`): a value is a quoted
#: string or a run of characters that are no blank, quote or bracket of markup.
_KEY_VALUE = r"""([A-Za-z_][\w.-]*)=("(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^\s"'<>]+)"""
#: A head that is a name and then only `key=value` words on its line (GLM outputs seen by
#: mlx-lm's GLM-4.7 parser, which reads them): group 1 the name, group 2 the words.
_PLAIN_CALL = re.compile(rf"({_NAME.pattern})((?:[ \t]+{_KEY_VALUE})+)[ \t]*")
_KEY_VALUE_WORD = re.compile(_KEY_VALUE)

#: The line breaks GLM-4-0414's name line may end with.
_LINE_ENDS = ("\n", "\r\n")
#: GLM-4-0414's tagless call: its name line, then one JSON object (`HeaderJsonReader` reads it
#: from a marker that is a declared name and its line break, at the output's start).
LEADING_CALL = HeaderJsonSyntax(
    parse_header=header_name_by(re.compile(rf"({_NAME.pattern})[ \t]*\r?\n\s*\Z")),
    header_viable=re.compile(rf"{_NAME.pattern}[ \t]*(?:\r?\n\s*|\r)?|"),
    single_call=True,
)

#: The type hints a value may carry: JSON Schema's type names (any other hint is ignored).
_HINT_TYPES = frozenset(("string", "number", "integer", "boolean", "array", "object", "null"))

NOT_CLOSED_BEFORE_NEXT = "the call is not closed before the next <tool_call>"


# ------------------------------------------------------------------------ the block body


def split_name(body: str) -> tuple[str, str] | None:
    """`(name, rest)` of a block body, or None when what comes first is not a tool name."""
    m = _NAME_END.search(body)
    cut = len(body) if m is None else m.start()
    name = without_escaped_breaks(body[:cut])
    return (name, body[cut:]) if _NAME.fullmatch(name) else None


def without_escaped_breaks(text: str) -> str:
    """`text` stripped of blanks and of escaped line breaks at either end: GLM-4.6 sometimes
    writes its whole output JSON-escaped (`todo_write\\n<arg_key>…`, SGLang's GLM tests hold
    such outputs), so where the template writes a line break (after the name, between tags) the
    two characters `\\n` are that line break, as Qwen3-Coder's reader takes them."""
    text = text.strip()
    while text.startswith(ESCAPED_NEWLINE) or text.endswith(ESCAPED_NEWLINE):
        text = text.removeprefix(ESCAPED_NEWLINE).removesuffix(ESCAPED_NEWLINE).strip()
    return text


@dataclass
class Pairs:
    """The arguments of one body: `(key, raw value text)` in order, and how they were read."""

    items: list[tuple[str, str]] = field(default_factory=list)
    #: key -> the type its hint tag names (`<arg_type>string</arg_type>`), where one was given.
    hints: dict[str, str] = field(default_factory=dict)
    #: The forgotten tags put back (`close-arg-value`, ...): repairs, or errors under strict.
    repairs: list[str] = field(default_factory=list)
    error: str | None = None
    #: The body ended inside a key or value (only meaningful when no closer was seen).
    open_at_end: bool = False


def read_pairs(rest: str, tags: KeyValueTags = GLM_TAGS) -> Pairs:
    """The `<arg_key>`/`<arg_value>` pairs of `rest` (the body after the name), tolerantly.

    One pass over the tags. A value is the raw text between its tags; a value whose opening tag
    is missing is the text after `</arg_key>`, stripped; a value whose closing tag is missing
    ends at the next `<arg_key>` or the end of the body, its trailing blanks trimmed. A tag
    written twice in a row, only blanks between (`<arg_key><arg_key>path`,
    `path</arg_key></arg_key>`, seen from GLM-4.7 in production, vLLM #54971), is written once:
    the key and value stay what the model meant, never the stray tag.
    """
    out = Pairs()
    key: str | None = None  # a key read, waiting for its value
    open_tag = ""  # the tag whose content is being read ("" between pairs)
    start = 0  # where the current content began
    previous = ""  # the tag before this one
    for m in tags.tag.finditer(rest):
        tag, text = tags.canonical[m.group()], rest[start : m.start()]
        start = m.end()
        if tag == previous and not without_escaped_breaks(text):
            out.repairs.append("doubled-tag")
            continue
        previous = tag
        if open_tag == ARG_VALUE:
            if tag == ARG_VALUE_END:
                out.items.append((key or "", text))
                key, open_tag = None, ""
                continue
            if tag != ARG_KEY:
                out.error = f"{tag} inside the value of {key!r}"
                return out
            out.repairs.append("close-arg-value")
            out.items.append((key or "", text.rstrip()))
            key, open_tag = None, ARG_KEY
            continue
        if open_tag == ARG_TYPE:
            if tag != ARG_TYPE_END:
                out.error = f"{tag} inside the type of {key!r}"
                return out
            out.hints[key or ""] = text.strip()
            open_tag = ""
            continue
        if open_tag == ARG_KEY:
            if tag == ARG_KEY_END:
                key, open_tag = text.strip(), ""
                continue
            if tag != ARG_VALUE:
                out.error = f"{tag} inside an argument key"
                return out
            out.repairs.append("close-arg-key")
            key, open_tag = text.strip(), ARG_VALUE
            continue
        # Between pairs (or after a key): only blanks, unless a value lost its opening tag.
        if tag == ARG_VALUE_END and key is not None:
            out.repairs.append("open-arg-value")
            out.items.append((key, text.strip()))
            key = None
            continue
        if without_escaped_breaks(text):
            out.error = "unexpected text between the arguments of the call"
            return out
        if tag == ARG_KEY and key is None:
            open_tag = ARG_KEY
        elif tag == ARG_VALUE and key is not None:
            open_tag = ARG_VALUE
        elif tag == ARG_TYPE and key is not None and key not in out.hints:
            open_tag = ARG_TYPE
        else:
            out.error = f"{tag} out of place"
            return out
    tail = rest[start:]
    if open_tag == ARG_VALUE:
        out.repairs.append("close-arg-value")
        out.items.append((key or "", tail.rstrip()))
        out.open_at_end = True
    elif open_tag == ARG_KEY or key is not None:
        out.error = f"argument {(key or tail.strip())[:64]!r} has no value"
        out.open_at_end = True
    elif without_escaped_breaks(tail):
        out.error = "unexpected text after the arguments of the call"
    return out


def typed_arguments(
    pairs: Sequence[tuple[str, str]], tool: Tool | None, hints: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The pairs as an arguments object, each value typed by its property's schema; a value
    whose property declares no type is typed by the model's own hint, where it wrote one
    (the schema, which the gate then checks, always decides over the hint)."""
    props = tool.parameters.get("properties") if tool is not None else None
    props = props if isinstance(props, dict) else {}
    hints = hints or {}
    out = {}
    for key, text in pairs:
        types = declared_types(props.get(key))
        if types is None and hints.get(key) in _HINT_TYPES:
            types = frozenset((hints[key],))
        out[key] = undeclared_or_typed(text, types)
    return out


def undeclared_or_typed(text: str, types: frozenset[str] | None) -> Any:
    """`typed_value`, but a value without a declared type that is a JSON string literal
    (`"London"`) is its string: GLM's template writes a string raw, and the engines serving GLM
    (vLLM's and mlx-lm's parsers) read an undeclared value as JSON first, so a model
    that quotes one means the quoted string. (Qwen3-Coder's engines keep such quotes.)"""
    word = text.strip()
    if types is None and len(word) > 1 and word[0] == word[-1] == '"':
        try:
            value = json.loads(word)
        except ValueError:
            return text
        if isinstance(value, str):
            return value
    return typed_value(text, types)


@dataclass
class BodyVerdict:
    arguments: dict[str, Any]
    repairs: list[str]
    error: str | None
    open_at_end: bool = False


def read_body(rest: str, ctx: BlockContext, tags: KeyValueTags = GLM_TAGS) -> BodyVerdict:
    """The arguments of a block body after its name: key/value pairs or one JSON object."""
    tool, lenient = ctx.current_tool, ctx.policy is Policy.LENIENT
    if rest.lstrip().startswith("{"):
        read = arguments_from_text(rest, ctx, repairs=["json-arguments"])
        if read.error is None:
            return BodyVerdict(read.arguments, read.repairs, None)
        return BodyVerdict({}, [], read.error)
    pairs = read_pairs(rest, tags)
    repairs = list(pairs.repairs)
    error = pairs.error
    if repairs and not lenient and error is None:
        error = f"a tag is missing or written twice ({repairs[0]})"
    keys = [k for k, _ in pairs.items]
    if len(set(keys)) < len(keys):
        repairs.append(DUPLICATE_KEPT)
    arguments = typed_arguments(pairs.items, tool, pairs.hints)
    return BodyVerdict(arguments, repairs, error, pairs.open_at_end)


def read_plain(words: str, ctx: BlockContext) -> BodyVerdict:
    """The arguments of the plain variant's `key=value` words, typed as tag values are."""
    pairs = []
    for m in _KEY_VALUE_WORD.finditer(words):
        value = m.group(2)
        if value[0] == value[-1] and value[0] in "\"'" and len(value) > 1:
            value = value[1:-1]
            if m.group(2)[0] == '"':
                value = re.sub(r"\\(.)", r"\1", value)
        pairs.append((m.group(1), value))
    keys = [k for k, _ in pairs]
    repairs = [DUPLICATE_KEPT] if len(set(keys)) < len(keys) else []
    return BodyVerdict(typed_arguments(pairs, ctx.current_tool), repairs, None)


# ------------------------------------------------------------------------------ the protocol


class GlmProtocol(ToolResponseResults, TextProtocol):
    """One GLM generation: the same reading, its own rendering layout."""

    # A later duplicate may replace a value: argument deltas only once the call is final.
    incremental_arguments = False

    def __init__(
        self,
        protocol_id: str,
        summary: str,
        aliases: tuple[str, ...],
        sep: str,
        tags: KeyValueTags = GLM_TAGS,
        *,
        leading_calls: bool = False,
    ) -> None:
        self.id = protocol_id
        self.summary = summary
        self.aliases = aliases
        self.sep = sep  # what the generation writes after the name and after each tag
        self.tags = tags
        #: GLM-4-0414's tagless first call is read (`LEADING_CALL`).
        self.leading_calls = leading_calls

    def _leading(self, resolver: ToolResolver) -> tuple[str, ...]:
        """A declared tool's name and its line break: the opening of a tagless first call."""
        if not self.leading_calls:
            return ()
        names = [n for n in resolver.names() if _NAME.fullmatch(n)]
        return tuple(name + end for name in names for end in _LINE_ENDS)

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return (self.tags.open, *self._leading(resolver))

    def anchors(self, resolver: ToolResolver) -> Mapping[str, Anchor]:
        return dict.fromkeys(self._leading(resolver), "output")

    def cut_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return (self.tags.open,)  # a tool's name is a word: an output ending in one shows it

    def token_openers(self) -> Sequence[str]:
        return (self.tags.open,)  # a special token of the GLM-4.5/4.6/4.7 tokenizers

    def closing_markers(self) -> Sequence[str]:
        return (self.tags.close,)

    def claims(self, marker: str, body: str) -> Claim:
        if marker != self.tags.open:
            return Claim.NOT_MINE  # a leading name: Functionary v3's first recipient under auto
        # A `<tool_call>` body that opens with a tag or JSON is qwen3-coder's or hermes's, one
        # that opens as `NAME(` a pythonic call's.
        claim = claim_unless_first_char(body, "<{[")
        pythonic = claim_call_head(body)
        if claim is Claim.MINE and pythonic is not Claim.NOT_MINE:
            return Claim.NOT_MINE if pythonic is Claim.MINE else Claim.MAYBE
        return claim

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        if marker != self.tags.open:
            return HeaderJsonReader(LEADING_CALL, "", ctx, header=marker)
        return GlmReader(ctx, self.tags, hermes_reader)

    def render_tools(self, tools: Sequence[Tool]) -> str:
        n, t = self.sep, self.tags
        return (
            declare_tools(tools)
            + "To call a function, write its name and each argument as a key and a value inside "
            f"{t.open}{t.close} tags, one block per call:\n"
            f"{t.open}FUNCTION_NAME{n}{t.arg_key}KEY{t.arg_key_end}{n}{t.arg_value}VALUE"
            f"{t.arg_value_end}{n}...{n}{t.close}\n"
            "Write a string value as it is (no quotes, no escaping); write numbers, booleans, "
            "arrays and objects as JSON."
        )

    def render_call(self, call: ToolCall) -> str:
        n, t = self.sep, self.tags
        parts = [f"{t.open}{call.name}{n}"]
        for key, value in call.arguments.items():
            text = value if isinstance(value, str) else canonical_json(value)
            carried_raw(key, t.stops, protocol_id=self.id)
            carried_raw(text, t.stops, protocol_id=self.id)
            parts.append(
                f"{t.arg_key}{key}{t.arg_key_end}{n}{t.arg_value}{text}{t.arg_value_end}{n}"
            )
        parts.append(t.close)
        return "".join(parts)


# -------------------------------------------------------------------------------- the reader

_HEAD, _BODY, _DONE = range(3)


class GlmReader(BlockReader):
    """Reads one `<tool_call>` block: the name (decided before it is consumed), then the body
    up to `</tool_call>`, read whole by `read_body` when the block closes. Body text in which
    no block end can begin is taken by the engine's plain-text run without calling the reader."""

    def __init__(
        self,
        ctx: BlockContext,
        tags: KeyValueTags,
        json_reader: Callable[[BlockContext], BlockReader],
        json_leads: str = "{",
    ) -> None:
        self.ctx = ctx
        self.tags = tags
        #: The reader of a block that holds a JSON call object (`{"name": ...}`) instead, and
        #: the characters that open such a block (a list of call objects too, where the
        #: format's JSON reader reads one).
        self.json_reader = json_reader
        self.json_leads = json_leads
        self.state = _HEAD
        self.pieces: list[str] = []  # the body after the name, as consumed
        self.hermes: BlockReader | None = None
        #: The `key=value` words of a plain-variant call (`_PLAIN_CALL`), else None.
        self.plain: str | None = None
        self._stop = 0
        #: A block end met inside an open value is the value's text when the value's own closer
        #: follows before any of these. After `</tool_call>`: before a new block. After
        #: `<tool_call>` (a value mentioning the tag, llama.cpp's Ling 3.0 case): before the
        #: block's closer or a key too, which a real next call writes before any value closer,
        #: so an unclosed value followed by a new call still ends at its `<tool_call>`.
        self._after_quoted = {
            tags.close: (tags.open,),
            tags.open: (tags.open, tags.close, tags.arg_key),
        }
        #: `_value_open`'s last answer: (the body's length when asked, the answer).
        self._open_asked = (-1, False)

    def step(self, buf: str, pos: int, end: int, final: bool) -> int:
        if self.hermes is not None:
            return self.hermes.step(buf, pos, end, final)
        if self.state == _HEAD:
            return self._head(buf, pos, end, final)
        if self.state == _BODY:
            return self._body(buf, pos, end, final)
        return pos

    def _head(self, buf: str, pos: int, end: int, final: bool) -> int:
        k = skip_blanks(buf, pos, min(end, pos + MAX_TAG_LENGTH + 1))
        if k - pos > MAX_TAG_LENGTH:
            self.ctx.revert("", rescan=True)
            return pos
        if k == end and not final:
            return pos
        if k < end and buf[k] in self.json_leads:
            self.hermes = self.json_reader(self.ctx)
            return self.hermes.step(buf, pos, end, final)
        m = _NAME_END.search(buf, k, min(end, k + MAX_TAG_LENGTH))
        if m is None and not final:
            if end - k >= MAX_TAG_LENGTH:
                self.ctx.revert("", rescan=True)
            return pos
        cut = end if m is None else m.start()
        head = split_name(buf[k:cut])
        plain = None if head is not None or m is None else _PLAIN_CALL.fullmatch(buf, k, cut)
        if plain is not None:
            closed = buf.startswith(self.tags.close, cut, end)
            if not closed and not final and self.tags.close.startswith(buf[cut:end]):
                return pos  # what follows may still be the closer
            if closed:
                self.plain = plain.group(2)
                head, cut = (plain.group(1), ""), plain.end(1)
        if head is None:  # not a name: the marker and this text are text
            self.ctx.revert("", rescan=True)
            return pos
        if m is None:
            return end  # the stream ended in what may be a longer name: a nameless fragment
        if not self.ctx.begin_call(head[0]):
            self.ctx.revert(buf[pos:cut], rescan=False)
            return cut
        self.state = _BODY
        self.ctx.stream_value(self.tags.body_text, raw=(self.pieces,))
        return self._body(buf, cut, end, final) if cut < end else cut

    def _body(self, buf: str, pos: int, end: int, final: bool) -> int:
        tags = self.tags
        while True:
            at, tag = find_closer(buf, pos, end, tags.block_end, final=final)
            if not tag:
                if at > pos:
                    self.pieces.append(buf[pos:at])
                return at
            self.pieces.append(buf[pos:at])
            if not self._value_open():
                break
            stop = at + len(tag)
            literal = enclosing_closer_is_text(
                buf, stop, end, tags.arg_value_end, self._after_quoted[tag], final=final
            )
            if literal is None:
                return at  # decided once the window past the marker is there
            if not literal:
                break
            self.pieces.append(tag)  # a value quoting the block's closer or opener: its text
            pos = stop
        self.ctx.stop_value()
        if self.plain is not None:
            body = read_plain(self.plain, self.ctx)
        else:
            body = read_body("".join(self.pieces), self.ctx, tags)
        if tag == tags.close:
            stop = at + len(tags.close)
            self.ctx.end_call(body.arguments, at=stop, error=body.error, repairs=body.repairs)
        else:
            stop = at  # the next call is a block of its own
            self.ctx.end_call(body.arguments, at=stop, error=NOT_CLOSED_BEFORE_NEXT)
        self.state = _DONE
        self.ctx.end_block()
        return stop

    def _value_open(self) -> bool:
        """Whether the body read so far ends inside an `<arg_value>` (its closer not written):
        asked at a `</tool_call>`, once per closer position (the answer is kept, and the body
        joined only when it grew, so a closer held for its look-ahead costs nothing per chunk)."""
        size = sum(map(len, self.pieces))
        if self._open_asked[0] != size:
            text = "".join(self.pieces)
            self.pieces[:] = [text]  # in place: the engine's run appends to this list
            opened = text.rfind(self.tags.arg_value)
            self._open_asked = (size, opened > text.rfind(self.tags.arg_value_end))
        return self._open_asked[1]

    def at_eof(self) -> EofVerdict:
        if self.hermes is not None:
            return self.hermes.at_eof()
        if self.state != _BODY:
            return EofVerdict(recoverable=False)
        text = "".join(self.pieces)
        cut = partial_marker_start(text, 0, len(text), (self.tags.close,))
        body = read_body(text[:cut], self.ctx, self.tags)
        if body.error is not None:
            return EofVerdict(False, body.arguments, reason=body.error)
        if not body.arguments and cut == len(text):
            return EofVerdict(False, reason=CUT_AFTER_HEADER)
        # A value or key still open may be cut in the middle: only a body complete but for its
        # closer is recovered (R3).
        return EofVerdict(not body.open_at_end, body.arguments)


GLM45 = GlmProtocol(
    "glm45",
    "GLM-4.5/4.6 key/value tags: <tool_call>NAME\\n<arg_key>K</arg_key>\\n<arg_value>V"
    "</arg_value>\\n</tool_call>",
    ("glm-4.5", "glm-4.6", "glm46"),
    "\n",
    leading_calls=True,
)
GLM47 = GlmProtocol(
    "glm47",
    "GLM-4.7 key/value tags: <tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value>"
    "</tool_call>",
    ("glm-4.7",),
    "",
)
