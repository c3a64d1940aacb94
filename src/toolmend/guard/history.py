"""`guard_history`: the guard as a pure function over an OpenAI message history.

This module owns the replay: each user message, assistant message (its text and tool calls)
and tool result is fed, in order, to a fresh `GuardSession` (the same engine `Interceptor` uses
per task), so the counts derived from a history equal the counts an in-process agent would have
kept. Failing results get their content replaced by the guidance block, with the original
error kept (truncated, secrets masked) under it. It never mutates its input, never reads
clocks and is deterministic: the same history always gives the same output, so any replica of
a stateless proxy can serve any request.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolmend.guard.guidance import Guidance, redact_secrets, truncate_utf8
from toolmend.guard.interceptor import GuardSession, InterceptorConfig
from toolmend.guard.preflight import PreflightChecker
from toolmend.model import ToolsLike, coerce_tools

#: The line between a guidance block and the original error under it; also how an already
#: guided result is recognised (its original is re-read, so guarding twice changes nothing).
ORIGINAL_MARKER = "--- original tool output (truncated) ---"
GUIDANCE_PREFIX = "[toolmend guidance v"


def compose_result(guidance: Guidance, original: str, keep_bytes: int) -> str:
    """The tool-result text for a failure: the guidance block, then the original error."""
    block = guidance.render()
    kept = truncate_utf8(redact_secrets(original.strip()), keep_bytes) if keep_bytes else ""
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
    """Guided copy of an OpenAI chat message list.

    For each `role: "tool"` message, its call (by `tool_call_id`) is found, preflight-checked
    and its result classified with the counts derived from the history so far; a failing
    result's content becomes the guidance block with the original under it. Messages that
    need no change are returned as shallow copies.
    """
    cfg = config or InterceptorConfig()
    session = GuardSession(PreflightChecker(coerce_tools(tools)), cfg)
    calls: dict[str, tuple[object, Guidance | None]] = {}
    out: list[dict[str, Any]] = []
    for message in messages:
        copy = dict(message)
        out.append(copy)
        role = message.get("role")
        if role == "user":
            session.on_user_message()
        elif role == "assistant":
            tool_calls = message.get("tool_calls")
            if not isinstance(tool_calls, list):
                continue
            text = _text_of(message.get("content"))
            for index, call in enumerate(tool_calls):
                pre = session.preflight(call, text=text if index == 0 else None)
                call_id = call.get("id") if isinstance(call, Mapping) else None
                if isinstance(call_id, str):
                    calls[call_id] = (call, pre)
        elif role == "tool":
            replaced = _guard_result(session, cfg, copy, calls)
            if replaced is not None:
                copy["content"] = replaced
    return out


def _guard_result(
    session: GuardSession,
    cfg: InterceptorConfig,
    message: Mapping[str, Any],
    calls: dict[str, tuple[object, Guidance | None]],
) -> str | None:
    call_id = message.get("tool_call_id")
    call, pre = calls.pop(call_id, (None, None)) if isinstance(call_id, str) else (None, None)
    if call is None:
        call = {"name": message.get("name") or ""}
    original = _unguarded(_text_of(message.get("content")))
    if pre is not None and pre.blocking:
        return compose_result(pre, original, cfg.keep_original_bytes)
    guidance = session.on_result(call, original)
    text: str | None = None
    if guidance is not None and not guidance.passthrough:
        text = compose_result(guidance, original, cfg.keep_original_bytes)
    if pre is not None:  # a protocol note rides on the executed call's result
        text = f"{text if text is not None else original}\n\n{pre.render()}"
    return text
