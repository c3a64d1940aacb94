"""The chat-completions conversation as the adapters see it: what to recover, what to guard.

Owns the decisions every adapter shares about one OpenAI-style request: whether its reply is
scanned for calls (only when the request declares tools and does not forbid calling them), how
a reply is recovered, and the guarded copy of its history (`guard_history`). The guidance that
answers one call is `toolmend.guard.answers`, which the proxy's gate uses too. Never parses
model output and never classifies an error itself: recovery and the guard do.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolmend.guard import guard_history
from toolmend.recovery import REJECTED_CALLS_FIELD, StreamRecovery, recover_response
from toolmend.recovery.families import ProtocolsArg
from toolmend.recovery.stream import DiagnosticSink

Message = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ChatTurn:
    """What one chat-completions request tells recovery: its tools and its model."""

    tools: list[Any] | None
    model: str | None

    @property
    def recovers(self) -> bool:
        """A reply is scanned for calls only when the request declared tools to call."""
        return bool(self.tools)


def declared_tools(body: Mapping[str, Any]) -> list[Any] | None:
    """The tools a request body declares (what its history is guarded against)."""
    tools = body.get("tools")
    return list(tools) if isinstance(tools, list) and tools else None


def chat_turn(body: Mapping[str, Any]) -> ChatTurn:
    """The turn a request body describes (`tool_choice: "none"` forbids calls: no recovery)."""
    model = body.get("model")
    tools = declared_tools(body) if body.get("tool_choice") != "none" else None
    return ChatTurn(tools, model if isinstance(model, str) else None)


@dataclass(frozen=True, slots=True)
class Recovery:
    """How an adapter recovers replies: the same choices for every entry point it has."""

    protocols: ProtocolsArg = "auto"
    on_diagnostic: DiagnosticSink | None = None
    attach_diagnostics: bool = False

    def options(self, turn: ChatTurn) -> dict[str, Any]:
        """Keyword arguments of `recover_response` / `recover_stream` for one turn."""
        return {
            "tools": turn.tools,
            "model": turn.model,
            "protocols": self.protocols,
            "on_diagnostic": self.on_diagnostic,
            "attach_diagnostics": self.attach_diagnostics,
        }

    def response(self, turn: ChatTurn, body: Mapping[str, Any]) -> dict[str, Any]:
        return recover_response(body, **self.options(turn))

    def stream(self, turn: ChatTurn) -> StreamRecovery:
        """The sans-IO recovery of one streamed reply, for hosts that drive it chunk by chunk."""
        return StreamRecovery(**self.options(turn))


def recover_message(
    message: Mapping[str, Any], turn: ChatTurn, recovery: Recovery | None = None
) -> dict[str, Any]:
    """One assistant message (OpenAI form) through `recover_response`: the recovered message.

    For hosts whose replies are not chat-completions dicts (LangChain, pydantic-ai): they
    state their reply in this form, and read the calls, the text and the refused calls
    (`toolmend_rejected_calls`) back from it.
    """
    if not turn.recovers:
        return dict(message)
    completion = {
        "object": "chat.completion",
        "model": turn.model or "",
        "choices": [{"index": 0, "finish_reason": None, "message": dict(message)}],
    }
    recovered = (recovery or Recovery()).response(turn, completion)
    out: dict[str, Any] = recovered["choices"][0]["message"]
    return out


def rejected_calls(message: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The calls recovery refused in a recovered message (never to be run)."""
    entries = message.get(REJECTED_CALLS_FIELD)
    return [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []


def guarded_messages(
    messages: Sequence[Message], tools: list[Any] | None
) -> list[dict[str, Any]] | None:
    """The guarded history, or None when the guard changed nothing (send the request as is)."""
    guarded = guard_history(messages, tools=tools)
    pairs = zip(messages, guarded, strict=True)
    changed = any(a.get("content") != b.get("content") for a, b in pairs)
    return guarded if changed else None
