"""The guidance that answers one tool call, derived from the history the call was made in.

Owns the three answers every entry point gives a call the model just made: the preflight's
(`blocking_guidance`: a call to refuse before it runs, such as a duplicate or bad arguments),
the one for a call that was refused as unusable (`rejected_guidance`: unknown tool, invalid or
cut-off arguments), and the rewritten result of a call that ran (`result_guidance`). Each is
what `guard_history` makes of the history with the call and its result appended, so the proxy's
gate and the in-process adapters give the same words, and counts follow the conversation.
The history is given as its messages, or as a `HistoryGuard` that has read them (the proxy's
gate, which answers every call of an answer after one reading of the request's history): only
the call and its result are read on top of it. Messages are OpenAI chat messages; a call is an
OpenAI `tool_calls` entry. Never parses model output and never classifies an error itself:
`guard_history` does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolmend.guard.history import GUIDANCE_PREFIX, HistoryGuard

Message = Mapping[str, Any]
#: A history as its messages, or as the guard's state after reading them.
History = Sequence[Message] | HistoryGuard


def read_history(history: History, tools: Sequence[Any] | None) -> HistoryGuard:
    """The guard's state after `history` (read now when it comes as messages)."""
    if isinstance(history, HistoryGuard):
        return history
    return HistoryGuard(tools).after(history)


def _answer(
    state: HistoryGuard, call: object, call_id: str, result: str, *, restate: bool = False
) -> str:
    """What `guard_history` makes of `result` as the answer to `call`, after the history
    `state` has read (which it leaves as it is).

    The history normally holds the assistant message that made the call (the guard then counts
    it where the model made it); a call it does not hold, or one to `restate` as `call` says
    (the later statement of an id is the one the guard reads), gets a message of its own.
    """
    reader = state.fork()
    if restate or not state.holds_call(call_id):
        reader.read({"role": "assistant", "content": "", "tool_calls": [call]})
    content = reader.read({"role": "tool", "tool_call_id": call_id, "content": result})["content"]
    return content if isinstance(content, str) else result


def blocking_guidance(
    history: History, call: Mapping[str, Any], tools: Sequence[Any] | None = None
) -> str | None:
    """The guidance that answers `call` instead of running it, or None when it may run.

    An empty result is a success to the guard, so a guidance block in its place is the
    preflight's. `tools` are read only when `history` comes as messages.
    """
    call_id = str(call.get("id") or "")
    answer = _answer(read_history(history, tools), call, call_id, "")
    return answer if is_guidance(answer) else None


def rejected_guidance(
    history: History,
    call: Mapping[str, Any],
    tools: Sequence[Any] | None = None,
    problem: str | None = None,
) -> str:
    """The guidance for a call refused as unusable: never run.

    The preflight names a structural problem (unknown tool, bad arguments). Past it, a call
    whose `problem` is stated (a complete call that is still unusable) is answered with the
    guard's reading of that problem; one without (cut off, otherwise incomplete) is answered as
    truncated.
    """
    state = read_history(history, tools)
    found = blocking_guidance(state, call)
    if found is not None:
        return found
    call_id = str(call.get("id") or "")
    if problem is not None:
        return _answer(state, call, call_id, problem)
    function = call.get("function")
    arguments = function.get("arguments") if isinstance(function, Mapping) else None
    opened = arguments.rstrip()[:-1] if isinstance(arguments, str) and arguments else "{"
    # Restated with its object never closed, the call reads to the guard as cut off.
    cut = {**call, "function": {**(function or {}), "arguments": opened}}
    return _answer(state, cut, call_id, "", restate=True)


def is_guidance(text: str) -> bool:
    """True for a guidance block (a failure told to the model), not a result with a note."""
    return text.startswith(GUIDANCE_PREFIX)


def result_guidance(
    history: History,
    call: Mapping[str, Any],
    result: str,
    tools: Sequence[Any] | None = None,
) -> str | None:
    """The rewritten result of a call that ran (guidance, or the result with a protocol note),
    or None when the result goes to the model as it is."""
    answer = _answer(read_history(history, tools), call, str(call.get("id") or ""), result)
    return None if answer == result else answer
