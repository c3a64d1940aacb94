"""XTML channel markers (Kimi K3): the one definition of what a marker is.

Owns the marker grammar, as a compiled pattern (`XTML_MARKER_PATTERN`, to search whole text) and
an anchored streaming matcher (`match_marker`) that answers, for one buffer position, "complete
marker", "could still grow into one" or "not a marker". The kimi-xtml protocol parser and the
leak-recovery layer both use these two, built from the same pieces, so they cannot drift.

The grammar. A marker is `<|open|>` or `<|close|>`, then an optional channel name (a run of
ASCII word characters), then an optional `<|sep|>`; it ends after the `<|sep|>`, or before a
non-word character, or at the end of the stream. A bare `<|sep|>` is a marker too. A word run
right after `<|open|>`/`<|close|>` always belongs to the channel name (`<|close|>thinkafter` is
one marker named `thinkafter`), so a sep-less marker is never cut inside a word. The unnamed
`<|open|><|sep|>` and `<|close|><|sep|>` are markers with the channel "". `call` and `argument`
opened with `<|open|>` are structural (a call or argument header with attributes follows), not
channel transitions: `MarkerMatch.structural` says so, the caller decides what to do.

While streaming, a marker whose end is not yet known (`<|clo`, `<|close|>thi`,
`<|close|>think<|se` at the end of the buffer) "could still grow"; at the end of the stream an
incomplete lead (`<|clo`) is not a marker (plain text) and a sep-less named marker is complete.

Never: decides what a marker means (a tools block, a call, a stray channel to strip), parses call
or argument headers, or looks at code spans (the text scanner's code mask keeps those apart).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from toolmend.core.textscan import is_proper_prefix

OPEN = "<|open|>"
CLOSE = "<|close|>"
SEP = "<|sep|>"
#: The three literal strings a marker starts with (a text scanner's opening markers).
LEADS: tuple[str, ...] = (OPEN, CLOSE, SEP)
#: Channels that, opened with `<|open|>`, start a header (`call tool="..."`, `argument key=...`)
#: rather than a channel transition.
STRUCTURAL_CHANNELS = frozenset({"call", "argument"})
#: A channel name longer than this is not a name (the text is not a marker): real channel names
#: are short words, and it bounds what a streaming reader holds back while a name may still grow.
MAX_CHANNEL_NAME = 64

_WORD = "[A-Za-z0-9_]"
# The part after `<|open|>` / `<|close|>`: a whole word run (never cut inside a word: the
# lookahead fails for a longer run), then an optional sep.
_TAIL_SOURCE = rf"(?P<channel>{_WORD}{{0,{MAX_CHANNEL_NAME}}})(?!{_WORD})(?P<sep>{re.escape(SEP)})?"

#: Every XTML marker, anchored at its `<|`. `kind` is "open"/"close" (None for a bare sep),
#: `channel` the name ("" when unnamed), `sep` the closing `<|sep|>` when present.
XTML_MARKER_PATTERN = re.compile(rf"<\|(?:(?P<kind>open|close)\|>{_TAIL_SOURCE}|sep\|>)")
_TAIL_PATTERN = re.compile(_TAIL_SOURCE)


class MarkerStatus(Enum):
    COMPLETE = "complete"
    PARTIAL = "partial"  # could still grow into a marker: hold it back, ask again with more
    NONE = "none"  # not a marker: plain text


@dataclass(frozen=True, slots=True)
class MarkerMatch:
    """The answer of `match_marker` for one position."""

    status: MarkerStatus
    #: "open", "close" or "sep" (a bare `<|sep|>`); "" unless complete.
    kind: str = ""
    channel: str = ""
    #: The marker ended with its own `<|sep|>` (always False for a bare sep).
    has_sep: bool = False
    #: Buffer position just after the marker (-1 unless complete).
    end: int = -1

    @property
    def complete(self) -> bool:
        return self.status is MarkerStatus.COMPLETE

    @property
    def structural(self) -> bool:
        """`<|open|>call` / `<|open|>argument`: a header follows, not a channel transition."""
        return self.kind == "open" and self.channel in STRUCTURAL_CHANNELS

    def is_marker(self, kind: str, channel: str) -> bool:
        return (
            self.status is MarkerStatus.COMPLETE and self.kind == kind and self.channel == channel
        )


PARTIAL = MarkerMatch(MarkerStatus.PARTIAL)
NOT_A_MARKER = MarkerMatch(MarkerStatus.NONE)


def match_marker(
    buf: str, pos: int, end: int | None = None, final: bool = False, *, lead: str | None = None
) -> MarkerMatch:
    """Is there a marker at `buf[pos]`? Only `buf[pos:end]` is read.

    `final` is True when nothing follows `end` (the end of the stream). With `lead` (one of
    `LEADS`) the caller has already matched that lead and `pos` is just after it. Cost: bounded
    by the marker length (`MAX_CHANNEL_NAME` plus the leads), whatever the buffer holds.
    """
    if end is None:
        end = len(buf)
    if lead is None:
        m = XTML_MARKER_PATTERN.match(buf, pos, end)
        if m is None:
            if not final and is_proper_prefix(buf[pos:end], LEADS):
                return PARTIAL
            return NOT_A_MARKER
        kind = m.group("kind") or "sep"
    elif lead == SEP:
        return MarkerMatch(MarkerStatus.COMPLETE, "sep", "", False, pos)
    elif lead in (OPEN, CLOSE):
        m = _TAIL_PATTERN.match(buf, pos, end)
        if m is None:
            return NOT_A_MARKER  # a word run longer than any channel name
        kind = "open" if lead == OPEN else "close"
    else:
        raise ValueError(f"not an XTML marker lead: {lead!r}")
    if kind == "sep":
        return MarkerMatch(MarkerStatus.COMPLETE, "sep", "", False, m.end())
    has_sep = m.group("sep") is not None
    stop = m.end()
    # Sep-less and at the end of what is there: the name may grow, or a `<|sep|>` may arrive.
    if not final and not has_sep and is_proper_prefix(buf[stop:end], (SEP,)):
        return PARTIAL
    return MarkerMatch(MarkerStatus.COMPLETE, kind, m.group("channel"), has_sep, stop)
