"""The call lifecycle: the `BlockContext` a reader talks to, and the truncation rule R1–R4.

`Block` owns what happens to calls once a reader has found them: name resolution, call ids and
indices, the schema gate, argument deltas (`ArgumentStream`), conservation accounting (every
input character ends up as text, inside a call, or in a diagnostic's `stripped_length`), and
at the end of the stream the rule

    A call cut off by the end of the stream is completed iff R1 its opening marker is complete,
    R2 its name resolves, R3 its body is complete except for a missing closing marker (or a
    proper prefix of it) and trailing whitespace (an empty body is complete only when such a
    prefix follows it: a call cut off right after its header shows nothing of its end), and
    R4 its arguments validate. A call with a resolving name that is not recoverable ends
    `incomplete` with an error and best-effort arguments; a nameless fragment is dropped with
    a metadata-only diagnostic. The raw truncated fragment never appears as text or in a
    diagnostic.

A call that repeats the call ended right before it (same tool, same arguments) ends
incomplete with `REPEATED_CALL`: only the first of a run of copies is executable.

It never scans text or buffers input: the state machine (`core/engine.py`) does, and tells the
block where the current buffer starts (`base`) and reads back how the reader left it (`outcome`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from toolmend.core.argstream import ArgumentStream
from toolmend.core.fastpath import ValueRun, ValueText
from toolmend.core.reader import CUT_OFF, BlockContext, BlockReader, ProtocolSyntax
from toolmend.events import Diagnostic, Event, TextDelta, ToolCallEnd, ToolCallStart
from toolmend.jsontext import MAX_NESTING, nesting_exceeds, normalize_value
from toolmend.model import CallIdFactory, Tool, ToolCall, canonical_json
from toolmend.names import ToolResolver
from toolmend.schema_gate import Policy, SchemaGate

#: How a reader left its block after a step (`Block.outcome`).
OPEN, ENDED, REVERTED = 0, 1, 2

#: The error of a call that repeats the call right before it, name and arguments alike. Models
#: fall into loops that write one call over and over (Step-3.5, Qwen3.5: dozens of copies until
#: the token limit; vllm-mlx's Step-3.5 parser and mlx-lm's server stop or collapse them), and
#: running a copy repeats its side effect. The first runs; a model that means to do it again
#: sees its result and can ask again.
REPEATED_CALL = (
    "the call repeats the call right before it (same tool, same arguments); not run twice"
)

#: The gate of the argument stream outside any call (which streams nothing).
_NO_GATE = SchemaGate(None)


class Block(BlockContext):
    """The parser's call lifecycle, one per parser, reused for every block it reads."""

    def __init__(
        self,
        syntax: ProtocolSyntax,
        resolver: ToolResolver,
        out: list[Event],
        *,
        policy: Policy | None,
        keep_failed_markup: bool,
        ids: CallIdFactory,
    ) -> None:
        self.resolver = resolver
        self.keep_failed_markup = keep_failed_markup
        self._out = out  # the parser's event list
        self._ids = ids
        self.chosen_policy = policy
        self._gates: dict[tuple[str, Policy], SchemaGate] = {}
        self.read_as(syntax)
        #: Absolute input offset of the current buffer's first character (set by the parser).
        self.base = 0
        #: Absolute offset up to which input is accounted for (conservation).
        self.attributed = 0
        self.outcome = OPEN
        self._failure: tuple[str, str, dict[str, Any]] | None = None
        #: The reader said it only passes text on from here (`pass_text`): no fragment cap.
        self.passing_text = False
        #: What a `revert` gives back: the consumed text, and whether it is scanned again.
        self.reverted: tuple[str, bool] = ("", False)
        self.char_before_marker = ""
        #: Nothing but blanks and reasoning came before the current marker (no text, no block).
        self.blank_so_far = True
        #: The syntax's unanchored, unguarded opening markers (set by the parser).
        self.block_openers: Sequence[str] = ()
        #: The fast path's state while a string value streams (`stream_value`), else None.
        self.run: ValueRun | None = None
        #: The current call's id, tool name and schema gate (None between calls): its
        #: `ToolCall` is built once, at its end.
        self._call: tuple[str, str, SchemaGate] | None = None
        self._call_index = -1
        self._pending_end: tuple[ToolCall, int, int] | None = None  # call, index, end offset
        self._next_index = 0
        #: The last call ended, as (name, canonical arguments) when it was executable.
        self._last_ended: tuple[str, str] | None = None
        self._current_tool: Tool | None = None
        self.args = ArgumentStream(_NO_GATE, out, "", -1, incremental=False)

    def read_as(self, syntax: ProtocolSyntax) -> None:
        self.protocol_id = syntax.id
        self.policy = self.chosen_policy or syntax.default_policy
        self.incremental_arguments = syntax.incremental_arguments

    # ------------------------------------------------------------ BlockContext: for readers

    @property
    def current_tool(self) -> Tool | None:
        return self._current_tool

    def gate_for(self, tool_name: str) -> SchemaGate:
        key = (tool_name, self.policy)
        gate = self._gates.get(key)
        if gate is None:
            tool = self.resolver.resolve(tool_name)
            gate = self._gates[key] = SchemaGate(
                None if self.resolver.accepts_any else tool, self.policy
            )
        return gate

    def begin_call(self, name: str) -> bool:
        tool = self.resolver.resolve(name)
        if tool is None:
            code = "ambiguous_tool" if self.resolver.is_ambiguous(name) else "unknown_tool"
            self.diagnostic(
                code,
                f"tool name {name[:64]!r} does not resolve to "
                + ("exactly one declared tool" if code == "ambiguous_tool" else "a declared tool"),
                name=name[:64],
            )
            return False
        self._flush_pending_end()
        index = self._next_index
        self._next_index += 1
        call_id = self._ids.next_id()
        gate = self.gate_for(tool.name)
        self._call = (call_id, tool.name, gate)
        self._call_index = index
        self._current_tool = tool
        self.args = ArgumentStream(
            gate, self._out, call_id, index, incremental=self.incremental_arguments
        )
        self._out.append(ToolCallStart(call_id, tool.name, index, self.protocol_id))
        return True

    def end_call(
        self,
        arguments: dict[str, Any] | None,
        *,
        at: int | None = None,
        error: str | None = None,
        repairs: Sequence[str] = (),
    ) -> None:
        assert self._call is not None, "end_call() without begin_call()"
        call_id, name, gate = self._call
        if arguments is not None and nesting_exceeds(arguments):
            arguments = {}
            error = f"the arguments are nested more than {MAX_NESTING} levels deep"
        args = arguments if arguments is not None else {}
        if error is None:
            # The gate normalises lone surrogates itself and records it (`surrogate:KEY`).
            result = gate.check(args)
            call = ToolCall(
                call_id,
                name,
                result.arguments,
                incomplete=result.error is not None,
                error=result.error,
                repairs=[*repairs, *result.repairs],
            )
        else:
            call = ToolCall(
                call_id,
                name,
                normalize_value(args),
                incomplete=True,
                error=error,
                repairs=list(repairs),
            )
        encoded = canonical_json(call.arguments)  # once: a 500 KB value takes milliseconds
        call = self._unless_repeated(call, encoded)
        if not self.args.finish(encoded):
            self.diagnostic(
                "argument_stream_diverged",
                "streamed argument deltas are not a prefix of the final arguments; "
                "use the arguments of the end event",
                call_id=call.id,
            )
        stop = -1 if at is None else self.base + at
        self._pending_end = (call, self._call_index, stop)
        self._call = None
        self._current_tool = None

    def _unless_repeated(self, call: ToolCall, encoded: str) -> ToolCall:
        """`call`, or, when it repeats the call ended right before it, `call` not executable."""
        signature = (call.name, encoded) if call.executable else None
        repeated = signature is not None and signature == self._last_ended
        self._last_ended = signature
        if not repeated:
            return call
        self.diagnostic("repeated_call", REPEATED_CALL, call_id=call.id, name=call.name[:64])
        return replace(call, incomplete=True, error=REPEATED_CALL)

    def end_block(self) -> None:
        self.outcome = ENDED

    def revert(self, consumed: str, *, rescan: bool) -> None:
        assert self._pending_end is None, "revert() after a call of the block has ended"
        self.outcome = REVERTED
        self.reverted = (consumed, rescan)

    def fail_block(self, raw: str, code: str, message: str, **metadata: Any) -> None:
        self._flush_pending_end()
        if self.keep_failed_markup:
            self.diagnostic(code, message, **metadata)
            self.revert(raw, rescan=False)
            return
        self._failure = (code, message, metadata)
        self.outcome = ENDED

    def text(self, text: str) -> None:
        self._flush_pending_end()  # a call before it in the block ends first
        if self.blank_so_far and not text.isspace():
            self.blank_so_far = False
        self._out.append(TextDelta(text))
        self.attributed += len(text)

    def pass_text(self) -> None:
        self.passing_text = True

    def diagnostic(self, code: str, message: str, **metadata: Any) -> None:
        self._out.append(Diagnostic(code, message, self.protocol_id, metadata))

    def stream_value(
        self,
        text: ValueText,
        *,
        raw: Sequence[list[str]] = (),
        decoded: Sequence[list[str]] = (),
    ) -> ValueRun:
        self.run = run = ValueRun(text, tuple(raw), tuple(decoded))
        return run

    def stop_value(self) -> None:
        self.run = None

    # ------------------------------------------------------------------- for the parser

    @property
    def in_call(self) -> bool:
        return self._call is not None

    def open(self, start: int) -> None:
        """A block's marker begins at absolute offset `start`."""
        self.attributed = start
        self.passing_text = False
        self.outcome = OPEN
        self._failure = None

    def close(self, stop: int) -> None:
        """The block ended (`end_block`/`fail_block`) at absolute offset `stop`: account for it."""
        failure = self._failure
        # Calls are no visible text: after a block that ended in a call the output may still
        # be calls only (a bare call after a `<tool_call>` block stands with it, as before it).
        calls_only = self.blank_so_far and failure is None and self._pending_end is not None
        if failure is not None:
            code, message, metadata = failure
            self._out.append(
                Diagnostic(code, message, self.protocol_id, metadata, stop - self.attributed)
            )
            self.attributed = stop
        elif self._pending_end is not None:
            self._flush_pending_end(stop)
        elif stop > self.attributed:
            self._out.append(
                Diagnostic(
                    "markup_stripped",
                    "protocol markup without a call was removed from the text",
                    self.protocol_id,
                    {},
                    stop - self.attributed,
                )
            )
            self.attributed = stop
        self.leave()
        self.blank_so_far = calls_only

    def leave(self) -> None:
        """The block is over (ended, reverted or overflowed): nothing of it streams any more."""
        self.run = None
        self.char_before_marker = "\n"
        self.blank_so_far = False
        self._call = None
        self._current_tool = None

    def _flush_pending_end(self, block_end: int | None = None) -> None:
        """Send the pending `ToolCallEnd`, accounting input up to its end (or the block's)."""
        if self._pending_end is None:
            return
        call, index, stop = self._pending_end
        self._pending_end = None
        if block_end is not None:
            stop = block_end
        assert stop >= 0, "end_call() without `at` in a block that holds more calls"
        self._out.append(ToolCallEnd(call, index, stop - self.attributed))
        self.attributed = stop

    def overflow(self, reader: BlockReader, at: int, limit: int) -> None:
        """The block outgrew the fragment cap at absolute offset `at`: end it incomplete."""
        self.run = None
        verdict = reader.at_eof()
        if self._call is not None:
            self.end_call(
                verdict.arguments,
                error=f"the call exceeded {limit} characters and was cut off",
            )
        self.diagnostic("fragment_overflow", "a call fragment exceeded the size cap", limit=limit)
        if self._pending_end is not None:
            self._flush_pending_end(at)
        self._current_tool = None

    def settle_at_eof(self, reader: BlockReader, end: int) -> None:
        """Apply R1–R4 to the block the stream ended in, whose input ends at offset `end`."""
        verdict = reader.at_eof()
        ended_call_stop = self._pending_end[2] if self._pending_end is not None else -1
        # A header cut off after its name (R1 fails); a call before it in the block ends at its
        # own end (`begin_call` sends it).
        cut_header = self._call is None and verdict.name is not None
        if (
            cut_header
            and (self._pending_end is None or ended_call_stop >= 0)
            and self.begin_call(verdict.name or "")
        ):
            verdict.recoverable = False
            if verdict.reason == CUT_OFF:
                verdict.reason = "the call was cut off inside its opening marker"
        if self._call is not None:
            if verdict.recoverable:
                self.end_call(verdict.arguments)
            else:
                self.end_call(verdict.arguments, error=verdict.reason)
            self.close(end)
            return
        if self._pending_end is not None:
            if verdict.recoverable or ended_call_stop < 0:
                self.close(end)
                return
            # Cut off after the block's last call, before another call's name was readable.
            self._flush_pending_end()
        retained = end - self.attributed
        self._out.append(
            Diagnostic(
                "truncated_fragment_dropped",
                "the stream ended inside call markup with no readable tool name",
                self.protocol_id,
                {"protocol": self.protocol_id, "retained_length": retained},
                retained,
            )
        )
        self.attributed = end
        self.leave()
