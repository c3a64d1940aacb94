"""Passing over a JSON value that is no call, as text, without reading it.

A bare value a reader refused while it was open (`{"messages": [{"role": "assistant",
"tool_calls": [...]}]}`: an example, not a call) and a data list the parser refused at its
first item (`[1, {"name": "rm", ...}]`, `BodyStart.data`) are text up to where they close: the
call-shaped objects inside them are data, never read as calls and never scanned as markers.
`RefusedJson` follows strings and nesting only, holds nothing, and decides where the value
ends at the same place however the input is split.

Never: decodes the value, knows a format, scans for markers.
"""

from __future__ import annotations

import re

#: Between JSON's structural characters: blanks, numbers, `true`/`false`/`null`, `:` and `,`.
_BETWEEN = re.compile(r"[\sA-Za-z0-9.+\-:,]*")
_IN_STRING = re.compile(r'["\\]')
#: How much of a refused JSON value is passed over unscanned: a value that never closes (a
#: string left open) must not hide the markup after it for the rest of the output, and the
#: block never holds it (`BlockContext.pass_text`). Past it, scanning resumes.
MAX_REFUSED_JSON = 64 * 1024


class RefusedJson:
    """The rest of a JSON value that is no call: text up to where it closes.

    Follows strings and nesting only. It ends where the value closes, at the first character
    that cannot be JSON outside a string (`<`, `*`, …: the text is prose, and scanning resumes
    there), or after `MAX_REFUSED_JSON` characters, whatever the fragment cap (it is passed on
    as it is read: `BlockContext.pass_text`, or the parser's own pass over a data list); each
    at the same place however the input is split.
    """

    __slots__ = ("depth", "escape", "in_string", "seen")

    def __init__(self, depth: int, *, in_string: bool) -> None:
        self.depth = depth
        self.in_string = in_string
        self.escape = False  # a backslash ended the last piece, inside a string
        self.seen = 0

    def skip(self, buf: str, pos: int, end: int) -> tuple[int, bool]:
        """How far `buf[pos:end]` belongs to the value, and whether the value is over there."""
        start = pos
        limit = min(end, pos + MAX_REFUSED_JSON - self.seen)
        done = False
        while pos < limit:
            if self.escape:
                self.escape = False
                pos += 1
            elif self.in_string:
                m = _IN_STRING.search(buf, pos, limit)
                if m is None:
                    pos = limit
                elif m.group() == '"':
                    self.in_string = False
                    pos = m.end()
                else:
                    self.escape = True
                    pos = m.end()
            else:
                pos = _BETWEEN.match(buf, pos, limit).end()  # type: ignore[union-attr]
                if pos == limit:
                    break
                char = buf[pos]
                if char == '"':
                    self.in_string = True
                elif char in "{[":
                    self.depth += 1
                elif char in "}]":
                    self.depth -= 1
                    if self.depth == 0:
                        pos += 1
                        done = True
                        break
                else:
                    done = True  # not JSON: prose, scanned again from here
                    break
                pos += 1
        self.seen += pos - start
        return pos, done or self.seen >= MAX_REFUSED_JSON
