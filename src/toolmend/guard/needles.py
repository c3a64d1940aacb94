"""Needles: the literal text a wording's regex cannot match without.

The classifier tries several hundred wording regexes on every tool result it reads, and almost
all of them fail; a failing search still walks the whole text. Most regexes hold a run of
literal characters that every match contains (`not found`, `Exit Code`, `ENOENT`), so a regex
whose needles are all absent from the text cannot match it, and a substring test is far cheaper
than the search. `needles_of` reads them off the regex's parse tree: a set of lowercase ASCII
strings of which every match holds at least one (one string for a literal run; one per
alternative for a branch whose every alternative has one), or None when no such set is found.

The test is used only on ASCII text lowercased (`str.lower`), where it is exact: under
`re.IGNORECASE` an ASCII literal matches an ASCII character only when their lowercase forms are
equal, and a case-sensitive match implies the same. Non-ASCII text (where case folding has
exceptions such as the long s) always runs the regex. Reading the tree uses the `re` package's
own parser (`re._parser`); if it ever cannot read a regex, that regex simply has no needles.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

_codes: Any
_regex_parser: Any
try:  # the parser `re.compile` itself uses; private, hence imported by name and guarded
    _codes = importlib.import_module("re._constants")
    _regex_parser = importlib.import_module("re._parser")
except ImportError:  # pragma: no cover - a Python without it: no needles, every regex runs
    _codes = _regex_parser = None

#: A requirement: at least one of these strings is in every match.
Needles = frozenset[str]


def needles_of(regex: re.Pattern[str]) -> Needles | None:
    """The needles of `regex`, or None where it has none (it then always runs)."""
    if _regex_parser is None:  # pragma: no cover
        return None
    try:
        tree = _regex_parser.parse(regex.pattern, regex.flags)
    except Exception:  # a pattern the parser cannot read only loses its needles
        return None
    return _best(_sequence(list(tree)))


def _sequence(items: list[tuple[Any, Any]]) -> list[Needles]:
    """Every requirement a sequence of parse items imposes: each maximal run of ASCII literals,
    and the best requirement of each mandatory part (a group, a repeat of at least one, a branch
    whose every alternative has one)."""
    found: list[Needles] = []
    run: list[str] = []
    for op, argument in items:
        if op is _codes.LITERAL and argument < 128:
            run.append(chr(argument).lower())
            continue
        if run:
            found.append(frozenset({"".join(run)}))
            run = []
        inner = _mandatory_part(op, argument)
        if inner is not None:
            found.append(inner)
    if run:
        found.append(frozenset({"".join(run)}))
    return found


def _mandatory_part(op: Any, argument: Any) -> Needles | None:
    if op is _codes.SUBPATTERN:
        return _best(_sequence(list(argument[-1])))
    if op is _codes.ATOMIC_GROUP:
        return _best(_sequence(list(argument)))
    if op in (_codes.MAX_REPEAT, _codes.MIN_REPEAT, _codes.POSSESSIVE_REPEAT):
        low, _, body = argument
        return _best(_sequence(list(body))) if low >= 1 else None
    if op is _codes.BRANCH:
        alternatives = [_best(_sequence(list(branch))) for branch in argument[1]]
        if any(alternative is None for alternative in alternatives):
            return None
        return frozenset().union(*alternatives)  # type: ignore[arg-type]
    return None


def _best(requirements: list[Needles]) -> Needles | None:
    """The most selective requirement: the longest shortest needle, then the fewest needles."""
    if not requirements:
        return None
    return max(requirements, key=lambda needles: (min(map(len, needles)), -len(needles)))
