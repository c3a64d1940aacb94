"""Hermes: `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`, results in `<tool_response>`.

The format of Hermes, Qwen 2.5/3 and many fine-tunes. Several blocks, or several JSON objects in
one block, are parallel calls. A `</tool_call>` inside a JSON string is not a close; a new
`<tool_call>` before a close ends the previous block; arguments given as a JSON string are
decoded. String arguments stream while they are written. A model that leaves out its opening
`<tool_call>` (or whose engine strips it) writes the JSON and then `</tool_call>`: that is a call
when its name resolves against the tools, or with `tools=None` when it is the whole output;
JSON without the closer stays text. A tag that names the tool in an attribute, `<tool_call
name="NAME">{arguments}</tool_call>` (an `id="…"` attribute beside it; DeepSeek V4 writes it so),
holds that call's arguments. The reading is the JSON-in-delimiters family's (`json_calls`,
`json_values` for the opener-less JSON, `json_args` for the named tag); this module declares its
markers, prompt and result envelope.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache

from toolmend.core.reader import Anchor, BlockContext, BlockReader, BodyStart
from toolmend.model import Tool, ToolCall, canonical_json
from toolmend.names import ToolResolver
from toolmend.protocols.base import (
    Claim,
    TextProtocol,
    ToolResponseResults,
    claim_by_first_char,
    declare_tools,
)
from toolmend.protocols.json_args import HeaderJsonReader, HeaderJsonSyntax, header_name_by
from toolmend.protocols.json_calls import FENCE_LINE, NAME_KEYS, JsonCallFormat, JsonCallsReader
from toolmend.protocols.json_values import BARE_BODY_STARTS, CallValuesReader

OPEN = "<tool_call>"
CLOSE = "</tool_call>"
#: A block: JSON call objects up to `</tool_call>`; a new `<tool_call>` before it ends it too.
BLOCK = JsonCallFormat(
    closers=(CLOSE,), reopeners=(OPEN,), block="a <tool_call> block", name_keys=NAME_KEYS
)
#: The first characters of a block's JSON written without its opener.
BARE = ("{", "[")
#: A `<tool_call>` body fenced as code, as the reader takes it (`json_calls`): the fence line
#: (```` ```json ````), then the JSON's first character, if it has come (group 1).
_FENCED_BODY = re.compile(rf"{FENCE_LINE.pattern}[ \t]*\r?\n\s*([\[{{])?")
#: What may still grow into a fence line.
_FENCE_PREFIX = re.compile(r"`{1,}[\w+-]*[ \t]*\r?")


def claim_json_body(body: str) -> Claim:
    """Hermes's claim on a `<tool_call>` body: JSON, or JSON in a code fence (which the
    reader reads too, so `auto` reads what `hermes` does)."""
    text = body.lstrip(" \t\r\n")
    if not text.startswith("`"):
        return claim_by_first_char(body, "{[")
    m = _FENCED_BODY.match(text)
    if m is None:
        return Claim.MAYBE if _FENCE_PREFIX.fullmatch(text) else Claim.NOT_MINE
    if m.group(1):
        return Claim.MINE
    return Claim.MAYBE if m.end() == len(text) else Claim.NOT_MINE


#: The opener of a tag that names its tool in an attribute (`<tool_call name="NAME" id="…">`).
NAMED_OPEN = "<tool_call "
_ATTRIBUTE = r'[\w-]+\s*=\s*"[^"<>{}]*"\s*'
#: The rest of such a tag: attributes, one of them `name`, then `>` (and blanks before the JSON).
_NAMED_HEADER = re.compile(
    rf'\s*(?:{_ATTRIBUTE})*?name\s*=\s*"([^"<>{{}}]+)"\s*(?:{_ATTRIBUTE})*>\s*\Z'
)
#: Every beginning of such a tag's rest: words, `=`, quoted values, then `>` and blanks. The
#: quantifiers are possessive: a word is taken whole, so a run of word characters has one reading
#: and text that is no header fails at once (a backtracking `(?:[\w-]+…)*` over
#: `<tool_call assistantcommentary to=functions.` took exponential time).
_NAMED_VIABLE = re.compile(r'\s*+(?:[\w-]++\s*+(?:=\s*+(?:"[^"<>{}]*+"?)?)?\s*+)*+(?:>\s*+)?')
NAMED = HeaderJsonSyntax(
    parse_header=header_name_by(_NAMED_HEADER),
    call_openers=(NAMED_OPEN,),
    call_closers=(CLOSE,),
    single_call=True,
    header_viable=_NAMED_VIABLE,
)


class HermesProtocol(ToolResponseResults, TextProtocol):
    id = "hermes"
    summary = 'JSON in <tool_call> tags: <tool_call>{"name": ..., "arguments": {...}}</tool_call>'

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return (OPEN, NAMED_OPEN, *BARE)

    def anchors(self, resolver: ToolResolver) -> Mapping[str, Anchor]:
        start: Anchor = "output"  # with tools=None, opener-less JSON is the whole output
        return dict.fromkeys(BARE, start) if resolver.accepts_any else {}

    def body_starts(self, resolver: ToolResolver) -> Mapping[str, BodyStart]:
        return {marker: BARE_BODY_STARTS[marker] for marker in BARE}  # the bare guard's

    def cut_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return (OPEN,)

    def token_openers(self) -> Sequence[str]:
        return (OPEN,)  # an added special token of the Qwen2.5/Qwen3 and Hermes 2 Pro tokenizers

    def closing_markers(self) -> Sequence[str]:
        return (CLOSE,)

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        if marker == NAMED_OPEN:
            return HeaderJsonReader(NAMED, marker, ctx)
        if marker in BARE:
            return CallValuesReader(
                ctx, BLOCK, marker, bare=True, prime=marker, closer_required=True
            )
        return hermes_reader(ctx)

    def claims(self, marker: str, body: str) -> Claim:
        if marker in BARE:
            # Bare JSON under `auto` is the bare readers' (`json_values`), which end it at a
            # `</tool_call>` too.
            return Claim.NOT_MINE
        if marker == NAMED_OPEN:
            return Claim.MINE
        return claim_json_body(body)

    def render_tools(self, tools: Sequence[Tool]) -> str:
        return (
            declare_tools(tools)
            + "To call a function, write one JSON object holding its name and its arguments "
            "inside <tool_call></tool_call> tags; write one block per call:\n"
            '<tool_call>\n{"name": "<function-name>", "arguments": {<arguments as JSON>}}\n'
            "</tool_call>"
        )

    def render_call(self, call: ToolCall) -> str:
        body = canonical_json({"name": call.name, "arguments": call.arguments})
        return f"{OPEN}\n{body}\n{CLOSE}"


def hermes_reader(ctx: BlockContext, opener: str = OPEN, closer: str = CLOSE) -> JsonCallsReader:
    """The reader of one `<tool_call>` block of JSON call objects (qwen3-coder's too), or of
    the same JSON in another wrapper (Seed-OSS's `<seed:tool_call>`), which ends at its own
    closer."""
    return JsonCallsReader(ctx, _block(opener, closer), opener)


@lru_cache(maxsize=8)
def _block(opener: str, closer: str) -> JsonCallFormat:
    if (opener, closer) == (OPEN, CLOSE):
        return BLOCK
    return JsonCallFormat(
        closers=(closer,), reopeners=(opener,), block=f"a {opener} block", name_keys=NAME_KEYS
    )


PROTOCOL = HermesProtocol()
