"""`guard_history`: the guard as a pure function over a chat message history.

This module owns the replay: each user message, assistant message (its text and tool calls)
and tool result is fed, in order, to a fresh `GuardSession` (the same engine `Interceptor` uses
per task), so the counts derived from a history equal the counts an in-process agent would have
kept. It reads both shapes the proxy's front-ends carry: OpenAI chat messages (`tool_calls`,
`role: "tool"`) and Anthropic Messages (`tool_use` blocks in assistant content, `tool_result`
blocks with `is_error` in user content). Failing results get their content replaced by the
guidance block, with the original error kept (truncated, secrets masked) under it. It never
mutates its input, never reads clocks and is deterministic: the same history always gives the
same output, so any replica of a stateless proxy can serve any request.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolmend.guard.guidance import Guidance, redact_secrets, truncate_utf8
from toolmend.guard.interceptor import GuardSession, InterceptorConfig
from toolmend.guard.memo import PureMemo
from toolmend.guard.preflight import PreflightChecker, view_call
from toolmend.model import ToolsLike, coerce_tools

#: The line between a guidance block and the original error under it; also how an already
#: guided result is recognised (its original is re-read, so guarding twice changes nothing).
ORIGINAL_MARKER = "--- original tool output (truncated) ---"
GUIDANCE_PREFIX = "[toolmend guidance v"

#: The failed results of a history, as they are shown under their guidance (secrets masked,
#: truncated), keyed by the original text and the bytes kept: a replayed history shows the same
#: failures again on every request, and masking secrets is the costliest step of a guided result.
KEPT_ORIGINAL_MEMO: PureMemo[str] = PureMemo()


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
    cfg = config or InterceptorConfig()
    session = GuardSession(PreflightChecker(coerce_tools(tools)), cfg)
    calls: dict[str, tuple[object, Guidance | None]] = {}
    out: list[dict[str, Any]] = []
    for message in messages:
        copy = dict(message)
        out.append(copy)
        role = message.get("role")
        content = message.get("content")
        if role == "user":
            if isinstance(content, list) and _has_block(content, "tool_result"):
                copy["content"] = _guard_result_blocks(session, cfg, content, calls)
                if not _has_user_text(content):
                    continue  # only tool results: the agent speaking, not the user
            session.on_user_message()
        elif role == "assistant":
            tool_calls = message.get("tool_calls")
            if not isinstance(tool_calls, list):
                tool_calls = _tool_use_blocks(content)
            if not tool_calls:
                continue
            text = _text_of(content)
            for index, call in enumerate(tool_calls):
                view = view_call(call)  # a ToolCall or any accepted dict shape, viewed once
                pre = session.preflight(view, text=text if index == 0 else None)
                if view.id:
                    calls[view.id] = (view, pre)
        elif role == "tool":
            call_id = message.get("tool_call_id")
            flag = message.get("is_error")  # set by front-ends that carry a runtime's verdict
            replaced = _guard_result(
                session,
                cfg,
                call_id if isinstance(call_id, str) else None,
                message.get("name"),
                message.get("content"),
                flag if isinstance(flag, bool) else None,
                calls,
            )
            if replaced is not None:
                copy["content"] = replaced
    return out


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


def _guard_result_blocks(
    session: GuardSession,
    cfg: InterceptorConfig,
    content: list[Any],
    calls: dict[str, tuple[object, Guidance | None]],
) -> list[Any]:
    """A copy of a user message's blocks with each failing `tool_result` guided in place."""
    out: list[Any] = []
    for block in content:
        if not (isinstance(block, Mapping) and block.get("type") == "tool_result"):
            out.append(block)
            continue
        call_id = block.get("tool_use_id")
        flag = block.get("is_error")
        replaced = _guard_result(
            session,
            cfg,
            call_id if isinstance(call_id, str) else None,
            None,
            block.get("content"),
            flag if isinstance(flag, bool) else None,
            calls,
        )
        guided = dict(block)
        if replaced is not None:
            guided["content"] = replaced
        out.append(guided)
    return out


def _guard_result(
    session: GuardSession,
    cfg: InterceptorConfig,
    call_id: str | None,
    name: object,
    content: object,
    is_error: bool | None,
    calls: dict[str, tuple[object, Guidance | None]],
) -> str | None:
    """The replacement text of one tool result, or None when it stays as it is."""
    call, pre = calls.pop(call_id, (None, None)) if call_id is not None else (None, None)
    if call is None:
        call = {"name": name if isinstance(name, str) else ""}
    original = _unguarded(_text_of(content))
    if pre is not None and pre.blocking:
        return compose_result(pre, original, cfg.keep_original_bytes)
    guidance = session.on_result(call, original, is_error=is_error)
    text: str | None = None
    if guidance is not None and not guidance.passthrough:
        text = compose_result(guidance, original, cfg.keep_original_bytes)
    if pre is not None:  # a protocol note rides on the executed call's result
        text = f"{text if text is not None else original}\n\n{pre.render()}"
    return text
