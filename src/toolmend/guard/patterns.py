"""The error pattern database: every known tool-error pattern, as data.

This module owns the categories, the pattern records (id, priority, structural flags, text
heuristics, disposition and the WHAT / WHY / NEXT templates) and nothing else. It never matches
anything itself (that is `classify`), never renders guidance (that is `guidance`) and never
counts (that is `occurrences`).

Text heuristics are conservative on purpose: each one is the wording a real agent, server or JSON
parser produces (opencode, Roo/Cline/Kilo, Claude Code, OpenAI Agents SDK, pydantic-ai,
LangGraph, vLLM, Ollama, llama.cpp, the JSON parsers of Python, V8, Go and nlohmann C++), never a
bare keyword such as "error" or "json". Unknown text stays UNCLASSIFIED.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class Category(StrEnum):
    """The error categories (names are part of the public contract)."""

    DUPLICATE_CALL = "DUPLICATE_CALL"
    TOOL_NOT_FOUND = "TOOL_NOT_FOUND"
    PARAM_MISSING = "PARAM_MISSING"
    PARAM_TYPE_MISMATCH = "PARAM_TYPE_MISMATCH"
    INVALID_JSON_ARGUMENTS = "INVALID_JSON_ARGUMENTS"
    INVALID_TOOL_PROTOCOL = "INVALID_TOOL_PROTOCOL"
    FILE_NOT_FOUND = "FILE_NOT_FOUND"
    PERMISSION_DENIED = "PERMISSION_DENIED"
    SHELL_INTEGRATION = "SHELL_INTEGRATION"
    DIFF_MATCH_FAILED = "DIFF_MATCH_FAILED"
    MCP_TOOL_MISSING = "MCP_TOOL_MISSING"
    CONTEXT_OVERFLOW = "CONTEXT_OVERFLOW"
    TIMEOUT = "TIMEOUT"
    MODEL_STUCK_LOOP = "MODEL_STUCK_LOOP"
    UNCLASSIFIED = "UNCLASSIFIED"


class Disposition(StrEnum):
    """What the agent should do with the call that produced the signal."""

    CORRECT_ONCE = "correct_once"  # tell the model the fix; it retries once, corrected
    DISCARD_DUPLICATE = "discard_duplicate"  # do not execute; the earlier result stands
    CHANGE_STRATEGY = "change_strategy"  # this path will not work; take another
    AWAIT_USER = "await_user"  # a real permission boundary: only the user can lift it
    PASS_THROUGH = "pass_through"  # unknown signal: hand the original on unchanged (fail open)


class Flag(StrEnum):
    """Structural signal flags set by preflight, the argument parser or the loop breaker."""

    DUPLICATE_CALL = "duplicate_call"
    CWD_OBJECT = "cwd_object"
    NESTED_TOOL_CALL = "nested_tool_call"
    CONCATENATED_JSON = "concatenated_json"
    TRUNCATED_JSON = "truncated_json"
    INVALID_JSON = "invalid_json"
    XML_IN_TEXT = "xml_in_text"
    XML_NATIVE_DUAL = "xml_native_dual"
    UNKNOWN_TOOL = "unknown_tool"
    MCP_TOOL_MISSING = "mcp_tool_missing"
    MISSING_PARAM = "missing_param"
    TYPE_MISMATCH = "type_mismatch"
    STUCK_LOOP = "stuck_loop"
    CONTEXT_OVERFLOW = "context_overflow"
    TIMEOUT = "timeout"


@dataclass(frozen=True, slots=True)
class Pattern:
    """One known error pattern.

    `flags`: the structural match; the pattern matches metadata whose `flag` is one of these.
    `text`: conservative regexes over the error text; named groups `param` and `tool` may
    capture a parameter or tool name (used only after the safe-identifier check).
    Templates may name `{tool}`, `{param}`, `{required}`, `{example}`, `{tools}`,
    `{suggestion}` and `{match}`; the guidance builder fills them with safe values only.
    """

    id: str
    category: Category
    variant: str
    priority: int
    what: str
    why: str
    next: tuple[str, ...]
    disposition: Disposition = Disposition.CORRECT_ONCE
    retryable: bool = True
    flags: frozenset[Flag] = frozenset()
    text: tuple[re.Pattern[str], ...] = ()
    text_confidence: float = 0.8


_I = re.IGNORECASE
_IM = re.IGNORECASE | re.MULTILINE

#: A tool or parameter name inside an error message (quotes and backticks stripped).
_NAME = r"[`'\"]?(?P<{group}>[A-Za-z_][\w.\-]{{0,63}})[`'\"]?"


def _name(group: str) -> str:
    return _NAME.format(group=group)


def _rx(*sources: str, flags: int = _I) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(s, flags) for s in sources)


# --- JSON parser wordings, shared by the classifier and the JSON-error reminder -------------

#: Several JSON values where one was expected: the model batched calls into one arguments string.
JSON_CONCATENATED = _rx(
    r"Unexpected non-whitespace character after JSON at position \d+",  # V8
    r"Extra data: line \d+ column \d+",  # Python json
    r"invalid character '.{1,4}' after top-level value",  # Go encoding/json
    r"unexpected '[{\[]'; expected end of input",  # nlohmann
    r"trailing characters at line \d+ column \d+",  # Rust serde_json
)

#: The JSON text ends early: the call was cut off (streaming loss or max_tokens).
JSON_TRUNCATED = _rx(
    r"Unexpected end of JSON input",  # V8, Go
    r"Unterminated string (?:starting at: line \d+|in JSON at position \d+)",  # Python, V8
    r"syntax error while parsing \w+ - unexpected end of input",  # nlohmann
    r"EOF while parsing (?:an? )?(?:object|string|value|list)",  # Rust serde_json
    r"JSON Parse error: Unexpected EOF",  # JavaScriptCore / Bun
    r"unexpected EOF while parsing JSON",
)

#: Any other JSON syntax error, by parser.
JSON_SYNTAX = _rx(
    r"Expecting (?:value|',' delimiter|':' delimiter|property name enclosed in double quotes)"
    r": line \d+ column \d+",  # Python json
    r"Invalid (?:control character|\\escape) at: line \d+ column \d+",
    r"Invalid \\escape: line \d+ column \d+",
    r"Unexpected token .{1,12} in JSON at position \d+",  # V8 (old)
    r"Unexpected token '.{1,4}', .{0,60} is not valid JSON",  # V8 (new)
    r"Expected [^\n]{1,60} in JSON at position \d+",  # V8: ',' or '}' after property value, ...
    r"Bad control character in string literal in JSON at position \d+",
    r"Bad escaped character in JSON at position \d+",
    r"invalid character '.{1,4}' (?:looking for beginning of (?:value|object key string)"
    r"|after object key(?::value pair)?|after array element|in string literal"
    r"|in string escape code)",  # Go
    r"\[json\.exception\.parse_error\.\d+\] parse error",  # nlohmann
    r"JSON Parse error: [A-Z]",  # JavaScriptCore / Bun
    r"json\.decoder\.JSONDecodeError",
)

#: Agent wordings that say the arguments did not parse, without naming the parser's reason.
JSON_ARGUMENT_CONTEXT = _rx(
    r"Invalid JSON input for tool",  # OpenAI Agents SDK
    r"error parsing tool call",  # Ollama
    r"Failed to parse (?:tool(?: call)? )?arguments",
    r"(?:tool call )?arguments (?:are|were|is) not valid JSON",
    r"invalid JSON in (?:tool(?: call)? )?arguments",
)

ALL_JSON_ERRORS: tuple[re.Pattern[str], ...] = (
    JSON_CONCATENATED + JSON_TRUNCATED + JSON_SYNTAX + JSON_ARGUMENT_CONTEXT
)


_JSON_NEXT_CONCAT = (
    "Issue one tool call per object; use parallel tool calls for several files or items.",
    "Send exactly one JSON object as the arguments of each call.",
)

PATTERNS: tuple[Pattern, ...] = (
    Pattern(
        id="EI/DUPLICATE_CALL/001",
        category=Category.DUPLICATE_CALL,
        variant="generic",
        priority=100,
        flags=frozenset({Flag.DUPLICATE_CALL}),
        text=_rx(
            r"appears to be stuck in a loop, attempting the same action",  # Roo/Kilo
            r"identical tool call (?:was )?(?:repeated|already (?:made|executed))",
        ),
        disposition=Disposition.DISCARD_DUPLICATE,
        retryable=False,
        what="This {tool} call is identical to the previous one, so it was not executed again.",
        why="Repeating a call with the same arguments returns the same result and makes no "
        "progress.",
        next=(
            "Use the result of the earlier identical call, which is already in the conversation.",
            "If you need something different, change the arguments or use another tool.",
        ),
    ),
    Pattern(
        id="EI/MODEL_STUCK_LOOP/001",
        category=Category.MODEL_STUCK_LOOP,
        variant="generic",
        priority=95,
        flags=frozenset({Flag.STUCK_LOOP}),
        text=_rx(
            r"You seem to be having trouble proceeding",  # Cline / Roo mistake limit
            r"\bdoom[_ ]loop\b",  # opencode
            r"consecutive mistake limit",
        ),
        disposition=Disposition.CHANGE_STRATEGY,
        retryable=False,
        what="[MODEL_STUCK_LOOP] The same {failed} failure has now happened {count} times in a "
        "row{for_tool}.",
        why="Retrying the same approach will keep failing; the approach itself is wrong.",
        next=(
            "Stop retrying this call in the same form.",
            "Change strategy: use a different tool, different arguments, or a smaller step "
            "toward the goal.",
            "Continue the task on your own; do not ask the user to intervene.",
        ),
    ),
    Pattern(
        id="EI/PARAM_TYPE_MISMATCH/002",
        category=Category.PARAM_TYPE_MISMATCH,
        variant="CWD_OBJECT_MISUSE",
        priority=92,
        flags=frozenset({Flag.CWD_OBJECT}),
        what="The {tool} call passed `cwd` as a JSON {got}, but `cwd` must be a string.",
        why="`cwd` is the working directory path only; the command belongs in its own parameter.",
        next=(
            "Pass `cwd` as a plain string path, or leave it out to use the default directory.",
            "Put the command itself in the command parameter, not inside `cwd`.",
        ),
    ),
    Pattern(
        id="EI/PARAM_TYPE_MISMATCH/003",
        category=Category.PARAM_TYPE_MISMATCH,
        variant="NESTED_TOOL_CALL",
        priority=91,
        flags=frozenset({Flag.NESTED_TOOL_CALL}),
        what="The {tool} call has another tool call nested inside its parameter {param}.",
        why="A parameter holds a value, not a call; tools cannot invoke each other.",
        next=(
            "Issue separate tool calls, one per tool, each with its own arguments.",
            "Use parallel tool calls if the calls are independent.",
        ),
    ),
    Pattern(
        id="EI/CONTEXT_OVERFLOW/001",
        category=Category.CONTEXT_OVERFLOW,
        variant="generic",
        priority=90,
        flags=frozenset({Flag.CONTEXT_OVERFLOW}),
        text=_rx(
            r"context_length_exceeded",  # OpenAI error code
            r"maximum context length is \d+",  # OpenAI, vLLM
            r"exceeds? the available context size",  # llama.cpp
            r"exceed_context_size_error",  # llama.cpp error type
            r"prompt is too long: \d+ tokens? > \d+",  # Anthropic
            r"input token count .{0,40}exceeds the maximum",  # Gemini
            r"input length exceeds the (?:maximum )?context length",  # Ollama
            r"exceeds? (?:the )?(?:model'?s? )?context window",
            r"context window (?:is )?(?:full|exceeded)",
            r"reduce the length of the messages",
            r"Input is too long for (?:the )?requested model",  # Anthropic
        ),
        disposition=Disposition.CHANGE_STRATEGY,
        what="The conversation no longer fits the model's context window.",
        why="The history plus the last tool output is larger than the model can read at once.",
        next=(
            "Continue from a summary: state briefly what is done and what remains.",
            "Request smaller outputs: read line ranges, filter, or paginate instead of reading "
            "whole files.",
        ),
    ),
    Pattern(
        id="EI/PERMISSION_DENIED/002",
        category=Category.PERMISSION_DENIED,
        variant="user_denied",
        priority=85,
        text=_rx(
            r"user (?:has )?(?:denied|rejected|declined) (?:this|the) (?:operation|tool|request"
            r"|command|action)",
            r"user doesn't want to proceed with this tool use",  # Claude Code
            r"rejected permission to use this",  # opencode
            r"(?:denied|rejected) by (?:the )?user",
            r"Permission to use \S+ (?:has been|was) denied",
        ),
        disposition=Disposition.AWAIT_USER,
        retryable=False,
        text_confidence=0.9,
        what="The user declined this {tool} call.",
        why="This is a permission boundary that only the user can lift.",
        next=(
            "Do not retry the same call.",
            "Ask the user how to proceed, or continue with work that does not need this action.",
        ),
    ),
    Pattern(
        id="EI/MCP_TOOL_MISSING/001",
        category=Category.MCP_TOOL_MISSING,
        variant="generic",
        priority=80,
        flags=frozenset({Flag.MCP_TOOL_MISSING}),
        text=_rx(
            r"MCP error -32602: (?:Unknown tool|Tool \S+ not found)",
            r"Tool " + _name("tool") + r" does not exist on server",  # Roo / Cline
            r"(?:MCP )?server [`'\"]?[\w.\-]+[`'\"]? (?:is )?not (?:found|connected)",
            r"No connection found for server",  # Roo / Cline
            r"Unknown MCP (?:tool|server)",
        ),
        retryable=True,
        what="The MCP tool {tool_or_requested} is not available on the connected servers.",
        why="The server or tool name does not match one that is connected right now.",
        next=(
            "Choose one of the available tools: {tools}.",
            "Use the exact server and tool names as listed; do not guess them.",
        ),
    ),
    Pattern(
        id="EI/TOOL_NOT_FOUND/001",
        category=Category.TOOL_NOT_FOUND,
        variant="generic",
        priority=78,
        flags=frozenset({Flag.UNKNOWN_TOOL}),
        text=_rx(
            _name("tool") + r" is not a valid tool, try one of",  # LangGraph
            r"Unknown tool name: " + _name("tool"),  # pydantic-ai
            r"No such tool available: " + _name("tool"),  # Claude Code
            r"unavailable tool " + _name("tool"),  # opencode
            r"\bTool " + _name("tool") + r" not found",  # OpenAI Agents SDK, generic
            r"(?:^|error: )unknown tool:?\s+" + _name("tool"),
            r"(?:^|error: )unknown tool\b",
            r"\b(?:function|tool) " + _name("tool") + r" (?:is not defined|does not exist"
            r"|is not registered)",
            r"\btool_not_found\b",
            flags=_IM,
        ),
        retryable=True,
        what="There is no tool named {tool_or_requested}.",
        why="Only the declared tools can be called, under their exact names.",
        next=(
            "Call one of the available tools: {tools}.",
            "{suggestion}",
        ),
    ),
    Pattern(
        id="EI/PARAM_MISSING/001",
        category=Category.PARAM_MISSING,
        variant="generic",
        priority=76,
        flags=frozenset({Flag.MISSING_PARAM}),
        text=_rx(
            r"Missing value for required parameter " + _name("param"),  # Roo / Cline
            r"without value for required parameter " + _name("param"),  # Roo
            r"required parameter `(?P<param>[A-Za-z_][\w.\-]{0,63})` is missing",  # Claude Code
            r"^(?P<param>[A-Za-z_][\w.\-]{0,63})\s*\n\s+Field required",  # pydantic v2
            r"Field required \[type=missing",  # pydantic v2
            r"'(?P<param>[A-Za-z_][\w.\-]{0,63})' is a required property",  # jsonschema
            r"missing (?:\d+ )?required (?:positional |keyword-only )?arguments?: '"
            r"(?P<param>[A-Za-z_][\w.\-]{0,63})'",  # Python TypeError
            r"Missing required (?:parameter|argument|field|property)s?:? " + _name("param"),
            r"\"received\":\s*\"undefined\",\s*\"path\":\s*\[\s*\""
            r"(?P<param>[A-Za-z_][\w.\-]{0,63})\"",  # zod v3
            r"\"path\":\s*\[\s*\"(?P<param>[A-Za-z_][\w.\-]{0,63})\"\s*\],\s*\"message\":\s*"
            r"\"Invalid input: expected \w+, received undefined",  # zod v4
            r"expected \w+, received undefined",  # zod v4
            flags=_IM,
        ),
        what="The {tool} call is missing the required parameter {param_or_required}.",
        why="The tool cannot run without every required parameter.",
        next=(
            "Required parameters: {required}.",
            "Retry with all of them, for example: {example}",
        ),
    ),
    Pattern(
        id="EI/DIFF_MATCH_FAILED/001",
        category=Category.DIFF_MATCH_FAILED,
        variant="no_match",
        priority=74,
        text=_rx(
            r"String to replace not found in file",  # Claude Code
            r"old_?string not found",  # opencode
            r"old_str .{0,200}did not appear verbatim",  # Anthropic text editor tool
            r"No sufficiently similar match found",  # Roo / Kilo apply_diff
            r"does not match anything in the file",  # Cline SEARCH block
            r"SearchReplaceNoExactMatch",  # aider
            r"search (?:block|text|string) .{0,40}not found",
        ),
        text_confidence=0.9,
        what="The {tool} edit failed: the text to replace does not match the file.",
        why="The search text must match the current file exactly, whitespace included. {match}",
        next=(
            "Read the exact lines again and copy them unchanged into the search text.",
            "Keep the search text short and unique; edit one region per call.",
        ),
    ),
    Pattern(
        id="EI/DIFF_MATCH_FAILED/002",
        category=Category.DIFF_MATCH_FAILED,
        variant="ambiguous",
        priority=73,
        text=_rx(
            r"Found \d+ matches of the string to replace",  # Claude Code
            r"Found multiple matches for old_?string",  # opencode
            r"Multiple occurrences of old_str",  # Anthropic text editor tool
        ),
        text_confidence=0.9,
        what="The {tool} edit failed: the text to replace occurs more than once.",
        why="An edit must identify exactly one place in the file.",
        next=(
            "Include more surrounding lines so the search text is unique.",
            "Or ask the tool to replace all occurrences if that is what you mean.",
        ),
    ),
    Pattern(
        id="EI/DIFF_MATCH_FAILED/003",
        category=Category.DIFF_MATCH_FAILED,
        variant="stale_read",
        priority=72,
        text=_rx(
            r"File has not been read yet",  # Claude Code
            r"File has been (?:unexpectedly )?modified(?: since (?:it was )?(?:last )?read)?",
            r"You must read (?:the )?file .{0,80}before (?:overwriting|editing|writing)",
        ),
        text_confidence=0.9,
        what="The {tool} edit was refused: the file was not read, or changed since it was read.",
        why="Edits are only accepted against the file content you have actually seen.",
        next=(
            "Read the file now.",
            "Then repeat the edit against the exact current content.",
        ),
    ),
    Pattern(
        id="EI/SHELL_INTEGRATION/001",
        category=Category.SHELL_INTEGRATION,
        variant="generic",
        priority=70,
        text=_rx(
            r"shell integration (?:is )?(?:unavailable|not available|failed|error)",
            r"output could not be captured",
            r"won't be able to view the command's output",  # Cline
            r"(?:may have|having) trouble viewing the command's output",  # Cline
            r"terminal shell integration",
        ),
        disposition=Disposition.CHANGE_STRATEGY,
        text_confidence=0.9,
        what="The terminal could not run the command or capture its output.",
        why="Shell integration is not working in this environment; retrying the same terminal "
        "will fail again.",
        next=(
            "Use non-shell tools instead: read, search, list and edit files directly.",
            "Do not retry the same command in the terminal.",
        ),
    ),
    Pattern(
        id="EI/PARAM_TYPE_MISMATCH/001",
        category=Category.PARAM_TYPE_MISMATCH,
        variant="generic",
        priority=68,
        flags=frozenset({Flag.TYPE_MISMATCH}),
        text=_rx(
            r"^(?P<param>[A-Za-z_][\w.\-]{0,63})\s*\n\s+Input should be a valid",  # pydantic
            r"^\s*(?P<param>[A-Za-z_][\w.\-]{0,63}): Input should be a valid",  # LangChain
            r"\"received\":\s*\"(?!undefined)\w+\",\s*\"path\":\s*\[\s*\""
            r"(?P<param>[A-Za-z_][\w.\-]{0,63})\"",  # zod v3
            r"\"path\":\s*\[\s*\"(?P<param>[A-Za-z_][\w.\-]{0,63})\"\s*\],\s*\"message\":\s*"
            r"\"Invalid input: expected \w+, received (?!undefined)\w+",  # zod v4
            r"Input should be a valid (?:integer|string|number|boolean|list|dictionary|array"
            r"|object|float)",  # pydantic v2
            r"is not of type '(?:string|integer|number|boolean|array|object|null)'",  # jsonschema
            r"The parameter `(?P<param>[A-Za-z_][\w.\-]{0,63})` type is expected as",  # Claude
            r"[Ee]xpected (?:string|number|integer|boolean|array|object), received "
            r"(?:string|number|integer|boolean|array|object|null)",  # zod
            r"cannot unmarshal \w+ into Go (?:struct field|value of type)",  # Go
            r"value is not a valid (?:integer|float|dict|list|boolean)",  # pydantic v1
            flags=_IM,
        ),
        what="The {tool} call passed parameter {param_or_a} with the wrong type.",
        why="Each parameter must have the JSON type its schema declares.",
        next=(
            "Send {param_or_each} with the declared type, e.g. numbers unquoted, lists as "
            "JSON arrays.",
            "Re-check the types in the tool schema before retrying. Example: {example}",
        ),
    ),
    Pattern(
        id="EI/INVALID_JSON_ARGUMENTS/001",
        category=Category.INVALID_JSON_ARGUMENTS,
        variant="concatenated",
        priority=63,
        flags=frozenset({Flag.CONCATENATED_JSON}),
        text=JSON_CONCATENATED,
        what="Tool call arguments could not be parsed as JSON.",
        why="Several JSON objects were concatenated into one arguments string; each tool call "
        "must contain exactly one JSON object.",
        next=_JSON_NEXT_CONCAT,
    ),
    Pattern(
        id="EI/INVALID_JSON_ARGUMENTS/002",
        category=Category.INVALID_JSON_ARGUMENTS,
        variant="truncated",
        priority=62,
        flags=frozenset({Flag.TRUNCATED_JSON}),
        text=JSON_TRUNCATED,
        what="Tool call arguments ended before the JSON was complete.",
        why="The arguments were cut off, usually because the call was too long.",
        next=(
            "Retry with shorter arguments: split large content across several smaller calls.",
            "Make sure every string, brace and bracket is closed.",
        ),
    ),
    Pattern(
        id="EI/INVALID_JSON_ARGUMENTS/003",
        category=Category.INVALID_JSON_ARGUMENTS,
        variant="syntax",
        priority=61,
        flags=frozenset({Flag.INVALID_JSON}),
        text=JSON_SYNTAX + JSON_ARGUMENT_CONTEXT,
        text_confidence=0.7,
        what="Tool call arguments are not valid JSON.",
        why="The arguments must be one JSON object: double-quoted keys and strings, escaped "
        "newlines and quotes, no trailing commas or comments.",
        next=(
            "Retry the call with a single well-formed JSON object as arguments.",
            "Do not wrap the JSON in text or code fences.",
        ),
    ),
    Pattern(
        id="EI/INVALID_TOOL_PROTOCOL/002",
        category=Category.INVALID_TOOL_PROTOCOL,
        variant="xml_native_dual",
        priority=60,
        flags=frozenset({Flag.XML_NATIVE_DUAL}),
        what="Your message mixed XML tool markup in the text with native tool calls.",
        why="Only native tool calls are executed; the XML in the text was ignored.",
        next=("Use native tool calls only; do not write tool markup in the message text.",),
    ),
    Pattern(
        id="EI/INVALID_TOOL_PROTOCOL/001",
        category=Category.INVALID_TOOL_PROTOCOL,
        variant="xml_in_text",
        priority=59,
        flags=frozenset({Flag.XML_IN_TEXT}),
        what="Your message wrote a tool call as XML text instead of a native tool call.",
        why="Tool markup in the message text is not executed.",
        next=("Use the native tool-calling interface for every call.",),
    ),
    Pattern(
        id="EI/PERMISSION_DENIED/001",
        category=Category.PERMISSION_DENIED,
        variant="os_denied",
        priority=55,
        text=_rx(
            r"\bEACCES\b",
            r"\bEPERM\b",
            r"Permission denied",
            r"PermissionError",
            r"Operation not permitted",
            r"Access (?:is )?denied",
            r"\b403 Forbidden\b",
        ),
        disposition=Disposition.CHANGE_STRATEGY,
        retryable=False,
        what="The {tool} call was refused by the operating system or server: permission denied.",
        why="The process may not read or change that location; retrying will not change that.",
        next=(
            "Do not retry the same target.",
            "Work with files inside the project workspace, or pick another approach.",
        ),
    ),
    Pattern(
        id="EI/FILE_NOT_FOUND/001",
        category=Category.FILE_NOT_FOUND,
        variant="generic",
        priority=50,
        text=_rx(
            r"\bENOENT\b",
            r"No such file or directory",
            r"FileNotFoundError",
            r"File does not exist",  # Claude Code
            r"(?:^|error: )File not found\b",
            r"The system cannot find the (?:file|path) specified",
            r"\b(?:path|directory|file) (?:does not|doesn't) exist",
            r"Could not find file\b",
            flags=_IM,
        ),
        what="The {tool} call named a file or directory that does not exist.",
        why="The path is wrong or the file has not been created yet.",
        next=(
            "List the directory first (list_files / glob) to find the exact path.",
            "Use paths relative to the workspace root, spelled exactly as listed.",
        ),
    ),
    Pattern(
        id="EI/TIMEOUT/001",
        category=Category.TIMEOUT,
        variant="generic",
        priority=45,
        flags=frozenset({Flag.TIMEOUT}),
        text=_rx(
            r"\btimed out after\b",
            r"(?:^|error: )command timed out",
            r"\bETIMEDOUT\b",
            r"context deadline exceeded",  # Go
            r"\bTimeoutError\b",
            r"Request timed out",
            r"tool (?:execution|call) timed out",
            r"operation timed out",
            r"timeout of \d+ ?ms exceeded",  # axios
            flags=_IM,
        ),
        what="The {tool} call did not finish in time.",
        why="The operation took longer than the allowed time.",
        next=(
            "Retry with a smaller scope, or run long commands in the background.",
            "Do not repeat the identical long-running call.",
        ),
    ),
)

#: The fall-through pattern: unknown signals pass through unchanged (fail open).
UNCLASSIFIED_PATTERN = Pattern(
    id="EI/UNCLASSIFIED/000",
    category=Category.UNCLASSIFIED,
    variant="generic",
    priority=0,
    disposition=Disposition.PASS_THROUGH,
    text_confidence=0.0,
    what="The tool reported an error.",
    why="",
    next=(),
)

PATTERNS_BY_ID: dict[str, Pattern] = {p.id: p for p in (*PATTERNS, UNCLASSIFIED_PATTERN)}

#: The stuck-loop directive the loop breaker issues.
STUCK_LOOP_PATTERN = PATTERNS_BY_ID["EI/MODEL_STUCK_LOOP/001"]


def _check_database() -> None:
    """Import-time sanity: ids follow EI/<CATEGORY>/<NNN>, are unique, priorities distinct."""
    seen_priority: set[int] = set()
    for p in PATTERNS:
        head, category, number = p.id.split("/")
        if head != "EI" or category != p.category.value or not re.fullmatch(r"\d{3}", number):
            raise AssertionError(f"bad pattern id {p.id}")
        if p.priority in seen_priority:
            raise AssertionError(f"duplicate priority {p.priority} in {p.id}")
        seen_priority.add(p.priority)
        if len(p.next) > 3:
            raise AssertionError(f"{p.id}: at most 3 NEXT items")


_check_database()
