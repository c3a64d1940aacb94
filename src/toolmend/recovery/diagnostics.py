"""The structured diagnostics of leak recovery: `{code, protocol, tool, call_id, detail}`.

Owns the codes recovery reports (each recovery, strip, repair, split, collision and rejection),
the one constructor that builds such a record, and the translation of a parser's `Diagnostic`
into one. `detail` holds only small metadata (a message, counts, lengths, names, the guard flag
that applies), never a raw fragment of model output. This module never decides when a
diagnostic is due and never delivers one.
"""

from __future__ import annotations

from typing import Any

from toolmend.events import Diagnostic
from toolmend.guard import classify_error

RecoveryDiagnostic = dict[str, Any]

#: A call written into the visible text became a real tool call.
LEAKED_CALL_RECOVERED = "leaked_call_recovered"
#: A native call's name was written in a disguise (`Todo`, `mcp_49f0-Todo`) and mapped back.
NATIVE_NAME_RESOLVED = "native_name_resolved"
#: The schema gate repaired a call's arguments (the repaired call validates).
ARGUMENTS_REPAIRED = "arguments_repaired"
#: Several JSON objects glued into one native call's arguments became separate calls.
CONCATENATED_SPLIT = "concatenated_json_split"
#: A call that cannot be made valid: not emitted as executable, flagged for the caller.
CALL_REJECTED = "call_rejected"
#: A call whose id an earlier call of the same choice already holds (the later one fails).
ID_COLLISION = "tool_call_id_collision"
#: Tool markup in the text of a turn that also made native calls (dual protocol).
DUAL_PROTOCOL = "xml_native_dual"
#: A call recovered from the text that repeats a native call of the same turn: not run twice.
DUAL_PROTOCOL_DUPLICATE = "dual_protocol_duplicate"
#: Text of a Kimi `think` channel written into the visible text was moved to reasoning.
KIMI_THINKING_RECOVERY = "kimi_xtml_thinking_recovery"
#: A reasoning span written into the visible text (`<think>…</think>`) was moved to reasoning.
REASONING_IN_CONTENT = "reasoning_in_content"
#: The stream ended by an error or was aborted while calls were still open.
CALL_CUT_OFF = "call_cut_off"
#: Native tool-call fragments arrived in an order no call can be read from.
NATIVE_ORDER = "native_call_order"

#: The parser's code for a stray XTML channel marker removed from text (stripped silently).
XTML_MARKER_STRIPPED = "xtml_marker_stripped"


#: The record's own keys: a parser's metadata of the same name is not repeated in `detail`.
_RECORD_KEYS = frozenset({"code", "protocol", "tool", "call_id", "detail"})


def diagnostic(
    code: str,
    *,
    protocol: str | None = None,
    tool: str | None = None,
    call_id: str | None = None,
    **detail: Any,
) -> RecoveryDiagnostic:
    """One recovery diagnostic; `detail` values must be small metadata, never model text."""
    return {"code": code, "protocol": protocol, "tool": tool, "call_id": call_id, "detail": detail}


#: Why a call was rejected: the `reason` of a `call_rejected` diagnostic and its message. The
#: call's own `error` (which may quote what the model sent) goes to the caller with the flagged
#: call, never into a diagnostic.
REJECTION_REASONS: dict[str, str] = {
    "cut_off": "the call was cut off before it was complete",
    "out_of_order": "the call's fragments arrived out of order",
    "too_large": "the call's arguments exceed the size bound",
    "unknown_tool": "the call names no declared tool",
    "ambiguous_tool": "the call's name matches two declared tools",
    "nameless": "the call has no name",
    "truncated_json": "the arguments JSON was cut off",
    "invalid_json": "the arguments are not a JSON object",
    "concatenated_json": "JSON objects glued into one call, not every one valid",
    "invalid_arguments": "the arguments do not validate against the tool's schema",
    "incomplete": "the parser marked the call incomplete",
    "in_reasoning": "the call was written inside reasoning",
    "id_collision": "an earlier call of this turn holds the same id",
}


def rejection(
    reason: str,
    *,
    protocol: str | None = None,
    tool: str | None = None,
    call_id: str | None = None,
    **detail: Any,
) -> RecoveryDiagnostic:
    """A `call_rejected` diagnostic: the call is flagged for the caller, never executed."""
    return diagnostic(
        CALL_REJECTED,
        protocol=protocol,
        tool=tool,
        call_id=call_id,
        reason=reason,
        message=REJECTION_REASONS[reason],
        **detail,
    )


def guard_signal(flag: str) -> dict[str, Any]:
    """The guard's reading of a structural flag: its category and pattern id, with the flag.

    The same metadata the guard's classifier takes (`classify_error(..., metadata=...)`), so
    whoever relays a diagnostic can raise exactly the guard signal it names.
    """
    verdict = classify_error("", metadata={"flag": flag})
    return {"flag": flag, "category": str(verdict.category), "pattern_id": verdict.pattern_id}


def from_parser(event: Diagnostic, *, call_id: str | None = None) -> RecoveryDiagnostic:
    """A parser's diagnostic as a recovery diagnostic (its metadata is already fragment-free)."""
    metadata = {k: v for k, v in event.metadata.items() if k not in _RECORD_KEYS}
    tool = event.metadata.get("tool", event.metadata.get("name"))
    detail: dict[str, Any] = {"message": event.message, **metadata}
    if event.stripped_length:
        detail["stripped_length"] = event.stripped_length
    return diagnostic(
        event.code,
        protocol=event.protocol,
        tool=tool if isinstance(tool, str) else None,
        call_id=call_id,
        **detail,
    )
