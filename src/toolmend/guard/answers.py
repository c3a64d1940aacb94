"""The guidance that answers one tool call, derived from the history the call was made in.

Owns the three answers every entry point gives a call the model just made: the preflight's
(`blocking_guidance`: a call to refuse before it runs, such as a duplicate or bad arguments),
the one for a call that was refused as unusable (`rejected_guidance`: unknown tool, invalid or
cut-off arguments), and the rewritten result of a call that ran (`result_guidance`). Each is
what `guard_history` makes of the history with the call and its result appended, so the proxy's
gate and the in-process adapters give the same words, and counts follow the conversation.
Messages are OpenAI chat messages; a call is an OpenAI `tool_calls` entry. Never parses model
output and never classifies an error itself: `guard_history` does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolmend.guard.history import GUIDANCE_PREFIX, guard_history

Message = Mapping[str, Any]


def _answer(
    history: Sequence[Message],
    call: object,
    call_id: str,
    result: str,
    tools: Sequence[Any] | None,
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
    history: Sequence[Message], call: Mapping[str, Any], tools: Sequence[Any] | None
) -> str | None:
    """The guidance that answers `call` instead of running it, or None when it may run.

    An empty result is a success to the guard, so a guidance block in its place is the
    preflight's.
    """
    call_id = str(call.get("id") or "")
    answer = _answer(history, call, call_id, "", tools)
    return answer if is_guidance(answer) else None


def rejected_guidance(
    history: Sequence[Message],
    call: Mapping[str, Any],
    tools: Sequence[Any] | None,
    problem: str | None = None,
) -> str:
    """The guidance for a call refused as unusable: never run.

    The preflight names a structural problem (unknown tool, bad arguments). Past it, a call
    whose `problem` is stated (a complete call that is still unusable) is answered with the
    guard's reading of that problem; one without (cut off, otherwise incomplete) is answered as
    truncated.
    """
    found = blocking_guidance(history, call, tools)
    if found is not None:
        return found
    call_id = str(call.get("id") or "")
    if problem is not None:
        return _answer(history, call, call_id, problem, tools)
    function = call.get("function")
    arguments = function.get("arguments") if isinstance(function, Mapping) else None
    opened = arguments.rstrip()[:-1] if isinstance(arguments, str) and arguments else "{"
    # Restated with its object never closed, the call reads to the guard as cut off.
    cut = {**call, "function": {**(function or {}), "arguments": opened}}
    return _answer(history, cut, call_id, "", tools, restate=True)


def is_guidance(text: str) -> bool:
    """True for a guidance block (a failure told to the model), not a result with a note."""
    return text.startswith(GUIDANCE_PREFIX)


def result_guidance(
    history: Sequence[Message],
    call: Mapping[str, Any],
    result: str,
    tools: Sequence[Any] | None,
) -> str | None:
    """The rewritten result of a call that ran (guidance, or the result with a protocol note),
    or None when the result goes to the model as it is."""
    answer = _answer(history, call, str(call.get("id") or ""), result, tools)
    return None if answer == result else answer
