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

A value's own closer is not always its end either: a value may quote the format's markup (a
parser's fixture, a template, a whole quoted call), its `</parameter>` and `<parameter=…>`
among it. Its own closer ends a value only where what follows continues the call
(`Continuation`): blanks, then one of the call's closers, a new call's opener, the end of the
output, or a parameter the tool declares (an undeclared one only when it closes as a parameter
does). Anywhere else it is the value's text. Inside a value, a parameter's opening ends it (its
closer forgotten) only when it names a declared parameter not given yet; any other is text, a
quoted tag, and the next own closer pairs with it. The answer looks past a closer at most
`MAX_CONTINUATION_LAYOUT` plus `LITERAL_CLOSER_LOOKAHEAD` characters, so it is bounded and
split-invariant.

`NestedClosers` holds a value's closers level by level (its own first, the block's last) and
finds the earliest one with the one closer search (`textscan.find_closer`), which also says
where a closer cut off by the end of a chunk begins. It never decides what a closed level means
for a call: the format's reader does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from toolmend.core.textscan import closers, find_closer, is_proper_prefix

#: How far past an enclosing closer a value's own closer is looked for
#: (`enclosing_closer_is_text`): a quoted closer sits in a line of code or prose, and the
#: value's closer ends that line or one soon after. Bounded, so a forgotten closer is decided
#: (and the call released) after at most this many characters.
LITERAL_CLOSER_LOOKAHEAD = 512

#: How many blanks may stand between a value's closer and what continues the call; more, and
#: the closer ends the value whatever follows (blank lines are layout, never a value's quote).
#: With a tag's length past them, the whole window `Continuation.follows` looks at.
MAX_CONTINUATION_LAYOUT = 128

#: `(True, name, where the tag ends)` a complete parameter tag naming `name`; `(None, "", -1)`
#: one that may still complete; `(False, "", -1)` no tag.
NameRead = tuple[bool | None, str, int]


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


@dataclass(frozen=True, slots=True)
class Continuation:
    """What may follow a value's own closer for that closer to end the value (see the module
    docstring), as a format writes it."""

    #: The value's own closer (`</parameter>`).
    own: str
    #: What continues the call as it is: its closers, the block's, a new call's opener.
    ends: tuple[str, ...]
    #: What opens the next parameter (`<parameter=`).
    parameter: str
    #: The parameter's name from the tag's rest at `buf[i:end]` (`final`: nothing more comes).
    read_name: Callable[[str, int, int, bool], NameRead]
    #: Where the layout at `buf[i:end]` ends (blanks, and whatever else the format allows).
    layout_end: Callable[[str, int, int], int]

    def follows(
        self, buf: str, stop: int, end: int, declared: Callable[[str], bool], *, final: bool
    ) -> bool | None:
        """Whether what follows the closer ending at `stop` continues the call: True or False,
        None while the window is not all there yet. A parameter the tool declares (`declared`)
        continues it; an undeclared one only when it closes as a parameter does, its own
        closer followed by what continues a call (`_closes`), within `LITERAL_CLOSER_LOOKAHEAD`
        characters: a quote of a parameter's tag is followed by more quoted text, a parameter
        the model added (the schema gate judges it) by the call's markup."""
        k, verdict = self._next_tag(buf, stop, end, final=final)
        if verdict is not None or k < 0:
            return verdict
        complete, name, tag_end = self.read_name(buf, k + len(self.parameter), end, final)
        if not complete:
            return complete
        return True if declared(name) else self._closes(buf, tag_end, end, final=final)

    def quoted_markup(
        self,
        buf: str,
        stop: int,
        end: int,
        quoted: int,
        *,
        closer: bool,
        next_parameter: Callable[[str], bool],
        declared: Callable[[str], bool],
        final: bool,
    ) -> tuple[bool | None, int]:
        """Whether the value's own closer (`closer`) or parameter tag ending at `stop` is the
        value's text, a quote of the format's markup, and the count of parameter tags the value
        quotes after it (`quoted` before it): each quoted tag's closer pairs with it. A closer
        with no quoted tag open ends the value where the call goes on after it (`follows`); a
        tag ends it (its closer forgotten) only when it opens the next parameter
        (`next_parameter`: declared and not given yet). The verdict is None while undecided."""
        if closer:
            if quoted:
                return True, quoted - 1
            follows = self.follows(buf, stop, end, declared, final=final)
            return (None if follows is None else not follows), quoted
        complete, name, _ = self.read_name(buf, stop, end, final)
        if complete is None:
            return None, quoted
        if complete and not quoted and next_parameter(name):
            return False, quoted
        return True, quoted + complete

    def _next_tag(self, buf: str, stop: int, end: int, *, final: bool) -> tuple[int, bool | None]:
        """What follows the layout at `stop`: `(-1, verdict)` when that decides (a closer,
        the end, a long layout: True; other text: False; not all there: None), else
        `(where a parameter tag begins, None)`."""
        limit = min(end, stop + MAX_CONTINUATION_LAYOUT)
        k = self.layout_end(buf, stop, limit)
        if k - stop >= MAX_CONTINUATION_LAYOUT:
            return -1, True
        if k == end:
            return -1, (True if final else None)
        if buf.startswith(self.ends, k, end):
            return -1, True
        if buf.startswith(self.parameter, k, end):
            return k, None
        if is_proper_prefix(buf[k:end], (*self.ends, self.parameter)) or (
            buf[k] == "\\" and k + 1 == end  # an escaped blank, maybe
        ):
            return -1, (True if final else None)
        return -1, False

    def _closes(self, buf: str, start: int, end: int, *, final: bool) -> bool | None:
        """Whether the parameter whose value begins at `start` closes as a parameter does (see
        `follows`); a value longer than the window is taken for one."""
        limit = min(end, start + LITERAL_CLOSER_LOOKAHEAD)
        at, found = find_closer(buf, start, limit, (self.own,), final=True)
        if not found:
            return True if final or limit - start >= LITERAL_CLOSER_LOOKAHEAD else None
        k, verdict = self._next_tag(buf, at + len(self.own), end, final=final)
        return True if k >= 0 else verdict
