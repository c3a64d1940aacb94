"""A failed call's own facts, read beside its error: what the error repeats of the call.

This module owns the reading of a call's arguments and name against the text it got back: the
edit's search texts among the arguments (`old_string`, `oldText`, `search`, at the top or inside a
list of edits) and whether the error quotes one back, and whether the error says that the very
tool the call named is not there. A text that repeats the call's own search text or tool name is
about this call, whatever a family's common words make of it ("String 'X' not found in F" is the
edit's when X is the call's `old_str`; "Method NAME not found" is a missing tool when NAME is the
tool called). It never classifies (that is `classify`) and never raises.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping

#: The names an edit's search text goes by among a call's arguments (`old_string`, `oldText`,
#: `search`), at the top or inside a list of edits (Continue's MultiEdit, pi's edit).
_SEARCH_KEY = r"old_?(?:string|str|text)|search(?:_?(?:text|block|string))?"
_SEARCH_TEXT_KEY = re.compile(_SEARCH_KEY, re.IGNORECASE)
#: The same in the call's raw JSON arguments (chat/completions sends them as text): the key and
#: its string value, at any depth.
_JSON_SEARCH_TEXT = re.compile(
    r'"(?:' + _SEARCH_KEY + r')"\s*:\s*"((?:[^"\\\n]|\\.)+)"', re.IGNORECASE
)
#: Levels of nested arguments walked for search texts (an edit list inside the call: two).
MAX_ARGUMENT_DEPTH = 3
#: Items read per list of edits.
MAX_ARGUMENT_ITEMS = 32


#: Lines a search text may span in `arguments_text`'s form, where nothing marks where a value
#: ends: each run of up to this many lines after the name is a candidate.
MAX_VALUE_LINES = 40


def search_texts(given: str) -> list[str]:
    """The edit's search texts in `given`: `arguments_text`'s (a name on one line, its value
    after it: each run of up to `MAX_VALUE_LINES` lines, since a multi-line value is not marked
    off) or the raw JSON arguments (any value)."""
    if given.lstrip().startswith("{"):
        texts = []
        for match in _JSON_SEARCH_TEXT.finditer(given):
            try:
                texts.append(str(json.loads(f'"{match.group(1)}"')))
            except ValueError:
                continue
        return [text for text in texts if text.strip()]
    lines = given.split("\n")
    return [
        "\n".join(lines[at + 1 : end])
        for at, key in enumerate(lines[:-1])
        if _SEARCH_TEXT_KEY.fullmatch(key)
        for end in range(at + 2, min(len(lines), at + 1 + MAX_VALUE_LINES) + 1)
        if lines[at + 1].strip()
    ]


def search_values(arguments: object, depth: int = 0) -> list[str]:
    """The edit's search texts among a call's arguments, decoded (a mapping, walked to
    `MAX_ARGUMENT_DEPTH`) or as text (`search_texts`): a multi-line search text whole."""
    if isinstance(arguments, str):
        return search_texts(arguments)
    out: list[str] = []
    if depth >= MAX_ARGUMENT_DEPTH:
        return out
    if isinstance(arguments, Mapping):
        for key, value in list(arguments.items())[:MAX_ARGUMENT_ITEMS]:
            if isinstance(value, str):
                if value.strip() and _SEARCH_TEXT_KEY.fullmatch(str(key)):
                    out.append(value)
            else:
                out += search_values(value, depth + 1)
    elif isinstance(arguments, list):
        for item in arguments[:MAX_ARGUMENT_ITEMS]:
            if not isinstance(item, str):
                out += search_values(item, depth + 1)
    return out


def quotes_search_text(text: str, given: object) -> bool:
    """The result quotes the edit's own search text back (`... not found in file: "OLD"`): it
    is about this call, even where that text is a plain word that names nothing by itself."""
    return quotes_one_of(text, search_values(given))


def without_search_texts(text: str, given: object) -> str:
    """`text` with the edit's search texts it quotes back cut to a mark, longest first, so that
    the statement around a multi-line one reads as one line ("String '…' not found in F")."""
    for value in sorted(search_values(given), key=len, reverse=True):
        for quote in "\"'`":
            text = text.replace(f"{quote}{value}{quote}", f"{quote}\u2026{quote}")
    return text


def quotes_one_of(text: str, values: Iterable[str]) -> bool:
    """`text` holds one of `values` between quotes of one kind."""
    return any(f"{quote}{value}{quote}" in text for value in values for quote in "\"'`")


#: The words after a name that say it is not there.
_NOT_THERE = (
    r"[`'\"]?\s+(?:was |is )?(?:not found|does not exist|doesn't exist|is unknown"
    r"|not (?:registered|available|defined))\b"
)
#: Shortest tool name read back from an error: a shorter one is a common word.
MIN_TOOL_NAME = 3


def names_called_tool_missing(text: str, tool: str | None) -> bool:
    """The error says that the tool the call named is not there: "Method API-get-page not
    found" (an OpenAPI-backed MCP server), "No session found for tool: browser_snapshots" (a
    client whose servers do not list it), "Tool 'x' does not exist"."""
    if not tool or len(tool) < MIN_TOOL_NAME or len(tool) > 128:
        return False
    name = re.escape(tool)
    said = re.compile(
        r"(?:^|[\s`'\"(:])[`'\"]?"
        + name
        + _NOT_THERE
        + r"|\bno (?:session|server|handler|client|tool|function|method)s? (?:was )?(?:found"
        r" |registered |available )?for (?:the )?(?:tool|function|method)?:? ?[`'\"]?"
        + name
        + r"(?![\w.-])",
        re.IGNORECASE,
    )
    return said.search(text[:4_096]) is not None


#: The values read back from an error as the call's own (`argument_values`): a shorter one is a
#: common word or digit, a longer one is content the call wrote, not a name or an id it gave.
MIN_VALUE_CHARS = 2
MAX_VALUE_CHARS = 80
#: Arguments whose value is not a name or an id the tool looks up: a shell command is the
#: program's input; a path's failure is the file's (a missing file, a write refused).
_NOT_A_LOOKUP = re.compile(r"command|cmd|script|code|content|text|path|file\w*|dir\w*", re.I)


def argument_values(arguments: object) -> list[str]:
    """The names and ids a call passed at the top of its arguments (`{"agent": "explore"}`,
    `{"session_id": 14}`), decoded or as raw JSON text: strings and integers of
    `MIN_VALUE_CHARS` to `MAX_VALUE_CHARS`, not paths and not under a command's, a path's or a
    content's key (`_NOT_A_LOOKUP`)."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return []
    if not isinstance(arguments, Mapping):
        return []
    out: list[str] = []
    for key, value in list(arguments.items())[:MAX_ARGUMENT_ITEMS]:
        if isinstance(value, bool) or _NOT_A_LOOKUP.fullmatch(str(key)):
            continue
        if isinstance(value, int | str):
            text = str(value).strip()
            if MIN_VALUE_CHARS <= len(text) <= MAX_VALUE_CHARS and "/" not in text:
                out.append(text)
    return out


def repeats_one_of(text: str, values: Iterable[str]) -> bool:
    """`text` repeats one of `values` between quotes or as a whole word of its own
    ("Cannot switch to subagent "explore"", "PTY session not found: 14")."""
    head = text[:4_096]
    return any(
        re.search(r"(?<![\w.-])" + re.escape(value) + r"(?![\w.-])", head) for value in values
    )
