"""The recovery of one streamed response, sans-IO, and the one terminal path around it.

`StreamRecovery` takes `chat.completion.chunk` dicts (`feed`) and returns the chunks to send on;
`end(how)` is the terminal, run exactly once whatever ends the stream: the source's natural end,
an error chunk or exception from the source (calls complete by then are still delivered, the
turn ending as `tool_calls`, then the error goes on), or an abort (consumer cancellation,
`CancelledError`: every parser is flushed, nothing executable is yielded). `recover_stream` and
`arecover_stream` drive it over a sync or async source and close the source when the output is
closed. Never parses text or native calls itself (choices and their legs do).
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator, Mapping
from typing import Any

from toolmend.model import CallIdFactory, ToolmendError, ToolsLike, coerce_tools
from toolmend.recovery.choice import ChoiceRecovery, Terminal
from toolmend.recovery.diagnostics import RecoveryDiagnostic
from toolmend.recovery.emitter import DIAGNOSTICS_FIELD, added_chunk, copy_chunk
from toolmend.recovery.families import ProtocolsArg, select_protocols
from toolmend.recovery.native import NativeSettler

DiagnosticSink = Callable[[RecoveryDiagnostic], None]


class StreamRecovery:
    """Leak recovery over one response's chunks: `feed(chunk) -> chunks`, `end(how) -> chunks`."""

    __slots__ = (
        "_attach",
        "_choices",
        "_ended",
        "_ids",
        "_last",
        "_on_diagnostic",
        "_pending",
        "_protocols",
        "_settler",
        "_tools",
    )

    def __init__(
        self,
        tools: ToolsLike = None,
        model: str | None = None,
        protocols: ProtocolsArg = "auto",
        on_diagnostic: DiagnosticSink | None = None,
        *,
        attach_diagnostics: bool = False,
        id_prefix: str | None = None,
        seed: int | str | None = None,
    ) -> None:
        self._tools = coerce_tools(tools)
        self._protocols = select_protocols(protocols, model)
        self._on_diagnostic = on_diagnostic
        self._attach = attach_diagnostics
        self._ids = CallIdFactory(id_prefix, seed)
        self._settler = NativeSettler(self._tools, lambda: self._new_id(set()))
        self._choices: dict[int, ChoiceRecovery] = {}
        self._pending: list[RecoveryDiagnostic] = []
        self._last: Mapping[str, Any] = {}
        self._ended = False

    @property
    def protocols(self) -> tuple[str, ...]:
        """The protocol ids the visible text is scanned with."""
        return self._protocols

    # ---------------------------------------------------------------------------- feeding

    def feed(self, chunk: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The chunks to send on for one upstream chunk (usually one)."""
        if self._ended:
            raise ToolmendError("this stream's recovery has ended; feed() after end()")
        if not isinstance(chunk, Mapping):
            raise ToolmendError(
                f"a chunk is a chat.completion.chunk dict, got {type(chunk).__name__}"
            )
        self._last = chunk
        choices = chunk.get("choices")
        if not isinstance(choices, list) or not choices:
            if chunk.get("error") is not None:
                # An error reported in the stream: the turn ends here, then the error goes on.
                return [*self._terminal(Terminal.ERROR), self._with_diagnostics(copy_chunk(chunk))]
            return [self._with_diagnostics(copy_chunk(chunk))]
        per_choice = [self._take(position, choice) for position, choice in enumerate(choices)]
        depth = max(len(outs) for outs in per_choice)
        out: list[dict[str, Any]] = []
        # Split-off segments go first, in chunks toolmend adds; the copy of the chunk comes last.
        for level in range(depth - 1):
            added = [outs[level] for outs in per_choice if len(outs) - 1 > level]
            out.append(added_chunk(chunk, added))
        last = copy_chunk(chunk)
        last["choices"] = [outs[-1] for outs in per_choice]
        out.append(self._with_diagnostics(last))
        return out

    def end(self, how: Terminal = Terminal.END) -> list[dict[str, Any]]:
        """The terminal, exactly once: flush every choice; the chunks still to deliver."""
        if self._ended:
            return []
        out = self._terminal(how)
        self._ended = True
        if how is Terminal.ABORT:
            self._pending.clear()
            return []
        return out

    # ---------------------------------------------------------------------------- internals

    def _take(self, position: int, choice: object) -> list[Any]:
        if not isinstance(choice, Mapping):
            return [choice]
        index = choice.get("index", position)
        key = index if isinstance(index, int) else position
        return self._choice(key).take(choice)

    def _choice(self, index: int) -> ChoiceRecovery:
        state = self._choices.get(index)
        if state is None:
            state = self._choices[index] = ChoiceRecovery(
                index, self._protocols, self._tools, self._settler, self._new_id, self._report
            )
        return state

    def _terminal(self, how: Terminal) -> list[dict[str, Any]]:
        ended = [state.end(how) for state in self._choices.values()]
        choices = [c for c in ended if c is not None]
        if not choices:
            return []
        return [self._with_diagnostics(added_chunk(self._last, choices))]

    def _new_id(self, taken: set[str]) -> str:
        while True:
            candidate = self._ids.next_id()
            if candidate not in taken:
                return candidate

    def _report(self, item: RecoveryDiagnostic) -> None:
        if self._on_diagnostic is not None:
            self._on_diagnostic(item)
        if self._attach:
            self._pending.append(item)

    def _with_diagnostics(self, chunk: dict[str, Any]) -> dict[str, Any]:
        if self._pending:
            chunk[DIAGNOSTICS_FIELD] = self._pending
            self._pending = []
        return chunk


def recover_stream(
    chunks: Iterable[Mapping[str, Any]],
    tools: ToolsLike = None,
    model: str | None = None,
    protocols: ProtocolsArg = "auto",
    on_diagnostic: DiagnosticSink | None = None,
    *,
    attach_diagnostics: bool = False,
    id_prefix: str | None = None,
    seed: int | str | None = None,
) -> Iterator[dict[str, Any]]:
    """Recover leaked tool calls from a stream of `chat.completion.chunk` dicts.

    Arguments are checked now (an unknown protocol or bad tools raise before any chunk is read);
    the returned iterator yields chunks of the same shape. `protocols="auto"` uses the model
    family's formats; `attach_diagnostics` adds them to the chunks as `toolmend_diagnostics`;
    `id_prefix` / `seed` make recovered call ids deterministic.
    """
    recovery = StreamRecovery(
        tools,
        model,
        protocols,
        on_diagnostic,
        attach_diagnostics=attach_diagnostics,
        id_prefix=id_prefix,
        seed=seed,
    )
    return _drive(recovery, iter(chunks))


def _drive(
    recovery: StreamRecovery, source: Iterator[Mapping[str, Any]]
) -> Iterator[dict[str, Any]]:
    how = Terminal.ABORT
    try:
        for chunk in source:
            yield from recovery.feed(chunk)
        how = Terminal.END
        yield from recovery.end(Terminal.END)
    except Exception:
        if how is Terminal.ABORT:  # the source (or a chunk) failed, not the consumer
            how = Terminal.ERROR
            yield from recovery.end(Terminal.ERROR)
        raise
    finally:
        recovery.end(Terminal.ABORT)  # a no-op after a terminal; flushes after cancellation
        close = getattr(source, "close", None)
        if callable(close):
            close()


def arecover_stream(
    chunks: AsyncIterable[Mapping[str, Any]],
    tools: ToolsLike = None,
    model: str | None = None,
    protocols: ProtocolsArg = "auto",
    on_diagnostic: DiagnosticSink | None = None,
    *,
    attach_diagnostics: bool = False,
    id_prefix: str | None = None,
    seed: int | str | None = None,
) -> AsyncIterator[dict[str, Any]]:
    """`recover_stream` over an async source (the `openai` client's `AsyncStream`, say)."""
    recovery = StreamRecovery(
        tools,
        model,
        protocols,
        on_diagnostic,
        attach_diagnostics=attach_diagnostics,
        id_prefix=id_prefix,
        seed=seed,
    )
    return _adrive(recovery, aiter(chunks))


async def _adrive(
    recovery: StreamRecovery, source: AsyncIterator[Mapping[str, Any]]
) -> AsyncIterator[dict[str, Any]]:
    how = Terminal.ABORT
    try:
        async for chunk in source:
            for out in recovery.feed(chunk):
                yield out
        how = Terminal.END
        for out in recovery.end(Terminal.END):
            yield out
    except Exception:
        if how is Terminal.ABORT:
            how = Terminal.ERROR
            for out in recovery.end(Terminal.ERROR):
                yield out
        raise
    finally:
        recovery.end(Terminal.ABORT)
        aclose = getattr(source, "aclose", None)
        if callable(aclose):
            await aclose()
