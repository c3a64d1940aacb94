"""Envelopes: the wrappers agents, SDKs and servers put around a tool error, taken apart.

This module owns the structural reading of an error before any wording is matched: JSON error
bodies (`{"error": {...}}`, `{"status": "error", ...}`, OpenAI/vLLM `{"object": "error"}`, and the
Python reprs the openai and anthropic clients print: `Error code: 400 - {'error': ...}`), MCP
results (`{"content": [...], "isError": true}`) and JSON-RPC error responses, XML-like tags
(`<tool_use_error>`, `<error>`, `<error_details>`, `<exception>`, `<returncode>`, `<output>`),
agent prefixes ("Error executing tool X:", "Invalid input for tool X:", "MCP error -32602:", ...),
the command-result formats around shell output (Roo Code, gemini-cli, Codex, Claude Code,
mini-swe-agent), validation lists (zod issues, pydantic error lists and their text forms, AJV,
jsonschema, jsonschema-go, @cfworker/json-schema and LangChain lines) and HTTP status or exit
codes, SDK exception class names (`openai.RateLimitError`), and the request field a model server
names as refused (`"param": "tools[0].function.parameters"`, vLLM's `(parameter=top_p, value=0)`).
The result is an `Envelope`: the inner messages (innermost first) and what the structure said
(tool, server, field, status, exit code, machine error types, validation issues, available tools,
refused request field).

It never classifies (that is `classify`) and never raises: text it cannot take apart is one
message. Every walk is bounded (depth, items, decoded size, candidates), so hostile nesting or a
huge log costs little.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

#: Layers peeled from one text (prefix, tag, JSON body, ...): deep enough for
#: `{"content": [{"text": "MCP error -32602: Input validation error: ... [zod issues]"}]}`.
MAX_LAYERS = 10
#: Nesting walked inside one decoded JSON value, counting the JSON strings decoded on the way:
#: three envelopes around a message (an MCP result around an error body around another) take
#: more than 8.
MAX_JSON_DEPTH = 16
#: List items read per list.
MAX_ITEMS = 32
#: Longest text decoded as JSON; longer bodies are payload, not envelope.
MAX_DECODE_CHARS = 131_072
#: Embedded JSON values tried per text ("Value: {...}. Error message: [...]").
MAX_EMBEDDED_CANDIDATES = 12
#: A longer text is read as its head and tail only (messages come first or last in a log).
MAX_TEXT_HEAD = 16_384
MAX_TEXT_TAIL = 4_096
#: Names kept from an "Available tools: ..." list.
MAX_AVAILABLE = 256

IssueKind = Literal["missing", "type", "value", "json"]


@dataclass(frozen=True, slots=True)
class Issue:
    """One entry of a validation list: the field, what was wrong, and its message."""

    param: str | None
    kind: IssueKind
    message: str = ""


@dataclass(slots=True)
class Envelope:
    """What the wrappers around an error said.

    `messages` holds every layer's text, outermost first (`texts()` gives them innermost
    first); `mcp` is set by an MCP result shape or error, `mcp_protocol_error` only by an
    "MCP error -NNNNN" raised by the client or server itself (not a tool's own failure).
    """

    messages: list[str] = field(default_factory=list)
    tool: str | None = None
    server: str | None = None
    param: str | None = None
    status: int | None = None
    exit_code: int | None = None
    codes: list[str] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)
    available_tools: list[str] = field(default_factory=list)
    mcp: bool = False
    mcp_protocol_error: bool = False
    #: The text is a command's output as an agent reports it, whether or not an exit status is
    #: shown (aider's "I ran this command: ... And got this output:").
    command_output: bool = False
    #: The field of the request a model server refused, as a dotted path ("tools.0.function.name",
    #: "temperature"): the server's `param`, vLLM's `(parameter=...)`, a path the message names.
    request_param: str | None = None
    #: A status field said the call failed ("status": "error"), whatever its message says.
    failed: bool = False
    #: The text says the tool's own output failed its schema: any validation list in it is about
    #: what the tool returned, not the call's arguments.
    output_rejected: bool = False

    #: The layers that were JSON whose values gave messages of their own: their text is
    #: structure (keys, quotes, the MCP content block around "Method not found"), read through
    #: those messages, never as one.
    decoded: set[str] = field(default_factory=set)

    def texts(self) -> list[str]:
        """The messages, innermost (most specific) first, without repeats; a decoded JSON layer
        is left out when its values gave messages."""
        seen: set[str] = set()
        out: list[str] = []
        for text in reversed(self.messages):
            key = text.strip()
            if text in self.decoded:
                continue
            if key and key not in seen:
                seen.add(key)
                out.append(key)
        return out


# --- prefixes and tags ----------------------------------------------------------------------

_TOOL = r"[`'\"]?(?P<tool>[A-Za-z_][\w.\-]{0,63})[`'\"]?"

#: Agent prefixes in front of the real message: (regex, what the match says structurally).
_PREFIXES: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.IGNORECASE | re.DOTALL)
    for p in (
        r"^\s*(?:API )?Error(?: code)?:? (?P<status>[45]\d\d)\b\s*[-:]?\s*",
        # a status line that is the whole first word: "402 This request requires ...", "400 {...}"
        r"^\s*(?P<status>[45]\d\d)\s+(?=[A-Z{\[\"])",
        r"^\s*MCP error (?P<mcp>-?\d+):\s*",
        r"^\s*Input validation error:\s*(?:Invalid arguments for tool " + _TOOL + r":\s*)?",
        r"^\s*Invalid (?:input|arguments) for (?:tool )?" + _TOOL + r":\s*",
        r"^\s*The (?:" + _TOOL + r" )?tool was called with invalid arguments:\s*",
        r"^\s*The arguments provided to the tool are invalid:\s*",
        # LM Studio's `.act`: a call its checkParameters refused, then the validator's message
        r"^\s*Failed to parse arguments for tool " + _TOOL + r":\s*(?=\S)",
        r"^\s*Error (?:executing|invoking|calling|running) "
        r"(?:tool |function |request to team member )?"
        + _TOOL
        + r"(?: with (?:arguments|kwargs) \{.*?\})?(?: with error)?:\s*",
        r"^\s*An error occurred while (?:running the tool|parsing tool arguments)\.?"
        r"(?: Please try again(?: with valid JSON)?\.)?\s*(?:Error:\s*)?",
        r"^\s*The tool execution failed(?: with the following error)?:?\s*",
        # CrewAI's tool_usage_exception: "I encountered an error while trying to use the tool. This
        # was the error: {error}.\n Tool {tool} accepts these inputs: ..." (the tail is a suffix)
        r"^\s*I encountered an error while trying to use the tool\. This was the error:\s*",
        # VS Code Copilot Chat's `toolCallErrorToResult`: a thrown tool error as the model sees it
        r"^\s*ERROR while calling tool:\s*",
        # an operation named before its failure's cause: "String replacement failed: Could not
        # find matching text to replace" (the cause is the message; the operation says only that
        # it failed)
        r"^\s*[A-Z][a-z]+(?: [a-z]+){0,2} failed:\s*(?=\S)",
        # the same with the operation as a gerund: "Error creating cron job: Invalid step: \"0\""
        # (Qwen Code), "Error updating task: Cannot close task t-7 ..." (gemini-cli)
        r"^\s*Error (?!executing\b|invoking\b|calling\b|running\b)[a-z]+ing (?:[\w-]+ ){0,3}?"
        r"[\w-]+:\s*(?=\S)",
        # a failure, advice, then its cause: "Failed to apply edit using Fast Apply. Please disable
        # the Fast Apply experimental feature if this error persists. Request timed out." (Kilo)
        r"^\s*(?:Failed to|Unable to|Could not) [^\n.]{1,80}\.\s+(?:Please|Try|Check|Consider) "
        r"[^\n]{1,200}?\.\s+(?=[A-Z])",
        r"^\s*(?:Error: )?(?:Invalid parameters provided|Tool call execution failed)\. Reason:\s*",
        r"^\s*Tool call error:\s*",
        r"^\s*Code execution failed at line .*? due to: (?:\w+Error: )?",
        r"^\s*Type validation failed: Value: .*?\.\nError message:\s*",
        r"^\s*InputValidationError: " + _TOOL + r" failed due to the following issues?:\s*",
        r"^\s*Unable to apply diff to file: [^\n]*\n\s*",
        r"^\s*File: [^\n]*\nError:\s*",
        # command-result formats around a shell tool's output: Roo Code's sentence, gemini-cli's
        # and Qwen Code's `Command:`/`Directory:`/`Output:` fields, an exit-status header line
        # (Codex `Exit code: N` + `Wall time:`, Claude Code `Error: Exit code N`)
        r"^\s*Command executed in terminal.{0,400}?\nOutput:\n",
        # aider's /run message: the command, then its output, with no exit status
        r"^\s*I ran this command:\n\n[^\n]*\n\nAnd got this output:\n(?P<ran>)",
        r"^\s*(?:Command: [^\n]*\n)?(?:Directory: [^\n]*\n)?Output: ",
        r"^\s*(?:Error: )?(?:Exit code|Process exited with code)[: ]\s*-?\d+\s*\n"
        r"(?:(?:Wall time|Duration|Total output lines|Original token count)[^\n]*\n){0,4}"
        r"(?:Output:\s*\n)?",
        r"^\s*(?:AI_)?(?:Tool|Model|Agent)?\w*Error:\s*(?=\S)",
        # a markdown heading over the message: an MCP server's section title ("### Result",
        # "# click response"), the message under it
        r"^\s*#{1,6} [^\n]{1,60}\n+(?=\S)",
        # a lead-in in words that only say an error happened, then its message, whoever's
        # ("Encountered error:", "Execution error in search_wiki:", "Unexpected exception:",
        # "Tool execution error:"); a lead-in that names what failed ("MCP process error:",
        # "Failed to start extension:") says more than its message and stays
        r"^\s*(?:(?:an?|the|encountered|unexpected|unhandled|uncaught|unknown|internal|runtime"
        r"|execution|invocation|tool|function|call|caught|got|raised|with) ){1,3}"
        r"(?:error|exception|failure)(?: (?:in|from|while|during|calling|executing|running)"
        r" [\w.`'\"-]{1,64})?:\s*(?=\S)",
        r"^\s*(?:Error|ERROR|error)\s*:\s*",
        r"^\s*\[ERROR\]\s*",
    )
)

#: A markdown heading at a line's start: MCP servers answer in sections ("### Result", then
#: "### Page state" with the page's console), each section read as a message of its own, the first
#: first (see `_Reader._siblings`).
_SECTION = re.compile(r"(?m)^(?=#{1,6} \S)")

#: Closing remarks agents append after the message; they carry no signal.
_SUFFIXES = re.compile(
    r"\s*(?:\n\s*Please fix (?:your mistakes|the error and try again)\.?"
    r"|\n\s*Please try again or (?:use another tool|request to another team member)"
    r"|\n\nFix the errors and try again\.|Retrying\.\.\."
    r"|\n\s*Please check your input and try again\."
    # OpenHands' ConversationMemory after every ErrorObservation
    r"|\n\[Error occurred in processing last action\]"
    r"|\.?\n Tool [\w.\-]{1,64} accepts these inputs: [\s\S]*)\s*$",
    re.IGNORECASE,
)

#: Tags around the message: agents' error tags, mini-swe-agent's `<output>`, Gemini CLI's
#: `<untrusted_context>` (wrapUntrusted, around a shell result's Output/Exit Code lines).
_TAG = re.compile(
    r"<(?P<tag>tool_use_error|error|error_details|exception|bash_metadata|output"
    r"|untrusted_context)>"
    r"\s*(?P<body>.*?)\s*</(?P=tag)>",
    re.DOTALL,
)
_RETURNCODE = re.compile(r"<returncode>\s*(-?\d+)\s*</returncode>")
_EXIT = re.compile(
    r"(?:Exit Code:|exit code\(|exit code:?|exited with code|\"exit_?code\":|returncode[=:])"
    r"\s*(-?\d+)",
    re.IGNORECASE,
)
_STATUS = re.compile(
    r"(?:HTTP/\d(?:\.\d)? |HTTP (?:error )?|status(?: code)?:? |\(Status: |received status "
    r"|Request failed with status code |Error code: |API Error: |\"code\":\s*"
    r"|awaiting response\.\.\. |(?-i:ERROR )(?=\d{3}: )|(?:Client|Server) error '"
    # curl's `-f` ("curl: (22) The requested URL returned error: 401")
    r"|The requested URL returned error: )([45]\d\d)\b"
    # requests' HTTPError ("401 Client Error: Unauthorized for url: ..."), status first
    r"|\b([45]\d\d) (?:Client|Server) Error: "
    # a status beside its reason phrase, in whatever sentence: an HTTP status line by its shape
    # (Go's clients: "GET https://api.github.com/...: 404 Not Found []", "403 Forbidden")
    r"|(?<![\w.:/-])([45]\d\d) (?-i:Not Found|Unauthorized|Forbidden|Bad Request|Too Many Requests"
    r"|Internal Server Error|Service Unavailable|Bad Gateway|Gateway Time-?out|Request Time-?out"
    r"|Payload Too Large|Request Entity Too Large|Conflict|Unprocessable Entity|Gone"
    r"|Method Not Allowed|Precondition Failed|Not Implemented)\b",
    re.IGNORECASE,
)
_AVAILABLE = re.compile(
    r"(?:Available(?: enabled)? tools|try one of|should be one of|Did you mean one of)"
    r"[:\s]*\[?(?P<names>[^\]\n]{1,4000})",
    re.IGNORECASE,
)
_NAME_IN_LIST = re.compile(r"[A-Za-z_][\w.\-]{0,63}")
_SERVER = re.compile(r"on server [`'\"]?(?P<server>[\w.\-]{1,64})", re.IGNORECASE)
#: The exception classes the model API clients raise for an HTTP error ("openai.RateLimitError:",
#: "anthropic.OverloadedError", "litellm.BadRequestError", "APIStatusError: Error code: 402"):
#: each names the status the server answered, so it is read as a machine code.
_SDK_ERROR_CLASS = re.compile(
    r"(?<![\w.])(?:(?:openai|anthropic|litellm|groq|mistralai|together|fireworks)\.)?"
    r"(?P<cls>(?:BadRequest|Authentication|PermissionDenied|NotFound|Conflict|UnprocessableEntity"
    r"|RateLimit|InternalServer|Overloaded|APITimeout|APIConnection|APIStatus|ServiceUnavailable"
    r"|ContextWindowExceeded|BudgetExceeded)Error)\b"
)
#: The request field a model server names as refused, in its message: vLLM's "(parameter=top_p,
#: value=0)", TGI's "Input validation error: `temperature` must be ...", OpenAI's "Invalid
#: 'tools[0].function.name': ..." and "Missing required parameter: 'messages[1].content'",
#: Anthropic's "tools.0.custom.name: String should match ...", Gemini's "... at
#: 'tools[0].function_declarations[5].parameters'". A quoted name without an index is a tool's own
#: argument ("Invalid 'path'", "Invalid 'options.mode'"), not a request path.
_REQUEST_PARAM = re.compile(
    r"\(parameter=(?P<vllm>[A-Za-z_][\w.\[\]]{0,120})"
    r"|^Input validation error: `(?P<tgi>[A-Za-z_]\w{0,63})` "
    r"|\b(?:Invalid(?: value for)?|Missing required parameter:|Unknown parameter:|Unrecognized "
    r"request arguments? supplied:) '(?P<openai>[A-Za-z_]\w*\[\d+\][\w.\[\]]{0,120})'"
    r"|^(?P<dotted>(?:tools|messages|system|tool_choice)\.\d+(?:\.\w+){0,8}):"
    r"|\bat '(?P<gemini>(?:tools|contents|messages)\[\d+\][\w.\[\]]{0,160})'",
    re.MULTILINE,
)
_PATH_INDEX = re.compile(r"\[(\d+)\]")
#: A machine type in an error body an agent printed so that it no longer parses (Zed's
#: `("object":"error","message":"...","type":"invalid_request_message_order")`, a body quoted
#: inside a string): read only where the text also has the body's "message".
_MANGLED_BODY_CODE = re.compile(r'"(?:type|code)"\s*:\s*"(?P<code>[a-z][a-z0-9_]{2,60})"')


def _dotted(path: str) -> str:
    """A request path with its indexes as segments ("tools[2].parameters": "tools.2.parameters")."""
    return _PATH_INDEX.sub(r".\1", path).strip(".")[:120]


# --- validation lists in text form ----------------------------------------------------------

#: pydantic: "field\n  Field required [type=missing, ...".
_PYDANTIC_LINE = re.compile(
    r"^(?P<loc>[A-Za-z_][\w.\[\]\-]{0,63})\n\s+(?P<msg>[^\n\[]*?)\s*\[type=(?P<type>\w+)",
    re.MULTILINE,
)
#: LangChain ToolNode: " city: Field required".
_COLON_LINE = re.compile(
    r"^\s*(?P<loc>[A-Za-z_][\w.\-]{0,63}): (?P<msg>Field required|Input should be[^\n]*)",
    re.MULTILINE,
)
#: AJV: "params/offset must be number", "params must have required property 'x'".
_AJV_REQUIRED = re.compile(r"must have required property '(?P<loc>[A-Za-z_][\w.\-]{0,63})'")
_AJV_TYPE = re.compile(
    r"params/(?P<loc>[A-Za-z_][\w.\-]{0,63}) must be (?P<kind>(?:equal to one of|[a-z]+))"
)

#: The MCP TypeScript SDK's flattened zod issues: "Invalid arguments for tool X: Required at path;
#: Expected number, received string at limit".
_ZOD_AT_LINE = re.compile(
    r"(?:^|[:;]\s*)(?P<msg>Required|Expected [^;:\n]{1,80}?|Invalid [^;:\n]{1,80}?"
    r"|(?:Number|String|Array) must [^;:\n]{1,80}?|Too (?:big|small)[^;:\n]{0,80}?)"
    r" at (?P<loc>[A-Za-z_][\w.\-]{0,63})(?=\s*(?:;|$))",
    re.MULTILINE,
)
#: zod 4's issues as "path: message", one after another (the MCP TypeScript SDK's "Invalid
#: arguments for tool open_file: mode: Invalid option: expected one of \"read\"|\"write\""):
#: zod 4's own message openings ("Invalid input: expected number, received string", "Too big:",
#: "Unrecognized key:").
_ZOD4_LINE = re.compile(
    r"(?:^|;\s*)(?!(?:error|warning|fatal|note|hint|caution)\b)(?P<loc>[A-Za-z_][\w.]{0,63}): "
    r"(?P<msg>(?:Invalid (?:input|option|string|number): (?:expected|must)|Invalid (?:key|value"
    r"|element) in |Too (?:big|small): expected |Unrecognized keys?: )[^;\n]{0,200})",
    re.IGNORECASE | re.MULTILINE,
)
#: A validation list as bullet lines under a "validation failed" heading (Mastra: "Tool input
#: validation failed for x. Please fix the following errors and try again:\n- days: Too big:
#: expected number to be <=14"): the path, then the validator's message.
_VALIDATION_HEADING = re.compile(r"\bvalidation failed\b", re.IGNORECASE)
#: The tool such a heading names: "Tool input validation failed for weather-tool."
_VALIDATION_FOR = re.compile(
    r"\bvalidation failed for (?:tool )?[`'\"]?(?P<tool>[A-Za-z_][\w\-]{0,63})[`'\"]?(?=[.:\s]|$)",
    re.IGNORECASE,
)
_DASH_LINE = re.compile(
    r"^- (?P<loc>[A-Za-z_][\w.\-]{0,63})(?:\[\d+\][\w.\-]*)?: (?P<msg>[^\n]{1,200})$", re.MULTILINE
)

#: jsonschema's ValidationError text: "Failed validating 'minimum' in schema[...]" names the
#: keyword that failed, "On instance['limit']" the field.
_JSONSCHEMA_KEYWORD = re.compile(
    r"^Failed validating '(?P<keyword>\w+)' in (?P<meta>meta)?schema", re.M
)
_JSONSCHEMA_INSTANCE = re.compile(
    r"^On instance\[['\"](?P<loc>[A-Za-z_][\w.\-]{0,63})['\"]\]", re.M
)
#: google/jsonschema-go's errors, as the MCP Go SDK returns a refused call ("validating
#: \"arguments\": validating root: validating /properties/days: type: ten has type \"string\",
#: want \"integer\"", "validating root: required: missing properties: [\"city\"]"): each schema
#: it descended into, then the keyword that failed and its message.
_JSONSCHEMA_GO = re.compile(
    r"\bvalidating root: (?:validating (?P<path>/[\w/~.\-]{1,200}): )*"
    r"(?:(?P<keyword>[a-z][A-Za-z]{1,30})(?:\[[^\]\n]{0,80}\])?: (?P<msg>[^\n]{0,300})"
    r"|(?P<extra>unexpected additional properties) (?P<names>[^\n]{0,200}))"
)
#: @cfworker/json-schema's errors as LangChain.js details them ("#/required: Instance does not have
#: required property \"city\".", "#/properties/days/type: Instance type \"string\" is invalid."):
#: the schema location, then the keyword that failed.
_CFWORKER_LINE = re.compile(
    r"^(?:Details: )?#(?P<path>(?:/[\w~.\-]+)*?)/(?P<keyword>[a-z][A-Za-z]{1,30}): "
    r"(?P<msg>Instance [^\n]{0,300}|[^\n]{0,300})$",
    re.MULTILINE,
)
#: The `jsonschema` npm package's ValidationError messages, one per line under the root's name, as
#: LM Studio's `.act` returns a refused call ("Failed to parse arguments for tool \"set_mode\":\n
#: params.mode is not one of enum values: fast,accurate", "params requires property \"path\"",
#: "params.overwrite is not of a type(s) boolean"): the property, then the keyword's message.
_JSONSCHEMA_JS_LINE = re.compile(
    r"^(?:params|instance)(?:\.(?P<loc>[A-Za-z_][\w\-]{0,63}))?(?:[.\[]\S*)? "
    r"(?:requires property \"(?P<required>[A-Za-z_][\w.\-]{0,63})\""
    r"|(?P<type>is not of a type\(s\) )"
    r"|is not allowed to have the additional property \"(?P<extra>[A-Za-z_][\w.\-]{0,63})\""
    r"|is not one of enum values|does not match pattern|must be (?:strictly )?(?:greater|less) than"
    r"|does not meet (?:minimum|maximum) length|does not conform to the|is not exactly one from"
    r"|is not any of|must be unique|is not a multiple of)",
    re.MULTILINE,
)
_QUOTED_NAME = re.compile(r"[\"'](?P<name>[A-Za-z_][\w.\-]{0,63})[\"']")
_JSONSCHEMA_REQUIRED = re.compile(
    r"^'(?P<loc>[A-Za-z_][\w.\-]{0,63})' is a required property", re.M
)

_PYDANTIC_TYPE_ERRORS = frozenset(
    {"int_parsing", "float_parsing", "bool_parsing", "decimal_parsing", "int_from_float"}
)
_JSON_TYPES = r"(?:string|number|integer|boolean|array|object|null|bigint|date|map|set)"


def _pydantic_kind(kind: str, message: str = "") -> IssueKind:
    # pydantic's `missing` and, for a validated call (`validate_call`, FastMCP's function tools),
    # `missing_argument`, `missing_keyword_only_argument`, `missing_positional_only_argument`
    if (
        kind == "missing"
        or kind.startswith("missing_")
        or message.strip()
        in (
            "Field required",
            "Missing required argument",
        )
    ):
        return "missing"
    if kind == "json_invalid" or kind.startswith("json_"):
        return "json"
    if kind.endswith("_type") or kind in _PYDANTIC_TYPE_ERRORS:
        return "type"
    if message.startswith("Input should be a valid") and re.match(
        r"Input should be a valid (?:integer|string|number|boolean|list|dictionary|array"
        r"|object|float|tuple|dict)\b",
        message,
    ):
        return "type"
    return "value"


def _zod_kind(issue: Mapping[str, object]) -> IssueKind:
    code = str(issue.get("code", ""))
    message = str(issue.get("message", ""))
    if code == "invalid_type":
        received = str(issue.get("received", ""))
        if received == "undefined" or "received undefined" in message or message == "Required":
            return "missing"
        return "type"
    return "value"


def _loc(value: object) -> str | None:
    if isinstance(value, list | tuple):
        names = [str(v) for v in value if isinstance(v, str) and v != "body"]
        return names[0] if names else None
    return None


def _issue_from_mapping(item: Mapping[str, object]) -> Issue | None:
    """A zod issue (`code` + `path`) or a pydantic error (`type` + `loc`), else None."""
    if "path" in item and "code" in item:
        # an unknown key is named in `keys`, not in `path` (the object that holds it)
        loc = _loc(item.get("path")) or (
            _loc(item.get("keys")) if item.get("code") == "unrecognized_keys" else None
        )
        return Issue(loc, _zod_kind(item), str(item.get("message", "")))
    if "loc" in item and "type" in item:
        message = str(item.get("msg", ""))
        return Issue(_loc(item.get("loc")), _pydantic_kind(str(item["type"]), message), message)
    return None


#: serde's messages about a call's arguments, after the words that say the arguments were being
#: read ("Failed to validate tool parameters: missing field `operations`", "failed to deserialize
#: parameters: unknown variant `kelvin`, expected ..."): what serde names is the field and what was
#: wrong with it, whatever hint the agent adds after it (Amazon Q's "... or has suggested one or
#: more tool that does not exist" is its boilerplate, not the cause).
_SERDE_ISSUE = re.compile(
    r"\b(?:deserializ|pars|validat|decod)\w* (?:the )?(?:tool |function )?(?:param(?:eter)?s"
    r"|arguments|args|input)\b[^\n:]{0,20}: (?:missing field `(?P<missing>[^`\n]{1,64})`"
    r"|unknown field `(?P<unknown>[^`\n]{1,64})`|(?P<variant>unknown variant `)"
    r"|(?P<type>invalid type: )|(?P<value>invalid value: ))",
    re.IGNORECASE,
)


def _serde_issues(text: str) -> list[Issue]:
    m = _SERDE_ISSUE.search(text)
    if m is None:
        return []
    if m["missing"]:
        return [Issue(m["missing"], "missing", m[0])]
    return [Issue(m["unknown"], "type" if m["type"] else "value", m[0])]


def _text_issues(text: str) -> list[Issue]:
    issues = [
        Issue(m["loc"], _pydantic_kind(m["type"], m["msg"]), m["msg"])
        for m in _PYDANTIC_LINE.finditer(text)
    ]
    if issues:
        return issues
    issues = [
        Issue(m["loc"], _pydantic_kind("", m["msg"]), m["msg"]) for m in _COLON_LINE.finditer(text)
    ]
    issues += _zod_at_issues(text) + _jsonschema_issues(text) + _dash_issues(text)
    issues += _jsonschema_go_issues(text) + _cfworker_issues(text)
    issues += _jsonschema_js_issues(text)
    issues += _serde_issues(text)
    issues += [Issue(m["loc"], "missing") for m in _AJV_REQUIRED.finditer(text)]
    for m in _AJV_TYPE.finditer(text):
        kind: IssueKind = "type" if re.fullmatch(_JSON_TYPES, m["kind"]) else "value"
        issues.append(Issue(m["loc"], kind))
    return issues


def _zod_message_kind(message: str) -> IssueKind:
    """What a zod message says was wrong: zod 3 ("Required", "Expected number, received string")
    and zod 4 ("Invalid input: expected number, received undefined") alike."""
    if message == "Required" or message.endswith("received undefined"):
        return "missing"
    if re.match(r"Expected " + _JSON_TYPES, message) or re.search(
        r"expected " + _JSON_TYPES + r", received ", message
    ):
        return "type"
    return "value"


def _zod_at_issues(text: str) -> list[Issue]:
    issues = [
        Issue(m["loc"], _zod_message_kind(m["msg"]), m["msg"]) for m in _ZOD_AT_LINE.finditer(text)
    ]
    if _VALIDATION_HEADING.search(text):
        return issues  # its bullet lines are read by `_dash_issues`
    return issues + [
        Issue(m["loc"], _zod_message_kind(m["msg"]), m["msg"]) for m in _ZOD4_LINE.finditer(text)
    ]


def _dash_issues(text: str) -> list[Issue]:
    if not _VALIDATION_HEADING.search(text):
        return []
    issues: list[Issue] = []
    for m in _DASH_LINE.finditer(text):
        loc = m["loc"].split(".")[0]
        issues.append(Issue(None if loc == "root" else loc, _zod_message_kind(m["msg"]), m["msg"]))
    return issues


def _jsonschema_go_issues(text: str) -> list[Issue]:
    m = _JSONSCHEMA_GO.search(text)
    if m is None:
        return []
    path = m["path"] or ""
    if m["extra"]:
        named = _QUOTED_NAME.search(m["names"])
        return [Issue(named["name"] if named else _schema_property(path), "value", m[0])]
    return _keyword_issue(path, m["keyword"], m["msg"], m[0])


def _cfworker_issues(text: str) -> list[Issue]:
    m = _CFWORKER_LINE.search(text)
    return _keyword_issue(m["path"], m["keyword"], m["msg"], m[0]) if m else []


def _jsonschema_js_issues(text: str) -> list[Issue]:
    issues: list[Issue] = []
    for m in _JSONSCHEMA_JS_LINE.finditer(text):
        if m["required"]:
            issues.append(Issue(m["required"], "missing", m[0]))
        else:
            issues.append(Issue(m["extra"] or m["loc"], "type" if m["type"] else "value", m[0]))
    return issues


def _schema_property(path: str) -> str | None:
    """The property a schema location descends into last ("/properties/days/type": "days")."""
    return path.rsplit("/properties/", 1)[1].split("/")[0] if "/properties/" in path else None


def _keyword_issue(path: str, keyword: str, message: str, line: str) -> list[Issue]:
    """The issue a JSON Schema keyword that failed names: `required` a missing field (the quoted
    name in its message), `type` a type mismatch, any other keyword an invalid value."""
    param = _schema_property(path)
    if keyword in ("required", "dependentRequired"):
        named = _QUOTED_NAME.search(message)
        return [Issue(named["name"] if named else param, "missing", line)]
    kind: IssueKind = "type" if keyword == "type" else "value"
    return [Issue(param, kind, line)]


def _jsonschema_issues(text: str) -> list[Issue]:
    keyword = _JSONSCHEMA_KEYWORD.search(text)
    if keyword is None or keyword["meta"]:
        return []  # a schema that failed the metaschema is the schema's fault, not the value's
    if keyword["keyword"] == "required":
        required = _JSONSCHEMA_REQUIRED.search(text)
        return [Issue(required["loc"] if required else None, "missing")]
    instance = _JSONSCHEMA_INSTANCE.search(text)
    kind: IssueKind = "type" if keyword["keyword"] == "type" else "value"
    return [Issue(instance["loc"] if instance else None, kind)]


# --- the walk -------------------------------------------------------------------------------

#: A status given as a name rather than a number (gRPC, Google APIs): upper case with underscores.
_STATUS_NAME = re.compile(r"[A-Z][A-Z_]{2,40}")
#: A redis error reply as redis-cli prints it (and exits 0 after): its first word is the server's
#: error code, at the start of a line ("ERR wrong number of arguments", "(error) WRONGTYPE ...",
#: "AUTH failed: WRONGPASS ..."). Only the codes the server sends: a log line saying "ERR" alone
#: is not one.
_REDIS_REPLY = re.compile(
    r"^(?:Output: |\(error\) |AUTH failed: )?(?P<code>ERR|WRONGTYPE|NOAUTH|NOPERM|WRONGPASS"
    r"|BUSYGROUP|NOGROUP|NOSCRIPT|OOM|EXECABORT|CROSSSLOT|BUSYKEY) (?=[A-Za-z'])",
    re.MULTILINE,
)
#: A tool's own result refused by its output schema ("Tool output validation failed for x. The
#: tool returned invalid output:" (Mastra), "returned structuredContent that does not match the
#: expected outputSchema" (the Vercel AI SDK), "has an output schema but no structured content").
_OUTPUT_REJECTED = re.compile(
    r"\b(?:the )?tool returned (?:an? )?invalid (?:output|result|response)\b"
    r"|\breturned (?:structuredContent|structured content|output|content) that does not match\b"
    r"|\bhas an output schema but no structured content\b|^Returned output: "
    # the MCP Go SDK's and the Java SDK's checks of a tool's structured result
    r"|\bvalidating tool output: |\bTool call result validation failed\b"
    # CrewAI's structured tool: "Failed to validate or serialize output from tool x: ..."
    r"|\bFailed to validate or serialize output from tool\b"
    # the MCP TypeScript SDK client's checks of a tool's structured result (client.ts)
    r"|\bdoes not match the tool's output schema\b|\bFailed to validate structured content\b"
    r"|\bhas an output schema but did not return structured content\b"
    # the server's check of its tool's output, whatever the validator says of it (the MCP
    # Python SDK's "Output validation error: 'x' is a required property", the TypeScript
    # SDK's "Output validation error: Invalid structured content for tool x: ..."; not a
    # subagent's "Output validation failed", the model's own output: gemini-cli/dev18/006)
    r"|^(?:Error: )?Output validation error: |\binvalid structured content\b",
    re.IGNORECASE | re.MULTILINE,
)
#: Keys whose value is the error's message, by name, whatever the shape around them: the common
#: ones, OAuth's `error_description`, Node's and Go's `err`/`errmsg`, a failure's `statusText`.
#: (RFC 9457's `title` is read only in an error body: elsewhere it is a record's.)
_MESSAGE_KEYS = (
    "message",
    "msg",
    "detail",
    "error_message",
    "reason",
    "description",
    "output",
    "error_description",
    "errmsg",
    "err",
    "status_text",
)
#: A key that says by its name that its value tells what failed, whatever the rest of the shape:
#: `exception_info` (mini-swe-agent), `errorDetails`, `failure_reason`, `stderr_message`. A
#: `status` in words ("Command timed out", Continue's) is such a value; a one-word status is a
#: code, read as one above.
_FAILURE_KEY = re.compile(r"error|exception|failure|message|reason|detail|cause|warning")


def _says_what_failed(key: str, value: str) -> bool:
    if key in _CHILD_KEYS:
        return False  # read below, as a nested value
    if key == "status":
        return " " in value.strip()
    return _FAILURE_KEY.search(key) is not None


#: Keys whose value is a nested error: OpenRouter's `metadata.raw` (the provider's own body, as a
#: JSON string), Google's `details` list (`{"reason": "API_KEY_INVALID"}`), a JavaScript error's
#: `cause` and a serialised exception under `exception`.
_CHILD_KEYS = (
    "error",
    "errors",
    "content",
    "text",
    "result",
    "stderr",
    "raw",
    "details",
    "cause",
    "exception",
    # an agent's record of a call and what it returned (Agent Zero's `{"tool_name": ...,
    # "tool_result": ...}` as its history renders it; keys are read folded, without `_`)
    "toolresult",
    "tooloutput",
)
#: The code an error gets when a JSON Schema failed jsonschema's metaschema: the schema (a tool's
#: parameters) is what was refused.
METASCHEMA_CODE = "jsonschema:metaschema"
#: Keys whose string value is the error's machine type, by name: a code, a kind, an errno name, an
#: exception's class (`{"exception_type": "FileNotFoundError"}`, `{"errorCode": "AccessDenied"}`).
_ERROR_CODE_KEYS = (
    "type",
    "code",
    "error_type",
    "errortype",
    "kind",
    "error_code",
    "errno",
    "exception_type",
    "exception_class",
    "error_name",
)
#: A `name` that is an error's class (`{"name": "TimeoutError", "message": ...}`, as a thrown
#: JavaScript error serialises), not a tool's or a record's name.
_ERROR_CLASS_NAME = re.compile(r"[A-Z]\w{0,60}(?:Error|Exception|Fault)")
#: Keys that say by a boolean that the call failed (`{"ok": false, "error": ...}` of Slack's Web
#: API, `{"success": false, "message": ...}`).
_FAILED_FLAG_KEYS = ("ok", "success")


class _Reader:
    """One bounded unwrapping; fills `env`."""

    def __init__(self) -> None:
        self.env = Envelope()
        self.layers = 0

    # strings

    def text(self, text: str, depth: int = 0) -> None:
        if self.layers >= MAX_LAYERS or not text.strip():
            return
        if len(text) > MAX_TEXT_HEAD + MAX_TEXT_TAIL:
            text = text[:MAX_TEXT_HEAD] + "\n" + text[-MAX_TEXT_TAIL:]
        self.layers += 1
        self.env.messages.append(text)
        self._scan_structure(text)
        stripped = text.strip()
        if stripped[:1] == '"' and len(stripped) <= MAX_DECODE_CHARS:
            # a message sent as a JSON string (LM Studio's `.act` sends JSON.stringify of it)
            decoded_text = _decode_string(stripped)
            if decoded_text is not None:
                self.text(decoded_text, depth + 1)
                return
        if stripped[:1] in "{[" and len(stripped) <= MAX_DECODE_CHARS:
            decoded = _decode(stripped)
            if decoded is not None:
                layers = len(self.env.messages)
                self.value(decoded, depth + 1)
                if len(self.env.messages) > layers:
                    self.env.decoded.add(text)
                return
        tag = _TAG.search(text)
        if tag:
            self.text(tag.group("body"), depth + 1)
            return
        sections = _SECTION.split(text)
        if len(sections) > 2:  # a heading or text before the first, and two sections or more
            self._siblings([section for section in sections if section.strip()], depth + 1)
            return
        for prefix in _PREFIXES:
            match = prefix.match(text)
            if match and match.end() < len(text):
                self._note_prefix(match)
                rest = _SUFFIXES.sub("", text[match.end() :])
                self.text(rest, depth + 1)
                return
        trimmed = _SUFFIXES.sub("", text)
        if trimmed != text:
            self.text(trimmed, depth + 1)
            return
        self._embedded(text, depth)

    def _note_prefix(self, match: re.Match[str]) -> None:
        groups = match.groupdict()
        if groups.get("tool") and not self.env.tool:
            self.env.tool = groups["tool"]
        if groups.get("mcp"):
            self.env.mcp = self.env.mcp_protocol_error = True
            _note_jsonrpc_code(self.env, int(groups["mcp"]))
        if groups.get("status") and self.env.status is None:
            self.env.status = int(groups["status"])
        if groups.get("ran") is not None:
            self.env.command_output = True

    def _scan_structure(self, text: str) -> None:
        head = text[:MAX_DECODE_CHARS]
        env = self.env
        if env.exit_code is None:
            code = _RETURNCODE.search(head) or _EXIT.search(head)
            if code:
                env.exit_code = int(code.group(1))
        if env.status is None:
            status = _STATUS.search(head)
            if status:
                env.status = int(next(g for g in status.groups() if g))
        if not env.available_tools:
            listed = _AVAILABLE.search(head)
            if listed:
                names = _NAME_IN_LIST.findall(listed.group("names"))
                env.available_tools = names[:MAX_AVAILABLE]
        if env.server is None:
            server = _SERVER.search(head)
            if server:
                env.server = server.group("server")
        if not env.issues:
            env.issues = _text_issues(head)
        if env.tool is None:
            named = _VALIDATION_FOR.search(head)
            if named:
                env.tool = named.group("tool")
        if not env.output_rejected and _OUTPUT_REJECTED.search(head):
            env.output_rejected = True
        reply = _REDIS_REPLY.search(head)
        if reply and len(env.codes) < MAX_ITEMS:
            env.codes.append("redis:" + reply.group("code"))
        if '"message"' in head:
            for mangled in _MANGLED_BODY_CODE.finditer(head, 0, MAX_TEXT_HEAD):
                if len(env.codes) >= MAX_ITEMS:
                    break
                if mangled["code"] not in env.codes:
                    env.codes.append(mangled["code"])
        sdk = _SDK_ERROR_CLASS.search(head)
        if sdk and len(env.codes) < MAX_ITEMS and sdk["cls"].lower() not in env.codes:
            env.codes.append(sdk["cls"].lower())
        keyword = _JSONSCHEMA_KEYWORD.search(head)
        if keyword and keyword["meta"] and METASCHEMA_CODE not in env.codes:
            env.codes.append(METASCHEMA_CODE)
        if env.request_param is None:
            named = _REQUEST_PARAM.search(head)
            if named:
                env.request_param = _dotted(next(g for g in named.groups() if g))

    def _embedded(self, text: str, depth: int) -> None:
        """JSON values inside prose ("Error message: [...]", "API Error: 400 {...}")."""
        if len(text) > MAX_DECODE_CHARS:
            return
        decoder = json.JSONDecoder()
        tried = 0
        literal_tried = False  # one Python-literal parse per text: it is the costlier decoder
        for match in re.finditer(r"[\[{]", text):
            if tried >= MAX_EMBEDDED_CANDIDATES or self.layers >= MAX_LAYERS:
                return
            start = match.start()
            tried += 1
            try:
                value, _ = decoder.raw_decode(text, start)
            except (ValueError, RecursionError):  # hostile nesting is not an envelope
                # the openai client's "Error code: 400 - {'error': {...}}": a Python repr
                if literal_tried or match.group() != "{":
                    continue
                literal_tried = True
                literal = _python_literal(text[start : text.rfind("}") + 1])
                if literal is None:
                    continue
                value = literal
            if isinstance(value, list) and _issue_list(value):
                self.value(value, depth + 1)
                return
            if isinstance(value, Mapping) and _error_body(value):
                self.value(value, depth + 1)
                return

    # JSON values

    def value(self, value: object, depth: int) -> None:
        if depth > MAX_JSON_DEPTH:
            return
        if isinstance(value, str):
            self.text(value, depth)
        elif isinstance(value, list):
            issues = _issue_list(value)
            if issues:
                self.env.issues = issues
                first = value[0]
                if self.env.request_param is None and isinstance(first, Mapping):
                    self.env.request_param = _body_loc(first.get("loc"))
                self.env.messages.extend(i.message for i in issues if i.message)
                return
            self._siblings(value[:MAX_ITEMS], depth + 1)
        elif isinstance(value, Mapping):
            self._mapping(value, depth)

    def _siblings(self, items: list[object], depth: int) -> None:
        """Read a list's items so that `texts()` gives the first item's messages first: an MCP
        result's first content block is its message, the blocks after it context (a page's
        console, a snapshot) whose words must not decide over it. `texts()` reads the messages
        last-first (innermost first within one item), so the items' runs are stored last item
        first."""
        runs: list[list[str]] = []
        for item in items:
            start = len(self.env.messages)
            self.value(item, depth)
            runs.append(self.env.messages[start:])
            del self.env.messages[start:]
        for run in reversed(runs):
            self.env.messages.extend(run)

    def _mapping(self, obj: Mapping[object, object], depth: int) -> None:
        folded = {str(k).lower().replace("_", ""): v for k, v in obj.items()}
        env = self.env
        if "iserror" in folded or ("content" in folded and "structuredcontent" in folded):
            env.mcp = True
        if folded.get("iserror") is True:
            env.failed = True  # the runtime's own flag: a failure, of some kind, whatever it says
        if folded.get("jsonrpc") == "2.0" and isinstance(folded.get("error"), Mapping):
            env.mcp = True  # a JSON-RPC error response: what an MCP server answers a tools/call
        issue = _issue_from_mapping({str(k): v for k, v in obj.items()})
        if issue is not None and not env.issues:
            env.issues = [issue]
        # an OpenAI-shaped error object names the request field it refused in `param`; a
        # FastAPI validation error's `loc` starts with "body" when it is the request's field
        param = folded.get("param")
        if isinstance(param, str) and param and "message" in folded and env.request_param is None:
            env.request_param = _dotted(param)
        if env.request_param is None:
            env.request_param = _body_loc(folded.get("loc"))
        reason = folded.get("reason")
        if (
            isinstance(reason, str)
            and _STATUS_NAME.fullmatch(reason)
            and len(env.codes) < MAX_ITEMS
        ):
            env.codes.append(reason)  # Google's ErrorInfo reason: "API_KEY_INVALID"
        for key in ("tool", "toolname"):
            if isinstance(folded.get(key), str) and env.tool is None:
                env.tool = str(folded[key])
        if isinstance(folded.get("server"), str):
            env.server = str(folded["server"])
        available = folded.get("availabletools")
        if isinstance(available, list) and not env.available_tools:
            env.available_tools = [str(t) for t in available[:MAX_AVAILABLE] if isinstance(t, str)]
        error_class = folded.get("name")
        if (
            isinstance(error_class, str)
            and _ERROR_CLASS_NAME.fullmatch(error_class)
            and len(env.codes) < MAX_ITEMS
        ):
            env.codes.append(error_class)
        for key in _ERROR_CODE_KEYS:
            code = folded.get(key.replace("_", ""))
            if isinstance(code, str) and len(env.codes) < MAX_ITEMS:
                env.codes.append(code)
            elif isinstance(code, int) and not isinstance(code, bool) and 400 <= code < 600:
                env.status = env.status or code
            elif isinstance(code, int) and env.mcp and len(env.codes) < MAX_ITEMS:
                _note_jsonrpc_code(env, code)
        status = folded.get("status")
        if folded.get("object") == "error":
            env.failed = True  # OpenAI's, vLLM's and Notion's `{"object": "error", ...}` body
        if isinstance(status, str) and status.lower() == "denied":
            env.codes.append("denied")
        elif isinstance(status, str) and status.lower() in ("error", "failed", "failure"):
            env.failed = True  # {"status": "error", "message": "..."}: a failure, of some kind
        elif isinstance(status, str) and _STATUS_NAME.fullmatch(status):
            env.codes.append(status)  # a gRPC / Google API status: "DEADLINE_EXCEEDED"
        elif (
            isinstance(status, int)
            and not isinstance(status, bool)
            and 400 <= status < 600
            and env.status is None
        ):
            env.status = status  # RFC 9457's problem details: {"status": 404, "title": ...}
        if any(folded.get(key) is False for key in _FAILED_FLAG_KEYS) and _error_body(obj):
            env.failed = True
        # an HTTP status the body states for itself (TGI's stream error event)
        http_status = folded.get("httpstatuscode", folded.get("statuscode"))
        if isinstance(http_status, int) and 400 <= http_status < 600 and env.status is None:
            env.status = http_status
        for key in ("exitcode", "returncode"):
            exit_code = folded.get(key)
            if isinstance(exit_code, int) and not isinstance(exit_code, bool):
                env.exit_code = exit_code if env.exit_code is None else env.exit_code
        titled = ("title",) if _error_body(obj) else ()
        named = tuple(key.replace("_", "") for key in (*_MESSAGE_KEYS, "feedback", *titled))
        for key in named:
            message = folded.get(key)
            if isinstance(message, str):
                self.text(message, depth + 1)
        for key, value in list(folded.items())[:MAX_ITEMS]:
            if key not in named and isinstance(value, str) and _says_what_failed(key, value):
                self.text(value, depth + 1)
        metadata = folded.get("metadata")  # after the message: what it carries is nested deeper
        if isinstance(metadata, Mapping):
            self._mapping(metadata, depth + 1)
        for key in _CHILD_KEYS:
            child = folded.get(key)
            if child is not None and not isinstance(child, bool):
                self.value(child, depth + 1)


#: The codes JSON-RPC 2.0 reserves for itself (-32768 to -32000): what an MCP server or client says
#: about the request as such (no such method, unreadable parameters), before any message.
JSONRPC_RESERVED_CODES = range(-32768, -31999)


def _note_jsonrpc_code(env: Envelope, code: int) -> None:
    """Keep a JSON-RPC error code (`jsonrpc:-32601`) among the envelope's codes: the classifier
    reads it like an HTTP status, when no wording says more."""
    name = f"jsonrpc:{code}"
    if code in JSONRPC_RESERVED_CODES and name not in env.codes:
        env.codes.append(name)


def _decode(text: str) -> object | None:
    try:
        value: object = json.loads(text)
    except (ValueError, RecursionError):
        value = _python_literal(text)
    return value if isinstance(value, Mapping | list) else None


def _decode_string(text: str) -> str | None:
    """A JSON string literal's text, or None when `text` is no JSON string."""
    try:
        value: object = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, str) else None


def _python_literal(text: str) -> object | None:
    """A dict or list printed by Python (`{'error': {'code': 400, 'param': None}}`), as the openai
    and anthropic clients put the body into their exception text. `ast.literal_eval` only builds
    literals (no names, calls or attributes), and the text is bounded by `MAX_DECODE_CHARS`."""
    if "'" not in text or len(text) > MAX_DECODE_CHARS:
        return None
    try:
        value: object = ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, Mapping | list) else None


def _body_loc(loc: object) -> str | None:
    """The request field of a FastAPI validation error (`loc: ["body", "tools", 0, ...]`)."""
    if isinstance(loc, list | tuple) and len(loc) > 1 and loc[0] == "body":
        return _dotted(".".join(str(part) for part in loc[1:9]))
    return None


def _issue_list(value: list[object]) -> list[Issue]:
    issues = [
        issue
        for item in value[:MAX_ITEMS]
        if isinstance(item, Mapping)
        for issue in [_issue_from_mapping({str(k): v for k, v in item.items()})]
        if issue is not None
    ]
    return issues if issues and len(issues) == min(len(value), MAX_ITEMS) else []


#: Keys that make an object an error body by their name alone.
_ERROR_BODY_KEYS = frozenset(
    {"error", "iserror", "errormessage", "errorcode", "errmsg", "exception", "exceptiontype"}
)


def _error_body(value: Mapping[object, object]) -> bool:
    """The object is an error's body by its keys: an error key, a failing status (a word, or an
    HTTP status beside a message, as RFC 9457's problem details carry it)."""
    keys = {str(k).lower().replace("_", "") for k in value}
    status = value.get("status")
    return bool(keys & _ERROR_BODY_KEYS) or (
        value.get("object") == "error"
        or status in ("error", "denied", "failed", "failure")
        or (
            isinstance(status, int)
            and not isinstance(status, bool)
            and 400 <= status < 600
            and bool(keys & {"message", "detail", "title"})
        )
    )


def unwrap(error: object) -> Envelope:
    """Take the envelopes of `error` (a string, a decoded JSON value or an exception) apart."""
    reader = _Reader()
    if isinstance(error, BaseException):
        message = str(error)
        reader.text(f"{type(error).__name__}: {message}" if message else type(error).__name__)
    elif isinstance(error, bytes):
        reader.text(error.decode("utf-8", errors="replace"))
    elif isinstance(error, str):
        reader.text(error)
    elif error is not None:
        reader.value(error, 0)
    env = reader.env
    if env.param is None:
        env.param = next((i.param for i in env.issues if i.param), None)
    return env
