"""Nested closers: where a raw value ends when the closers inside its block go missing.

Formats that nest elements (`<tool_call><function=…><parameter=…>VALUE</parameter></function>
</tool_call>`, `<function_calls><invoke …><parameter …>VALUE</parameter></invoke>
</function_calls>`) close each level with its own tag. Models forget the inner ones: the value's
`</parameter>` and the function's `</function>` are missing, but the block's `</tool_call>`
arrives. Every engine that reads these formats cuts the block at its outer closer first, so the
value cannot run past it; toolmend does the same, for every such format, with one rule:

    a value ends at the first closer of its own level or of any enclosing level; a closer of
    an enclosing level also closes every level inside it (a forgotten closer, recorded by the
    format as its repair).

`NestedClosers` holds a value's closers level by level (its own first, the block's last) and
finds the earliest one in a buffer, or where a partial one begins at the end of what has
arrived. It never decides what a closed level means for a call: the format's reader does.
Every closer begins with its only `<` (so a partial one starts at the last `<`), which keeps
the search to one regex scan and a bounded look at the end.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from toolmend.core.textscan import partial_marker_start


class NestedClosers:
    """A value's closers, innermost level first (see the module docstring)."""

    __slots__ = ("_level_of", "_longest", "_search", "levels", "markers")

    def __init__(self, levels: Sequence[Sequence[str]]) -> None:
        self.levels = tuple(tuple(level) for level in levels)
        #: Every closer, for the fast path's stops (`ValueText`).
        self.markers = tuple(m for level in self.levels for m in level)
        if not self.markers or any(not m.startswith("<") or "<" in m[1:] for m in self.markers):
            raise ValueError("every closer begins with its only '<'")
        self._level_of: dict[str, int] = {}
        for depth, level in enumerate(self.levels):
            for marker in level:
                self._level_of.setdefault(marker, depth)
        self._longest = max(map(len, self.markers))
        ordered = sorted(set(self.markers), key=len, reverse=True)
        self._search = re.compile("|".join(map(re.escape, ordered)))

    def find(self, buf: str, pos: int, end: int) -> tuple[int, str, int] | None:
        """The earliest closer in `buf[pos:end]`: (where it starts, the closer, its level)."""
        m = self._search.search(buf, pos, end)
        if m is None:
            return None
        return m.start(), m.group(), self._level_of[m.group()]

    def held_from(self, buf: str, pos: int, end: int) -> int:
        """Where the proper prefix of a closer that `buf[pos:end]` ends in begins (else `end`)."""
        lt = buf.rfind("<", max(pos, end - self._longest + 1), end)
        if lt < 0:
            return end
        return partial_marker_start(buf, lt, end, self.markers, "<")
