"""`classify_result`: did this tool result fail, and how sure are we?

This module owns the one failure classifier for tool results. A failure is *confirmed* when the
runtime set an error flag on the result itself (MCP `isError`, Anthropic `is_error`, an exception
object); it is *suspect* when the payload reports one: structured signals (`success`/`ok` false,
`is_error` true, a failing `status`, a non-zero `exit_code`, a `status_code` >= 400) or an
error-shaped first line of text.

It recurses only through transport-envelope fields (`content`, `text`, `result`, `stdout`,
`stderr`, `error`), never through arbitrary domain data: a tool may legitimately return a
record whose own status is "failed". Strings are JSON-decoded only in fields that carry nested
envelopes (the root, `content`, `text`, `result`, `error`); `stdout` and `stderr` are command
output, so they are read as text and never re-interpreted as structure (a `cat` of a captured
API error body is a success). Payloads of problem-reporting tools (linters, diagnostics) are
data: only the runtime flag counts for them. An exit status a command-result format states is
weighed by the program that set it (`exit_status`: grep's 1 selected no line, diff's 1 found
differences), also when a runtime flag only restates it. It never raises on odd input and never
changes it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from toolmend.guard.call_facts import quotes_search_text, without_search_texts
from toolmend.guard.classify import classify_error
from toolmend.guard.exit_status import command_in_text, command_of, is_an_answer
from toolmend.guard.wordings import PROGRAM_CRASHED, SIGNAL_TERMINATED, regexes
from toolmend.model import Tool

Confidence = Literal["confirmed", "suspect", "none"]

#: Envelope recursion depth: deep enough for MCP content -> text -> JSON -> result -> stdout,
#: shallow enough that hostile nesting costs nothing.
MAX_DEPTH = 12
#: List items inspected per list (content parts); more are data, not envelope.
MAX_LIST_ITEMS = 32
#: Longest string that is JSON-decoded as a nested envelope; larger strings are payload.
MAX_DECODE_CHARS = 262_144
#: Characters of stderr searched for permission-denial wording.
MAX_STDERR_SCAN = 8_192

ENVELOPE_FIELDS = frozenset({"content", "text", "result", "stdout", "stderr", "error"})
#: Fields whose string content may be a JSON-encoded nested envelope ("" is the root).
JSON_ENVELOPE_FIELDS = frozenset({"", "content", "text", "result", "error"})
#: Fields that hold command output: checked as text, never decoded.
TEXT_ONLY_FIELDS = frozenset({"stdout", "stderr"})

FAILING_STATUSES = frozenset({"error", "failed", "failure", "denied", "unauthorized", "forbidden"})

#: Tools whose payload *reports* problems (diagnostics, lint findings, test reports): a
#: `"status": "error"` inside is the subject matter, not a failure of the call.
DEFAULT_PROBLEM_REPORTING_TOOLS = frozenset(
    {
        "diagnostics",
        "get_diagnostics",
        "lsp_diagnostics",
        "get_errors",
        "get_problems",
        "list_problems",
        "lint",
        "run_linter",
        "read_lints",
        "test_report",
    }
)

#: Content-bearing tools, whose bare-string output is content (file text, command output,
#: fetched pages, subagent answers): only harness failure markers, or an error-prefixed first
#: line that is also a known error pattern, count there; never embedded JSON. The JSON-error
#: reminder skips the same tools.
DEFAULT_CONTENT_TOOLS = frozenset(
    {
        "bash",
        "shell",
        "execute_command",
        "execute_shell_command",
        "run_command",
        "run_terminal_cmd",
        "terminal",
        # the shell tools of OpenHands, gemini-cli, Continue and Codex's unified exec
        "execute_bash",
        "run_shell_command",
        "run_terminal_command",
        "exec_command",
        "local_shell",
        "read",
        "read_file",
        "view",
        "cat",
        "grep",
        "search_files",
        "glob",
        "list_files",
        "webfetch",
        "web_fetch",
        "fetch",
        "websearch",
        "web_search",
        "search",
        "codesearch",
        "gh_grep_searchgithub",
        "websearch_web_search_exa",
        "task",
        "subagent",
        "agent",
        "call_agent",
        "session_read",
        "session_search",
        "session_list",
    }
)

_FAILURE_PREFIX = re.compile(
    # `ERROR:root:...` is a record of Python's logging (`LEVEL:logger:message`), which a program
    # that handled the error and went on writes too: not the result's own failure prefix
    r"(?:error\s*:(?![\w.]+:)|\[error\]|tool execution failed\s*:|<tool_use_error>"
    # "Operation cancelled", "Cancelled by user", "Cancelled."; not "Cancelled job 7.", a cancel
    # tool reporting what it did
    r"|(?:context |operation |request |tool (?:call |execution )?)cancell?ed\b"
    r"|cancell?ed(?=\s*(?:$|[.:!,;(]|by\b))"
    r"|(?:the )?(?:operation |request |command |tool (?:call |execution )?)?timed out\b"
    r"|timeout\s*:|HTTP/\d(?:\.\d)? [45]\d\d\b|HTTP (?:error )?[45]\d\d\b"
    # the agents' and MCP clients' own failure prefixes (`guard/envelope.py` peels the same)
    r"|MCP error -?\d+\s*:|Invalid (?:input|arguments) for (?:tool )?[`'\"]?[\w.\-]+[`'\"]?\s*:"
    r"|Error (?:executing|invoking|calling|running) (?:tool |MCP tool )?[`'\"]?[\w.\-]+)",
    re.IGNORECASE,
)
#: An uncaught exception reported as the whole result: a Python traceback header, or a first
#: line that is an exception's `Type: message` (`KeyError: 'id'`, `json.decoder.JSONDecodeError:
#: ...`). A failure for any tool that is not a content tool; a content tool (a `cat` of a crash
#: log) may show one as data.
_EXCEPTION_REPORT = re.compile(
    r"Traceback \(most recent call last\):|(?:[a-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception)(?::\s|$)"
)
#: Harness markers: failures even in content tools' output.
_HARNESS_PREFIX = re.compile(r"(?:tool execution failed\s*:|<tool_use_error>)", re.IGNORECASE)
#: The command-result formats agents wrap around a shell tool's output state the exit status on a
#: line of its own at the head or the tail (Codex and Roo Code `Exit code: 1`, gemini-cli and Qwen
#: Code `Exit Code: 1`, Claude Code `Error: Exit code 1`, mini-swe-agent `<returncode>1
#: </returncode>`, Cline `Command exited with code 1`; Roo Code also ends its first sentence with
#: it). The harness said it, so it counts even in a content tool's output: non-zero is a failure,
#: zero a success.
_EXIT_STATUS = re.compile(
    r"(?:^\s*|\.\s+)(?:Error: )?(?:<returncode>\s*(?P<rc>-?\d+)\s*</returncode>"
    r"|(?:exit(?:ed with)? (?:code|status)|Process exited with code"
    r"|Command (?:exited|failed) with (?:exit )?code)[: ]\s*(?P<code>-?\d+)\s*$)"
    # OpenHands' observation suffixes: "[The command completed with exit code 1.]", "[Command
    # finished with exit code 1]" (`openhands/events/observation/commands.py`)
    r"|^\s*\[(?:The )?command (?:completed|finished) with exit code (?P<bracket>-?\d+)"
    r"(?:\.[^\]\n]*)?\]\s*$"
    # mini-swe-agent 2's JSON observation: `{`, then `"returncode": 1,` on a line of its own,
    # then `"output": ...` (its `mini.yaml` observation_template)
    r'|^\s*"returncode":\s*(?P<json>-?\d+),\s*$',
    re.IGNORECASE,
)
#: A command-result format that states a signal where the exit status would be (Roo Code's
#: `Process terminated by signal SIGSEGV`): the harness said the command was killed, a failure.
_KILLED_BY_SIGNAL = regexes(SIGNAL_TERMINATED)
#: A crash report in a command's output (`wordings.PROGRAM_CRASHED`: a debugger's signal, the
#: shell's job report, a sanitizer's or memcheck's error): the program failed, whatever status
#: the harness states (gdb, valgrind and UBSan exit 0 after it).
_CRASH_REPORT = regexes(PROGRAM_CRASHED)
#: Characters of a command's output searched for a crash report, at each end (a debugger's
#: report comes after the program's own output; a sanitizer's before its long stack).
MAX_CRASH_SCAN_CHARS = 8_192
#: The lines a command-result format puts around the output (status lines, Codex's `Wall
#: time:` and `Output:`, Roo Code's opening sentence, gemini-cli's fields, mini-swe-agent's
#: tags, OpenHands' bracketed metadata): dropped to read what the program itself printed.
_FRAME_LINE = re.compile(
    r"^\s*(?:Wall time:|Output:\s*$|Process Group PGID:|Background PIDs:|Signal:|Error: \(none\)"
    r"|Command executed in terminal\b|</?output>\s*$|\[(?:Current working directory|Python "
    r"interpreter): )",
    re.IGNORECASE,
)
#: A result this long at most is a message (its first line, then hints such as OpenCode's "Did
#: you mean one of these?" paths) rather than content (`_bare_error`).
MAX_BARE_MESSAGE_CHARS = 1_024
#: A grep hit (`path:line:` or `path:line-`): a content tool's one line that names its path.
_GREP_HIT = re.compile(r"^\S+:\d+[:\-]")
#: Where a harness puts the exit status: the first and last lines of the result.
EXIT_STATUS_HEAD_LINES = 3
EXIT_STATUS_TAIL_LINES = 6
#: Characters read at each end for those lines.
EXIT_STATUS_SCAN_CHARS = 2_048
_PERMISSION = re.compile(
    r"permission denied|\bEACCES\b|\bEPERM\b|operation not permitted|access (?:is )?denied",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class ResultVerdict:
    """`failed` with a `confidence` ("confirmed" | "suspect" | "none") and a short `reason`.

    `reason` names the signal and where it was found (`status=failed at content[0].text`);
    it never quotes the payload beyond a failing status word.
    """

    failed: bool
    confidence: Confidence
    reason: str = ""

    @property
    def suspect(self) -> bool:
        return self.confidence == "suspect"


SUCCESS = ResultVerdict(False, "none", "")


def fold_key(key: object) -> str:
    """Keys are compared case-insensitively with `-` and `_` folded: `isError` == `is_error`."""
    return str(key).lower().replace("-", "").replace("_", "")


def _tool_name(tool: Tool | str | None) -> str:
    if isinstance(tool, Tool):
        return tool.name
    return tool if isinstance(tool, str) else ""


#: Namespace prefixes agents put before a tool's own name: Continue `builtin_read_file`,
#: Gemini `default_api.read_file`, Claude Code `mcp__github__get_file`, goose `developer__shell`.
_TOOL_PREFIX = re.compile(r"^(?:builtin_|default_api\.|functions\.|mcp__[\w\-]+?__|[a-z0-9]+__)")


def tool_family(name: str) -> str:
    """The tool's own name, lower-cased, without the agent's namespace prefix.

    `Bash`, `builtin_read_file` and `mcp__fs__read_file` belong to the same families as `bash`
    and `read_file`, so per-tool rules (content tools, problem reporters) hold for them too.
    """
    return _TOOL_PREFIX.sub("", name.strip().lower())


def _in_family(name: str, names: Iterable[str]) -> bool:
    folded = {n.lower() for n in names}
    return name.lower() in folded or tool_family(name) in folded


def _first_line(text: str) -> str:
    stripped = text.lstrip()
    end = stripped.find("\n")
    return stripped if end < 0 else stripped[:end]


def harness_exit_status(text: str) -> int | None:
    """The exit status an agent's command-result format states at the head or tail of `text`."""
    head = text[:EXIT_STATUS_SCAN_CHARS].strip().splitlines()[:EXIT_STATUS_HEAD_LINES]
    tail = text[-EXIT_STATUS_SCAN_CHARS:].strip().splitlines()[-EXIT_STATUS_TAIL_LINES:]
    for line in (*head, *tail):
        match = _EXIT_STATUS.search(line)
        if match:
            status = match.group("rc") or match.group("code") or match.group("bracket")
            return int(status or match.group("json"))
    return None


def _harness_killed(text: str) -> bool:
    """The command-result format's first lines say a signal ended the command."""
    head = text[:EXIT_STATUS_SCAN_CHARS].strip().splitlines()[:EXIT_STATUS_HEAD_LINES]
    return any(killed.search(line) for line in head for killed in _KILLED_BY_SIGNAL)


def harness_output(text: str) -> str:
    """What the program printed, without the command-result format's status and field lines
    (bounded: only the head and tail lines where a harness writes them are dropped)."""
    lines = text[: EXIT_STATUS_SCAN_CHARS * 4].strip().splitlines()
    head = 0
    while head < min(len(lines), EXIT_STATUS_HEAD_LINES + 1) and (
        _EXIT_STATUS.search(lines[head]) or _FRAME_LINE.match(lines[head])
    ):
        head += 1
    tail = len(lines)
    while (
        tail > head
        and tail > len(lines) - EXIT_STATUS_TAIL_LINES - 1
        and (_EXIT_STATUS.search(lines[tail - 1]) or _FRAME_LINE.match(lines[tail - 1]))
    ):
        tail -= 1
    body = "\n".join(lines[head:tail])
    return body[len("Output: ") :] if body.startswith("Output: ") else body


def _crash_reported(text: str) -> bool:
    """The output holds a crash report (`_CRASH_REPORT`), within `MAX_CRASH_SCAN_CHARS` of
    either end; a format's `Output: ` field label in front of its first line is not the
    program's (Gemini CLI, Qwen Code)."""
    window = text
    if len(text) > 2 * MAX_CRASH_SCAN_CHARS:
        window = text[:MAX_CRASH_SCAN_CHARS] + "\n" + text[-MAX_CRASH_SCAN_CHARS:]
    window = _OUTPUT_LABEL.sub("", window)
    return any(report.search(window) for report in _CRASH_REPORT)


_OUTPUT_LABEL = re.compile(r"^Output: ", re.MULTILINE)


def _status_failed(status: int, text: str, command: str | None) -> bool:
    """A non-zero status the harness stated is a failure unless the program documents it as an
    answer (grep's 1: no line selected; diff's 1: the files differ; `exit_status`). The program
    is the call's `command`, else the one the command-result format printed in `text`."""
    if status == 0:
        return False
    return not is_an_answer(status, command or command_in_text(text), harness_output(text))


def _runtime_flag(result: object) -> str | None:
    """The runtime's own error flag on the result object itself (not nested)."""
    if isinstance(result, BaseException):
        return f"exception {type(result).__name__}"
    if isinstance(result, Mapping):
        for key, value in result.items():
            if fold_key(key) == "iserror" and value is True:
                return f"{key}=true"
    return None


def _structured_signal(obj: Mapping[Any, Any]) -> str | None:
    for key, value in obj.items():
        k = fold_key(key)
        if k in ("success", "ok") and value is False:
            return f"{k}=false"
        if k == "iserror" and value is True:
            return "is_error=true"
        if (
            k == "status"
            and isinstance(value, str)
            and value.strip().lower() in FAILING_STATUSES
            and not _is_record(obj)
        ):  # `{"id": 7, "name": "build", "status": "failed"}` is a record the tool returned
            return f"status={value.strip().lower()}"
        if k in ("exitcode", "returncode") and _is_int(value) and value != 0:
            return f"exit_code={value}"
        if k == "statuscode" and _is_int(value) and value >= 400:
            return f"status_code={value}"
    if isinstance(obj.get("jsonrpc"), str) and isinstance(obj.get("error"), Mapping):
        return "jsonrpc error"
    folded = {fold_key(k): v for k, v in obj.items()}
    error = folded.get("error")
    if error and isinstance(error, str | Mapping) and set(folded) <= _ERROR_ENVELOPE_KEYS:
        return "error envelope"
    return None


#: A mapping made only of these keys, with a non-empty `error`, is an error envelope
#: (`{"error": "..."}`, `{"error": {...}, "code": 400}`), not a record that has an error field.
_ERROR_ENVELOPE_KEYS = frozenset(
    {"error", "message", "code", "details", "errortype", "type", "statuscode", "hint", "errors"}
)


#: Keys of a content part or result envelope; a mapping with other keys inside a list is a
#: record (a search result with `content`, a row with `status`), not an envelope.
_ENVELOPE_SHAPE_KEYS = frozenset(
    {
        "type",
        "text",
        "content",
        "result",
        "error",
        "iserror",
        "status",
        "message",
        "stdout",
        "stderr",
        "exitcode",
        "returncode",
        "output",
        "metadata",
        "annotations",
        "structuredcontent",
        "meta",
        "success",
        "ok",
        "code",
        "statuscode",
        "details",
        "errors",
        "tooluseid",
        "toolcallid",
        "id",
        "name",
        "mimetype",
        "data",
        "source",
    }
)


#: Keys that give a mapping an identity of its own: with one of them, and no error or message,
#: the mapping is a record the tool returned (a CI run, an order), whose `status` is data.
_RECORD_IDENTITY_KEYS = frozenset({"id", "name", "number", "uuid", "title", "url", "slug", "sha"})
#: A key that names the id of the thing it belongs to (`build_id`, `runId`, `jobID`): an identity
#: as much as a bare `id` is; not the ids an error body gives its request, trace or call.
_ID_KEY = re.compile(r"(?:[_-]id|[a-z]Id|[a-z]ID)$")
_EXCHANGE_IDS = frozenset(
    {"requestid", "traceid", "correlationid", "spanid", "callid", "toolcallid", "tooluseid"}
    | {"errorid", "eventid", "sessionid", "messageid", "responseid", "incidentid"}
)


def _names_its_id(key: object) -> bool:
    return bool(_ID_KEY.search(str(key))) and fold_key(key) not in _EXCHANGE_IDS


def _is_record(obj: Mapping[Any, Any]) -> bool:
    """A mapping with an identity of its own that is no error envelope: it has no error or
    message, or it carries data no envelope has (`{"id": 311, "status": "failed",
    "failed_tests": 2, "error": "test_refund_rounding"}` is a build the tool looked up)."""
    keys = {fold_key(k) for k in obj}
    identified = keys & _RECORD_IDENTITY_KEYS or any(_names_its_id(k) for k in obj)
    if not identified:
        return False
    return not keys & {"error", "message", "errors"} or bool(keys - _ENVELOPE_SHAPE_KEYS)


def _envelope_shaped(obj: Mapping[Any, Any]) -> bool:
    keys = {fold_key(k) for k in obj}
    return "type" in keys or keys <= _ENVELOPE_SHAPE_KEYS


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class _Walker:
    """One bounded walk over a result; `found` is the first suspect signal."""

    def __init__(self, command: str | None = None) -> None:
        self.seen: set[int] = set()
        self.command = command

    def walk(self, value: object, field: str, where: str, depth: int) -> str | None:
        if depth > MAX_DEPTH:
            return None
        if isinstance(value, Mapping):
            if id(value) in self.seen:
                return None
            self.seen.add(id(value))
            if any(fold_key(k) == "iserror" and v is False for k, v in value.items()):
                return None  # the runtime's own flag says success
            signal = _structured_signal(value)
            if signal:
                return f"{signal} at {where or 'result'}"
            if _carries_typed_output(value):
                return None  # the tool's own typed output: its fields are data
            for key, child in value.items():
                k = fold_key(key)
                if k in ENVELOPE_FIELDS:
                    sub = f"{where}.{key}" if where else str(key)
                    found = self.walk(child, k, sub, depth + 1)
                    if found:
                        return found
            return None
        if isinstance(value, list | tuple):
            if id(value) in self.seen:
                return None
            self.seen.add(id(value))
            for index, item in enumerate(value[:MAX_LIST_ITEMS]):
                if isinstance(item, Mapping) and not _envelope_shaped(item):
                    continue  # a record in a list (a search hit, a row) is data
                found = self.walk(item, field, f"{where}[{index}]", depth + 1)
                if found:
                    return found
            return None
        if isinstance(value, str):
            return self._text(value, field, where, depth)
        return None

    def _text(self, text: str, field: str, where: str, depth: int) -> str | None:
        label = where or "result"
        if field not in TEXT_ONLY_FIELDS:
            status = harness_exit_status(text)
            if status is not None:
                if _status_failed(status, text, self.command):
                    return f"exit status {status} at {label}"
                return f"crash report at {label}" if _crash_reported(text) else None
            if _harness_killed(text):
                return f"terminated by signal at {label}"
            if _crash_reported(text):
                return f"crash report at {label}"
        first = _first_line(text)
        if _FAILURE_PREFIX.match(first):
            return f"error text at {label}"
        if field in ("", "content", "text", "result", "error") and _EXCEPTION_REPORT.match(first):
            return f"exception report at {label}"
        if field == "stderr" and _PERMISSION.search(text[:MAX_STDERR_SCAN]):
            return f"permission denial at {label}"
        if field in JSON_ENVELOPE_FIELDS and field not in TEXT_ONLY_FIELDS:
            decoded = _decode_envelope(text)
            if isinstance(decoded, Mapping):  # a list decoded from text is data (rows, hits)
                return self.walk(decoded, "", label, depth + 1)
            if _every_item_failed(decoded):
                return f"every item success=false at {label}"
        return None


def _carries_typed_output(obj: Mapping[Any, Any]) -> bool:
    """An MCP tools/call result with the tool's typed output (`structuredContent`, fastmcp's
    `structured_content`) and no `isError`: the server validated that output against the
    tool's outputSchema, and MCP reports a failed call with `isError` instead, so a `status`
    of "failed" in it (or in the text block that mirrors it) is the record the tool looked up
    (mcp-typescript-sdk/blind13/003's pipeline), not the call's failure."""
    return any(
        fold_key(key) == "structuredcontent" and isinstance(value, Mapping)
        for key, value in obj.items()
    )


def _every_item_failed(decoded: object) -> bool:
    """A list of per-input results, each saying it failed (`"success": false`): how a batch
    tool answers when every input failed (Cline's read_files and run_commands, one
    `{"query", "result", "error", "success"}` per file or command). A list that holds one
    success, or items with no such flag (rows, hits), stays data."""
    return (
        isinstance(decoded, list)
        and 0 < len(decoded) <= MAX_LIST_ITEMS
        and all(
            isinstance(item, Mapping)
            and any(fold_key(k) in ("success", "ok") and v is False for k, v in item.items())
            for item in decoded
        )
    )


def _decode_envelope(text: str) -> object | None:
    stripped = text.strip()
    if len(stripped) > MAX_DECODE_CHARS or not stripped.startswith(("{", "[")):
        return None
    try:
        decoded: object = json.loads(stripped)
    except (ValueError, RecursionError):
        return None
    return decoded if isinstance(decoded, Mapping | list) else None


def _flagged_text(result: object) -> str | None:
    """The text of a result the runtime flagged: the string, or an MCP result's text parts."""
    if isinstance(result, str):
        return result
    content = result.get("content") if isinstance(result, Mapping) else None
    if isinstance(content, list):
        parts = [
            p["text"]
            for p in content[:MAX_LIST_ITEMS]
            if isinstance(p, Mapping) and isinstance(p.get("text"), str)
        ]
        return "\n".join(parts) if parts else None
    return None


def _answer_despite_flag(result: object, command: str | None) -> bool:
    """A shell tool's error flag that only restates its status (Claude Code's `is_error`,
    goose's and Cline's `isError` follow the exit status), where the status the result states
    is its program's answer (grep selected no line, diff found differences)."""
    text = _flagged_text(result)
    if text is None:
        return False
    status = harness_exit_status(text)
    if not status:
        return False
    return not _status_failed(status, text, command)


def _known_kind(text: str) -> bool:
    """The text is an error of a known kind; a failure stated only plainly is not enough in a
    content tool's output (a `cat` of a log that starts with "Error:" is content)."""
    found = classify_error(text)
    return found.known and not found.plain


def arguments_text(arguments: object) -> str:
    """The call's arguments as one text (their names and string values, or their JSON), what
    `_bare_error` looks a named argument up in."""
    if isinstance(arguments, str):
        return arguments
    if not isinstance(arguments, Mapping):
        return ""
    return "\n".join(_argument_words(arguments, 0))


def _argument_words(value: object, depth: int) -> list[str]:
    """Names and string values in order, into lists and objects two levels down (a list of
    edits, each with its search text)."""
    if isinstance(value, str):
        return [value]
    if depth > 2:
        return []
    if isinstance(value, list):
        return [w for item in value[:MAX_LIST_ITEMS] for w in _argument_words(item, depth + 1)]
    if isinstance(value, Mapping):
        return [
            w
            for key, item in value.items()
            for w in ([key] if isinstance(key, str) else []) + _argument_words(item, depth + 1)
        ]
    return []


#: A parameter's name no prose would use: snake_case or camelCase.
_PROGRAM_NAME = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+")
#: The words of a line that may name an argument: an identifier (a parameter's name) or a path.
_ARGUMENT_WORD = re.compile(r"[^\s'\"`()<>,;]{3,}")


def _bare_error(text: str, given: str) -> bool:
    """A short result whose first line states a known kind of error about the call's own
    arguments, with no prefix: how agents whose tool errors reach the model as the bare
    message send them (OpenCode's and Qwen Code's `File not found: PATH`, OpenCode's with
    its "Did you mean one of these?" paths after it, OpenCode's `Could not find oldString in
    the file. ...`, Continue's `Edit at index 0: string not found in file: "OLD"`). The line
    must name an argument (`given`: their names and values), or the result quote an edit's own
    search text (`call_facts.quotes_search_text`), so a success that only mentions errors ("Found 3
    documents mentioning 'connection error'"), a file about another path, a grep hit or JSON
    (content, or already read as an envelope) are not failures."""
    stripped = text.strip()
    if not stripped or len(stripped) > MAX_BARE_MESSAGE_CHARS or stripped[0] in "{[":
        return False
    line = _first_line(stripped)
    if _GREP_HIT.match(line):
        return False
    words = (word.rstrip(".:") for word in _ARGUMENT_WORD.findall(line))
    quoted = quotes_search_text(stripped, given)
    if not any(_names_argument(word, given) for word in words) and not quoted:
        return False
    if quoted:  # a multi-line search text quoted back: the statement is the line around it
        line = _first_line(without_search_texts(stripped, given))
    return _known_kind(line)


def _given(arguments: object, given: str | None) -> str:
    return arguments_text(arguments) if given is None else given


def _names_argument(word: str, given: str) -> bool:
    """`word` is a path among the arguments' values, or one of their names that only a program
    would write (`oldString`, `old_string`; not an English word such as `path`)."""
    if "/" in word or "." in word or "\\" in word:
        return word in given
    if not _PROGRAM_NAME.fullmatch(word):
        return False
    # a name among `arguments_text`'s lines, or a JSON key of raw arguments
    return f"\n{word}\n" in f"\n{given}\n" or f'"{word}"' in given


def classify_result(
    result: object,
    tool: Tool | str | None = None,
    *,
    is_error: bool | None = None,
    problem_reporting_tools: Iterable[str] = DEFAULT_PROBLEM_REPORTING_TOOLS,
    content_tools: Iterable[str] = DEFAULT_CONTENT_TOOLS,
    arguments: object = None,
    given: str | None = None,
) -> ResultVerdict:
    """Classify one tool result as confirmed failure, suspected failure, or success.

    `is_error` is the runtime's flag when it is kept beside the result (Anthropic
    `tool_result.is_error`); a flag on the result itself counts the same (an Anthropic
    `tool_result` block, an MCP `isError`), and an explicit `false` is taken as success. `tool`
    selects the per-tool rules, by the tool's family name (`Bash`, `builtin_read_file` and
    `mcp__fs__read_file` count as `bash` and `read_file`): problem-reporting tools' payloads
    are data, and content tools' bare strings are content. `arguments` are the call's (a shell
    tool's `command`): a status its program documents as an answer (grep's 1, diff's 1) is not
    a failure (`exit_status`). `given` is the text of the call's arguments (`arguments_text`,
    of `arguments` when not given): a short bare error naming one of them is a failure
    (`_bare_error`), except from a shell command, whose status decides.
    """
    command = command_of(arguments)
    if is_error is True:
        if _answer_despite_flag(result, command):
            return SUCCESS
        return ResultVerdict(True, "confirmed", "runtime error flag")
    if is_error is False:
        return SUCCESS  # the runtime says it succeeded: its word is structure, not wording
    flag = _runtime_flag(result)
    if flag:
        if _answer_despite_flag(result, command):
            return SUCCESS
        return ResultVerdict(True, "confirmed", f"runtime {flag}")
    name = _tool_name(tool)
    if name and _in_family(name, problem_reporting_tools):
        return SUCCESS
    if isinstance(result, str) and name and _in_family(name, content_tools):
        if _HARNESS_PREFIX.match(_first_line(result)):
            return ResultVerdict(True, "suspect", "harness failure text at result")
        status = harness_exit_status(result)
        if status is not None:
            if not _status_failed(status, result, command) and not _crash_reported(result):
                return SUCCESS
            return ResultVerdict(True, "suspect", f"exit status {status} at result")
        if _harness_killed(result) or _crash_reported(result):
            return ResultVerdict(True, "suspect", "terminated by signal at result")
        if _FAILURE_PREFIX.match(_first_line(result)) and _known_kind(result[:4096]):
            return ResultVerdict(True, "suspect", "known error text at result")
        if command is None and _bare_error(result, _given(arguments, given)):
            return ResultVerdict(True, "suspect", "bare error naming an argument at result")
        return SUCCESS
    found = _Walker(command).walk(result, "", "", 0)
    if found:
        return ResultVerdict(True, "suspect", found)
    if (
        isinstance(result, str)
        and command is None
        and _bare_error(result, _given(arguments, given))
    ):
        return ResultVerdict(True, "suspect", "bare error naming an argument at result")
    return SUCCESS
