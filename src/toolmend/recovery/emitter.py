"""Wire chunks out: copies of the upstream chunks with only toolmend's fields rewritten.

Owns how an output `chat.completion.chunk` is built from an input one: the chunk, its choices
and their deltas are copied (never mutated, never shared), `usage` objects are copied deep, and
every field toolmend does not own (vendor fields included) is carried over as it came. toolmend
owns `delta.content`, `delta.tool_calls`, `choice.finish_reason`, recovered reasoning appended
to `delta.reasoning_content`, and the two fields it adds: `delta.toolmend_rejected_calls` (calls
that must not run) and, when asked, `toolmend_diagnostics`. Also the `tool_calls` entry of one
emitted call. This module never decides what is recovered or when.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolmend.model import ToolCall

#: The delta field listing calls that were read but must not be executed (flagged, with why).
REJECTED_CALLS_FIELD = "toolmend_rejected_calls"
#: The chunk field carrying diagnostics, present only when the caller asks for it.
DIAGNOSTICS_FIELD = "toolmend_diagnostics"
#: Where recovered reasoning goes (the field vLLM, DeepSeek and llama.cpp stream reasoning in).
REASONING_FIELD = "reasoning_content"
#: Top-level fields that identify a stream; a chunk toolmend adds carries these only.
IDENTITY_FIELDS = ("id", "object", "created", "model", "system_fingerprint")


def copy_json(value: Any) -> Any:
    """A copy of nested dicts and lists (other values are immutable or kept by reference)."""
    if isinstance(value, dict):
        return {k: copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_json(v) for v in value]
    return value


def copy_chunk(chunk: Mapping[str, Any]) -> dict[str, Any]:
    """A chunk passed through: its own dict, with `usage` copied rather than shared."""
    out = dict(chunk)
    if "usage" in out:
        out["usage"] = copy_json(out["usage"])
    return out


def added_chunk(model_chunk: Mapping[str, Any], choices: list[dict[str, Any]]) -> dict[str, Any]:
    """A chunk toolmend adds (a split-off segment, a terminal the upstream never sent)."""
    out = {k: model_chunk[k] for k in IDENTITY_FIELDS if k in model_chunk}
    out["choices"] = choices
    return out


def segment_choice(index: int, delta: dict[str, Any]) -> dict[str, Any]:
    """A choice holding one split-off segment of a delta (text or reasoning)."""
    return {"index": index, "delta": delta, "finish_reason": None}


def tool_call_entry(
    wire_index: int,
    call: ToolCall,
    extras: Mapping[str, Any],
    function_extras: Mapping[str, Any],
) -> dict[str, Any]:
    """The `delta.tool_calls` entry of one executable call, whole, vendor fields kept."""
    function = dict(function_extras)
    function["name"] = call.name
    function["arguments"] = call.arguments_json()
    entry = dict(extras)
    entry.update(index=wire_index, id=call.id, type="function", function=function)
    return entry


def rejected_entry(call: ToolCall, reason: str, written: str | None = None) -> dict[str, Any]:
    """A flagged call: enough for the caller to answer it with an error result, never to run.

    `written` is a flagged native call's arguments text as the model sent it; otherwise the
    arguments are those parsed so far.
    """
    arguments = written if written is not None else call.arguments_json()
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": arguments},
        "incomplete": True,
        "error": reason,
    }
