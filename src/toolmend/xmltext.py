"""CDATA sections in values written as XML text.

Formats whose values are element content (morph-xml's `<path>…</path>`, MiniCPM4's
`<param name="…">…</param>`) let a model quote a value in `<![CDATA[…]]>` sections; the value
is then the sections' content, joined. One reading for all of them, so every format agrees on
what an unclosed section or text after one means.
"""

from __future__ import annotations

CDATA_OPEN = "<![CDATA["
CDATA_CLOSE = "]]>"
_WS = " \t\r\n"


def unwrap_cdata(raw: str) -> tuple[str, str | None]:
    """The content of the CDATA sections `raw` starts with, and an error if it is malformed.

    `raw` must start with `CDATA_OPEN`. Consecutive sections join (a value holding `]]>` is
    written as two sections); whitespace after the last is layout. An unclosed section or text
    after the sections gives what was read and the reason the value is malformed.
    """
    out: list[str] = []
    i = 0
    while raw.startswith(CDATA_OPEN, i):
        j = raw.find(CDATA_CLOSE, i + len(CDATA_OPEN))
        if j < 0:
            out.append(raw[i + len(CDATA_OPEN) :])
            return "".join(out), "a CDATA section is not closed"
        out.append(raw[i + len(CDATA_OPEN) : j])
        i = j + len(CDATA_CLOSE)
    rest = raw[i:]
    if rest.strip(_WS):
        return "".join(out) + rest, "text follows a CDATA section inside a value"
    return "".join(out), None
