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

One exception keeps a value whole that holds an enclosing closer as text (a code sample's
`</tool_call>` inside a file being written): an enclosing closer that would end a value whose
own closer is missing is the value's text when that own closer follows within
`LITERAL_CLOSER_LOOKAHEAD` characters, before anything opens a new call
(`enclosing_closer_is_text`). A model that forgot the value's closer does not write it again
later in the same call; one that quoted markup does. The answer looks at a bounded window only,
so it is the same however the input is split, and the stream is held at most that long.

`NestedClosers` holds a value's closers level by level (its own first, the block's last) and
finds the earliest one with the one closer search (`textscan.find_closer`), which also says
where a closer cut off by the end of a chunk begins. It never decides what a closed level means
for a call: the format's reader does.
"""

from __future__ import annotations

from collections.abc import Sequence

from toolmend.core.textscan import closers, find_closer

#: How far past an enclosing closer a value's own closer is looked for
#: (`enclosing_closer_is_text`): a quoted closer sits in a line of code or prose, and the
#: value's closer ends that line or one soon after. Bounded, so a forgotten closer is decided
#: (and the call released) after at most this many characters.
LITERAL_CLOSER_LOOKAHEAD = 512


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


def enclosing_closer_is_text(
    buf: str, stop: int, end: int, own: str, openers: tuple[str, ...], *, final: bool
) -> bool | None:
    """Whether the enclosing closer that ends at `stop` is text of the value it would end (see
    the module docstring): True when the value's `own` closer follows in the window
    `buf[stop:stop + LITERAL_CLOSER_LOOKAHEAD]` before any of `openers` (what opens a new call);
    False when an opener comes first or the window (or, when `final`, the input) holds neither;
    None while the window is not all there yet."""
    limit = min(end, stop + LITERAL_CLOSER_LOOKAHEAD)
    _, marker = find_closer(buf, stop, limit, (own, *openers), final=True)
    if marker:
        return marker == own
    if final or limit - stop >= LITERAL_CLOSER_LOOKAHEAD:
        return False
    return None
