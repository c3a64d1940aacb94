"""`json_error_reminder`: append a JSON-arguments reminder to a tool output that reports one.

This module owns the reminder text, its marker and the exclusion list of content-bearing tools
(seed 001). It appends only when the output is a string, a line of it that starts like an error
report carries a JSON parser's wording (the same wordings `classify_error` uses), the tool is
not content-bearing (their output is data: a file that mentions a JSON error is not one), and
the marker is not already there. It never changes the output otherwise and never raises.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from toolmend.guard.results import DEFAULT_CONTENT_TOOLS, tool_family
from toolmend.guard.wordings import ALL_JSON_ERRORS
from toolmend.model import Tool

#: The marker that makes the reminder idempotent.
REMINDER_MARKER = "[toolmend: invalid JSON tool arguments]"

REMINDER = (
    f"\n\n{REMINDER_MARKER}\n"
    "The arguments of your last tool call were not valid JSON, so the call did not run as "
    "intended.\n"
    "- Send exactly one JSON object per tool call; use separate calls for separate items.\n"
    '- Double-quote every key and string; escape newlines (\\n) and quotes (\\") inside strings.\n'
    "- Close every brace and bracket; add no text, comments or trailing commas around the object.\n"
    "Retry the call with corrected arguments."
)

#: Content-bearing tools (shell, file read, grep, glob, web fetch, search, subagents and
#: sessions): one list, shared with `classify_result`, whose bare-string output is data.
DEFAULT_EXCLUDED_TOOLS = DEFAULT_CONTENT_TOOLS
#: Name prefixes of content-bearing tool families (MCP-prefixed search and session tools).
EXCLUDED_PREFIXES = ("websearch_", "session_", "gh_grep_", "web_search_")

#: Only text this long is searched: JSON errors are reported at the top of an output.
MAX_SCAN_CHARS = 16_384
#: A reported error starts its line with an error label or with the parser's own words; prose
#: ("I fixed the JSON error ...") does not.
_ERROR_LINE = re.compile(
    r"^\s*(?:[\w.]*(?:Error|Exception)\b|error\b|fatal\b|failed\b|invalid\b|unexpected\b"
    r"|expecting\b|expected\b|extra data\b|unterminated\b|bad\b|eof\b|trailing\b|json\b"
    r"|\[json\.exception|<tool_use_error>|the \w+ tool was called with invalid|tool\b)",
    re.IGNORECASE,
)


def _name(tool: Tool | str | None) -> str:
    if isinstance(tool, Tool):
        return tool.name
    return tool if isinstance(tool, str) else ""


def is_excluded(tool: Tool | str | None, excluded: Iterable[str] = DEFAULT_EXCLUDED_TOOLS) -> bool:
    """True for content-bearing tools, by family (`Read`, `mcp__fs__read_file` count too)."""
    name = _name(tool).lower()
    family = tool_family(name)
    return (
        family in frozenset(excluded)
        or name in frozenset(excluded)
        or (family.startswith(EXCLUDED_PREFIXES))
    )


def reports_json_error(output: str) -> bool:
    """True when a line that starts like an error report carries a JSON parser wording."""
    for line in output[:MAX_SCAN_CHARS].splitlines():
        if _ERROR_LINE.match(line) and any(rx.search(line) for rx in ALL_JSON_ERRORS):
            return True
    return False


def json_error_reminder(
    tool: Tool | str | None,
    output: object,
    *,
    excluded_tools: Iterable[str] = DEFAULT_EXCLUDED_TOOLS,
) -> object:
    """`output` with the reminder appended when it reports invalid JSON arguments."""
    if is_excluded(tool, excluded_tools) or not isinstance(output, str):
        return output
    if REMINDER_MARKER in output or not reports_json_error(output):
        return output
    return output + REMINDER
