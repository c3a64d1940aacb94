"""The error pattern database: every known tool-error pattern, as data.

This module owns the categories, the pattern records (id, priority, structural flags, text
heuristics, disposition and the WHAT / WHY / NEXT templates) and nothing else. It never matches
anything itself (that is `classify`), never renders guidance (that is `guidance`) and never
counts (that is `occurrences`).

The wordings each pattern matches live in `wordings` (families of real agent, SDK, server and
parser wordings, tagged with the sources they came from); a pattern picks the families of its
category and variant. Unknown text stays UNCLASSIFIED.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from toolmend.guard import wordings as w
from toolmend.guard.wordings import Wording


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
    PARAM_INVALID_VALUE = "PARAM_INVALID_VALUE"
    FILE_EXISTS = "FILE_EXISTS"
    COMMAND_FAILED = "COMMAND_FAILED"
    NETWORK_ERROR = "NETWORK_ERROR"
    RATE_LIMITED = "RATE_LIMITED"
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
    `text`: the wording families (`wordings`) matched against the error text; named groups
    `param` and `tool` may capture a parameter or tool name (used only after the
    safe-identifier check).
    Templates may name `{tool}`, `{param}`, `{param_in}`, `{required}`, `{example}`, `{tools}`,
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
    text: tuple[Wording, ...] = ()
    text_confidence: float = 0.8


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
        text=w.DUPLICATE + w.REPEATED_CALLS + w.SAME_INPUT_AGAIN,
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
        text=w.STUCK + w.RETRIES_EXHAUSTED + w.STEP_LIMIT + w.STEP_SETTING + w.USAGE_LIMIT,
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
        text=w.CONTEXT + w.PROMPT_OVER_LIMIT + w.KEEP_OVER_CONTEXT + w.TGI_TOKEN_LIMITS,
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
        id="EI/RATE_LIMITED/001",
        category=Category.RATE_LIMITED,
        variant="generic",
        priority=89,
        text=w.RATE + w.QUOTA_USED + w.SERVER_BUSY + w.AWS_THROTTLED,
        disposition=Disposition.CHANGE_STRATEGY,
        what="The {tool} call was refused by a rate limit or quota.",
        why="The service accepts only so many requests or tokens per minute; retrying at once "
        "fails the same way.",
        next=(
            "Do not repeat the call immediately; continue with work that does not need it.",
            "Make fewer, smaller requests (batch the work, request less output).",
        ),
    ),
    Pattern(
        id="EI/CONTEXT_OVERFLOW/002",
        category=Category.CONTEXT_OVERFLOW,
        variant="output_too_large",
        priority=88,
        text=w.TOO_LARGE + w.OVER_NAMED_LIMIT + w.OVER_SIZE,
        what="The {tool} output is larger than the tool allows.",
        why="The file or output exceeds the size limit for one tool result.",
        next=(
            "Read a part: use offset / limit or a line range, or search for the lines you need.",
            "Filter command output (head, tail, grep) instead of printing all of it.",
        ),
    ),
    Pattern(
        id="EI/PERMISSION_DENIED/002",
        category=Category.PERMISSION_DENIED,
        variant="user_denied",
        priority=85,
        text=w.USER_DENIED + w.EXECUTION_DENIED + w.PROPOSAL_REJECTED,
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
        id="EI/MCP_TOOL_MISSING/002",
        category=Category.MCP_TOOL_MISSING,
        variant="server_unavailable",
        priority=82,
        text=w.MCP_DOWN
        + w.MCP_CLIENT_DOWN
        + w.MCP_CONNECT_FAILED
        + w.MCP_NO_TOOLS
        + w.MCP_SERVER_STATE
        + w.MCP_EXTENSION_FAILED,
        disposition=Disposition.CHANGE_STRATEGY,
        what="The MCP server for this {tool} call is not connected.",
        why="The server closed its connection or is not running; its tools cannot be called now.",
        next=(
            "Do not call this server's tools again in this task.",
            "Use other available tools: {tools}.",
        ),
    ),
    Pattern(
        id="EI/MCP_TOOL_MISSING/001",
        category=Category.MCP_TOOL_MISSING,
        variant="generic",
        priority=80,
        flags=frozenset({Flag.MCP_TOOL_MISSING}),
        text=w.MCP_MISSING + w.MCP_TOOL_ABSENT + w.MCP_NAME_ABSENT,
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
        text=w.UNKNOWN_TOOL
        + w.TOOL_CHOICE_UNKNOWN
        + w.NOT_A_TOOL
        + w.NOT_LISTED_TOOL
        + w.TOOL_DISABLED
        + w.TOOL_ABSENT_BARE
        + w.REQUESTED_TOOL_ABSENT,
        what="There is no tool named {tool_or_requested}.",
        why="Only the declared tools can be called, under their exact names.",
        next=(
            "Call one of the available tools: {tools}.",
            "{suggestion}",
        ),
    ),
    Pattern(
        id="EI/DIFF_MATCH_FAILED/003",
        category=Category.DIFF_MATCH_FAILED,
        variant="stale_read",
        priority=77,
        text=w.DIFF_STALE,
        text_confidence=0.9,
        what="The {tool} edit was refused: the file was not read, or changed since it was read.",
        why="Edits are only accepted against the file content you have actually seen.",
        next=(
            "Read the file now.",
            "Then repeat the edit against the exact current content.",
        ),
    ),
    Pattern(
        id="EI/PARAM_MISSING/001",
        category=Category.PARAM_MISSING,
        variant="generic",
        priority=76,
        flags=frozenset({Flag.MISSING_PARAM}),
        text=w.PARAM_MISSING + w.NOTHING_GIVEN + w.MUST_SPECIFY + w.MISSING_THING + w.NEITHER_GIVEN,
        what="The {tool} call is missing the required parameter {param_or_required}.",
        why="The tool cannot run without every required parameter.",
        next=(
            "Required parameters: {required}.",
            "Retry with all of them, for example: {example}",
        ),
    ),
    Pattern(
        id="EI/DIFF_MATCH_FAILED/004",
        category=Category.DIFF_MATCH_FAILED,
        variant="no_change",
        priority=75,
        text=w.DIFF_IDENTICAL + w.DIFF_ALREADY_DONE + w.DIFF_UNCHANGED_RESULT,
        text_confidence=0.9,
        what="The {tool} edit changes nothing: the search and replacement text are the same.",
        why="An edit must replace the text with something different.",
        next=(
            "If the file already has the wanted content, move on to the next step.",
            "Otherwise put the changed text in the replacement.",
        ),
    ),
    Pattern(
        id="EI/DIFF_MATCH_FAILED/005",
        category=Category.DIFF_MATCH_FAILED,
        variant="malformed_edit",
        priority=74,
        text=w.DIFF_MALFORMED
        + w.PATCH_GRAMMAR
        + w.PATCH_STRUCTURE
        + w.PATCH_EMPTY
        + w.DIFF_FIRST_EDIT_ONLY
        + w.EDIT_LISTING_UNNAMED,
        text_confidence=0.9,
        what="The {tool} edit could not be read: the diff or patch is not in the expected format.",
        why="Markers, headers and line prefixes must be exactly as the tool describes them.",
        next=(
            "Rewrite the edit in the tool's exact format (markers on their own lines, no extra "
            "characters).",
            "Send one small, well-formed block; a non-empty search text for every block.",
        ),
    ),
    Pattern(
        id="EI/DIFF_MATCH_FAILED/002",
        category=Category.DIFF_MATCH_FAILED,
        variant="ambiguous",
        priority=73,
        text=w.DIFF_AMBIGUOUS + w.MATCHED_TIMES,
        text_confidence=0.9,
        what="The {tool} edit failed: the text to replace occurs more than once.",
        why="An edit must identify exactly one place in the file.",
        next=(
            "Include more surrounding lines so the search text is unique.",
            "Or ask the tool to replace all occurrences if that is what you mean.",
        ),
    ),
    Pattern(
        id="EI/DIFF_MATCH_FAILED/001",
        category=Category.DIFF_MATCH_FAILED,
        variant="no_match",
        priority=72,
        text=w.DIFF_NO_MATCH + w.PATCH_UNMATCHED + w.NO_MATCH_FOR + w.EDIT_NOT_APPLIED,
        text_confidence=0.9,
        what="The {tool} edit failed: the text to replace does not match the file.",
        why="The search text must match the current file exactly, whitespace included. {match}",
        next=(
            "Read the exact lines again and copy them unchanged into the search text.",
            "Keep the search text short and unique; edit one region per call.",
        ),
    ),
    Pattern(
        id="EI/SHELL_INTEGRATION/001",
        category=Category.SHELL_INTEGRATION,
        variant="generic",
        priority=70,
        text=w.SHELL + w.UNKNOWN_TERMINAL_STATUS,
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
        text=w.PARAM_TYPE
        + w.ONLY_OF_TYPE
        + w.SCALAR_PARSE
        + w.TYPE_PLAIN
        + w.TYPE_CONVERSION
        + w.NAMED_NOT_OF_TYPE
        + w.INVALID_KIND_OF_VALUE,
        what="The {tool} call passed {param_or_a} with the wrong type.",
        why="Each parameter must have the JSON type its schema declares.",
        next=(
            "Send {param_or_each} with the declared type, e.g. numbers unquoted, lists as "
            "JSON arrays.",
            "Re-check the types in the tool schema before retrying. Example: {example}",
        ),
    ),
    Pattern(
        id="EI/INVALID_TOOL_PROTOCOL/008",
        category=Category.INVALID_TOOL_PROTOCOL,
        variant="tool_definition",
        priority=81,  # above the call-argument families: a tool's schema is not the call's value
        text=w.INVALID_TOOL_SCHEMA + w.SCHEMA_NOT_TAKEN,
        disposition=Disposition.CHANGE_STRATEGY,
        retryable=False,
        what="The model server refused the tool definitions sent with the request{param_in}; "
        "no tool was called.",
        why="A tool's name, description, parameter schema or the tool_choice breaks the "
        "server's rules; that is the tool list of the agent, not an argument of a call, so "
        "repeating the step fails the same way.",
        next=(
            "Do not retry the same step: continue without the refused tool, with the tools "
            "that work.",
            "Tell the user which tool definition the server refused and what its message says.",
        ),
    ),
    Pattern(
        id="EI/INVALID_TOOL_PROTOCOL/007",
        category=Category.INVALID_TOOL_PROTOCOL,
        variant="history_shape",
        priority=79,  # above PARAM_MISSING: "tool_use block missing required 'id'" is the history's
        text=w.MESSAGE_ORDER + w.EMPTY_OR_MISPLACED_TURN + w.MALFORMED_TURN,
        disposition=Disposition.CHANGE_STRATEGY,
        what="The model server refused the conversation: the order, roles or shape of its "
        "messages break the server's rules.",
        why="A turn in the history is out of place (a user turn right after a tool result, an "
        "empty turn, a tool call id in another provider's format), so any request with this "
        "history fails the same way.",
        next=(
            "Answer the last tool result in an assistant turn before anything else.",
            "If this comes back, continue from a short summary of what is done and what remains.",
        ),
    ),
    Pattern(
        id="EI/INVALID_TOOL_PROTOCOL/006",
        category=Category.INVALID_TOOL_PROTOCOL,
        variant="unpaired_result",
        priority=67,
        text=w.UNPAIRED_RESULTS + w.CALL_PARTS_UNPAIRED,
        disposition=Disposition.CHANGE_STRATEGY,
        what="The model server refused the conversation: a tool call and its result do not pair "
        "up.",
        why="Every tool call needs exactly one result right after it, under the same id; the "
        "history sent breaks that, so repeating the step fails the same way.",
        next=(
            "Make a new tool call instead of repeating one whose result is missing.",
            "If this comes back, continue from a short summary of what is done and what remains.",
        ),
    ),
    Pattern(
        id="EI/INVALID_TOOL_PROTOCOL/005",
        category=Category.INVALID_TOOL_PROTOCOL,
        variant="one_tool_per_message",
        priority=66,
        text=w.ONE_TOOL + w.ONE_TOOL_ALLOWED + w.FINAL_ANSWER_RULES,
        what="Only the first tool call of your message was run; {tool} was not executed.",
        why="This agent runs one tool per message and waits for its result.",
        next=("Read the first call's result, then issue the next call in its own message.",),
    ),
    Pattern(
        id="EI/INVALID_TOOL_PROTOCOL/003",
        category=Category.INVALID_TOOL_PROTOCOL,
        variant="no_tool_call",
        priority=65,
        text=w.NO_TOOL_CALL + w.REACT_STEP_UNREADABLE,
        what="Your last message contained no tool call the agent could run.",
        why="In this agent every step must be a tool call in the required format.",
        next=(
            "Continue with exactly one tool call in the required format.",
            "If the task is finished, call the tool that completes it.",
        ),
    ),
    Pattern(
        id="EI/INVALID_TOOL_PROTOCOL/004",
        category=Category.INVALID_TOOL_PROTOCOL,
        variant="malformed_call",
        priority=64,
        text=w.MALFORMED_CALL + w.UNCALLABLE + w.IMPLICIT_INVOCATION,
        what="Your tool call could not be read: its name or markup is malformed.",
        why="A call needs a declared tool name and one well-formed argument object, in the "
        "native tool-calling format.",
        next=(
            "Use the native tool-calling interface; do not write tool markup as text.",
            "Give the call a declared tool name and complete arguments.",
        ),
    ),
    Pattern(
        id="EI/INVALID_JSON_ARGUMENTS/001",
        category=Category.INVALID_JSON_ARGUMENTS,
        variant="concatenated",
        priority=63,
        flags=frozenset({Flag.CONCATENATED_JSON}),
        text=w.JSON_CONCATENATED,
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
        text=w.JSON_TRUNCATED + w.JSON_CUT_OFF,
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
        text=w.JSON_SYNTAX + w.JSON_ARGUMENT_CONTEXT + w.ARGUMENTS_NOT_DECODED,
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
        id="EI/COMMAND_FAILED/005",
        category=Category.COMMAND_FAILED,
        variant="crashed",
        # above the file, permission and service families: a crash report's own lines (a
        # debugger's "No such file" for a libc source it lacks) are not the failure's cause
        priority=57,
        text=w.PROGRAM_CRASHED + w.OUT_OF_MEMORY,
        what="The program this {tool} call ran crashed (a signal, a memory error or out of "
        "memory) instead of exiting with an error.",
        why="A crash comes from the program's own code or its limits (a bad pointer, a failed "
        "assertion, memory used up), not from how the command was typed; the same run crashes "
        "the same way, even when the exit status says 0.",
        next=(
            "Read the crash report (the signal, the first frame of the stack, the sanitizer's or "
            "memcheck's first error) and fix the code it points to.",
            "If memory ran out, make the input or the job smaller or raise the limit; do not "
            "rerun it unchanged.",
        ),
    ),
    Pattern(
        id="EI/PERMISSION_DENIED/003",
        category=Category.PERMISSION_DENIED,
        variant="policy_denied",
        priority=58,
        text=w.POLICY_DENIED + w.POLICY_RULES + w.NOTHING_ALLOWED + w.IGNORE_FILE,
        disposition=Disposition.CHANGE_STRATEGY,
        retryable=False,
        what="The {tool} call was blocked by the agent's access rules (workspace, ignore "
        "file, allow list or sandbox).",
        why="The target is outside what this agent may touch; the same call will be blocked again.",
        next=(
            "Do not retry this target or command.",
            "Stay inside the workspace and allowed commands, or continue without this file.",
        ),
    ),
    Pattern(
        id="EI/PERMISSION_DENIED/001",
        category=Category.PERMISSION_DENIED,
        variant="os_denied",
        priority=55,
        text=w.OS_DENIED
        + w.MISSING_CREDENTIALS
        + w.REFUSED_CALLER
        + w.UNTRUSTED_REQUEST
        + w.WRONG_SECRET
        + w.REGISTRY_LOGIN_REQUIRED
        + w.LOGIN_REFUSED
        + w.AWS_DENIED
        + w.SLACK_DENIED
        + w.PATH_OUTSIDE_SANDBOX,
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
        id="EI/COMMAND_FAILED/004",
        category=Category.COMMAND_FAILED,
        variant="wrong_format",
        # above FILE_NOT_FOUND: unzip says "cannot find zipfile directory" of a file that is
        # there but is no zip
        priority=53,
        text=w.WRONG_FORMAT
        + w.UNREADABLE_FORMAT
        + w.NOT_AN_OBJECT_FILE
        + w.COMPRESSED_INPUT_UNREADABLE,
        what="The command of this {tool} call failed: a file it reads is not in the format it "
        "expects.",
        why="The file exists but is not what the program takes (not an archive of that kind, a "
        "truncated download, an HTML error page saved under the file's name, another format); "
        "running it again on the same file fails the same way.",
        next=(
            "Check what the file really is (`file NAME`, its size, its first bytes) first.",
            "Fetch or build it again, or use the program that reads its real format.",
        ),
    ),
    Pattern(
        id="EI/FILE_NOT_FOUND/002",
        category=Category.FILE_NOT_FOUND,
        variant="wrong_kind",
        priority=52,
        text=w.FILE_WRONG_KIND + w.DIRECTORY_OMITTED + w.NOT_A_KIND,
        what="The {tool} call named a directory where a file is needed, or a file where a "
        "directory is needed.",
        why="Reading and editing take a file path; listing takes a directory path.",
        next=(
            "List the directory to see which entries are files and which are directories.",
            "Retry with the path of the right kind.",
        ),
    ),
    Pattern(
        id="EI/FILE_NOT_FOUND/001",
        category=Category.FILE_NOT_FOUND,
        variant="generic",
        priority=50,
        text=w.FILE_MISSING
        + w.FILE_MISSING_PROGRAMS
        + w.NOTHING_NAMED
        + w.UNREADABLE_PATH
        + w.FILE_NOT_LOCATED
        + w.ARCHIVE_MEMBER_MISSING
        + w.NUMBERED_ITEM_MISSING
        + w.LOADED_PATH_MISSING
        + w.QUOTED_PATH_ABSENT
        + w.FILE_UNAVAILABLE
        + w.NO_SUCH_PLACE,
        what="The {tool} call named a file or directory that does not exist.",
        why="The path is wrong or the file has not been created yet.",
        next=(
            "List the directory first (list_files / glob) to find the exact path.",
            "Use paths relative to the workspace root, spelled exactly as listed.",
        ),
    ),
    Pattern(
        id="EI/FILE_EXISTS/001",
        category=Category.FILE_EXISTS,
        variant="generic",
        priority=49,
        text=w.FILE_EXISTS
        + w.PATH_EXISTS
        + w.NO_OVERWRITE
        + w.NAME_EXISTS_PROGRAMS
        + w.OVERWRITE_DECLINED,
        what="The {tool} call would create a file or directory that already exists.",
        why="This tool creates new files only and does not overwrite.",
        next=(
            "Edit the existing file with the edit tool instead (read it first).",
            "Or choose a path that does not exist yet.",
        ),
    ),
    Pattern(
        id="EI/PARAM_INVALID_VALUE/001",
        category=Category.PARAM_INVALID_VALUE,
        variant="generic",
        priority=48,
        text=w.PARAM_VALUE
        + w.VALUE_COMBINATION
        + w.LENGTH_BOUNDS
        + w.USE_INSTEAD
        + w.BAD_TIME
        + w.UNUSABLE_INPUT
        + w.UNKNOWN_MODEL
        + w.MODEL_NAMED_ONLY
        + w.OUT_OF_VOCAB
        + w.VALIDATION_STATUS
        + w.SCHEMA_VALIDATOR
        + w.BAD_URL
        + w.VALUE_BOUNDS
        + w.RANGE_STATED
        + w.SETTINGS_COMBINED
        + w.VALUE_ORDER
        + w.EMPTY_VALUE
        + w.EMPTY_NOT_ALLOWED
        + w.VALUE_CHOICES
        + w.UNSUPPORTED_REQUEST
        + w.BAD_CHARACTERS
        + w.NOT_VALID_PARAM
        + w.NOT_A_CHOICE
        + w.SCHEMA_REFUSED_INPUT
        + w.PAST_END_OF_FILE
        + w.NOTHING_WITH_ID
        + w.SELF_REFERENCE
        + w.QUOTED_VALUE_INVALID
        + w.POSITION_EXCEEDS
        + w.VALUE_NAMES_NOTHING
        + w.OUTPUT_VALIDATION_FEEDBACK
        + w.SESSION_REFUSED_INPUT
        + w.NOT_TEXT
        + w.NOTHING_FOR_SYMBOL
        + w.COUNT_OVER_CAP
        + w.VALUE_MUST_NAME_EXISTING,
        what="The {tool} call passed {param_or_a} with a value the tool does not accept.",
        why="The value has the right type but is outside what the schema allows (allowed "
        "values, range, format, or a parameter the tool does not have).",
        next=(
            "Use only the parameters the schema declares, with allowed values (enums, ranges, "
            "formats).",
            "Retry with a corrected value. Example: {example}",
        ),
    ),
    Pattern(
        id="EI/PARAM_INVALID_VALUE/002",
        category=Category.PARAM_INVALID_VALUE,
        variant="request_refused",
        priority=47,  # reached by the envelope (a model server's refusal), never by words alone
        disposition=Disposition.CHANGE_STRATEGY,
        retryable=False,
        what="The model server refused the request: {param_or_a} of the request has a value it "
        "does not accept.",
        why="The server checks the request's own settings (sampling parameters, limits, formats, "
        "server flags) before it generates; they are set by the client, not by a tool call, so "
        "repeating the step fails the same way.",
        next=(
            "Do not repeat the step unchanged: the setting its message names must change in the "
            "client's or server's configuration.",
            "Tell the user the server's message so the setting can be fixed.",
        ),
    ),
    Pattern(
        id="EI/COMMAND_FAILED/002",
        category=Category.COMMAND_FAILED,
        variant="missing_dependency",
        priority=51,  # above FILE_NOT_FOUND: a missing program is also "No such file"
        text=w.MISSING_DEPENDENCY
        + w.MISSING_PROGRAM
        + w.MISSING_PROGRAM_EXEC
        + w.RECIPE_PROGRAM_MISSING
        + w.INSTALL_HINT
        + w.MUST_INSTALL
        + w.MISSING_PROGRAM_LAUNCH
        + w.MISSING_PACKAGE_BY_ITS_FINDER,
        what="The command of this {tool} call failed: a program, module or package it needs is "
        "not installed.",
        why="The environment lacks that dependency (or the project's virtual environment or "
        "node_modules is not the one in use); running it again fails the same way.",
        next=(
            "Install it with the project's package manager (pip install, npm install, cargo "
            "add), or run through the project's environment (its venv, npx, poetry run).",
            "Check the spelling of the module or package name against what is installed.",
            "If it cannot be installed here, use a tool or program that is available.",
        ),
    ),
    Pattern(
        id="EI/NETWORK_ERROR/003",
        category=Category.NETWORK_ERROR,
        variant="service_not_running",
        priority=56,  # above FILE_NOT_FOUND: a socket that is not there is a service not running
        text=w.SERVICE_NOT_RUNNING + w.AGENT_NOT_RUNNING + w.MULTIPLEXER_NOT_RUNNING,
        disposition=Disposition.CHANGE_STRATEGY,
        what="The command of this {tool} call could not connect to the local service it uses "
        "(a database, a cache, a daemon): it is not running or not listening where the command "
        "looked.",
        why="Nothing accepts connections on that socket, host or port; the same command fails "
        "the same way until the service is started or the address changes.",
        next=(
            "Start the service (or its container) if the task allows it, then run the command "
            "once more; or point it at the host, port or socket where the service runs.",
            "If it cannot be started here, tell the user; do not repeat the identical command.",
        ),
    ),
    Pattern(
        id="EI/NETWORK_ERROR/002",
        category=Category.NETWORK_ERROR,
        variant="package_index_unreachable",
        priority=54,  # above a missing package: the index never answered whether it exists
        text=w.PACKAGE_INDEX_UNREACHABLE,
        disposition=Disposition.CHANGE_STRATEGY,
        what="The command of this {tool} call could not reach the package index or registry it "
        "installs from.",
        why="The environment has no network access to that index (a sandbox, an offline cache, a "
        "proxy or a closed port); installing again fails the same way, and the package may well "
        "exist.",
        next=(
            "Do not repeat the install: use what is already installed (pip list, npm ls, the "
            "project's lock file), or an offline source the project provides (a wheel or vendor "
            "directory, a local cache).",
            "If the package is needed, tell the user that this environment cannot reach the index.",
        ),
    ),
    Pattern(
        id="EI/TIMEOUT/001",
        category=Category.TIMEOUT,
        variant="generic",
        priority=45,
        flags=frozenset({Flag.TIMEOUT}),
        text=w.TIMEOUT
        + w.EXECUTION_LIMITS
        + w.TIMEOUT_SIGNAL
        + w.NOT_WITHIN
        + w.TIME_BUDGET
        + w.ALARM_CLOCK,
        what="The {tool} call did not finish in time.",
        why="The operation took longer than the allowed time.",
        next=(
            "Retry with a smaller scope, or run long commands in the background.",
            "Do not repeat the identical long-running call.",
        ),
    ),
    Pattern(
        id="EI/NETWORK_ERROR/001",
        category=Category.NETWORK_ERROR,
        variant="generic",
        priority=44,
        text=w.NETWORK
        + w.NETWORK_CLIENTS
        + w.NETWORK_DAEMONS
        + w.NETWORK_SERVICE
        + w.RESPONSE_UNREADABLE
        + w.HOST_UNREACHABLE
        + w.MCP_SESSION_GONE
        + w.NO_SERVER_AVAILABLE
        + w.CLIENT_GAVE_UP
        + w.ALL_CONNECTIONS_FAILED,
        disposition=Disposition.CHANGE_STRATEGY,
        what="The {tool} call could not reach the server or URL, or the server answered with "
        "an error status.",
        why="The address does not resolve, refuses the connection, or the page does not "
        "exist; the same request will fail the same way.",
        next=(
            "Check the URL or host for typos; do not retry the identical request.",
            "Use another source, or continue without this resource.",
        ),
    ),
    Pattern(
        id="EI/COMMAND_FAILED/001",
        category=Category.COMMAND_FAILED,
        variant="generic",
        priority=42,
        text=w.COMMAND
        + w.RUNTIME_FAILURE
        + w.RUNTIME_REPORTS
        + w.TOOLCHAIN_FAILURE
        + w.PROGRAM_USAGE
        + w.PROGRAM_BAD_OPTION
        + w.GIT_REFUSALS
        + w.LINT_DIAGNOSTICS
        + w.PROGRAM_STARRED_FATAL
        + w.PROGRAM_PARSE_ERRORS
        + w.CHECKSUM_MISMATCH
        + w.SIGNAL_TERMINATED
        + w.DEBUGGER_REFUSALS
        + w.CALCULATOR_ERRORS
        + w.IMAGEMAGICK_ERROR
        + w.SIGNATURE_NOT_VERIFIED
        + w.PROGRAM_VALUE_REFUSED,
        what="The command of this {tool} call failed (non-zero exit status).",
        why="The command ran but reported an error; its output says why.",
        next=(
            "Read the error lines of the output and fix their cause before running it again.",
            "If a program is missing (command not found), use one that is installed.",
        ),
    ),
    Pattern(
        id="EI/COMMAND_FAILED/003",
        category=Category.COMMAND_FAILED,
        variant="tool_failed",
        priority=40,  # below every other family: it decides only what none recognised
        text=w.PLAIN_FAILURE,
        text_confidence=0.5,
        what="The {tool} call failed; its own message above says what went wrong.",
        why="The tool reported an error in words toolmend has no specific guidance for; the "
        "message names the cause (an argument, a path, a setting or a missing service).",
        next=(
            "Read the error message and fix what it names before calling the tool again.",
            "Do not repeat the identical call; if the same error comes back, use another tool "
            "or approach.",
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
