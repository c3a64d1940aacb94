"""A bounded, process-wide memo of the guard's pure results.

The proxy replays the whole history through the guard on every request (it keeps no state per
conversation), so the same tool results and the same past calls are classified again on every
turn of an agent's conversation. What the guard derives from one result text or one call alone
(is it a failure, which pattern, what preflight finds, the call's identity) is a pure function of
that input and the tool set, so it can be kept and reused; what depends on the history (counts,
occurrences, guidance) is never kept here. A hit returns exactly what a fresh computation would,
so no answer depends on what the process saw before: any replica still serves any request.

Bounded twice: by entries, and by the characters of the keys it holds (a key holds the result
text or the arguments it stands for, so that equal keys mean equal inputs, never a hash
collision); an input longer than `MAX_ENTRY_CHARS` is not kept. The least recently used entry
goes first. Safe across threads. It never computes anything itself.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

#: Entries kept per memo: a few busy agent conversations' results and calls.
MAX_ENTRIES = 4096
#: Characters of input kept per memo (about 8 MB of ASCII text): many conversations' worth of
#: tool results, a small part of a worker's memory.
MAX_CHARS = 8_000_000
#: An input longer than this is classified afresh every time: keeping it would push out many
#: smaller ones, and the classifiers read only bounded parts of a long text anyway.
MAX_ENTRY_CHARS = 262_144

V = TypeVar("V")


class PureMemo(Generic[V]):
    """Least-recently-used results of one pure function, keyed by its whole input."""

    __slots__ = ("_chars", "_entries", "_lock", "max_chars", "max_entries")

    def __init__(self, max_entries: int = MAX_ENTRIES, max_chars: int = MAX_CHARS) -> None:
        self.max_entries = max_entries
        self.max_chars = max_chars
        self._entries: OrderedDict[Hashable, tuple[V, int]] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> tuple[V] | None:
        """`(value,)` when `key` is kept (it becomes the most recently used), else None."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            self._entries.move_to_end(key)
            return (entry[0],)

    def put(self, key: Hashable, value: V, chars: int) -> None:
        """Keep `value` for `key`, whose input is `chars` characters long."""
        if chars > MAX_ENTRY_CHARS:
            return
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._chars -= old[1]
            self._entries[key] = (value, chars)
            self._chars += chars
            while len(self._entries) > self.max_entries or self._chars > self.max_chars:
                _, (_, dropped) = self._entries.popitem(last=False)
                self._chars -= dropped

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def chars(self) -> int:
        """The characters of input the kept entries stand for."""
        return self._chars

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._chars = 0
