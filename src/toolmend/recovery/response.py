"""`recover_response`: a whole `chat.completion` through the streaming path, fed once.

Owns only the two conversions around `StreamRecovery`: a response becomes one chunk (each
choice's `message` as its `delta`), and the chunks that come back fold into a response again
(text and reasoning concatenated, tool calls gathered by index, every other field as it came).
There is no second recovery path: what a stream would recover, the response recovers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Unpack

from toolmend.model import ToolmendError, ToolsLike
from toolmend.recovery.emitter import DIAGNOSTICS_FIELD, REASONING_FIELD, REJECTED_CALLS_FIELD
from toolmend.recovery.families import ProtocolsArg
from toolmend.recovery.stream import DiagnosticSink, RecoveryOptions, StreamRecovery

#: Message fields the fold concatenates (the streaming form splits them over chunks).
_CONCATENATED = ("content", REASONING_FIELD)
#: Message fields the fold gathers into lists.
_GATHERED = ("tool_calls", REJECTED_CALLS_FIELD)


def recover_response(
    response: Mapping[str, Any],
    tools: ToolsLike = None,
    model: str | None = None,
    protocols: ProtocolsArg = "auto",
    on_diagnostic: DiagnosticSink | None = None,
    **options: Unpack[RecoveryOptions],
) -> dict[str, Any]:
    """Recover leaked tool calls from one `chat.completion` dict; the same shape comes back.

    `model` defaults to the response's own `model`. Options as for `recover_stream`; with
    `attach_diagnostics` the response carries `toolmend_diagnostics`.
    """
    if not isinstance(response, Mapping):
        raise ToolmendError(f"a response is a chat.completion dict, got {type(response).__name__}")
    if model is None and isinstance(response.get("model"), str):
        model = response["model"]
    recovery = StreamRecovery(tools, model, protocols, on_diagnostic, **options)
    chunks = [*recovery.feed(_as_chunk(response)), *recovery.end()]
    return _fold(response, chunks)


def _as_chunk(response: Mapping[str, Any]) -> dict[str, Any]:
    chunk = dict(response)
    choices = response.get("choices")
    if isinstance(choices, list):
        chunk["choices"] = [_as_chunk_choice(c) for c in choices]
    return chunk


def _as_chunk_choice(choice: object) -> object:
    if not isinstance(choice, Mapping):
        return choice
    out = dict(choice)
    message = out.pop("message", None)
    out["delta"] = message if isinstance(message, Mapping) else {}
    return out


def _fold(response: Mapping[str, Any], chunks: list[dict[str, Any]]) -> dict[str, Any]:
    folded: dict[int, dict[str, Any]] = {}
    messages: dict[int, dict[str, Any]] = {}
    diagnostics: list[Any] = []
    out: dict[str, Any] = {}
    if not isinstance(response.get("choices"), list):  # nothing to fold: passed on as it is
        return chunks[0] if chunks else dict(response)
    for chunk in chunks:
        diagnostics += chunk.get(DIAGNOSTICS_FIELD, [])
        out.update((k, v) for k, v in chunk.items() if k not in ("choices", DIAGNOSTICS_FIELD))
        for position, choice in enumerate(chunk.get("choices") or []):
            if not isinstance(choice, Mapping):
                continue
            index = choice.get("index", position)
            index = index if isinstance(index, int) else position
            target = folded.setdefault(index, {})
            message = messages.setdefault(index, {})
            for key, value in choice.items():
                if key == "delta" and isinstance(value, Mapping):
                    _fold_delta(message, value)
                elif key not in target or value is not None:
                    target[key] = value
    out["choices"] = [
        {**{k: v for k, v in folded[i].items() if k != "delta"}, "message": messages[i]}
        for i in folded
    ]
    if diagnostics:
        out[DIAGNOSTICS_FIELD] = diagnostics
    return out


def _fold_delta(message: dict[str, Any], delta: Mapping[str, Any]) -> None:
    for key, value in delta.items():
        if key in _CONCATENATED and isinstance(value, str):
            previous = message.get(key)
            message[key] = (previous if isinstance(previous, str) else "") + value
        elif key in _GATHERED and isinstance(value, list):
            # A message's calls carry no `index` (that is the streaming form's).
            gathered = message.setdefault(key, [])
            gathered += [_without_index(entry) for entry in value]
        elif key not in message:
            message[key] = value


def _without_index(entry: object) -> object:
    if isinstance(entry, Mapping) and "index" in entry:
        return {k: v for k, v in entry.items() if k != "index"}
    return entry
