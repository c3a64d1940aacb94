"""Occurrence counting: fingerprints, repeat counts and identical-call detection.

This module owns the one counter (`Ledger`) behind both holders of guard state: the per-task
state inside `Interceptor` and the pure `guard_history`, which replays a message history through
a fresh `Ledger`. Because both feed the same events to the same code, they give the same counts.
It never classifies, never builds guidance and never reads clocks: a count changes only on
events (a call, a failure, a success, a user message).

Rules:
- A failure's fingerprint is (category, tool, normalised signature). Within one scope (the tool,
  or the protocol for markup problems) the same fingerprint counts up; a different one restarts
  at 1.
- A success in that scope, or a user message, resets the count.
- Identical consecutive calls (name + canonical sorted-key JSON arguments) count up; a failed
  call ends the run (retrying after a failure is not a duplicate), a user message resets it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

#: Scopes remembered per ledger; the least recently touched is forgotten first. A task that
#: touches more distinct tools than this simply loses the oldest counts (fail open).
MAX_SCOPES = 256
#: Characters of an error text that make up its signature: enough to tell errors apart,
#: bounded so that hashing a huge log costs nothing.
MAX_SIGNATURE_CHARS = 240

#: The scope of protocol problems (XML markup next to native calls): not tied to one tool.
PROTOCOL_SCOPE = "<protocol>"

_DIGITS = re.compile(r"\d+")
_SPACE = re.compile(r"\s+")


def normalise_signature(text: str) -> str:
    """Lower-case, numbers folded to `#`, whitespace collapsed, bounded.

    Positions, line numbers, token counts and timestamps change between otherwise identical
    errors; folding them keeps "the same mistake" the same fingerprint.
    """
    return _fold(text[: MAX_SIGNATURE_CHARS * 4])


#: Signatures remembered, keyed by the bounded head they are folded from: a replayed history
#: folds the same failures on every request.
SIGNATURE_CACHE = 4096


@functools.lru_cache(maxsize=SIGNATURE_CACHE)
def _fold(head: str) -> str:
    folded = _SPACE.sub(" ", _DIGITS.sub("#", head.lower())).strip()
    return folded[:MAX_SIGNATURE_CHARS]


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Fingerprint:
    """Identity of a failure for counting; the signature is a digest, never raw text."""

    category: str
    tool: str
    signature: str


def fingerprint(category: str, tool: str, signature_text: str) -> Fingerprint:
    return Fingerprint(category, tool, _digest(normalise_signature(signature_text)))


def call_key(name: str, arguments: object) -> str:
    """Identity of a call: name plus canonical sorted-key JSON of the arguments (a digest)."""
    if isinstance(arguments, str):
        body = arguments.strip()
    else:
        body = json.dumps(
            arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
        )
    return _digest(f"{name}\x00{body}")


class Ledger:
    """The counter. Pure state over events; one per task (or per replayed history)."""

    __slots__ = ("_call_key", "_call_run", "_runs")

    def __init__(self) -> None:
        self._runs: OrderedDict[str, tuple[Fingerprint, int]] = OrderedDict()
        self._call_key: str | None = None
        self._call_run = 0

    def see_call(self, key: str) -> int:
        """Record a call about to run; returns how many identical calls in a row this makes."""
        if key == self._call_key:
            self._call_run += 1
        else:
            self._call_key, self._call_run = key, 1
        return self._call_run

    def failure(self, scope: str, fp: Fingerprint, *, ends_call_run: bool = True) -> int:
        """Record a failure in `scope`; returns its occurrence (1, 2, 3, ...)."""
        previous = self._runs.pop(scope, None)
        count = previous[1] + 1 if previous is not None and previous[0] == fp else 1
        self._runs[scope] = (fp, count)
        while len(self._runs) > MAX_SCOPES:
            self._runs.popitem(last=False)
        if ends_call_run:
            self._call_key, self._call_run = None, 0
        return count

    def copy(self) -> Ledger:
        """An independent ledger with the same counts."""
        twin = Ledger()
        twin._runs = self._runs.copy()
        twin._call_key, twin._call_run = self._call_key, self._call_run
        return twin

    def success(self, scope: str) -> None:
        """A success in `scope` resets its count."""
        self._runs.pop(scope, None)

    def user_message(self) -> None:
        """A user message resets everything: the user has changed the situation."""
        self._runs.clear()
        self._call_key, self._call_run = None, 0

    def occurrence(self, scope: str) -> int:
        """The current count in `scope` (0 when none)."""
        run = self._runs.get(scope)
        return run[1] if run else 0

    def snapshot(self) -> dict[str, Any]:
        """The counts, for tests and debugging: scope -> (category, count)."""
        return {scope: (fp.category, n) for scope, (fp, n) in self._runs.items()}
