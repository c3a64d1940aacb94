"""Native mode: the model's own tool calling, tools passed through, answers recovered.

This module owns the answer side of native mode: the upstream's chunks go through
`toolmend.arecover_stream` (leaked markup of the model's family becomes real calls, native calls
are name-resolved, gated and split when glued), then every executable call meets the request's
`CallGate` (a blocked preflight such as a `cwd` object is held back like an unusable call), and
calls that recovery flagged are held for a re-ask or sent flagged. Finish reasons and usage are
kept back for the pipeline's closing chunk. It never rewrites a request.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from toolmend.model import Tool, ToolCall
from toolmend.recovery import REJECTED_CALLS_FIELD, AsyncRecoveredStream, StreamRecovery
from toolmend.recovery.diagnostics import (
    ARGUMENTS_REPAIRED,
    LEAKED_CALL_RECOVERED,
    NATIVE_NAME_RESOLVED,
    RecoveryDiagnostic,
)
from toolmend.recovery.textmode import arguments_of
from toolmend.server.answer import ChunkWriter, Outcome, flag_rejected, repair_kind
from toolmend.server.guarding import CallGate

#: The repair kind a disguised native tool name mapped back to its tool is counted under.
NAME_ALIAS_REPAIR = "name_alias"


def _call_of(entry: Mapping[str, Any], *, rejected: bool) -> ToolCall:
    function = entry.get("function") if isinstance(entry.get("function"), Mapping) else {}
    name = function.get("name") if isinstance(function, Mapping) else None
    error = entry.get("error") if rejected else None
    return ToolCall(
        id=str(entry.get("id") or ""),
        name=str(name or ""),
        arguments=arguments_of(entry),
        incomplete=rejected,
        error=(str(error) if error else "the call is incomplete") if rejected else None,
    )


class NativeAnswer:
    """One upstream answer in native mode."""

    def __init__(
        self,
        tools: Sequence[Tool] | None,
        model: str,
        protocols: str | tuple[str, ...],
        writer: ChunkWriter,
        gate: CallGate,
        *,
        hold_rejected: bool,
    ) -> None:
        self._writer = writer
        self._gate = gate
        self._hold = hold_rejected
        self.outcome = Outcome()
        #: The answer's recovery, its first choice's parsers built now (`StreamRecovery.prepare`):
        #: the pipeline makes this answer while the upstream works on the request, so the first
        #: chunk does not wait for them.
        self._recovery = StreamRecovery(
            tools, model=model, protocols=protocols, on_diagnostic=self._diagnostic
        )
        self._recovery.prepare()
        #: The text of the chunk `run` last yielded when it carries only text, else None (the
        #: check `_shape` makes anyway, read by the front-ends instead of making it again).
        self.text_only: str | None = None
        #: Whether `_shape` still has to give the writer a chunk's envelope (`adopt`).
        self._adopting = True

    def run(self, chunks: AsyncIterator[dict[str, Any]]) -> AsyncIterator[dict[str, Any]]:
        """The client's chunks; calls complete before a failure are still delivered.

        Each chunk is shaped in the recovered stream's own loop (`AsyncRecoveredStream`'s
        `shape`), not in a generator of this answer's: one `async for` level less per chunk."""
        return AsyncRecoveredStream(
            self._recovery, chunks, shape=self._shape, after_failure=self._after_failure
        )

    def _after_failure(self) -> list[dict[str, Any]]:
        """No re-ask after a failure: the held calls go on, flagged."""
        self.text_only = None
        if not self.outcome.held:
            return []
        return [self._writer.rejected(self.outcome.release_held())]

    def _diagnostic(self, item: RecoveryDiagnostic) -> None:
        code = str(item.get("code"))
        self.outcome.diagnostics[code] += 1
        detail = item.get("detail") or {}
        if code == LEAKED_CALL_RECOVERED:
            self.outcome.recovered[str(item.get("protocol") or "unknown")] += 1
        if code in (LEAKED_CALL_RECOVERED, ARGUMENTS_REPAIRED):
            for repair in detail.get("repairs") or ():
                self.outcome.repairs[repair_kind(str(repair))] += 1
        elif code == NATIVE_NAME_RESOLVED:
            self.outcome.repairs[NAME_ALIAS_REPAIR] += 1

    def _shape(self, chunk: dict[str, Any]) -> dict[str, Any] | None:
        if self._adopting:  # the first chunk's envelope only: later ones change nothing
            self._writer.adopt(chunk)
            self._adopting = False
        if chunk is self._recovery.lane_chunk:
            # Recovery's common path made it: one choice, a delta of its `content` alone, no
            # finish reason; what `_plain_text` checks beyond that, read by subscripts.
            choice = chunk["choices"][0]
            if len(choice) == 3 and "finish_reason" in choice and "usage" not in chunk:
                text = choice["delta"]["content"] if choice["index"] == 0 else None
            else:
                text = _plain_text(chunk)
        else:
            text = _plain_text(chunk)
        self.text_only = text
        if text is not None:  # the common chunk: one choice's text, nothing else to shape
            if not text:
                return None
            self.outcome.text.append(text)
            return chunk
        usage = chunk.pop("usage", None)
        if usage:
            self.outcome.usage = dict(usage)
        choices = chunk.get("choices")
        if not isinstance(choices, list) or not choices:
            return None
        keep = False
        for choice in choices:
            if isinstance(choice, dict) and choice.get("index", 0) == 0:
                self._shape_choice(choice)
            keep = keep or _carries_something(choice)
        return chunk if keep else None

    def _shape_choice(self, choice: dict[str, Any]) -> None:
        finish = choice.get("finish_reason")
        if finish is not None:
            self.outcome.finish_reason = str(finish)
            choice["finish_reason"] = None
        delta = choice.get("delta")
        if not isinstance(delta, dict):
            return
        content = delta.get("content")
        if isinstance(content, str) and content:
            self.outcome.text.append(content)
        if "tool_calls" in delta or REJECTED_CALLS_FIELD in delta:
            self._gate_calls(delta)

    def _gate_calls(self, delta: dict[str, Any]) -> None:
        """Executable calls through the gate; refused and flagged ones held or flagged."""
        refused: list[tuple[ToolCall, str]] = []
        entries = delta.pop("tool_calls", None)
        if isinstance(entries, list):
            passed = []
            for entry in entries:
                call = _call_of(entry, rejected=False)
                verdict = self._gate.check(call)
                if verdict.allowed:
                    entry["index"] = self._writer.next_index
                    self._writer.next_index += 1
                    self.outcome.handed.append(call)
                    passed.append(entry)
                else:
                    refused.append((call, verdict.guidance))
            if passed:
                delta["tool_calls"] = passed
        for entry in delta.pop(REJECTED_CALLS_FIELD, None) or ():
            call = _call_of(entry, rejected=True)
            refused.append((call, self._gate.check(call).guidance))
        if not refused:
            return
        if self._hold:
            self.outcome.held += refused
        else:
            self.outcome.flagged += [call for call, _ in refused]
            flag_rejected(delta, refused)


def _plain_text(chunk: dict[str, Any]) -> str | None:
    """The text of a chunk that is only choice 0's text delta (no finish, matched stop string,
    usage, logprobs or calls), which `_shape` passes on unchanged; None for any other chunk.
    vLLM's chunks carry `logprobs` and `stop_reason` beside the delta, both null."""
    if "usage" in chunk:
        return None
    choices = chunk.get("choices")
    if type(choices) is not list or len(choices) != 1:
        return None
    choice = choices[0]
    if type(choice) is not dict or len(choice) > 5 or choice.get("index", 0) != 0:
        return None
    if choice.get("finish_reason") is not None or choice.get("logprobs"):
        return None
    if len(choice) > 3 and choice.get("stop_reason") is not None:
        return None
    delta = choice.get("delta")
    if type(delta) is not dict or len(delta) != 1:
        return None
    content = delta.get("content")
    return content if type(content) is str else None


def _carries_something(choice: object) -> bool:
    """Whether a choice says anything (a delta whose text recovery held back says nothing)."""
    if type(choice) is not dict and not isinstance(choice, Mapping):  # ABC checks cost ~1 µs
        return True
    delta = choice.get("delta")
    if type(delta) is dict and len(delta) == 1 and "content" in delta and len(choice) <= 4:
        return bool(delta["content"])  # the common chunk: a text delta, nothing else
    if choice.get("finish_reason") is not None or choice.get("logprobs"):
        return True
    if choice.get("stop_reason"):  # vLLM's matched stop string, beside the finish held back
        return True
    if not isinstance(delta, Mapping):
        return delta is not None
    return any(value != "" for key, value in delta.items()) or "role" in delta
