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
may name other things. Lines that state an error are read before lines that do not, and the
specific causes before the generic one (a line that states a failure of no known cause).
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


def _lines_last_first(texts: Iterable[str]) -> list[str]:
    lines = [line for text in texts for line in reversed(text.splitlines()) if line.strip()]
    stating = [line for line in lines if _STATES_ERROR.search(line)]
    return stating + [line for line in lines if not _STATES_ERROR.search(line)]


def meaning_of(texts: Iterable[str], *, program: bool = False) -> str | None:
    """The pattern id of the cause the error texts state last, or None when they state none;
    with `program` (the texts are a program's failure), only a cause `of_programs`."""
    lines = _lines_last_first(texts)
    specific = tuple(m for m in MEANINGS + NAMED_CAUSES if m.of_programs or not program)
    for meanings in (specific, (FAILURE, STATED_FAILURE)):
        for line in lines:
            for meaning in meanings:
                if meaning.words.search(line):
                    return meaning.pattern_id
    return None


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
