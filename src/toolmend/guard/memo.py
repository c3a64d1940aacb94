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

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class SizedLru(Generic[K, V]):
    """Values kept by key, least recently used first out, bounded by entries and by the sizes
    their callers give them; an entry larger than `max_entry_size` is not kept. Safe across
    threads. The one eviction mechanism of the guard's caches (`PureMemo`, `replays`)."""

    __slots__ = ("_entries", "_lock", "_size", "max_entries", "max_entry_size", "max_size")

    def __init__(self, max_entries: int, max_size: int, max_entry_size: int) -> None:
        self.max_entries = max_entries
        self.max_size = max_size
        self.max_entry_size = max_entry_size
        self._entries: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def get(self, key: K) -> tuple[V] | None:
        """`(value,)` when `key` is kept (it becomes the most recently used), else None."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            self._entries.move_to_end(key)
            return (entry[0],)

    def put(self, key: K, value: V, size: int, *, replacing: K | None = None) -> None:
        """Keep `value` for `key` at `size`, in place of what `key` (and `replacing`, an
        entry it supersedes) held."""
        if size > self.max_entry_size:
            return
        with self._lock:
            for old_key in (replacing, key):
                old = None if old_key is None else self._entries.pop(old_key, None)
                if old is not None:
                    self._size -= old[1]
            self._entries[key] = (value, size)
            self._size += size
            while len(self._entries) > self.max_entries or self._size > self.max_size:
                _, (_, dropped) = self._entries.popitem(last=False)
                self._size -= dropped

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def size(self) -> int:
        """The sizes of the kept entries, together."""
        return self._size

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._size = 0


class PureMemo(SizedLru[Hashable, V]):
    """Least-recently-used results of one pure function, keyed by its whole input; an entry's
    size is the characters of that input."""

    __slots__ = ()

    def __init__(self, max_entries: int = MAX_ENTRIES, max_chars: int = MAX_CHARS) -> None:
        super().__init__(max_entries, max_chars, MAX_ENTRY_CHARS)

    @property
    def chars(self) -> int:
        """The characters of input the kept entries stand for."""
        return self._size
