"""Tool-name resolution: which declared tool a name the model wrote refers to.

Gateways disguise names on the wire (`Todo` for `todo`, `mcp_49f0-Todo`, `mcp__server__todo`), so
a name is matched exactly, then case-insensitively, then by an alias key. A key shared by two
declared tools resolves to neither: an ambiguous name is never guessed. This module only maps
names; it never decides what happens to text whose name does not resolve.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from toolmend.model import Tool

# `mcp__server__tool` (Claude Code SDK) and `mcp_<hex>-Tool` (hashed gateway prefixes).
_MCP_SERVER_PREFIX = re.compile(r"^mcp__.+?__")
_MCP_HASH_PREFIX = re.compile(r"^mcp_[0-9a-fA-F]+-")
_SEPARATORS = re.compile(r"[\s_\-.:/]+")


def alias_key(name: str) -> str:
    """The separator- and case-free key a disguised name collapses to."""
    stripped = _MCP_SERVER_PREFIX.sub("", name, count=1)
    stripped = _MCP_HASH_PREFIX.sub("", stripped, count=1)
    return _SEPARATORS.sub("", stripped).lower()


class ToolResolver:
    """Resolves names against a fixed set of tools; `tools=None` accepts every name as written."""

    __slots__ = ("_alias", "_exact", "_folded", "_undeclared", "accepts_any")

    def __init__(self, tools: Iterable[Tool] | None) -> None:
        self.accepts_any = tools is None
        self._exact: dict[str, Tool] = {}
        folded: dict[str, Tool | None] = {}
        alias: dict[str, Tool | None] = {}
        for tool in tools or ():
            self._exact[tool.name] = tool
            for table, key in ((folded, tool.name.lower()), (alias, alias_key(tool.name))):
                # A key claimed by two tools maps to None: ambiguous, resolves to neither.
                table[key] = tool if key not in table else None
        self._folded = folded
        self._alias = alias
        self._undeclared: dict[str, Tool] = {}  # tools=None: one schema-less Tool per name seen

    @property
    def tools(self) -> list[Tool]:
        return list(self._exact.values())

    def resolve(self, name: str) -> Tool | None:
        """The declared tool `name` refers to, or None (unknown or ambiguous)."""
        if self.accepts_any:
            if not name.strip():
                return None
            tool = self._undeclared.get(name)
            if tool is None:
                tool = self._undeclared[name] = Tool(name=name)
            return tool
        tool = self._exact.get(name)
        if tool is not None:
            return tool
        lowered = name.lower()
        if lowered in self._folded:
            return self._folded[lowered]
        return self._alias.get(alias_key(name))

    def is_ambiguous(self, name: str) -> bool:
        """True when `name` collides: it matches a key two declared tools share."""
        if self.accepts_any or name in self._exact:
            return False
        lowered = name.lower()
        if lowered in self._folded:
            return self._folded[lowered] is None
        key = alias_key(name)
        return key in self._alias and self._alias[key] is None

    def names(self) -> list[str]:
        return list(self._exact)
