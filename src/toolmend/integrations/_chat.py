"""The chat-completions conversation as the adapters see it: what to recover, what to guard.

Owns the decisions every adapter shares about one OpenAI-style request: whether its reply is
scanned for calls (only when the request declares tools and does not forbid calling them), the
guarded copy of its history (`guard_history`), and the guidance that answers one tool call
before it runs (a blocking preflight) or after (a failing result), derived from the history as
the proxy derives it, so an in-process agent and a proxied one get the same words. Never
parses model output and never classifies an error itself: recovery and the guard do.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolmend.guard import guard_history
from toolmend.guard.history import GUIDANCE_PREFIX
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


def _answer(
    history: Sequence[Message],
    call: object,
    call_id: str,
    result: str,
    tools: list[Any] | None,
    *,
    restate: bool = False,
) -> str:
    """What `guard_history` makes of `result` as the answer to `call`, after `history`.

    `history` normally holds the assistant message that made the call (the guard then counts
    it where the model made it); a call it does not hold, or one to `restate` as `call` says
    (the later statement of an id is the one the guard reads), gets a message of its own.
    """
    tail: list[Message] = []
    if restate or not _holds_call(history, call_id):
        tail.append({"role": "assistant", "content": "", "tool_calls": [call]})
    tail.append({"role": "tool", "tool_call_id": call_id, "content": result})
    guarded = guard_history([*history, *tail], tools=tools)
    content = guarded[-1].get("content")
    return content if isinstance(content, str) else result


def _holds_call(history: Sequence[Message], call_id: str) -> bool:
    for message in reversed(history):
        if message.get("role") == "assistant":
            calls = message.get("tool_calls")
            return isinstance(calls, list) and any(
                isinstance(c, Mapping) and c.get("id") == call_id for c in calls
            )
    return False


def blocking_guidance(
    history: Sequence[Message], call: Mapping[str, Any], tools: list[Any] | None
) -> str | None:
    """The guidance that answers `call` instead of running it, or None when it may run.

    `call` is an OpenAI `tool_calls` entry. An empty result is a success to the guard, so a
    guidance block in its place is the preflight's.
    """
    call_id = str(call.get("id") or "")
    answer = _answer(history, call, call_id, "", tools)
    return answer if is_guidance(answer) else None


def rejected_guidance(
    history: Sequence[Message], entry: Mapping[str, Any], tools: list[Any] | None
) -> str:
    """The guidance for a call recovery refused (`toolmend_rejected_calls`): never run.

    The preflight names a structural problem (unknown tool, bad arguments); a call it finds no
    fault with was cut off or otherwise incomplete, and is answered as truncated.
    """
    found = blocking_guidance(history, entry, tools)
    if found is not None:
        return found
    function = entry.get("function")
    arguments = function.get("arguments") if isinstance(function, Mapping) else None
    opened = arguments.rstrip()[:-1] if isinstance(arguments, str) and arguments else "{"
    # Restated with its object never closed, the call reads to the guard as cut off.
    cut = {**entry, "function": {**(function or {}), "arguments": opened}}
    return _answer(history, cut, str(entry.get("id") or ""), "", tools, restate=True)


def is_guidance(text: str) -> bool:
    """True for a guidance block (a failure told to the model), not a result with a note."""
    return text.startswith(GUIDANCE_PREFIX)


def result_guidance(
    history: Sequence[Message],
    call: Mapping[str, Any],
    result: str,
    tools: list[Any] | None,
) -> str | None:
    """The rewritten result of a call that ran (guidance, or the result with a protocol note),
    or None when the result goes to the model as it is."""
    answer = _answer(history, call, str(call.get("id") or ""), result, tools)
    return None if answer == result else answer
