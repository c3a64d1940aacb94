"""The interceptor: preflight, error and result hooks with task-scoped occurrence state.

This module owns `GuardSession` (the one engine: preflight -> classify -> count -> guidance,
over one `Ledger`) and `Interceptor`, which keeps one session per task for in-process agents.
`guard_history` replays a history through a fresh `GuardSession`, so both holders share every
rule. It never executes tools, never reads clocks and never raises for a model's mistake:
mistakes become `Guidance`. Unknown errors pass through unchanged (fail open).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolmend.guard.call_facts import argument_values, search_values
from toolmend.guard.classify import Classification, classify_error, error_text
from toolmend.guard.exit_status import command_of, command_of_raw
from toolmend.guard.guidance import (
    DEFAULT_MAX_BYTES,
    MIN_MAX_BYTES,
    Guidance,
    GuidanceContext,
    build_guidance,
)
from toolmend.guard.memo import PureMemo
from toolmend.guard.occurrences import PROTOCOL_SCOPE, Ledger, call_key, fingerprint
from toolmend.guard.patterns import Category, Flag
from toolmend.guard.preflight import (
    CallView,
    Finding,
    PreflightChecker,
    has_tool_markup,
    parse_arguments,
    view_call,
)
from toolmend.guard.results import (
    DEFAULT_CONTENT_TOOLS,
    DEFAULT_PROBLEM_REPORTING_TOOLS,
    MAX_BARE_MESSAGE_CHARS,
    arguments_text,
    classify_result,
)
from toolmend.model import Tool, ToolmendError, ToolsLike, coerce_tools

DEFAULT_TASK = "default"
#: What preflight found for a call given as a JSON string, by (tool set, name, arguments).
PREFLIGHT_MEMO: PureMemo[tuple[Finding | None, str]] = PureMemo()
#: A text result's failure classification (None: a success), by (text, tool, flag, tool lists).
RESULT_MEMO: PureMemo[Classification | None] = PureMemo()
#: Task states kept by one `Interceptor`; the least recently used is dropped first, so an
#: agent that never calls `end_task` cannot grow memory without bound.
DEFAULT_MAX_TASKS = 1024
#: Bytes of the original error kept under a guidance block in a rewritten tool result.
DEFAULT_KEEP_ORIGINAL_BYTES = 512


@dataclass(frozen=True, slots=True)
class InterceptorConfig:
    """Tunable thresholds and tool lists; the defaults follow the issue and the seeds."""

    max_bytes: int = DEFAULT_MAX_BYTES
    stuck_after: int = 3
    duplicate_threshold: int = 2
    duplicate_exempt_tools: frozenset[str] = frozenset()
    problem_reporting_tools: frozenset[str] = DEFAULT_PROBLEM_REPORTING_TOOLS
    content_tools: frozenset[str] = DEFAULT_CONTENT_TOOLS
    break_unclassified_loops: bool = False
    keep_original_bytes: int = DEFAULT_KEEP_ORIGINAL_BYTES
    max_tasks: int = DEFAULT_MAX_TASKS

    def __post_init__(self) -> None:
        if self.max_bytes < MIN_MAX_BYTES:
            raise ToolmendError(f"max_bytes must be at least {MIN_MAX_BYTES}, got {self.max_bytes}")
        if self.stuck_after < 2:
            raise ToolmendError(f"stuck_after must be at least 2, got {self.stuck_after}")
        if self.duplicate_threshold < 2:
            raise ToolmendError(
                f"duplicate_threshold must be at least 2, got {self.duplicate_threshold}"
            )
        if self.max_tasks < 1 or self.keep_original_bytes < 0:
            raise ToolmendError("max_tasks must be >= 1 and keep_original_bytes >= 0")


class GuardSession:
    """One task's guard: the engine shared by `Interceptor` and `guard_history`."""

    __slots__ = ("checker", "config", "ledger")

    def __init__(self, checker: PreflightChecker, config: InterceptorConfig) -> None:
        self.checker = checker
        self.config = config
        self.ledger = Ledger()

    def fork(self) -> GuardSession:
        """A session with this one's counts, counting on independently from here."""
        twin = GuardSession(self.checker, self.config)
        twin.ledger = self.ledger.copy()
        return twin

    # -- events ------------------------------------------------------------------------

    def preflight(self, call: object, *, text: object = None) -> Guidance | None:
        """Check a call before it runs.

        Returns blocking guidance (send `render()` as the tool result; do not execute) for a
        structural problem or a duplicate, non-blocking guidance (execute, then append
        `render()` to the result) for tool markup in `text` next to native calls, or None.
        """
        view = view_call(call)
        protocol: Guidance | None = None
        if text is not None:
            if has_tool_markup(text, self.checker.tool_names):
                dual = Finding(Flag.XML_NATIVE_DUAL)
                protocol = self._signal(view, dual, PROTOCOL_SCOPE, blocking=False)
            else:
                self.ledger.success(PROTOCOL_SCOPE)
        finding, key = self._check(view)
        if finding is not None:
            return self._signal(view, finding, view.name, blocking=True)
        run = self.ledger.see_call(key)
        if (
            run >= self.config.duplicate_threshold
            and view.name not in self.config.duplicate_exempt_tools
        ):
            duplicate = Finding(Flag.DUPLICATE_CALL)
            arguments = self.checker.check(view)[1]  # rare: parsed again rather than kept
            return self._signal(
                view,
                duplicate,
                view.name,
                blocking=True,
                signature=key,
                ends_call_run=False,
                arguments=arguments,
            )
        return protocol

    def _check(self, view: CallView) -> tuple[Finding | None, str]:
        """Preflight's finding for the call, and (when there is none) the call's identity for
        the duplicate count. Both are pure in the tool set and the call, so a call whose
        arguments came as a JSON string (the OpenAI shape every history replay reads again) is
        memoised."""
        memo_key: tuple[object, ...] | None = None
        raw = view.raw_arguments
        if view.arguments is None and raw is not None:
            memo_key = (self.checker.fingerprint, view.name, raw, view.incomplete)
            hit = PREFLIGHT_MEMO.get(memo_key)
            if hit is not None:
                return hit[0]
        finding, arguments = self.checker.check(view)
        key = ""
        if finding is None:
            key = call_key(view.name, arguments if arguments is not None else view.key_arguments)
        if memo_key is not None and raw is not None:
            PREFLIGHT_MEMO.put(memo_key, (finding, key), len(raw) + len(view.name))
        return finding, key

    def on_error(self, call: object, error: object, *, file_content: str | None = None) -> Guidance:
        """Guidance for a call that raised or returned an error (always a failure)."""
        view = view_call(call)
        text = error_text(error)
        searched = search_values(
            view.arguments if view.arguments is not None else view.raw_arguments or ""
        )
        passed = argument_values(
            view.arguments if view.arguments is not None else view.raw_arguments or ""
        )
        metadata = {"search_texts": searched, "argument_values": passed}
        found = classify_error(text, tool=view.name or None, metadata=metadata)
        cls, occurrence = self._count_failure(view, found, text)
        return self.failure_guidance(view, cls, occurrence, text, file_content=file_content)

    def on_result(
        self,
        call: object,
        result: object,
        *,
        is_error: bool | None = None,
        file_content: str | None = None,
    ) -> Guidance | None:
        """None for a success (resets the tool's count), guidance for a failure."""
        view = view_call(call)
        failure = self.count_result(view, result, is_error)
        if failure is None:
            return None
        cls, occurrence = failure
        return self.failure_guidance(
            view, cls, occurrence, result_text(result), file_content=file_content
        )

    def count_result(
        self, view: CallView, result: object, is_error: bool | None = None
    ) -> tuple[Classification, int] | None:
        """Count a call's result: None for a success (its tool's count resets), else the
        failure's classification (the loop breaker's, when it applies) and its occurrence.
        `failure_guidance` turns the failure into guidance."""
        if view.arguments is not None:
            command, given = command_of(view.arguments), arguments_text(view.arguments)
        else:
            command, given = command_of_raw(view.raw_arguments), view.raw_arguments or ""
        if (
            command is not None
            or not isinstance(result, str)
            or len(result) > MAX_BARE_MESSAGE_CHARS
        ):
            given = ""  # no bare error here (`classify_result`): the memo key leaves it out
        # the edit's search texts, whole (a multi-line `old_str`), that an error may quote back
        searched = tuple(search_values(view.arguments if view.arguments is not None else given))
        # the names and ids the call passed, that a failure may repeat
        passed = tuple(
            argument_values(view.arguments if view.arguments is not None else view.raw_arguments)
        )
        cls = self._classify(view.name, result, is_error, command, given, searched, passed)
        if cls is None:
            self.ledger.success(view.name)
            return None
        return self._count_failure(view, cls, result_text(result))

    def _classify(
        self,
        name: str,
        result: object,
        is_error: bool | None,
        command: str | None = None,
        given: str = "",
        searched: tuple[str, ...] = (),
        passed: tuple[str, ...] = (),
    ) -> Classification | None:
        """None for a successful result, else its failure's classification. Pure in the result,
        the tool's name, the call's shell command (its program decides what an exit status
        means), its arguments' text (`given`: a bare error naming its path), the edit's search
        texts (`searched`: an error quoting one back is the edit's), the names and ids it passed
        (`passed`: a failure repeating one is that value refused) and the configured tool lists,
        so a text result (what every history replay reads again) is memoised."""
        prt, content = self.config.problem_reporting_tools, self.config.content_tools
        memo_key: tuple[object, ...] | None = None
        if type(result) is str and type(prt) is frozenset and type(content) is frozenset:
            memo_key = (result, name, is_error, prt, content, command, given, searched, passed)
            hit = RESULT_MEMO.get(memo_key)
            if hit is not None:
                return hit[0]
        arguments = {"command": command} if command else None
        verdict = classify_result(
            result,
            tool=name or None,
            is_error=is_error,
            problem_reporting_tools=prt,
            content_tools=content,
            arguments=arguments,
            given=given,
        )
        metadata: dict[str, Any] = {
            **(arguments or {}),
            "search_texts": searched,
            "argument_values": passed,
        }
        cls = (
            classify_error(result_text(result), tool=name or None, metadata=metadata)
            if verdict.failed
            else None
        )
        if memo_key is not None:
            size = len(result) + len(name) + len(given) + sum(map(len, searched + passed))  # type: ignore[arg-type]
            RESULT_MEMO.put(memo_key, cls, size)
        return cls

    def on_user_message(self) -> None:
        """A user message resets every count."""
        self.ledger.user_message()

    # -- internals -----------------------------------------------------------------------

    def _count_failure(
        self, view: CallView, cls: Classification, text: str
    ) -> tuple[Classification, int]:
        occurrence = self.ledger.failure(view.name, fingerprint(cls.category, view.name, text))
        if (
            cls.category is Category.UNCLASSIFIED
            and self.config.break_unclassified_loops
            and occurrence >= self.config.stuck_after
        ):
            cls = Classification(Category.MODEL_STUCK_LOOP, "EI/MODEL_STUCK_LOOP/001", 1.0)
        return cls, occurrence

    def failure_guidance(
        self,
        view: CallView,
        cls: Classification,
        occurrence: int,
        text: str,
        *,
        file_content: str | None = None,
    ) -> Guidance:
        """The guidance of a counted failure (`count_result`): a function of the call, the
        classification, the occurrence, the text and the config, never of the counts."""
        return build_guidance(
            cls,
            self._context(view, view.arguments, file_content),
            occurrence=occurrence,
            original=text,
            stuck_after=self.config.stuck_after,
            max_bytes=self.config.max_bytes,
        )

    def _signal(
        self,
        view: CallView,
        finding: Finding,
        scope: str,
        *,
        blocking: bool,
        signature: str | None = None,
        ends_call_run: bool = True,
        arguments: Mapping[str, Any] | None = None,
    ) -> Guidance:
        cls = classify_error("", tool=view.name or None, metadata=finding.metadata())
        sig = signature or f"{finding.flag.value}:{finding.param or ''}"
        occurrence = self.ledger.failure(
            scope, fingerprint(cls.category, view.name, sig), ends_call_run=ends_call_run
        )
        ctx = self._context(view, arguments or view.arguments, None, got_type=finding.got_type)
        return build_guidance(
            cls,
            ctx,
            occurrence=occurrence,
            blocking=blocking,
            stuck_after=self.config.stuck_after,
            max_bytes=self.config.max_bytes,
        )

    def _context(
        self,
        view: CallView,
        arguments: Mapping[str, Any] | None,
        file_content: str | None,
        *,
        got_type: str | None = None,
    ) -> GuidanceContext:
        if arguments is None and view.raw_arguments:  # the OpenAI shape: a JSON string
            arguments, _ = parse_arguments(view.raw_arguments)
        return GuidanceContext(
            tool_name=view.name or None,
            tool=self.checker.tool(view.name),
            tool_names=self.checker.tool_names,
            arguments=arguments,
            file_content=file_content,
            got_type=got_type,
        )


def result_text(result: object) -> str:
    """The text of a tool result for error classification: strings and text parts joined."""
    if isinstance(result, str):
        return result
    if isinstance(result, BaseException):
        return error_text(result)
    parts: list[str] = []
    _collect_text(result, parts, 0)
    if parts:
        return "\n".join(parts)
    return "" if result is None else str(result)


def _collect_text(value: object, out: list[str], depth: int) -> None:
    if depth > 6 or len(out) > 32:
        return
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, Mapping):
        for key in ("error", "message", "text", "content", "stderr", "stdout", "result"):
            if key in value:
                _collect_text(value[key], out, depth + 1)
    elif isinstance(value, list):
        for item in value[:32]:
            _collect_text(item, out, depth + 1)


class Interceptor:
    """Error interception for in-process agents, with task-scoped, isolated state.

    Typical loop, per model turn::

        g = interceptor.preflight(call, text=assistant_text, task=task_id)
        if g and g.blocking:
            result = g.render()  # do not execute
        else:
            try:
                raw = run(call)
            except Exception as exc:
                result = interceptor.on_error(call, exc, task=task_id).render()
            else:
                f = interceptor.on_result(call, raw, task=task_id)
                result = raw if f is None or f.passthrough else f.render()
            if g:
                result += "\\n\\n" + g.render()  # protocol note
    """

    def __init__(
        self,
        tools: ToolsLike = None,
        config: InterceptorConfig | None = None,
    ) -> None:
        coerced = coerce_tools(tools)
        self.tools: list[Tool] | None = coerced
        self.config = config or InterceptorConfig()
        self._checker = PreflightChecker(coerced)
        self._tasks: OrderedDict[Hashable, GuardSession] = OrderedDict()

    def session(self, task: Hashable = DEFAULT_TASK) -> GuardSession:
        """The state of `task`, created on first use."""
        state = self._tasks.pop(task, None)
        if state is None:
            state = GuardSession(self._checker, self.config)
        self._tasks[task] = state
        while len(self._tasks) > self.config.max_tasks:
            self._tasks.popitem(last=False)
        return state

    def preflight(
        self, call: object, *, text: object = None, task: Hashable = DEFAULT_TASK
    ) -> Guidance | None:
        return self.session(task).preflight(call, text=text)

    def on_error(
        self,
        call: object,
        error: object,
        *,
        task: Hashable = DEFAULT_TASK,
        file_content: str | None = None,
    ) -> Guidance:
        return self.session(task).on_error(call, error, file_content=file_content)

    def on_result(
        self,
        call: object,
        result: object,
        *,
        task: Hashable = DEFAULT_TASK,
        is_error: bool | None = None,
        file_content: str | None = None,
    ) -> Guidance | None:
        return self.session(task).on_result(
            call, result, is_error=is_error, file_content=file_content
        )

    def on_user_message(self, *, task: Hashable = DEFAULT_TASK) -> None:
        self.session(task).on_user_message()

    def end_task(self, task: Hashable = DEFAULT_TASK) -> None:
        """Forget a finished task's state."""
        self._tasks.pop(task, None)

    def occurrences(self, task: Hashable = DEFAULT_TASK) -> dict[str, Any]:
        """The task's current counts: scope -> (category, occurrence)."""
        state = self._tasks.get(task)
        return state.ledger.snapshot() if state else {}

    @property
    def tasks(self) -> Sequence[Hashable]:
        return tuple(self._tasks)
