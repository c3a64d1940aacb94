"""Chat message-list rules every front-end's history must meet before it goes upstream.

Chat templates (and OpenAI itself) accept a `role: tool` message only right after the assistant
message whose `tool_calls` it answers, and an assistant call without an answer breaks the next
turn. Agents do not always send that order: Claude Code puts the user's text in the same turn as
the results, some histories answer a call one turn late, some carry a result whose call was
compacted away. `place_tool_results` moves each result right after its call, turns a result
without a call into user text, and answers a call that never got one, each with a diagnostic.
This module never changes the content of a message it keeps.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolmend.events import Diagnostic

#: The answer given upstream for a call whose result the history does not hold.
NO_RESULT_TEXT = "(no result was returned for this tool call)"


def _call_ids(message: dict[str, Any]) -> list[str]:
    calls = message.get("tool_calls") if message.get("role") == "assistant" else None
    if not isinstance(calls, list):
        return []
    return [c["id"] for c in calls if isinstance(c, dict) and isinstance(c.get("id"), str)]


def place_tool_results(
    messages: Sequence[dict[str, Any]], protocol: str
) -> tuple[list[dict[str, Any]], list[Diagnostic]]:
    """The history with every tool result right after its call, in the calls' order."""
    diagnostics: list[Diagnostic] = []
    called: set[str] = set()
    answered = False
    for message in messages:
        role = message.get("role")
        if role == "tool":
            answered = True
        elif role == "assistant" and message.get("tool_calls"):
            called.update(_call_ids(message))
    if not answered and not called:  # no call and no result: nothing to place
        return list(messages), diagnostics
    results: dict[str, dict[str, Any]] = {}
    orphans: set[int] = set()
    for position, message in enumerate(messages):
        if message.get("role") != "tool":
            continue
        call_id = message.get("tool_call_id")
        if isinstance(call_id, str) and call_id in called and call_id not in results:
            results[call_id] = message
        else:
            orphans.add(position)
    placed: list[dict[str, Any]] = []
    for position, message in enumerate(messages):
        if message.get("role") == "tool":
            if position in orphans:
                diagnostics.append(
                    Diagnostic(
                        "tool_result_without_call",
                        "a tool result answers no call in the history; sent as user text",
                        protocol,
                        {"tool_call_id": str(message.get("tool_call_id"))},
                    )
                )
                text = message.get("content") if isinstance(message.get("content"), str) else ""
                label = f"[result of tool call {message.get('tool_call_id')}]"
                placed.append({"role": "user", "content": f"{label}\n{text}"})
            continue
        placed.append(message)
        for call_id in _call_ids(message):
            answer = results.get(call_id)
            if answer is None:
                diagnostics.append(
                    Diagnostic(
                        "tool_call_without_result",
                        "a tool call has no result in the history; answered as not returned",
                        protocol,
                        {"tool_call_id": call_id},
                    )
                )
                answer = {"role": "tool", "tool_call_id": call_id, "content": NO_RESULT_TEXT}
            placed.append(answer)
    return placed, diagnostics
