"""Identifiers the front-ends hand to their clients: message, item and tool-call ids.

Anthropic requires `tool_use.id` to match `^[a-zA-Z0-9_-]+$` and to be unique across the whole
conversation ("tool_use ids must be unique"); chat servers send no id, an empty one, or the same
`call_0` on every turn. `UniqueIds` keeps an upstream id only when it is valid and unseen (the
request's history counts as seen) and mints a fresh one otherwise. This module never decides
which object gets an id.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable

VALID_ID = re.compile(r"[A-Za-z0-9_-]{1,128}")
#: Random part of a minted id: 96 bits, so two replicas never mint the same one.
RANDOM_HEX_CHARS = 24


def new_id(prefix: str) -> str:
    """A fresh id: `prefix` + 96 random bits in hex."""
    return prefix + secrets.token_hex(RANDOM_HEX_CHARS // 2)


class UniqueIds:
    """Ids unique within one conversation: an upstream id is kept only if valid and unseen."""

    __slots__ = ("_prefix", "_seen")

    def __init__(self, prefix: str, seen: Iterable[str] = ()) -> None:
        self._prefix = prefix
        self._seen = set(seen)

    def claim(self, wanted: object) -> str:
        """`wanted` if it is a valid id not used before, else a minted one; both count as seen."""
        if isinstance(wanted, str) and VALID_ID.fullmatch(wanted) and wanted not in self._seen:
            chosen = wanted
        else:
            chosen = new_id(self._prefix)
            while chosen in self._seen:  # pragma: no cover - 96 random bits
                chosen = new_id(self._prefix)
        self._seen.add(chosen)
        return chosen
