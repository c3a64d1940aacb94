"""The wording families: how agents, SDKs, servers and runtimes word each kind of tool failure.

This module owns the text side of the pattern database: for every category and variant, a few
regexes, each written for a *family* of wordings (every agent that says "old_string not found",
"could not find oldString", "0 occurrences found for old_string" ...) rather than for one string,
and each tagged with the sources whose real errors it was written from. The tags let the
accuracy test leave a source out: a regex that only that source motivated is switched off while
that source is scored. It never matches anything itself (that is `classify`) and holds no
guidance text (that is `patterns`).

Origins name the harvested sources of `tests/guard/data/real_errors.json` (`roo-code`,
`claude-code`, `mcp-servers`, ...); `os`, `parser` and `http` mark wordings that belong to an
operating system, a JSON parser or HTTP itself, which no single source contributed; `plain`
marks the general shapes of a sentence that many agents share ("could not locate the file X",
"X should be an integer", "over the 1 MB limit"), built from synonyms (`LOCATE`, `ABSENT`)
rather than from any one source's string.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from toolmend.guard.needles import Needles, needles_of

_FLAGS = re.IGNORECASE | re.MULTILINE

#: A tool, parameter or file name inside an error message, quotes and backticks stripped.
NAME = r"[`'\"]?(?P<{group}>[A-Za-z_][\w.\-]{{0,63}})[`'\"]?"
#: An edit's search text as agents name it.
SEARCH_TEXT = (
    r"(?:old_?string|old_?str|old_?text|oldString|old[ _]content"
    r"|search(?: block| text| string| content)?|string to replace|text to replace|string|text"
    r"|expected lines|exact match)"
)


#: The verbs of a search that came back empty: "could not find", "unable to locate", ...
LOCATE = r"(?:could not|couldn't|cannot|can't|unable to|failed to|did not) (?:find|locate|resolve)"
#: The states of a thing that is not there: "not found", "does not exist", "is not registered".
ABSENT = (
    r"(?:not found|does not exist|doesn't exist|could not be found|cannot be found|was not found"
    r"|is not (?:registered|known|available|defined|declared)|not registered|is unknown)"
)


def name(group: str) -> str:
    """`NAME` with its capture group called `group` (`tool`, `param`)."""
    return NAME.format(group=group)


@dataclass(frozen=True, slots=True)
class Wording:
    """One regex of a wording family and the sources it was written from."""

    regex: re.Pattern[str]
    origins: frozenset[str]
    #: Literal text every match holds one of (`needles`): the classifier tries the regex only
    #: on a text that holds one.
    needles: Needles | None = None

    def search(self, text: str) -> re.Match[str] | None:
        return self.regex.search(text)


def words(origins: str, *sources: str) -> tuple[Wording, ...]:
    """Compile `sources` as one family tagged with the space-separated `origins`."""
    tags = frozenset(origins.split())
    compiled = [re.compile(source, _FLAGS) for source in sources]
    return tuple(Wording(regex, tags, needles_of(regex)) for regex in compiled)


def regexes(*families: tuple[Wording, ...]) -> tuple[re.Pattern[str], ...]:
    """The bare regexes of some families (for callers that need no origins)."""
    return tuple(w.regex for family in families for w in family)


# --- JSON parsers (shared with the JSON-error reminder) -------------------------------------

#: Several JSON values where one was expected: the model batched calls into one string.
JSON_CONCATENATED = words(
    "parser",
    r"Unexpected non-whitespace character after JSON at position \d+",  # V8
    r"Extra data: line \d+ column \d+",  # Python json
    r"invalid character '.{1,4}' after top-level value",  # Go
    r"unexpected '[{\[]'; expected end of input",  # nlohmann
    r"trailing characters at line \d+ column \d+",  # serde_json
)

#: The JSON text ends early: the call was cut off.
JSON_TRUNCATED = words(
    "parser",
    r"Unexpected end of JSON input",
    r"Unterminated string (?:starting at: line \d+|in JSON at position \d+)",
    r"unexpected end of input",
    r"EOF while parsing (?:an? )?(?:object|string|value|list)",
    r"JSON Parse error: Unexpected EOF",
    r"unexpected EOF while parsing",
    r"\bunexpected EOF\b(?! while looking for matching)",
)

#: The model's output limit cut the call off before its arguments were complete.
JSON_CUT_OFF = words(
    "pydantic-ai",
    r"\bincomplete (?:tool call )?arguments\b|exceeded while generating a tool call",
    r"\b(?:tool call|arguments) (?:was |were )?(?:truncated|cut off)\b",
)

#: Any other JSON syntax error, by parser.
JSON_SYNTAX = words(
    "parser",
    r"Expecting (?:value|',' delimiter|':' delimiter|property name enclosed in double quotes)"
    r": line \d+ column \d+",
    r"Invalid (?:control character|\\escape)(?: at)?: line \d+ column \d+",
    r"Unexpected token .{1,12} in JSON at position \d+",
    r"Unexpected token '.{1,4}', .{0,60} is not valid JSON",
    r"Expected [^\n]{1,60} (?:in JSON at position \d+|after property value)",
    r"Bad (?:control|escaped) character in (?:string literal in )?JSON at position \d+",
    r"invalid character '.{1,4}' (?:looking for beginning of (?:value|object key string)"
    r"|after object key(?::value pair)?|after array element|in string literal"
    r"|in string escape code)",
    r"\[json\.exception\.parse_error\.\d+\] parse error",
    r"JSON Parse error: [A-Z]",
    r"json\.decoder\.JSONDecodeError",
)

#: Agent wordings that say the arguments did not parse, parser reason or not.
JSON_ARGUMENT_CONTEXT = words(
    "roo-code cline openai-agents ollama vercel-ai mini-swe-agent smolagents goose lmstudio",
    r"Invalid JSON (?:input|argument)",
    r"error parsing tool call",
    r"(?:(?:failed|unable) to|could not|couldn't|cannot|can't) (?:parse|decode|interpret) (?:the )?"
    r"(?:tool(?: call)? |"
    r"function |\w+ )?(?:arguments|parameters|params|input|call|tool use parameters|value|JSON"
    r"|XML)",
    r"Could not interpret tool use parameters",
    r"(?:arguments|input|parameters) (?:are|were|is) not (?:valid|well-formed) JSON",
    r"\b(?:action[ _]input|arguments|input|parameters|params) (?:are|were|is) not (?:a )?(?:valid|"
    r"well-formed) (?:key[ ,-]+value (?:dictionary|object|mapping|pairs?)|dictionary|mapping)\b",
    r"^(?:Error: )?Invalid (?:tool |function )?arguments?: *[{\[]",
    r"invalid JSON in (?:tool(?: call)? )?(?:arguments|input)",
    r"JSON (?:pars(?:e|ing)|decode) (?:error|failed):|\bjson_invalid\b",
    r"with an invalid JSON argument",
    # CrewAI: "Tool input must be a valid dictionary in JSON or Python literal format"
    r"\b(?:tool |action )?input must be (?:a )?valid (?:dictionary|dict|JSON(?: object)?"
    r"|mapping)\b",
    r"^(?:\W{0,3}(?:Error|ERROR): )?[\w-]+ must be (?:valid|well-formed) JSON\b",
    r"\binvalid (?:tool|function) call arguments\b",
    r"(?:could not|cannot|can't) be (?:parsed|decoded) as JSON",
    r"must be encoded as a JSON object",
    r"expected a JSON object",
    r"does not contain any JSON blob",
    r"called with invalid input",
    r"Error (?:while parsing tool call|in extracting tool call|in detect_and_parse)",
    r"while parsing tool call from model output",
    r"\bJSONDecodeError\b|\bJSON\.parse\b|\b(?:invalid|malformed) JSON\b",
) + words(
    # "The tool call arguments are malformed. Arguments must be in JSON format." (Semantic Kernel)
    "plain",
    r"\b(?:tool call |function call |call )?arguments (?:are|were|is) malformed\b"
    r"|\barguments must be (?:in |valid )?JSON(?: format)?\b",
)

ALL_JSON_ERRORS: tuple[re.Pattern[str], ...] = regexes(
    JSON_CONCATENATED, JSON_TRUNCATED, JSON_SYNTAX, JSON_ARGUMENT_CONTEXT
)

# --- loops and repeats ----------------------------------------------------------------------

DUPLICATE = words(
    "roo-code kilocode cline",
    r"stuck in a loop, attempting the same action",
    r"called \d+ times (?:consecutively|in a row) with (?:identical|the same) arguments",
    r"identical tool call (?:was )?(?:repeated|already (?:made|executed))",
)

#: An agent that refuses a call because its input repeats an earlier one: "I tried reusing the
#: same input, I must stop using this action input" (CrewAI), "repeating the same arguments",
#: "same input as the previous call".
SAME_INPUT_AGAIN = words(
    "crewai plain",
    r"\b(?:reus(?:e|ed|ing)|re-us(?:e|ed|ing)|repeat(?:ed|ing)?) the (?:same|identical) (?:action "
    r"|tool )?(?:input|arguments|parameters|call)\b",
    r"\bsame (?:action |tool )?(?:input|arguments|parameters) (?:as (?:the |a )?(?:previous|last|"
    r"earlier) (?:call|attempt|step)|again)\b",
)

#: A loop detector that names the repeat itself ("Detected 3 consecutive identical calls to
#: `read_files`; stopping to avoid a loop.").
REPEATED_CALLS = words(
    "cline roo-code kilocode",
    r"\b(?:consecutive|repeated) (?:identical|duplicate|same) (?:tool )?calls?\b"
    r"|\bstopping to avoid (?:a|an infinite) loop\b",
)

STUCK = words(
    "cline roo-code opencode pydantic-ai openai-agents smolagents langgraph aider",
    r"You seem to be having trouble proceeding",
    r"\bis having trouble\.\.\.|may indicate a failure in the model's thought process",
    r"\b(?:agent|model|assistant|LLM|it)\b[^\n]{0,20}?\b(?:got|gets|is|was|seems|appears to be"
    r"|became) stuck in (?:an? )?(?:infinite |endless |repetitive )?(?:loop|cycle)\b",
    r"\bdoom[_ ]loop\b|\bloop detected\b|\bdetected (?:a |an )?(?:potential |infinite )?(?:tool[- ]"
    r"call )?loop\b",
    r"consecutive mistake limit",
    r"exceeded max(?:imum)? retries(?: count)?",
    r"Max(?:imum)? (?:turns|steps|iterations) (?:\(\d+\) )?(?:exceeded|reached)",
    r"Reached max(?:imum)? (?:steps|turns|iterations)",
    r"Recursion limit of \d+ reached",
    r"reflections allowed, stopping",
) + words(
    # the same change back and forth: "oscillation between 'high' and 'low' detected" (Zoo Code)
    "plain",
    r"\boscillat(?:ion|ing) (?:between|detected)\b|\bping-?pong(?:ing)? between\b",
)

#: An agent that stopped at its step limit.
STEP_LIMIT = words(
    "mini-swe-agent smolagents openai-agents langgraph",
    r"\bLimits exceeded\b[^\n]{0,40}\bsteps\b",
    r"\b(?:step|turn|iteration|recursion) (?:limit|budget) (?:of \d+ )?(?:exceeded|reached|hit)\b",
    r"\b(?:exceeded|reached|hit) (?:the |its )?(?:max(?:imum)? )?(?:number of )?(?:steps|turns"
    r"|iterations)(?: limit)?\b",
)

#: A step budget named as the setting that holds it ("exceeded maxIterations (50)", "max_turns").
STEP_SETTING = words(
    "cline openai-agents smolagents",
    r"\b(?:exceeded|reached|hit) (?:the )?max(?:imum)?[ _]?(?:iterations|steps|turns)\b",
    r"\b(?:exceeded|reached|reaching|hit) (?:the )?max(?:imum)?(?: number)? of \d+ (?:tool calls"
    r"|steps|turns|iterations|requests|model calls)\b",
)
#: A tool's own call budget spent: "Tool 'x' has reached its usage limit of 3 times and cannot be
#: used anymore", "reached its maximum usage limit of 5" (CrewAI), "exceeded the call limit for".
USAGE_LIMIT = words(
    "crewai plain",
    r"\b(?:reached|exceeded|hit|used up) (?:its |the |their )?(?:max(?:imum)? )?(?:usage|use|call"
    r"|invocation)s? (?:limit|budget|count|cap)\b",
    # LangChain's tool-call-limit middleware: "Tool call limit exceeded. Do not make additional tool
    # calls."
    r"\btool[ -]call limits? (?:exceeded|reached|hit)\b",
    r"\bcannot be (?:used|called|invoked) (?:any ?more|again)\b|\bshould not (?:use|call) the "
    r"[\w.\-]+ tool again\b",
    # "the escalation limit of 3 upward changes per task has been reached" (Zoo Code)
    r"\blimit of \d+ [\w -]{1,40}? per (?:task|session|turn|conversation|run|request|thread)"
    r" (?:has been |was |is )?(?:reached|exceeded|hit|used up)\b",
)
#: A framework gave up after its own retry budget (output validation, tool retries).
RETRIES_EXHAUSTED = words(
    "pydantic-ai",
    r"\bexceeded (?:the )?max(?:imum)? (?:\w+ ){1,2}retries\b",
    r"\bmax(?:imum)? (?:\w+ )?retries \(\d+\) (?:exceeded|reached)",
)

# --- the model's server and the context ------------------------------------------------------

CONTEXT = words(
    "vllm sglang llama-cpp ollama openai-agents claude-code codex qwen-code",
    r"context_length_exceeded|exceed_context_size_error",
    r"maximum context length(?: is| of)? \d+",
    r"exceed(?:s|ed)? (?:the )?(?:available |maximum |model'?s? )?context (?:size|length|window)",
    r"context (?:size|length|window) (?:has been |is |was )?(?:exceeded|full)",
    r"\bcontext (?:size|length|window) (?:will|would) (?:overflow|be exceeded)\b",
    r"longer than (?:the )?(?:maximum model length|model\\?'?s? (?:maximum )?context length)",
    r"\b(?:longer|larger|bigger) than (?:the )?(?:LLM'?s? |model'?s? )?(?:maximum )?context "
    r"(?:window|length|size)\b",
    # vLLM: the room left for the answer (context minus prompt) came out below zero
    r"\bmax_(?:new_|completion_)?tokens\b[^\n]{0,40}?\bgot -\d+",
    r"prompt is too long",
    r"Input is too long for (?:the )?requested model",
    r"input (?:token count|length|is too long)[^\n]{0,60}(?:exceeds|too long|context)",
    r"Requested token count exceeds",
    r"reduce the length of the (?:messages|input)",
    r"reached the (?:output )?token limit",
    r"input exceeds maximum context length",
    r"\btoo many (?:input |prompt )?tokens\b|\btoken limit (?:exceeded|reached)\b",
)
#: A prompt over a limit named as the prompt's own: "Prompt tokens limit exceeded: 230799 >
#: 91442" (OpenRouter), "input length exceeded".
PROMPT_OVER_LIMIT = words(
    "plain",
    r"\b(?:prompt|input|context)(?: tokens?)? (?:limit|length|size) (?:exceeded|reached)\b",
)
#: TGI's router: "`inputs` tokens + `max_new_tokens` must be <= 8192", "`inputs` must have less
#: than 4096 tokens".
#: LM Studio's and llama.cpp's context kept from the start of the prompt: "Trying to keep the
#: first 111490 tokens when context overflows. However, the model is loaded with context length
#: of only 32768 tokens", "Cannot truncate prompt with n_keep (15028) >= n_ctx (7424)".
KEEP_OVER_CONTEXT = words(
    "lmstudio",
    r"\bloaded with (?:a )?context length of only \d+",
    r"\bn_keep \(\d+\) >= n_ctx\b",
)
TGI_TOKEN_LIMITS = words(
    "tgi",
    r"\btokens? \+ `?max_new_tokens`? must be <= \d+",
    r"`?inputs`? must have less than \d+ tokens\b",
)

TOO_LARGE = words(
    "claude-code continue gemini-cli goose roo-code opencode mini-swe-agent",
    r"(?:file|image|content|output|response|diff|patch|request|input|payload)\b[^\n]{0,80}?\bis "
    r"too (?:large|long|big) ?[(:]",
    r"exceed(?:s|ed)? (?:the )?(?:\d+ ?(?:[KMG]B|bytes|tokens) )?(?:maximum|max|limit)\b"
    # a maximum of time or of steps is not a size, nor is a small bare count ("limit 500 exceeds
    # the maximum of 100"; a byte size without its unit is a long number: "max of 10485760")
    r"(?! (?:[\w-]+ )?(?:time|duration|runtime|number of|steps|turns|iterations|retries)\b"
    r"| of \d{1,4}(?![\d,.]| ?(?:[KMG]i?B|bytes|tokens|characters|chars|lines)\b))"
    r"(?: allowed)?"
    r"(?: (?:size|tokens|file size|length))?",
    r"File size exceeds",
    r"exceed(?:s|ed)? (?:a |the )?(?:max(?:imum)? (?:of )?)?\d[\d,.]* ?(?:[KMG]i?B|bytes|characters"
    r"|chars"
    r"|tokens?|lines?)\b",
    r"output of your last command was too long",
    r"\b(?:file|image|content|output|response|input|payload|request|download|body)s?\b[^\n]{0,40}?"
    r"\btoo (?:large|long|big)\b[^\n]{0,30}?(?:\d|exceed|max)",
    r"\bexceeded (?:the )?max(?:imum)? size\b",
    r"\bis too (?:large|long|big) (?:to (?:read|fit|load|include|process|display)|for (?:the )?"
    r"(?:context|model))",
    # "Error reading file: file too long. Use read_file_chunk instead" (Agno): too long, with a
    # way to read a part
    r"\b(?:file|output|content|result|response|page|document)s? (?:is |was )?too (?:long|large|big)"
    r"\b[.;,:]? *(?:use|try|read|request|consider|please)\b",
) + words(
    # SWE-agent's search tools: "More than 312 files matched for "import" in /repo. Please
    # narrow your search."
    "swe-agent",
    r"\bmore than \d+ (?:files|results|matches|lines|entries)\b[^\n]{0,80}?\bnarrow "
    r"(?:your|the|down)",
)

#: "exceeds the size limit of N bytes", "(exceeds 2000 line limit)": a size named as a limit.
OVER_NAMED_LIMIT = words(
    "gemini-cli goose",
    r"exceed(?:s|ed)? (?:the |a |its )?(?:[\w.]+ ){0,3}(?:size|length|token|byte|character|output"
    r"|line|file|content|response|payload|display|upload|image|attachment)s? limit\b",
)

#: A size over a limit in plain words ("over the 1 MB limit", "larger than 100000 bytes", "larger
#: than the maximum allowed size", "Maximum file size of 10MB exceeded").
OVER_SIZE = words(
    "plain",
    r"\bover (?:the |its |a )?(?:\d[\d,.]* ?(?:[KMG]i?B|bytes|characters|chars|tokens|lines) )?"
    r"(?:size |length |token |byte |character |line )?limit\b",
    r"\b(?:larger|bigger|longer) than (?:\d[\d,.]* ?(?:[KMG]i?B|bytes|characters|chars|tokens"
    r"|lines)\b|the (?:max(?:imum)?|limit|allowed))",
    r"\b(?:size|length|content|file|output|response|payload|body|input)\b[^\n]{0,40}?\b(?:greater|more)"
    r" than (?:the )?(?:max(?:imum)?|limit|allowed)\b",
    r"\bmax(?:imum)? (?:file |output |response |request |payload |content |body )?(?:size|length)"
    r"\b[^\n]{0,30}\bexceeded\b",
    # a result counted and refused: goose's "Shell output from command 'cat x' has too many
    # characters (1843210). Maximum character count is 400000."
    r"\b(?:output|result|response|content|file)\b[^\n]{0,80}?\btoo many (?:characters|chars|bytes"
    r"|tokens|lines)\b",
    r"\bmax(?:imum)? (?:character|char|byte|token|line) count (?:is|of) \d",
)

RATE = words(
    "openai-agents claude-code langgraph http",
    r"rate[ _-]?limit",
    r"(?<!\w:)\b429\b",  # (not a source line, "rsa_sign.c:429:")
    r"Too Many Requests",
    r"quota (?:exceeded|exhausted)|RESOURCE_EXHAUSTED",
    r"\boverloaded(?:_error)?\b",
)

#: A quota used up, in plain words.
QUOTA_USED = words(
    "plain",
    r"\bquota\b[^\n]{0,30}\b(?:exceeded|exhausted|reached|used up)\b",
    r"\b(?:exceeded|exhausted|reached) (?:your |the |its )?(?:\w+ )?quota\b",
    r"\b(?:cost|spend(?:ing)?|budget|billing|credit)(?:/\w+)? limit (?:exceeded|reached|hit)\b",
    # a budget or credit balance spent: "Budget has been exceeded! Current cost: 26.0", "exceeded
    # budget for model=x", "Insufficient credits", "This request requires more credits", "can
    # only afford 4000"
    r"\bbudget (?:has been |was |is )?(?:exceeded|exhausted|used up)\b"
    r"|\bexceeded (?:the |your |its )?budget\b|\bover budget\b",
    r"\b(?:insufficient|not enough) (?:credits?|balance|funds)\b"
    r"|\b(?:requires|needs?) more credits\b|\bmore credits are required\b|\bcan only afford\b",
)

# --- tools and protocol ---------------------------------------------------------------------

MCP_MISSING = words(
    "mcp-typescript-sdk roo-code kilocode gemini-cli claude-code",
    r"MCP error -32602: (?:Unknown tool|(?:Tool|Prompt) \S+ (?:not found|disabled))",
    r"Tool " + name("tool") + r" (?:does not exist|is disabled) on server",
    r"on server [`'\"]?[\w.\-]+[`'\"]? is disabled",
    r"(?:MCP )?server [`'\"]?[\w.\-]+[`'\"]? (?:is )?not (?:found|connected|configured)",
    r"No connection found for server|MCP Client not found for server",
    r"Unknown MCP (?:tool|server)|\bunknown_server\b",
    r"Server is not configured",
    r"\bserver [`'\"]?[\w.\-]+[`'\"]? is disabled\b",
    r"\bNo MCP server (?:registered|configured|found|named)\b",
    r"\bNo (?:URL|command) configured for MCP server\b|\bMCP Connection [\w.\-]+ not found\b",
    r"not found in (?:the )?MCP (?:configuration|config|settings)",
)
#: A namespaced MCP tool (`mcp__server__tool`) said not to be there: Claude Code's API error
#: "Tool reference 'mcp__x__y' not found in available tools".
MCP_NAME_ABSENT = words(
    "claude-code",
    r"[`'\"]mcp__[\w.\-]+[`'\"][^\n]{0,40}?\b(?:" + ABSENT + r"|not in (?:the )?(?:list|set))",
)

MCP_DOWN = words(
    "mcp-typescript-sdk mcp-python-sdk crewai goose",
    r"MCP error -32000: Connection closed",
    r"MCP server [`'\"]?[\w.\-]+[`'\"]? (?:disconnected|crashed|exited|is not running)",
    r"\bFailed to start extension\b|\bCould not run extension command\b",
    r"\b(?:failed|unable) to (?:start|launch|spawn|run) (?:the )?(?:[\w-]+ )?MCP server\b",
)
#: goose's extensions are its MCP servers: one that could not be activated, added or initialised.
MCP_EXTENSION_FAILED = words(
    "goose",
    r"\b(?:Error|Failed|Unable|failure) (?:to )?(?:activat|add|initiali[sz])(?:e|ed|ing)? "
    r"(?:the )?extension\b",
)

#: The agent's own MCP client has no live connection to the server.
MCP_CLIENT_DOWN = words(
    "gemini-cli continue",
    r"\bMCP (?:connection|client|server|session)s? (?:(?:was |is )?not (?:found|connected"
    r"|available)|unavailable|disconnected|closed)",
    r"\b(?:failed|unable) to connect to (?:the )?MCP server",
    r"\bClient is not connected, must connect\b",
)

#: An MCP server, client, process or connection said to be in a state where it cannot serve a
#: call: not connected, not initialised, disconnected, failed to start, without a capability, its
#: tool list not loaded. One family for the many ways clients and SDKs say the server is not there.
MCP_SERVER_STATE = words(
    "cline continue openai-agents roo-code gemini-cli mcp-typescript-sdk",
    r"\bMCP (?:server|client|connection|process|session|config)\b[^\n]{0,80}?\b(?:not (?:found"
    r"|connected|configured|initiali[sz]ed|running|available|enabled|ready)|disconnected|disabled"
    r"|failed|error|does not (?:have|support|exist)|doesn't exist|could not|cannot|unable"
    r"|offline|unreachable|unavailable)\b",
    r"\b" + LOCATE + r" (?:the |an? )?MCP server\b",
    r"\b(?:disconnected|lost (?:the )?connection) from (?:the )?MCP server\b",
    r"\b(?:error|failed|failure) (?:while )?(?:loading|listing|fetching|getting|reading) (?:the )?"
    r"(?:tools|resources|resource templates|prompts)\b[^\n]{0,20}\bMCP\b",
    r"^(?:(?:MCP )?Server|Client) (?:is )?not (?:initiali[sz]ed|connected)\b",
    r"^(?:MCP )?Server does not support (?:tools|resources|prompts|sampling|roots|completions)\b",
    # goose's extensions are its MCP servers
    r"\bextension [`'\"]?[\w.\-]+[`'\"]? (?:is )?(?:not (?:enabled|found|loaded|running|available"
    r"|connected)|disabled)\b",
    r"\bServer [`'\"]?[\w.\-]+[`'\"]? (?:with [\w ]{1,30} )?not found\b",
)

#: A tool a named server does not have, in plain words ("Tool 'x' not found on MCP server 'y'").
MCP_TOOL_ABSENT = words(
    "plain",
    r"\b(?:tool|function) [`'\"]?[\w.\-]+[`'\"]? (?:" + ABSENT + r"|is disabled) (?:on|in) "
    r"(?:the )?(?:MCP )?server\b",
)
#: An SDK's MCP server manager that could not connect a server.
MCP_CONNECT_FAILED = words(
    "openai-agents gemini-cli continue",
    r"\b(?:failed|unable) to connect (?:to )?(?:the )?MCP server\b",
)
#: A server that offers no tools at all (an MCP client calling tools/call on it).
MCP_NO_TOOLS = words("mcp-typescript-sdk", r"\bServer does not (?:support|advertise) tools\b")

#: Python builtins a code sandbox refuses to run (smolagents' LocalPythonExecutor and its kin):
#: calling them is a refusal of the sandbox, not a call to a tool that does not exist.
_SANDBOXED_BUILTIN = (
    r"(?:eval|exec|open|compile|__import__|globals|locals|vars|getattr|setattr|delattr|input"
    r"|breakpoint|exit|quit|help|memoryview|__builtins__)"
)

UNKNOWN_TOOL = words(
    "langgraph pydantic-ai claude-code opencode openai-agents roo-code kilocode cline vercel-ai"
    " gemini-cli continue mini-swe-agent ollama smolagents sglang vllm lmstudio goose codex",
    name("tool") + r" is not a valid tool",
    r"\b(?:unknown|unavailable|undefined|undeclared|unsupported|nonexistent) (?:tool|function)"
    r"(?:[ _]call)?(?: name)?[:=\s]+" + name("tool"),
    r"\b(?:unknown|unavailable|undefined) (?:tool|function)(?:[ _]call)?\b",
    r"No such tool(?: available)?:? " + name("tool"),
    r"\b(?:tool|function) " + name("tool") + r" (?:was |is |has )?(?:not found|does not exist"
    r"|is not declared|not declared|is not defined|not registered|has not been passed"
    r"|is not available|not available|is (?:currently )?disabled for (?:the |this )?agent)",
    r"\b(?:tool|function) " + name("tool") + r" not found",
    r"\btool_not_found\b|\bunknown_tool\b",
    # a name the model thought was a tool; Python's own builtins refused by the sandbox are a
    # refusal (POLICY_DENIED's "Forbidden function"), not a missing tool
    r"'(?!" + _SANDBOXED_BUILTIN + r"')[^'\n]{1,64}' is not among the explicitly allowed tools"
    r"|(?<!' is )not among the explicitly allowed tools",
    r"function name '" + name("tool") + r"' had invalid characters",
    r"unsupported call:? " + name("tool"),
    r"\bNo (?:tool|function) (?:named|called) " + name("tool"),
    # (not a compiler's "cannot find function `f` in this scope": a name in the code)
    r"\b"
    + LOCATE
    + r" (?:a |the )?(?:tool|function) (?:named |called )?"
    + name("tool")
    + r"(?![\w.\-]*[`'\"]? in this scope)",
    r"\bunrecognized (?:tool|function)(?: name)?\b",
    r"\b(?:tool|function) not found:? " + name("tool"),
    r"\binvalid (?:tool|function) name\b",
    r"function name '[^'\n]{1,64}' had invalid characters",
) + words(
    # Open Interpreter's tool collection: "Tool str_replace_editr is invalid" (not "Tool input is
    # invalid", which is about the call's arguments)
    "open-interpreter",
    r"\b(?:tool|function) (?!(?:input|call|arguments?|parameters?|params|schema|result|output"
    r"|name|use|response)\b)" + name("tool") + r" is (?:invalid|not valid)\b",
)

#: A registered tool switched off: the MCP TypeScript SDK's "Tool delete_branch disabled" (its
#: JSON-RPC error), "tool 'x' is disabled".
TOOL_DISABLED = words(
    "mcp-typescript-sdk plain",
    r"^(?:Error: )?(?:Tool|Function) [`'\"]?(?P<tool>[A-Za-z_][\w.\-]{0,63})[`'\"]? (?:is )?"
    r"(?:currently )?disabled\.?$",
)
#: A whole message saying only that the tool is not there (rmcp's ToolRouter: "tool not found").
TOOL_ABSENT_BARE = words(
    "rmcp plain", r"^(?:Error: )?(?:tool|function) (?:not found|does not exist|is unknown)\.?$"
)

#: A tool_choice naming no declared tool: TGI's "Tool with name get_wether not found", vLLM's
#: "The tool specified in `tool_choice` does not match any of the specified `tools`".
TOOL_CHOICE_UNKNOWN = words("tgi", r"\bTool with name " + name("tool") + r" not found\b") + words(
    "vllm", r"\btool specified in [`'\"]?tool_choice[`'\"]? does not match any\b"
)

#: A name said not to be a tool in plain words ("'grep' is not a registered tool", "There is no
#: tool called grep").
NOT_A_TOOL = words(
    "plain",
    # "The tool call with name `X` is not part of the provided tools" (Semantic Kernel)
    r"\bwith name " + name("tool") + r" is not (?:part of|one of|among|in) the ",
    r"\bis not (?:part of|one of|among|in) the (?:provided|available|given|supplied|declared"
    r"|registered) (?:tools|functions)\b",
    r"\bis not an? (?:registered|known|valid|available|declared|recogni[sz]ed|defined) "
    r"(?:tool|function)\b",
    r"\bthere is no (?:tool|function) (?:named|called)\b",
    r"\bmissing tools? [`'\"{(\[]|\bwithout (?:a|an) [\w-]+ tool\b|\bno [\w-]+ tool (?:is )?"
    r"(?:available|configured|registered|provided|bound)\b",
)

#: A name not on the list of tools the agent offers.
NOT_LISTED_TOOL = words(
    "plain",
    r"\b(?:tried|attempted|trying) to (?:use|call|invoke|run) (?:the )?(?:tool|function|action) "
    r"[^\n]{1,80}?\b(?:but |which )?(?:it )?(?:doesn't|does not|did not|didn't) exist\b",
    r"\b(?:(?:must|should|can only|may only) )?(?:use|call|pick|choose|select) (?:one of|from) "
    r"(?:the )?(?:following|available|listed|registered) (?:tools|functions|actions)\b",
    r"^(?:Error: )?Action [`'\"]?[\w.\-]+[`'\"]? (?:" + ABSENT + r")\.?$",
    r"\bnot in the (?:list of )?(?:available|registered|declared|provided) tools\b",
    r"\b(?:tool|function) [`'\"]?[\w.\-]+[`'\"]? (?:is )?not in (?:the |this )?(?:tool )?"
    r"registry\b",
)

NO_TOOL_CALL = words(
    "roo-code cline kilocode mini-swe-agent pydantic-ai aider smolagents",
    r"did not use a tool",
    r"No tool calls? (?:was |were )?found",
    r"include (?:your response in )?(?:a|one|at least one) tool call",
    r"must (?:include|use|contain) (?:at least one|exactly one|a) (?:tool|action)",
    r"(?:provide|include) EXACTLY ONE action",
    r"Expected exactly 1 action",
    r"\b(?:agent|model|assistant|LLM|response) (?:must|should|did not|didn't|failed to) (?:return"
    r"|produce|emit|output) (?:an? |any |one )?(?:action|tool call|function call)s?\b",
    r"Plain text responses are not permitted",
    r"did not conform to the edit format",
    r"Error in code parsing",
)

ONE_TOOL = words(
    "cline roo-code continue",
    r"\b(?:cannot|can't|may not|must not) be (?:called|used|run) in parallel\b",
    r"(?:only one tool may be used|a tool has already been used) (?:per|in this) message",
    r"Only one tool (?:call )?(?:may|can) be used at a time",
) + words(
    "plain",
    r"\bOnly one (?:tool|tool call|function call) (?:is|may be|can be) (?:allowed|permitted|used"
    r"|made)\b",
)
#: The same rule in plain words: "Only one tool call is allowed per message".
ONE_TOOL_ALLOWED = words(
    "plain", r"\bonly one tool(?: call)? (?:is|may be|can be) (?:allowed|permitted|used)\b"
)

#: Rules about the final answer of a code or tool agent: one final answer, and nothing else
#: called beside it.
FINAL_ANSWER_RULES = words(
    "smolagents pydantic-ai openai-agents",
    r"\b(?:multiple|more than one|several) final (?:answers|results|outputs)\b"
    r"|\bother tool calls than the final answer\b",
)

MALFORMED_CALL = words(
    "roo-code ollama llama-cpp gemini-cli",
    r"XML tool calls are no longer supported",
    r"\binvalid tool call\b(?! arguments)",
    r"(?:empty|missing) (?:function|tool) (?:call )?name|Function calls must have a name",
    r"Failed to parse input at pos \d+",
    r"incomplete \w+ tool call",
    r"\btool call\b(?! arguments)[^\n]{0,60}?\bcould not be parsed\b(?! as JSON)",
    r"\b(?:use|using) the correct tool call format\b",
    r"expected '[{<]' in tool call",
    r"(?:error|failed|unable) (?:trying to |to )?(?:handle|handling|process|processing) (?:the )?"
    r"(?:streaming )?tool call",
) + words(
    # a reply the agent could not read its fields from (DSPy's adapters: "Adapter ChatAdapter
    # failed to parse the LM response. ... Expected to find output fields")
    "plain",
    r"\b(?:(?:failed|unable) to|could not|couldn't) parse the (?:LM|LLM|model)(?:'s)? "
    r"(?:response|output|reply|completion)\b|\bExpected to find output fields\b",
)

#: A tool invoked the wrong way round: Codex's "patch detected without explicit call to
#: apply_patch. Rerun as [\"apply_patch\", \"<patch>\"]" (a patch written into a shell command).
IMPLICIT_INVOCATION = words(
    "codex plain",
    r"\bwithout (?:an? )?explicit (?:call|invocation) (?:to|of)\b",
    r"^Rerun as \[",
)

#: A provider refusing a history whose tool calls and results do not pair up (Anthropic's
#: "`tool_use` ids were found without `tool_result` blocks", "unexpected `tool_use_id` found in
#: `tool_result` blocks"; OpenAI's "must be followed by tool messages responding to each
#: 'tool_call_id'", "messages with role 'tool' must be a response to a preceeding message").
UNPAIRED_RESULTS = words(
    "claude-code anthropic-api openai-api",
    r"\btool_use(?:_id)?\b[^\n]{0,60}?\b(?:without|found in|corresponding)\b[^\n]{0,20}?"
    r"\btool_result\b",
    r"\bmust be followed by tool messages\b|\bdid not have response messages\b",
    r"\brole [`'\"]?tool[`'\"]? must be a response to a prece\w* message\b",
    r"\bTool results are missing for tool calls\b|\bMissingToolResultsError\b",
) + words(
    # an id of a call, result or approval that the history does not have (the Vercel AI SDK:
    # "Tool call call_9x2 not found.", "No tool invocation found for tool call ID \"x\"",
    # "Tool approval response references unknown approvalId")
    "vercel-ai",
    r"^(?:Error: )?Tool call [`'\"]?[\w.\-]+[`'\"]? not found(?: for approval\b|\.?$)",
    r"\bNo tool (?:invocation|call|result)s? found for (?:the )?(?:tool call |approval )?"
    r"(?:ID|id)\b",
    r"\breferences (?:an? )?unknown (?:approvalId|approval|tool_?call_?id|toolCallId|tool call)\b",
)
#: Gemini's pairing rule: "Please ensure that the number of function response parts is equal to
#: the number of function call parts of the function call turn."
CALL_PARTS_UNPAIRED = words(
    "gemini-api",
    r"\bnumber of function response parts is equal to the number of function call parts\b",
)

#: A provider refusing the order, roles or shape of the history's messages, not their pairing:
#: Mistral's "Unexpected role 'user' after role 'tool'" and its tool call id format.
MESSAGE_ORDER = words(
    "mistral-api",
    r"\bUnexpected role [`'\"]?\w+[`'\"]? after role\b|\bUnexpected role RoleEnum\.\w+",
    r"\bTool call id was \S+ but must be\b",
)
#: SGLang's chat request validator and llama.cpp's prefill check: "User message at index 4 has no
#: content", "First message should be from 'user' or 'system'", "Cannot have 2 or more assistant
#: messages at the end of the list".
EMPTY_OR_MISPLACED_TURN = words(
    "sglang",
    r"\b(?:User|Assistant|System|Tool) message at index \d+ has no content\b",
    r"\bFirst message (?:should|must) be from\b",
) + words("llama-cpp", r"\bCannot have \d+ or more assistant messages at the end\b")
#: A content block of the history without a part it needs: Ollama's "tool_use block missing
#: required 'id' field"; and chat templates' "Conversation roles must alternate ...".
MALFORMED_TURN = words(
    "ollama",
    r"\b(?:tool_use|tool_result|tool_call|function_call|function_response)s? block (?:is )?"
    r"(?:missing|without|has no)\b",
) + words(
    "plain", r"\broles must alternate\b|\bmust alternate between (?:the )?(?:user|assistant)\b"
)

#: A provider refusing the tool definitions of the request: OpenAI's "Invalid schema for
#: function 'x': ...", Ollama's "invalid input_schema for tool \"x\"", SGLang's "Tool 17 function
#: has invalid 'parameters' schema".
INVALID_TOOL_SCHEMA = words(
    "openai-api ollama", r"\binvalid (?:input_)?schema for (?:tool|function)\b"
) + words(
    "sglang",
    r"\b(?:tool|function) (?:\d+ )?(?:function )?has (?:an )?invalid [`'\"]?(?:parameters"
    r"|input_schema|schema)[`'\"]?(?: schema)?\b",
)
#: Anthropic's "tools.17.custom.input_schema: JSON schema is invalid", Fireworks' "JSON Schema not
#: supported: could not understand the instance".
SCHEMA_NOT_TAKEN = words("anthropic-api", r"\binput_schema: JSON schema is invalid\b") + words(
    "fireworks", r"\bJSON Schema (?:is )?not supported\b"
)

#: Calls the agent cannot make at all: a tool that cannot be called directly, an argument line of
#: a text tool-call format it does not read.
UNCALLABLE = words(
    "pydantic-ai continue",
    r"\btools? (?:cannot|can't|may not) be called(?: directly)?\b",
    r"\binvalid (?:begin|end|start) (?:arg|argument|tool)\b",
)

# --- parameters -----------------------------------------------------------------------------

_PARAM = name("param")
#: "must be a number between 0 and 2", "a string in the enum": a range or a set, not a type.
_NOT_A_RANGE = r"(?! (?:between|in the|from|greater|less|at (?:least|most)|one of))"

PARAM_MISSING = words(
    "roo-code cline kilocode claude-code mcp-servers smolagents continue ollama codex gemini-cli"
    " qwen-code pydantic-ai langgraph mini-swe-agent parser",
    r"(?:missing|without) (?:a )?(?:value for )?(?:the )?required (?:parameter|argument|field"
    r"|property|key)s?:? " + _PARAM,
    r"required (?:parameter|argument|property|field) " + _PARAM + r" is missing",
    r"required argument \"?" + _PARAM + r"\"? is missing",
    # mark3labs/mcp-go's getters: "required argument \"city\" not found"; "required parameter 'x'
    # was not provided"
    r"\brequired (?:parameter|argument|field|property|param|key) [`'\"]?" + _PARAM + r"[`'\"]? "
    r"(?:not found|not provided|was not (?:provided|given|found)|not given)\b",
    r"(?:must have|missing) required (?:property|properties|field|argument)s? " + _PARAM,
    r"'" + _PARAM + r"' is a required property",
    r"\bmissing field `" + _PARAM + r"`",
    r"Missing (?:required )?[`'\"]?" + _PARAM + r"[`'\"]? (?:argument|parameter|field|property)\b",
    r"\bmust (?:include|contain|have|specify) (?:an? |the )?(?:non-?empty |valid )?[`'\"]"
    + _PARAM
    + r"[`'\"] (?:field|parameter|argument|property|key)\b",
    r"missing (?:\d+ )?required (?:positional |keyword-only )?arguments?: '" + _PARAM + r"'",
    r"(?:^|\W)(?:the )?(?:parameter|argument|field|property) " + _PARAM + r" is required",
    r"(?:^|[\s:])(?!variable\b|var\b)"
    + _PARAM
    + r"(?: \(\w+\))? (?:is|are) required\b(?!\. Install| to (?:use|run)\b)",
    r"(?:^|[\s:])" + _PARAM + r" array is required",
    r"The " + _PARAM + r" parameter (?:was|is) (?:empty|missing)",
    r"^\s*(?P<param>[A-Za-z_][\w.\-]{0,63})(?::| *\n)\s*Field required",
    r"Field required|\[type=missing\b|\"type\": \"missing\"",
    r"is missing (?:its |the )?" + _PARAM + r"$",
    r"Missing required argument",
    r"required (?:parameter|argument|property|field|key)s? " + _PARAM + r" (?:was |is )?not "
    r"(?:provided|specified|given|set)",
    r"\bmissing (?:parameter|argument|field|property|key)s?:? " + _PARAM,
    r"(?:following|these) required (?:parameters|arguments|fields|properties) (?:are|were) missing",
    r"\bno value (?:was )?(?:provided|given|supplied|specified|passed) for (?:(?:the )?required "
    r"(?:parameter|argument|field|property|key) )?" + _PARAM,
    r"\b(?:parameter|argument|field|property|key|option) " + _PARAM + r" (?:must|should|has to"
    r"|needs to) be (?:provided|given|specified|supplied|set|passed)\b",
    r"\b(?:parameter|argument|field|property|key|option) " + _PARAM + r" (?:was|is|were) (?:not"
    r"|never) (?:provided|given|specified|supplied|set|passed)\b",
    r"^(?:Error: )?(?:You|Please) (?:must )?(?:provide|specify|pass|supply|give) (?:an? |the )?"
    r"(?!exactly\b|one\b|only\b|at least\b)[\w-]+",
    r"expected \w+, received undefined",
    # "Missing or empty \"file_path\"" (gemini-cli), "file_path is empty or missing"
    r"\b(?:missing or empty|empty or missing|missing or blank"
    r"|not provided or (?:was |is )?empty)\b",
    # "Invalid input, no replacements array" (VS Code), "no 'path' field in the request"
    # (not "no such key": a key the call named that is not there, a value refused; not a
    # credential: "No API key provided" is a login missing)
    r"\bno (?!such\b|api[ _-]?key\b)[`'\"]?" + _PARAM + r"[`'\"]? (?:array|list|field|parameter"
    r"|argument|property|key)\b",
    # "There are `2` tool call arguments required and only `1` received. The required arguments
    # are: [...]" (Semantic Kernel)
    r"\barguments? (?:are |is )?required and only [`'\"]?\d+[`'\"]? (?:was |were )?"
    r"(?:received|given|provided)\b|\bThe required (?:arguments|parameters) are:",
    # every item of a list lacks one key: "each file must have a path" (not "a valid status")
    r"\b(?:each|every|all) [\w-]+ (?:must|should|needs? to) (?:have|include|contain|specify) "
    r"(?:an? |the |its )?(?!valid\b|unique\b|different\b|at\b)[`'\"]?[\w.\-]+[`'\"]?\.?$",
    r"\bmissing required [`'\"](?P<param>[A-Za-z_][\w.\-]{0,63})[`'\"] (?:field|parameter|argument"
    r"|property|key)\b",
)

#: A value that does not parse as its declared scalar type (Ollama's option parser).
SCALAR_PARSE = words("ollama", r"\binvalid (?:int|integer|float|bool|boolean|number) value\b")

#: "No URL provided.": a whole message saying that one value was not given.
NOTHING_GIVEN = words(
    "gemini-cli mcp-servers openai-agents github-mcp-server",
    r"^(?:Error: )?(?:either |one of )?[`'\"]?[\w.\-]+[`'\"]?,? or [`'\"]?[\w.\-]+[`'\"]? (?:must|"
    r"should|has to|needs to) be (?:provided|given|specified|supplied|set|passed)\b",
    r"^(?:Error: )?(?:either |one of )[`'\"]?[\w.\-]+[`'\"]?,? or [`'\"]?[\w.\-]+[`'\"]? "
    r"(?:is|are) required\b",
    # (not a credential: "No API key provided" is a login missing, as "API key is missing" is)
    r"^(?:Error: )?No (?!api[ _-]?key\b|(?:access |auth |bearer )?token\b|credentials?\b)"
    r"[\w-]+(?: [\w-]+)? (?:was |were )?(?:provided|given|specified|supplied)(?:\.|$)",
    r"^(?:Error: )?(?:The )?[`'\"]?[\w-]+[`'\"]?(?: [\w-]+)?(?: \([^()\n]{1,160}\))? (?:must"
    r"|should|has to|needs to) be (?:provided|given|specified|supplied)\.?$",
    r"^(?:Error: )?(?:Provide|Specify|Pass|Give|Supply|Set) (?:at least )?(?:one of|either) "
    r"[`'\"][\w.\-]+[`'\"](?![^\n]*\bnot both\b)",
    r"^(?:Error: )?At least one (?:of )?[^\n]{1,80}? (?:must|should|has to) be (?:provided|given"
    r"|specified|supplied)\b",
)

PARAM_TYPE = words(
    "pydantic-ai openai-agents langgraph mcp-typescript-sdk mcp-servers vercel-ai opencode"
    " claude-code smolagents continue gemini-cli codex roo-code parser",
    r"^\s*(?P<param>[A-Za-z_][\w.\-]{0,63})(?::| *\n)\s*Input should be a valid "
    r"(?:integer|string|number|boolean|list|dictionary|array|object|float|tuple|dict)",
    r"Input should be a valid (?:integer|string|number|boolean|list|dictionary|array|object"
    r"|float|tuple|dict)",
    r"The parameter `(?P<param>[A-Za-z_][\w.\-]{0,63})` type is expected as",
    r"[Ee]xpected (?:an? )?(?:string|number|integer|boolean|array|object|sequence|map|list|bool)"
    r",? (?:but )?(?:received|got|provided|found) (?:an? )?(?!undefined)(?:string|number"
    r"|integer|boolean|array|object|null|list|bool|float)",
    r"Argument " + _PARAM + r" has type '\w+' but should be",
    r"\bhas type '\w+' but should be '\w+'",
    r"(?:^|[\s:/])" + _PARAM + r" (?:parameter )?must be (?:an? )?(?:valid )?(?:array|number"
    r"|integer|string|boolean|object|list|bool)\b" + _NOT_A_RANGE,
    r"(?:must|should) be (?:an? )?(?:valid )?(?:array|number|integer|string|boolean|object|list"
    r"|bool|int|str|float|dict)\b" + _NOT_A_RANGE,
    r"is not of type '(?:string|integer|number|boolean|array|object|null)'",
    r"\bis not of type [`'\"]?(?:\[\])?[\w.]+[`'\"]?(?: or [\w.]+)?,? (?:is|got|but (?:is|got|was))"
    r" [`'\"]?(?:\[\])?[\w.]+",
    r"cannot unmarshal \w+ into Go (?:struct field|value of type)",
    # the Go type a value decoded to, named after "type" (Ollama: "invalid type for 'stop' field:
    # float64", "invalid message content type: float64"); a bare kind ("invalid type: foo") is not
    r"\b(?:invalid|unexpected|unsupported|wrong|bad) (?:[\w-]+ ){0,3}type(?: for [`'\"]?[\w.\-]+"
    r"[`'\"]?(?: (?:field|parameter|argument|key|value))?)?: (?:float(?:32|64)|u?int(?:8|16|32|64)?"
    r"|string|bool|map\[\w*\][\w{}]+|\[\][\w{}]+|interface ?\{\}|nil|null|number|boolean"
    r"|array|object)\b",
    r"invalid type: [\w ]+(?: \"[^\"]*\")?, expected",
    r"value is not a valid (?:integer|float|dict|list|boolean)",
    r"\[type=(?:\w+_type|\w+_parsing)\b",
    r"\b(?:must|should) be of type\b|\bexpected type\b[^\n]{0,40}\b(?:got|received|but)\b",
    r"\bwrong (?:type|data type)\b",
    r"\bexpected (?:an? )?(?:str|int|float|bool|dict|list)\b[^\n]{0,20}\bgot\b",
)
#: A named argument said not to be of a scalar or container type (mark3labs/mcp-go's getters:
#: "argument \"days\" is not an int", "item 2 in argument \"ids\" is not a string"), and a JSON
#: decoder that found the wrong kind of token at a field's path (kotlinx.serialization: "Unexpected
#: JSON token at offset 23: Unexpected symbol 't' in numeric literal at path: $.days").
NAMED_NOT_OF_TYPE = words(
    "mcp-go mcp-kotlin-sdk plain",
    r"\b(?:argument|parameter|param|field|property|value|key|option) [`'\"]?" + _PARAM + r"[`'\"]?"
    r" is not an? (?:int|integer|bool|boolean|float(?:32|64)?|double|number|string|str|array|object"
    r"|list|map|dict|slice|string slice|int slice)\b",
    r"\bUnexpected JSON token at offset \d+: (?:Unexpected symbol [^\n]{1,8} in numeric literal"
    r"|Expected (?:numeric literal|quotation mark|boolean literal|start of the (?:object|array))"
    r"|Failed to parse (?:literal|type))[^\n]{0,120}? at path: \$\.",
)

#: A list whose items must all be of one kind: "stop_token_ids must contain only integers".
ONLY_OF_TYPE = words(
    "plain", r"\bmust contain only (?:integers|strings|numbers|booleans|objects|arrays)\b"
)

#: A value that could not be turned into the type the tool takes, in the words of many languages:
#: "could not be coerced to []string, is string" (Go), "cannot be converted to int", "Invalid float
#: passed to 'timeout' argument" (OpenHands), "invalid numeric value", "Expected an integer.".
TYPE_CONVERSION = words(
    "github-mcp-server openhands ollama plain",
    # named as a parameter, so a compiler's "String cannot be converted to int" stays its own
    r"\b(?:parameter|argument|field|value|input|option|key) [`'\"]?[\w.\-]+[`'\"]? (?:could not|"
    r"couldn't|cannot|can't) be (?:coerced|converted|cast|parsed) (?:to|into|as) (?:an? )?(?:\[\])?"
    r"(?:int|integer|float|double|number|numeric|string|str|bool|boolean|list|array|object|dict"
    r"|map|slice)\w*\b",
    # vLLM: "logit_bias contains key(s) that cannot be converted to integer token IDs"
    r"\bkeys?(?:\(s\))? that (?:could not|couldn't|cannot|can't) be (?:coerced|converted|cast"
    r"|parsed) (?:to|into|as) (?:an? )?(?:int|integer|float|number|numeric|string|bool|boolean)\b",
    r"\binvalid (?:int|integer|float|double|number|numeric|bool|boolean) (?:value|passed|given"
    r"|supplied|provided|for|argument)\b",
    r"\b[Ee]xpected (?:an? )?(?:integer|int|number|float|boolean|bool|string|list|array|object"
    r"|dict(?:ionary)?)\.?$",
)

#: A value said to be of the wrong JSON kind in plain words: "Item 1 is not an object", "Line
#: numbers must be numbers", "Expected a dict, got <class 'list'>".
TYPE_PLAIN = words(
    "roo-code openai-agents smolagents",
    r"\bis not an? (?:object|array|string|number|integer|boolean|list|dict(?:ionary)?|mapping)\b",
    r"\bmust be (?:valid )?(?:numbers|integers|strings|arrays|objects|booleans|lists)\b",
    r"\bexpected [\w.\-]+ to be (?:an? )?(?:dict|list|str|string|int|integer|number|object|array"
    r"|bool|boolean|float|tuple|mapping)\b",
    r"\bdoes not match (?:its|the) (?:declared |expected )?(?:[\w-]+ )?(?:type|schema)\b",
)

PARAM_VALUE = (
    words(
        "pydantic-ai openai-agents mcp-typescript-sdk vercel-ai roo-code gemini-cli continue cline"
        " smolagents mcp-servers langgraph claude-code qwen-code",
        r"Input should be (?:'|\"|less|greater|at (?:least|most)|a valid (?:url|email|date|uuid))",
        r"Extra inputs are not permitted|\[type=(?:literal_error|extra_forbidden|enum)\b",
        r"(?:unexpected|unknown|unrecognized|additional) (?:parameter|argument|keyword|property"
        r"|key|field)s?\b",
        r"is not in the tool's input schema",
        # a git revision the tool was given that names nothing (GitPython's BadName, as the git MCP
        # server returns it): "Ref 'release/2.0' did not resolve to an object"
        r"\bdid not resolve to an? (?:object|commit|revision|ref)\b",
        r"Invalid enum value|Invalid option: expected one of|Too (?:big|small): expected",
        r"(?:is )?not one of the (?:allowed|permitted|valid) (?:values|options)",
        r"(?:must|should) be (?:one of|either)\b",
        r"\bis not (?:allowed|permitted|accepted|valid|supported) (?:for|as) (?:the )?"
        r"(?:value of )?[`'\"]?[\w.\-]+[`'\"]?\.?$",
        r"\binvalid_(?:enum_value|value|format|string)\b|\btoo_(?:big|small)\b",
        r"must be (?:an? )?(?:between|greater|less|at (?:least|most)|positive|non-negative"
        r"|[\w-]+-indexed|\d+ or (?:greater|less)|in the future|an ISO|one of|absolute|relative"
        r"|unique|different)",
        r"Cannot specify both|cannot be used (?:with|together)|cannot start with '-'",
        r"\b(?:unsupported|unknown|invalid) (?:value|unit|option|mode|format|enum|choice)\b",
        r"^(?:Error: )?Invalid (?!JSON|diff|patch|tool call)[\w ]{1,40}(?::|\")",
        r"^(?:Error: )?(?:Unknown|Unsupported|Unrecognized|Unrecogni[sz]ed) (?!command\b|error\b)"
        r"(?:[\w.\-]+ ){0,6}?[`'\"]?[A-Za-z_][\w.\-]*[`'\"]?: \S",
        r"\binvalid (?:regex|glob|search pattern|pattern)\b",
        r"\b(?:unsupported|cannot read text for) (?:\w+ )?(?:format|file type|extension)s?\b"
        r"|\b(?:file type|file format|format|extension) (?:is )?not supported\b",
        r"\bInvalid (?:mode|offset|insert_line|regular expression|URL|timezone|time format"
        r"|branch name|path|state code|todos format|value|date|option)\b",
        r"(?:skill|rule|entity|task|job|mode|agent|branch|schedule|item) (?:with name )?"
        r"[\"']?[\w .\-]+[\"']? (?:not found|does not exist)",
        # (not a JSON body's `"message": "X not found"`: the quotes around its separator; not a
        # database's own object, `relation "orders" does not exist`, nor a quoted file path)
        r"(?<!relation )(?<!table )(?<!column )(?<!view )(?<!schema )(?<!database )"
        r"(?<!collection )"
        r"[\"'](?!\s*[:,]\s*[\"'])(?!(?:~|\.{1,2})?/|[^\"'\n/]*/[^\"'\n]*\.[A-Za-z0-9]{1,6}[\"'])"
        r"[^\"'\n]{1,80}[\"'][^\n\"']{0,40}? (?:not found|does not exist)\b",
        r"\b(?:cannot|must not|should not|may not) be empty\b|\bat least one non-empty\b",
        r"\bLine (?:with index |number )?\d+ does not exist\b",
        r"\bbeyond the end of (?:the )?file\b|\b(?:line|offset|index|range|value)\b[^\n]{0,30}"
        r"\bout of (?:range|bounds)\b",
    )
    + words(
        # a point or place off the screen or page: "Coordinates 2400, 1800 are out of bounds"
        "plain",
        r"\b(?:coordinates?|position|point|column|page|cell)\b[^\n]{0,30}\b(?:is|are) out of "
        r"(?:range|bounds)\b",
    )
    + words(
        # a background process the call named by id that the tool has none of: crush's "background
        # shell not found: 004" (a bare "shell not found" is a missing program)
        "crush",
        r"^(?:Error: )?background (?:shell|job|task|process) not found: \S",
    )
    + words(
        # the call's input is of a kind this tool does not take, and the message says which tool
        # or form does: "Cannot read image files with read_file. Use view_image instead.", "Use
        # this tool only with Notebook files", "Be sure to use an absolute path", "Only PNG
        # images are supported by display_image"
        "plain",
        r"\b(?:cannot|can't|unable to) (?:read|view|open|edit|write|display|run|parse) [^\n]{1,80}?"
        r" with [`'\"]?[\w.\-]+[`'\"]?\.? (?:Use|Try)\b",
        r"\bUse this tool only (?:with|for|on)\b|\bis not an? (?:notebook|image|text file)\b",
        r"\b(?:use|give|pass|provide) (?:the full|an absolute|a relative|the absolute|a full) "
        r"(?:file ?)?path\b",
        r"^(?:Error: )?Only [\w ,./\"'`-]{1,40} (?:are|is) (?:supported|accepted)\b",
        r"\b(?:path|name|id|key|value|uri|prefix|file ?path|directory|branch)s? must (?:start|begin"
        r"|end) with\b",
        # the input as a whole ("Invalid input.", "Invalid arguments"); a bare "Invalid terminal
        # ID" or "Invalid input path /x" naming what was given is below
        r"^(?:Error: )?Invalid (?:input|arguments?|parameters?)(?:[.,!;]|\s*$)",
        # the selection or symbol the call named cannot take the operation: "No Extract refactor
        # available for the selected code" (Kilo Code), "Cannot find renameable symbol 'x'"
        r"^(?:Error: )?No [\w -]{1,40}? (?:is )?available for the (?:selected|given|provided"
        r"|specified) (?:code|text|range|selection|lines?|symbol)\b",
        # (named or placed: a compiler's bare "cannot find symbol" is the program's own error)
        r"\b" + LOCATE + r" (?:an? |the )?(?:[\w-]+ )?symbol (?:[`'\"]|at\b|named\b|called\b)",
        r"^(?:Error: )?Invalid (?:[\w-]+ ){0,2}(?:ID|id|identifier|path|name|URI|handle|reference"
        r"|index|offset|range)(?:\.?$|:? [`'\"/~.\w])",
    )
)

#: JSON Schema validators' own messages when the keyword that failed is not shown: jsonschema
#: ("0 is less than the minimum of 1", "'turbo' is not one of ['fast', 'safe']", "Additional
#: properties are not allowed") and AJV ("must be >= 1", "must NOT have additional properties").
SCHEMA_VALIDATOR = words(
    "jsonschema gemini-cli",
    r"\bis (?:less|greater) than (?:or equal to )?the (?:minimum|maximum) of\b"
    r"|\bis not one of \[|\bis too (?:long|short)\b|\bdoes not match '|\bis not a '[\w-]+'$",
    r"Additional properties are not allowed|must NOT have (?:additional|more|fewer) "
    r"|must be (?:[<>]=?|equal to one of the allowed values)",
)
#: A URL that does not parse (urllib's "unknown url type", Cline's "Invalid URL: ...").
BAD_URL = words(
    "mcp-python-sdk cline",
    r"\bunknown url type\b|\b(?:invalid|malformed|bad) URL\b|\bnot a valid URL\b",
    r"\bURL (?:scheme|protocol) must be\b",
    r"\bOnly https?(?:,? (?:and )?https?)?(?:,? and data)? (?:URLs )?(?:are|is) (?:supported"
    r"|allowed|permitted|accepted)\b",
    r"\b(?:unsafe|unsupported|invalid|disallowed|forbidden) (?:URL )?(?:protocol|scheme)\b",
) + words(
    "plain",
    r"\bURLs? must (?:start|begin) with\b|\bmust (?:start|begin) with https?://",
    r"\bURLs? must (?:have|include|contain) an? (?:hostname|host|scheme|protocol|domain)\b",
)
#: A named item the tool has none of ("no note named todo").
NOTHING_NAMED = words(
    "mcp-python-sdk",
    r"\bno (?:file|note|resource|document|page|template)s? (?:named|called)\b",
)
#: Nothing found under the id or name the call gave ("No capability found with id 'web'",
#: "No output log found for process ID 4242", "no job found with name x"): the value names
#: nothing there, like "Job bg-3 not found".
NOTHING_WITH_ID = words(
    "plain",
    r"^(?:Error: )?No [\w-]+(?: [\w-]+){0,2} (?:was )?found (?:for|with) (?:the )?(?:[\w-]+ )?"
    r"(?:id|ID|name|key|number|identifier)\b",
    # a handle the agent gave out earlier, gone or never given: crush's "background shell not
    # found: 004", "session not found: s-12", "job 7 not found"
    r"^(?:Error: )?(?:background )?(?:shell|session|process|job|task|terminal|thread|run)"
    r"(?: (?:id|ID))?(?: [`'\"]?[\w.\-]{1,40}[`'\"]?)? not found"
    r"(?::? [`'\"]?[\w.\-]{1,40}[`'\"]?)?\.?$",
)

#: A position past the end of the file it points into: crush's "symbol range exceeds file length",
#: "line 120 is beyond the end of the file", "offset 5000 is past the end of the document".
PAST_END_OF_FILE = words(
    "crush plain",
    r"\b(?:range|line|lines|offset|position|index|start|end|column)\b[^\n]{0,40}? (?:exceeds?|is "
    r"(?:past|beyond|after)|goes past|runs past) (?:the )?(?:end of the )?(?:file|document|buffer)"
    r"(?:'s)?(?: length| size| end)?\b",
)

#: Bounds on a list: how many items it may have ("must have at least one", "Maximum of 25
#: tools allowed in batch", "Provide at least one tool call").
VALUE_BOUNDS = words(
    "gemini-cli opencode",
    r"\bmust (?:have|contain|include) (?:at (?:least|most)|no more than|fewer than|between|exactly)"
    r" [\w-]+",
    r"\b(?:maximum|max|at most|no more than|up to) (?:of )?\d+ [\w-]+(?: [\w-]+)? (?:are |is )?"
    r"(?:allowed|permitted|accepted)\b",
    r"^\s*(?:- )?[\w.\-]+: (?:Provide|Give|Pass|Supply|Include) at least one\b",
    # a number past a stated bound: "limit 500 is over the maximum of 100", "is below the minimum
    # of 1", "Too many files in diff (137). Maximum is 100 files.", "requires 'options' array
    # with 2-4 items"
    r"\b(?:is )?(?:over|above|beyond|greater than|more than|larger than|exceeds) the (?:maximum|max"
    r"|upper (?:bound|limit))(?: allowed| permitted)? of \d+",
    r"\b(?:is )?(?:under|below|less than|smaller than) the (?:minimum|min|lower (?:bound|limit))"
    r"(?: allowed| permitted)? of -?\d+",
    r"\btoo (?:many|few) [\w-]+(?: [\w-]+){0,2} \(\d+\)[.,;:]? *(?:the )?(?:maximum|max|minimum|min"
    r"|limit) (?:is|of|allowed is) \d+",
    r"\b(?:array|list) (?:with|of|containing) \d+ ?(?:-|–|to) ?\d+ (?:items|entries|elements"
    r"|values)\b",
    r"\b(?:line|offset|index|position|page|row) (?:number )?-?\d+ (?:exceeds|is (?:beyond|past"
    r"|greater than|after)) (?:the )?(?:number of (?:lines|rows|pages)|(?:file|document) length"
    r"|end of (?:the )?(?:file|document)|total (?:number of )?lines)\b",
)

#: A value outside a range said as an interval or a stated bound: "must be in [-2, 2], got 2.5",
#: "must be in (0, 1]", "must be strictly positive", "`stop` supports up to 4 stop sequences",
#: "which is greater than max allowed: 20", "Too many stop sequences (maximum 4)", "max_tokens is
#: too large (maximum 100000)", "Only one completion choice is allowed".
RANGE_STATED = words(
    "plain",
    r"\bmust be in [\[(]-?[\d.]+, ?-?[\d.]+[\])]",
    r"\bmust be strictly (?:positive|negative|greater than|less than)\b",
    r"\b(?:supports?|allows?|accepts?) (?:up to|at most|a maximum of|no more than) \d+\b",
    r"\bgreater than (?:the )?max(?:imum)? allowed:? \d+",
    # "(maximum 4)" spelled out: "Too many redirects (max 5)" is an HTTP client's, not a value's
    r"\btoo (?:many|large|small|big|long|short)\b[^\n]{0,40}?\((?:maximum|minimum):? ?-?\d+\)",
    r"\bonly one [\w-]+(?: [\w-]+)? (?:is|may be|can be) (?:allowed|permitted|accepted)\b",
)
#: Settings of one request that exclude or require each other: "Stream options can only be
#: defined when `stream=True`", "`prompt_logprobs` are not available when `stream=True`", "Cannot
#: set both `a` and `b`", "Cannot use tools with stream", "top_logprobs requires logprobs to be set
#: to true", "when using `x`, `logprobs` must be set to true", "You can only use one kind of
#: constraints".
SETTINGS_COMBINED = words(
    "plain",
    r"\bcan only be (?:defined|enabled|requested|specified) (?:when|if|with)\b",
    r"\b(?:is|are) not (?:available|allowed|supported|permitted) when\b",
    r"\bcannot (?:set|use|pass|specify|provide|enable) both\b",
    r"\bcannot use [\w`'\" -]{1,60}? with [\w`'\"]",
    r"\brequires? [`'\"]?[\w.]+[`'\"]? to be (?:set|enabled|true)\b",
    r"\bwhen using [`'\"]?[\w.]+[`'\"]?, [`'\"]?[\w.]+[`'\"]? must be (?:set|true|enabled)\b",
    r"\bcan only use one (?:kind|type|sort) of\b",
    # a setting only a server flag allows ("tools param requires --jinja flag", "\"auto\" tool
    # choice requires --enable-auto-tool-choice and --tool-call-parser to be set"), and a value a
    # mode fixes ("n must be 1 when using greedy sampling")
    r"\brequires? (?:the )?`?--[\w-]+`?(?: (?:flag|option)\b| and `?--[\w-]+`? to be set\b)",
    r"\bmust be [\w.\-]+ when using\b",
)
#: A list or string that may not be empty: "`logprob_token_ids` must not be an empty list",
#: "bad_words cannot contain an empty string".
EMPTY_NOT_ALLOWED = words(
    "plain",
    r"\bmust not be (?:an? )?empty(?: list| array| string| object)?\b",
    r"\bcannot contain an empty (?:string|value|item|entry)\b",
)
#: A model named and nothing else (Anthropic's not_found_error: "model: claude-3-5-sonnet"), and
#: token ids the model's vocabulary does not have (vLLM: "contain out-of-vocab token ids").
MODEL_NAMED_ONLY = words("anthropic-api", r"^model: [\w.:/\-]+\s*$")
OUT_OF_VOCAB = words("vllm", r"\bout[- ]of[- ]vocab(?:ulary)? token")

#: A value the tool finds unusable as a whole, named by its parameter ("The todos parameter is
#: not valid markdown checklist or JSON", "Each todo must have a valid status").
NOT_VALID_PARAM = words(
    "plain",
    r"\b(?:the )?[`'\"]?[\w.\-]+[`'\"]? (?:parameter|argument|field|option) (?:is not|isn't) "
    r"(?:a )?valid\b",
    r"\b(?:parameter|argument|field|option) [`'\"][\w.\-]+[`'\"] (?:is not|isn't) (?:a )?valid\b",
    r"\bmust (?:have|be|use|contain) (?:a )?valid [\w-]+ \(",
    r"^(?:Error: )?Invalid [`'\"]?(?!JSON\b|tool\b|function\b)[\w.\-]+[`'\"]? "
    r"(?:parameter|argument)(?: value)?: ",
    r"\b[`'\"]?[\w.\-]+[`'\"]? (?:parameter|argument|field|input) validation failed\b"
    r"|\bvalidation failed for (?:the )?(?:parameter|argument|field) ",
    r"\b(?:URI|URL|path|id|ID|name|value|key|format|timezone):? [`'\"]?\S{1,200}?[`'\"]? is "
    r"(?:invalid|not valid)\b",
    r"\bmust (?:have|use|end (?:with|in)) (?:an? |the )?[`'\"]?\.\w{1,8}[`'\"]? (?:extension"
    r"|suffix)\b",
)

#: A tool's input refused by its schema, said as that (LangChain's "Received tool input did not
#: match expected schema").
SCHEMA_REFUSED_INPUT = words(
    "langchain-js plain",
    r"\b(?:tool )?(?:input|arguments|parameters) (?:did not|does not|do not|didn't|doesn't) match "
    r"(?:the )?(?:expected |tool'?s? |input )?schema\b",
    r"^(?:Error: )?Invalid (?:arguments|parameters|input)\.?$",
)

#: An enum variant that does not exist (serde: "unknown variant `kelvin`, expected `celsius` or
#: `fahrenheit`"), and an argument the tool does not take (DSPy: "Arg verbose is not in the
#: tool's args.").
NOT_A_CHOICE = words(
    "rmcp dspy plain",
    r"\bunknown variant [`'\"][^`'\"\n]{1,64}[`'\"], expected\b",
    r"\bis not (?:in|among|one of) the (?:tool'?s? )?(?:args|arguments|parameters|params|inputs)\b",
)

#: A graph of tasks or dependencies the call would make invalid: a cycle, a thing that depends on
#: itself (gemini-cli's task tracker, and the same shape in build and workflow tools).
SELF_REFERENCE = words(
    "gemini-cli github-mcp-server",
    r"\b(?:cannot|can't|must not|may not) (?:[\w-]+ (?:or|and|/) )?(?:depend on|reference|block"
    r"|link to|point to|contain|include|duplicate|be (?:a )?(?:parent|child|subtask|duplicate|"
    r"blocker) of) itself\b",
    r"\bcircular (?:dependency|reference) detected\b|\bwould (?:create|introduce) a (?:cycle|"
    r"circular (?:dependency|reference))\b",
)
#: Values that go together or exclude each other: "duplicate_of can only be used when state_reason
#: is 'duplicate'", "only one of after_id or before_id should be specified, not both", "provide
#: either 'after' or 'before', not both", "--a and --b are mutually exclusive", "is only valid
#: when".
VALUE_COMBINATION = words(
    "github-mcp-server plain",
    r"\b(?:can|may|must) only be (?:used|set|provided|specified|given|combined|passed|supplied)"
    r" (?:when|if|with|for|together with|in combination with)\b",
    r"\b(?:is|are) only (?:valid|allowed|permitted|supported|accepted|applicable) (?:when|if|with"
    r"|for)\b",
    r"\bmutually exclusive\b|,? not both\b|\bonly one of\b[^\n]{1,80}?\b(?:may|can|should|must)"
    r" be (?:given|specified|provided|set|used|passed)\b",
    r"\bcannot be combined with\b",
    r"[`'\"][\w.\-]+[`'\"] (?:is|are) not (?:allowed|permitted|valid|supported) (?:when|if|with"
    r"|together with)\b",
)
#: A length or count a value may not pass: "rationale must be 280 characters or less", "must be
#: at most 100 characters", "must not exceed 50 items", "title is longer than 256 characters".
LENGTH_BOUNDS = words(
    "github-mcp-server plain",
    r"\bmust (?:be|have) (?:at (?:most|least) |no (?:more|longer|fewer) than |fewer than |less "
    r"than |more than )?\d+ (?:characters?|chars|bytes|words|items|elements|entries|lines|digits)"
    r"(?: or (?:less|fewer|more|shorter|longer))?\b",
    r"\b(?:must not|may not|cannot|can't|should not) (?:exceed|be longer than|be more than|have "
    r"more than) \d+ (?:characters?|chars|bytes|words|items|elements|entries|lines)\b",
    r"\bis (?:longer|shorter) than \d+ (?:characters?|chars|bytes|words|items)\b",
)
#: A parameter the tool wants in place of the one the call used: "Use the 'after' parameter with
#: the 'endCursor' value ... instead of 'page'", "use `path` instead of `file`".
USE_INSTEAD = words(
    "github-mcp-server plain",
    r"\b(?:use|pass|provide|set) (?:the )?[`'\"][\w.\-]+[`'\"] (?:parameter|argument|field|option)"
    r"\b[^\n]{0,80}?\binstead\b",
    r"\b(?:use|pass|provide) [`'\"][\w.\-]+[`'\"] instead of [`'\"][\w.\-]+[`'\"]",
)
#: A date or time that does not parse: "invalid since time format, should be RFC3339/ISO8601",
#: "invalid date", "must be YYYY-MM-DD format", "cannot parse \"yesterday\" as \"2006\"" (Go).
BAD_TIME = words(
    "github-mcp-server plain",
    r"\binvalid (?:[\w-]+ ){0,2}(?:time|date|datetime|timestamp|duration)(?: format| value)?\b",
    r"\b(?:should|must) be (?:in )?(?:an? )?(?:valid )?(?:RFC ?3339|ISO[- ]?8601|YYYY-MM-DD)\b",
    r"\bparsing time \"[^\"\n]{0,60}\" as \"",
)
#: A value a tool cannot use as a whole: text that is not text ("File could not be decoded as
#: utf-8", "not valid UTF-8"), several commands where one is run at a time ("Cannot execute
#: multiple commands at once"), an input with nothing in it to run ("No code blocks to execute").
UNUSABLE_INPUT = words(
    "openhands autogen plain",
    r"\b(?:could not|couldn't|cannot|can't|unable to|failed to) (?:be )?decoded? (?:\S+ )?(?:as )?"
    r"(?:utf-?8|text|ascii|unicode)\b|\b(?:is )?not (?:valid )?utf-?8\b(?! encoded locale)",
    r"\b(?:cannot|can't|unable to|may not|must not) (?:execute|run|process|handle|send) "
    r"(?:multiple|several|more than one|many) (?:commands|statements|queries|scripts|requests)\b",
    r"\bonly one (?:command|statement|query|script) (?:is )?(?:allowed|permitted|supported|"
    r"at a time)\b",
    r"^(?:Error: )?No (?:code|code blocks?|command|commands|script|query|statement|input)s? "
    r"(?:(?:was |were )?found )?to (?:execute|run|process)\b",
)
#: A model or provider the server does not have: "The model `x` does not exist or you do not have
#: access to it" (OpenAI-compatible 404), "LLM Provider NOT provided ... You passed model=x"
#: (LiteLLM), "model \"x\" not found, try pulling it first" (Ollama).
UNKNOWN_MODEL = words(
    "litellm ollama lmstudio",
    r"\bmodel [`'\"][^`'\"\n]{1,80}[`'\"] (?:does not exist|doesn't exist|not found|is not "
    r"(?:available|found|served|loaded))\b",
    r"\bmodel not found:? [`'\"]?[\w./:\-]+",
    r"^(?:Error: )?Model [\w./:\-]+ (?:not found|does not exist)\b",
    r"\bprovider (?:was |is )?not (?:provided|specified|given|recogni[sz]ed|supported)\b"
    r"|\bunknown (?:LLM |model )?provider\b|\bmodel_not_found\b",
)
#: An HTTP API that rejected the values of a request it understood: "422 Validation Failed
#: [{Resource:PullRequest Field:head Code:invalid}]" (GitHub through go-github), "422
#: Unprocessable Entity".
VALIDATION_STATUS = words(
    "github-mcp-server http",
    r"\b422 (?:Validation Failed|Unprocessable (?:Entity|Content))\b",
    r"\bField:\s*[\w.\-]+ Code:\s*(?:invalid|custom|unprocessable)\b",
)
#: One value compared with another: "start_line cannot be greater than end_line" (gemini-cli),
#: "Start line 50 must be less than end line 20" (goose), "endLine must be greater than or equal
#: to startLine" (Continue).
VALUE_ORDER = words(
    "gemini-cli goose continue",
    r"\b(?:cannot|can't|must not|may not|should not|must|should) be (?:greater|less|larger|smaller"
    r"|more|bigger|later|earlier|after|before)(?: than)?(?: or equal to)? \S",
)
#: A value that may not be empty: "cannot be empty" (gemini-cli), "must be non-empty"
#: (gemini-cli), "at least one non-empty" (pydantic-ai).
EMPTY_VALUE = words(
    "gemini-cli pydantic-ai",
    r"\bmust be (?:a )?non-?empty\b|\bmust not be blank\b",
)

#: A value outside a set the message itself lists or points to: "Choose between 'WIKI' or
#: 'HTML'", "Supported transports are ...", "Unsupported transport: X", "Item 3 has invalid
#: status", "Unknown team member \"qa\"", "Skill \"x\" is configured but disabled", a binary
#: file where text is read.
VALUE_CHOICES = words(
    "smolagents roo-code cline openai-agents",
    r"\b(?:Choose|Use|Pick|Select) (?:between|either|one of)\b",
    r"\bSupported (?:[\w-]+ )?(?:are|values|formats|types|options|transports|modes)\b"
    r"|\bValid (?:[\w-]+ )?(?:values|options|choices) (?:are|:)",
    r"\b(?:unsupported|unknown|invalid|unexpected) (?:[\w-]+ )?(?:transport|type|provider|engine"
    r"|action|protocol|status|state|kind|category|level|mode|format)\b",
    r"\bhas (?:an )?invalid [\w-]+\b",
    r"^(?:Error: )?Unknown (?!error\b)[\w ]{1,30}? [`'\"][^`'\"\n]{1,80}[`'\"]",
    r"[`'\"][\w .\-]{1,60}[`'\"] is (?:configured but )?disabled\b",
    r"\b" + LOCATE + r" (?:a |an |the )?(?:model|agent|mode|skill|artifact|profile|preset|template"
    r"|workflow|provider|entity|record|collection|index)\b",
    r"^(?:Error: )?(?:Model|Agent|Mode|Skill|Artifact|Profile|Preset|Template|Workflow|Provider"
    r"|Entity|Record|Collection|Index) not found\b",
    r"\b(?:cannot|can't|unable to) read (?:a |the )?binary\b|\bbinary files? (?:is |are )?not "
    r"supported\b",
) + words(
    # the choices listed after the refusal: "The allowed commands for the str_replace_editor
    # tool are: view, create", "Key Hyper not found. Supported keys: Enter, Tab", "direction
    # must be 'incoming' or 'outgoing'"
    "plain",
    r"\b(?:the )?(?:allowed|supported|valid|available) [\w-]+(?: for [^\n]{1,60}?)? are: \S",
    r"(?:not found|invalid|unknown|unsupported)\b[^\n]{0,80}?[.;] (?:Supported|Allowed|Valid) "
    r"[\w-]+: \S",
    r"\bmust be [`'\"][^`'\"\n]{1,40}[`'\"] or [`'\"][^`'\"\n]{1,40}[`'\"]",
    # a field that takes one literal: "'response_format.type' must be 'json_schema'"
    r"[`'\"][\w.\-]+[`'\"] must be [`'\"][^`'\"\n]{1,40}[`'\"]",
    r"\bmust (?:have|use) (?:the )?(?:protocol|scheme|prefix|type) [`'\"][^`'\"\n]{1,40}[`'\"] or "
    r"[`'\"]",
)

#: A capability the named thing does not have ("\"nomic-embed\" does not support chat", "raw
#: mode does not support template", "this model only supports one image", "image generation
#: models are not currently supported"): the call asked for something this target cannot do.
UNSUPPORTED_REQUEST = words(
    "plain",
    # (not a size limit: "This tool only supports reading 400000 bytes at a time" is the size's)
    r"\b(?:does not|doesn't|do not|don't|cannot) support\b"
    r"|\bonly supports?\b(?! (?:reading |writing |returning )?\d[\d,.]* ?(?:bytes|[kmg]i?b"
    r"|tokens|characters|chars|lines)\b)",
    r"\b(?:is|are) not (?:currently |yet )?supported\b",
)
#: A whole message that names one missing thing ("missing request body").
MISSING_THING = words(
    "plain",
    r"^(?:Error: )?missing [\w-]+(?: [\w-]+){0,2}\.?$",
    r"\b(?:is|are) missing (?:a |an |the |its )?(?:valid |required )?[\w-]+(?: [\w-]+)?\.?$",
)

#: A value with characters the tool does not take ("Path contains invalid characters").
BAD_CHARACTERS = words(
    "gemini-cli mcp-servers",
    r"\bcontains? (?:invalid|illegal|unsupported|forbidden|disallowed|suspicious) (?:characters?"
    r"|values?|entries|keys|bytes)\b",
)
#: A value the tool needs that the call did not give, said as what "you must specify".
MUST_SPECIFY = words(
    "langgraph gemini-cli",
    r"\bmust (?:specify|provide|include|give) an? non-?empty (?!old|search)[\w-]+\b",
    r"\bmust (?:specify|provide|pass|supply) (?:the |an? )?[\w-]+(?: [\w-]+)? (?:when|if|for"
    r"|argument|parameter|field|value)\b",
)

# --- files and edits ------------------------------------------------------------------------

FILE_WRONG_KIND = words(
    "os gemini-cli mcp-servers roo-code aider",
    r"\bE(?:IS|NOT)DIR\b",
    r"\bis (?:not )?a directory\b",
    r"\bis not a (?:regular )?file\b",
    r"Not a file or directory",
    r"not a valid directory or file",
    r"illegal operation on a directory",
    r"\bNot a directory\b|\bENOTDIR\b|NotADirectoryError",
)

#: cp without -r on a directory.
DIRECTORY_OMITTED = words("coreutils", r"\bomitting directory\b")
#: A whole message naming a path of the wrong kind (the MCP CLI's "Not a file: PATH").
NOT_A_KIND = words(
    "mcp-python-sdk cline gemini-cli", r"^(?:(?:Search )?Path is )?[Nn]ot a (?:file|directory): \S"
)

FILE_MISSING = words(
    "os roo-code cline claude-code gemini-cli continue opencode mcp-servers aider goose",
    r"\bENOENT\b|No such file or directory|FileNotFoundError|os error 2\b",
    r"(?:file|directory|path|folder|dir|image|log file)(?: or directory)?\b[^\n]{0,120}?"
    r"(?:does not exist|doesn't exist|not found|could not be found|was not found"
    r"|is not accessible|inaccessible)",
    r"(?:^|error: |\W)(?:File|Directory|Path|Image|Log file) not found\b",
    r"The system cannot find the (?:file|path) specified",
    r"Could not find file\b|Failed to read file\b",
    r"Parent directory does not exist",
    r"\bMissing File:? \S|\bUnknown resource:? \S",
    r"Cannot find module '(?:/|\.{1,2}/|[A-Za-z]:\\)",  # Node: a script path, not a package
    r"(?:file or directory|path) not found:",
    r"unable to open (?:the )?(?:database )?file",  # SQLite's SQLITE_CANTOPEN
    # "Cannot mount non-existent file: data/sales.csv" (DSPy's interpreter)
    r"\bnon-?existent (?:file|path|directory|folder)\b",
)

#: A file or directory a search did not find, in plain words ("Unable to locate file a.py",
#: "Cannot find file: a.py", "a.py: no such file", "No file exists at path a.py").
FILE_NOT_LOCATED = words(
    "plain",
    r"\b" + LOCATE + r" (?:the |an? )?(?:[\w-]+ ){0,3}(?:file|directory|folder|dir|path)\b",
    # the JVM launcher's "Unable to access jarfile build/app.jar", and "unable to access file X"
    r"\bunable to access (?:jar)?file \S",
    # a bare relative path with a slash said not to exist ("docs/setup.md does not exist; ...")
    r"(?:^|[\s\"':])(?:\.{0,2}/)?[\w.\-]+(?:/[\w.\-]+)+ (?:does not exist|doesn't exist"
    r"|was not found)\b",
    r": no such (?:file|directory|folder|path)\b",
    r"^(?:Error: )?" + LOCATE + r" [`'\"](?:[~.]{0,2}/|[A-Za-z]:\\)[^`'\"\n]+[`'\"]\.?$",
    r"\bno (?:such )?(?:file|directory|folder)s? (?:exists? )?(?:at|named|called|matching|found)\b",
)

#: A file, directory or resource that could not be read, opened or found, by any verb.
UNREADABLE_PATH = words(
    "gemini-cli vercel-ai mcp-servers roo-code cline",
    r"\b(?:could not|couldn't|cannot|can't|unable to|failed to) (?:read|open|access|list|stat) "
    r"(?:the )?(?:file|directory|folder|dir)\b",
    r"\bresource\b[^\n]{0,60}?\b(?:not found|does not exist|could not be found)\b",
)

#: Programs that name the missing file in their own words: git mv's source, a "cannot (find or)
#: open NAME.ext" (unzip's archive), curl's upload file, a list of directories none of which
#: exists.
FILE_MISSING_PROGRAMS = words(
    "git unzip curl mcp-servers",
    r"\bbad source, source=",
    r"\b(?:could not|couldn't|cannot|can't|unable to) (?:find or )?open [`'\"]?"
    r"[\w./\-]+\.\w{1,8}\b",
    r"Failed to open/read local data",
    r"\bnone of the [^\n]{0,40}\b(?:files|directories|paths|folders) (?:are|were) (?:accessible"
    r"|found|readable)",
)

#: A numbered item of a repository that is not there (Agno's GitHub tools: "Could not find comment
#: #4021 in repository: acme/webapp").
NUMBERED_ITEM_MISSING = words(
    "agno plain",
    r"\b" + LOCATE + r" (?:the )?(?:issue|comment|pull request|PR|commit|release|discussion|"
    r"milestone|review) #?\d+ in (?:the )?(?:repository|repo)\b",
)

#: A member an archiver did not find in the archive, or a name it was given that matched nothing:
#: tar's "x: Not found in archive", zip's "name not matched: build", unzip's "caution: filename
#: not matched:  index.html", 7-Zip's "No files to process".
ARCHIVE_MEMBER_MISSING = words(
    "tar zip",
    r"\bNot found in archive\b",
    r"\b(?:file)?name not matched:",
    r"^No files to process$",
)

FILE_EXISTS = words(
    "os gemini-cli continue mcp-servers",
    r"\bEEXIST\b|FileExistsError|\[Errno 17\]|\bFile exists\b",
    r"(?:file|directory|path)\b[^\n]{0,120}?already exists",
    r"(?:create|creating) a file that already exists",
    r"(?:^|\b(?:a|an|the) )[\w-]+ (?:named|called|with (?:the )?(?:id|name)) [`'\"]?[\w./\-]+"
    r"[`'\"]? already exists\b",
    r"\b(?:destination|target|dest|output)(?: path| file| directory| folder)?\b[^\n]{0,40}?"
    r"\balready exists\b",
)

#: A tool that will not overwrite what is there.
NO_OVERWRITE = words(
    "plain",
    r"\b(?:refus\w+ to|will not|won't|cannot|can't|does not|doesn't) overwrite (?:the |an |any )?"
    r"existing\b",
)

#: A quoted path (it has a slash) that already exists: git worktree and friends.
PATH_EXISTS = words(
    "git continue",
    r"(?:^|: )'[^'\n]*/[^'\n]*' already exists",
    r"(?:^|[\s:])[`'\"]?(?:\.{0,2}/)?[\w.\-]+(?:/[\w.\-]+)+[`'\"]? already exists\b",
)

DIFF_STALE = words(
    "claude-code opencode qwen-code",
    r"has not been read(?: yet| in this session)?",
    r"must be read first|must read (?:the )?file",
    r"(?:modified|changed) since (?:it was )?(?:last )?read",
    r"File has been (?:unexpectedly )?modified",
)

DIFF_IDENTICAL = words(
    "claude-code gemini-cli opencode roo-code continue",
    r"No changes to (?:apply|make)",
    r"(?:old_?string|oldString|search(?: content)?|old_?text|old_?str)[`'\"]?[\w ]{0,20} and "
    r"[`'\"]?(?:new_?string|newString|replace(?: content)?|new_?text|new_?str)[`'\"]?[\w ]{0,20}"
    r" (?:are|must be) (?:identical"
    r"|exactly the same|different|the same)",
    r"no changes would be made",
) + words(
    # crush's "new content is the same as old content. No changes made.", SWE-agent's "Your
    # search and replace strings are the same."
    "crush swe-agent",
    r"\b(?:new|replacement) (?:content|text|string) is the same as (?:the )?(?:old|original"
    r"|existing|current) (?:content|text|string)\b",
    r"\b(?:search|old|find) and (?:replace|new|replacement) (?:strings?|texts?|contents?) "
    r"(?:are|were) (?:the same|identical)\b",
)
#: Edits that leave the file as it was, said of their result: crush's "no changes made - all
#: edits resulted in identical content", "File x already contains the exact content."
DIFF_UNCHANGED_RESULT = words(
    "crush plain",
    r"\b(?:resulted|results|would result) in (?:the )?(?:identical|same|unchanged) (?:content"
    r"|file|text)\b",
    r"\balready contains the (?:exact|same|new|requested|given) content\b",
)

#: The file already has what the edit asks for (an LLM-checked edit found nothing to do).
DIFF_ALREADY_DONE = words(
    "gemini-cli", r"\balready (?:meets|satisfies) the (?:specified|requested|desired)"
) + words(
    # gemini-cli's LLM-checked edit and Roo Code's "No changes needed for 'src/x.ts'"
    "gemini-cli roo-code",
    # (not Roo Code's success "No changes needed for 'PATH'": the edit left the file as it was)
    r"\bNo changes (?:are )?(?:required|needed|necessary)\b(?! for [`'\"])",
)

DIFF_AMBIGUOUS = words(
    "claude-code opencode gemini-cli continue cline goose qwen-code parser",
    r"Found \d+ matches of the string to replace",
    r"(?:found |multiple |)(?:matches|occurrences) (?:for|of) (?:the )?" + SEARCH_TEXT,
    # "Multiple matches found for the text to replace" (VS Code Copilot Chat), "several
    # occurrences were found for old_string"
    r"\b(?:multiple|several|\d+) (?:exact |fuzzy )?(?:matches|occurrences) (?:were )?found (?:for"
    r"|of) (?:the )?" + SEARCH_TEXT,
    r"Found multiple matches",
    r"multiple occurrences",
    r"Expected 1 occurrence but found \d+",
    r"\bFound \d+ (?:matches|occurrences) (?:of|for)\b",
    r"Occurrence count mismatch|Expected \d+ occurrences?(?:\(s\))?,? but (?:found|matching found)",
    r"appears (?:\d+ times|multiple times|more than once)",
    r"more than (?:one|once) (?:match|occurrence|place)",
) + words(
    # goose's editor: "Found 3 matches. Please provide more context to identify a unique match";
    # the same request in other words ("old_str is not unique in the file", "make the match
    # unique")
    "goose plain",
    r"^(?:Error: )?Found (?:[2-9]|\d{2,}) matches\b",
    r"\b(?:identify|find|get|make) (?:a |the )?(?:match|search text|old_?str(?:ing)?) unique\b"
    r"|\bto identify a unique match\b",
    r"\b" + SEARCH_TEXT + r"\b[^\n]{0,80}? (?:is not|isn't|was not|must be) unique\b",
)

#: The search text counted more than once, in plain words ("old_str matched 3 times").
MATCHED_TIMES = words(
    "plain",
    r"\b(?:matched|matches|occurs|occurred|found) (?:[2-9]|\d{2,}) times\b",
    # the same count in places: "old_text matches 3 locations in a.py", "found in 2 places"
    r"\b(?:matched|matches|occurs (?:in|at)|found (?:in|at)) (?:[2-9]|\d{2,}) (?:locations|places"
    r"|spots|positions)\b",
)

#: The empty search text a file creation may use only in the first edit of a batch (Continue's
#: "Only the first edit can have an empty old_string", crush's "first edit must have empty
#: old_string for file creation", "edit 2: only the first edit can have empty old_string").
DIFF_FIRST_EDIT_ONLY = words(
    "continue crush",
    r"\b(?:only )?the first edit (?:can|may|must) (?:have|use|contain) (?:an? )?empty\b"
    r"|\bfirst edit must have (?:an? )?empty\b",
)

DIFF_MALFORMED = words(
    "roo-code aider codex continue",
    r"Invalid (?:diff|patch)(?: format)?\b",
    r"Failed to parse patch",
    r"(?:Unmatched|Unpaired) \S+ in SEARCH/REPLACE block",
    r"Expected [`'\"]?(?:=======|>>>>>>> REPLACE|<<<<<<< SEARCH)",
    r"\b(?:diff|patch|hunk|edit)(?: block)?s? (?:is |was |are )?malformed\b"
    r"|\bmalformed (?:diff|patch|hunk|edit)|\bmalformed [\w/]+ blocks?\b",
    r"first line of the patch must be",
    r"Empty search content is not allowed|old_string cannot be empty",
    # "File already exists. Please provide a non-empty old_string for replacement." (VS Code)
    r"\b(?:provide|use|give|pass|supply) an? non-?empty " + SEARCH_TEXT,
    # a search text carrying the line numbers of a numbered view: "old_str contains a line number
    # prefix, which is not allowed" (Letta)
    SEARCH_TEXT + r"[`'\"]? contains (?:a |the )?line[- ]number",
    # two edits of one call on the same text: "Edit at index 2 conflicts with another
    # replacement in a.ts", "edits 1 and 3 overlap"
    r"\b(?:edit|replacement|change|hunk)s?\b[^\n]{0,40}?\b(?:conflicts?|overlaps?) with (?:another"
    r"|an earlier|a previous|an?other|the previous) (?:edit|replacement|change|hunk)\b"
    r"|\b(?:edits|replacements|changes|hunks) (?:[\d, ]+(?:and \d+ )?)?overlap\b",
    r"missing required sections",
    r"Unexpected line found in update hunk",
    r"\bpatch fragment without header\b|\bcorrupt patch at line\b|\berror parsing (?:the )?"
    r"(?:patch|diff)\b(?![^\n]{0,60}\b(?:file|path) not found\b)",
    r"must be (?:in |a )?(?:valid )?unified diff(?: format)?",
    r"\bnot a (?:valid )?(?:unified )?diff\b",
) + words(
    # a batch of edits where only the first may create the file (crush's multiedit)
    "crush",
    r"\b(?:only the )?first edit (?:can|must|may) have (?:an )?empty\b",
)
#: A patch or change with nothing in it: "patch rejected: empty patch", "no hunks found" (OpenCode),
#: "UPDATE change for a.ts has no new content" (Cline), "ADD change ... has no content" (Aider).
PATCH_EMPTY = words(
    "opencode cline aider",
    r"\bempty (?:patch|hunk)\b"
    r"|\bno (?:applicable |valid |usable )?hunks (?:found|in (?:the )?patch)\b",
    r"\b(?:change|hunk|patch|diff|edit) for [^\n]{1,200}? has no (?:new )?(?:content|lines"
    r"|changes)\b",
)
#: The apply_patch format's parsers (Cline's SDK, Roo Code): a line the grammar does not know, a
#: hunk without its `@@` marker, an empty hunk.
PATCH_GRAMMAR = words(
    "cline roo-code",
    r"\b(?:Unknown|Invalid) (?:line|Add File line|Update File line)\b[^\n]{0,20}?"
    r"(?:while parsing|:)",
    r"\bExpected update hunk to start with\b|\bhunk for path [^\n]{1,200} is empty\b",
    r"\bincomplete sentinels\b",
)

#: The same grammar's structure errors as other parsers of it word them: the patch's first or
#: last line, a hunk without lines or with an unknown header, and the OpenAI Agents SDK's
#: `Invalid Context 3:` / `Invalid Anchor 0:` with the offending lines after it.
PATCH_STRUCTURE = words(
    "cline roo-code openai-agents codex",
    r"\b(?:first|last) line of the patch must be\b",
    r"\bhunk (?:does not contain|has no|is missing) (?:any )?lines\b",
    r"\bis not a valid hunk header\b",
    r"^Invalid (?:EOF )?(?:Context|Anchor|Add File Line|Line)\b(?! numbers?\b)(?:[^\n]{0,20}:"
    r"|[^\n]{0,120}:\n)",
)
#: Hunks of such a patch that did not match the file ("Patch could not be applied because 2 hunks
#: did not match", "Failed to find context 'def f():' in src/a.py").
PATCH_UNMATCHED = words(
    "cline roo-code codex",
    r"\b(?:hunks?|chunks?) (?:did|does|do) not match\b",
    r"\bFailed to find (?:context|expected lines)\b",
)

DIFF_NO_MATCH = (
    words(
        "claude-code opencode gemini-cli qwen-code roo-code kilocode cline aider continue"
        " mcp-servers goose codex",
        r"(?<![\w-])"
        + SEARCH_TEXT
        # "string" / "text" starting a file name ("File src/strings.py not found") names a file
        + r"(?![\w-]*\.[A-Za-z])[^\n]{0,60}?(?:not found|did not match|does not match"
        r"|failed to (?:exactly )?match|could not be found|did not appear|does not appear)",
        r"(?:could not|couldn't|unable to|failed to) (?:find|locate) (?:the |an? )?(?:exact "
        r"|matching )?"
        r"(?:specified |given "
        r"|provided )?" + SEARCH_TEXT,
        r"\b0 occurrences found\b",
        r"No sufficiently similar match",
        r"SearchReplaceNoExactMatch",
        r"does not match anything in the file",
        r"No replacement performed",
        r"\bNo (?:exact )?match(?:es)? found (?:for|in)\b",
        r"no matching (?:search )?(?:content|text|block|string|lines)",
        r"\bpatch (?:does not apply|failed:)|\bHunk #\d+ FAILED\b|could not apply (?:the )?"
        r"(?:patch|diff|edit)",
        r"\bReversed \(or previously applied\) patch detected\b|\bpatch rejected\b",
        r"(?:unable|failed) to apply (?:all )?(?:the )?(?:diff|patch|edit|change)s?\b",
        # (a code symbol a refactoring tool could not find is the call's value, not a search text)
        r"(?:could not|couldn't|unable to|failed to|cannot) find (?![^\n]{0,40}?\bsymbol\b)"
        r"[^\n]{0,40}?"
        r"(?:in (?:the )?(?:current )?file|substring|anchor)",
        r"(?:file|content)[^\n]{0,40} does not match (?:the )?(?:requested|expected)",
    )
    + words(
        # every edit of a batch failed: "no changes made - all 3 edit(s) failed"
        "crush",
        r"\ball \d+ (?:edit|replacement|change|hunk)s?(?:\(s\))? (?:failed|did not apply)\b",
    )
)

#: No match for an edit's search text, in plain words ("no match for the search block").
NO_MATCH_FOR = words(
    "plain",
    r"\bno (?:exact )?match(?:es)? (?:found )?(?:for|of) (?:the )?(?:search|old|replace|edit|diff"
    r"|text|string|block|pattern)",
)

#: An edit that could not be applied, or whose target is not in the file, in plain words.
EDIT_NOT_APPLIED = words(
    "plain",
    # a batch of edits none of which applied: crush's "no changes made - all 3 edit(s) failed"
    r"\ball (?:\d+ )?(?:edit|change|replacement|hunk)s?(?:\(s\))? failed\b",
    r"\b(?:diff|patch|edit|hunk|change)s?\b[^\n]{0,40}?\b(?:could not|couldn't|cannot|can't|failed"
    r" to) (?:be )?appl(?:y|ied)\b",
    r"\bnot found (?:verbatim |exactly |literally )?in (?:the )?(?:file|content|document)\b",
)

SHELL = words(
    "cline roo-code kilocode vscode",
    r"shell integration",
    r"output could not be captured",
    r"\b(?:failed|unable|could not) to (?:retrieve|read|get|capture) (?:the )?(?:command|terminal)"
    r"(?:'s)? output\b",
    r"(?:won't be able to|trouble) view(?:ing)? the command's output",
) + words(
    # the terminal the tool runs commands in is gone or not ready (VS Code's run_in_terminal:
    # "The terminal was closed", "Xterm is not available", "Instance was disposed before xterm.js
    # was ready")
    "vscode",
    r"\bxterm(?:\.js)?\b[^\n]{0,40}?\b(?:not (?:available|ready)|unavailable|disposed)\b"
    r"|\bdisposed before xterm",
    r"^(?:Error: )?The terminal (?:was|has been|is) (?:closed|disposed|killed|gone)\b",
)

# --- permissions ----------------------------------------------------------------------------

USER_DENIED = words(
    "roo-code cline claude-code opencode gemini-cli lmstudio goose codex",
    r"\buser (?:has )?(?:denied|rejected|declined|refused|cancell?ed|dismissed)\b",
    r"user doesn't want to (?:proceed|take this action)",
    r"rejected permission to use",
    # (not ninja's "build stopped: interrupted by user.", its report of SIGINT or SIGTERM)
    r"(?<!build stopped: )(?:denied|rejected|declined|cancell?ed|interrupted) by (?:the )?user",
    r"Permission to use \S+.{0,120}? (?:has been|was) denied",
    r"requested permissions? to use \S+, but you haven't granted it",
    r"\b(?:was|were) not (?:approved|confirmed|authori[sz]ed)\b|\b(?:has|have) not been "
    r"(?:approved|confirmed|authori[sz]ed)\b"
    r"|\bwas not approved\b|\b(?:confirmation|approval) (?:was )?(?:denied|declined|refused|"
    r"rejected|not given)\b",
    r"requires user confirmation|\brequires? (?:user |your )?(?:approval|confirmation|consent)\b",
    r"rejected with (?:the )?user(?:'s)? (?:message|feedback)|\btool use (?:was )?rejected\b",
)

POLICY_DENIED = words(
    "mcp-servers gemini-cli qwen-code cline roo-code kilocode claude-code opencode smolagents"
    " aider codex",
    # (not a value outside its range: "starting index: 420 is outside of the allowed range")
    r"outside (?:of )?(?:the )?(?:current )?(?:allowed(?! (?:range|values?|bounds|interval)\b)"
    r"|workspace|project|cwd|base directory|root directory|working directory|repository|repo\b"
    r"|sandbox)",
    # "Sandbox path \"../x\" escapes the workspace root." (the Agents SDK for JavaScript), "URI path
    # \"/etc/passwd\" is not under any root" (the MCP Go SDK's file resources)
    r"\bescapes (?:the |its )?(?:workspace|project|sandbox|base|root|working|allowed)(?: root"
    r"| directory| dir| folder)?\b|\bis not (?:under|within|inside) any (?:of the )?(?:allowed )?"
    r"(?:roots?|workspaces?|allowed directories)\b",
    r"\bpath traversal\b|\b(?:would|must not|may not|cannot|can't) escape (?:the )?(?:base|root"
    r"|workspace|project|target|working|allowed|output) directory",
    r"(?:must|may only) (?:stay|be|change directories to)[^\n]{0,40}(?:within|inside|child"
    r" directories)",
    r"\bblocked by\b|Access blocked|\bwas blocked\b|\bis ignored by\b|\bin gitignore\b",
    r"\b(?:is|are) (?:configured|set|marked) to be (?:ignored|excluded|hidden)\b",
    r"^(?:Error: )?(?:Setting|Option|Field|Key|Property|Variable) [`'\"][\w.\-]+[`'\"] is "
    r"read-?only\b",
    r"denied by policy|execution blocked|not in the allow ?list|prevents you from using",
    r"\bwrite-protected\b",
    r"\bresolved to (?:an? )?(?:disallowed|private|internal|blocked|forbidden|reserved|loopback)"
    r" (?:IP )?address\b",
    r"\bnot a public (?:ip )?address\b|\b(?:private|loopback|link-local|internal) (?:ip )?"
    r"(?:addresses|address|ips|hosts|networks) (?:are |is )?(?:not allowed|blocked|forbidden"
    r"|refused)\b"
    r"|^(?:Error: )?Refused to (?:fetch|access|connect to|open|load|read|request) \S",
    r"(?:fetching|import|access)[^\n]{0,80}? (?:is )?not allowed",
    r"(?<!properties )(?<!inputs )(?<!values )\b(?:is|are) not allowed\b"
    r"(?! (?:for|as|when|if|with|together|here|in this context)\b)",
    r"\baccess to [^\n]{1,80}? (?:is )?(?:not permitted|not allowed|denied|forbidden|refused)\b",
    r"\b(?:file|path|directory|folder|network|write|read) access (?:is )?(?:not permitted|not "
    r"allowed|denied|forbidden|refused)\b",
    r"Forbidden (?:access|call|function)",
    r"\baccess_denied\b|Access denied\b",
    r"sandbox denied|\bsandbox (?:cannot be enforced|blocked|refused|violation)\b",
    r"\b(?:contains|is) (?:a )?protected (?:file|path|directory|folder)\b",
    r"\b(?:command|request|call|operation|action|data|input|payload|upload)s? (?:was |were )?"
    r"(?:rejected|refused|blocked)\b",
    r"not in the (?:list of )?allowed|not (?:in|inside|within) (?:the |one of the )?(?:allowed |"
    r"current )?(?:workspace|project|sandbox|allowed directories)",
)

#: A path an agent's ignore file keeps from the model (goose's "The command attempts to access
#: '.env' which is restricted by .gooseignore"; Roo Code's and Cline's ".rooignore" /
#: ".clineignore" refusals, gemini-cli's ".geminiignore", aider's ".aiderignore").
IGNORE_FILE = words(
    "goose plain",
    r"\b(?:restricted|excluded|ignored|blocked|denied|protected|hidden) (?:by|in|via|through) "
    r"(?:the |your |a |an )?[`'\"]?\.\w[\w-]*ignore\b",
    r"\b(?:listed|matched|matches a pattern|matches patterns?) in (?:the |your )?[`'\"]?\.\w[\w-]*"
    r"ignore\b",
)

#: A rule of the agent that refuses the call: a policy, a role that may not do it, a feature
#: switched off where the call was made.
POLICY_RULES = words(
    "roo-code cline kilocode",
    r"\b(?:due to|by) (?:\w+ )?polic(?:y|ies)(?: restrictions?)?\b|\bpolicy restrictions?\b",
    r"^Only (?:the )?[\w -]{1,30}? (?:can|may|(?:are|is) (?:allowed|permitted) to) \w+",
    # (a YAML parser's "mapping values are not allowed in this context" is no policy)
    r"(?<!values )\b(?:is|are) (?:disabled|not (?:allowed|permitted|enabled)) in (?:this|the "
    r"current) (?:context|mode|session|workspace)\b",
    r"(?<!values are )\bnot (?:allowed|permitted|available|enabled) (?:in|during|while in) "
    r"(?:the |this )?(?:[\w-]+ ){0,2}(?:mode|context|session)\b",
    r"\b(?:blocked|disabled|forbidden|not allowed) in (?:plan|read-only|readonly|ask|chat) mode\b",
)

#: A server or agent with nowhere it is allowed to work ("No allowed directories available").
NOTHING_ALLOWED = words(
    "mcp-servers",
    r"\bno allowed (?:directories|paths|roots|hosts|domains|folders)\b",
)

OS_DENIED = words(
    "os http",
    r"\bEACCES\b|\bEPERM\b",
    r"Permission denied|PermissionError|Operation not permitted|Access is denied",
    r"Read-only file system|\bEROFS\b|\battempt to write a read-?only database\b",
    r"\b403 Forbidden\b|\b401 Unauthorized\b",
    r"(?:insufficient|no|not have|lacks?|missing) (?:the )?(?:required )?permissions?\b",
    r"\bAPI key (?:is )?(?:missing|not set|not provided|invalid|incorrect|not valid)\b",
    r"\b(?:Invalid|Incorrect) API key\b",
)

#: A response that starts by refusing the caller ("Unauthorized: invalid token").
REFUSED_CALLER = words(
    "plain",
    r"^(?:Error: )?(?:Unauthori[sz]ed|Forbidden|Unauthenticated|Access denied)\b",
    r"(?<!exist or )(?<!exists or )\byou do not have (?:the )?(?:required )?(?:permission|access"
    r"|rights)\b",
    r"\b(?:does not|doesn't|do not|don't) have (?:the )?(?:required )?(?:permission|access|rights)"
    r" to (?:use |call |read |write |the )?(?:model|resource|repo|repository|project|file|this)\b",
    r"\b(?:Resource )?not accessible by (?:the |this )?(?:personal access token|integration|token"
    r"|app|credentials)\b",
    r"\b(?:GET|POST|PUT|PATCH|DELETE|HEAD) https?://\S+: 40[13]\b",
    r"\b(?:status|code|HTTP)(?: code)?:? 40[13]\b",
    r"\bmust be a member of (?:an? |the )?(?:organi[sz]ation|org|team|project|workspace)\b",
)
#: A password or secret refused: unzip's "skipping: key.txt  incorrect password", "wrong
#: password", "invalid username or password", "bad decrypt".
WRONG_SECRET = words(
    "zip plain",
    r"\b(?:incorrect|wrong|invalid|bad) (?:password|passphrase|pass phrase|credentials|pin)\b",
    r"\b(?:password|passphrase|credentials) (?:is |was |were )?(?:incorrect|wrong|invalid"
    r"|rejected|refused)\b",
    r"\binvalid (?:username|user name|login) or password\b",
)

#: vLLM refusing a chat template sent with the request that it was not told to trust.
UNTRUSTED_REQUEST = words("vllm", r"\brefused (?:the )?request with (?:an? )?untrusted\b")

#: A credential the tool needs is missing or refused ("Missing API key. Make sure you have
#: 'SERPAPI_API_KEY' ...", "OpenRouter API key is required", "requires re-authentication").
MISSING_CREDENTIALS = words(
    "smolagents vercel-ai roo-code cline",
    r"\b(?:missing|no|invalid|expired|revoked) (?:[\w-]+ )?(?:API[ _-]?key|access token"
    r"|credentials)\b",
    r"\b(?:API[ _-]?key|access token|credentials) (?:is |are )?(?:required|missing|not set"
    r"|not found)\b",
    r"\bno (?:[\w-]+ )?(?:auth(?:entication)? |access |API |bearer )?token (?:is )?"
    r"(?:available|provided|found|set|configured)\b",
    r"\b[A-Z][A-Z0-9]*_(?:API_KEY|TOKEN|SECRET|ACCESS_KEY)\b (?:env(?:ironment)? var(?:iable)? )?"
    r"(?:is |are )?(?:required|missing|not set|not found|must be set)\b",
    r"\brequires? (?:re-?)?authentication\b|\bauthentication (?:is )?required\b",
    r"\bnot (?:currently |yet )?(?:signed|logged) in\b|\b(?:sign|log)-?in (?:is )?required\b"
    r"|\bplease (?:sign|log) in\b|\bmust (?:be )?(?:signed|logged) in\b",
    r"\bauthenticat(?:ion|e)\b[^\n]{0,20}?\bfail|\b(?:failed|unable) to (?:re-?)?authenticate\b"
    r"|\binvalid_(?:grant|client|token)\b|\bunauthorized_client\b",
) + words(
    "plain",
    r"\b(?:signature|token|credential|approval)s?\b[^\n]{0,40}?\b(?:verification|validation) "
    r"failed\b|\bsignature mismatch\b|\binvalid signature\b",
)

# --- time, network, commands ----------------------------------------------------------------

TIMEOUT = words(
    "os roo-code cline claude-code codex mini-swe-agent mcp-typescript-sdk mcp-python-sdk opencode",
    r"\btimed out\b",
    r"\bETIMEDOUT\b|context deadline exceeded|\b\w*Timeout(?:Error|Expired|Exception)\b",
    r"exceeded the (?:maximum |max )?(?:execution |run ?)?time",
    r"took too long",
    r"(?:exceed(?:ed|ing)|after) (?:a |the )?(?:[\w-]+ )?\d*\s?\w*\s?timeout",
    r"timeout of \d+ ?ms exceeded",
    r"MCP error -32001",
    r"\bdeadline exceeded\b",
    r"\b(?:failed|error|aborted)\b[^\n]{0,60}?: (?:a |the )?(?:time ?out|timed out)\.?$",
    # a command still running that went quiet past the agent's wait (OpenHands' soft timeout:
    # "The command has no new output after 30 seconds"; "produced no output for 60s")
    r"\b(?:(?:has|had|have|with|produced) no|no (?:new|further)) (?:new |further )?output (?:after"
    r"|for|in) \d+(?:\.\d+)? ?"
    r"(?:s|secs?|seconds?|m|mins?|minutes?)\b",
    r"\b(?:has|had|have) not produced (?:any )?(?:new )?output (?:after|for|in) \d+",
) + words(
    # something the tool waited for did not happen in time: "exit was not acknowledged before the
    # timeout" (VS Code's kill_terminal), "did not respond within the deadline"
    "plain",
    r"\b(?:before|within|by) the (?:timeout|deadline)\b",
)

#: A time budget in plain words ("Execution time limit exceeded", "deadline of 30s exceeded",
#: "did not finish within 120 seconds").
TIME_BUDGET = words(
    "plain",
    r"\btime ?limit (?:exceeded|reached|hit)\b|\b(?:exceeded|reached|hit) (?:the |its )?"
    r"(?:\w+ )?time ?limit\b",
    r"\bdeadline\b[^\n]{0,30}\b(?:exceeded|passed|expired)\b",
    r"\babort(?:ed)? (?:after \d|due to (?:a )?time ?out\b)",
    r"\bdid not (?:finish|complete|respond|return)\b[^\n]{0,20}\bwithin\b"
    r"|\b(?:did not|didn't|failed to) (?:finish|complete|respond|return) in time\b",
    r"\b(?:stream|connection|session|process|socket) (?:was )?idle for \d+(?:\.\d+)? ?(?:ms"
    r"|milliseconds|s|secs?|seconds?|minutes?)\b",
)

#: GNU timeout telling the signal it sent when the time ran out (`timeout --verbose`).
TIMEOUT_SIGNAL = words("coreutils", r"^timeout: sending signal \w+ to command\b")

#: Limits that stopped a run, in other words than "timed out": a killed process, an aborted
#: fetch, an interpreter's operation or loop budget.
EXECUTION_LIMITS = words(
    "continue mcp-servers smolagents",
    r"\[Timeout\b[^\]\n]{0,80}\]|\b(?:process|command) (?:was )?killed after \d",
    r"^(?:(?:ba)?sh: line \d+: )?\d+ Killed\s+timeout\b",
    r"\btook (?:more|longer) than \d[\d,.]* ?(?:ms|milliseconds|s|secs?|seconds|minutes?)\b",
    r"\b(?:reached|exceeded) the max(?:imum)? number of (?:operations|steps|instructions)\b",
    r"\bmax(?:imum)? number of \d[\d,]* iterations\b[^\n]{0,40}\bexceeded",
)

#: Something that did not happen within a stated time ("Failed to open diff editor for a.ts
#: within 10 seconds").
NOT_WITHIN = words(
    "roo-code cline",
    r"\b(?:failed|unable|did not|didn't|could not)\b[^\n]{0,80}?\bwithin \d+(?:\.\d+)? ?(?:ms"
    r"|milliseconds|s|secs?|seconds?|minutes?)\b",
)

NETWORK = words(
    "os http mcp-servers smolagents roo-code cline gemini-cli langgraph openai-agents"
    " mcp-python-sdk",
    r"\bECONNREFUSED\b|\bECONNRESET\b|\bENOTFOUND\b|\bEAI_AGAIN\b|ERR_NAME_NOT_RESOLVED",
    r"Connection (?:refused|reset|closed|error|aborted)",
    r"Name or service not known|getaddrinfo|Failed to establish a new connection",
    r"Max retries exceeded with url",
    r"(?:failed|unable) to fetch|(?:could not|couldn't) fetch (?:content|data|the (?:page|url))"
    r"|due to a connection issue|Error fetching",
    r"status(?: code)?:? [45]\d\d\b|\(Status: [45]\d\d\)|Request failed with status code",
    r"\b(?:404 Not Found|50[234] (?:Bad Gateway|Service Unavailable|Gateway Timeout))\b",
    r"\b(?:GET|POST|PUT|PATCH|DELETE|HEAD) https?://\S+: [45]\d\d\b",
    r"page was not found",
    r"\bfetch failed\b|\bconnect(?:ion)?(?: call)? failed\b|\[Errno 111\]",
    r"\b[45]\d\d (?:Server|Client) Error\b|\b(?:Bad Gateway|Service Unavailable|Gateway Timeout)\b",
    r"\b(?:HTTPError|ConnectError|ConnectionError|ConnectTimeout|RemoteDisconnected)\b",
    r"Could not resolve host|Network is unreachable|No route to host|\bE(?:HOST|NET)UNREACH\b",
    r"certificate verify failed|SSL(?:Error|: )|socket hang up|Temporary failure in name "
    r"resolution",
    r"\b(?:too many|max(?:imum)?) redirects\b",
    r"\b(?:model runner|llama-server|inference server) has (?:unexpectedly )?(?:stopped|terminated"
    r"|crashed)\b",
)

#: A host that cannot be reached or resolved, in plain words.
HOST_UNREACHABLE = words(
    "plain",
    r"\b(?:host|network|server|endpoint) (?:is )?(?:unreachable|not reachable)\b",
    r"\bDNS (?:lookup|resolution|query) failed\b|\b(?:could not|couldn't|unable to|failed to) "
    r"resolve (?:host|hostname|the host|address)\b",
    r"\b(?:could not|couldn't|unable to|failed to) reach\b",
    r"\bhost (?:not found|could not be resolved)\b",
)

#: Clients that could not reach a host (curl, git over HTTP, npm offline or unreachable).
NETWORK_CLIENTS = words(
    "os curl git npm",
    r"Failed to connect to \S+ port \d+|Couldn't connect to server|unable to access '[^'\n]+':",
    r"\bENOTCACHED\b|\bE(?:CONN)?TIMEDOUT\b|\brequest to \S+ failed\b",
    r"\breturned (?:error|status)(?: code)?:? [45]\d\d\b",
)

#: A local daemon or database server that is not running (docker, PostgreSQL, ...).
NETWORK_DAEMONS = words(
    "docker psql",
    r"\b(?:cannot|can't|could not|couldn't|unable to|failed to) connect to (?:the )?(?:[\w-]+ )?"
    r"(?:daemon|server|database|service|socket)\b",
    r"\bIs the (?:[\w-]+ )?(?:daemon|server|service) running\b",
    r"\b(?:daemon|server|service) (?:is not|isn't) running (?:at|on) (?:https?://|[\w.\-]+:\d)",
)

#: A client that names the service it could not reach ("Failed to connect to LM Studio.").
NETWORK_SERVICE = words("lmstudio curl git", r"\b(?:failed|unable) to connect to\b") + words(
    # "Error connecting to DuckDB, please check the connection." (Agno)
    "agno plain",
    r"^(?:Error: )?(?:Error|Failure|Problem) (?:while )?connecting to \S",
)

COMMAND = words(
    "os claude-code continue gemini-cli mini-swe-agent mcp-servers aider goose cline codex"
    " qwen-code",
    r"\bcommand not found\b|is not recognized as an internal or external command",
    r"exit(?:ed)?(?: with)? (?:code|status)[:( ]+\(?-?[1-9]\d*",
    r"Exit Code: [1-9]\d*",
    r"\bCommand failed\b|Cmd\('\w+'\) failed|non-zero exit",
    r"Fix any errors below",
    r"(?:failed|unable) to (?:execute|run) (?:the )?command",
    r"\bUnknown command:? |\bis not an? [\w-]+ command\b",
)

#: A response that could not be read after the request was sent.
RESPONSE_UNREADABLE = words(
    "cline vercel-ai",
    r"\b(?:failed|unable|could not) to (?:read|parse|decode) (?:the )?(?:HTTP )?response"
    r"(?: body)?\b",
)

#: A Python traceback's header, a JavaScript error line followed by its stack, npm's error lines
#: and pytest's error sections: shared by `RUNTIME_FAILURE` and `PROGRAM_CRASH_FRAMING`.
_PY_TRACEBACK = r"^Traceback \(most recent call last\):"
_JS_STACK = (
    r"^(?:[\w.]+\.)?(?:[A-Z]\w*)?(?:Error|Exception)(?: \[\w+\])?: [^\n]+"
    r"(?:\n[^\n]*){0,6}?\n\s+at \S"
)
_NPM_ERROR = r"^npm (?:ERR!|error) "
_PYTEST_SECTION = r"^=+ (?:FAILURES|ERRORS) =+$"
#: smolagents' interpreter reporting the line of the model's code that failed, and why.
_CODE_FAILED = (
    r"^(?:Error: )?Code (?:execution|parsing) failed (?:at|on) line (?:'[^\n]{0,200}?'|\d+) "
    r"due to: \S"
)
#: A shell's own diagnostic line (`bash: line 1: ...`, `sh: 2: ...`, `bash: -c: line 1: ...`).
_SHELL_DIAGNOSTIC = r"^(?:ba|z|da|k)?sh: (?:-c: )?(?:line )?\d+: "
#: git's and pip's own error lines, in the case they write them.
#: A JVM's uncaught exception and its stack frames.
_JAVA_EXCEPTION = r"^Exception in thread \"[^\"\n]+\" [\w$.]+|^\s+at [\w$.<>]+\([\w$]+\.java:\d+\)"
#: GNU tools' pointer to their help after an option or operand error, and the same pointer as Go
#: CLIs (cobra: docker, kubectl, gh) and others word it ("Run 'docker run --help' for more
#: information", "See 'docker --help'.").
_TRY_HELP = (
    r"^(?:Try|Run|See) [`'\"][\w.+\-]+(?: [\w.+\-]+){0,3} --help[`'\"]"
    # GNU argp's (tar, cpio): "Try 'tar --help' or 'tar --usage' for more information."
    r"(?: or [`'\"][\w.+\-]+ --usage[`'\"])?(?: for (?:more )?(?:information|usage|help))?\.?$"
)
#: An option refused with its dashes shown, in a program's words rather than a tool's: cobra's
#: "unknown flag: --frob", tsc's "Unknown compiler option '--x'", eslint's "Invalid option
#: '--frob' - perhaps you meant '--fix'?".
_OPTION_WITH_DASHES = (
    r"^(?:error TS\d+: )?(?:unknown|unrecognized|invalid) compiler option\b"
    r"|^(?-i:unknown (?:shorthand )?flag): "
    r"|^(?!(?:error|warning|fatal):)(?-i:[a-z][\w.+\-]{0,30}): (?-i:unknown|unrecognized|invalid"
    r"|illegal) (?:shorthand )?(?:flag|option)s?:? [`'\"]?-"
    r"|^(?:invalid|unknown|unrecognized) (?:option|flag) [`'\"]?-{1,2}[\w-]+[`'\"]?[^\n]{0,10}?"
    r"\b(?:perhaps|did) you mean(?:t)?\b"
)
#: A compiled program's crash: Rust's panic line, Go's panic and its goroutine dump.
_NATIVE_PANIC = (
    r"^thread '[^'\n]{1,80}'(?: \(\d+\))? panicked at \S|^panic: \S|^goroutine \d+ \[running\]:"
    r"|^fatal error: all goroutines are asleep"
)
#: Perl's location suffix on a `die` or a runtime error ("Illegal division by zero at -e line
#: 1.", "Died at bin/run.pl line 12, <STDIN> line 3.").
_PERL_DIED = r"(?-i: at (?:-e|-|\S+\.p[lm]|\S+/\w+) line \d+(?:, <\w*> (?:line|chunk) \d+)?\.$)"
#: Maven's closing pointer to its help page on a failed build ("... -> [Help 1]").
_MAVEN_HELP = r"(?-i:-> \[Help \d+\]$)|^\[ERROR\] Re-run Maven using the -X switch\b"
#: A C library's failed `assert()` ("app: main.c:12: main: Assertion `n > 0' failed.").
_C_ASSERT = r"\bAssertion [`'][^\n]{1,200}' failed\.$"
#: A native crash's stack, one frame a line with its address and module (V8's fatal-error dump:
#: " 5: 0x1113088 v8::internal::Heap::CollectGarbage(...) [node]").
_NATIVE_FRAMES = r"(?:^ ?\d+: 0x[0-9a-f]{4,16} [^\n]+ \[[\w.\-]+\]\n){2}"
#: DuckDB's error classes ("Binder Error: Referenced column \"totl\" not found in FROM clause!"):
#: the database's own report about the query it ran.
_DUCKDB_ERROR = r"(?-i:\b(?:Binder|Parser|Catalog|Conversion|Constraint|Invalid Input) Error: )"
#: A program's fatal line (git's `fatal:`, pip's `ERROR: Could not ...`). OpenHands' BashSession
#: words a refusal the same way ("ERROR: Cannot execute multiple commands at once."): that is the
#: session refusing the call, not a program's fatal line.
_PROGRAM_FATAL = (
    r"(?-i:^fatal: )|(?-i:^ERROR: (?:Could not|No matching|Invalid requirement"
    r"|Cannot(?! execute multiple commands\b)|Failed|unknown command))"
)

#: Crash reports of runtimes outside the families below: Perl's `die` location, Maven's build
#: failure pointer, a native stack of frames with addresses (a C `assert()` is `PROGRAM_CRASHED`).
RUNTIME_REPORTS = (
    words("perl", _PERL_DIED) + words("mvn", _MAVEN_HELP) + words("node", _NATIVE_FRAMES)
)

#: How runtimes and developer tools report a failed run when no exit code is shown: an uncaught
#: exception (a Python traceback, a JavaScript stack), a `fatal:`/`error:` line (git, cargo,
#: rustc), npm's and pip's error lines, make's `***` line, pytest's failure summary, and the
#: errno texts of a failed write or process call (disk full, directory not empty, no process).
RUNTIME_FAILURE = words(
    "os cpython node git npm pip pytest make cargo mini-swe-agent cline claude-code codex"
    " mcp-servers aider",
    _PY_TRACEBACK,
    _SHELL_DIAGNOSTIC,
    _JAVA_EXCEPTION,
    _TRY_HELP,
    _NATIVE_PANIC,
    r"^\s*File \"[^\"\n]+\", line \d+\n",
    _JS_STACK,
    r"\bCannot find module\b|\bMODULE_NOT_FOUND\b",
    r"(?-i:^(?:fatal|error)(?:\[E\d+\])?: )",  # lower case: git, cargo, rustc; not "Error: "
    _NPM_ERROR,
    # pip's fatal line is upper case: an agent's "Error: Invalid ..." is no program's report
    r"(?-i:^ERROR: )(?:Could not|No matching|Invalid|Cannot|Failed|[\w:/.\-]+ does not)",
    r"^(?:make(?:\[\d+\])?|[^\s:]+:\d+): \*\*\* ",
    _PYTEST_SECTION,
    r"^(?:FAILED|ERROR) \S+(?:::| - )|^\d+ (?:failed|errors?)\b"
    r"|Interrupted: \d+ errors? during collection",
    r"^CONFLICT \(|Automatic merge failed",
    _CODE_FAILED,  # smolagents' interpreter
    r"\b(?:[Cc]hild|subprocess|child process) (?:returned|exited with) (?:status|code) [1-9]"
    r"|\bError is not recoverable\b|\bnot in gzip format\b",
    r"^(?:[\w.]+\.)?(?:RecursionError|NameError|AttributeError|ZeroDivisionError|IndexError"
    r"|UnboundLocalError|InterpreterError): \S|\bThe variable `\w+` is not defined\b"
    r"|\bobject has no attribute\b|\bnothing (?:added )?to commit\b",
    r"^(?:ERROR: )?usage: \S|\berror: unrecognized arguments?\b",
    r"\bsyntax error(?: near| at|: unexpected|$)|\bunbound variable\b|\bno such (?:table|column)\b",
    # DuckDB's error classes ("Binder Error: Referenced column \"totl\" not found in FROM clause!")
    _DUCKDB_ERROR,
    # a Python SyntaxError as `str()` gives it: "invalid syntax (<string>, line 3)" (DSPy's
    # CodeAct), "unexpected indent (app.py, line 2)"
    r"\b(?:invalid syntax|unexpected indent|expected ':'|unindent does not match any outer "
    r"indentation level|unterminated string literal[^\n(]{0,40}) \((?:<\w+>|[\w./\-]+\.py), "
    r"line \d+\)",
    r"No space left on device|\bENOSPC\b|Disk quota exceeded|\bEDQUOT\b|Directory not empty"
    r"|\bENOTEMPTY\b|\bEPIPE\b|Broken pipe|\bE[MN]FILE\b|Too many open files|No such process"
    r"|\bESRCH\b|Cannot allocate memory|\bENOMEM\b|\bEADDRINUSE\b|address already in use",
)

#: A program's own crash report: a Python traceback, a JavaScript stack, npm's error lines,
#: pytest's error sections, a shell's diagnostic line, git's `fatal:` and pip's `ERROR:` lines.
#: Text framed like this is the output of a command that ran, so a JSON parse error or an
#: unknown, missing or mistyped argument inside it belongs to that program, not to the call.
#: A test runner's failure report (TAP's `not ok N -`, mocha's `N failing`): the values its
#: messages name are the program's, never the call's.
TEST_REPORT_FRAMING = words("node mocha", r"^not ok \d+ - ", r"^\s*[1-9]\d* failing$")

PROGRAM_CRASH_FRAMING = regexes(
    TEST_REPORT_FRAMING,
    words(
        "os",
        _PY_TRACEBACK,
        _JS_STACK,
        _NPM_ERROR,
        _PYTEST_SECTION,
        _SHELL_DIAGNOSTIC,
        _PROGRAM_FATAL,
        _JAVA_EXCEPTION,
        _TRY_HELP,
        _NATIVE_PANIC,
        _OPTION_WITH_DASHES,
        r"^(?:ERROR: )?usage: ",
        _CODE_FAILED,
        _PERL_DIED,
        _MAVEN_HELP,
        _DUCKDB_ERROR,
        # a compiler's or a CLI's own lower-case `error:` refusing an option (rustc, cargo)
        r"(?-i:^error: )(?:unrecognized|unknown|invalid|unexpected) (?:option|argument|flag)\b",
        # a program's own prefix, lower case (`bwrap: Unknown option`), not an agent's "Error:"
        r"^(?!(?:error|warning|fatal):)(?-i:[a-z][\w.+\-]{0,30}): (?:invalid|unrecognized|unknown"
        r"|illegal|bad) option\b",
    ),
)

#: A file that exists but is not in the format the program reads: unzip's "End-of-central-directory
#: signature not found ... this file is not a zipfile", Python's "File is not a zip file",
#: gzip's "not in gzip format", tar's "does not look like a tar archive", bsdtar's "Unrecognized
#: archive format", SQLite's "file is not a database", PIL's "cannot identify image file", the
#: linker's "file format not recognized", the kernel's "Exec format error".
WRONG_FORMAT = words(
    "zip unzip tar cpython sqlite3 os plain",
    r"\bEnd-of-central-directory signature not found\b|\bis not a zip ?file\b|\bBadZipFile\b",
    r"\bnot in gzip format\b|\bdoes not look like a tar archive\b|\bUnrecognized archive "
    r"format\b",
    r"\bfile is not a database\b|\bcannot identify image file\b|\bfile format not recognized\b",
    r"\bExec format error\b|\binvalid ELF header\b|\bbad magic number\b",
    # a binary file read as text (crush's view: "File content is not valid UTF-8")
    r"\b(?:file|content)s? (?:is |are )?not (?:valid )?(?:UTF-?8|text)\b",
)

#: A test runner's report of failed tests (pytest's sections and summary, TAP, jest, mocha,
#: cargo test, go test): the failures are the tests', so whatever an assertion or an exception
#: inside says (a timeout, a missing file), the command that ran the suite failed.
TEST_RUN_FAILED = regexes(
    words(
        "os",
        _PYTEST_SECTION,
        r"^FAILED \S+::|^=+ (?:\d+ failed|short test summary info)\b|^\d+ failed(?:,| in )",
        r"^not ok \d+ |^# fail [1-9]|^Tests?:\s+\d+ failed|^\d+ failing$|^test result: FAILED\b"
        r"|^--- FAIL: ",
    )
)

#: Toolchains that report a failed build or test run in their own format: compiler and linter
#: diagnostics (`file:line:col: error:`, tsc's `file(l,c): error TS`), the linker, a program's
#: `NAME: error` line (jq, collect2, argparse), jq's parse errors, test-runner summaries (TAP,
#: node --test, jest, mocha, cargo test, go test) and the SQLite shell's error prefixes.
TOOLCHAIN_FAILURE = words(
    "gcc java jq node sqlite",
    r"^[^\s:]+:\d+(?::\d+)?: (?:fatal )?error\b|^[^\s(]+\(\d+,\d+\): error TS\d+:",
    r"\bundefined reference to [`']|\bld returned \d+ exit status\b",
    # (lower case, as those programs print it: a Python exception's "ValueError: Error: ..." is
    # no program's line)
    r"^[\w.\-]+: (?-i:(?:fatal )?error)\b(?: \(at [^)\n]*\))?:",
    r"^parse error: [^\n]+ at line \d+, column \d+$",
    r"^not ok \d+ |^# fail [1-9]|^Tests?:\s+\d+ failed|^\d+ failing$|^test result: FAILED\b"
    r"|^--- FAIL: |^FAIL\s",
    r"^(?:Error: in prepare, |Parse error(?: near line \d+)?: |Runtime error(?: near line \d+)?: )",
    # curl's numbered error line; YAML parsers' errors (yq, PyYAML)
    r"^curl: \(\d+\) ",
    # linters' and formatters' closing lines (ruff, mypy, flake8, black, eslint)
    r"^Found [1-9]\d* errors?\b|^\d+ files? would be reformatted\b|^would reformat \S"
    r"|^\S+ \d+ problems? \([1-9]\d* errors?,",
    # a linter's rule code at the start of its diagnostic, then rustc-style location arrow
    r"^[A-Z]{1,4}\d{3,4} (?:\[\*\] )?[^\n]+\n\s*--> [^\n]+:\d+:\d+$",
    r"\b(?:ParserError|ScannerError|YAMLException): while (?:parsing|scanning)\b",
)

#: GNU tools' option and operand errors (`head: invalid number of lines`, `ls: unrecognized
#: option`, `cp: 'a' and 'a' are the same file`) and awk's and sed's script diagnostics.
PROGRAM_USAGE = words(
    "coreutils",
    r"\bare the same file\b",
    # awk's and sed's script diagnostics: the program, then the position in its script
    r"^[a-z][\w.+\-]{0,30}: (?:[^\s:]+: )?(?:-e expression #\d+, char \d+|line \d+): ",
    r"^[a-z][\w.+\-]{0,30}: Unmatched [(\[{]",
    r"\bto a subdirectory of itself\b",
    # jq's pointer to its help, GNU's `Try 'x --help'` in other words
    r"^Use [\w.+\-]+ --help for help\b",
)
#: A program refusing an option or operand in its own prefix (`head: invalid number of lines`,
#: `ls: unrecognized option`, git's `fatal: unrecognized argument`).
PROGRAM_BAD_OPTION = words(
    "coreutils git docker tsc eslint",
    # optparse's (pip's) and click's refusals: "no such option: --bogus-flag", "Error: No such
    # option: --frob", "Got unexpected extra argument (x)"
    r"(?:^|: )no such option:? [`'\"]?-",
    r"\bGot unexpected extra arguments? \(",
    r"^[a-z][\w.+\-]{0,30}: (?:invalid|unrecognized|unknown|missing|illegal|bad) (?:option|number"
    r"|argument|operand|mode|predicate|expression|flag|switch|primary|action)\b",
    _OPTION_WITH_DASHES,
)
#: git's refusals in its own words.
GIT_REFUSALS = words(
    "git", r"\bnot something we can merge\b|\bYou need to start by [`'\"]?git \w+ start\b"
)

#: A program, module or package the command needs is not installed: Python's `No module named`
#: (traceback or `python -m`), Node's `Cannot find module 'pkg'` (a bare package name, not a
#: path), a shell's `command not found`, Windows' "is not recognized", pip's and npm's "no such
#: package" answers, npx without the package, cargo's unknown crate.
MISSING_DEPENDENCY = words(
    "os cpython node npm pip cargo bash",
    r"\bNo module named\b|\bModuleNotFoundError\b",
    r"\bCannot find (?:module|package) '(?![./]|[A-Za-z]:\\)[^'\n]+'",
    r"\bcommand not found\b|is not recognized as an internal or external command",
    r"No matching distribution found for|Could not find a version that satisfies the requirement"
    r"|^WARNING: Package\(s\) not found:",
    r"^npm (?:ERR!|error) 404 |is not in (?:this|the npm) registry|could not determine executable "
    r"to run",
    r"\bno matching package named\b|\bcan't find crate\b",
    r"\b(?:packages?|modules?|dependenc(?:y|ies)|librar(?:y|ies)) (?:unavailable|not installed|not "
    r"available|missing) in (?:the )?(?:environment|venv|container|sandbox|image)\b",
    r"\bcannot find -l[\w.+\-]+",  # the linker's missing library
)

#: A program named as missing on a line of its own ("npx not found.", dash's "sh: 1: tsc: not
#: found").
MISSING_PROGRAM = words(
    "mcp-python-sdk bash",
    # a command, lower case; not the nouns of a missing file ("file not found: src/Main.java")
    r"^(?:(?:ba|da|z)?sh: \d+: )?(?!(?:file|directory|dir|folder|path|image|resource|tool|function"
    r"|prompt|method|model|page|key|user|session|record|item|entry|server)\b)"
    r"(?-i:[a-z][\w.+\-]*):? not found\b",
)
#: A program that a runner, an exec call or a subprocess tried to start and did not find: the
#: runner names it and the OS says ENOENT (`xargs: tool: No such file or directory`, Python's
#: `[Errno 2] No such file or directory: 'docker'` with a bare name, Node's `spawn tsc ENOENT`).
MISSING_PROGRAM_EXEC = words(
    "coreutils mini-swe-agent",
    r"^(?:xargs|env|nohup|nice|timeout|sudo|exec|time|strace): [`'‘\"]?[\w.+\-]+[`'’\"]?: No such "
    r"file or directory$",
    r"\b(?:execut\w*|exec|spawn\w*|running|start\w*)\b[^\n]{0,60}?\[Errno 2\] No such file or "
    r"directory: '[\w.+\-]+'",
    r"\bspawn (?:/[\w.+\-]+)*/?[\w.+\-]+ ENOENT\b",
    r"\b_execute_child\b[\s\S]{0,400}?\[Errno 2\] No such file or directory: '[\w.+\-]+'",
    # make's ENOENT for a recipe's bare program name, then the shell's 127
    # (`RECIPE_PROGRAM_MISSING`)
    r"\bmake(?:\[\d+\])?: [\w.+\-]+: No such file or directory\n"
    r"make(?:\[\d+\])?: \*\*\* \[[^\]\n]+\] Error 127$",
)
#: A recipe line whose program the shell did not find: make reports the shell's status 127
#: ("command not found" in POSIX), whatever the line above it says, except make's own ENOENT for
#: what the recipe ran: a bare name there is `MISSING_PROGRAM_EXEC`'s, a script's path the file
#: missing (`make: ./scripts/gen.sh: No such file or directory`).
RECIPE_PROGRAM_MISSING = words(
    "os", r"(?<!: No such file or directory\n)^make(?:\[\d+\])?: \*\*\* \[[^\]\n]+\] Error 127$"
)
#: A missing dependency named with how to install it.
INSTALL_HINT = words(
    "mcp-python-sdk",
    r"\bInstall (?:it )?with:? [`'\"]?(?:pip3?|uv|npm|pnpm|yarn|cargo|brew|apt(?:-get)?) "
    r"(?:install|add)\b|\bare properly installed\b",
)

#: A tool that says which package to install before it can run.
MUST_INSTALL = words(
    "smolagents mcp-python-sdk",
    r"\bmust install (?:the )?(?:package|module|library|packages|dependency)\b"
    r"|\b(?:run|try) [`'\"]?(?:pip3?|uv pip|npm|pnpm|yarn) (?:install|add)\b",
)

# --- programs' outputs inside agents' command results ---------------------------------------

#: Linters' diagnostic lines: `path:line:col: CODE message` (flake8, pycodestyle, pyflakes,
#: pylint's `C0114:`, ruff's concise output) and shellcheck's gcc format (`... [SC2086]`).
LINT_DIAGNOSTICS = words(
    "flake8",
    r"^[^\s:]+:\d+:\d+: (?-i:[A-Z]{1,3}\d{3,4}):? \S",
    r"^[^\s:]+:\d+:\d+: (?:error|warning|note|info|style): [^\n]+ \[SC\d{4}\]$",
)
#: Parsers' own error lines inside a program's output: Go's YAML (`yaml: line 5: mapping values
#: are not allowed in this context`, kubectl, helm-style tools), and pytest's run that selected
#: nothing (`1 deselected in 0.01s`, `no tests ran in 0.01s`: the command tested nothing).
PROGRAM_PARSE_ERRORS = words(
    "kubectl pytest",
    r"\byaml: line \d+: [a-z]",
    r"^=*\s*(?:\d+ deselected|no tests ran) in \d[\d.]*s\s*=*$",
)
#: A program's own fatal-error prefix of stars (`patch: **** Only garbage was found ...`).
PROGRAM_STARRED_FATAL = words("patch", r"^[a-z][\w.+\-]{0,30}: \*{4} \S")

#: A path a program will not create because it is there already: git's `fatal: 'wt' already
#: exists` (a worktree's directory without a slash), gzip's `x.gz already exists; not
#: overwritten`. A program's own named things (a git tag or remote, an SQL relation) are not
#: paths: they stay its failed command.
NAME_EXISTS_PROGRAMS = words(
    "git gzip",
    r"^(?:fatal|error): '[^'\n]{1,200}' already exists\.?$",
    r"\balready exists;?\s+not overwritten\b",
)

#: A package manager that could not reach its index or registry (the sandbox has no network, the
#: index is down, a proxy refuses): pip's retry warnings, npm's network error codes, Maven's
#: transfers, cargo's registry updates. The package itself may exist: "No matching distribution
#: found" after these is the index's silence, not a missing package. A mode the command chose
#: (Maven's `-o`, cargo's `--offline`) is the command's own failure, as the corpus labels it.
PACKAGE_INDEX_UNREACHABLE = words(
    "pip npm",
    r"\bconnection broken by '(?:NewConnectionError|ConnectTimeoutError|ProxyError|SSLError"
    r"|ReadTimeoutError|NameResolutionError|ProtocolError)",
    r"\bCould not fetch URL \S+: There was a problem confirming the ssl certificate",
    r"^npm (?:ERR!|error) (?:code |errno )?(?:ENOTCACHED|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT"
    r"|ENOTFOUND|ECONNRESET|ENETUNREACH)\b",
    r"\brequest to https?://registry\.\S+ failed\b",
    r"\bCould not transfer (?:artifact|metadata) \S+ (?:from/to|from) \S+",
    r"\bfailed to (?:query replaced source registry|update registry|download from) [`']",
)

#: A local service the command connects to is not running or not listening where it looked:
#: libpq's `connection to server on socket "/tmp/.s.PGSQL.5432" failed` (with the OS's "No such
#: file or directory", which is the socket, not a file the call named), MySQL's "Can't connect to
#: local MySQL server through socket", redis-cli's "Could not connect to Redis at", Docker's "Is
#: the docker daemon running?".
SERVICE_NOT_RUNNING = words(
    "psql redis docker",
    # the OS's reason, not the server's (`failed: FATAL:  role "x" does not exist` is an answer)
    r"\bconnection to server (?:on socket \"[^\"\n]{1,200}\"|at \"[^\"\n]{1,200}\""
    r"(?: \([^)\n]{1,60}\))?, port \d+) failed: (?:No such file or directory|Connection refused)",
    r"\bIs the server running (?:locally|on that host)\b",
    r"\bCan't connect to (?:local )?MySQL server (?:through socket|on) ",
    r"\bCould not connect to Redis at \S+: ",
    r"\bCannot connect to the Docker daemon at \S+\.? Is the docker daemon running\b",
)

#: A file that is not in the format the program reads: not an archive of that kind, or truncated
#: or corrupt (gzip, xz, unzip, tar, bzip2, Python's zipfile and tarfile).
UNREADABLE_FORMAT = words(
    "unzip tar gzip xz",
    r"\bnot in gzip format\b|\bFile format not recognized\b|\bis not a bzip2 file\b",
    r"\bEnd-of-central-directory signature not found\b|\bcannot find zipfile directory\b",
    r"\bFile is not a zip file\b|\bBadZipFile\b|\bThis does not look like a tar archive\b",
    r"\bfile could not be opened successfully\b|\binvalid compressed data--format violated\b",
    r"\b(?:Unexpected EOF in archive|truncated gzip input|Compressed data is corrupt"
    r"|unexpected end of (?:file|input))\b",
)


# --- the fall-through: a failure stated plainly -----------------------------------------------

#: A message that says plainly that something failed, in no family's words: it starts with
#: "Error:" or "Failed to ...", names something that failed, errored or is not available,
#: configured, supported or found, or is an exception's `Type: message` line. Matched last,
#: below every family, so it only decides what nothing else recognised (origin `plain`: no
#: single source wrote it).
PLAIN_FAILURE = words(
    "plain",
    r"^\W{0,3}(?:Error|Fatal|Failure)\b\s*[:!\-]",
    r"^\W{0,3}(?:[A-Z][\w-]* ){1,3}(?:Error|Failure)\b\s*(?:\d{3}\b\s*)?[:!\-{]",
    r"^\W{0,3}(?:Failed|Unable|Could not|Couldn't|Cannot|Can't|Can not) \w+",
    r"^[\w`'\"./ -]{0,60}?\b(?:failed|errored|crashed|aborted)\b(?:[:.!,]|$| with| due| because"
    r"| to| while| for)",
    r"^(?:[\w.\-]+ ){1,4}not (?:properly |yet |currently )?(?:available|initiali[sz]ed|configured"
    r"|connected|running|started|ready)\.?$",
    r"^Error (?:\w+ing|while|during|when)\b",
    r"\b(?:was|were) (?:cancell?ed|aborted|interrupted)\b",
    r"\b(?:is|are|was|were) not (?:available|configured|initiali[sz]ed|supported|enabled|ready"
    r"|running|set|defined|implemented|installed|reachable|possible|launched|started|open"
    r"|connected)\b",
    r"\bnot (?:found|supported|allowed|permitted|implemented)\b",
    r"\bdid not (?:return|produce|respond|start|finish|complete|succeed)\b",
    r"\b(?:an? |unknown |unexpected |internal )(?:unexpected |internal |unknown )?error"
    r"(?: (?:has )?(?:occurred|occured|happened)|:)",
    r"\bsomething went wrong\b",
    # a client's placeholder for a tool's error it got no words for (langchain-mcp-adapters'
    # "MCP tool returned an error with empty content.")
    r"\breturned an error\b",
    r"\bmust (?:first )?be (?:started|initiali[sz]ed|opened|connected|created|loaded) (?:first"
    r"|before)\b",
    r"\b(?:is|are) (?:disabled|turned off|switched off) in (?:the )?(?:settings|configuration"
    r"|config|preferences)\b",
    r"^Error (?:executing|running|calling|invoking) (?:the )?(?:tool )?[`'\"]?[\w.\-]+[`'\"]?\.?$",
    # an exception's `Type: message` line: the code behind the tool raised it
    r"^(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception)(?: \[\w+\])?: \S",
)


# --- batch 39 (guard17): families read from the newest agents' and servers' messages ----------
# (kept in one block at the end so that helpers working in parallel merge cleanly; each family
# belongs with its category above and can move there once merged)

#: A quoted value the server names as invalid: Ollama's `name "x" is invalid`, `source "x" is
#: invalid`, `destination "x" is invalid` (server/routes.go), the MCP SDK's `Resource URI x is
#: invalid`; a general sentence shape (a noun, the value, then the verdict), hence `plain`.
QUOTED_VALUE_INVALID = words(
    "ollama mcp-typescript-sdk plain",
    r"\b(?:name|source|destination|model|tag|path|uri|url|digest|reference|ref|format|id)\s+"
    r"(?:\"[^\"\n]{1,200}\"|'[^'\n]{1,200}'|`[^`\n]{1,200}`|[^\s\"'`]{1,200})"
    r" is (?:invalid|not valid)\b",
)

#: A value of the wrong kind, said as the kind being invalid: Ollama's `invalid input type` (an
#: embed input neither string nor list), "invalid argument type", "invalid parameter type".
INVALID_KIND_OF_VALUE = words(
    "ollama plain",
    r"\binvalid (?:input|argument|parameter|value|content|field) type\b",
)

#: Two alternatives, neither given: Ollama's create `neither 'from' or 'files' was specified`;
#: "neither X nor Y was provided", "neither X nor Y is set".
NEITHER_GIVEN = words(
    "ollama plain",
    r"\bneither [^\n]{1,60}? n?or [^\n]{1,60}? (?:was|were|is|are|has been|have been) "
    r"(?:specified|given|provided|set|supplied|passed)\b",
)

#: A download or artifact whose content failed its checksum: Ollama's `digest mismatch, file must
#: be downloaded again`, npm's `EINTEGRITY` / "integrity checksum failed", pip's "THESE PACKAGES
#: DO NOT MATCH THE HASHES", docker's "filesystem layer verification failed for digest".
CHECKSUM_MISMATCH = words(
    "ollama npm pip docker",
    r"\b(?:digest|checksum|hash|sha\d*(?:sum)?) mismatch\b",
    r"\bintegrity checksum failed\b|\bEINTEGRITY\b",
    r"\bdo not match the hashes\b",
    r"\blayer verification failed for digest\b",
)

#: A position past what is there, said with "exceeds": Codex's list_dir `offset exceeds directory
#: entry count` and read_file `offset exceeds file length`, "line 90 exceeds the number of lines".
POSITION_EXCEEDS = words(
    "codex plain",
    r"\b(?:offset|start(?:_line)?|line|index|position|page|entry) (?:\d+ )?exceeds (?:the )?"
    r"(?:file|directory|entry|line|total|number|length|count|size)\b",
)

#: A program that could not be started because it is not there, said by the caller that tried:
#: Codex's grep_files `failed to launch ripgrep at \`rg\`: No such file or directory (os error 2).
#: Ensure ripgrep is installed and on PATH`, goose's "Could not run extension command (`uvx ...`):
#: No such file or directory", Rust's spawn errors (not a script or file it was asked to run: that
#: is the file missing); and the hint to install it.
MISSING_PROGRAM_LAUNCH = words(
    "codex goose os",
    r"\b(?:failed to|could not|couldn't|unable to|cannot|can't) (?:launch|spawn|start|execute|exec"
    r"|run) (?!(?:the )?(?:script|file|notebook)\b)[^\n]{0,80}?: No such file or directory\b",
    # (not "installed and running": a daemon the caller could not reach)
    r"\bEnsure [\w.+\-]+ is installed\b(?! and (?:running|started|reachable))",
)


# --- batch 41 (guard18): families read from the seventh blind split's misses ------------------
# (kept in one block at the end so that helpers working in parallel merge cleanly; each family
# belongs with its category above and can move there once merged)

#: VS Code's shell integration gave no exit code, so the agent cannot say how the command ended:
#: Roo Code's, Kilo Code's and Zoo Code's execute_command results (`Exit code: <undefined, notify
#: user>` and the `<VSCE exit code is undefined ...>` / `<VSCE exitDetails == undefined ...>`
#: notes they append to the output).
UNKNOWN_TERMINAL_STATUS = words(
    "roo-code kilo-code zoo-code",
    r"<VSCE exit(?: code is undefined|Details == undefined)\b",
    r"\bExit code: <undefined, notify user>",
)

#: An MCP server's streamable-HTTP session that is gone (expired, terminated or never known): the
#: Python SDK's client `Session terminated` and its server's `Not Found: Invalid or expired
#: session ID` and `Session terminated before the request completed`, the TypeScript SDK's
#: `Bad Request: No valid session ID provided`. The client has to reconnect.
MCP_SESSION_GONE = words(
    "mcp-python-sdk mcp-typescript-sdk",
    r"\bSession terminated\b(?! successfully)",
    r"\b(?:invalid or expired|expired|unknown) session(?: id)?\b",
    r"\bNo valid session ID provided\b",
)

#: A value the call passed that names nothing there, said with the kind of thing it should name:
#: a browser server's snapshot ref or uid (playwright-mcp's `Ref e214 not found in the current page
#: snapshot`, `Ref not found, likely because element was removed`, `Tab 4 not found`,
#: chrome-devtools-mcp's `No such element found in the snapshot` and its stale-snapshot uid), a
#: code agent's symbol (serena's `No symbol with name X found in file Y`, `No symbol matching 'X'
#: found`), a memory server's entity (`Entity with name X not found`), a key. Not a file and not a
#: tool: those have families of their own, and these nouns are neither.
VALUE_NAMES_NOTHING = words(
    "playwright-mcp chrome-devtools-mcp serena mcp-servers plain",
    r"\b(?:ref|tab|uid|element|node|symbol|entity|occurrence|frame|locator|selector)"
    r"(?: with (?:name|id|uid|ref))? [`'\"]?[\w:#./\-]{1,80}[`'\"]? not found\b",
    r"^(?:Error: )?Ref not found\b",
    r"\bNo (?:such )?(?:element|node|symbol|ref|uid|entity|tab)s? (?:was )?found in the "
    r"(?:current )?(?:page )?(?:snapshot|page|tree|document)\b",
    r"\bNo symbols? (?:with name|matching|named) [^\n]{1,120}? found\b",
    r"\b(?:uid|ref) is (?:coming )?from a stale snapshot\b",
    r"\bno such key\b",
)

#: A registry or remote that wants credentials the command does not have: npm's `ENEEDAUTH`
#: ("This command requires you to be logged in") and `E401` ("Incorrect or missing password"),
#: git's `could not read Username for 'URL'` (prompts disabled) and `Authentication failed for`,
#: cargo's `no token found, please run \`cargo login\``; and the hint to log in.
REGISTRY_LOGIN_REQUIRED = words(
    "npm git cargo",
    r"\b(?:code|npm ERR! code) E(?:NEEDAUTH|401)\b",
    r"\bThis command requires you to be logged in\b|\bIncorrect or missing password\b",
    r"\bcould not read (?:Username|Password) for '[^'\n]{1,200}'",
    r"\bAuthentication failed for '[^'\n]{1,200}'",
    r"\bno token found, please run `cargo login`",
)

#: An edit listing whose file name line is missing, so the agent cannot tell which file it is
#: for: aider's `Bad/missing filename. The filename must be alone on the line before the opening
#: fence` (editblock) and `No filename provided before \`\`\` in file listing` (wholefile).
EDIT_LISTING_UNNAMED = words(
    "aider",
    r"\bBad/missing filename\b",
    r"\bNo filename provided before \S{1,8} in file listing\b",
)

#: pydantic-ai's retry prompt for an output its validator refused (a `ModelRetry` with no tool
#: name): `Validation feedback:` then the validator's message; the model's output value is wrong.
OUTPUT_VALIDATION_FEEDBACK = words("pydantic-ai", r"\AValidation feedback:\n")


#: A command the agent's terminal reports as killed by a signal, in place of an exit status: Roo
#: Code's, Kilo Code's and Zoo Code's `Process terminated by signal SIGSEGV - core dump possible`
#: (and the older `signal 11 (SIGSEGV)`) after `Command executed in terminal ...`. The harness
#: said it, so `results` reads it as the result's failure too.
SIGNAL_TERMINATED = words(
    "roo-code kilo-code zoo-code",
    r"(?:^\s*|\.\s+)(?-i:Process terminated by signal) (?:\d+ \()?(?-i:SIG[A-Z0-9]+)\b",
)


# --- batch 43 (guard19): programs' own words for a missing package, a file loaded by path and a
# server nobody answers for (kept in one block at the end so that helpers working in parallel
# merge cleanly; each family belongs with its category above and can move there once merged)

#: A package, module or library a build or a script needs, said by the tool that looked for it
#: (not a file the call named, though most say "file" or "not found"): CMake's find_package
#: ("Could not find a package configuration file provided by \"Protobuf\"", a Find module's
#: "Could NOT find ZLIB (missing: ...)", "No \"FindX.cmake\" found in CMAKE_MODULE_PATH") and
#: pkg_check_modules ("A required package was not found"), pkg-config's "Package 'x', required by
#: 'y', not found" and "was not found in the pkg-config search path", perl's "Can't locate
#: Foo/Bar.pm in @INC" (a module; a script's path is a missing file), Tcl's "can't find package
#: tdom", apt's "Unable to locate package", Ruby's gems and LoadError of a library name, Lua's
#: "module 'x' not found", GHC's "Could not find module", Go's modules.
MISSING_PACKAGE_BY_ITS_FINDER = words(
    "cmake perl tcl plain",
    # (CMake wraps its messages at 80 columns: any space may be a line break and an indent)
    r"\bfind\s+a\s+package\s+configuration\s+file\s+provided\s+by\b",
    r"\bCould\s+NOT\s+find\s+[\w:+.\-]+\s+\(missing:\s",
    r"\bNo\s+\"Find[\w+.\-]+\.cmake\"\s+found\s+in\s+CMAKE_MODULE_PATH\b",
    r"\bA\s+required\s+package\s+was\s+not\s+found\b",
    r"\bPackage '[^'\n]{1,80}', required by '[^'\n]{1,80}', not found\b",
    r"\bwas not found in the pkg-config search path\b",
    r"\bCan't locate (?!\.{1,2}/|/)[\w/:.\-]+\.pm in @INC\b",
    r"\bcan't find package [\w:.\-]+",
    r"\bUnable to locate package [\w.+\-]+",
    r"\bcannot load such file -- (?![./~]|[A-Za-z]:[\\/])[\w/.\-]+",
    r"\bCould not find (?:gem )?'[\w.\-]+' (?:\([^)\n]*\) )?(?:among \d+ total gem|in locally "
    r"installed gems|in any of the sources)",
    r"\bmodule '[\w.\-]+' not found:",
    r"\bCould not find module [`'‘][\w.]+[`'’]",
    r"\bno required module provides package\b|\bcannot find package \"[\w./\-]+\"",
)

#: A script or file a loader was told to load by its path and did not find: perl's `require
#: "./lib/helpers.pl"` ("Can't locate ./lib/helpers.pl at -e line 1", or "Can't locate
#: lib/helpers.pl in @INC" of a `.pl` file), Ruby's `require_relative` ("cannot load such file --
#: /app/lib/x"); Node's "Cannot find module './x'" is in `FILE_MISSING`.
LOADED_PATH_MISSING = words(
    "perl ruby",
    r"\bCan't locate (?:\.{1,2}/|/)\S+ (?:at|in @INC)\b|\bCan't locate \S+\.pl in @INC\b",
    r"\bcannot load such file -- (?:\.{1,2}/|/|~/|[A-Za-z]:[\\/])\S+",
)

#: A client with no server to talk to: every server it may use is unreachable or unhealthy, so
#: there was nothing to send the request to. gpg's "keyserver receive failed: No keyserver
#: available" (dirmngr found none it could reach), HAProxy's "No server is available to handle
#: this request", Envoy's "no healthy upstream", nginx's "no live upstreams", Kafka clients'
#: "NoBrokersAvailable", Elasticsearch's "None of the configured nodes are available".
NO_SERVER_AVAILABLE = words(
    "gpg plain",
    r"\bno (?:key ?server|server|upstream|broker|node|host)s? (?:is |are )?available\b",
    r"\bno (?:healthy|live) upstreams?\b",
    r"\bNo(?:Brokers|Nodes?|Servers?)Available(?:Exception|Error)?\b",
    r"\bNone of the configured nodes (?:are|were) available\b",
)

#: A file a program would not overwrite because it is there: the prompt it asks with no terminal to
#: answer, then its refusal (lz4's "a.txt.lz4 already exists; do you want to overwrite (y/N) ?
#: not overwritten", zstd's "overwrite (y/n) ? Not overwritten", gzip's "do you wish to overwrite
#: (y or n)? not overwritten"); gzip's bare form is `NAME_EXISTS_PROGRAMS`'.
OVERWRITE_DECLINED = words(
    "lz4 zstd gzip",
    r"\balready exists\b[^\n]{0,80}?\boverwrite\b[^\n]{0,40}?\?\s*not overwritten\b",
)

#: A path, quoted, that a program says does not exist: git's `fatal: repository '/srv/repos/app.git'
#: does not exist` (a clone from a local path), "the path './charts/api' does not exist". Only a
#: path (it starts with `/`, `./`, `../` or `~/`): a URL or a name that does not exist is not a
#: file.
QUOTED_PATH_ABSENT = words(
    "git plain",
    r"(?:^|\s)['\"‘`](?:\.{1,2}/|/|~/)[^'\"’`\n]{0,200}['\"’`] (?:does not exist|doesn't exist)\b",
)

#: A local agent or bus the command talks to is not running, so nothing answers on its socket:
#: ssh-add's "Could not open a connection to your authentication agent", gpg's "no gpg-agent
#: running in this session", systemctl in a container ("System has not been booted with systemd
#: as init system (PID 1). Can't operate.", "Failed to connect to bus: No such file or directory",
#: the bus's socket, not a file the call named).
AGENT_NOT_RUNNING = words(
    "ssh gpg plain",
    r"\bCould not open a connection to your authentication agent\b",
    r"\bno [\w-]*agent running\b",
    r"\bhas not been booted with systemd as init system\b",
    r"\bFailed to connect to (?:the )?bus: ",
)


# --- batch 45 (guard23): families read from the eighth and ninth blind splits' misses --------
# (kept in one block at the end so that helpers working in parallel merge cleanly; each family
# belongs with its category above and can move there once merged)

#: A program that died instead of exiting with an error, as whatever watched it reports: a
#: debugger's stop on a signal (gdb's "Program received signal SIGSEGV, Segmentation fault." and
#: "Program terminated with signal SIGABRT", lldb's "stop reason = signal SIGSEGV" and
#: "EXC_BAD_ACCESS"), the shell's job report of the signal ("bash: line 1: 4375 Segmentation
#: fault  ./parse", "Floating point exception (core dumped)"), the C library's abort messages
#: (a failed `assert()`, glibc's "free(): double free detected in tcache 2", "*** stack smashing
#: detected ***"), the sanitizers' reports (AddressSanitizer's "==N==ERROR: AddressSanitizer:",
#: UndefinedBehaviorSanitizer's "file.c:3:42: runtime error: signed integer overflow"), valgrind's
#: memcheck errors and its non-zero "ERROR SUMMARY", a runtime's fatal report (Python's "Fatal
#: Python error:", the JVM's "A fatal error has been detected by the Java Runtime Environment").
#: Many of them exit 0 (a debugger, memcheck, UBSan), and a debugger's listing of a source file
#: it does not have ("./nptl/pthread_kill.c: No such file or directory.") is no missing file.
PROGRAM_CRASHED = words(
    "gdb valgrind glibc gcc bash os plain",
    r"(?-i:^Program (?:received|terminated with) signal SIG[A-Z0-9]+\b)",
    r"\bstop reason = (?:signal SIG[A-Z0-9]+|EXC_BAD_ACCESS|EXC_BAD_INSTRUCTION|EXC_ARITHMETIC"
    r"|EXC_CRASH)\b",
    r"(?-i:^(?:(?:/[\w/]+/)?(?:ba|z|da|k)?sh: (?:line \d+: +)?)?\d+ (?:Segmentation fault"
    r"|Floating point exception|Aborted|Bus error|Illegal instruction|Trace/breakpoint trap)\b)",
    r"(?-i:^(?:Segmentation fault|Floating point exception|Aborted|Bus error|Illegal "
    r"instruction) \(core dumped\)\s*$|^Segmentation fault\s*$)",
    _C_ASSERT,
    r"\b(?:free|realloc|malloc)\(\): (?:double free detected|invalid (?:pointer|size|next size)"
    r"|corrupted\b)|\bdouble free or corruption\b|\*\*\* stack smashing detected \*\*\*",
    r"^==\d+==ERROR: (?:Address|Leak|Memory|Thread|UndefinedBehavior)Sanitizer: "
    r"|^WARNING: ThreadSanitizer: |(?-i:^[\w./\-]+:\d+:\d+: runtime error: )",
    r"(?-i:^==\d+== (?:Invalid (?:read|write) of size \d+|Invalid free\(\)|Mismatched free\(\)"
    r"|Conditional jump or move depends on uninitialised|Use of uninitialised value"
    r"|Source and destination overlap|Process terminating with default action of signal)(?!\w))",
    r"(?-i:^==\d+== ERROR SUMMARY: [1-9][\d,]* errors? from)",
    # memcheck's leak records (`-q --leak-check=full` prints only these)
    r"(?-i:^==\d+== [\d,]+ (?:\([\d,]+ direct, [\d,]+ indirect\) )?bytes in [\d,]+ blocks are "
    r"(?:definitely|possibly) lost\b)",
    r"(?-i:^Fatal Python error: )|^# A fatal error has been detected by the Java Runtime "
    r"Environment\b",
    # a parent's report of a child a crash signal ended: cargo's "(signal: 11, SIGSEGV: invalid
    # memory reference)", Python's CalledProcessError "died with <Signals.SIGABRT: 6>.", Go's
    # exec.ExitError "signal: segmentation fault (core dumped)"
    r"\(signal: \d+, SIG(?:SEGV|ABRT|BUS|FPE|ILL)\b|\bdied with <Signals\.SIG(?:SEGV|ABRT|BUS|FPE"
    r"|ILL): \d+>|\bsignal: (?:segmentation fault|aborted|bus error|floating point exception"
    r"|illegal instruction)\b",
)

#: A program that ran out of memory: Python's `MemoryError` (the traceback's last line), the
#: JVM's `java.lang.OutOfMemoryError`, V8's "JavaScript heap out of memory", C++'s
#: `std::bad_alloc`, CUDA's and model servers' allocation failures ("cudaMalloc failed: out of
#: memory", "CUDA out of memory"), the C library's "Cannot allocate memory".
OUT_OF_MEMORY = words(
    "cpython node ollama plain",
    r"(?-i:^MemoryError\b)|(?-i:\bOutOfMemoryError\b)|\bJavaScript heap out of memory\b",
    r"\bstd::bad_alloc\b|\bcudaMalloc failed\b|\bCUDA out of memory\b",
    r"\bout[ -]of[ -]memory\b|\bCannot allocate memory\b",
)

#: A debugger's refusal of a command for the state it is in: gdb's "No symbol \"x\" in current
#: context.", "The program is not being run.", "No stack.", "No frame selected.", "Cannot access
#: memory at address 0x0", "No symbol table is loaded.", "No executable file specified."; lldb's
#: "error: Command requires a current process.". The command ran; it failed.
DEBUGGER_REFUSALS = words(
    "gdb plain",
    r"(?-i:^No symbol \"[^\"\n]{1,80}\" in current context\.)",
    r"(?-i:^(?:The program is not being run|No stack|No frame selected|No symbol table is "
    r"loaded|No executable file specified|No registers)\.)",
    r"(?-i:\bCannot access memory at address 0x[0-9a-f]+\b)",
    r"(?-i:^error: Command requires a current process\b)",
)

#: A calculator's own errors on the program it read: bc's "(standard_in) 1: syntax error",
#: "(standard_in) 1: illegal character: $", "Runtime error (func=(main), adr=7): Divide by zero",
#: and the same "(standard_in) N: parse error" of other yacc-built readers; dc's "dc: stack empty".
CALCULATOR_ERRORS = words(
    "bc plain",
    r"(?-i:^\(standard_in\) \d+: (?:syntax error|parse error|illegal character|Error:))",
    r"(?-i:^Runtime (?:error|warning) \(func=[^,\n]{1,40}, adr=\d+\): )",
    r"(?-i:^dc: (?:stack empty|divide by zero|remainder by zero|square root of negative number))",
)

#: A script file bc was told to read and could not: "File rates.bc is unavailable."
FILE_UNAVAILABLE = words("bc plain", r"(?-i:^File \S+ is unavailable\.$)")

#: ImageMagick's report of an exception, its locus at the end ("convert: no images defined
#: `x.jpg' @ error/convert.c/ConvertImageCommand/3234."): `error/` and `fatal/` loci are errors
#: (its `warning/` loci are warnings, `WARNING_LINE`).
IMAGEMAGICK_ERROR = words("imagemagick", r" @ (?:error|fatal)/[\w.\-]+\.c/\w+/\d+\.\s*$")

#: A binary tool given a file that is not an object file: readelf's "Not an ELF file - it has the
#: wrong magic bytes at the start" and "Failed to read file's magic number", objdump's and nm's
#: "file format not recognized" (in `WRONG_FORMAT`), ld's "file not recognized", ldd's "not a
#: dynamic executable".
NOT_AN_OBJECT_FILE = words(
    "binutils plain",
    r"\bNot an ELF file\b|\bwrong magic bytes\b|\bFailed to read file's magic number\b",
    r"\bfile not recognized: file format\b|\bnot a dynamic executable\b|\bis not an object file\b",
)

#: A signature or digest that does not verify: gpg's "BAD signature from \"X\"", openssl's
#: "Verification failure" (dgst -verify), ssh-keygen's "Could not verify signature.", minisign's
#: and signify's "Signature verification failed". The data changed or the key is not the
#: signer's; a failure of the command, not a refused login.
SIGNATURE_NOT_VERIFIED = words(
    "gnupg openssl openssh plain",
    r"\bBAD signature from\b|(?-i:^Verification [Ff]ailure\s*$)|\bCould not verify signature\b"
    r"|\bthe signature could not be verified\b",
    r"^(?:\S+: )?Signature verification failed\b",
)

#: A program refusing a value of its own command line for the kind of thing it names: xz's "xz:
#: md5: Unsupported integrity check type" and "Unknown file format type", tar's "tar: zip: Invalid
#: archive format" (the program, the value, then the refusal).
PROGRAM_VALUE_REFUSED = words(
    "xz tar plain",
    r"(?-i:^[a-z][\w.+\-]{0,30}: [^:\n]{1,60}: )(?:invalid|unknown|unsupported|unrecognized) "
    r"(?:[\w-]+ ){0,3}(?:type|format|mode|algorithm|method|level)\b",
)

#: A terminal multiplexer's client with no server on its socket: tmux's "error connecting to
#: /tmp/tmux-0/default (No such file or directory)" and "no server running on /tmp/tmux-0/x".
MULTIPLEXER_NOT_RUNNING = words(
    "tmux plain",
    r"\berror connecting to /\S+ \((?:No such file or directory|Connection refused)\)",
    r"\bno server running on /\S+",
)

#: A client's resolver or dialer that failed, in Go's words ("dial tcp: lookup registry.example on
#: 127.0.0.53:53: server misbehaving", "no such host", "dial udp 10.0.0.1:53: connect: network is
#: unreachable"), and a client that gave up reconnecting or retrying ("Maximum reconnection
#: attempts (2) exceeded.", "max retries exceeded: Get ...").
CLIENT_GAVE_UP = words(
    "ollama mcp-typescript-sdk terraform plain",
    r"\bdial (?:tcp|udp)[46]?\b[^\n]{0,120}?"
    r"(?:: (?:no such host|server misbehaving)\b|: connect: )",
    r"\blookup \S+ on \S+: (?:no such host|server misbehaving)\b",
    r"\bmax(?:imum)? (?:number of )?(?:reconnection|reconnect|connection|retry|retries)"
    r"(?: attempts)?(?: \(\d+\))? (?:exceeded|reached)\b",
)

#: A server too busy to take the request now: Ollama's "server busy, please try again.  maximum
#: pending requests exceeded" (OLLAMA_MAX_QUEUE), "Too many pending requests", "request queue is
#: full", .NET's ServerTooBusyException. Waiting and retrying later is the remedy, as for a rate
#: limit.
SERVER_BUSY = words(
    "ollama plain",
    r"\bserver (?:is )?(?:too )?busy\b|\bServerTooBusy",
    r"\b(?:too many|maximum|max) pending requests\b|\b(?:request |job )?queue (?:is )?full\b",
)

#: A login the server refused in its protocol's own words: smtplib's `SMTPAuthenticationError`
#: (535 "Username and Password not accepted"), FTP's "530 Login incorrect.", IMAP's
#: "[AUTHENTICATIONFAILED]", GitHub's "Bad credentials", any `*AuthenticationError` class.
LOGIN_REFUSED = words(
    "langgraph cpython plain",
    r"(?-i:\b[A-Z]\w*Authentication(?:Error|Exception)\b)",
    r"\b(?:username|user name|login|credentials)\b[^\n]{0,20}\bnot accepted\b",
    r"\bLogin incorrect\b|\[AUTHENTICATIONFAILED\]|\bBad credentials\b",
)

#: The shell's report of a process its own alarm ended (SIGALRM, exit 142): "bash: line 1: 4946
#: Alarm clock  python3 -c ...", the timer the script set ran out.
ALARM_CLOCK = words(
    "perl bash cpython plain",
    r"(?-i:^(?:(?:ba|z|da|k)?sh: (?:line \d+: +)?)?\d+ Alarm clock\b)|(?-i:^Alarm clock\s*$)",
)

#: A line that is a warning, not the error (gcc's and git's `warning:`, Python's
#: `<string>:1: DeprecationWarning:`, Node's `(node:123) [DEP0005] DeprecationWarning:`, npm's
#: `npm warn`, Maven's `[WARNING]`, CMake's `CMake Warning`, ssh's `Warning: Identity file ...
#: not accessible`, apt's `W:`, ImageMagick's `@ warning/` locus): the classifier reads the
#: other lines first, so what a warning mentions ("No such file" of an optional key) never
#: decides over the error that follows it. A retry a client reports as a warning (pip's "WARNING:
#: Retrying (Retry(total=4, ...)) after connection broken by ...") is the failure itself.
WARNING_LINE = re.compile(
    r"^\s*(?:[\w.+/<>\-]+(?::\d+)*: |\(node:\d+\) (?:\[\w+\] )?|npm |\[)?"
    r"(?:warning|warn|\w*Warning|CMake Warning(?: \([^)\n]*\))?|WARNING)\]?:?"
    r"(?: (?!Retrying\b)[^\n]*)?$"
    r"|^W: [^\n]*$|^[^\n]* @ warning/[\w.\-]+\.c/\w+/\d+\.\s*$",
    re.MULTILINE,
)


# --- batch 48 (guard24): families read from the tenth blind split's misses ------------------
# (each written from every text the module that produced a miss can send, `batch48_errors.json`)

#: A shell session that refuses the input itself, not a command it ran: OpenHands' BashSession
#: ("ERROR: Cannot execute multiple commands at once.", "ERROR: No previous running command to
#: interact with." / "... to retrieve logs from."): the call asked for something the session does
#: not do, so it is the call's value that is wrong.
SESSION_REFUSED_INPUT = words(
    "openhands plain",
    r"\bCannot execute multiple commands at once\b",
    r"\bNo (?:previous |current )?(?:running|active) (?:command|process)"
    r" to (?:interact with|retrieve (?:the )?(?:logs|output) from|send (?:input|keys) to)\b",
)

#: Function-call arguments an agent could not turn into a dict, in its own words (agno's
#: get_function_call: "Error while decoding function arguments: ...", "Error while parsing
#: function arguments: ...", "Function arguments are not a valid JSON object."; its advice
#: "Please make sure we can json.loads() the arguments").
ARGUMENTS_NOT_DECODED = words(
    "agno plain",
    r"\bError while (?:decoding|parsing|loading) (?:the )?(?:function|tool)(?: call)? arguments\b",
    r"\b(?:function|tool)(?: call)? arguments (?:are|is) not (?:a )?valid JSON\b",
    r"\bmake sure we can json\.loads\(\) the arguments\b",
)

#: A tool the model asked for that the agent has not got, said of "the requested tool" (agno's
#: "Error: The requested tool does not exist or is not available.").
REQUESTED_TOOL_ABSENT = words(
    "agno plain",
    r"\bthe requested (?:tool|function) (?:does not exist|doesn't exist|is not available"
    r"|was not found|is unknown)\b",
)

#: A file the tool reads as text that is not text: agno's CodingTools ("Binary file detected:
#: X", "Cannot decode file as text: X"), OpenHands' action server ("ERROR_BINARY_FILE"). The file
#: is the wrong one to read this way: the call's value.
NOT_TEXT = words(
    "agno openhands plain",
    r"\bBinary file detected\b|(?-i:^ERROR_BINARY_FILE\s*$)",
    r"\bCannot decode (?:the )?file as (?:text|utf-?8)\b",
)

#: A path the tool's sandbox keeps out: OpenHands' "You're not allowed to access this path: X.
#: You can only access paths inside the workspace."
PATH_OUTSIDE_SANDBOX = words(
    "openhands plain",
    r"\bnot allowed to access (?:this|that|the) (?:path|file|directory)\b",
    r"\byou can only access (?:paths|files) (?:inside|within|under) the\b",
)

#: An LSP query the language server answered with nothing for the symbol the call named (crush:
#: "No definition found for symbol 'X'", "No call hierarchy information for 'X'"): the symbol is
#: the call's value.
NOTHING_FOR_SYMBOL = words(
    "crush plain",
    r"^No (?:definition|declaration|implementation|type definition|references?|hover"
    r"|call hierarchy|symbols?)(?: information)?s? (?:found )?for (?:symbol )?['\"`]",
)

#: A count in the call over the tool's own cap ("exceeds maximum of 5 questions per batch (got
#: 8)", crush's question tool): sizes of text (tokens, bytes) are the context's, not this.
COUNT_OVER_CAP = words(
    "crush plain",
    r"\bexceeds (?:the )?maximum of \d+ (?!tokens?\b|bytes?\b|characters?\b|chars?\b|lines?\b)"
    r"[a-z]+ per [a-z]+\b",
)

#: AWS's error codes as botocore words a ClientError ("An error occurred (ThrottlingException)
#: when calling the GetMetricData operation (reached max retries: 4): Rate exceeded"), throttling
#: first; IAM's "User: arn:... is not authorized to perform: s3:PutObject" and the access codes.
AWS_THROTTLED = words(
    "strands-agents plain",
    r"\bAn error occurred \((?:Throttling|ThrottlingException|TooManyRequestsException"
    r"|RequestLimitExceeded|SlowDown|ProvisionedThroughputExceededException"
    r"|RequestThrottled(?:Exception)?)\)",
)
AWS_DENIED = words(
    "strands-agents plain",
    r"\bAn error occurred \((?:AccessDenied(?:Exception)?|UnauthorizedOperation"
    r"|UnrecognizedClientException|InvalidClientTokenId|ExpiredToken(?:Exception)?|AuthFailure"
    r"|SignatureDoesNotMatch)\)",
    r"\bis not authorized to perform: [a-z0-9\-]+:\w+",
)

#: httpx's ConnectError when every address of the host refused or failed ("All connection
#: attempts failed"), as an MCP server's tool reports it.
ALL_CONNECTIONS_FAILED = words("mcp-python-sdk plain", r"\bAll connection attempts failed\b")

#: A tool call the user or an approval step did not allow, said of its execution (the Vercel AI
#: SDK's "Tool call execution denied.", "Tool execution denied").
EXECUTION_DENIED = words(
    "vercel-ai plain", r"\b(?:tool(?: call)? )?execution (?:was )?denied\b(?! by the (?:OS|system))"
)

#: dash's, ash's and BusyBox's cd into a directory that is not there ("dash: 1: cd: can't cd to
#: deploy/staging"), and an editor with no file open (SWE-agent's "No file open. Use the open
#: command first.").
NO_SUCH_PLACE = words(
    "dash swe-agent plain",
    r"\bcd: can't cd to \S",
    r"\bNo file (?:is )?(?:currently )?open(?:ed)?\b",
)

#: Compressors' words for input that is not their format or is cut short (lz4's "Error 44 :
#: Unrecognized header : file cannot be decoded", zstd's "Read error (39) : premature end").
COMPRESSED_INPUT_UNREADABLE = words(
    "lz4 zstd plain",
    r"\bUnrecognized header\b",
    r"\bRead error \(\d+\) : premature end\b",
)

#: A user's rejection of what the agent proposed, with or without the user's reasons (Gemini
#: CLI's exit_plan_mode: "Plan rejected. User feedback: ...", "Plan rejected. No feedback
#: provided.").
PROPOSAL_REJECTED = words(
    "gemini-cli plain",
    r"\b(?:plan|proposal|changes?|edits?) (?:was |were )?rejected\.\s+"
    r"(?:User feedback:|No feedback provided\b)",
)

#: A value that must name something the tool already holds and does not ("Error: cell_id must
#: refer to an existing cell for delete.", CAMEL's FileToolkit), and Python's strtobool refusing
#: a flag ("invalid truth value 'sometimes'", crewAI's FileWriterTool): the call's value.
VALUE_MUST_NAME_EXISTING = words(
    "camel crewai plain",
    r"\b[A-Za-z_][\w.]{0,63} must (?:refer to|reference|point to|name|match) an? existing\b",
    r"\binvalid truth value\b",
)

#: A ReAct agent's feedback on a step whose text the parser could not read as a step (crewAI's
#: agents/constants.py: "I did it wrong. Invalid Format: I missed the 'Action Input:' after
#: 'Action:'.", "... I missed the 'Action:' after 'Thought:'.", "Tried to both perform Action and
#: give a Final Answer at the same time"): no call in the required format.
REACT_STEP_UNREADABLE = words(
    "crewai plain",
    r"\bInvalid Format: I missed the ['\"]?[A-Z][\w ]{0,20}:?['\"]? after ['\"]?[A-Z][\w ]{0,20}:?",
    r"\bTried to both perform (?:an )?Action and give a Final Answer\b",
)

#: The Slack Web API's error codes as slack_sdk's SlackApiError shows the body ("The server
#: responded with: {'ok': False, 'error': 'not_in_channel'}"): the token or the bot may not do
#: this (not in the channel, a scope or an authentication missing or revoked). (Its `ratelimited`
#: is read by the rate-limit family already.)
SLACK_DENIED = words(
    "camel plain",
    r"['\"]ok['\"]: (?:False|false), ['\"]error['\"]: ['\"](?:not_in_channel|missing_scope"
    r"|not_authed|invalid_auth|token_revoked|token_expired|account_inactive|no_permission"
    r"|restricted_action|not_allowed_token_type)['\"]",
)
