"""The guard's readings of histories a worker has read before, found again by their messages.

An agent sends its whole history with every turn, and the history only grows: the request of
turn N+1 holds turn N's messages, then the assistant's answer and its tool results. Reading an
OpenCode-shaped history of 100 messages costs about 0.6 ms (`bench/agent_request_cpu.py`), on
every turn, for messages the worker read a turn ago. `ReplayCache.read` finds the longest
prefix of a history read before (with the same tools and config), forks the guard's state kept
after it and reads only the messages that follow.

A hit is exactly what a fresh reading gives. The guard is deterministic (`guard.history`): the
state after a prefix, and what its reading changes in each message's guided copy (an `Edit`,
plain data), are functions of the prefix's values, the tools and the config alone. A message
is known by its pickle, made by a pickler that writes exact builtin values only (anything else,
a subclass, an enum member, any other object, makes the history one that is read afresh and
never kept) and keeps no memo, so its bytes are a function of the value alone and equal bytes
mean equal values of the same types: a tuple is not a list, `True` not `1`, NaN not `null`
(JSON texts would confuse each of these). The hash chain over the bytes only finds a
candidate, whose bytes are then compared, so a hash collision is never a hit. The tools are
the same `Tool` objects (the proxy keeps one tuple per tool list, `server.toolset`) and the
config the same object, both held by the entry; tools given as dicts are never kept.

Nothing kept is shared with a request: an entry holds bytes, edits (strings) and an owned
fork of the state (`HistoryGuard.owned`: deep copies of what it keeps of the messages); every
caller gets a fork of it, and its guided copies are made from its own messages (`edited`).

Bounded by entries and by bytes (the messages' pickles and the edits' texts); an entry read
on replaces the prefix it grew from (one entry per conversation), the least recently used
goes first. Safe across threads. Stateless in meaning: any worker, warm or cold, answers alike.
"""

from __future__ import annotations

import pickle
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolmend.guard.history import Edit, HistoryGuard, edited
from toolmend.guard.interceptor import InterceptorConfig
from toolmend.guard.memo import SizedLru
from toolmend.model import Tool

#: Readings kept per worker: a few dozen agents' conversations, one entry each.
MAX_ENTRIES = 128
#: Bytes the kept readings hold together (a 100-message agent history pickles to about 60 KB,
#: so this is a few hundred such conversations; a small part of a worker's memory).
MAX_BYTES = 16 * 1024 * 1024
#: A reading larger than this is never kept: it would push out many conversations.
MAX_ENTRY_BYTES = 4 * 1024 * 1024

#: The types a kept message may be made of: their pickles are their values, exactly.
_VALUES = frozenset({dict, list, tuple, str, int, float, bool, type(None), bytes})


class _NotAValue(Exception):
    """Raised while pickling an object that is not an exact builtin value."""


class _ValuePickler(pickle.Pickler):
    """Pickles exact builtin values only, without a memo (`fast`): no shared-reference
    opcodes, so a message's bytes depend on its value alone."""

    def reducer_override(self, obj: object) -> Any:
        if type(obj) in _VALUES:
            return NotImplemented  # the pickler's own writer for a builtin value
        raise _NotAValue(type(obj).__name__)


@dataclass(frozen=True, slots=True)
class _Reading:
    """The guard's state after a history's messages, and what it changed in each of them."""

    tools: tuple[Tool, ...] | None
    config: InterceptorConfig
    texts: tuple[bytes, ...]
    edits: tuple[Edit, ...]
    state: HistoryGuard
    size: int


class ReplayCache:
    """Readings of histories, found by their longest prefix read before."""

    __slots__ = ("_readings",)

    def __init__(self, max_entries: int = MAX_ENTRIES, max_bytes: int = MAX_BYTES) -> None:
        #: Readings by their history's hash chain; an entry's size is its bytes.
        self._readings: SizedLru[int, _Reading] = SizedLru(max_entries, max_bytes, MAX_ENTRY_BYTES)

    def read(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Tool] | None,
        config: InterceptorConfig,
    ) -> tuple[list[dict[str, Any]], HistoryGuard]:
        """`HistoryGuard(tools, config)`'s guided copies of `messages`, and a fork of its
        state after them, reading only the messages after the longest prefix kept."""
        kept_tools = None if tools is None else tuple(tools)
        texts = _texts(messages) if _keepable(kept_tools) else None
        if texts is None:
            state = HistoryGuard(tools, config)
            return state.read_all(messages), state
        chain = _chain(kept_tools, config, texts)
        start, prefix = self._longest(chain, kept_tools, config, texts)
        state = HistoryGuard(tools, config) if prefix is None else prefix.state.fork()
        added = list(map(state.read_edit, messages[start:]))
        edits = added if prefix is None else [*prefix.edits, *added]
        if added:
            size = 0 if prefix is None else prefix.size
            size += sum(map(len, texts[start:])) + sum(map(_edit_size, added))
            if size <= MAX_ENTRY_BYTES:
                entry = _Reading(kept_tools, config, texts, tuple(edits), state.owned(), size)
                self._keep(chain[-1], entry, None if prefix is None else chain[start - 1])
        guided = [edited(m, e) for m, e in zip(messages, edits, strict=True)]
        return guided, state

    def _longest(
        self,
        chain: list[int],
        tools: tuple[Tool, ...] | None,
        config: InterceptorConfig,
        texts: tuple[bytes, ...],
    ) -> tuple[int, _Reading | None]:
        """The length of the longest prefix kept, and its reading (0, None: none is)."""
        for length in range(len(chain), 0, -1):
            kept = self._readings.get(chain[length - 1])
            if kept is not None and _holds(kept[0], tools, config, texts, length):
                return length, kept[0]
        return 0, None

    def _keep(self, key: int, entry: _Reading, grown_from: int | None) -> None:
        self._readings.put(key, entry, entry.size, replacing=grown_from)

    def __len__(self) -> int:
        return len(self._readings)

    @property
    def bytes(self) -> int:
        """The bytes the kept readings hold (messages' pickles and edits' texts)."""
        return self._readings.size

    def clear(self) -> None:
        self._readings.clear()


def _keepable(tools: tuple[Tool, ...] | None) -> bool:
    """Whether a reading with these tools can be found again (the same objects come again)."""
    return tools is None or all(type(tool) is Tool for tool in tools)


class _Parts:
    """The file a pickler writes to: its writes kept as they come (no buffer to copy out)."""

    __slots__ = ("write",)

    def __init__(self, parts: list[bytes]) -> None:
        self.write = parts.append


def _texts(messages: Sequence[Mapping[str, Any]]) -> tuple[bytes, ...] | None:
    """Each message's pickle, or None when one is not made of exact builtin values (or is
    cyclic, or nested past the interpreter's recursion limit): such a history is never kept."""
    parts: list[bytes] = []
    pickler = _ValuePickler(_Parts(parts), pickle.HIGHEST_PROTOCOL)
    pickler.fast = True
    texts = []
    try:
        for message in messages:
            pickler.dump(message)  # one write, or one per frame of a large message
            texts.append(parts[0] if len(parts) == 1 else b"".join(parts))
            parts.clear()
    except (_NotAValue, pickle.PicklingError, ValueError, RecursionError):
        return None
    return tuple(texts)


def _chain(
    tools: tuple[Tool, ...] | None, config: InterceptorConfig, texts: tuple[bytes, ...]
) -> list[int]:
    """The key of each prefix: a hash over the tools, the config and the texts up to it."""
    key = hash((None if tools is None else tuple(map(id, tools)), id(config)))
    chain = []
    for text in texts:
        key = hash((key, text))
        chain.append(key)
    return chain


def _holds(
    entry: _Reading,
    tools: tuple[Tool, ...] | None,
    config: InterceptorConfig,
    texts: tuple[bytes, ...],
    length: int,
) -> bool:
    """Whether `entry` is the reading of the first `length` of `texts` with these tools."""
    if entry.config is not config or len(entry.texts) != length:
        return False
    if (entry.tools is None) != (tools is None):
        return False
    if entry.tools is not None and tools is not None:
        if len(entry.tools) != len(tools):
            return False
        if not all(a is b for a, b in zip(entry.tools, tools, strict=True)):
            return False
    return entry.texts == texts[:length]


def _edit_size(edit: Edit) -> int:
    """The characters of the texts an edit holds."""
    if edit is None:
        return 0
    if isinstance(edit, str):
        return len(edit)
    return sum(len(text) for text in edit if text is not None)
