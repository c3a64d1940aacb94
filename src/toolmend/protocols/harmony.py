"""gpt-oss harmony: messages with a header, the channel and the recipient naming a call.

    <|start|>assistant<|channel|>analysis<|message|>The user wants the weather.<|end|>
    <|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json
    <|message|>{"city": "Paris"}<|call|>
    <|start|>assistant<|channel|>final<|message|>It is sunny.<|return|>

Owns the markers, the header rule (`read_header`: role, `<|channel|>` name, a `to=` recipient
before or after the channel, a `<|constrain|>` word, in any order), what a message is by its
header, the tools prompt (harmony's TypeScript-like `namespace functions`) and call and result
rendering (a result is the tool's own message, `<|start|>functions.NAME to=assistant…`).

What a message is:

* a header with a recipient other than a role (`to=functions.NAME`, or a built-in such as
  `to=browser.search`), in the commentary or the analysis channel, is a call of NAME (the
  `functions.` prefix dropped); its message is the JSON arguments, read by the JSON family
  (`json_args.HeaderJsonReader`'s body), and ends at `<|call|>` (or `<|end|>`, or the next
  message: JSON left unfinished there cuts the call off);
* the analysis channel is reasoning: `<|channel|>analysis<|message|>` (with or without the
  `<|start|>assistant` an engine may strip) is a reasoning span up to `<|end|>`; an analysis
  header written any other way (blanks inside) hides its message, recorded as stripped markup;
* any other message (final, commentary without recipient) is text: its header and its
  end token (`<|end|>`, `<|return|>`, `<|call|>`) are markup, removed.

Output that begins inside a message is read from the first marker on (an engine strips the
leading `<|start|>assistant`); output that begins inside reasoning is the parser's
`reasoning="open"`. A call whose special tokens were decoded away
(`assistantcommentary to=functions.NAME json{…}`) is read from its recipient; the reasoning
before it, with its tokens gone, cannot be told from text. Never: reads a message's text for
calls other than through its header.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from toolmend.core.reader import (
    MAX_TAG_LENGTH,
    BlockContext,
    BlockReader,
    EofVerdict,
    ReasoningSpan,
)
from toolmend.core.textscan import closers, find_closer, partial_marker_start
from toolmend.model import Tool, ToolCall, canonical_json
from toolmend.names import ToolResolver
from toolmend.protocols.base import MarkupOnlyReader, TextProtocol, carried_raw
from toolmend.protocols.json_args import HeaderJsonReader, HeaderJsonSyntax, header_name_by

START = "<|start|>"
CHANNEL = "<|channel|>"
CONSTRAIN = "<|constrain|>"
MESSAGE = "<|message|>"
END = "<|end|>"
CALL = "<|call|>"
RETURN = "<|return|>"
#: The tokens that end a message (`<|call|>` and `<|return|>` also end the turn).
TERMINATORS = (CALL, END, RETURN)
#: The tokens that begin the next message.
NEXT_MESSAGE = (START, CHANNEL)
#: Every harmony special token a result's content must not spell.
SPECIAL_TOKENS = (START, CHANNEL, CONSTRAIN, MESSAGE, END, CALL, RETURN)

#: A header (role, channel, recipient, constraint and the tokens between) longer than this is
#: not one: a 64-character tool name with the longest role, channel and constraint fits.
MAX_HEADER = 2 * MAX_TAG_LENGTH
#: A header has at most this many words (role, channel, recipient, constraint, one more such
#: as `code`); text with more words after a marker is prose.
MAX_HEADER_WORDS = 5
#: Recipients that are a role, not a tool: a message to them is no call.
ROLES = frozenset(("assistant", "user", "system", "developer", "all"))
#: First words that make a cut-off header markup (stripped) rather than prose (text).
HEADER_WORDS = frozenset(("assistant", "analysis", "commentary", "final"))
FUNCTIONS = "functions."

_TOKEN = re.compile(r"(\s*)(?:(<\|channel\|>)|(<\|constrain\|>)|to=([^\s<]*)|([^\s<]+))")


@dataclass(frozen=True, slots=True)
class Header:
    """A message header, as `read_header` reads it."""

    role: str
    channel: str
    recipient: str
    constraint: str

    @property
    def tool_name(self) -> str | None:
        """The tool the message calls, or None when it is no call."""
        if not self.recipient or self.recipient in ROLES or self.role not in ("", "assistant"):
            return None
        return self.recipient.removeprefix(FUNCTIONS) or None

    @property
    def first_word(self) -> str:
        return self.role or self.channel


def read_header(marker: str, text: str) -> Header | None:
    """The header written after `marker` (`<|start|>` or `<|channel|>`) up to `<|message|>`,
    or None when `text` is not one (prose, another token, too many words)."""
    role = channel = recipient = constraint = ""
    slot = "role" if marker == START else "channel"
    pos = words = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            return None  # a `<` that begins no header token
        blanks, channel_token, constrain_token, to, word = m.groups()
        if blanks and slot == "channel" and pos > 0:
            return None  # the channel name follows its token directly
        pos = m.end()
        if channel_token:
            slot = "channel"
        elif constrain_token:
            slot = "constraint"
        elif to is not None:
            recipient, slot = to, ""
        else:
            words += 1
            if slot == "role":
                role = word
            elif slot == "channel":
                channel = word
            elif not constraint:
                constraint = word  # `<|constrain|>json`, or a bare `json` / `code`
            slot = ""
    if words > MAX_HEADER_WORDS:
        return None
    return Header(role, channel, recipient, constraint)


_HIDDEN = -1  # besides HeaderJsonReader's states: a hidden message's body
_HIDDEN_ENDS = closers(*TERMINATORS, *NEXT_MESSAGE)

SYNTAX = HeaderJsonSyntax(
    parse_header=lambda header: None,  # harmony's header is read by `HarmonyReader`
    call_openers=NEXT_MESSAGE,
    call_closers=TERMINATORS,
    single_call=True,
    cut_by=NEXT_MESSAGE,
)


#: A call whose special tokens an engine decoded away (`skip_special_tokens`), as users report
#: gpt-oss behind vLLM and llama.cpp: `…assistantcommentary to=functions.NAME json{…}`, or
#: with the role left out as well (`commentary to=functions.NAME json{…}`, Rapid-MLX #480). The
#: recipient opens it (the glued role and channel with it, when they are there).
STRIPPED_CALL = "to=functions."
STRIPPED_CALLS = (
    f"assistantcommentary {STRIPPED_CALL}",
    f"commentary {STRIPPED_CALL}",
    STRIPPED_CALL,
)
#: The rest of a header after the recipient: a bare constraint word, or the channel (when the
#: recipient came first: the generation prompt's `<|start|>assistant` was the prompt's, so the
#: output starts at ` to=functions.NAME<|channel|>…`), the constraint and `<|message|>`.
_STRIPPED_HEADER = re.compile(
    r"([^\s<>{}]+)(?:<\|channel\|>\s*\w+)?(?:\s+(?:json|code))?\s*"
    r"(?:<\|constrain\|>\s*\w*\s*)?(?:<\|message\|>\s*)?\Z"
)
#: The tool of `NAME json` (what is left of `NAME <|constrain|>json<|message|>`).
stripped_tool_name = header_name_by(_STRIPPED_HEADER)


STRIPPED = HeaderJsonSyntax(
    parse_header=stripped_tool_name,
    call_openers=STRIPPED_CALLS,
    call_closers=TERMINATORS,
    single_call=True,
)


class HarmonyReader(HeaderJsonReader):
    """One harmony message from its `<|start|>` or `<|channel|>`: the header decides whether
    it is a call (read as header-then-JSON), hidden reasoning, or text (see the module)."""

    def __init__(self, marker: str, ctx: BlockContext) -> None:
        super().__init__(SYNTAX, marker, ctx)
        self.pending = ""  # a header the stream ended in

    def step(self, buf: str, pos: int, end: int, final: bool) -> int:
        if self.state == _HIDDEN:
            return self._hidden(buf, pos, end, final)
        return super().step(buf, pos, end, final)

    def _header(self, buf: str, pos: int, end: int, final: bool) -> tuple[int, bool]:
        """Up to `<|message|>`: nothing is consumed before the header is whole (it is bounded,
        so looking at it again on the next feed keeps the cost linear)."""
        limit = min(end, pos + MAX_HEADER + len(MESSAGE))
        j = buf.find(MESSAGE, pos, limit)
        if j < 0:
            cut = end if final else partial_marker_start(buf, pos, end, SPECIAL_TOKENS, "<")
            header = read_header(self.marker, buf[pos:cut])
            if header is None or limit - pos > MAX_HEADER:
                return self._not_a_header(buf, pos)
            if final:
                if header.tool_name is None and header.first_word not in HEADER_WORDS:
                    return self._not_a_header(buf, pos)
                self.pending = buf[pos:end]  # a header cut off by the end: markup (R1 fails)
            return pos, False
        header = read_header(self.marker, buf[pos:j])
        if header is None:
            return self._not_a_header(buf, pos)
        stop = self._take(buf, pos, j + len(MESSAGE))
        name = header.tool_name
        if name is not None:
            self.begin_body(name, buf[pos:stop])  # an unknown tool: the message is text
            return stop, False
        if header.channel == "analysis":
            self.state = _HIDDEN
            return stop, True  # `step` goes on with the hidden message
        self.ctx.end_block()  # a message of text: its header is markup
        return stop, True

    def _hidden(self, buf: str, pos: int, end: int, final: bool) -> int:
        """Reasoning under a header written unlike the reasoning span's: up to its end."""
        at, found = find_closer(buf, pos, end, _HIDDEN_ENDS, final=final)
        if not found:
            return at
        self.ctx.end_block()
        return at + len(found) if found in TERMINATORS else at

    def at_eof(self) -> EofVerdict:
        if self.in_header:
            header = read_header(self.marker, self.pending)
            return EofVerdict(recoverable=False, name=header.tool_name if header else None)
        if self.state == _HIDDEN:
            return EofVerdict(recoverable=True)
        return super().at_eof()


# --------------------------------------------------------------------------- the tools prompt


def typescript(schema: Any, indent: str = "") -> str:
    """A JSON Schema as harmony's prompt writes a type (`string`, `"a" | "b"`, `{…}`)."""
    if not isinstance(schema, dict):
        return "any"
    if "enum" in schema and isinstance(schema["enum"], list):
        return " | ".join(json.dumps(v, ensure_ascii=False) for v in schema["enum"]) or "any"
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            return " | ".join(typescript(s, indent) for s in schema[key]) or "any"
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(typescript({**schema, "type": k}, indent) for k in kind) or "any"
    if kind == "string":
        return "string"
    if kind in ("number", "integer"):
        return "number"
    if kind in ("boolean", "null"):
        return str(kind)
    if kind == "array":
        item = typescript(schema.get("items"), indent)
        return f"({item})[]" if " | " in item else f"{item}[]"
    properties = schema.get("properties")
    if kind == "object" and isinstance(properties, dict) and properties:
        return _members(properties, schema.get("required") or [], indent)
    return "object" if kind == "object" else "any"


def _members(properties: dict[str, Any], required: Sequence[str], indent: str) -> str:
    lines = ["{"]
    for key, prop in properties.items():
        description = prop.get("description") if isinstance(prop, dict) else None
        if isinstance(description, str) and description.strip():
            lines += [f"{indent}// {line}" for line in description.strip().splitlines()]
        optional = "" if key in required else "?"
        line = f"{indent}{key}{optional}: {typescript(prop, indent)},"
        if isinstance(prop, dict) and "default" in prop:
            line += f" // default: {json.dumps(prop['default'], ensure_ascii=False)}"
        lines.append(line)
    lines.append(f"{indent}}}")
    return "\n".join(lines)


def _declaration(tool: Tool) -> str:
    head = "".join(f"// {line}\n" for line in tool.description.strip().splitlines())
    params = tool.parameters if isinstance(tool.parameters, dict) else {}
    if not params.get("properties"):
        return f"{head}type {tool.name} = () => any;"
    return f"{head}type {tool.name} = (_: {typescript(params)}) => any;"


class HarmonyProtocol(TextProtocol):
    id = "harmony"
    aliases = ("gpt-oss", "openai-harmony")
    summary = (
        "gpt-oss harmony: <|start|>assistant<|channel|>commentary to=functions.NAME "
        "<|constrain|>json<|message|>{...}<|call|>"
    )
    result_closers = SPECIAL_TOKENS
    # An analysis message ends with `<|end|>` only (`<|call|>` ends a call's message).
    reasoning_spans = (
        ReasoningSpan(f"{CHANNEL}analysis{MESSAGE}", (END,)),
        ReasoningSpan(f"{START}assistant{CHANNEL}analysis{MESSAGE}", (END,)),
    )

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return (*NEXT_MESSAGE, *TERMINATORS, *STRIPPED_CALLS)

    def closing_markers(self) -> Sequence[str]:
        return (*TERMINATORS, *NEXT_MESSAGE)

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        if marker in TERMINATORS:
            return MarkupOnlyReader(ctx)  # a message's end whose header was stripped
        if marker in STRIPPED_CALLS:
            return HeaderJsonReader(STRIPPED, marker, ctx)
        return HarmonyReader(marker, ctx)

    def render_tools(self, tools: Sequence[Tool]) -> str:
        declared = "\n\n".join(_declaration(t) for t in tools)
        return (
            "# Tools\n\n## functions\n\nnamespace functions {\n\n"
            f"{declared}\n\n}} // namespace functions\n\n"
            "Calls to these tools must go to the commentary channel: 'functions'. Write each "
            "call as its own message, its arguments as one JSON object:\n"
            f"{START}assistant{CHANNEL}commentary to=functions.<function-name> {CONSTRAIN}json"
            f"{MESSAGE}{{<arguments as JSON>}}{CALL}"
        )

    def render_call(self, call: ToolCall) -> str:
        name = carried_raw(call.name, (" ", "\t", "\n", "<"), protocol_id=self.id)
        return (
            f"{START}assistant{CHANNEL}commentary to={FUNCTIONS}{name} {CONSTRAIN}json"
            f"{MESSAGE}{canonical_json(call.arguments)}{CALL}"
        )

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        # The tool's own message, as the harmony format feeds a result back.
        return f"{START}{FUNCTIONS}{name} to=assistant{CHANNEL}commentary{MESSAGE}{content}{END}"


PROTOCOL = HarmonyProtocol()
