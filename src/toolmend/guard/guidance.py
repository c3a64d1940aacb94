"""Guidance: the versioned WHAT / WHY / NEXT payload and its one model-facing rendering.

This module owns the `Guidance` record, how a classification becomes specific guidance (the
parameter name, the required parameters with an example call built from the schema, the tool
names, the closest lines of a failed edit), the strengthening at a repeat, the stuck-loop
directive, and the byte-bounded renderer. It never classifies and never counts: it is handed the
classification and the occurrence.

Safety: guidance never quotes argument bodies, paths or values of sensitive keys. Names are
echoed only when they are safe identifiers; example calls use placeholders; the lines of a
failed edit come from the file (not the arguments) and pass through `redact_secrets`.
"""

from __future__ import annotations

import difflib
import functools
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolmend.guard.classify import Classification, safe_identifier
from toolmend.guard.patterns import (
    STUCK_LOOP_PATTERN,
    Category,
    Disposition,
    Pattern,
)
from toolmend.model import Tool

GUIDANCE_VERSION = 1
#: Default byte budget of one rendered block: small enough to sit in any tool result without
#: crowding out the model's context, large enough for WHAT, WHY and one or two NEXT steps.
DEFAULT_MAX_BYTES = 1024
#: The smallest budget accepted: the header (about 110 bytes) plus a truncated WHAT always fit.
MIN_MAX_BYTES = 192
#: At most this many NEXT items (the payload contract).
MAX_NEXT_ITEMS = 3
#: Tool names listed in TOOL_NOT_FOUND / MCP_TOOL_MISSING guidance.
MAX_LISTED_TOOLS = 24
#: The tool list may take at most this fraction (1/N) of the rendering budget, so header, WHAT,
#: WHY and the other NEXT items still fit: 200 long names are trimmed, never dropped whole.
TOOL_LIST_SHARE = 3
#: Example calls longer than this are cut to the required keys that fit.
MAX_EXAMPLE_CHARS = 240
#: Tool lists ranked for an unknown name that are remembered (`listed_tools`): a few agents'
#: tool sets times the names their models got wrong.
LISTED_TOOLS_CACHE = 512
#: Failed-edit near-miss search bounds: file lines scanned, search lines compared, windows tried.
MAX_FILE_LINES = 5_000
MAX_SEARCH_LINES = 40
MAX_WINDOWS = 4_000
#: Lines and characters per line shown from the closest match.
MAX_MATCH_LINES = 6
MAX_MATCH_LINE_CHARS = 120
#: A near miss below this similarity is not worth showing.
MIN_MATCH_RATIO = 0.5

#: Parameter names whose values are never echoed, even as examples.
SENSITIVE_KEY = re.compile(
    r"pass(?:word|wd|phrase)?|secret|token|api[_-]?key|apikey|auth|credential|private[_-]?key"
    r"|cookie|session[_-]?id",
    re.IGNORECASE,
)
_SECRET_VALUE = re.compile(
    r"(?P<key>(?:pass(?:word|wd)?|secret|token|api[_-]?key|apikey|authorization|auth"
    r"|credential|private[_-]?key)[\"']?\s*[:=]\s*)"
    r"(?P<value>(?:(?:Bearer|Basic|Token)\s+)?[\"']?[^\s\"',;]{4,}[\"']?)"
    r"|(?P<bearer>Bearer\s+)[A-Za-z0-9._~+/=-]{8,}"
    r"|\bsk-[A-Za-z0-9_-]{12,}|\bAKIA[0-9A-Z]{16}\b|\bgh[pousr]_[A-Za-z0-9]{20,}",
    re.IGNORECASE,
)

#: Argument keys that hold the search text of an edit, across agents.
EDIT_SEARCH_KEYS = ("old_string", "oldString", "old_str", "old_text", "oldText", "search")
_SEARCH_BLOCK = re.compile(r"<{5,}\s*SEARCH[^\n]*\n(?P<body>.*?)\n={5,}", re.DOTALL)


def redact_secrets(text: str) -> str:
    """Mask values of secret-looking assignments, bearer tokens and well-known key formats."""

    def _mask(match: re.Match[str]) -> str:
        if match.group("key"):
            return match.group("key") + "[REDACTED]"
        if match.group("bearer"):
            return match.group("bearer") + "[REDACTED]"
        return "[REDACTED]"

    return _SECRET_VALUE.sub(_mask, text)


def utf8_size(text: str) -> int:
    """How many bytes `text` takes in UTF-8. A lone surrogate (a tool's output decoded with
    `surrogateescape` and sent as JSON's `"\\udc80"`) has no UTF-8 form: it counts as the
    three bytes of its code point, as the proxy's JSON writer never writes it raw either."""
    return len(text.encode("utf-8", "surrogatepass"))


def truncate_utf8(text: str, max_bytes: int, marker: str = "…") -> str:
    """`text` cut to at most `max_bytes` UTF-8 bytes (`utf8_size`), never splitting a
    character."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= max_bytes:
        return text
    room = max_bytes - utf8_size(marker)
    if room <= 0:
        return ""
    while room and data[room] & 0xC0 == 0x80:  # a continuation byte: inside a character
        room -= 1
    return data[:room].decode("utf-8", "surrogatepass") + marker


@dataclass(frozen=True, slots=True)
class Guidance:
    """One guidance payload for one signal.

    `blocking` is True when the call must not be executed (preflight findings, duplicates):
    the agent sends `render()` as the call's tool result instead. `original` is the error text
    as the tool produced it; for UNCLASSIFIED (`disposition == "pass_through"`) `render()`
    returns it unchanged.
    """

    category: Category
    pattern_id: str
    what: str
    why: str
    next: tuple[str, ...]
    retryable: bool
    occurrence: int
    disposition: Disposition
    variant: str = "generic"
    blocking: bool = False
    original: str = ""
    max_bytes: int = DEFAULT_MAX_BYTES
    version: int = GUIDANCE_VERSION
    cause: Category | None = field(default=None)

    @property
    def passthrough(self) -> bool:
        return self.disposition is Disposition.PASS_THROUGH

    def to_dict(self) -> dict[str, Any]:
        """The versioned payload."""
        return {
            "version": self.version,
            "category": self.category.value,
            "pattern_id": self.pattern_id,
            "what": self.what,
            "why": self.why,
            "next": list(self.next),
            "retryable": self.retryable,
            "occurrence": self.occurrence,
            "disposition": self.disposition.value,
        }

    def header(self) -> str:
        return (
            f"[toolmend guidance v{self.version}] {self.category.value} {self.pattern_id}"
            f" | occurrence {self.occurrence} | {self.disposition.value}"
            f" | {'retryable' if self.retryable else 'not retryable'}"
        )

    def render(self, max_bytes: int | None = None) -> str:
        """The model-facing block, at most `max_bytes` UTF-8 bytes.

        The header is always kept; NEXT items are dropped from the last first, then WHY and
        WHAT are shortened. Pass-through guidance renders the original text unchanged.
        """
        if self.passthrough:
            return self.original
        budget = max(MIN_MAX_BYTES, max_bytes if max_bytes is not None else self.max_bytes)
        items = list(self.next)
        while True:
            text = _assemble(self.header(), self.what, self.why, items)
            if utf8_size(text) <= budget or not items:
                break
            items.pop()
        if utf8_size(text) <= budget:
            return text
        fixed = utf8_size(_assemble(self.header(), "", "", []))
        room = budget - fixed
        what = truncate_utf8(self.what, max(room // 2, 0))
        why = truncate_utf8(self.why, max(room - utf8_size(what), 0))
        text = _assemble(self.header(), what, why, [])
        return truncate_utf8(text, budget)


def _assemble(header: str, what: str, why: str, items: Sequence[str]) -> str:
    lines = [header, f"WHAT: {what}", f"WHY: {why}"]
    if items:
        lines.append("NEXT:")
        lines.extend(f"- {item}" for item in items)
    return "\n".join(lines)


# --- building guidance -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GuidanceContext:
    """What the builder may say about the call: all names here are checked before use."""

    tool_name: str | None = None
    tool: Tool | None = None
    tool_names: tuple[str, ...] = ()
    arguments: Mapping[str, Any] | None = None
    file_content: str | None = None
    got_type: str | None = None


def required_params(tool: Tool | None) -> list[str]:
    """The safe-identifier names of a tool's required parameters, in schema order."""
    if tool is None:
        return []
    required = tool.parameters.get("required")
    if not isinstance(required, list):
        return []
    return [name for name in required if safe_identifier(name)]


def _placeholder(name: str, schema: object) -> object:
    if not isinstance(schema, Mapping):
        return f"<{name}>"
    enum = schema.get("enum")
    if isinstance(enum, list) and enum and not SENSITIVE_KEY.search(name):
        first = enum[0]
        if isinstance(first, str | int | float | bool):
            return first
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    return {
        "integer": 1,
        "number": 1,
        "boolean": True,
        "array": [],
        "object": {},
    }.get(str(kind), f"<{name}>")


def example_call(tool: Tool | None) -> str:
    """A correct example call built from the schema: required keys with placeholder values."""
    if tool is None or not safe_identifier(tool.name):
        return ""
    props = tool.parameters.get("properties")
    props = props if isinstance(props, Mapping) else {}
    keys = required_params(tool) or [k for k in props if safe_identifier(k)][:2]
    # each key's `"key": value` is serialised once (json.dumps of a dict joins them with ", "),
    # so checking the length after each key costs one pair, not the whole example again
    pairs: list[str] = []
    length = len(tool.name) + 4  # name, parentheses, braces
    for key in keys:
        pair = json.dumps({key: _placeholder(key, props.get(key))}, ensure_ascii=False)[1:-1]
        length += len(pair) + (2 if pairs else 0)
        if length > MAX_EXAMPLE_CHARS:
            break
        pairs.append(pair)
    return f"{tool.name}({{{', '.join(pairs)}}})"


def _edit_search_text(arguments: Mapping[str, Any] | None) -> str | None:
    if not arguments:
        return None
    for key in EDIT_SEARCH_KEYS:
        value = arguments.get(key)
        if isinstance(value, str) and value.strip():
            return value
    diff = arguments.get("diff")
    if isinstance(diff, str):
        block = _SEARCH_BLOCK.search(diff)
        if block:
            return block.group("body")
    return None


@dataclass(frozen=True, slots=True)
class NearMiss:
    """The file lines closest to a failed edit's search text (1-based, inclusive)."""

    start: int
    end: int
    ratio: float
    lines: tuple[str, ...]

    def describe(self) -> str:
        shown = [
            f"{self.start + i}| {redact_secrets(line)[:MAX_MATCH_LINE_CHARS]}"
            for i, line in enumerate(self.lines[:MAX_MATCH_LINES])
        ]
        span = f"line {self.start}" if self.start == self.end else f"lines {self.start}-{self.end}"
        return f"Closest match: {span} ({round(self.ratio * 100)}% similar):\n" + "\n".join(shown)


def closest_lines(content: str, search: str) -> NearMiss | None:
    """The window of `content` most similar to `search` (fuzzy, bounded), or None."""
    file_lines = content.splitlines()[:MAX_FILE_LINES]
    wanted = search.strip("\n").splitlines()[:MAX_SEARCH_LINES]
    if not file_lines or not wanted:
        return None
    size = min(len(wanted), len(file_lines))
    target = "\n".join(line.strip() for line in wanted)
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(target)
    windows = len(file_lines) - size + 1
    step = max(1, windows // MAX_WINDOWS)
    best: tuple[float, int] = (0.0, 0)
    for start in range(0, windows, step):
        window = "\n".join(line.strip() for line in file_lines[start : start + size])
        matcher.set_seq1(window)
        if matcher.real_quick_ratio() <= best[0] or matcher.quick_ratio() <= best[0]:
            continue
        ratio = matcher.ratio()
        if ratio > best[0]:
            best = (ratio, start)
    ratio, start = best
    if ratio < MIN_MATCH_RATIO:
        return None
    lines = tuple(file_lines[start : start + size])
    return NearMiss(start + 1, start + size, ratio, lines)


class _Fields(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return ""


class _LazyFields(_Fields):
    """A pattern's template fields, each computed the first time a template names it.

    Most patterns name two or three of the fields; the example call (JSON of the schema's
    required keys), the listed tools and the nearest tool name cost more than the rest of the
    guidance together, so they are made only for the templates that show them."""

    __slots__ = ("_makers",)

    def __init__(self, makers: Mapping[str, Callable[[], str]]) -> None:
        super().__init__()
        self._makers = makers

    def __missing__(self, key: str) -> str:
        make = self._makers.get(key)
        value = make() if make is not None else ""
        self[key] = value
        return value


def listed_tools(names: Sequence[str], requested: str | None, max_bytes: int) -> str:
    """Tool names for guidance, at most `max_bytes` UTF-8 bytes and `MAX_LISTED_TOOLS` names.

    With a requested (unknown) name the nearest names come first, so trimming a long list
    keeps the ones the model most likely meant; otherwise the declared order is kept. The
    number of names left out is said at the end. Pure in its inputs and kept for the last
    `LISTED_TOOLS_CACHE` of them: ranking a tool list by similarity scores every name, and a
    replayed history asks again for the same unknown names under the same tool list.
    """
    return _listed_tools(tuple(names), requested, max_bytes)


@functools.lru_cache(maxsize=LISTED_TOOLS_CACHE)
def _listed_tools(names: tuple[str, ...], requested: str | None, max_bytes: int) -> str:
    ordered = list(names)
    if requested:
        key = requested.lower()
        ordered.sort(key=lambda n: -difflib.SequenceMatcher(None, key, n.lower()).ratio())
    shown: list[str] = []
    used = 0
    for name in ordered[:MAX_LISTED_TOOLS]:
        cost = utf8_size(name) + 2
        if shown and used + cost > max_bytes:
            break
        shown.append(name)
        used += cost
    left = len(ordered) - len(shown)
    return ", ".join(shown) + (f" … ({left} more)" if left else "")


def _fields(cls: Classification, ctx: GuidanceContext, max_bytes: int) -> _Fields:
    tool_name = safe_identifier(ctx.tool_name) or cls.failed_tool
    param = cls.param
    requested = cls.requested_tool or tool_name

    def names() -> list[str]:
        return [n for n in ctx.tool_names or cls.available_tools if safe_identifier(n)]

    def required() -> str:
        return ", ".join(f"`{r}`" for r in required_params(ctx.tool))

    def suggestion() -> str:
        declared = names()
        if not (requested and declared):
            return ""
        # A declared name is its own closest match: found without difflib's scoring.
        close = (
            [requested]
            if requested in declared
            else difflib.get_close_matches(requested, declared, n=1, cutoff=0.6)
        )
        return f"Did you mean `{close[0]}`?" if close else ""

    def listed() -> str:
        shown = listed_tools(names(), cls.requested_tool, max_bytes // TOOL_LIST_SHARE)
        return shown or "the tools listed in your tool definitions"

    def match() -> str:
        if cls.category is not Category.DIFF_MATCH_FAILED or ctx.file_content is None:
            return ""
        search = _edit_search_text(ctx.arguments)
        near = closest_lines(ctx.file_content, search) if search else None
        return near.describe() if near is not None else ""

    return _LazyFields(
        {
            "tool": lambda: f"`{tool_name}`" if tool_name else "tool",
            "param": lambda: f"`{param}`" if param else "",
            "param_or_required": lambda: f"`{param}`" if param else (required() or "(see schema)"),
            "param_or_a": lambda: f"parameter `{param}`" if param else "a parameter",
            "param_in": lambda: f" (at `{param}`)" if param else "",
            "param_or_each": lambda: f"`{param}`" if param else "each parameter",
            "required": lambda: required() or "see the tool schema",
            "example": lambda: example_call(ctx.tool) or "see the tool schema",
            "tools": listed,
            "suggestion": suggestion,
            "tool_or_requested": lambda: f"`{requested}`" if requested else "you called",
            "match": match,
            "got": lambda: ctx.got_type or "value that is not a string",
        }
    )


def build_guidance(
    cls: Classification,
    ctx: GuidanceContext,
    *,
    occurrence: int,
    original: str = "",
    blocking: bool = False,
    stuck_after: int = 3,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> Guidance:
    """Guidance for one classified signal at its `occurrence` (1-based).

    Occurrence 1: the pattern's specific correction. 2: strengthened ("re-read the tool schema
    now"). `stuck_after` and later: the MODEL_STUCK_LOOP directive to change strategy, with no
    question to the user. UNCLASSIFIED passes through; AWAIT_USER never escalates (it is a real
    boundary, not a loop).
    """
    pattern: Pattern = cls.pattern
    if pattern.disposition is Disposition.PASS_THROUGH:
        return Guidance(
            Category.UNCLASSIFIED,
            pattern.id,
            pattern.what,
            "",
            (),
            True,
            occurrence,
            Disposition.PASS_THROUGH,
            original=original,
            blocking=blocking,
            max_bytes=max_bytes,
        )
    if pattern is STUCK_LOOP_PATTERN or (
        occurrence >= stuck_after and pattern.disposition is not Disposition.AWAIT_USER
    ):
        return _stuck_loop(cls, ctx, occurrence, original, blocking, max_bytes)
    fields = _fields(cls, ctx, max_bytes)
    what = pattern.what.format_map(fields).strip()
    why = pattern.why.format_map(fields).strip()
    items = [item.format_map(fields).strip() for item in pattern.next]
    items = [item for item in items if item]
    if occurrence == 2 and pattern.disposition is not Disposition.AWAIT_USER:
        what = f"Again (2nd time): {what}"
        items.insert(0, "Re-read the tool schema now and check every parameter before retrying.")
    return Guidance(
        pattern.category,
        pattern.id,
        what,
        why,
        tuple(items[:MAX_NEXT_ITEMS]),
        pattern.retryable,
        occurrence,
        pattern.disposition,
        variant=pattern.variant,
        blocking=blocking,
        original=original,
        max_bytes=max_bytes,
    )


def _stuck_loop(
    cls: Classification,
    ctx: GuidanceContext,
    occurrence: int,
    original: str,
    blocking: bool,
    max_bytes: int,
) -> Guidance:
    tool_name = safe_identifier(ctx.tool_name)
    fields = _Fields(
        failed=cls.category.value,
        count=str(occurrence),
        for_tool=f" for `{tool_name}`" if tool_name else "",
    )
    p = STUCK_LOOP_PATTERN
    what = p.what.format_map(fields)
    if cls.category is Category.MODEL_STUCK_LOOP:  # reported by the agent, not counted here
        what = f"[MODEL_STUCK_LOOP] The same failure keeps repeating{fields['for_tool']}."
    return Guidance(
        p.category,
        p.id,
        what,
        p.why,
        p.next[:MAX_NEXT_ITEMS],
        p.retryable,
        occurrence,
        p.disposition,
        variant=p.variant,
        blocking=blocking,
        original=original,
        max_bytes=max_bytes,
        cause=cls.category,
    )
