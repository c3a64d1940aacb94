"""`classify_error`: which known pattern a tool error is.

This module owns the matching order: structure before text, then priority, then pattern id, so
the same input always gives the same answer. It never builds guidance, never counts and never
changes the error; anything it does not recognise is UNCLASSIFIED (the caller passes it through
unchanged). Names captured from error text are kept only when they are safe identifiers, so an
error message cannot smuggle text into the guidance.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from toolmend.guard.patterns import (
    PATTERNS,
    UNCLASSIFIED_PATTERN,
    Category,
    Disposition,
    Flag,
    Pattern,
)
from toolmend.model import Tool

#: Text heuristics read at most this many leading characters, plus the tail below: error texts
#: with long logs or stack traces put the message first or last, and regex cost stays bounded.
MAX_SCAN_HEAD_CHARS = 16_384
MAX_SCAN_TAIL_CHARS = 4_096

#: A name from an error message or a call is echoed to the model only if it matches this: no
#: spaces, quotes, markup or newlines, so a parameter name cannot carry an injection.
SAFE_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]{0,63}")

#: Confidence of a structural match (a flag set by toolmend's own checks).
STRUCTURAL_CONFIDENCE = 1.0


def safe_identifier(value: object) -> str | None:
    """`value` if it is a short identifier safe to echo to the model, else None."""
    if isinstance(value, str) and SAFE_IDENTIFIER.fullmatch(value):
        return value
    return None


@dataclass(frozen=True, slots=True)
class Classification:
    """What `classify_error` found.

    `confidence` is 1.0 for a structural match, the pattern's text confidence (0 < c < 1) for
    a text match, and 0.0 for UNCLASSIFIED. `param` and `requested_tool` are names captured
    from the error, present only when they are safe identifiers.
    """

    category: Category
    pattern_id: str
    confidence: float
    variant: str = "generic"
    param: str | None = None
    requested_tool: str | None = None

    @property
    def pattern(self) -> Pattern:
        from toolmend.guard.patterns import PATTERNS_BY_ID

        return PATTERNS_BY_ID[self.pattern_id]

    @property
    def disposition(self) -> Disposition:
        return self.pattern.disposition

    @property
    def known(self) -> bool:
        return self.category is not Category.UNCLASSIFIED


UNCLASSIFIED = Classification(Category.UNCLASSIFIED, UNCLASSIFIED_PATTERN.id, 0.0)

_BY_PRIORITY: tuple[Pattern, ...] = tuple(sorted(PATTERNS, key=lambda p: (-p.priority, p.id)))


def error_text(error: object) -> str:
    """The text of an error as agents report it: exceptions as `Type: message`."""
    if isinstance(error, BaseException):
        message = str(error)
        return f"{type(error).__name__}: {message}" if message else type(error).__name__
    if isinstance(error, bytes):
        return error.decode("utf-8", errors="replace")
    if error is None:
        return ""
    return error if isinstance(error, str) else str(error)


def _scan_window(text: str) -> str:
    if len(text) <= MAX_SCAN_HEAD_CHARS + MAX_SCAN_TAIL_CHARS:
        return text
    return text[:MAX_SCAN_HEAD_CHARS] + "\n" + text[-MAX_SCAN_TAIL_CHARS:]


def _flags_of(metadata: Mapping[str, Any] | None) -> set[Flag]:
    if not metadata:
        return set()
    raw: list[object] = []
    if "flag" in metadata:
        raw.append(metadata["flag"])
    flags = metadata.get("flags")
    if isinstance(flags, Iterable) and not isinstance(flags, (str, bytes)):
        raw.extend(flags)
    out: set[Flag] = set()
    for item in raw:
        try:
            out.add(Flag(str(item)))
        except ValueError:
            continue  # an unknown flag is not a signal; fail open
    return out


def _tool_name(tool: Tool | str | None) -> str | None:
    if isinstance(tool, Tool):
        return tool.name
    return tool if isinstance(tool, str) else None


def classify_error(
    text: object,
    tool: Tool | str | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> Classification:
    """Classify one tool error: structural flags in `metadata` first, then the error text.

    `metadata` may carry `flag` / `flags` (see `Flag`), `param` and `tool` from preflight or the
    argument parser. `tool` is the called tool (a name or `Tool`); it does not change the
    category, only fills in names. Unknown input gives `UNCLASSIFIED` (confidence 0.0).
    """
    flags = _flags_of(metadata)
    meta_param = safe_identifier(metadata.get("param")) if metadata else None
    meta_tool = safe_identifier(metadata.get("requested_tool")) if metadata else None
    if flags:
        for pattern in _BY_PRIORITY:
            if pattern.flags & flags:
                return Classification(
                    pattern.category,
                    pattern.id,
                    STRUCTURAL_CONFIDENCE,
                    pattern.variant,
                    param=meta_param,
                    requested_tool=meta_tool,
                )
    body = _scan_window(error_text(text))
    if not body.strip():
        return UNCLASSIFIED
    for pattern in _BY_PRIORITY:
        for regex in pattern.text:
            match = regex.search(body)
            if match is None:
                continue
            groups = match.groupdict()
            requested = safe_identifier(groups.get("tool")) or meta_tool
            if pattern.category is Category.TOOL_NOT_FOUND and (
                _is_mcp_name(requested) or _is_mcp_name(_tool_name(tool))
            ):
                pattern = _MCP_PATTERN
            return Classification(
                pattern.category,
                pattern.id,
                pattern.text_confidence,
                pattern.variant,
                param=safe_identifier(groups.get("param")) or meta_param,
                requested_tool=requested,
            )
    return UNCLASSIFIED


#: Tool names that route through an MCP server (Claude Code `mcp__server__tool`, Roo/Cline
#: `use_mcp_tool`): a "tool not found" for these is a missing MCP tool.
_MCP_CALLER_TOOLS = frozenset({"use_mcp_tool", "access_mcp_resource"})
_MCP_PATTERN = next(p for p in PATTERNS if p.category is Category.MCP_TOOL_MISSING)


def _is_mcp_name(name: str | None) -> bool:
    return bool(name) and (str(name).startswith("mcp__") or name in _MCP_CALLER_TOOLS)
