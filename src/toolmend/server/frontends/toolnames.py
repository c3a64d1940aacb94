"""Tool names both ways between a front-end's clients and a chat/completions upstream.

OpenAI-style upstreams refuse function names outside `^[a-zA-Z0-9_-]{1,64}$`, while Claude Code's
MCP names (`mcp__server__tool`) and Responses namespaces joined to their tools run longer. A name
that does not fit is given a deterministic wire name (a readable prefix and a hash of the whole
name), so every replica computes the same one without shared state; answers are mapped back
through the table built from the request's own tools. A blank name has no meaning on either side
and becomes `BLANK_NAME`, which no agent declares, so the agent answers "no such tool" and the
model corrects itself. This module never resolves a misspelt name (that is `toolmend.names`).
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Iterable

MAX_NAME_CHARS = 64
WIRE_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: What a blank name becomes, both ways.
BLANK_NAME = "unnamed_tool"
#: Hex characters of the hash that keeps two long names with one prefix apart.
HASH_CHARS = 10
_NOT_WIRE = re.compile(r"[^A-Za-z0-9_-]+")
#: Tool names whose wire name is kept: Claude Code and Codex declare tens, MCP servers more.
NAMES_REMEMBERED = 4096


@functools.lru_cache(maxsize=NAMES_REMEMBERED)
def wire_name(name: str) -> str:
    """The name sent upstream: `name` itself when it fits, else prefix + `_` + hash
    (remembered: an agent declares the same tools in every request)."""
    if not name.strip():
        return BLANK_NAME
    if WIRE_NAME.fullmatch(name):
        return name
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:HASH_CHARS]
    readable = _NOT_WIRE.sub("_", name)[: MAX_NAME_CHARS - HASH_CHARS - 1]
    return f"{readable}_{digest}"


class ToolNameMap:
    """The request's tool names and their wire names, for the way back."""

    __slots__ = ("_client",)

    def __init__(self, names: Iterable[str] = ()) -> None:
        self._client: dict[str, str] = {}
        for name in names:
            self.add(name)

    def add(self, name: str) -> str:
        """Register a client name; returns its wire name."""
        wire = wire_name(name)
        self._client.setdefault(wire, name)
        return wire

    def to_client(self, wire: str) -> str:
        """The client's name for an upstream name; an undeclared name is kept as written."""
        if not wire.strip():
            return BLANK_NAME
        return self._client.get(wire, wire)
