"""One choice of a streamed response: its text leg, its native calls and its terminal.

Owns, for one `choices[i]`, the calls in source order (recovered and native alike), the rule
that a call is emitted only at the choice's terminal (so an aborted or cancelled stream never
yields one), wire indices (contiguous, in source order), id collisions (the later call fails
closed), dual protocol (markup in the text next to native calls), and `finish_reason`. Calls are
emitted whole: a call is executable only once its end is known and it validates.

Never: copies chunks or reads the stream's envelope (the stream and the emitter do; the one
exception is `take_chunk`, the once-per-chunk case of a one-choice stream, which copies the
chunk itself to save a call per chunk), parses text itself (the text leg's parsers do), scans
`reasoning_content` (recovered reasoning is only appended to it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

from toolmend.guard.patterns import Flag
from toolmend.model import Tool, ToolCall
from toolmend.recovery import diagnostics as codes
from toolmend.recovery.diagnostics import RecoveryDiagnostic, diagnostic, from_parser, guard_signal
from toolmend.recovery.emitter import (
    REASONING_FIELD,
    REJECTED_CALLS_FIELD,
    copy_json,
    rejected_entry,
    segment_choice,
    tool_call_entry,
)
from toolmend.recovery.native import NativeAssembler, NativeCall, NativeSettler, SettledCall
from toolmend.recovery.textleg import Piece, TextLeg

IN_REASONING = "written inside reasoning"
CUT_BY_ERROR = "the call was cut off: the stream ended by an error before it was complete"


class Terminal(Enum):
    """How a choice ends: its own finish, the end of the stream, an error, or an abort."""

    FINISH = "finish"
    END = "end"
    ERROR = "error"
    ABORT = "abort"


@dataclass(slots=True)
class Run:
    """Adjacent visible text or recovered reasoning, in order."""

    reasoning: bool
    parts: list[str] = field(default_factory=list)


class ChoiceRecovery:
    """The recovery state of one choice index across the stream."""

    __slots__ = (
        "_ids_seen",
        "_leg",
        "_native",
        "_new_id",
        "_protocols",
        "_report",
        "_settler",
        "_slots",
        "_tools",
        "_wire_index",
        "index",
    )

    def __init__(
        self,
        index: int,
        protocols: Sequence[str],
        tools: list[Tool] | None,
        settler: NativeSettler,
        new_id: Callable[[set[str]], str],
        report: Callable[[RecoveryDiagnostic], None],
        *,
        leg: TextLeg | None = None,
    ) -> None:
        """`leg`: the text leg `protocols` and `tools` give, built ahead and not yet fed
        (`StreamRecovery.prepare`); else it is built at the choice's first text."""
        self.index = index
        self._protocols = protocols
        self._tools = tools
        self._settler = settler
        self._new_id = new_id
        self._report = report
        self._leg = leg
        self._native = NativeAssembler()
        #: Calls in source order: settled recovered calls, and native calls still assembling.
        self._slots: list[SettledCall | NativeCall] = []
        self._ids_seen: set[str] = set()
        self._wire_index = 0

    # ---------------------------------------------------------------------------- streaming

    def take_chunk(self, chunk: dict[str, Any]) -> dict[str, Any] | list[dict[str, Any]] | None:
        """The once-per-chunk case of a stream whose one choice this is: for an upstream chunk
        whose only choice is this one, not finishing, its delta `content` alone, the output
        chunk (or, when that text completed more than visible text, `take`'s choices for the
        stream to split); None for any other chunk (nothing is read then: `take` has it).

        Written for speed, as the path almost every chunk takes: fields are read by subscript
        (a missing one, rare here, ends the case), `dict.copy` is the fastest copy of a small
        dict, and a call's text waiting for more (`TextLeg.room`) is appended here.
        """
        try:
            (choice,) = chunk["choices"]
            delta = choice["delta"]
            mine = choice["index"] == self.index
        except (KeyError, TypeError, ValueError):
            return None
        if not mine or type(choice) is not dict or type(delta) is not dict or len(delta) != 1:
            return None
        content = delta.get("content")
        if type(content) is not str or choice.get("finish_reason") is not None:
            return None
        leg = self._leg
        if leg is not None and len(content) < leg.room:  # a call's text: nothing to show yet
            leg.batch.append(content)
            leg.room -= len(content)
            read: str | list[Piece] = ""
        elif content:
            read = (leg or self._text_leg()).feed(content)
            if type(read) is not str:
                return self._take_whole(choice, delta, read)
        else:
            read = ""
        out_choice = choice.copy()
        out_choice["delta"] = {"content": read}
        out = chunk.copy()  # the stream's envelope, as `emitter.copy_chunk` copies it
        out["choices"] = [out_choice]
        if "usage" in out:
            out["usage"] = copy_json(out["usage"])
        return out

    def take(self, choice: dict[str, Any]) -> dict[str, Any] | list[dict[str, Any]]:
        """The output choices for one input choice: split-off segments, then its copy (the
        copy alone, not in a list, when that is all)."""
        delta = choice.get("delta")
        if type(delta) is not dict:
            if not isinstance(delta, Mapping):
                return choice.copy()
            delta = dict(delta)
        return self._take_whole(choice, delta, None)

    def _take_whole(
        self, choice: dict[str, Any], delta: dict[str, Any], read: str | list[Piece] | None
    ) -> dict[str, Any] | list[dict[str, Any]]:
        """`take` for every other choice: `read` is what the leg already made of the delta's
        content (None when it has not read it yet)."""
        content = delta.get("content")
        if read is None and content and type(content) is str:
            read = (self._leg or self._text_leg()).feed(content)
        out = choice.copy()
        new_delta = out["delta"] = delta.copy()
        runs: list[Run] | None = None
        if isinstance(read, str):
            new_delta["content"] = read
        elif read is not None:
            runs = []
            self._absorb(read, runs, cut=None)
        if "tool_calls" in delta:
            drained = self._leg.drain() if self._leg is not None else []
            if drained:  # text batched before these calls: a call it closes comes first
                runs = _runs_of(new_delta) if runs is None else runs
                self._absorb(drained, runs, cut=None)
            self._take_native(delta["tool_calls"])
            del new_delta["tool_calls"]
        finish = choice.get("finish_reason")
        if finish is None and runs is None:
            return out
        if runs is None:
            runs = _runs_of(new_delta)
        if finish is not None:
            calls, rejected, executable = self._terminal(Terminal.FINISH, runs)
            out["finish_reason"] = rewrite_finish(finish, executable)
            self._attach_calls(new_delta, calls, rejected)
        segments = self._segments(runs, new_delta, had_content=isinstance(content, str))
        if segments and "role" in new_delta:  # the role opens the message: the first piece
            segments[0]["delta"] = {"role": new_delta.pop("role"), **segments[0]["delta"]}
        return [*segments, out]

    def _take_native(self, entries: object) -> None:
        if isinstance(entries, list):
            for entry in entries:
                started = self._native.add(entry)
                if started is not None:
                    self._slots.append(started)
        for d in self._native.order_diagnostics:
            self._report(d)
        self._native.order_diagnostics.clear()

    def end(self, how: Terminal) -> dict[str, Any] | None:
        """The choice's terminal at the end of the stream (normal, error or abort), or None.

        Flushes the text leg once; on abort nothing is returned. Returns a choice for a chunk
        toolmend adds when there is text or a call to deliver.
        """
        runs: list[Run] = []
        calls, rejected, executable = self._terminal(how, runs)
        if how is Terminal.ABORT:
            return None
        # The stream's end cannot be split into segments: text and reasoning each in one field.
        delta: dict[str, Any] = {}
        for run in runs:
            key = REASONING_FIELD if run.reasoning else "content"
            delta[key] = delta.get(key, "") + "".join(run.parts)
        self._attach_calls(delta, calls, rejected)
        if not delta:
            return None
        choice = segment_choice(self.index, delta)
        if executable or how is Terminal.ERROR:
            choice["finish_reason"] = "tool_calls" if executable else None
        return choice

    # ---------------------------------------------------------------------------- internals

    def _text_leg(self) -> TextLeg:
        if self._leg is None:
            self._leg = TextLeg(self._protocols, self._tools)
        return self._leg

    def _absorb(self, pieces: list[Piece], runs: list[Run], *, cut: str | None) -> None:
        for piece in pieces:
            if piece.kind in ("text", "reasoning"):
                reasoning = piece.kind == "reasoning"
                if not runs or runs[-1].reasoning is not reasoning:
                    runs.append(Run(reasoning))
                runs[-1].parts.append(piece.text)
            elif piece.kind == "call" and piece.call is not None:
                call = piece.call
                if piece.in_reasoning:
                    call = replace(call, incomplete=True, error=IN_REASONING)
                elif cut is not None and call.executable:
                    call = replace(call, incomplete=True, error=cut)
                self._slots.append(SettledCall(call, piece.protocol, native=False))
            elif piece.kind == "diagnostic" and piece.event is not None:
                self._report(from_parser(piece.event))
            elif piece.kind == "thinking":
                kimi = piece.protocol == "kimi-xtml"
                self._report(
                    diagnostic(
                        codes.KIMI_THINKING_RECOVERY if kimi else codes.REASONING_IN_CONTENT,
                        protocol=piece.protocol,
                        message="a think channel in the visible text was moved to reasoning"
                        if kimi
                        else "reasoning in the visible text was moved to reasoning",
                    )
                )

    def _terminal(
        self, how: Terminal, runs: list[Run]
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int]:
        """Flush the leg, settle every call in source order; (entries, rejected, executable)."""
        cut = CUT_BY_ERROR if how is Terminal.ERROR else None
        if self._leg is not None:
            self._absorb(self._leg.drain(), runs, cut=None)
            self._absorb(self._leg.finish(), runs, cut=cut)
            self._leg = None
        if how is Terminal.ABORT:
            self._abandon()
            return [], [], 0
        settled = self._settle_all(how, cut)
        self._slots = []
        self._native = NativeAssembler()
        return self._emit(self._dual_protocol(settled))

    def _abandon(self) -> None:
        """An abort: no call is settled or delivered; each one is reported as cut off."""
        for slot in self._slots:
            if isinstance(slot, SettledCall):
                name, call_id, protocol = slot.call.name, slot.call.id, slot.protocol
            else:
                name, call_id, protocol = "".join(slot.name_parts), slot.id, None
            self._report(
                diagnostic(
                    codes.CALL_CUT_OFF,
                    protocol=protocol,
                    tool=name or None,
                    call_id=call_id or None,
                    message="the stream was aborted; the call was not delivered",
                )
            )
        self._slots = []
        self._native = NativeAssembler()

    def _settle_all(self, how: Terminal, cut: str | None) -> list[SettledCall]:
        settled: list[SettledCall] = []
        for slot in self._slots:
            if isinstance(slot, SettledCall):
                settled.append(slot)
                continue
            complete = how in (Terminal.FINISH, Terminal.END) or slot.closed
            calls, diags = self._settler.settle(slot, None if complete else cut)
            settled += calls
            for d in diags:
                self._report(d)
        return settled

    def _dual_protocol(self, settled: list[SettledCall]) -> list[SettledCall]:
        """Markup in the text next to native calls: recorded (the guard's INVALID_TOOL_PROTOCOL
        signal), and a written call that repeats a native one (same tool, same arguments) is
        dropped, so the native call runs once."""
        native = {
            (s.call.name, s.call.arguments_json())
            for s in settled
            if s.native and s.call.executable
        }
        written = [s for s in settled if not s.native]
        if not native or not written:
            return settled
        self._report(
            diagnostic(
                codes.DUAL_PROTOCOL,
                protocol=written[0].protocol,
                message="tool markup in the text of a turn that also made native calls",
                count=len(written),
                **guard_signal(str(Flag.XML_NATIVE_DUAL)),
            )
        )
        kept: list[SettledCall] = []
        for one in settled:
            echo = (one.call.name, one.call.arguments_json()) in native
            if not one.native and one.call.executable and echo:
                self._report(
                    diagnostic(
                        codes.DUAL_PROTOCOL_DUPLICATE,
                        protocol=one.protocol,
                        tool=one.call.name,
                        message="a call written in the text repeats a native call; run once",
                    )
                )
                continue
            kept.append(one)
        return kept

    def _emit(
        self, settled: list[SettledCall]
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int]:
        entries: list[dict[str, Any]] = []
        rejected: list[dict[str, Any]] = []
        first = self._wire_index
        reserved = {s.call.id for s in settled if s.native and s.call.id}
        for one in settled:
            call = one.call
            if one.fragments is not None:  # a call type toolmend does not read: as it came
                entries += [{**f, "index": self._wire_index} for f in one.fragments]
                self._wire_index += 1
                continue
            if not one.native:
                call = replace(call, id=self._new_id(reserved | self._ids_seen))
            if call.id in self._ids_seen:
                self._about(call, one, codes.ID_COLLISION, "an earlier call holds the same id")
                rejected.append(
                    rejected_entry(
                        call, "tool call id collides with an earlier call", one.written_arguments
                    )
                )
                continue
            self._ids_seen.add(call.id)
            if not call.executable:
                if not one.native:  # a native call's rejection was reported when settled
                    self._report(
                        codes.rejection(
                            _text_call_reason(call),
                            protocol=one.protocol,
                            tool=call.name,
                            call_id=call.id,
                        )
                    )
                rejected.append(
                    rejected_entry(
                        call, call.error or "the call is incomplete", one.written_arguments
                    )
                )
                continue
            if not one.native:
                self._about(call, one, codes.LEAKED_CALL_RECOVERED, "a call in the text recovered")
                if call.repairs:  # a native call's repairs were reported when settled
                    self._about(
                        call,
                        one,
                        codes.ARGUMENTS_REPAIRED,
                        "the arguments were repaired and then validated",
                        repairs=list(call.repairs),
                    )
            entries.append(tool_call_entry(self._wire_index, call, one.extras, one.function_extras))
            self._wire_index += 1
        return entries, rejected, self._wire_index - first

    def _about(
        self, call: ToolCall, one: SettledCall, code: str, message: str, **detail: Any
    ) -> None:
        self._report(
            diagnostic(
                code,
                protocol=one.protocol,
                tool=call.name,
                call_id=call.id,
                message=message,
                **detail,
            )
        )

    @staticmethod
    def _attach_calls(
        delta: dict[str, Any], calls: list[dict[str, Any]], rejected: list[dict[str, Any]]
    ) -> None:
        if calls:
            delta["tool_calls"] = calls
        if rejected:
            delta[REJECTED_CALLS_FIELD] = rejected

    def _segments(
        self, runs: list[Run], delta: dict[str, Any], *, had_content: bool
    ) -> list[dict[str, Any]]:
        """Put the last run into `delta`; earlier runs become split-off segment choices."""
        segments = [segment_choice(self.index, _run_delta(r, {})) for r in runs[:-1]]
        if runs:
            _run_delta(runs[-1], delta)
            if runs[-1].reasoning and had_content:
                delta["content"] = ""
        elif had_content:
            delta["content"] = ""
        return segments


def _runs_of(delta: Mapping[str, Any]) -> list[Run]:
    """The visible text already in `delta` as the first run."""
    visible = delta.get("content")
    return [Run(False, [visible])] if visible and type(visible) is str else []


def _run_delta(run: Run, delta: dict[str, Any]) -> dict[str, Any]:
    text = "".join(run.parts)
    if run.reasoning:
        upstream = delta.get(REASONING_FIELD)
        delta[REASONING_FIELD] = (upstream if isinstance(upstream, str) else "") + text
    else:
        delta["content"] = text
    return delta


def rewrite_finish(original: Any, executable: int) -> Any:
    """`stop` (or none) becomes `tool_calls` when an executable call was emitted; `length` and
    `content_filter` are kept; `tool_calls` with no executable call left becomes `stop`."""
    if executable:
        if original is None or original in ("stop", "tool_calls"):
            return "tool_calls"
        return original  # `length`, `content_filter` and any other reason of the server's
    return "stop" if original == "tool_calls" else original


def _text_call_reason(call: ToolCall) -> str:
    """The rejection reason of a call read from text (its `error` may quote the model)."""
    if call.error == IN_REASONING:
        return "in_reasoning"
    if call.error == CUT_BY_ERROR:
        return "cut_off"
    return "incomplete" if call.incomplete else "invalid_arguments"
