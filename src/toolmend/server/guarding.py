"""The guard in the proxy's loop: guided histories, and the gate a new call must pass.

This module owns two uses of the one guard engine (`toolmend.guard.history.HistoryGuard`, which
`guard_history` is): `guard_request` reads a request's history once (only what it added to a
history this worker read before, `guard.replays`), rewriting it (failing tool results become
WHAT/WHY/NEXT guidance, repeats meet the loop breaker), counts the guidance the latest results
carry, and hands back the guard's state after the history; `CallGate` decides whether a call
the model just made may go to the agent by reading that call on top of the state
(`toolmend.guard.answers`, whose answers the in-process adapters give too), so a blocked
preflight (a `cwd` object, a duplicate) and an unusable call get exactly the guidance the agent
would get on its next request, without another reading of the history per call. Nothing it
keeps between requests changes an answer, and it never parses model output.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolmend.guard.answers import blocking_guidance, rejected_guidance
from toolmend.guard.history import HistoryGuard
from toolmend.guard.interceptor import InterceptorConfig
from toolmend.guard.patterns import Category
from toolmend.guard.replays import ReplayCache
from toolmend.model import Tool, ToolCall
from toolmend.server.requestlog import empty_counter

#: The versioned guidance header (`[toolmend guidance v1] CATEGORY PATTERN_ID | ...`), read at the
#: start of a result or after the blank line a protocol note is appended with.
_HEADER = re.compile(r"(?:^|\n\n)\[toolmend guidance v\d+\] ([A-Z_]+) (\S+)")
#: The guard's settings for every request: the defaults, made once (`InterceptorConfig` is
#: frozen; making it checks its bounds, about a fifth of a one-message request's guard).
GUARD_CONFIG = InterceptorConfig()
#: The worker's readings of the histories it guarded: the next turn of a conversation reads
#: only what it added (a 100-message agent history costs about 0.6 ms to read whole).
READINGS = ReplayCache()


@dataclass(slots=True)
class GuidanceCounts:
    """Guidance carried by the tool results that answer the latest assistant turn."""

    by_category: Counter[str] = field(default_factory=empty_counter)
    by_pattern: Counter[str] = field(default_factory=empty_counter)

    @property
    def loops_broken(self) -> int:
        return self.by_category[Category.MODEL_STUCK_LOOP.value]

    def add(self, text: str) -> None:
        for category, pattern in _HEADER.findall(text):
            self.by_category[category] += 1
            self.by_pattern[pattern] += 1


def guard_request(
    messages: Sequence[Mapping[str, Any]], tools: Sequence[Tool] | None
) -> tuple[list[dict[str, Any]], GuidanceCounts, HistoryGuard]:
    """The guided history, the guidance its trailing tool results newly carry, and the guard's
    state after it (what `CallGate` reads the model's new calls on).

    Only the results after the last assistant message are counted: the earlier ones were
    counted by the request that first delivered them, so a log summed over a conversation
    counts each piece of guidance once.
    """
    guarded, state = READINGS.read(messages, tools, GUARD_CONFIG)
    counts = GuidanceCounts()
    for original, message in zip(reversed(messages), reversed(guarded), strict=True):
        if message.get("role") != "tool":
            break
        content = message.get("content")
        if isinstance(content, str) and content != original.get("content"):
            counts.add(content)
    return guarded, counts, state


def openai_call(call: ToolCall) -> dict[str, Any]:
    """A call in the OpenAI `tool_calls` form."""
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": call.arguments_json()},
    }


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether a call may go to the agent; when not, the guided tool result that says why."""

    allowed: bool
    guidance: str = ""


class CallGate:
    """Checks the model's new calls against the request's history, tools and guard rules.

    `state` is the guard's state after the history (`guard_request`), or None when the rule
    has the guard off: then only unusable calls are held back, with their problem as the text.
    Each call is read on a fork of the state, so the calls of one answer are judged alone.
    """

    __slots__ = ("_state",)

    def __init__(self, state: HistoryGuard | None) -> None:
        self._state = state

    def check(self, call: ToolCall) -> Verdict:
        """Allowed, or the guided result the model gets instead of the call's execution."""
        problem = None if call.executable else (call.error or "the tool call is incomplete")
        state = self._state
        if state is None:
            return Verdict(True) if problem is None else Verdict(False, problem)
        entry = openai_call(call)
        if problem is None:
            blocked = blocking_guidance(state, entry)
            return Verdict(True) if blocked is None else Verdict(False, blocked)
        stated = None if call.incomplete else problem  # a cut-off call is answered as one
        return Verdict(False, rejected_guidance(state, entry, problem=stated))


def unknown_tool_call(call_id: str, name: str) -> ToolCall:
    """The call a model made to a tool that is not declared (its markup stayed text)."""
    return ToolCall(
        id=call_id, name=name, arguments={}, incomplete=True, error=f"unknown tool: {name}"
    )
