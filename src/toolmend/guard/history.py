"""`guard_history`: the guard as a pure function over a chat message history.

This module owns the replay: each user message, assistant message (its text and tool calls)
and tool result is fed, in order, to a fresh `GuardSession` (the same engine `Interceptor` uses
per task), so the counts derived from a history equal the counts an in-process agent would have
kept. `HistoryGuard` is that replay as an object: after reading a history it holds what the
guard knows (earlier calls, failure signatures, counts), and a fork of it reads on, so the
answer to a call made after the history (`guard.answers`) costs that call, not another replay.
It reads both shapes the proxy's front-ends carry: OpenAI chat messages (`tool_calls`,
`role: "tool"`) and Anthropic Messages (`tool_use` blocks in assistant content, `tool_result`
blocks with `is_error` in user content). Failing results get their content replaced by the
guidance block, with the original error kept (truncated, secrets masked) under it. It never
mutates its input, never reads clocks and is deterministic: the same history always gives the
same output, so any replica of a stateless proxy can serve any request.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from copy import deepcopy
from dataclasses import replace
from typing import Any

from toolmend.guard.classify import Classification
from toolmend.guard.guidance import Guidance, redact_secrets, truncate_utf8
from toolmend.guard.interceptor import GuardSession, InterceptorConfig
from toolmend.guard.memo import PureMemo
from toolmend.guard.preflight import CallView, PreflightChecker, view_call
from toolmend.model import Tool, ToolsLike, coerce_tools

#: The line between a guidance block and the original error under it; also how an already
#: guided result is recognised (its original is re-read, so guarding twice changes nothing).
ORIGINAL_MARKER = "--- original tool output (truncated) ---"
GUIDANCE_PREFIX = "[toolmend guidance v"

#: The failed results of a history, as they are shown under their guidance (secrets masked,
#: truncated), keyed by the original text and the bytes kept: a replayed history shows the same
#: failures again on every request, and masking secrets is the costliest step of a guided result.
KEPT_ORIGINAL_MEMO: PureMemo[str] = PureMemo()


#: The text a failing result is replaced with (None: it passes through), keyed by everything
#: the guidance is made from: the checker (its tools, by identity: the key holds it), the call's
#: name and argument text, the classification, the occurrence, the original and the config's
#: bounds. A replayed history guides the same failures at the same occurrences on every request.
GUIDED_RESULT_MEMO: PureMemo[str | None] = PureMemo()
#: Preflight checkers kept for tool lists given as `Tool` objects, by those objects' identity
#: (the proxy keeps one tuple per tool list and worker, `server.toolset`): building one resolves
#: the names and digests the schemas, about 55 µs for an agent's 9 tools, on every request.
MAX_CHECKERS = 64
_checkers: OrderedDict[tuple[int, ...], tuple[tuple[Tool, ...], PreflightChecker]] = OrderedDict()
_checkers_lock = threading.Lock()


def checker_for(tools: ToolsLike) -> PreflightChecker:
    """The preflight checker of `tools`; the same object again for the same `Tool` objects.

    Only lists of `Tool` objects are kept (an entry holds them, so their identities stay
    theirs); a list of dicts is built into new tools, and gets a new checker, every time.
    """
    coerced = coerce_tools(tools)
    if coerced is None or not all(type(t) is Tool for t in tools or ()):
        return PreflightChecker(coerced)
    key = tuple(map(id, coerced))
    with _checkers_lock:
        kept = _checkers.get(key)
        if kept is not None:
            _checkers.move_to_end(key)
            return kept[1]
    checker = PreflightChecker(coerced)
    with _checkers_lock:
        _checkers[key] = (tuple(coerced), checker)
        while len(_checkers) > MAX_CHECKERS:
            _checkers.popitem(last=False)
    return checker


def kept_original(original: str, keep_bytes: int) -> str:
    """`original` as it is kept under guidance: stripped, secrets masked, cut to `keep_bytes`."""
    if not keep_bytes:
        return ""
    key = (original, keep_bytes)
    hit = KEPT_ORIGINAL_MEMO.get(key)
    if hit is not None:
        return hit[0]
    kept = truncate_utf8(redact_secrets(original.strip()), keep_bytes)
    KEPT_ORIGINAL_MEMO.put(key, kept, len(original))
    return kept


def compose_result(guidance: Guidance, original: str, keep_bytes: int) -> str:
    """The tool-result text for a failure: the guidance block, then the original error."""
    block = guidance.render()
    kept = kept_original(original, keep_bytes)
    if not kept:
        return block
    return f"{block}\n{ORIGINAL_MARKER}\n{kept}"


def _text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            part.get("text", "")
            for part in content
            if isinstance(part, Mapping) and isinstance(part.get("text"), str)
        ]
        return "\n".join(parts)
    return "" if content is None else str(content)


def _unguarded(text: str) -> str:
    """The original output of a result this function already rewrote (idempotence)."""
    if not text.startswith(GUIDANCE_PREFIX):
        note = text.find(f"\n\n{GUIDANCE_PREFIX}")
        return text if note < 0 else text[:note]
    _, marker, rest = text.partition(f"\n{ORIGINAL_MARKER}\n")
    return rest if marker else text


#: What a history's reading changes in one message's guided copy: None (a plain shallow copy),
#: the text its content becomes, or for a user message's blocks (a new list whose `tool_result`
#: blocks are copies) the text each block's content becomes (None: it stays).
Edit = str | tuple[str | None, ...] | None


def edited(message: Mapping[str, Any], edit: Edit) -> dict[str, Any]:
    """The guided copy of `message` that a reading's `edit` describes (it never changes
    `message`)."""
    copy = dict(message)
    if edit is None:
        return copy
    if isinstance(edit, str):
        copy["content"] = edit
        return copy
    blocks: list[Any] = []
    for block, text in zip(message["content"], edit, strict=True):
        if isinstance(block, Mapping) and block.get("type") == "tool_result":
            block = dict(block)
            if text is not None:
                block["content"] = text
        blocks.append(block)
    copy["content"] = blocks
    return copy


def guard_history(
    messages: Sequence[Mapping[str, Any]],
    tools: ToolsLike = None,
    config: InterceptorConfig | None = None,
) -> list[dict[str, Any]]:
    """Guided copy of a chat message list, OpenAI- or Anthropic-shaped.

    For each tool result (a `role: "tool"` message, or a `tool_result` block in a user
    message), its call (by `tool_call_id` / `tool_use_id`) is found, preflight-checked and its
    result classified with the counts derived from the history so far; `is_error` on a
    `tool_result` block is the runtime's own verdict. A failing result's content becomes the
    guidance block with the original under it (a `tool_result` keeps its `is_error`).
    Messages that need no change are returned as shallow copies; the input is never changed.
    """
    return HistoryGuard(tools, config).read_all(messages)


class HistoryGuard:
    """The guard's state over the messages read so far, and the reader of the next ones.

    `read` guards one message as `guard_history` does at that point of the history, and
    updates the state: the counts (`GuardSession`), the calls still waiting for their results,
    and the calls the last assistant message states. `fork` gives an independent copy, so
    what comes after a history (the call the model just made, with its result) is read on top
    of it without reading the history again and without changing it.
    """

    __slots__ = ("_calls", "_config", "_last_calls", "_session")

    def __init__(self, tools: ToolsLike = None, config: InterceptorConfig | None = None) -> None:
        self._config = config or InterceptorConfig()
        self._session = GuardSession(checker_for(tools), self._config)
        #: Calls read and not yet answered: id -> (the call, its non-blocking or blocking
        #: preflight guidance).
        self._calls: dict[str, tuple[CallView, Guidance | None]] = {}
        #: The `tool_calls` entries of the last assistant message read (`holds_call`).
        self._last_calls: tuple[object, ...] = ()

    def fork(self) -> HistoryGuard:
        """A copy that reads on independently: neither sees what the other reads next."""
        twin = HistoryGuard.__new__(HistoryGuard)
        twin._config = self._config
        twin._session = self._session.fork()
        twin._calls = dict(self._calls)
        twin._last_calls = self._last_calls
        return twin

    def owned(self) -> HistoryGuard:
        """A fork that holds no object of the messages it read, so it outlives them safely:
        what the state keeps of messages beyond strings and counts (the calls still waiting
        for their results, with their arguments, and the last assistant message's calls) is
        copied deeply."""
        twin = self.fork()
        twin._calls = {
            call_id: (
                view
                if view.arguments is None
                else replace(view, arguments=deepcopy(view.arguments)),
                pre,
            )
            for call_id, (view, pre) in self._calls.items()
        }
        twin._last_calls = deepcopy(self._last_calls)
        return twin

    def after(self, messages: Sequence[Mapping[str, Any]]) -> HistoryGuard:
        """A fork that has read `messages` as well (this one stays as it is)."""
        twin = self.fork()
        for message in messages:
            twin.read(message)
        return twin

    def holds_call(self, call_id: str) -> bool:
        """Whether the last assistant message read lists a `tool_calls` entry with this id."""
        return any(isinstance(c, Mapping) and c.get("id") == call_id for c in self._last_calls)

    def read_all(self, messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """The guided copies of `messages`, read in order."""
        return [self.read(message) for message in messages]

    def read(self, message: Mapping[str, Any]) -> dict[str, Any]:
        """The guided copy of the next message of the history (a shallow copy, or one with its
        tool results replaced)."""
        return edited(message, self.read_edit(message))

    def read_edit(self, message: Mapping[str, Any]) -> Edit:
        """Read the next message of the history, and return what its guided copy changes
        (`edited` makes the copy): a reading is this edit, so it can be kept and given again."""
        session = self._session
        role = message.get("role")
        content = message.get("content")
        if role == "user":
            edit: Edit = None
            if isinstance(content, list) and _has_block(content, "tool_result"):
                edit = tuple(self._block_edits(content))
                if not _has_user_text(content):
                    return edit  # only tool results: the agent speaking, not the user
            session.on_user_message()
            return edit
        if role == "assistant":
            tool_calls = message.get("tool_calls")
            if isinstance(tool_calls, list):
                self._last_calls = tuple(tool_calls)
            else:
                self._last_calls = ()
                tool_calls = _tool_use_blocks(content)
            if not tool_calls:
                return None
            text = _text_of(content)
            for index, call in enumerate(tool_calls):
                view = view_call(call)  # a ToolCall or any accepted dict shape, viewed once
                pre = session.preflight(view, text=text if index == 0 else None)
                if view.id:
                    self._calls[view.id] = (view, pre)
            return None
        if role == "tool":
            call_id = message.get("tool_call_id")
            flag = message.get("is_error")  # set by front-ends that carry a runtime's verdict
            return self._result(
                call_id if isinstance(call_id, str) else None,
                message.get("name"),
                content,
                flag if isinstance(flag, bool) else None,
            )
        return None

    def _block_edits(self, content: list[Any]) -> Iterator[str | None]:
        """The edit of each of a user message's blocks: a failing `tool_result`'s guided text,
        or None."""
        for block in content:
            if not (isinstance(block, Mapping) and block.get("type") == "tool_result"):
                yield None
                continue
            call_id = block.get("tool_use_id")
            flag = block.get("is_error")
            yield self._result(
                call_id if isinstance(call_id, str) else None,
                None,
                block.get("content"),
                flag if isinstance(flag, bool) else None,
            )

    def _result(
        self, call_id: str | None, name: object, content: object, is_error: bool | None
    ) -> str | None:
        """The replacement text of one tool result, or None when it stays as it is."""
        found = self._calls.pop(call_id, None) if call_id is not None else None
        view, pre = found if found is not None else (None, None)
        if view is None:
            view = view_call({"name": name if isinstance(name, str) else ""})
        original = _unguarded(_text_of(content))
        keep = self._config.keep_original_bytes
        if pre is not None and pre.blocking:
            return compose_result(pre, original, keep)
        failure = self._session.count_result(view, original, is_error)
        text = None if failure is None else self._guided(view, *failure, original)
        if pre is not None:  # a protocol note rides on the executed call's result
            text = f"{text if text is not None else original}\n\n{pre.render()}"
        return text

    def _guided(
        self, view: CallView, cls: Classification, occurrence: int, original: str
    ) -> str | None:
        """The text a failing result becomes (None: it passes through unchanged)."""
        session, cfg = self._session, self._config
        key: tuple[object, ...] | None = None
        if view.arguments is None:  # arguments as text (or none): the key holds all of them
            key = (
                session.checker,
                view.name,
                view.raw_arguments,
                cls,
                occurrence,
                original,
                cfg.stuck_after,
                cfg.max_bytes,
                cfg.keep_original_bytes,
            )
            hit = GUIDED_RESULT_MEMO.get(key)
            if hit is not None:
                return hit[0]
        guidance = session.failure_guidance(view, cls, occurrence, original)
        text = (
            None
            if guidance.passthrough
            else compose_result(guidance, original, cfg.keep_original_bytes)
        )
        if key is not None:
            GUIDED_RESULT_MEMO.put(key, text, len(original) + len(view.raw_arguments or ""))
        return text


def _has_block(content: list[Any], kind: str) -> bool:
    return any(isinstance(b, Mapping) and b.get("type") == kind for b in content)


def _has_user_text(content: list[Any]) -> bool:
    return any(
        isinstance(b, Mapping) and b.get("type") == "text" and str(b.get("text", "")).strip()
        for b in content
    )


def _tool_use_blocks(content: object) -> list[dict[str, Any]]:
    """Anthropic `tool_use` blocks as calls the session reads (`id`, `name`, `input`)."""
    if not isinstance(content, list):
        return []
    return [
        {"id": b.get("id"), "name": b.get("name"), "input": b.get("input")}
        for b in content
        if isinstance(b, Mapping) and b.get("type") == "tool_use"
    ]
