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
finds the earliest one with the one closer search (`textscan.find_closer`), which also says
where a closer cut off by the end of a chunk begins. It never decides what a closed level means
for a call: the format's reader does.
"""

from __future__ import annotations

from collections.abc import Sequence

from toolmend.core.textscan import closers, find_closer


class NestedClosers:
    """A value's closers, innermost level first (see the module docstring)."""

    __slots__ = ("_level_of", "levels", "markers")

    def __init__(self, levels: Sequence[Sequence[str]]) -> None:
        self.levels = tuple(tuple(level) for level in levels)
        #: Every closer, innermost first (for `find_closer` and the fast path's stops).
        self.markers = closers(*dict.fromkeys(m for level in self.levels for m in level))
        if not self.markers:
            raise ValueError("a value has at least one closer")
        self._level_of: dict[str, int] = {}
        for depth, level in enumerate(self.levels):
            for marker in level:
                self._level_of.setdefault(marker, depth)

    def find(self, buf: str, pos: int, end: int, *, final: bool = False) -> tuple[int, str, int]:
        """The earliest closer in `buf[pos:end]`: `(where it begins, the closer, its level)`.

        None there: `(stop, "", -1)`, `buf[stop:end]` being a possible closer cut off by the
        end of the chunk (none when `final`), as `find_closer` says.
        """
        at, marker = find_closer(buf, pos, end, self.markers, final=final)
        return at, marker, self._level_of.get(marker, -1)
