"""What a command's exit status means, as the program that set it documents it.

This module owns the per-program reading of exit statuses: which program a shell command's
status comes from (the last simple command of the line: `cd app && grep -n x f | head` reports
`head`'s), the statuses that are answers rather than failures (grep's 1 is "no line selected",
diff's and cmp's 1 is "the files differ", `test`'s 1 is "false", `terraform plan
-detailed-exitcode`'s 2 is "changes present", `npm outdated`'s 1 lists what is outdated, `command
-v`'s 1 is "not installed"), and the statuses that name a failure's kind by
themselves (curl's numbered errors: 6 and 7 could not resolve or connect, 28 timed out; wget's 4
network failure and 6 refused credentials; a process killed by SIGKILL, 137, or by its own
alarm, 142; a process that crashed on SIGSEGV, SIGABRT, SIGFPE, SIGBUS or SIGILL, 139 ...). The
command comes from the call's arguments (`{"command": ...}`, Codex's `["bash", "-lc", script]`)
or from a command-result format that prints it (Aider's "I ran this command:", gemini-cli's
`Command:`).
The output decides too: a status 1 whose output is only a diff report is diff's answer.

It never classifies text and never raises: a command it cannot split names no program, and a
status it does not know is left to the caller's default (non-zero is a failure).
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping

#: Longest command read (a heredoc script is the program's input, not the command line).
MAX_COMMAND_CHARS = 4_096

#: Argument names agents give a shell tool's command line (Codex, Claude Code, Roo Code, Cline,
#: gemini-cli, OpenHands, goose, Continue `command`; `cmd`; `commandLine`; `script`).
COMMAND_KEYS = ("command", "cmd", "commandline", "command_line", "script", "shell_command")

#: Words in front of the program that run it unchanged, so its status is the program's.
_WRAPPERS = frozenset({"sudo", "env", "time", "nice", "nohup", "command", "exec", "builtin"})
#: Wrappers whose first operand is theirs, not the program's (`timeout 30 grep ...`).
_WRAPPERS_WITH_OPERAND = frozenset({"timeout", "stdbuf", "ionice", "taskset", "chrt"})
_ASSIGNMENT = re.compile(r"[A-Za-z_]\w*=")
#: The separators after which the next simple command's status is the line's.
_SEPARATORS = re.compile(r"&&|\|\||[;|\n&]")

#: Programs whose status 1 is an answer: no line selected, the inputs differ, the test is false,
#: no process matched (GNU grep, ripgrep, diffutils, cmp, test(1), procps).
_ONE_IS_AN_ANSWER = frozenset(
    {
        "grep",
        "egrep",
        "fgrep",
        "zgrep",
        "rg",
        "ag",
        "ack",
        "diff",
        "cmp",
        "colordiff",
        "test",
        "[",
        "[[",
        "pgrep",
        "pidof",
        "which",
        "type",
    }
)
#: Subcommands and flags whose status is an answer: (program, subcommand or None, flags of which
#: one must be given or None, status). `git diff --exit-code|--quiet|--no-index` (the trees
#: differ), `git merge-base --is-ancestor` (not an ancestor), `git grep` (no match), `git
#: check-ignore` (not ignored), `git rev-parse --verify --quiet` (no such object), `git ls-remote
#: --exit-code` 2 (no matching ref), `kubectl diff` (differences found), `terraform plan
#: -detailed-exitcode` 2 (changes present), `npm outdated` (outdated packages listed), `make -q`
#: (not up to date), `jq -e` (the last output was false or null), `command -v` (not found),
#: `systemctl is-active` 3 and `is-enabled` / `is-failed` 1 (the unit's state).
_SUBCOMMAND_ANSWERS: tuple[tuple[str, str | None, frozenset[str] | None, int], ...] = (
    ("git", "diff", frozenset({"--exit-code", "--quiet", "--no-index"}), 1),
    ("git", "merge-base", frozenset({"--is-ancestor"}), 1),
    ("git", "grep", None, 1),
    ("git", "check-ignore", None, 1),
    ("git", "rev-parse", frozenset({"--quiet", "-q"}), 1),
    ("git", "ls-remote", frozenset({"--exit-code"}), 2),
    ("kubectl", "diff", None, 1),
    ("terraform", "plan", frozenset({"-detailed-exitcode", "--detailed-exitcode"}), 2),
    ("npm", "outdated", None, 1),
    ("make", None, frozenset({"-q", "--question"}), 1),
    ("jq", None, frozenset({"-e", "--exit-status"}), 1),
    ("command", None, frozenset({"-v", "-V"}), 1),
    ("systemctl", "is-active", None, 3),
    ("systemctl", "is-enabled", None, 1),
    ("systemctl", "is-failed", None, 1),
)

#: A status-1 output that is a difference report: unified or context diff headers, git's diff
#: header, diff -q's "Files a and b differ", cmp's "a b differ: byte N, line M".
_DIFF_REPORT = re.compile(
    r"\A\s*(?:--- \S[^\n]*\n\+\+\+ \S|\*\*\* \S[^\n]*\n--- \S|diff (?:--git |-\w+ )\S"
    r"|\d+(?:,\d+)?[acd]\d+(?:,\d+)?\n[<>] "
    r"|(?:Binary )?[Ff]iles \S+ and \S+ differ\s*$|\S+ \S+ differ: (?:byte|char) \d+, line \d+\s*$)"
)

#: curl's documented exit codes that name a failure's kind (curl(1), "EXIT CODES").
_CURL = {
    5: "EI/NETWORK_ERROR/001",  # could not resolve proxy
    6: "EI/NETWORK_ERROR/001",  # could not resolve host
    7: "EI/NETWORK_ERROR/001",  # failed to connect to host
    22: "EI/NETWORK_ERROR/001",  # HTTP page not retrieved (status >= 400 with --fail)
    28: "EI/TIMEOUT/001",  # operation timeout
    35: "EI/NETWORK_ERROR/001",  # TLS handshake failed
    37: "EI/FILE_NOT_FOUND/001",  # FILE:// could not read the file
    47: "EI/NETWORK_ERROR/001",  # too many redirects
    52: "EI/NETWORK_ERROR/001",  # the server replied nothing
    56: "EI/NETWORK_ERROR/001",  # failure receiving network data
    60: "EI/NETWORK_ERROR/001",  # peer certificate cannot be authenticated
    67: "EI/PERMISSION_DENIED/001",  # the server refused the credentials
}
#: wget's documented exit statuses (wget(1), "EXIT STATUS").
_WGET = {
    4: "EI/NETWORK_ERROR/001",  # network failure
    5: "EI/NETWORK_ERROR/001",  # SSL verification failure
    6: "EI/PERMISSION_DENIED/001",  # username/password authentication failure
    8: "EI/NETWORK_ERROR/001",  # the server issued an error response
}
_BY_PROGRAM = {"curl": _CURL, "wget": _WGET}
#: 128 + SIGKILL: the process was killed (an out-of-memory killer, `timeout -s KILL`, a runner's
#: budget): read as a timeout, as the corpus reads "Killed".
SIGKILL_STATUS = 137
#: 128 + a signal a crashing program gets from its own fault (SIGILL 4, SIGABRT 6, SIGBUS 7,
#: SIGFPE 8, SIGSEGV 11; POSIX shells' status for a process a signal ended): the program
#: crashed. 128 + SIGALRM (14): the timer the program set ran out.
CRASH_STATUSES = frozenset({128 + 4, 128 + 6, 128 + 7, 128 + 8, 128 + 11})
SIGALRM_STATUS = 128 + 14

#: The command a command-result format prints with the output: Aider's `/run` message ("I ran
#: this command:\n\n{command}\n\nAnd got this output:"), gemini-cli's older `Command: ` field.
_COMMAND_IN_TEXT = re.compile(
    r"\A\s*I ran this command:\n\n(?P<aider>[^\n]{1,4096}?)\n\nAnd got this output:"
    r"|\A\s*Command: (?P<field>[^\n]{1,4096})\n",
)


def command_of(arguments: object) -> str | None:
    """The shell command line of a call's arguments (a mapping), or None.

    A list is an argv (`["bash", "-lc", "grep -n x f"]`): a shell's `-c` script is the command.
    """
    if not isinstance(arguments, Mapping):
        return None
    for key, value in arguments.items():
        if str(key).lower() not in COMMAND_KEYS:
            continue
        if isinstance(value, str):
            return value[:MAX_COMMAND_CHARS]
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            argv: list[str] = value
            if len(argv) >= 3 and argv[1] in ("-c", "-lc", "-ic", "-lic"):
                return argv[2][:MAX_COMMAND_CHARS]
            return shlex.join(argv)[:MAX_COMMAND_CHARS]
    return None


def command_of_raw(raw: str | None) -> str | None:
    """The shell command of arguments the call carries as JSON text (OpenAI's shape), or None.
    Decoded only when the text names a command key, and only up to `MAX_COMMAND_CHARS` * 4."""
    if not raw or len(raw) > MAX_COMMAND_CHARS * 4:
        return None
    folded = raw.lower()
    if not any(f'"{key}"' in folded for key in COMMAND_KEYS):
        return None
    try:
        return command_of(json.loads(raw))
    except (ValueError, RecursionError):
        return None


def command_in_text(text: str) -> str | None:
    """The command a command-result format printed beside its output, or None."""
    match = _COMMAND_IN_TEXT.match(text)
    if match is None:
        return None
    return match.group("aider") or match.group("field")


#: The last line a program killed by SIGTERM leaves: the shell's job report (`Terminated`),
#: make's for its recipe (`make: *** [Makefile:2: serve] Terminated`), ninja's (and so `cmake
#: --build`'s) `ninja: build stopped: interrupted by user.`, which it says of any SIGINT or SIGTERM.
_TERMINATED_LINE = re.compile(
    r"(?:^|\] )Terminated\s*\Z|^ninja: build stopped: interrupted by user\.\s*\Z", re.MULTILINE
)


#: xargs's own report that a command it ran exited 255, after which xargs exits 124 (findutils'
#: xargs(1), "EXIT STATUS"): the same status as GNU timeout's kill, but no time ran out.
_XARGS_ABORTED = re.compile(
    r"^xargs: [^\n]{1,200}: exited with status 255; aborting$", re.MULTILINE
)


def xargs_aborted(output: str) -> bool:
    """The output holds xargs's report that a command it ran exited 255 (its status is then 124,
    which is not a timeout's)."""
    return bool(_XARGS_ABORTED.search(output))


def killed_by_timeout(text: str) -> bool:
    """A command-result format that states no exit status (Aider's "I ran this command:") shows a
    command run under `timeout(1)` that printed nothing, or ended with a SIGTERM report: the
    timeout killed it (GNU timeout exits 124, which such a format does not show)."""
    match = _COMMAND_IN_TEXT.match(text)
    if match is None or not runs_under_timeout(match.group("aider") or match.group("field")):
        return False
    output = text[match.end() :].strip()
    return not output or bool(_TERMINATED_LINE.search(output))


def last_simple_command(command: str) -> list[str]:
    """The words of the last simple command of a shell line, wrappers and assignments dropped
    (`cd app && FOO=1 timeout 9 grep -n x f` gives `["grep", "-n", "x", "f"]`); [] when the
    line does not split (an open quote, a heredoc)."""
    words = _unwrapped(_last_words(command))
    if words and words[0] in _WRAPPERS_WITH_OPERAND:
        operands = [w for w in words[1:] if not w.startswith("-")]
        words = words[words.index(operands[0]) + 1 :] if operands else []
    if words:
        words[0] = words[0].rsplit("/", 1)[-1]
    return words


def runs_under_timeout(command: str) -> bool:
    """The line's last simple command runs its program under `timeout(1)`
    (`cd app && timeout 30 make serve`), whose kill ends it as a timeout."""
    words = _unwrapped(_last_words(command))
    return bool(words) and words[0] == "timeout"


def _last_words(command: str) -> list[str]:
    """The words of the line's last simple command as written; [] when it does not split."""
    if "<<" in command:
        return []
    try:
        lexer = shlex.shlex(command[:MAX_COMMAND_CHARS], posix=True, punctuation_chars=";&|\n")
        lexer.whitespace = " \t\r"  # a newline separates commands, as `;` does
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:
        return []
    words: list[str] = []
    for token in tokens:
        if _SEPARATORS.fullmatch(token) or token == "\n":
            words = []
        else:
            words.append(token)
    return words


def _unwrapped(words: list[str]) -> list[str]:
    """`words` without leading assignments and wrappers that run the rest unchanged."""
    while words and (_ASSIGNMENT.match(words[0]) or _wraps(words)):
        words = words[1:]
    return words


def _wraps(words: list[str]) -> bool:
    """`words` start with a wrapper that runs the rest unchanged (`command -v x` is a query)."""
    if words[0] == "command" and len(words) > 1 and words[1].startswith("-"):
        return False
    return words[0] in _WRAPPERS


def is_an_answer(status: int, command: str | None, output: str = "") -> bool:
    """The non-zero `status` is the program's answer, not its failure: grep selected no line,
    diff found differences, a test was false, a plan has changes to apply."""
    if status == 1 and _DIFF_REPORT.match(output):
        return True
    argv = last_simple_command(command) if command else []
    if not argv:
        return False
    program, args = argv[0], argv[1:]
    if status == 1 and program in _ONE_IS_AN_ANSWER:
        return True
    given = set(args)
    return any(
        status == answer
        and program == name
        and (subcommand is None or args[:1] == [subcommand])
        and (flags is None or bool(flags & given))
        for name, subcommand, flags, answer in _SUBCOMMAND_ANSWERS
    )


def status_pattern(status: int | None, command: str | None) -> str | None:
    """The pattern a status names by itself for the program that set it (curl's 7 is a refused
    connection, wget's 4 a network failure), or None."""
    if status is None or status == 0:
        return None
    if status in (SIGKILL_STATUS, SIGALRM_STATUS):
        return "EI/TIMEOUT/001"
    if status in CRASH_STATUSES:
        return "EI/COMMAND_FAILED/005"
    argv = last_simple_command(command) if command else []
    table = _BY_PROGRAM.get(argv[0]) if argv else None
    return table.get(status) if table else None
