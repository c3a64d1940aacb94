"""The invoke family: `<invoke name="NAME"><parameter name="KEY">VALUE</parameter></invoke>`.

This module owns what `anthropic-xml` and `antml` share, parameterised by a small
`InvokeFormat` (id, whether `<function_calls>` wraps rendered calls, policy, duplicate rule,
missing-angle tolerance): the prompt, call and result renderers, and one block reader.

Wire format, as both formats read it:

* an invoke, bare or inside a wrapper (`<function_calls>`, or MiniMax-M2's
  `<minimax:tool_call>`, both removed with the invokes); every tag may carry one of the format's
  exact prefixes (`antml:`; DeepSeek V3.2's `｜DSML｜`, Step-3's `steptml:`), an invoke's
  parameters and closer using the invoke's own prefix. A parameter tag may say
  `string="false"` after its name (DSML): its value is then read as JSON. An invoke may hold
  its arguments as one JSON object instead of parameter tags (DSML's other shape). The wrapper is
  accepted only around a recognised invoke: the opening `<invoke name="...">`, its name
  resolving, and a complete first `<parameter name="...">`, `</invoke>` or `{` after it. Several
  invokes in one wrapper are parallel calls of one block.
* values: XML entities (`&lt; &gt; &amp; &quot; &apos;`, numeric references) are decoded; a
  value is the string as written unless the tool's schema declares the key with a type the
  string does not satisfy, then it is JSON (numbers, booleans, arrays, objects). Undeclared keys
  stay strings: the schema gate decides what they mean (renames, coercions, removal).
* a value whose `</parameter>` is missing ends at the invoke's `</invoke>` or the wrapper's
  closer, which end the invoke (and the block) with it (`core/closers.py`), or at the next
  `<parameter name="...">` naming a declared parameter not given yet; the forgotten closers are
  a repair (`close-parameter`, `close-invoke`), an error under the strict policy. A value may
  quote the format's own markup: its `</parameter>` ends it only where the invoke goes on
  after it (a declared parameter, a closer, a new invoke, the end), and any other parameter
  tag inside it is text whose own `</parameter>` pairs with it (`core/closers.Continuation`).
  A value whose closer is missing and that holds parameter markup is never executed.
* a duplicated parameter rejects the call (`DuplicateRule.REJECT`) or the last one wins
  (`DuplicateRule.LAST_WINS`, recorded as a repair; then no argument streams before the call
  closes, since a later value may replace an earlier one).
* with `missing_angle`, `antml:invoke name="...">` whose `<` was lost is recovered when it starts
  the text or follows whitespace (exact case); after such a call the stray `</function_results>`
  seen in the leaked turn is consumed with at most `MAX_INTERSTITIAL_WHITESPACE` whitespace
  characters before it.

The reader never consumes an opening before it is decided, so an unknown tool or a malformed
opening becomes text again exactly as written. It never scans text outside its block (the
engine's `TextScanner` does that, with the code mask), never validates arguments (the engine's
schema gate does) and never writes raw markup into a diagnostic.

Tool results are written into `<stdout>` as they are (models read them; nothing parses them
back), the tool name escaped.

Cost: inside a value a chunk whose `<` and `&` cannot start the closer or an entity (complete
entities in it are decoded on the way) is appended by the engine without calling the reader (a
plain-text run); otherwise the reader does one `str.find` for the closer and holds back only a
partial closer or a partial entity. An undecided
opening is bounded by `MAX_TAG_LENGTH` per tag and `MAX_INTERSTITIAL_WHITESPACE` per whitespace
run, so re-reading it on the next feed keeps the total cost linear.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from toolmend.core.closers import (
    Continuation,
    NameRead,
    NestedClosers,
    enclosing_closer_is_text,
)
from toolmend.core.fastpath import NO_ESCAPES, Escapes, ValueText
from toolmend.core.keyrules import DUPLICATE_KEPT, DuplicateRule, duplicate_key_error
from toolmend.core.reader import (
    CUT_AFTER_HEADER,
    MAX_TAG_LENGTH,
    Anchor,
    BlockContext,
    BlockReader,
    EofVerdict,
)
from toolmend.core.textscan import find_closer, is_proper_prefix, partial_marker_start, skip_blanks
from toolmend.jsontext import decode_json_object
from toolmend.model import Tool, ToolCall, canonical_json
from toolmend.names import ToolResolver
from toolmend.protocols.base import Claim, TextProtocol, carried_raw, claim_by_first_char
from toolmend.schema_gate import Policy, SchemaGate
from toolmend.textvalue import typed_value
from toolmend.xmltext import CDATA_CLOSE, CDATA_OPEN, unwrap_cdata

#: The one namespace prefix the tags may carry, exactly as written (lowercase, with the colon).
PREFIX = "antml:"
#: The opening of an invoke whose `<` was lost (the 2026-08-09 leaked-turn shape), through the
#: opening quote of its name: only this exact spelling is recovered.
MISSING_ANGLE_MARKER = PREFIX + 'invoke name="'
#: The stray trailer a recovered missing-angle call was followed by in the leaked turn.
STRAY_TRAILER = "</function_results>"
#: Whitespace allowed between tags where the reader must look ahead before deciding (after the
#: wrapper opens, between an invoke header and its first tag, between invokes of a wrapper,
#: before the stray trailer). Bounds what an undecided opening holds; a longer run ends the
#: lookahead (the seed's bound for the trailer, used for every such run).
MAX_INTERSTITIAL_WHITESPACE = 127
#: The longest entity decoded (`&#x10FFFF;`, `&#1114111;`); a `&` closer than this to the end
#: of what has arrived is held back until its `;` or another character decides it.
MAX_ENTITY_LENGTH = 10

_ENTITY = re.compile(r"&(?:(lt|gt|amp|quot|apos)|#([0-9]{1,7})|#[xX]([0-9a-fA-F]{1,6}));")
_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}
#: What may still become an entity when more arrives: a prefix of a named one, or `&#` with
#: digits (`&#x` with hex digits). A `&` followed by anything else is text already, so a value
#: cut there reads the same at every split.
_PARTIAL_ENTITY = re.compile(
    r"&(?:l|lt|g|gt|a|am|amp|ap|apo|apos|q|qu|quo|quot|#[0-9]{0,7}|#[xX][0-9a-fA-F]{0,6})?"
)
#: `_ENTITY` without its groups, for the plain-value pattern: groups double a match's cost.
_ENTITY_TEXT = re.sub(r"\((?!\?)", "(?:", _ENTITY.pattern)
_NAME = r'[^"<>\n]*'
# The rest of a tag after its name: ` name="VALUE">` (or, after the missing-angle marker,
# which already holds ` name="`, just `VALUE">`). FULL matches a complete rest; VIABLE matches
# every text that could still grow into one.
# A tag may carry DeepSeek V3.2's `string="true|false"` after its name (DSML: whether the value
# is a string as written or JSON).
_STRING_ATTR = r'(?:[ \t\r\n]+string="(true|false)")?'
_VIABLE_STRING_ATTR = (
    r'(?:[ \t\r\n]+(?:s|st|str|stri|strin|string|string=|string="'
    r'(?:t|tr|tru|true|f|fa|fal|fals|false)?(?:(?<=e)"[ \t\r\n]*)?)?)?'
)
_STRING_VALUE = re.compile(r'string="(true|false)"')
_FULL_REST = re.compile(rf'[ \t\r\n]+name="({_NAME})"{_STRING_ATTR}[ \t\r\n]*>')
_VIABLE_REST = re.compile(
    rf'(?:[ \t\r\n]+(?:n|na|nam|name|name=|name="{_NAME}(?:"{_VIABLE_STRING_ATTR}[ \t\r\n]*)?)?)?'
)
_NAMED_REST = re.compile(rf'[ \t\r\n]+name="({_NAME})"')
_FULL_TAIL = re.compile(rf'({_NAME})"[ \t\r\n]*>')
_VIABLE_TAIL = re.compile(rf'{_NAME}(?:"[ \t\r\n]*)?')
_NAMED_TAIL = re.compile(rf'({_NAME})"')

_OK, _NEED, _BAD = 0, 1, 2


WRAPPER_MARKERS = ("<function_calls>", f"<{PREFIX}function_calls>", "<minimax:tool_call>")


@dataclass(frozen=True, slots=True)
class InvokeFormat:
    """What distinguishes one invoke-family protocol from another."""

    id: str
    summary: str
    #: Rendered calls are wrapped in `<function_calls>` (input accepts both either way).
    wrap_output: bool
    policy: Policy
    duplicates: DuplicateRule
    #: Recover `antml:invoke name="...">` with its `<` missing (boundary-gated, exact case).
    missing_angle: bool
    #: The wrapper rendered calls go in (with `wrap_output`); under `auto` a block opened by
    #: another format's own wrapper (`<minimax:tool_call>`) is left to that format.
    wrapper: str = "function_calls"
    #: An undeclared key's text is read as JSON when it is a JSON non-string (MiniMax-M2's
    #: template writes numbers, arrays and objects as JSON whatever the schema says).
    undeclared_json: bool = False
    #: The namespace prefixes the tags may carry, exactly as written ("" for none).
    prefixes: tuple[str, ...] = ("", PREFIX)
    #: The opening markers of the wrappers invokes may stand in.
    wrappers: tuple[str, ...] = WRAPPER_MARKERS
    #: Rendered parameters say whether their value is a string (`string="true|false"`).
    string_attribute: bool = False
    #: The tag names of a call and of its parameters (MiniCPM4: `function` and `param`).
    invoke_tag: str = "invoke"
    parameter_tag: str = "parameter"
    #: A value written as `<![CDATA[...]]>` is that section's content (MiniCPM4). Its values
    #: then arrive whole, not streamed: a section is unwrapped once the value has closed, after
    #: entities are decoded (as everywhere in a value), and ends at the value's closer.
    cdata: bool = False
    #: An invoke may end with its closer's tag name cut short (`</｜DSML｜inv>`: DeepSeek V4's
    #: quantised models write it so), read as the closer with a repair (an error under strict).
    short_invoke_close: bool = False
    #: A tag the parameters may stand in, inside the invoke (MiniCPM5's `<arguments>…
    #: </arguments>`, as Ollama's MiniCPM5 parser reads it): layout, read past ("" for none).
    parameters_wrapper: str = ""
    #: Tokens a model fumbles into an invoke's name (Glimmer echoes its header's `<|message|>`
    #: there: `name="read<|message|>"`, as Ollama's Glimmer parser reads it): not the name's.
    name_noise: tuple[str, ...] = ()
    #: A value written on its own lines (`<parameter name="k">\nV\n</parameter>`) loses that
    #: first and that last line break, the layout around it (MiniMax-M2's engines, vLLM's and
    #: Ollama's parsers, read it so, as Qwen3-Coder's template lays values out); a value that
    #: starts on its tag's line keeps every character.
    layout_breaks: bool = False
    #: Values are raw text, no entity decoded (MiniMax-M2's template writes a value as it is,
    #: quotes and `&` included, and its engines, vLLM's and Ollama's parsers, read `&amp;` as
    #: the five characters): rendering then refuses a value holding a closer instead of
    #: escaping it (`carried_raw`).
    raw_values: bool = False
    #: Where values end and how the fast path takes them, derived from the above.
    value_ends: ValueEnds = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(
            self,
            "value_ends",
            _value_ends(
                self.prefixes,
                self.wrappers,
                self.invoke_tag,
                self.parameter_tag,
                short_invoke_close=self.short_invoke_close,
                parameters_wrapper=self.parameters_wrapper,
                raw_values=self.raw_values,
            ),
        )


# ------------------------------------------------------------------------------- text helpers


def decode_entities(text: str) -> str:
    """Decode the XML entities and numeric references in `text`; anything else stays literal."""
    if "&" not in text:
        return text
    if "&#" in text:
        return _ENTITY.sub(_entity, text)
    # The named entities alone (most text): the same result at a fraction of the cost. `&amp;`
    # goes last, so no decoded `&` starts another entity.
    return (
        text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", '"')
        .replace("&apos;", "'")
        .replace("&amp;", "&")
    )


def _entity(m: re.Match[str]) -> str:
    if m.group(1):
        return _NAMED[m.group(1)]
    code = int(m.group(2)) if m.group(2) else int(m.group(3), 16)
    return chr(code) if 0 < code <= 0x10FFFF else m.group()


#: XML entities as the fast path reads them: each named or numeric entity begins an escape;
#: complete ones are decoded on the way, unfinished ones wait (at most `MAX_ENTITY_LENGTH`).
_ENTITIES = Escapes(
    (*(f"&{name}" for name in _NAMED), "&#"),
    _ENTITY_TEXT,
    _PARTIAL_ENTITY.pattern,
    decode_entities,
)


@dataclass(frozen=True, slots=True)
class ValueEnds:
    """Where a value ends in each nesting a format allows, and how the fast path takes its text.

    Built once per format, when it is declared, so no parse compiles a search (`closers`,
    `ValueText`): `closers[prefix, wrapper_close]` ends a value at its `</parameter>`, else at
    its invoke's or its wrapper's closer (`""`: an invoke with no wrapper). The fast path's
    `text` stops at every one of those closers, under any prefix and wrapper, entities
    decoded: a value holding a closer of another nesting has that chunk read by the reader,
    which knows the exact ones.
    """

    closers: Mapping[tuple[str, str], NestedClosers]
    text: ValueText
    #: The same, a final line break held back (a value written on its own lines, whose layout
    #: breaks `layout_breaks` trims).
    broken_text: ValueText
    #: What may follow a value's `</parameter>` for it to end the value, by the same keys.
    continuations: Mapping[tuple[str, str], Continuation]


@cache
def _value_ends(
    prefixes: tuple[str, ...],
    wrappers: tuple[str, ...],
    invoke_tag: str,
    parameter_tag: str,
    *,
    short_invoke_close: bool = False,
    parameters_wrapper: str = "",
    raw_values: bool = False,
) -> ValueEnds:
    """The `ValueEnds` of a format's prefixes, wrappers and tags (shared by formats that agree).
    With `short_invoke_close` an invoke's closer cut short (`</PREFIXi…`) continues an invoke
    after a value too (a prefixed one only: `</i` alone is any closing tag)."""
    wrapper_closes = ("", *(f"</{marker[1:]}" for marker in wrappers))
    closers: dict[tuple[str, str], NestedClosers] = {}
    continuations: dict[tuple[str, str], Continuation] = {}
    invokes = tuple(f"<{p}{invoke_tag}" for p in prefixes)
    for prefix in prefixes:
        for wrap_close in wrapper_closes:
            param_tag = f"<{prefix}{parameter_tag}"
            levels = [(f"</{prefix}{parameter_tag}>", param_tag), (f"</{prefix}{invoke_tag}>",)]
            if wrap_close:
                levels.append((wrap_close,))
            closers[prefix, wrap_close] = NestedClosers(levels)
            goes_on = tuple(m for level in levels[1:] for m in level) + invokes
            if short_invoke_close and prefix:
                goes_on += (f"</{prefix}{invoke_tag[0]}",)
            if parameters_wrapper:
                goes_on += (f"</{prefix}{parameters_wrapper}>",)
            continuations[prefix, wrap_close] = Continuation(
                levels[0][0], goes_on, param_tag, _parameter_name, skip_blanks
            )
    stops = dict.fromkeys(m for nested in closers.values() for m in nested.markers)
    escapes = NO_ESCAPES if raw_values else _ENTITIES
    text = ValueText(tuple(stops), escapes)
    broken = ValueText(tuple(stops), escapes, held="\n")
    return ValueEnds(closers, text, broken, continuations)


def _parameter_name(buf: str, i: int, end: int, final: bool) -> NameRead:
    """The name of a parameter tag whose rest is at `buf[i:end]` (`Continuation.read_name`)."""
    status, tag_end, name = _tag_rest(buf, i, end, tail=False)
    if status == _OK and name is not None:
        return True, name, tag_end
    return (None, "", -1) if status == _NEED and not final else (False, "", -1)


def escape_text(text: str) -> str:
    """`&`, `<` and `>` as entities, so a value can hold any text, its own closer included."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def escape_attribute(text: str) -> str:
    return escape_text(text).replace('"', "&quot;")


def render_value(
    value: Any, *, cdata: bool = False, raw: bool = False, layout_breaks: bool = False
) -> str:
    """A parameter value as written: a string as it is, anything else as JSON (escaped; with
    `raw`, a format whose values are raw text, as it is). With `layout_breaks` a text that
    begins with a line break is written on its own lines, so that it reads back whole.

    With `cdata` (a format reading `<![CDATA[…]]>` values), a text that would read as a CDATA
    section once its entities are decoded is written inside one, so it reads back as written:
    a `]]>` in it (escaped `]]&gt;`, which reads as `]]>`) ends one section and opens the next.
    """
    text = value if isinstance(value, str) else canonical_json(value)
    if layout_breaks and text.startswith("\n"):
        text = f"\n{text}\n"
    if raw:
        return text
    text = escape_text(text)
    if cdata and decode_entities(text).strip(" \t\r\n").startswith(CDATA_OPEN):
        split = text.replace("]]&gt;", f"]]{CDATA_CLOSE}{CDATA_OPEN}&gt;")
        return CDATA_OPEN + split + CDATA_CLOSE
    return text


def render_invoke(
    call: ToolCall,
    prefix: str = "",
    *,
    string_attribute: bool = False,
    invoke_tag: str = "invoke",
    parameter_tag: str = "parameter",
    cdata: bool = False,
    raw: bool = False,
    layout_breaks: bool = False,
) -> str:
    """A call as one invoke, its tags with `prefix`; with `string_attribute` each parameter
    says whether its value is a string (DSML's `string="true|false"`)."""
    lines = [f'<{prefix}{invoke_tag} name="{escape_attribute(call.name)}">']
    for key, value in call.arguments.items():
        attr = f' string="{str(isinstance(value, str)).lower()}"' if string_attribute else ""
        lines.append(
            f'<{prefix}{parameter_tag} name="{escape_attribute(key)}"{attr}>'
            f"{render_value(value, cdata=cdata, raw=raw, layout_breaks=layout_breaks)}"
            f"</{prefix}{parameter_tag}>"
        )
    lines.append(f"</{prefix}{invoke_tag}>")
    return "\n".join(lines)


def parameter_value(gate: SchemaGate, key: str, text: str, *, undeclared_json: bool = False) -> Any:
    """The value a parameter's text stands for, by the schema's declared types of `key`.

    The text itself when the key is undeclared (or there is no schema) or the text satisfies
    the key's subschema as a string; else its JSON value when it parses to a non-string
    (`textvalue.typed_value`, strict); else the text (the gate then repairs or rejects it).
    `null` for a key that declares null among its types is null, even where a string is also
    allowed (`anyOf: [string, null]`), as SGLang's MiniMax-M2 detector reads it (its tests for
    issue 16057) and as Qwen3-Coder's values read.
    """
    if undeclared_json and (not gate.declares(key) or gate.declared_types(key) is None):
        return typed_value(text, None)
    if not gate.declares(key):
        return text
    types = gate.declared_types(key)
    if types is not None and "null" in types and text.strip() == "null":
        return None
    if gate.value_as_is(key, text):
        return text
    return typed_value(text, gate.declared_types(key), strict=True)


# ------------------------------------------------------------------------------ the protocol


class InvokeProtocol(TextProtocol):
    """One invoke-family protocol, configured by an `InvokeFormat`."""

    result_closers = tuple(
        f"</{prefix}{tag}>"
        for prefix in ("", PREFIX)
        for tag in ("stdout", "result", "function_results")
    )

    def __init__(self, fmt: InvokeFormat) -> None:
        self.format = fmt
        self.id = fmt.id
        self.summary = fmt.summary
        self.default_policy = fmt.policy
        # Last-wins duplicates may replace an earlier value: deltas only once the call is final.
        self.incremental_arguments = fmt.duplicates is DuplicateRule.REJECT and not fmt.cdata

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        tag = self.format.invoke_tag
        markers = [*(f"<{p}{tag}" for p in self.format.prefixes), *self.format.wrappers]
        if self.format.missing_angle:
            markers.append(MISSING_ANGLE_MARKER)
        return markers

    def anchors(self, resolver: ToolResolver) -> Mapping[str, Anchor]:
        # The missing-angle form counts only at the start of the text or after a blank.
        return {MISSING_ANGLE_MARKER: "word"} if self.format.missing_angle else {}

    def closing_markers(self) -> Sequence[str]:
        return tuple(f"</{p}{self.format.invoke_tag}>" for p in self.format.prefixes)

    def claims(self, marker: str, body: str) -> Claim:
        if marker == "<minimax:tool_call>":
            return Claim.MINE if self.format.wrapper == "minimax:tool_call" else Claim.NOT_MINE
        # Under detection, a bare `<invoke` is the format that writes calls bare (anthropic-xml,
        # strict); a wrapper, the `antml:` prefix or a lost `<` is the wrapping one's (antml).
        if self.format.wrap_output and marker == "<invoke":
            return Claim.NOT_MINE
        # `<function_calls>` also opens OLMo 3's pythonic lines (`<function_calls>f(a=1)`).
        if "function_calls" in marker:
            return claim_by_first_char(body, "<")
        return Claim.MINE

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        return InvokeReader(self.format, marker, ctx)

    def render_tools(self, tools: Sequence[Tool]) -> str:
        declared = [
            {"name": t.name, "description": t.description, "input_schema": t.parameters}
            for t in tools
        ]
        # JSON escapes keep the array valid JSON while no tag can appear inside the block.
        body = (
            json.dumps(declared, ensure_ascii=False)
            .replace("<", "\\u003c")
            .replace(">", "\\u003e")
            .replace("&", "\\u0026")
        )
        fmt = self.format
        p, call, param = fmt.prefixes[0], fmt.invoke_tag, fmt.parameter_tag
        attr = ' string="true"' if fmt.string_attribute else ""
        example = (
            f'<{p}{call} name="FUNCTION_NAME">\n'
            f'<{p}{param} name="PARAMETER_NAME"{attr}>PARAMETER_VALUE</{p}{param}>\n'
            "...\n"
            f"</{p}{call}>"
        )
        if self.format.string_attribute:
            example += '\n(string="false" when the value is a number, boolean, array or object)'
        escaping = (
            "" if fmt.raw_values else "Write &lt;, &gt; and &amp; for <, > and & inside a value. "
        )
        if self.format.wrap_output:
            wrapper = self.format.wrapper
            example = f"<{wrapper}>\n{example}\n</{wrapper}>"
            several = f"Write several invokes in one <{wrapper}> block for parallel calls."
        else:
            several = "Write one invoke after another to call several tools."
        return (
            "You can call the tools declared below. To call one, write:\n"
            f"{example}\n\n"
            "Write a string value as it is; write numbers, booleans, arrays and objects as JSON. "
            f"{escaping}"
            f"{several} Each result comes back in a <function_results> block.\n\n"
            "The tools, as a JSON array of name, description and input_schema:\n"
            f"<tools>\n{body}\n</tools>"
        )

    def render_call(self, call: ToolCall) -> str:
        fmt = self.format
        if fmt.raw_values:
            for value in call.arguments.values():
                text = value if isinstance(value, str) else canonical_json(value)
                carried_raw(text, fmt.value_ends.text.stops, protocol_id=fmt.id)
        invoke = render_invoke(
            call,
            fmt.prefixes[0],
            string_attribute=fmt.string_attribute,
            invoke_tag=fmt.invoke_tag,
            parameter_tag=fmt.parameter_tag,
            cdata=fmt.cdata,
            raw=fmt.raw_values,
            layout_breaks=fmt.layout_breaks,
        )
        return (
            f"<{self.format.wrapper}>\n{invoke}\n</{self.format.wrapper}>"
            if self.format.wrap_output
            else invoke
        )

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        return (
            f"<function_results><result><tool_name>{escape_text(name)}</tool_name>"
            f"<stdout>{content}</stdout></result></function_results>"
        )


# -------------------------------------------------------------------------------- the reader


def _literal(buf: str, i: int, end: int, lit: str) -> int:
    """Does `buf[i:end]` start with `lit` (_OK), could it still (_NEED), or not (_BAD)?"""
    if buf.startswith(lit, i, end):
        return _OK
    if is_proper_prefix(buf[i:end], (lit,)):
        return _NEED
    return _BAD


def _one_of(buf: str, i: int, end: int, lits: Sequence[str]) -> tuple[int, str]:
    """The first of `lits` that `buf[i:end]` starts with, or whether one still could."""
    status = _BAD
    for lit in lits:
        found = _literal(buf, i, end, lit)
        if found == _OK:
            return _OK, lit
        status = min(status, found)
    return status, ""


def _header_rest(
    buf: str, i: int, end: int, tail: bool, noise: tuple[str, ...]
) -> tuple[int, int, str | None]:
    """`_tag_rest` of an invoke's header, whose name may hold `noise` tokens (`name_noise`):
    read with them left out, the end mapped back to `buf`. A token's `>` does not end the tag,
    and a token cut by the end of what has arrived may still complete."""
    if not noise or "<" not in buf[i : min(end, i + MAX_TAG_LENGTH)]:
        return _tag_rest(buf, i, end, tail)
    seg = buf[i : min(end, i + 2 * MAX_TAG_LENGTH)]
    kept: list[str] = []
    removed = k = 0
    while True:
        lt, gt = seg.find("<", k), seg.find(">", k)
        if lt == -1 or -1 < gt < lt:
            break  # the tag's own `>` comes first
        token = next((t for t in noise if seg.startswith(t, lt)), None)
        if token is None:
            if is_proper_prefix(seg[lt:], noise):  # cut inside a token: wait for the rest
                kept.append(seg[k:lt])
                return _tag_rest("".join(kept), 0, lt - removed, tail)[0], i, None
            break
        kept.append(seg[k:lt])
        removed += len(token)
        k = lt + len(token)
    kept.append(seg[k:])
    clean = "".join(kept)
    status, stop, name = _tag_rest(clean, 0, len(clean), tail)
    return (status, i + stop + removed, name) if status == _OK else (status, i, name)


def _tag_rest(buf: str, i: int, end: int, tail: bool) -> tuple[int, int, str | None]:
    """Read the rest of a tag from `buf[i]`: `(status, end of the tag, decoded name)`.

    `tail` reads what follows the missing-angle marker (the name and `">`). On _NEED the name
    is given when its closing quote has arrived, so a cut-off header can still be named.
    """
    full, viable, named = (
        (_FULL_TAIL, _VIABLE_TAIL, _NAMED_TAIL) if tail else (_FULL_REST, _VIABLE_REST, _NAMED_REST)
    )
    limit = min(end, i + MAX_TAG_LENGTH)
    gt = buf.find(">", i, limit)
    if gt != -1:
        m = full.fullmatch(buf, i, gt + 1)
        return (_OK, gt + 1, decode_entities(m.group(1))) if m else (_BAD, i, None)
    if limit - i >= MAX_TAG_LENGTH or not viable.fullmatch(buf, i, end):
        return _BAD, i, None
    m = named.match(buf, i, end)
    return _NEED, i, decode_entities(m.group(1)) if m else None


@dataclass(slots=True)
class _Opening:
    """An invoke opening read ahead without consuming it."""

    status: int
    prefix: str = ""
    name: str | None = None
    header_end: int = -1  # after the invoke header's `>`, once complete


_OPENING, _BODY, _VALUE, _SKIP, _AFTER, _JSON = range(6)


class InvokeReader(BlockReader):
    """Reads one block: a bare invoke, a missing-angle invoke, or a `<function_calls>` wrapper."""

    def __init__(self, fmt: InvokeFormat, marker: str, ctx: BlockContext) -> None:
        self.fmt = fmt
        self.ctx = ctx
        self.wrapped = marker in fmt.wrappers
        self.missing_angle = marker == MISSING_ANGLE_MARKER
        self.wrap_close = f"</{marker[1:]}" if self.wrapped else ""
        self.invoke_tags = tuple(f"<{p}{fmt.invoke_tag}" for p in fmt.prefixes)
        self.prefix = next(
            (p for p in fmt.prefixes if p and marker.startswith((f"<{p}", p))), fmt.prefixes[0]
        )
        self.state = _OPENING
        self.calls_ended = 0
        #: What the block consumed before this reader's first step (a message header an outer
        #: reader read): a revert gives it back, ahead of what this reader consumed.
        self.lead_in = ""
        self.eof_name: str | None = None
        self._new_invoke(self.prefix)

    def _new_invoke(self, prefix: str) -> None:
        self.prefix = prefix
        self.param_tag = f"<{prefix}{self.fmt.parameter_tag}"
        self.param_close = f"</{prefix}{self.fmt.parameter_tag}>"
        self.invoke_close = f"</{prefix}{self.fmt.invoke_tag}>"
        wrapper = self.fmt.parameters_wrapper
        #: The parameters' own wrapper tags, if the format has one: layout between parameters.
        self.params_layout = (f"<{prefix}{wrapper}>", f"</{prefix}{wrapper}>") if wrapper else ()
        self.value_closers = self.fmt.value_ends.closers[prefix, self.wrap_close]
        self.continuation = self.fmt.value_ends.continuations[prefix, self.wrap_close]
        self.done: dict[str, Any] = {}
        self.key = ""
        self.pieces: list[str] = []
        self.quoted = 0  # quoted parameter tags open in the value, each awaiting its closer
        self.streaming = False
        self.discard = False  # the value in progress is a rejected duplicate
        self.duplicate: str | None = None
        self.repairs: list[str] = []  # a kept duplicate (under `DuplicateRule.LAST_WINS`)
        self.error: str | None = None
        self.tail_closes = True  # what is held at the end is (a prefix of) the invoke closer
        self.closer_begun = False  # ... and it is not only blanks
        self.as_json = False  # the value in progress is JSON (DSML's `string="false"`)
        #: With `layout_breaks`: the value began with a line break (its last one is layout
        #: too); None until its first character has arrived.
        self.broke: bool | None = False
        self.json_pieces: list[str] = []  # arguments written as one JSON object

    # ------------------------------------------------------------------------- reading ahead

    def _opening(self, buf: str, pos: int, end: int, *, needs_tag: bool) -> _Opening:
        """Read an invoke opening at `pos`: its header and its first tag, consuming nothing.

        With `needs_tag` the opening starts with whitespace and the `<invoke` tag (inside a
        wrapper); else the block's marker held the tag and the header's rest comes first.
        """
        i = pos
        prefix = self.prefix
        if needs_tag:
            j = skip_blanks(buf, i, end)
            if j - i > MAX_INTERSTITIAL_WHITESPACE:
                return _Opening(_BAD)
            if j == end:
                return _Opening(_NEED)
            status, tag = _one_of(buf, j, end, self.invoke_tags)
            if status != _OK:
                return _Opening(status)
            prefix = tag[1 : -len(self.fmt.invoke_tag)]
            i = j + len(tag)
        status, header_end, name = _header_rest(
            buf, i, end, self.missing_angle and i == pos, self.fmt.name_noise
        )
        if status != _OK:
            return _Opening(status, prefix, name)
        j = skip_blanks(buf, header_end, end)
        if j - header_end > MAX_INTERSTITIAL_WHITESPACE:
            return _Opening(_BAD)
        if j == end:
            return _Opening(_NEED, prefix, name, header_end)
        if buf[j] == "{":
            return _Opening(_OK, prefix, name, header_end)  # the arguments as one JSON object
        close = f"</{prefix}{self.fmt.invoke_tag}>"
        wrapper = self.fmt.parameters_wrapper
        layout = (f"<{prefix}{wrapper}>",) if wrapper else ()  # the parameters' own wrapper
        status, tag = _one_of(buf, j, end, (f"<{prefix}{self.fmt.parameter_tag}", close, *layout))
        if status == _OK and tag != close and tag not in layout:
            status = _tag_rest(buf, j + len(tag), end, tail=False)[0]
        return _Opening(status, prefix, name, header_end)

    # ----------------------------------------------------------------------------- stepping

    def step(self, buf: str, pos: int, end: int, final: bool) -> int:
        while True:
            state = self.state
            if state == _VALUE:
                pos, more = self._value(buf, pos, end, final)
            elif state == _BODY:
                pos, more = self._body(buf, pos, end)
            elif state == _OPENING:
                pos, more = self._open(buf, pos, end, final)
            elif state == _JSON:
                pos, more = self._json(buf, pos, end, final)
            elif state == _SKIP:
                pos, more = self._skip(buf, pos, end, final)
            else:
                pos, more = self._after(buf, pos, end, final)
            if not more:
                return pos

    def _open(self, buf: str, pos: int, end: int, final: bool) -> tuple[int, bool]:
        """The block's first invoke: a bad opening makes the marker text again."""
        op = self._opening(buf, pos, end, needs_tag=self.wrapped)
        self.eof_name = op.name
        if op.status == _BAD:
            self.ctx.revert(self.lead_in, rescan=False)  # nothing of its own consumed
            return pos, False
        return self._begin(op, buf, pos, final)

    def _begin(self, op: _Opening, buf: str, pos: int, final: bool) -> tuple[int, bool]:
        """Begin the call of a complete opening (at the end of the stream: a complete header)."""
        if op.status == _NEED and not (final and op.header_end >= 0):
            return pos, False
        assert op.name is not None
        if self.calls_ended and self.ctx.resolver.resolve(op.name) is None:
            self.ctx.end_block()  # read again as a bare invoke, which keeps it as text
            return pos, False
        if not self.ctx.begin_call(op.name):
            self.ctx.revert(self.lead_in + buf[pos : op.header_end], rescan=False)
            return op.header_end, False
        self._new_invoke(op.prefix)
        self.state = _BODY
        return op.header_end, True

    def _body(self, buf: str, pos: int, end: int) -> tuple[int, bool]:
        """Between parameters: whitespace, then `<parameter name="...">` or `</invoke>`."""
        pos = skip_blanks(buf, pos, end)
        if pos == end:
            self.tail_closes, self.closer_begun = True, False
            return pos, False
        if buf[pos] == "{" and not self.done and not self.json_pieces and self.error is None:
            self.ctx.args.halt()
            self.state = _JSON  # the arguments as one JSON object (DSML's other shape)
            return pos, True
        ends = (
            self.param_tag,
            self.invoke_close,
            *((self.wrap_close,) if self.wrapped else ()),
            *self.params_layout,
        )
        status, tag = _one_of(buf, pos, end, ends)
        if status == _OK and tag in self.params_layout:
            return pos + len(tag), True  # the parameters' wrapper: layout
        if status == _OK and tag == self.invoke_close:
            return self._end_invoke(pos + len(tag)), True
        if status == _OK and tag == self.wrap_close:
            # The wrapper's closer, the invoke's forgotten: it ends the invoke (and the block).
            self._forgotten("close-invoke", f"the invoke is not closed with {self.invoke_close}")
            return self._end_invoke(pos), True
        if status == _OK:
            status, value_start, key = _tag_rest(buf, pos + len(tag), end, tail=False)
            if status == _OK:
                assert key is not None
                attr = _STRING_VALUE.search(buf, pos + len(tag), value_start)
                self._open_value(key, as_json=attr is not None and attr.group(1) == "false")
                return value_start, True
        if status == _NEED:
            self.tail_closes = self.closer_begun = self.invoke_close.startswith(buf[pos:end])
            return pos, False
        short_end = self._short_invoke_close(buf, pos, end)
        if short_end:
            self._forgotten("close-invoke", f"the invoke is closed short of {self.invoke_close}")
            return self._end_invoke(short_end), True
        self.error = "the invoke holds something other than <parameter> tags"
        self.ctx.args.halt()
        self.state = _SKIP
        return pos, True

    def _short_invoke_close(self, buf: str, pos: int, end: int) -> int:
        """The end of a complete `</PREFIXinv>` at `pos` (a non-empty, proper start of the invoke
        tag's name), with `short_invoke_close`; else 0. Asked only once `buf[pos:]` can no
        longer grow into the real closer, so the tag is complete whenever it is there."""
        opening = self.invoke_close[: -len(self.fmt.invoke_tag) - 1]  # `</PREFIX`
        if not self.fmt.short_invoke_close or not buf.startswith(opening, pos, end):
            return 0
        gt = buf.find(">", pos + len(opening), min(end, pos + len(self.invoke_close)))
        name = buf[pos + len(opening) : gt]
        return gt + 1 if gt != -1 and name and self.fmt.invoke_tag.startswith(name) else 0

    def _open_value(self, key: str, *, as_json: bool = False) -> None:
        self.key = key
        self.pieces = []
        self.quoted = 0
        self.discard = False
        self.streaming = False
        self.as_json = as_json
        if key in self.done or key == self.duplicate:
            self.ctx.args.halt()
            if self.fmt.duplicates is DuplicateRule.REJECT:
                self.duplicate = self.duplicate or key
                self.discard = True
        elif self.duplicate is None and not as_json and not self.fmt.cdata:
            self.streaming = self.ctx.args.open_string(key)
        self.broke = None if self.fmt.layout_breaks and not self.discard else False
        if not self.discard and self.broke is not None:
            self.ctx.stream_value(self.fmt.value_ends.text, decoded=(self.pieces,))
        self.state = _VALUE

    def _first_break(self, buf: str, pos: int, end: int, final: bool) -> int:
        """With `layout_breaks`, at the value's first character: skip a leading line break (the
        value is then on its own lines) and let the fast path take the value; `pos` while the
        character has not arrived, else where the value's text begins."""
        if pos == end and not final:
            return pos
        self.broke = buf.startswith("\n", pos, end)
        ends = self.fmt.value_ends
        self.ctx.stream_value(ends.broken_text if self.broke else ends.text, decoded=(self.pieces,))
        return pos + 1 if self.broke else pos

    def _held_break(self, buf: str, pos: int, stop: int) -> int:
        """`stop`, or one less when the value is on its own lines and `buf[pos:stop]` ends with
        a line break: the layout before the closer, decided once the closer is read."""
        return stop - 1 if self.broke and stop > pos and buf[stop - 1] == "\n" else stop

    def _value(self, buf: str, pos: int, end: int, final: bool) -> tuple[int, bool]:
        """Inside a value: everything up to `</parameter>` (the hot path for long values)."""
        if self.broke is None:
            start = self._first_break(buf, pos, end, final)
            if self.broke is None:
                return pos, False
            pos = start
        at, close, level = self.value_closers.find(buf, pos, end)
        if level == 0:
            quoted = self._quoted_markup(buf, at + len(close), end, close, final)
            if quoted is None:  # decided once the window past the tag is there
                cut = self._held_break(buf, pos, at)
                if cut > pos:
                    self._value_piece(buf[pos:cut])
                return cut, False
            if quoted:
                self._value_piece(buf[pos : at + len(close)])
                return at + len(close), True
            if close == self.param_tag:  # the next parameter: this value's closer forgotten
                self.ctx.stop_value()
                self._value_piece(buf[pos : self._held_break(buf, pos, at)])
                self._forgotten("close-parameter", f"parameter {self.key[:64]!r} is not closed")
                self._refuse_if_quoting()
                self._close_value()
                self.state = _BODY
                return at, True
        elif (
            close and level > 0
        ):  # the invoke's or the wrapper's closer, the value's own not written
            literal = enclosing_closer_is_text(
                buf,
                at + len(close),
                end,
                self.param_close,
                (*self.invoke_tags, *self.fmt.wrappers),
                final=final,
            )
            if literal is None:  # decided once the window past the closer is there
                cut = self._held_break(buf, pos, at)
                if cut > pos:
                    self._value_piece(buf[pos:cut])
                return cut, False
            if literal:
                self._value_piece(buf[pos : at + len(close)])  # a value quoting the closer
                return at + len(close), True
        if close:
            self.ctx.stop_value()
            self._value_piece(buf[pos : self._held_break(buf, pos, at)])
            stop = at + len(close)
            if level == 0:
                self._close_value()
                self.state = _BODY
                return stop, True
            self._forgotten("close-parameter", f"parameter {self.key[:64]!r} is not closed")
            self._forgotten("close-invoke", f"the invoke is not closed with {self.invoke_close}")
            self._refuse_if_quoting()
            self._close_value()
            self._end_invoke(stop)
            if level == 1:
                return stop, True
            self.ctx.end_block()  # the wrapper's closer ends the block too
            return stop, False
        stop = at  # a partial closer may begin there
        if not final:
            amp = (
                -1
                if self.fmt.raw_values
                else buf.rfind("&", max(pos, stop - MAX_ENTITY_LENGTH + 1), stop)
            )
            if amp != -1 and _PARTIAL_ENTITY.fullmatch(buf, amp, stop):
                stop = amp  # a partial entity: decide it when more has arrived
            stop = self._held_break(buf, pos, stop)
        if stop > pos:
            self._value_piece(buf[pos:stop])
        return stop, False

    def _quoted_markup(self, buf: str, stop: int, end: int, tag: str, final: bool) -> bool | None:
        """Whether the value's `</parameter>` or parameter tag ending at `stop` is its text, a
        quote of the format's markup (see the module docstring); None while undecided."""
        verdict, self.quoted = self.continuation.quoted_markup(
            buf,
            stop,
            end,
            self.quoted,
            closer=tag == self.param_close,
            next_parameter=lambda name: (
                name != self.key and name not in self.done and self._declares(name)
            ),
            declared=self._declares,
            final=final,
        )
        return verdict

    def _declares(self, name: str) -> bool:
        """The invoke's tool declares a parameter `name` (or declares none). After a value's
        closer such a parameter continues the invoke even when given already (a repeat, which
        the duplicate rule answers); inside a value, only one not given yet ends it."""
        tool = self.ctx.current_tool
        return tool is None or self.ctx.gate_for(tool.name).declares(name)

    def _refuse_if_quoting(self) -> None:
        """A value whose closer is missing and that holds a parameter's tags (quoted: they did
        not end it) may have been cut short at quoted markup: never executed."""
        if self.discard or self.error is not None:
            return
        value = "".join(self.pieces)
        if self.param_close in value or self.param_tag in value:
            self.error = (
                f"parameter {self.key[:64]!r} holds a parameter's markup and is not closed: "
                "its value may be cut short at a quoted closer"
            )

    def _value_piece(self, raw: str) -> None:
        if self.discard:
            return
        text = decode_entities(raw) if "&" in raw and not self.fmt.raw_values else raw
        self.pieces.append(text)
        if self.streaming:
            self.ctx.args.string_chunk(text)

    def _close_value(self) -> None:
        if self.discard:
            return
        text = "".join(self.pieces)
        self.pieces = []
        if self.fmt.cdata:
            text = self._unwrap_cdata(text)
        if self.streaming:
            self.ctx.args.close_string()
            self.streaming = False
            self.done[self.key] = text
            return
        tool = self.ctx.current_tool
        gate = self.ctx.gate_for(tool.name) if tool is not None else SchemaGate(None)
        if self.as_json:
            value = typed_value(text, None)  # DSML's string="false": the text is JSON
        else:
            value = parameter_value(gate, self.key, text, undeclared_json=self.fmt.undeclared_json)
        if self.key in self.done:
            del self.done[self.key]  # the last one wins, where it was written
            if DUPLICATE_KEPT not in self.repairs:
                self.repairs.append(DUPLICATE_KEPT)
        self.done[self.key] = value
        self.ctx.args.put(self.key, value)

    def _unwrap_cdata(self, text: str) -> str:
        """A value quoted in CDATA sections is their content (blanks around them are layout);
        a malformed section makes the call malformed, its text kept for the diagnostic."""
        quoted = text.strip(" \t\r\n")
        if not quoted.startswith(CDATA_OPEN):
            return text
        content, error = unwrap_cdata(quoted)
        if error is not None and self.error is None:
            self.error = error
        return content

    def _json(self, buf: str, pos: int, end: int, final: bool) -> tuple[int, bool]:
        """`<invoke name="NAME">{"key": "value"}</invoke>`: the JSON, up to the invoke's closer."""
        close = self.invoke_close
        at, found = find_closer(buf, pos, end, (close,), final=final)
        self.json_pieces.append(buf[pos:at])
        if not found:
            return at, False
        decoded = decode_json_object(
            "".join(self.json_pieces), allow_repair=self.ctx.policy is Policy.LENIENT
        )
        if decoded.error is None and len(decoded.objects) == 1:
            self.done = decoded.objects[0]
            self.repairs += decoded.repairs
        else:
            self.error = decoded.error or "the invoke holds several JSON objects"
        return self._end_invoke(at + len(close)), True

    def _skip(self, buf: str, pos: int, end: int, final: bool) -> tuple[int, bool]:
        """A malformed invoke: discard up to its closer, then end the call incomplete."""
        at, closed = find_closer(buf, pos, end, (self.invoke_close,), final=final)
        if not closed:
            return at, False
        return self._end_invoke(at + len(self.invoke_close)), True

    def _forgotten(self, repair: str, error: str) -> None:
        """A closer is missing where an enclosing closer makes the structure plain."""
        if self.ctx.policy is Policy.LENIENT:
            if repair not in self.repairs:
                self.repairs.append(repair)
        elif self.error is None:
            self.error = error

    def _reason(self) -> str | None:
        if self.error is not None:
            return self.error
        if self.duplicate is not None:
            return duplicate_key_error(self.duplicate)
        return None

    def _end_invoke(self, at: int) -> int:
        self.ctx.end_call(self.done, at=at, error=self._reason(), repairs=self.repairs)
        self.calls_ended += 1
        self.state = _AFTER
        return at

    def _after(self, buf: str, pos: int, end: int, final: bool) -> tuple[int, bool]:
        """After `</invoke>`: the wrapper's next invoke or closer, or the stray trailer."""
        if not self.wrapped and not self.missing_angle:
            self.ctx.end_block()
            return pos, False
        j = skip_blanks(buf, pos, end)
        if j - pos > MAX_INTERSTITIAL_WHITESPACE:
            self.ctx.end_block()
            return pos, False
        if self.missing_angle:
            status = _literal(buf, j, end, STRAY_TRAILER) if j < end else _NEED
            if status == _NEED and not final:
                return pos, False
            self.ctx.end_block()
            return (j + len(STRAY_TRAILER) if status == _OK else pos), False
        closing = _literal(buf, j, end, self.wrap_close) if j < end else _NEED
        if closing == _OK:
            self.ctx.end_block()
            return j + len(self.wrap_close), False
        op = self._opening(buf, pos, end, needs_tag=True)
        if op.status == _OK or (final and op.status == _NEED and op.header_end >= 0):
            return self._begin(op, buf, pos, final)
        if final and closing == _NEED:
            self.ctx.end_block()  # R3: a cut-off closer and trailing whitespace
            return end, False
        if final or (closing == _BAD and op.status == _BAD):
            self.ctx.end_block()  # the wrapper ends unclosed; what follows is read again
        return pos, False

    # ------------------------------------------------------------------------------ the end

    def at_eof(self) -> EofVerdict:
        state = self.state
        if state == _OPENING:
            return EofVerdict(recoverable=False, name=self.eof_name)
        if state == _AFTER:
            return EofVerdict(recoverable=True)
        if state == _JSON:
            text = "".join(self.json_pieces)
            cut = partial_marker_start(text, 0, len(text), (self.invoke_close,))
            decoded = decode_json_object(text[:cut], allow_repair=False)
            if decoded.error is None and len(decoded.objects) == 1:
                return EofVerdict(recoverable=True, arguments=decoded.objects[0])
            return EofVerdict(recoverable=False)
        args = dict(self.done)
        reason = self._reason()
        if state == _VALUE and not self.discard and self.pieces:
            args[self.key] = "".join(self.pieces)
        if state == _BODY and self.tail_closes and reason is None:
            if not args and not self.closer_begun:
                return EofVerdict(recoverable=False, reason=CUT_AFTER_HEADER)
            return EofVerdict(recoverable=True, arguments=args)
        if reason is not None:
            return EofVerdict(recoverable=False, arguments=args, reason=reason)
        return EofVerdict(recoverable=False, arguments=args)
