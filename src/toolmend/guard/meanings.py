"""Meaning classes: the cause an error states in the words every program and agent shares.

The wording families (`wordings.py`) recognise the messages of the sources they were written from;
an agent, server or program nobody has read still says what went wrong in a small common
vocabulary: an errno name or its text (`ENOENT`, "no such file", `ECONNREFUSED`, "permission
denied"), an exception class (`FileNotFoundError`, `Timeout::Error`), a phrase ("timed out",
"already exists", "not provided", "is not a valid"). This module maps that vocabulary to the cause,
one small table of meaning classes, each a category's pattern id. `classify` asks it last, only
when no family recognised the text or only a generic failure did, so it never overrides a
specific pattern.

What the error says *last* is read first: a program prints its cause at the end of its output (the
last `error:` line, the exception a traceback ends with), after progress lines and warnings that
may name other things. Within each message (innermost first, the first of sibling messages
first), lines that state an error are read before lines that do not, and the specific causes
before the generic one (a line that states a failure of no known cause).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple


class Meaning(NamedTuple):
    """One meaning class: the words that state a cause, and the pattern id of that cause.

    `of_programs`: the cause is the same inside a program's output as in a tool's message (a
    refused connection, a missing file, a timeout); a missing argument or an invalid value
    said by a program is about the program's input, its own failure (`COMMAND_FAILED`).
    """

    name: str
    words: re.Pattern[str]
    pattern_id: str
    of_programs: bool = False


def _words(*alternatives: str) -> re.Pattern[str]:
    return re.compile("|".join(alternatives), re.IGNORECASE)


#: The causes, most specific first: a line that names two (a timeout while connecting, a missing
#: file reported as a refusal) takes the first.
MEANINGS: tuple[Meaning, ...] = (
    Meaning(
        "timeout",
        _words(
            r"\btimed out\b",
            r"\bTimeout(?:Error|::Error)?$",
            r"\bETIMEDOUT\b",
            r"\bdeadline exceeded\b",
            r"\bexecution expired\b",
            r"\bmaximum execution time\b.{0,40}\bexceeded\b",
            r"\bkilled\b.{0,40}\bafter \d+\s*(?:s|ms|sec|seconds|minutes)\b",
            # a client's or a database's own timer, named ("failed: timeout expired" of libpq,
            # "canceling statement due to statement timeout", "Lock wait timeout exceeded", Go's
            # "i/o timeout")
            r"\btimeout (?:expired|exceeded|elapsed)\b",
            r"\b(?:statement|lock|lock wait|query|idle[- ]in[- ]transaction(?: session)?)"
            r" timeout\b",
            r"\bi/o timeout\b",
        ),
        "EI/TIMEOUT/001",
        of_programs=True,
    ),
    Meaning(
        "network",
        _words(
            r"\bE(?:CONNREFUSED|CONNRESET|HOSTUNREACH|NETUNREACH|AI_AGAIN|NOTFOUND)\b",
            r"\bConnection ?Refused\b",
            r"\bconnection reset\b",
            r"\bnetwork is unreachable\b",
            r"\bcould not resolve host\b",
            r"\btemporary failure in name resolution\b",
            r"\bcannot connect to\b",
            r"\bfailed to connect to\b",
        ),
        "EI/NETWORK_ERROR/001",
        of_programs=True,
    ),
    Meaning(
        "permission",
        _words(
            r"\bE(?:ACCES|PERM)\b",
            r"\bpermission denied\b",
            r"\bPermissionError\b",
            r"\boperation not permitted\b",
            r"\baccess (?:is )?denied\b",
            r"\bunauthori[sz]ed\b",
            r"\bforbidden\b",
            r"\brequires \w+ access\b",
            r"\bNotCapable\b",
        ),
        "EI/PERMISSION_DENIED/001",
        of_programs=True,
    ),
    Meaning(
        # an agent's or server's policy refusing the call (a program's "not allowed" is about
        # its own state: redis's "OOM command not allowed when used memory > 'maxmemory'")
        "refused",
        _words(
            r"\b(?:command|tool|path|file|operation|action) (?:is )?not allowed\b",
            r"\bis denied\b",
        ),
        "EI/PERMISSION_DENIED/001",
    ),
    Meaning(
        "exists",
        _words(
            r"\bEEXIST\b",
            r"\bFileExistsError\b",
            r"\b(?:file|directory|folder|path|environment)\b.{0,40}\balready exists\b",
            r"[\w-]\.[a-z]{1,5}[`'\"] already exists\b",
            r"\bexists\.? use \S+ to (?:replace|overwrite)\b",
        ),
        "EI/FILE_EXISTS/001",
        of_programs=True,
    ),
    Meaning(
        "missing-file",
        _words(
            r"\bENOENT\b",
            r"\bFileNotFoundError\b",
            r"\bno such file\b",
            r"\bmodule not found\b",
            r"\bcould not open (?:input )?file\b",
            r"\bcould not locate\b",
            r"\bnon-?existent (?:file|path|directory|filepath)\b",
            r"\bno [`'\"]?[\w.-]+\.(?:json|toml|ya?ml|txt|lock)[`'\"]? (?:file )?(?:was )?found\b",
            r"\bdoes not appear to contain\b",
            r"(?:^|\s)[\w./-]+\.\w{1,5} not found\b",
        ),
        "EI/FILE_NOT_FOUND/001",
        of_programs=True,
    ),
    Meaning(
        # an edit tool's text to replace that is not in the file, or not once
        "edit-mismatch",
        _words(
            r"\bfailed to find the old (?:string|text)\b",
            r"\bno occurrences? of the (?:pattern|target|text|string)\b",
            r"\bexpected 1 occurrences?(?:\(s\))? of the target\b.{0,80}\bfound 0\b",
            r"\bthere was no match for\b",
            r"\bambiguous_matches\b",
            r"^search-failed\b",
        ),
        "EI/DIFF_MATCH_FAILED/001",
    ),
    Meaning(
        "missing-argument",
        _words(
            r"\b(?:not provided|must be (?:provided|specified|given))\b",
            r"\bmandatory (?:input )?param(?:eter)?s? (?:are|is) not present\b",
            r"\bwas (?:null|undefined|\"undefined\")",
        ),
        "EI/PARAM_MISSING/001",
    ),
    Meaning(
        "wrong-type",
        _words(
            r"\bwrong-type-argument\b",
            r"\bwas not an? (?:integer|number|string|boolean|array|object)\b",
        ),
        "EI/PARAM_TYPE_MISMATCH/001",
    ),
    Meaning(
        "invalid-argument",
        _words(
            r"\bEINVAL\b",
            r"\binvalid argument\b",
            r"\bis not a valid\b",
            r"\bunknown (?:language|mode|action|operation)\b",
            r"\bis ambiguous\b",
            r"\bexpected a file path, but got a directory\b",
            r"\bis a directory\b",
            r"\btarget is a directory\b",
        ),
        "EI/PARAM_INVALID_VALUE/001",
    ),
)

#: The generic cause: a line stating that the program failed, of no cause above (a syntax error,
#: an exception class, a compiler's or git's `fatal:`).
FAILURE = Meaning(
    "program-error",
    _words(
        r"\bsyntax error\b",
        r"(?-i:\b[A-Z]\w*(?:Error|Exception)\b)",  # an exception class, as spelled
        r"\bfatal(?: error)?:",
        r"\berror(?:\[[\w-]+\]| TS\d+)?:",
        r"\b(?:exit|error) ?code:? [1-9]\d*\b",
        r"^[\w./-]+\.\w+:\d+(?::\d+)?: ",  # a compiler's or linter's file:line:col: diagnostic
        r"^Killed$",
        r"\bterminated unexpectedly\b",
        r"\bunhandled errors?\b",
        r"^void-function\b",
    ),
    "EI/COMMAND_FAILED/001",
)

#: A line that states an error (read before lines that do not).
_STATES_ERROR = _words(
    r"\berror\b", r"\bfatal\b", r"\bfailed\b", r"\b\w+(?:Error|Exception)\b", r"\bdenied\b"
)


def _lines_last_first(texts: Iterable[str], *, spell: bool = False) -> list[str]:
    out: list[str] = []
    for text in texts:
        lines = [
            read
            for line in reversed(text.splitlines())
            if line.strip()
            for read in ((line, *spelled_identifiers(line)) if spell else (line,))
        ]
        out += [line for line in lines if _STATES_ERROR.search(line)]
        out += [line for line in lines if not _STATES_ERROR.search(line)]
    return out


def meaning_of(texts: Iterable[str], *, program: bool = False, ran: bool = False) -> str | None:
    """The pattern id of the cause the error texts state last, or None when they state none;
    with `program` (the texts are a program's failure), only a cause `of_programs`. The category
    cues (`CUES`) and the identifiers spelled as words are read only in a tool's own message:
    not in a program's failure, nor in a command's output (`ran`), whose words are about that
    program's input (javac's "unreported exception FileNotFoundException", psql's "function
    lenght(text) does not exist")."""
    own_message = not program and not ran
    lines = _lines_last_first(texts, spell=own_message)
    specific = tuple(m for m in MEANINGS + NAMED_CAUSES if m.of_programs or not program)
    cues = CUES if own_message else ()
    first = tuple(cue for cue in cues if cue.name in _CUES_BEFORE_MEANINGS)
    for meanings in (specific, (FAILURE, STATED_FAILURE)):
        for line in lines:
            if meanings is specific and (cue := _cue_on(line, first)) is not None:
                return cue
            for meaning in meanings:
                if meaning.words.search(line):
                    return meaning.pattern_id
            if meanings is specific and (cue := _cue_on(line, cues)) is not None:
                return cue
    return None


#: The cues that name their object (an edit's text or hunk, a tool, a type): on the same line they
#: say more than a meaning class's common words ("'x' is not a valid hunk header" is the edit's,
#: not an invalid argument's; "maxRetries must be an integer" names the type).
_CUES_BEFORE_MEANINGS = frozenset({"edit-cue", "tool-cue", "wrong-type-cue"})


def cue_of(texts: Iterable[str]) -> str | None:
    """The pattern id of the category cue (`CUES`) a tool's own message states last, or None:
    what refines a reading made by a status or a code alone ("404" beside "model 'x' not
    found", a request refused beside "prompt is too long")."""
    for line in _lines_last_first(texts, spell=True):
        if (cue := _cue_on(line, CUES)) is not None:
            return cue
    return None


def _cue_on(line: str, cues: Iterable[Meaning]) -> str | None:
    if _TELLS_OF_A_FIX.search(line):
        return None
    return next((cue.pattern_id for cue in cues if cue.words.search(line)), None)


# --- batch 43 (guard19): causes named by an exception class or an error kind, and failures a
# program states without an `error:` (kept in one block at the end so that helpers working in
# parallel merge cleanly)

#: An exception class as thrown: its message or the end of the line follows (not a compiler's
#: "unreported exception FileNotFoundException; must be caught").
_THROWN = r"(?=:|\s*$)"

#: The causes the runtimes' exception classes and error kinds name, where the message beside them
#: may not say it again (Java's `java.nio.file.FileAlreadyExistsException: target`, with only the
#: path after it): Java's and Kotlin's NIO and networking exceptions, .NET's IO exceptions (its
#: FileNotFoundException says "Could not find file", Java's "(No such file or directory)"), Rust's
#: `io::ErrorKind` as its Debug form prints it (`kind: AlreadyExists`), Go's `fs.Err*` sentinels.
NAMED_CAUSES: tuple[Meaning, ...] = (
    Meaning(
        "timeout-class",
        _words(
            r"(?-i:\b(?:Socket|Http(?:Connect)?|Interrupted)?Timeout(?:Exception|Expired)"
            + _THROWN
            + ")",
            r"(?-i:\bkind: TimedOut\b|\bErrorKind::TimedOut\b)",
        ),
        "EI/TIMEOUT/001",
        of_programs=True,
    ),
    Meaning(
        "network-class",
        _words(
            r"(?-i:\b(?:UnknownHost|NoRouteToHost|HttpHostConnect|UnresolvedAddress)Exception"
            + _THROWN
            + ")",
            r"(?-i:\bkind: (?:ConnectionRefused|ConnectionReset|HostUnreachable"
            r"|NetworkUnreachable)\b)",
        ),
        "EI/NETWORK_ERROR/001",
        of_programs=True,
    ),
    Meaning(
        "permission-class",
        _words(
            r"(?-i:\b(?:AccessDenied|UnauthorizedAccess)Exception" + _THROWN + ")",
            r"(?-i:\bkind: PermissionDenied\b|\bErrorKind::PermissionDenied\b)",
            r"(?-i:\bfs\.ErrPermission\b)",
        ),
        "EI/PERMISSION_DENIED/001",
        of_programs=True,
    ),
    Meaning(
        "exists-class",
        _words(
            r"(?-i:\bFileAlreadyExistsException" + _THROWN + ")",
            r"(?-i:\bkind: AlreadyExists\b|\bErrorKind::AlreadyExists\b)",
            r"(?-i:\bfs\.ErrExist\b)",
        ),
        "EI/FILE_EXISTS/001",
        of_programs=True,
    ),
    Meaning(
        "missing-file-class",
        _words(
            r"(?-i:\b(?:NoSuchFile|DirectoryNotFound)Exception" + _THROWN + ")",
            r"(?-i:\bkind: NotFound\b|\bErrorKind::NotFound\b)",
            r"(?-i:\bfs\.ErrNotExist\b)",
        ),
        "EI/FILE_NOT_FOUND/001",
        of_programs=True,
    ),
)

#: A program's failure stated without an `error:` (read as the generic cause, after `FAILURE`):
#: CMake's and other build tools' "X Error at FILE:LINE" diagnostics, a parse error stated as one
#: (CMake's "Parse error.  Function missing ending", PHP's "PHP Parse error:", "parse error at
#: line 3"), and the summary that errors occurred (CMake's "Configuring incomplete, errors
#: occurred!", .NET's "One or more errors occurred.").
STATED_FAILURE = Meaning(
    "program-error-stated",
    _words(
        r"(?-i:^[A-Z][\w+.\-]{1,30} (?:Error|ERROR) at \S+:\d+)",
        # (not prose about one: "fixed the parse error in the config")
        r"(?-i:^\W{0,3}(?:[A-Z]\w* )?Parse error\b)|\bparse error(?: at| near| on line|:)",
        r"\b(?:one or more|some) errors (?:have )?occurred\b|\bincomplete, errors occurred\b",
    ),
    "EI/COMMAND_FAILED/001",
)


# --- guard25: machine identifiers read as words, and category cues (kept in one block at the end
# so that helpers working in parallel merge cleanly)

#: A machine identifier of two words or more: an exception or error class in CamelCase
#: (`AccessDeniedException`, `ToolNotFoundError`, the last part of .NET's and Java's qualified
#: `System.UnauthorizedAccessException`) or a code in
#: snake or screaming case (`ERR_NAME_NOT_RESOLVED`, `not_in_channel`, `RESOURCE_EXHAUSTED`).
#: Every source names its failures so; spelled as words, one lexicon reads them all, where a
#: table of codes knows only the codes someone has seen.
_IDENTIFIER = re.compile(
    r"(?<![\w-])(?:(?=[A-Za-z0-9]*(?:[a-z0-9][A-Z]|[A-Z]{2}[a-z]))[A-Za-z0-9]+"
    r"|[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+)(?![\w-])"
)
_HUMP = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
#: Identifiers spelled per line: a line of code or a listing has many; its cause has a few.
MAX_SPELLED_PER_LINE = 8


def spelled_identifiers(line: str) -> tuple[str, ...]:
    """The line with its machine identifiers spelled as lowercase words, or nothing when it has
    none (`ThrottlingException` -> "throttling exception", `ERR_NAME_NOT_RESOLVED` -> "err name
    not resolved")."""
    found = _IDENTIFIER.findall(line, 0, 4_096)[:MAX_SPELLED_PER_LINE]
    if not found:
        return ()
    return (" ".join(" ".join(_HUMP.findall(part)).lower() for part in found),)


#: A path with a separator (`src/app.py`, `~/notes`, `./build`), not a URL (a page that is not
#: there is the server's answer).
_PATH = r"(?<![\w:/.])(?:~|\.{1,2})?/?[\w.@-]+/[\w.@/-]*[\w@-]"

#: The words of a patch's own grammar (guard27): the V4A format's markers and operations as it
#: spells them (`*** End Patch`, "Delete File", `*** Move to:`), which Codex, the Agents SDK,
#: Aider, Roo Code and their ports all parse, or the patch named as what was being parsed
#: ("Error parsing patch content: ...", "while parsing patch"). A message in these words is about
#: the edit's text, whatever the parser says of one of its lines ("Invalid line prefix",
#: "must not include a diff"): the patch is to be rewritten, not a value corrected.
PATCH_GRAMMAR = _words(
    r"\*\*\* ?(?:Begin|End) Patch\b|\*\*\* (?:Move to|End of File)\b",
    r"(?-i:\b(?:Add|Delete|Update) File\b)",
    r"\bpars(?:e|ing) (?:the )?patch\b",
)

#: A line that tells of an error dealt with, in prose ("I fixed the JSON parse error in the config
#: loader"): its cue words are its subject, not this result's failure.
_TELLS_OF_A_FIX = _words(
    r"\b(?:fixed|resolved|handled|solved|addressed|patched|debugged|avoids?|prevents?)\b"
)

#: Category cues: the few words each category is said in, whoever says it. Read after the
#: meaning classes above and the named causes, only where no family recognised the text or only
#: as a failure of no known kind, and only in a tool's own message (see `meaning_of`); a cue that
#: names an object the category is about (a tool, a file, an edit's text) needs that object on
#: the line, so a text with no cue stays unread. Most specific first: a size before a value
#: constraint, a missing argument before an invalid one, a quoted name not found last.
CUES: tuple[Meaning, ...] = (
    Meaning(
        # two arguments the tool takes one at a time
        "exclusive-arguments-cue",
        _words(
            r"\b(?:providing|passing|specifying|using|setting) both\b[^\n]{0,60}?\bnot allowed\b",
            r"\bmutually exclusive\b|\bcannot be (?:used|combined|specified) together\b",
        ),
        "EI/PARAM_INVALID_VALUE/001",
    ),
    Meaning(
        # an exception class spelled as words (`spelled_identifiers`) whose words name the cause
        # the message may not repeat: .NET's TimeoutException and HttpRequestException, Java's
        # ConnectException, .NET's ArgumentNullException and JsonException
        "class-cue-timeout",
        _words(r"\btime ?out (?:error|exception)\b"),
        "EI/TIMEOUT/001",
    ),
    Meaning(
        "class-cue-network",
        _words(r"\b(?:connection|connect|network|socket|http request) (?:error|exception)\b"),
        "EI/NETWORK_ERROR/001",
    ),
    Meaning(
        "class-cue-missing",
        _words(r"\bargument null (?:error|exception)\b"),
        "EI/PARAM_MISSING/001",
    ),
    Meaning(
        "class-cue-json",
        _words(r"\bjson (?:reader |decode |parse |syntax )?(?:error|exception)\b"),
        "EI/INVALID_JSON_ARGUMENTS/001",
    ),
    Meaning(
        "timeout-cue",
        _words(
            r"\btime ?out\b[^\n]{0,24}\b(?:exceeded|reached|expired|elaps\w*)\b",
            r"\btime ?out (?:after|of|while|waiting)\b",
            r"\b(?:load|request|navigation|operation|read|write|wait|response|idle|execution"
            r"|command|tool|call) time ?out\b",
            r"\b(?:took|taking|is taking) too long\b",
            r"\btime (?:limit|budget)\b[^\n]{0,20}\b(?:exceeded|reached)\b",
            r"\bdid not (?:finish|complete|respond) (?:with)?in\b",
            # control handed back while the command runs on ("after 180 seconds of execution.
            # Process is still running", "is still running after 60000ms")
            r"\bafter \d+ ?(?:ms|s|sec(?:ond)?s?|min(?:ute)?s?)\b[^\n]{0,60}?\bstill running\b",
            r"\bstill running after \d+ ?(?:ms|s|sec(?:ond)?s?|min(?:ute)?s?)\b",
            r"\btook too long to respond\b",
        ),
        "EI/TIMEOUT/001",
    ),
    Meaning(
        # a budget of tool calls, steps or subtasks spent: the loop's, not the provider's
        # (griptape's "Exceeded tool limit of 20 subtasks per task", as crewai's usage limit)
        "budget-cue",
        _words(
            r"\b(?:exceeded|reached|hit) (?:the |its |your )?(?:max(?:imum)? )?(?:tool|step"
            r"|iteration|subtask|turn)s? (?:call )?limit\b",
            r"\b(?:tool|step|iteration|subtask|turn)s? (?:call )?limit of \d+\b",
        ),
        "EI/MODEL_STUCK_LOOP/001",
    ),
    Meaning(
        "rate-cue",
        _words(
            r"\btoo many requests\b",
            r"\brate[- ]?limit(?:s|ed|ing)?\b",
            r"\brate exceeded\b",
            r"\bthrottl(?:ed|ing)\b",
            r"\bquotas?\b[^\n]{0,30}\b(?:exceeded|exhausted|reached|used up)\b",
            r"\b(?:exceeded|exhausted|reached|over) (?:your |the )?(?:\w+ )?quota\b",
            r"\bslow down\b",
            # a plan's usage or capacity spent (Tavily's "Usage limit exceeded", Gemini's "You
            # have exhausted your capacity on this model", a `USAGE_LIMIT_EXCEEDED` code)
            r"\busage limits? (?:exceeded|reached|hit)\b|\b(?:exceeded|reached|hit) (?:the |your )"
            r"?(?:\w+ )?usage limits?\b",
            r"\bexhausted (?:your|the|its) (?:\w+ )?(?:capacity|credits?|quota|usage)\b",
        ),
        "EI/RATE_LIMITED/001",
    ),
    Meaning(
        "context-cue",
        _words(
            r"\bcontext (?:length|window|size|limit)\b",
            r"\b(?:too many|maximum (?:number of )?) ?tokens\b",
            r"\btokens? (?:limit|count)\b[^\n]{0,30}\b(?:exceeded|reached|exceeds)\b",
            r"\b\d+ tokens\b[^\n]{0,12}(?:>|\bexceeds?\b|\bover\b)",
            r"\bprompt is too long\b",
        ),
        "EI/CONTEXT_OVERFLOW/001",
    ),
    Meaning(
        # a size over a limit: of a file, a response, a section, a result set
        "size-cue",
        _words(
            r"\b(?:file|content|section|response|output|input|request|payload|document|image"
            r"|page|result|message|body|diff|data|tool|tool call|tool use|arguments)s?\b"
            r"[^\n]{0,40}?\b(?:is |was )?too (?:large|long|big)\b",
            # a read or write over what the tool takes at once ("This tool only supports reading
            # 400000 bytes at a time")
            r"\b(?:only (?:supports?|allows?|accepts?|reads?|returns?)|at most|no more than)"
            r" (?:reading |writing |returning |sending )?\d[\d,.]* ?(?:bytes|[kmg]i?b|tokens"
            r"|characters|chars|lines|pages)\b",
            r"\bexceeds?\b(?! (?:the )?(?:content|file|document|page|text|buffer)(?:'s)? (?:length"
            r"|size|end)\b)[^\n]{0,30}?\b\d[\d,.]* ?(?:bytes|[kmg]i?b|tokens|characters|chars"
            r"|lines|pages)\b",
            r"\b\d[\d,.]* ?(?:bytes|[kmg]i?b|tokens|characters|chars|lines|pages)\b[^\n]{0,20}?"
            r"(?:>|\bexceeds?\b|\bover (?:the )?(?:limit|maximum)\b)",
            r"\bmaximum (?:file |response |content |output )?(?:size|length) is\b",
            r"\bnarrow (?:your|the) (?:search|query|pattern)\b",
            r"\btoo many (?:results|matches|files|lines)\b",
        ),
        "EI/CONTEXT_OVERFLOW/002",
    ),
    Meaning(
        "network-cue",
        _words(
            r"\bconnection (?:was |has been |had been )?(?:closed|aborted|lost|failed|error|dropped"
            r"|refused|reset|interrupted)\b|\bconnection (?:issue|problem)\b|\bproxy error\b",
            # Windows' WSAECONNREFUSED, as .NET, Go and Python print it
            r"\bactively refused\b|\bno connection could be made\b",
            r"\bconnect(?:ion)? attempts? failed\b",
            r"\bname (?:not|could not be) resolved\b",
            r"\bname or service not known\b",
            r"\bgetaddrinfo\b",
            r"\bsocket hang up\b",
            r"\bnetwork (?:error|is down|request failed|failure)\b",
            r"\b(?:host|server) (?:is )?unreachable\b",
            r"\b(?:service|server|site|website|host) (?:is )?(?:temporarily )?unavailable\b",
            r"\bbad gateway\b",
            # a place the tool could not reach ("Error getting page content: can't access URL",
            # "Could not connect. Please check your internet connection")
            r"\b(?:can't|cannot|could not|couldn't|unable to|failed to) (?:access|reach|open|load"
            r"|fetch) (?:the )?(?:url|host|server|site|website|page|endpoint)\b",
            r"\b(?:can't|cannot|could not|couldn't|unable to|failed to) connect\b",
            r"\bcheck your (?:internet|network) connection\b",
        ),
        "EI/NETWORK_ERROR/001",
    ),
    Meaning(
        # a refusal: by a policy, a sandbox or scope, the user, a missing login
        "permission-cue",
        _words(
            r"\bnot authori[sz]ed\b",
            r"\b(?:execution|request|call|access|permission|operation|action|command)"
            r" (?:was |has been )?(?:denied|refused|rejected)\b",
            r"\binsufficient (?:permissions?|privileges?|scopes?|access|rights)\b",
            r"\bmissing (?:required )?(?:scopes?|permissions?|privileges?)\b",
            r"\bnot permitted\b",
            r"\b(?:blocked|disallowed|prohibited) by (?:the )?(?:\w+ )?(?:policy|user|sandbox"
            r"|administrator|configuration|settings)\b",
            r"\b(?:denied|rejected|declined|cancell?ed) by (?:the )?user\b",
            r"\b(?:the )?user (?:denied|rejected|declined|refused|cancell?ed)\b",
            r"\buser (?:doesn't|does not|did not|didn't) (?:want|allow|approve)\b",
            r"\b(?:was |were )?not approved\b",
            r"\b(?:confirmation|approval|consent)\b[^\n]{0,20}?\b(?:expired|denied|declined"
            r"|not (?:given|received))\b",
            r"\bauthentication (?:failed|required|error|is required)\b",
            r"\b(?:invalid|missing|expired|revoked|no) (?:api[ _-]?key|token|credentials?)\b",
            r"\b(?:incorrect|invalid|wrong) (?:or missing )?password\b",
            r"\b(?:sign|log) in\b|\b(?:logged|signed) in\b",
            # (not a value outside its range: "420 is outside of the allowed range")
            r"\boutside (?:of )?(?:the |your |this (?:[\w-]+'s )?)?"
            r"(?:allowed(?! (?:range|values?|bounds|interval)\b)|permitted|workspace|repository"
            r"|project|sandbox|base|working|root|current|configured)\b",
            r"\bescapes? (?:the )?(?:workspace|sandbox|root|project|allowed|base)\b",
            r"\bnot (?:in|on|within) (?:the |any of the )?(?:allowed|permitted|approved)\b",
            r"\b(?:is|are) not allowed\b|\bnot allowed (?:in|to|by|for)\b",
            r"\b(?:is|are|was|were) (?:also )?blocked\b|\bblocked (?:in|by|for)\b",
            r"\bwrite-protected\b|\bprotected (?:file|path|directory|folder|config\w*)\b",
            r"\bpath traversal\b",
            r"\bmust (?:stay|remain|be) (?:within|inside|under)\b|\bnot under any root\b",
            r"\bnot (?:readable|writable|accessible)\b|\bis read-only\b|\bdisallowed\b",
            r"\bsandbox (?:denied|blocked|restrictions?|violation|policy)\b",
            r"\b(?:plan|read-only|readonly|restricted|safe) mode\b",
            # a hook, a guard or a rule that stopped the call ("PreToolHook blocked the tool
            # execution: ...", "Tool call to 'x' (...) was blocked: ...")
            r"\bblocked (?:the |this )?(?:tool|command|call|request|execution|action|operation)\b",
            r"\b(?:tool|command|call|request|execution|action|operation)\b[^\n]{0,80}?"
            r" was blocked:",
            # the refused call or action named, then the reason (co-cli's "web_fetch blocked:
            # URL resolves to a private or internal address.")
            r"^\W{0,3}(?:Error: )?[\w.:-]{1,64} (?:was )?blocked: \S",
            # a login refused, revoked or expired ("Sentry rejected the stored access token",
            # "Authorization Expired", "The provided subscription token is invalid")
            r"\b(?:rejected|revoked|invalidated) (?:the |your )?(?:\w+ )?(?:access |api |auth\w* "
            r"|bearer |session |subscription )?(?:token|key|credentials?)\b",
            r"\bauthori[sz]ation (?:has )?(?:expired|failed|revoked|required)\b",
            r"\b(?:access|auth\w*|api|subscription|bearer|session|refresh) (?:token|key)s? "
            r"(?:is |was |has )?(?:been )?(?:invalid|expired|revoked|rejected|not valid)\b",
            # a tool that belongs to a skill, scope or role the session was not given
            r"\brequires? (?:the |an? )?(?:[\w-]+ )?(?:skill|scope|role|capability)\b",
        ),
        "EI/PERMISSION_DENIED/001",
    ),
    Meaning(
        "tool-cue",
        _words(
            r"\b(?:unknown|unregistered|undefined|nonexistent|non-existent) (?:tool|function)\b",
            r"\b(?:tool|function)(?: [`'\"]?[A-Za-z_][\w.\-]{0,63}[`'\"]?)? (?:is |was )?"
            r"(?:not found|does not exist|doesn't exist|not (?:registered|available|defined"
            r"|enabled|active)|unavailable|could not be found|cannot be found)\b",
            r"\b(?:tool|function) that (?:wasn't|was not|isn't|is not) (?:defined|registered"
            r"|found|available)\b",
            # a tool the call names, in a group or state that keeps it off ("The tool 'x' in group
            # 'browser' is currently inactive")
            r"\btool [`'\"][\w.\-]{1,64}[`'\"][^\n]{0,40}? (?:is|was) (?:currently )?(?:inactive"
            r"|not active|disabled|unavailable)\b",
            r"\bno (?:such )?(?:tool|function)s? (?:named|called|found|registered|with"
            r"|available)\b",
        ),
        "EI/TOOL_NOT_FOUND/001",
    ),
    Meaning(
        # the reply was not in the form the agent reads calls from (Agent Zero's "You have
        # misformatted your message", Langroid's "Use ONE tool at a time!")
        "reply-form-cue",
        _words(
            r"\bmisformatted (?:your |the )?(?:message|reply|response|tool call|output)\b",
            r"\b(?:use|call|send) (?:only )?one tool (?:call )?at a time\b",
        ),
        "EI/INVALID_TOOL_PROTOCOL/003",
    ),
    Meaning(
        # the same reply or call again (Agent Zero's "You have sent the same message again")
        "repeat-cue",
        _words(
            r"\b(?:sent|made|repeated|issued) the (?:same|identical|exact same) (?:message|reply"
            r"|response|call|tool call|request|command) (?:again|twice)\b",
        ),
        "EI/DUPLICATE_CALL/001",
    ),
    Meaning(
        # a named thing the call would create is there already (Letta's memory block)
        "exists-cue",
        _words(r"\b[\w-]+ [`'\"][^`'\"\n]{1,80}[`'\"] already exists\b"),
        "EI/FILE_EXISTS/001",
    ),
    Meaning(
        "missing-file-cue",
        _words(
            r"\b(?:file|directory|folder)\b[^\n]{0,80}?\b(?:not found|does not exist"
            r"|doesn't exist|cannot be found|could not be found|is missing)\b",
            r"\b(?:cannot|can't|could not|couldn't|unable to|failed to) (?:find|locate|open"
            r"|read|stat|access) (?:the )?(?:file|directory|folder)\b",
            _PATH + r"[`'\"]? (?:was |is )?(?:not found|does not exist|doesn't exist"
            r"|cannot be found|could not be found)\b",
            r"\b(?:not found|does not exist|no such file or directory|not exist)\b:? [`'\"]?"
            + _PATH,
            # an MCP resource (`resources/read`), a file by another name
            r"\bresources?\b[^\n]{0,40}?\bnot found\b",
        ),
        "EI/FILE_NOT_FOUND/001",
    ),
    Meaning(
        "missing-argument-cue",
        _words(
            r"\b(?:is|are) required\b",
            r"\bmissing (?:required )?(?:param(?:eter)?|argument|field|property|key|input"
            r"|value|option)s?\b",
            r"\bmissing \d+ required (?:positional |keyword-only )?arguments?\b",
            r"\brequired (?:param(?:eter)?|argument|field|property|option)s?\b[^\n]{0,40}"
            r"\b(?:missing|not (?:found|provided|given|set|specified|present))\b",
            r"\bno \w+ (?:was |were )?(?:provided|given|specified|supplied)\b",
            r"\b(?:cannot|can't|must not|may not) be (?:null|undefined|None|nil)\b",
            r"\bshould be defined, instead was `?undefined\b",
        ),
        "EI/PARAM_MISSING/001",
    ),
    Meaning(
        "wrong-type-cue",
        _words(
            r"\b(?:expected|must be|should be)(?: of type| a value of type)?:? (?:an? )?"
            r"(?:string|number|integer|int|boolean|bool|array|list|object|dict|float)s?\b"
            r"(?! (?:of|with|in|that|which|between|from|to)\b)",
            r"\binvalid type\b",
            r"\bis not of (?:a )?type\b",
            r"\btype mismatch\b",
            # .NET's TypeConverter: "five is not a valid value for Int32."
            r"\bis not a valid value for (?:U?Int(?:16|32|64)|Double|Single|Decimal|Boolean|Byte"
            r"|DateTime(?:Offset)?|TimeSpan|Guid)\b",
        ),
        "EI/PARAM_TYPE_MISMATCH/001",
    ),
    Meaning(
        # arguments that are not JSON: the words, and Python's json module's own messages
        "invalid-json-cue",
        _words(
            r"\binvalid json\b",
            r"\b(?:not|isn't) (?:a )?valid json\b",
            r"\bjson\b[^\n]{0,30}\b(?:parse|parsing|decode|decoding|syntax) (?:error|failed)\b",
            r"\b(?:failed|unable|could not) to (?:parse|decode) (?:the )?(?:json|arguments)\b",
            r"\b(?:parse|parsing|decode|decoding|deserialize) (?:the )?(?:tool[- ]call |function )?"
            r"arguments\b",
            r"\bExpecting (?:',' delimiter|':' delimiter|value|property name)\b",
            r"\bUnterminated string starting at\b|\bExtra data: line \d+\b",
            r"\bvalid (?:dictionary|dict|object)\b[^\n]{0,20}\bjson\b",
        ),
        "EI/INVALID_JSON_ARGUMENTS/001",
    ),
    Meaning(
        # an edit whose text to replace is not in the file, or not once, or a patch that does
        # not apply
        "edit-cue",
        _words(
            r"\bno (?:exact )?(?:match|matches|occurrences?)(?: (?:was |were )?found)?"
            r" (?:for|of|in)\b",
            r"\bnot found in (?:the )?(?:file|displayed lines|document|content|buffer)\b",
            r"\b(?:multiple|\d+) (?:occurrences|matches) of\b",
            r"\b(?:are|is) identical\b",
            r"\bmodified since (?:it was )?(?:last )?read\b",
            r"\bhunks?\b",
            r"\bpatch\b[^\n]{0,40}?\b(?:invalid|rejected|failed|verification|empty|format"
            r"|context|does not apply)\b|\b(?:invalid|empty|malformed) (?:patch|diff)\b",
            r"\b(?:expected|context) lines\b",
            # the edit's own text, named by its parameter, with what went wrong with it
            r"\b(?:old|search)[ _]?(?:string|str|text|content)\b[^\n]{0,40}?\b(?:not found"
            r"|must be different|are identical|must match|did not match|does not match"
            r"|could not be found|not unique|appears? \d+ times)\b",
            r"\b(?:old|search)\w* and (?:new|replace)\w* (?:\w+ )?(?:must be different|are "
            r"(?:the same|identical))\b",
            r"\bunified diff format\b|\bmust be read (?:first|before)\b",
            r"\bmust (?:first )?read (?:it|the file)\b|\bhas not been read yet\b"
            r"|\bread (?:it|the file) first\b",
            PATCH_GRAMMAR.pattern,
        ),
        "EI/DIFF_MATCH_FAILED/001",
    ),
    Meaning(
        # a database's own object that is not there: the database's failure, as "no such table"
        # is everywhere in the corpus
        "database-object-cue",
        _words(
            r"\b(?:table|column|relation|view|schema|database|collection)s? [`'\"]?[\w.:-]+[`'\"]?"
            r" (?:was )?(?:not found|does not exist)\b",
        ),
        "EI/COMMAND_FAILED/001",
    ),
    Meaning(
        "invalid-value-cue",
        _words(
            r"\bmust be one of\b",
            r"\b(?:is )?not one of\b",
            r"\binvalid (?:[\w-]+ )?(?:value|option|choice|format|mode|selector|index|id|range"
            r"|enum|input|argument|parameter)s?\b",
            # (not a file format: "Invalid DOCX: missing word/document.xml" is the file's fault)
            r"^(?:Error: )?Invalid (?-i:(?![A-Z]{2,5}\b))[\w.-]+(?: [\w.-]+)?(?::|$| format\b"
            r"| value\b| [`'\"])",
            r"\bout of (?:range|bounds)\b",
            # an id that names nothing there, in the tool's own words ("Please try with a
            # different library ID", "an invalid Context7-compatible library ID", "The specified
            # research ID was not found")
            r"\b(?:try|retry) (?:again )?with a (?:different|valid|correct) (?:[\w-]+ ){0,2}(?:id"
            r"|identifier|name|key)\b",
            r"\binvalid (?:[\w-]+ ){1,2}(?:id|ids|identifier)\b",
            r"\b(?:specified|given|provided|requested) (?:[\w-]+ ){0,2}(?:id|identifier|name|key)"
            r" (?:was |is )?not found\b",
            r"\boutside (?:of )?(?:the )?(?:allowed |valid |permitted |inclusive |supported )?"
            r"(?:range|bounds)\b",
            # (not a state the call needs first: "must be started before executing cells")
            r"\bmust (?:be (?!(?:first )?(?:started|initiali[sz]ed|opened|connected|created|loaded"
            r"|enabled|installed|configured|running|called|logged|signed|authenticated)\b)|have"
            r"|contain|refer|start|end|match|not)\b",
            r"\b(?:cannot|can't|may not|should not) (?:be empty|start with|contain|exceed)\b",
            r"\bat (?:least|most) (?:one|\d+)\b",
            r"\bexceeds? (?:the )?(?:max(?:imum)?|limit)\b",
            r"\bunsupported [\w-]+\b|\b(?:type|format|protocol|scheme|extension|value|mode"
            r"|option|encoding|language)s? (?:is |are )?not supported\b",
            r"\b(?:unexpected|unknown|unrecognized|extra) (?:keyword )?(?:argument|parameter"
            r"|option|key|field|propert(?:y|ies))s?\b",
            r"^(?:Error: )?No [\w-]+(?: [\w-]+){0,2} (?:was )?(?:found )?(?:for|with) "
            r"(?:the )?(?:given |provided )?(?:[\w-]+ )?(?:id|index|name|pid|key|ref)\b",
            # nothing there for the quoted value the call gave ("No call hierarchy information
            # for 'NewRouter'"); no changes, errors or matches are an answer ("No changes needed
            # for 'src/api/routes.ts'", a success of Roo Code's)
            r"^\W{0,3}(?:Error: )?No (?!(?:changes?|errors?|issues?|problems?|results?|matches?"
            r"|differences?)\b)[\w-]+(?: [\w-]+){0,3} (?:found |available )?(?:for|with|matching"
            r"|named|in) (?:[\w-]+ )?[`'\"]",
            # a quoted name or an id that names nothing there ("Skill 'pdf-tools' not found",
            # "Entity with name X not found", "Dependency task t-99 not found")
            r"[`'\"][^`'\"\n]{1,80}[`'\"] (?:was |is )?not found\b",
            r"\bwith (?:the )?(?:[\w-]+ )?(?:name|id|key|index|uid|ref|text|value|label|title"
            r"|nodeId|node id) [^\n]{1,60}? (?:not found|does not exist)\b",
            r"\b(?:could not|couldn't|cannot|unable to) find (?:any |an? |the )?[\w-]+(?: [\w-]+)?"
            r" (?:with|named|matching) (?:the )?(?:name|id|key|index|uid|ref|text|value|label"
            r"|title)\b",
            # a thing not found, then the value the call named it by (not a path: a missing file)
            r"^(?:Error: )?[A-Z][\w-]*(?: [\w-]+)? not found: (?![\w.-]*/)\S",
            # an element, a tab or a row the call names by its index, gone or never there
            r"\b(?:element|node|item|tab|page|frame|row|cell)s? (?:with )?(?:index|id|uid|ref"
            r"|number) [\w-]+\b[^\n]{0,40}?\b(?:not found|does not exist|no longer available|is not"
            r" available|out of range)\b|\bindices start (?:from|at)\b",
            # what the value may be, listed after it
            r"\b(?:allowed|valid|available|supported|accepted) (?:keys|values|options|choices"
            r"|types|modes|actions|categories|names)(?: are)?:",
            r"\bbinary (?:file|content|data)s?\b",
            # an offset past the end of what it points into
            r"\bexceeds? (?:the )?(?:content|file|document|page|text|buffer)(?:'s)? (?:length|size"
            r"|end)\b",
            r"\b[a-z]+-\d+ not found\b|\bnot found\. Available\b",
        ),
        "EI/PARAM_INVALID_VALUE/001",
    ),
)
