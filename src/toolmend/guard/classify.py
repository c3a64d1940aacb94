"""`classify_error`: which known pattern a tool error is.

This module owns the matching order, so the same input always gives the same answer: structural
flags from toolmend's own checks first; then what the error's envelope says structurally (a
validation list naming the field, a machine error type such as `unknown_tool` or
`context_length_exceeded`); then the wording families, innermost message first, by pattern priority
(inside a program's crash report or a command result, never the call-argument categories nor the
agent's own tools; inside a test runner's report of failed tests, the suite's failure; the lines
that are warnings only when the other lines name nothing a family knows); then the envelope's
coarse status (HTTP status, exit code), which also wins over a wording that says only "it failed"
when it names a refusal, a rate limit or a timeout; and a model server's refusal of the request
itself (a refused field among the tool definitions, a request field or request-error type such as
`invalid_request_error`), which wins over a call-argument or generic reading (`_request_reading`).
A message that only states a failure plainly, in no family's words, is the plain-failure variant of
COMMAND_FAILED, decided after every layer was tried and only when the envelope carries no status.
Last, what no family read, or read only as a generic failure or by a status or coarse code alone,
is read by the cause it states in common words (`meanings`: the meaning classes, and in a tool's
own message the category cues, machine identifiers and codes spelled as words).
It never builds guidance, never counts and never changes the error; anything else it does not
recognise is UNCLASSIFIED (the caller passes it through unchanged). Names captured from error text
are kept only when they are safe identifiers, so an error message cannot smuggle text into the
guidance.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from toolmend.guard.call_facts import names_called_tool_missing, quotes_one_of, repeats_one_of
from toolmend.guard.envelope import METASCHEMA_CODE, Envelope, Issue, unwrap
from toolmend.guard.exit_status import (
    command_in_text,
    killed_by_timeout,
    status_pattern,
    xargs_aborted,
)
from toolmend.guard.meanings import FAILURE, PATCH_GRAMMAR, cue_of, meaning_of
from toolmend.guard.patterns import (
    PATTERNS,
    UNCLASSIFIED_PATTERN,
    Category,
    Disposition,
    Flag,
    Pattern,
)
from toolmend.guard.wordings import PROGRAM_CRASH_FRAMING, TEST_RUN_FAILED, WARNING_LINE, Wording
from toolmend.model import Tool

#: Wordings are matched on at most this many leading characters, plus the tail below: error
#: texts with long logs or stack traces put the message first or last, and ~200 case-insensitive
#: regexes over a bounded window keep one classification near a millisecond.
MAX_SCAN_HEAD_CHARS = 2_048
MAX_SCAN_TAIL_CHARS = 1_024
#: Classifications of plain error strings remembered: `guard_history` replays the whole history
#: on every request, so the same failed results are classified again and again.
CACHE_SIZE = 2_048

#: A name from an error message or a call is echoed to the model only if it matches this: no
#: spaces, quotes, markup or newlines, so a parameter name cannot carry an injection.
SAFE_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]{0,63}")

#: Confidence of a structural match (a flag set by toolmend's own checks).
STRUCTURAL_CONFIDENCE = 1.0


def safe_identifier(value: object) -> str | None:
    """`value` if it is a short identifier safe to echo to the model, else None."""
    if isinstance(value, str) and SAFE_IDENTIFIER.fullmatch(value):
        return value
    return None


@dataclass(frozen=True, slots=True)
class Classification:
    """What `classify_error` found.

    `confidence` is 1.0 for a structural match, the pattern's text confidence (0 < c < 1) for
    a text match, and 0.0 for UNCLASSIFIED. `param`, `requested_tool` (a tool that does not
    exist), `failed_tool` (the tool the error names) and `available_tools` (the names an
    error lists) are taken from the error, and only when they are safe identifiers.
    """

    category: Category
    pattern_id: str
    confidence: float
    variant: str = "generic"
    param: str | None = None
    requested_tool: str | None = None
    failed_tool: str | None = None
    available_tools: tuple[str, ...] = ()

    @property
    def pattern(self) -> Pattern:
        from toolmend.guard.patterns import PATTERNS_BY_ID

        return PATTERNS_BY_ID[self.pattern_id]

    @property
    def disposition(self) -> Disposition:
        return self.pattern.disposition

    @property
    def known(self) -> bool:
        return self.category is not Category.UNCLASSIFIED

    @property
    def plain(self) -> bool:
        """Only the plain-failure wording matched: an error, but of no known kind."""
        return self.pattern_id == PLAIN_FAILURE_PATTERN_ID


UNCLASSIFIED = Classification(Category.UNCLASSIFIED, UNCLASSIFIED_PATTERN.id, 0.0)

_BY_PRIORITY: tuple[Pattern, ...] = tuple(sorted(PATTERNS, key=lambda p: (-p.priority, p.id)))
_BY_ID: dict[str, Pattern] = {p.id: p for p in PATTERNS}


def error_text(error: object) -> str:
    """The text of an error as agents report it: exceptions as `Type: message`."""
    if isinstance(error, BaseException):
        message = str(error)
        return f"{type(error).__name__}: {message}" if message else type(error).__name__
    if isinstance(error, bytes):
        return error.decode("utf-8", errors="replace")
    if error is None:
        return ""
    return error if isinstance(error, str) else str(error)


def _scan_window(text: str) -> str:
    if len(text) <= MAX_SCAN_HEAD_CHARS + MAX_SCAN_TAIL_CHARS:
        return text
    return text[:MAX_SCAN_HEAD_CHARS] + "\n" + text[-MAX_SCAN_TAIL_CHARS:]


def _flags_of(metadata: Mapping[str, Any] | None) -> set[Flag]:
    if not metadata:
        return set()
    raw: list[object] = []
    if "flag" in metadata:
        raw.append(metadata["flag"])
    flags = metadata.get("flags")
    if isinstance(flags, Iterable) and not isinstance(flags, (str, bytes)):
        raw.extend(flags)
    out: set[Flag] = set()
    for item in raw:
        try:
            out.add(Flag(str(item)))
        except ValueError:
            continue  # an unknown flag is not a signal; fail open
    return out


def _tool_name(tool: Tool | str | None) -> str | None:
    if isinstance(tool, Tool):
        return tool.name
    return tool if isinstance(tool, str) else None


#: Confidence of a match on what the envelope says structurally (validation list, error type).
ENVELOPE_CONFIDENCE = 0.95
#: Confidence of a match on the envelope's coarse status only (HTTP status, exit code).
STATUS_CONFIDENCE = 0.6

#: A validation issue's kind -> the pattern it is.
_ISSUE_PATTERNS = {
    "missing": "EI/PARAM_MISSING/001",
    "type": "EI/PARAM_TYPE_MISMATCH/001",
    "value": "EI/PARAM_INVALID_VALUE/001",
    "json": "EI/INVALID_JSON_ARGUMENTS/003",
}

#: A tool whose own output failed its schema: the tool (or its server) failed, whatever the
#: validation list inside says about the fields of that output.
_OUTPUT_REJECTED_PATTERN = "EI/COMMAND_FAILED/001"

#: Machine error types in JSON bodies (OpenAI, Anthropic, llama.cpp, Roo/Kilo) -> pattern.
_CODE_PATTERNS = {
    "unknown_tool": "EI/TOOL_NOT_FOUND/001",
    "tool_not_found": "EI/TOOL_NOT_FOUND/001",
    "unknown_server": "EI/MCP_TOOL_MISSING/001",
    "access_denied": "EI/PERMISSION_DENIED/003",
    "permission_denied": "EI/PERMISSION_DENIED/001",
    "permission_error": "EI/PERMISSION_DENIED/001",
    "authentication_error": "EI/PERMISSION_DENIED/001",
    "invalid_api_key": "EI/PERMISSION_DENIED/001",
    "denied": "EI/PERMISSION_DENIED/002",
    "rate_limit_exceeded": "EI/RATE_LIMITED/001",
    "rate_limit_error": "EI/RATE_LIMITED/001",
    "insufficient_quota": "EI/RATE_LIMITED/001",
    "overloaded_error": "EI/RATE_LIMITED/001",
    "context_length_exceeded": "EI/CONTEXT_OVERFLOW/001",
    "exceed_context_size_error": "EI/CONTEXT_OVERFLOW/001",
    "request_too_large": "EI/CONTEXT_OVERFLOW/002",
    "timeout": "EI/TIMEOUT/001",
    # model servers' and API gateways' own types: a history whose roles break the server's order
    # (Mistral), a call the model wrote that the server could not parse (Groq), a tool definition
    # refused (OpenAI; jsonschema's metaschema), a spent budget (LiteLLM), the client's classes
    "invalid_request_message_order": "EI/INVALID_TOOL_PROTOCOL/007",
    "tool_use_failed": "EI/INVALID_TOOL_PROTOCOL/004",
    "invalid_function_parameters": "EI/INVALID_TOOL_PROTOCOL/008",
    METASCHEMA_CODE: "EI/INVALID_TOOL_PROTOCOL/008",
    "budget_exceeded": "EI/RATE_LIMITED/001",
    "budgetexceedederror": "EI/RATE_LIMITED/001",
    "contextwindowexceedederror": "EI/CONTEXT_OVERFLOW/001",
    "api_key_invalid": "EI/PERMISSION_DENIED/001",
    # a redis server's error reply (envelope's `_REDIS_REPLY`): its arguments are the redis
    # command's, not the tool call's, so a refused value is the command's failure, as psql's are
    "redis:noauth": "EI/PERMISSION_DENIED/001",
    "redis:noperm": "EI/PERMISSION_DENIED/001",
    "redis:wrongpass": "EI/PERMISSION_DENIED/001",
    "redis:err": "EI/COMMAND_FAILED/001",
    "redis:wrongtype": "EI/COMMAND_FAILED/001",
    "redis:busygroup": "EI/COMMAND_FAILED/001",
    "redis:nogroup": "EI/COMMAND_FAILED/001",
    "redis:noscript": "EI/COMMAND_FAILED/001",
    "redis:oom": "EI/COMMAND_FAILED/001",
    "redis:execabort": "EI/COMMAND_FAILED/001",
    "redis:crossslot": "EI/COMMAND_FAILED/001",
    "redis:busykey": "EI/COMMAND_FAILED/001",
}


#: Machine codes that name the kind of failure less precisely than a family's words: errno names
#: as Node and libuv put them in `code` ("ENOENT", "ETIMEDOUT"), gRPC and Google API statuses
#: ("DEADLINE_EXCEEDED", "UNAVAILABLE"), the 5xx error types of model APIs ("api_error",
#: "server_error") and an agent's own error types (gemini-cli's "edit_no_occurrence_found").
#: Read like an HTTP status: when no wording matched, or one that says only "it failed" (a
#: message "spawn tsc ENOENT" still says which program is missing).
_COARSE_CODE_PATTERNS = {
    "enoent": "EI/FILE_NOT_FOUND/001",
    "enotdir": "EI/FILE_NOT_FOUND/002",
    "eisdir": "EI/FILE_NOT_FOUND/002",
    "eexist": "EI/FILE_EXISTS/001",
    "already_exists": "EI/FILE_EXISTS/001",
    "eacces": "EI/PERMISSION_DENIED/001",
    "eperm": "EI/PERMISSION_DENIED/001",
    "erofs": "EI/PERMISSION_DENIED/001",
    "unauthenticated": "EI/PERMISSION_DENIED/001",
    "etimedout": "EI/TIMEOUT/001",
    "deadline_exceeded": "EI/TIMEOUT/001",
    "request_timeout": "EI/TIMEOUT/001",
    "gateway_timeout": "EI/TIMEOUT/001",
    "resource_exhausted": "EI/RATE_LIMITED/001",
    "invalid_argument": "EI/PARAM_INVALID_VALUE/001",
    "econnrefused": "EI/NETWORK_ERROR/001",
    "econnreset": "EI/NETWORK_ERROR/001",
    "enotfound": "EI/NETWORK_ERROR/001",
    "eai_again": "EI/NETWORK_ERROR/001",
    "ehostunreach": "EI/NETWORK_ERROR/001",
    "enetunreach": "EI/NETWORK_ERROR/001",
    "unavailable": "EI/NETWORK_ERROR/001",
    "service_unavailable": "EI/NETWORK_ERROR/001",
    "api_error": "EI/NETWORK_ERROR/001",
    "server_error": "EI/NETWORK_ERROR/001",
    "internal_server_error": "EI/NETWORK_ERROR/001",
    "incomplete_generation": "EI/NETWORK_ERROR/001",
    # the exception classes of the model API clients (envelope's `_SDK_ERROR_CLASS`), each an
    # HTTP status by name
    "ratelimiterror": "EI/RATE_LIMITED/001",
    "overloadederror": "EI/RATE_LIMITED/001",
    "authenticationerror": "EI/PERMISSION_DENIED/001",
    "permissiondeniederror": "EI/PERMISSION_DENIED/001",
    "apitimeouterror": "EI/TIMEOUT/001",
    "apiconnectionerror": "EI/NETWORK_ERROR/001",
    "internalservererror": "EI/NETWORK_ERROR/001",
    "serviceunavailableerror": "EI/NETWORK_ERROR/001",
    # gemini-cli's `ToolErrorType` (and its forks'), as its results and JSON output carry it
    "invalid_tool_params": "EI/PARAM_INVALID_VALUE/001",
    "tool_not_registered": "EI/TOOL_NOT_FOUND/001",
    "file_not_found": "EI/FILE_NOT_FOUND/001",
    "search_path_not_found": "EI/FILE_NOT_FOUND/001",
    "mcp_resource_not_found": "EI/FILE_NOT_FOUND/001",
    "target_is_directory": "EI/FILE_NOT_FOUND/002",
    "path_is_not_a_directory": "EI/FILE_NOT_FOUND/002",
    "search_path_not_a_directory": "EI/FILE_NOT_FOUND/002",
    "attempt_to_create_existing_file": "EI/FILE_EXISTS/001",
    "file_too_large": "EI/CONTEXT_OVERFLOW/002",
    "path_not_in_workspace": "EI/PERMISSION_DENIED/003",
    "policy_violation": "EI/PERMISSION_DENIED/003",
    "sandbox_expansion_required": "EI/PERMISSION_DENIED/003",
    "edit_no_occurrence_found": "EI/DIFF_MATCH_FAILED/001",
    "edit_expected_occurrence_mismatch": "EI/DIFF_MATCH_FAILED/002",
    "edit_no_change": "EI/DIFF_MATCH_FAILED/004",
    # JSON-RPC's own errors (MCP servers and clients): a method the server does not have (a tool
    # call to it reads as the MCP tool missing), a request whose parameters it could not read
    # (the MCP Python SDK's "Invalid request parameters": the request, not a tool's arguments,
    # which it reports as a tool result)
    "jsonrpc:-32601": "EI/TOOL_NOT_FOUND/001",
    "jsonrpc:-32602": "EI/INVALID_TOOL_PROTOCOL/004",
}


def _code_pattern(env: Envelope) -> str | None:
    """The coarse reading of a machine code in the envelope (`_COARSE_CODE_PATTERNS`)."""
    return next(
        (p for code in env.codes if (p := _COARSE_CODE_PATTERNS.get(code.lower())) is not None),
        None,
    )


def _status_pattern(env: Envelope) -> str | None:
    """The coarse reading of an HTTP status or exit code, used only when no wording matched."""
    status = env.status
    if status in (402, 429):  # 402: the account's credits are spent, as a quota is
        return "EI/RATE_LIMITED/001"
    if status in (401, 403):
        return "EI/PERMISSION_DENIED/001"
    if status in (408, 504):
        return "EI/TIMEOUT/001"
    if status == 413:
        return "EI/CONTEXT_OVERFLOW/002"
    if status is not None and (status == 404 or status >= 500):
        return "EI/NETWORK_ERROR/001"
    if env.exit_code == 124:  # GNU timeout's (and Codex's) exit code, with nothing else said
        return "EI/TIMEOUT/001"
    if env.exit_code == 127:  # a POSIX shell's "command not found"
        return "EI/COMMAND_FAILED/002"
    if env.exit_code == 126:  # a POSIX shell's "found but not executable"
        return "EI/PERMISSION_DENIED/001"
    if env.exit_code not in (None, 0):
        return "EI/COMMAND_FAILED/001"
    return None


#: Worded patterns that say only "it failed" (a network error, a failed command): what the
#: envelope's status says more precisely wins over them, as structure comes before wording.
_GENERIC_PATTERNS = frozenset(
    {"EI/NETWORK_ERROR/001", "EI/COMMAND_FAILED/001", "EI/COMMAND_FAILED/003"}
)
#: The pattern of a failure stated plainly in no family's words (`wordings.PLAIN_FAILURE`): any
#: status or exit code the envelope carries says more than it does.
PLAIN_FAILURE_PATTERN_ID = "EI/COMMAND_FAILED/003"


def _decisive_status_pattern(env: Envelope) -> str | None:
    """The pattern a status or exit code names by itself: refused auth, a rate limit, a timeout,
    a server that answered 404 or 5xx, a program the shell did not find or could not run."""
    if env.status in (401, 403):
        return "EI/PERMISSION_DENIED/001"
    if env.status in (402, 429):
        return "EI/RATE_LIMITED/001"
    if env.status == 408 or env.exit_code == 124:  # 124: GNU timeout's (and Codex's) exit code
        return "EI/TIMEOUT/001"
    if env.status is not None and (env.status == 404 or env.status >= 500):
        return "EI/NETWORK_ERROR/001"  # an HTTP client's exception line is not a crashed program
    if env.exit_code in (126, 127):  # a POSIX shell's "not executable" and "command not found"
        return _status_pattern(env)
    return None


#: Machine types a model server gives a request it refused for what the request said (not for
#: auth, quota or its own failure): OpenAI's and Anthropic's `invalid_request_error`, vLLM's and
#: SGLang's `BadRequestError`, TGI's `validation`, the clients' `BadRequestError` classes.
_REQUEST_ERROR_CODES = frozenset(
    {
        "invalid_request_error",
        "badrequesterror",
        "unprocessableentityerror",
        "validation",
        "invalid_request",
        "bad_request",
    }
)
#: The request fields that hold the tool definitions: a refused value there is the tool list the
#: harness sent, never an argument of the model's call.
_TOOL_DEFINITION_FIELDS = frozenset(
    {"tools", "tool_choice", "functions", "function_call", "function_declarations", "tool_config"}
)
#: Readings a refused tool definition leaves in place: what they say about the server, the tool
#: list or the request's size is more than "a tool definition was refused" ("does not match"
#: in "Invalid 'tools[0].function.name': string does not match pattern" is no edit's search).
_SERVER_READINGS = frozenset(
    {
        Category.TOOL_NOT_FOUND,
        Category.MCP_TOOL_MISSING,
        Category.INVALID_TOOL_PROTOCOL,
        Category.CONTEXT_OVERFLOW,
        Category.RATE_LIMITED,
        Category.PERMISSION_DENIED,
        Category.TIMEOUT,
        Category.NETWORK_ERROR,
    }
)
#: A model server that refused the request's own fields (a sampling parameter, a limit, a format).
REQUEST_REFUSED_PATTERN_ID = "EI/PARAM_INVALID_VALUE/002"
#: A model server that refused the tool definitions sent with the request.
TOOL_DEFINITION_PATTERN_ID = "EI/INVALID_TOOL_PROTOCOL/008"


def _names_tool_definition(path: str | None) -> bool:
    if not path:
        return False
    parts = path.split(".")
    return (
        parts[0] in _TOOL_DEFINITION_FIELDS
        or "function_declarations" in parts
        or ("input_schema" in parts and parts[0] == "tools")
    )


def _request_reading(
    found: tuple[Pattern, dict[str, str], float] | None, env: Envelope
) -> tuple[Pattern, dict[str, str], float] | None:
    """What a model server's refusal of the request says structurally, over the wording.

    A refused field among the tool definitions (`tools[0].function.parameters`, `tool_choice`) is
    the tool list, not the call's arguments: it replaces a call-argument or generic reading. A
    request refused for its own fields (`invalid_request_error`, a named `param`) replaces a
    reading that says only "it failed" (or none), and the call-level invalid value becomes the
    request's, so the guidance names the request's setting rather than a tool's argument.
    """
    param = {"param": env.request_param} if env.request_param else {}
    if _names_tool_definition(env.request_param):
        if (
            found is None
            or found[0].id in _GENERIC_PATTERNS
            or found[0].category not in _SERVER_READINGS
        ):
            return _BY_ID[TOOL_DEFINITION_PATTERN_ID], param, ENVELOPE_CONFIDENCE
        if found[0].id == TOOL_DEFINITION_PATTERN_ID:  # worded so too: keep the field it names
            return found[0], {**found[1], **param}, found[2]
        return found
    refused = env.request_param is not None or any(
        code.lower() in _REQUEST_ERROR_CODES for code in env.codes
    )
    if not refused:
        return found
    if found is None or found[0].id in _GENERIC_PATTERNS:
        if _code_pattern(env) or _decisive_status_pattern(env):
            return found  # a status or code that names the failure says more
        return _BY_ID[REQUEST_REFUSED_PATTERN_ID], param, ENVELOPE_CONFIDENCE
    if found[0].id == "EI/PARAM_INVALID_VALUE/001":
        return _BY_ID[REQUEST_REFUSED_PATTERN_ID], {**param, **found[1]}, found[2]
    return found


class Classifier:
    """The matching engine over the pattern database.

    `exclude_origins` switches off every wording whose origins all lie in that set: the
    accuracy test scores a source with the wordings written from it alone left out.
    """

    def __init__(self, exclude_origins: Iterable[str] = ()) -> None:
        excluded = frozenset(exclude_origins)
        #: Every wording in use, in priority order, beside its pattern.
        self._wordings: tuple[tuple[Pattern, Wording], ...] = tuple(
            (p, w) for p in _BY_PRIORITY for w in p.text if not w.origins <= excluded
        )
        #: needle -> the positions in `_wordings` of the wordings that need it (`needles`).
        self._by_needle: dict[str, list[int]] = {}
        #: The positions of the wordings without needles: tried on every text.
        self._needless: list[int] = []
        for position, (_, wording) in enumerate(self._wordings):
            if wording.needles is None:
                self._needless.append(position)
            for needle in wording.needles or ():
                self._by_needle.setdefault(needle, []).append(position)

    def _candidates(self, body: str) -> list[int]:
        """The positions of the wordings that can match `body`, in priority order: on ASCII
        text, only those with a needle in it (a substring test per needle, where a search per
        regex would walk the text hundreds of times); on other text, all."""
        if not body.isascii():
            return list(range(len(self._wordings)))
        folded = body.lower()
        held = [positions for needle, positions in self._by_needle.items() if needle in folded]
        return sorted(set(self._needless).union(*held))

    def classify(
        self,
        text: object,
        tool: Tool | str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> Classification:
        """See `classify_error`."""
        flags = _flags_of(metadata)
        meta_param = safe_identifier(metadata.get("param")) if metadata else None
        meta_tool = safe_identifier(metadata.get("requested_tool")) if metadata else None
        if flags:
            for pattern in _BY_PRIORITY:
                if pattern.flags & flags:
                    return Classification(
                        pattern.category,
                        pattern.id,
                        STRUCTURAL_CONFIDENCE,
                        pattern.variant,
                        param=meta_param,
                        requested_tool=meta_tool,
                    )
        if isinstance(text, str) and not text.strip():
            return UNCLASSIFIED
        env = unwrap(_bounded(text))
        texts = [_scan_window(t) for t in env.texts()]
        if not texts:
            return UNCLASSIFIED
        if env.exit_code == 124 and any(xargs_aborted(body) for body in texts):
            env = dataclasses.replace(env, exit_code=1)  # xargs's 124 is a failure, not a timeout
        program_status = (
            status_pattern(env.exit_code, _command(metadata, text))
            if env.exit_code
            else _timeout_kill(text, env)
        )
        # what the warnings say is read only when the other lines say nothing a family knows
        quiet = [_without_warnings(body) for body in texts]
        ran = bool(env.exit_code is not None or env.command_output)
        found = self._structural(env)
        if found is None:
            found = (self._worded(quiet, ran=ran) if quiet != texts else None) or self._worded(
                texts, ran=ran
            )
            if found is not None and found[0].category is not Category.COMMAND_FAILED:
                found = _test_run_reading(found, texts)
            coded = _code_pattern(env)
            decisive = coded or _decisive_status_pattern(env) or program_status
            if found is not None and decisive and found[0].id in _GENERIC_PATTERNS:
                # a machine code names the kind coarsely ("api_error"): the cue the message
                # states may refine it (`_cue_reading`), as it does a status alone
                confidence = STATUS_CONFIDENCE if coded else ENVELOPE_CONFIDENCE
                found = (_BY_ID[decisive], found[1], confidence)
            if found is not None and found[0].id == PLAIN_FAILURE_PATTERN_ID:
                found = None if _status_pattern(env) else found
        found = _request_reading(found, env)
        if found is None:
            status = _code_pattern(env) or program_status or _status_pattern(env)
            # a status field that says only "error": a failure stated plainly, of no known kind
            status = status or (PLAIN_FAILURE_PATTERN_ID if env.failed else None)
            found = (_BY_ID[status], {}, STATUS_CONFIDENCE) if status else None
        # the machine codes the envelope names are read as words too, after every message
        found = _meaning_reading(found, [*quiet, *env.codes], ran=ran)
        found = _patch_reading(found, texts, ran=ran)
        found = _refusal_reading(found, texts, ran=ran)
        found = _call_fact_reading(found, texts, tool, metadata)
        if found is None:
            return UNCLASSIFIED
        pattern, groups, confidence = found
        return _finish(pattern, groups, confidence, env, tool, meta_param, meta_tool)

    def _structural(self, env: Envelope) -> tuple[Pattern, dict[str, str], float] | None:
        if env.output_rejected:  # the tool's result failed its own schema: not the call's fault
            groups = {"tool": env.tool} if env.tool else {}
            return _BY_ID[_OUTPUT_REJECTED_PATTERN], groups, ENVELOPE_CONFIDENCE
        issue: Issue | None = env.issues[0] if env.issues else None
        if issue is not None:
            groups = {"param": issue.param} if issue.param else {}
            return _BY_ID[_ISSUE_PATTERNS[issue.kind]], groups, ENVELOPE_CONFIDENCE
        for code in env.codes:
            pattern_id = _CODE_PATTERNS.get(code.lower())
            if pattern_id is not None:
                groups = {"tool": env.tool} if env.tool else {}
                return _BY_ID[pattern_id], groups, ENVELOPE_CONFIDENCE
        return None

    def _worded(
        self, texts: list[str], *, ran: bool
    ) -> tuple[Pattern, dict[str, str], float] | None:
        # a crash report frames every layer of the text: an agent prefix peeled off the outside
        # leaves the program's own line inside; so does an exit status, which only a command
        # that ran has
        crashed = ran or any(
            framing.search(body) for body in texts for framing in PROGRAM_CRASH_FRAMING
        )
        # a plain statement of failure decides only when no layer has a known family's words
        candidates = [self._candidates(body) for body in texts]
        for plain in (False, True):
            for body, positions in zip(texts, candidates, strict=True):
                for position in positions:
                    pattern, wording = self._wordings[position]
                    if (pattern.id == PLAIN_FAILURE_PATTERN_ID) is not plain:
                        continue
                    if crashed and pattern.category in _CALL_ARGUMENT_CATEGORIES:
                        continue
                    if ran and pattern.category in _AGENT_TOOL_CATEGORIES:
                        continue
                    match = wording.search(body)
                    if match is not None:
                        groups = {k: v for k, v in match.groupdict().items() if v}
                        return pattern, groups, pattern.text_confidence
        return None


def _meaning_reading(
    found: tuple[Pattern, dict[str, str], float] | None, texts: list[str], *, ran: bool
) -> tuple[Pattern, dict[str, str], float] | None:
    """What no family recognised, or only as a generic failure, read by the cause it states
    last (`meanings`): never over a specific family's reading. A program's failure in
    `COMMAND_FAILED`'s own words takes only a cause that is the same inside a program's output
    (a tag or a table that already exists, an unknown subcommand, stay the command's failure).
    A reading made by a status or a coarse code alone is refined by the category cue a tool's
    own message states (`_cue_reading`); a command's output (`ran`) is never read by the cues."""
    if found is not None and found[0].id not in _MEANING_READABLE:
        return _cue_reading(found, texts) if not ran else found
    if found is not None and _reports_a_test_run(texts):
        return found  # a test run's failure, whatever its tests raised
    program = found is not None and not _states_no_cause(found)
    meant = meaning_of(texts, program=program, ran=ran)
    if meant is None or (found is not None and meant == FAILURE.pattern_id):
        return found
    return _BY_ID[meant], found[1] if found else {}, MEANING_CONFIDENCE


def _patch_reading(
    found: tuple[Pattern, dict[str, str], float] | None, texts: list[str], *, ran: bool
) -> tuple[Pattern, dict[str, str], float] | None:
    """An invalid value read in a message about a patch's own grammar (`PATCH_GRAMMAR`) is the
    edit's: the value is the patch, and what its parser says of one line ("Invalid line prefix
    in update section", "must end with '*** End Patch'") is said of the text the model wrote,
    whichever layer names the patch (Aider's "Error parsing patch content: " around the
    parser's message). A command's output is about the command's input, not this call's."""
    if ran or found is None or found[0].id != _VALUE_PATTERN:
        return found
    if not any(PATCH_GRAMMAR.search(body) for body in texts):
        return found
    return _BY_ID[_EDIT_PATTERN], found[1], MEANING_CONFIDENCE


_VALUE_PATTERN = "EI/PARAM_INVALID_VALUE/001"


def _refusal_reading(
    found: tuple[Pattern, dict[str, str], float] | None, texts: list[str], *, ran: bool
) -> tuple[Pattern, dict[str, str], float] | None:
    """A network failure read from the words of the failed action ("Failed to fetch URL: ...")
    whose message states a refusal (the permission cue: "Domain 'x' is blocked", "Access to
    private/internal IP address ... is blocked") is the refusal: the tool's policy stopped the
    request before it reached the network, and retrying will not help. A command's output is
    about the command's input, not this call's."""
    if ran or found is None or found[0].category is not Category.NETWORK_ERROR:
        return found
    if cue_of(texts) != _PERMISSION_PATTERN:
        return found
    return _BY_ID[_PERMISSION_PATTERN], found[1], MEANING_CONFIDENCE


_PERMISSION_PATTERN = "EI/PERMISSION_DENIED/001"


#: The readings a failed call's own facts overrule (`_call_fact_reading`): a failure of no
#: known kind, or a value, a file or a thing already there that a family's common words took the
#: quoted text for.
_CALL_FACT_OVERRULES = frozenset(
    {
        Category.COMMAND_FAILED,
        Category.PARAM_INVALID_VALUE,
        Category.FILE_NOT_FOUND,
        Category.FILE_EXISTS,
    }
)


def _call_fact_reading(
    found: tuple[Pattern, dict[str, str], float] | None,
    texts: list[str],
    tool: Tool | str | None,
    metadata: Mapping[str, Any] | None,
) -> tuple[Pattern, dict[str, str], float] | None:
    """A failure read by what it repeats of the call (`call_facts`): the edit's own search text
    quoted back is the edit's (moatless-tools' "String 'OLD' not found in F"); the very tool the
    call named said not to be there is a missing tool (Notion's "Method NAME not found"); a name
    or an id the call passed, repeated in a failure of no known kind, is that value refused
    (Kilo Code's 'Cannot switch to subagent "explore"', the Agents SDK's "PTY session not found:
    14"). `metadata["search_texts"]` holds the call's search texts, `metadata["argument_values"]`
    its names and ids (`call_facts.argument_values`); the tool is the call's."""
    if found is not None and found[0].category not in _CALL_FACT_OVERRULES:
        return found
    groups = found[1] if found is not None else {}
    searched = metadata.get("search_texts") if metadata else None
    if (
        found is not None
        and isinstance(searched, list | tuple)
        and any(quotes_one_of(body, [s for s in searched if isinstance(s, str)]) for body in texts)
    ):
        return _BY_ID[_EDIT_PATTERN], groups, MEANING_CONFIDENCE
    name = _tool_name(tool)
    if name and any(names_called_tool_missing(body, name) for body in texts):
        return _BY_ID[_MISSING_TOOL_PATTERN], {**groups, "tool": name}, MEANING_CONFIDENCE
    passed = metadata.get("argument_values") if metadata else None
    shell = bool(metadata and metadata.get("command"))  # (a command's failure is its program's)
    if (
        found is not None
        and found[0].category is Category.COMMAND_FAILED
        and not shell
        and isinstance(passed, list | tuple)
        and any(repeats_one_of(body, [v for v in passed if isinstance(v, str)]) for body in texts)
    ):
        return _BY_ID[_VALUE_PATTERN], groups, MEANING_CONFIDENCE
    return found


_EDIT_PATTERN = "EI/DIFF_MATCH_FAILED/001"
_MISSING_TOOL_PATTERN = "EI/TOOL_NOT_FOUND/001"


def _cue_reading(
    found: tuple[Pattern, dict[str, str], float], texts: list[str]
) -> tuple[Pattern, dict[str, str], float]:
    """A reading made by a status or a machine code alone (`STATUS_CONFIDENCE`), or a model
    server's refusal of the request read from its envelope alone, refined by the category cue
    the message states (`meanings.cue_of`): the status says that it failed, the words say what.
    A refused request takes only a cue about the request's size, a limit or the tool list
    (`_REFUSED_REQUEST_CUES`): its other words are about the request's own fields ("`top_n_tokens`
    != 0 is not allowed"). A message that is only the status's own name (JSON-RPC's "Invalid
    request parameters" for -32602) refines nothing."""
    by_status = found[2] == STATUS_CONFIDENCE
    refused = found[0].id == REQUEST_REFUSED_PATTERN_ID and found[2] == ENVELOPE_CONFIDENCE
    if not (by_status or refused) or not texts or _STATUS_NAME_ONLY.fullmatch(texts[0]):
        return found  # (the innermost message, what the layers around it wrap, names nothing)
    cued = cue_of(texts)
    if cued is None or cued == found[0].id:
        return found
    pattern = _BY_ID[cued]
    if refused and pattern.category not in _REFUSED_REQUEST_CUES:
        return found
    return pattern, found[1], MEANING_CONFIDENCE


#: The categories a cue may give a request a model server refused (see `_cue_reading`).
_REFUSED_REQUEST_CUES = frozenset(
    {
        Category.CONTEXT_OVERFLOW,
        Category.RATE_LIMITED,
        Category.TIMEOUT,
        Category.TOOL_NOT_FOUND,
        Category.MCP_TOOL_MISSING,
    }
)
#: A message that only names its status: JSON-RPC 2.0's standard messages, HTTP's reason
#: phrases; or a code alone.
_STATUS_NAME_ONLY = re.compile(
    r"(?:invalid (?:request )?param(?:eter)?s|invalid request|method not found|parse error"
    r"|internal error|not found|bad request|[\w.:-]+)\.?",
    re.IGNORECASE,
)


def _states_no_cause(found: tuple[Pattern, dict[str, str], float]) -> bool:
    """The reading is a failure of no known kind: stated plainly, or only by a status."""
    pattern, _, confidence = found
    return pattern.id == PLAIN_FAILURE_PATTERN_ID or confidence < pattern.text_confidence


#: The generic readings a stated cause refines.
_MEANING_READABLE = frozenset({"EI/COMMAND_FAILED/001", PLAIN_FAILURE_PATTERN_ID})
#: Confidence of a reading by a meaning class: the cause's common words, not a source's wording.
MEANING_CONFIDENCE = 0.55


def _test_run_reading(
    found: tuple[Pattern, dict[str, str], float], texts: list[str]
) -> tuple[Pattern, dict[str, str], float]:
    """A test runner's report of failed tests is the suite's failure, whatever a failing test
    raised inside it (a timeout, a missing file, a refused connection)."""
    if _reports_a_test_run(texts):
        return _BY_ID[_TEST_RUN_PATTERN], found[1], found[2]
    return found


def _reports_a_test_run(texts: list[str]) -> bool:
    return any(report.search(body) for body in texts for report in TEST_RUN_FAILED)


#: A failed test run: the command ran and reported errors.
_TEST_RUN_PATTERN = "EI/COMMAND_FAILED/001"

#: Categories that blame the arguments of the call itself; inside a program's crash report (see
#: `PROGRAM_CRASH_FRAMING`) the same words describe that program's own input.
_CALL_ARGUMENT_CATEGORIES = frozenset(
    {
        Category.INVALID_JSON_ARGUMENTS,
        Category.PARAM_INVALID_VALUE,
        Category.PARAM_MISSING,
        Category.PARAM_TYPE_MISMATCH,
    }
)


#: Categories about the agent's own tools: a program's output that says "unknown tool" (ninja's
#: `ninja: fatal: unknown tool 'graphviz2'`, a subtool of its own) is that program's failure.
_AGENT_TOOL_CATEGORIES = frozenset({Category.TOOL_NOT_FOUND, Category.MCP_TOOL_MISSING})


def _without_warnings(body: str) -> str:
    """`body` without its warning lines (`wordings.WARNING_LINE`), so that a warning never
    decides over the error after it; `body` unchanged when only warnings (or nothing) is left."""
    kept = WARNING_LINE.sub("", body)
    return kept if kept.strip() else body


def _timeout_kill(text: object, env: Envelope) -> str | None:
    """A command run under `timeout(1)` that the timeout killed, in a command-result format that
    states no exit status (`exit_status.killed_by_timeout`)."""
    if env.exit_code is None and isinstance(text, str) and killed_by_timeout(text):
        return "EI/TIMEOUT/001"
    return None


def _command(metadata: Mapping[str, Any] | None, text: object) -> str | None:
    """The shell command whose status the text reports: the caller's (`metadata["command"]`, the
    call's arguments) or the one a command-result format printed beside the output."""
    command = metadata.get("command") if metadata else None
    if isinstance(command, str):
        return command
    return command_in_text(text) if isinstance(text, str) else None


def _bounded(text: object) -> object:
    if isinstance(text, str):
        return _scan_window(text)
    if isinstance(text, BaseException | bytes):
        return _scan_window(error_text(text))
    return text


def _finish(
    pattern: Pattern,
    groups: Mapping[str, str],
    confidence: float,
    env: Envelope,
    tool: Tool | str | None,
    meta_param: str | None,
    meta_tool: str | None,
) -> Classification:
    failed_tool = safe_identifier(env.tool)
    requested = safe_identifier(groups.get("tool")) or meta_tool
    if pattern.category is Category.TOOL_NOT_FOUND:
        requested = requested or failed_tool
        if (
            env.mcp
            or env.server
            or _is_mcp_name(requested)
            or _is_mcp_name(_tool_name(tool))
            or _is_mcp_name(failed_tool)
        ):
            pattern = _MCP_PATTERN
    if pattern.category is Category.NETWORK_ERROR and env.mcp_protocol_error:
        pattern = _BY_ID["EI/MCP_TOOL_MISSING/002"]
    if pattern.id == "EI/FILE_NOT_FOUND/001" and env.status == 404:
        pattern = _BY_ID["EI/NETWORK_ERROR/001"]  # "HTTP Error 404: File not found" is a URL
    available = tuple(n for n in env.available_tools if safe_identifier(n))
    return Classification(
        pattern.category,
        pattern.id,
        confidence,
        pattern.variant,
        param=safe_identifier(groups.get("param")) or safe_identifier(env.param) or meta_param,
        requested_tool=requested,
        failed_tool=failed_tool,
        available_tools=available,
    )


#: The engine `classify_error` uses: every wording on.
DEFAULT_CLASSIFIER = Classifier()


def classify_error(
    text: object,
    tool: Tool | str | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> Classification:
    """Classify one tool error: structural flags in `metadata` first, then the error itself.

    `text` is the error as the tool or agent produced it: a string (plain, JSON, tagged or
    prefixed), a decoded JSON value (an MCP result, an error body) or an exception.
    `metadata` may carry `flag` / `flags` (see `Flag`), `param` and `tool` from preflight or the
    argument parser. `tool` is the called tool (a name or `Tool`); it does not change the
    category, only fills in names. Unknown input gives `UNCLASSIFIED` (confidence 0.0).
    """
    if metadata is None and isinstance(text, str) and (tool is None or isinstance(tool, str)):
        return _classify_string(text, tool)
    return DEFAULT_CLASSIFIER.classify(text, tool, metadata)


@functools.lru_cache(maxsize=CACHE_SIZE)
def _classify_string(text: str, tool: str | None) -> Classification:
    return DEFAULT_CLASSIFIER.classify(text, tool)


#: Tool names that route through an MCP server (Claude Code `mcp__server__tool`, Roo/Cline
#: `use_mcp_tool`): a "tool not found" for these is a missing MCP tool.
_MCP_CALLER_TOOLS = frozenset({"use_mcp_tool", "access_mcp_resource"})
_MCP_PATTERN = next(p for p in PATTERNS if p.id == "EI/MCP_TOOL_MISSING/001")


def _is_mcp_name(name: str | None) -> bool:
    return bool(name) and (str(name).startswith("mcp__") or name in _MCP_CALLER_TOOLS)
