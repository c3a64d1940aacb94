"""One answer as the client receives it: chunk framing, the outcome, and stream-to-object folding.

This module owns the shapes both modes share: `ChunkWriter` (chat.completion.chunk dicts under
the answer's id, tool calls sent whole once they passed the gate, as argument fragments),
`Outcome` (what an upstream answer came to: text, calls handed on, calls held back, counts),
and `fold_chunks`, which turns the chunks of a stream into the chat.completion object a
non-streaming client gets, so both kinds of request share one path. It never talks to an
upstream and never parses model markup.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from toolmend.model import ToolCall
from toolmend.recovery import REJECTED_CALLS_FIELD
from toolmend.recovery.emitter import rejected_entry
from toolmend.server.requestlog import empty_counter

#: Characters of arguments JSON per chunk when a checked call is sent: small enough for agents
#: that render calls while they arrive, large enough that a 1 MiB call is a few hundred chunks.
ARGUMENT_FRAGMENT = 4096


def repair_kind(repair: str) -> str:
    """`rename:City->city` -> `rename`: the kind a repair is counted under."""
    return repair.partition(":")[0] or "other"


@dataclass(slots=True)
class Outcome:
    """What one upstream answer came to, after the mode and the gate."""

    text: list[str] = field(default_factory=list)
    #: Executable calls sent to the client.
    handed: list[ToolCall] = field(default_factory=list)
    #: Calls that could not be made valid, held back for a re-ask, with their guided result.
    held: list[tuple[ToolCall, str]] = field(default_factory=list)
    #: Calls that could not be made valid, sent flagged because the re-ask budget was spent.
    flagged: list[ToolCall] = field(default_factory=list)

    def release_held(self) -> list[tuple[ToolCall, str]]:
        """The held calls, now to be sent flagged (no re-ask will happen)."""
        held, self.held = self.held, []
        self.flagged += [call for call, _ in held]
        return held

    finish_reason: str | None = None
    usage: dict[str, Any] | None = None
    recovered: Counter[str] = field(default_factory=empty_counter)
    repairs: Counter[str] = field(default_factory=empty_counter)
    diagnostics: Counter[str] = field(default_factory=empty_counter)

    def count_call(self, call: ToolCall, protocol: str | None) -> None:
        if protocol is not None:
            self.recovered[protocol] += 1
        for repair in call.repairs:
            self.repairs[repair_kind(repair)] += 1


class ChunkWriter:
    """Builds the client's chunks under one id, whichever upstream answer they come from."""

    __slots__ = ("_base", "next_index")

    def __init__(self, model: str) -> None:
        self._base: dict[str, Any] = {
            "id": "",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": model,
        }
        #: The index the next tool call handed to the client gets (across re-asks).
        self.next_index = 0

    def adopt(self, chunk: Mapping[str, Any]) -> None:
        """Take the id, time and model of the first upstream chunk (later answers keep them)."""
        if self._base["id"]:
            return
        self._base["id"] = str(chunk.get("id") or "chatcmpl-toolmend")
        for key in ("created", "model", "system_fingerprint"):
            if chunk.get(key) is not None:
                self._base[key] = chunk[key]

    def chunk(self, delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        out = dict(self._base)
        if not out["id"]:
            out["id"] = "chatcmpl-toolmend"
        out["choices"] = [{"index": 0, "delta": delta, "finish_reason": finish_reason}]
        return out

    def content(self, text: str) -> dict[str, Any]:
        return self.chunk({"content": text})

    def usage(self, usage: dict[str, Any]) -> dict[str, Any]:
        out = self.chunk({})
        out["choices"] = []
        out["usage"] = usage
        return out

    def tool_call(self, call: ToolCall) -> list[dict[str, Any]]:
        """A whole call as chunks: id and name first, then the arguments in fragments."""
        index = self.next_index
        self.next_index += 1
        arguments = call.arguments_json()
        head: dict[str, Any] = {
            "index": index,
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": arguments[:ARGUMENT_FRAGMENT]},
        }
        out = [self.chunk({"tool_calls": [head]})]
        for start in range(ARGUMENT_FRAGMENT, len(arguments), ARGUMENT_FRAGMENT):
            part = {
                "index": index,
                "function": {"arguments": arguments[start : start + ARGUMENT_FRAGMENT]},
            }
            out.append(self.chunk({"tool_calls": [part]}))
        return out

    def rejected(self, calls: list[tuple[ToolCall, str]]) -> dict[str, Any]:
        """Calls that must not run, flagged as recovery flags them, with a visible note."""
        return self.chunk(flag_rejected({}, calls))


def rejection_note(call: ToolCall, reason: str) -> str:
    """The line the agent shows (and the model reads next turn) for a call that was not run."""
    why = (call.error or reason).splitlines()[0][:300]
    return f"\n[toolmend] The call to `{call.name}` was not run: {why}\n"


def flag_rejected(delta: dict[str, Any], calls: list[tuple[ToolCall, str]]) -> dict[str, Any]:
    """`delta` with `calls` listed under the rejected-calls field and noted in its text."""
    if calls:
        entries = [rejected_entry(call, call.error or reason) for call, reason in calls]
        delta[REJECTED_CALLS_FIELD] = entries
        note = "".join(rejection_note(call, reason) for call, reason in calls)
        content = delta.get("content")
        delta["content"] = (content if isinstance(content, str) else "") + note
    return delta


def fold_chunks(chunks: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The chat.completion object a stream of chunks amounts to (choice 0 and others alike)."""
    base: dict[str, Any] = {}
    choices: dict[int, dict[str, Any]] = {}
    usage: Any = None
    for chunk in chunks:
        if not base:
            base = {
                k: chunk[k] for k in ("id", "created", "model", "system_fingerprint") if k in chunk
            }
        if chunk.get("usage"):
            usage = chunk["usage"]
        for choice in chunk.get("choices") or ():
            slot = choices.setdefault(
                int(choice.get("index", 0)),
                {
                    "message": {"role": "assistant", "content": None},
                    "finish_reason": None,
                    "calls": {},
                },
            )
            _fold_delta(slot, choice.get("delta") or {})
            if choice.get("finish_reason"):
                slot["finish_reason"] = choice["finish_reason"]
    out: dict[str, Any] = {**base, "object": "chat.completion", "choices": []}
    for index in sorted(choices):
        slot = choices[index]
        message = slot["message"]
        if slot["calls"]:
            message["tool_calls"] = [slot["calls"][i] for i in sorted(slot["calls"])]
        out["choices"].append(
            {"index": index, "message": message, "finish_reason": slot["finish_reason"]}
        )
    if usage is not None:
        out["usage"] = usage
    return out


def _fold_delta(slot: dict[str, Any], delta: Mapping[str, Any]) -> None:
    message = slot["message"]
    for key, value in delta.items():
        if key == "tool_calls":
            for part in value or ():
                _fold_call(slot["calls"], part)
        elif key == "role":
            message["role"] = value
        elif isinstance(value, str):
            message[key] = (message.get(key) or "") + value
        elif value is not None:
            message[key] = value


def _fold_call(calls: dict[int, dict[str, Any]], part: Mapping[str, Any]) -> None:
    index = int(part.get("index", len(calls)))
    call = calls.setdefault(
        index, {"id": "", "type": "function", "function": {"name": "", "arguments": ""}}
    )
    for key, value in part.items():
        if key == "function" and isinstance(value, Mapping):
            function = call["function"]
            function["name"] += value.get("name") or ""
            function["arguments"] += value.get("arguments") or ""
        elif key == "id" and value:
            call["id"] = value
        elif key not in {"index", "type"}:
            call[key] = value


def completion_as_chunk(response: Mapping[str, Any]) -> dict[str, Any]:
    """A non-streaming answer as one chunk, so it runs through the streaming path."""
    choices = []
    for choice in response.get("choices") or ():
        if not isinstance(choice, Mapping):
            continue
        message = dict(choice.get("message") or {})
        calls = message.get("tool_calls")
        if isinstance(calls, list):
            message["tool_calls"] = [
                {**call, "index": i} for i, call in enumerate(calls) if isinstance(call, Mapping)
            ]
        choices.append(
            {
                "index": choice.get("index", 0),
                "delta": message,
                "finish_reason": choice.get("finish_reason"),
            }
        )
    chunk = {k: v for k, v in response.items() if k not in {"choices", "object"}}
    chunk["object"] = "chat.completion.chunk"
    chunk["choices"] = choices
    return chunk
