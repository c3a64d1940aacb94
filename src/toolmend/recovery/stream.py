"""The recovery of one streamed response, sans-IO, and the one terminal path around it.

`StreamRecovery` takes `chat.completion.chunk` dicts (`feed`) and returns the chunks to send on;
`end(how)` is the terminal, run exactly once whatever ends the stream: the source's natural end,
an error chunk or exception from the source (calls complete by then are still delivered, the
turn ending as `tool_calls`, then the error goes on), or an abort (consumer cancellation,
`CancelledError`: every parser is flushed, nothing executable is yielded). `RecoveredStream` and
`AsyncRecoveredStream` (what `recover_stream` and `arecover_stream` return) drive it over a
sync or async source and close the source when the output is closed. Never parses text or
native calls itself (choices and their legs do).
"""

from __future__ import annotations

from collections.abc import (
    AsyncGenerator,
    AsyncIterable,
    AsyncIterator,
    Callable,
    Generator,
    Iterable,
    Iterator,
    Mapping,
)
from typing import Any, TypedDict, Unpack

from toolmend.model import CallIdFactory, ToolmendError, ToolsLike, coerce_tools
from toolmend.recovery.choice import ChoiceRecovery, Terminal
from toolmend.recovery.diagnostics import RecoveryDiagnostic
from toolmend.recovery.emitter import DIAGNOSTICS_FIELD, added_chunk, copy_chunk
from toolmend.recovery.families import (
    ProtocolsArg,
    family_protocols,
    follows_family,
    select_protocols,
)
from toolmend.recovery.native import NativeSettler
from toolmend.recovery.textleg import TextLeg

DiagnosticSink = Callable[[RecoveryDiagnostic], None]


class RecoveryOptions(TypedDict, total=False):
    """The caller's further choices, the same for every entry point.

    `attach_diagnostics`: also put the diagnostics on the chunks (`toolmend_diagnostics`).
    `id_prefix` / `seed`: deterministic ids for recovered calls (as for the parsers).
    """

    attach_diagnostics: bool
    id_prefix: str | None
    seed: int | str | None


class StreamRecovery:
    """Leak recovery over one response's chunks: `feed(chunk) -> chunks`, `end(how) -> chunks`."""

    __slots__ = (
        "_attach",
        "_choices",
        "_ended",
        "_ids",
        "_lane",
        "_last",
        "_model_from_stream",
        "_on_diagnostic",
        "_pending",
        "_prepared",
        "_protocols",
        "_settler",
        "_tools",
        "lane_chunk",
    )

    def __init__(
        self,
        tools: ToolsLike = None,
        model: str | None = None,
        protocols: ProtocolsArg = "auto",
        on_diagnostic: DiagnosticSink | None = None,
        **options: Unpack[RecoveryOptions],
    ) -> None:
        self._tools = coerce_tools(tools)
        self._protocols = select_protocols(protocols, model)
        #: No model named and the family's default asked for: the stream's own `model` decides.
        self._model_from_stream = model is None and follows_family(protocols)
        self._on_diagnostic = on_diagnostic
        self._attach = options.get("attach_diagnostics", False)
        self._ids = CallIdFactory(options.get("id_prefix"), options.get("seed"))
        self._settler = NativeSettler(self._tools, lambda: self._new_id(set()))
        self._choices: dict[int, ChoiceRecovery] = {}
        #: The stream's one choice while it has only one and has not ended: `send_on`'s
        #: common case (any other chunk takes the general path).
        self._lane: ChoiceRecovery | None = None
        self._pending: list[RecoveryDiagnostic] = []
        self._last: Mapping[str, Any] = {}
        self._ended = False
        #: The first choice's text leg, built by `prepare` before its first chunk came.
        self._prepared: TextLeg | None = None
        #: The chunk `send_on` last made on the common case's path, whole: its one choice,
        #: the lane's, has a delta of its `content` alone and no finish reason (a consumer
        #: that asks what a chunk carries may start from that, when the chunk `is` this one).
        self.lane_chunk: dict[str, Any] | None = None

    @property
    def protocols(self) -> tuple[str, ...]:
        """The protocol ids the visible text is scanned with."""
        return self._protocols

    def prepare(self) -> None:
        """Build now the parsers the stream's first choice (index 0) builds at its first text,
        the largest cost of a stream's first chunk (about 0.4 M instructions under `auto`), so a
        caller that waits for the upstream anyway (the proxy, while the model prefills) takes
        them off the first chunk's path. Nothing else changes: the choice begins with its first
        chunk, as without this. A stream whose formats its own `model` decides (no model named,
        the family's default asked for) cannot know them yet, so nothing is built for it."""
        if self._prepared is None and not self._model_from_stream and not self._choices:
            self._prepared = TextLeg(self._protocols, self._tools)

    # ---------------------------------------------------------------------------- feeding

    def feed(self, chunk: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The chunks to send on for one upstream chunk (usually one).

        A chunk is a dict; an object with `model_dump()` (the `openai` client's
        `ChatCompletionChunk`) is read as the dict it dumps to.
        """
        out = self.send_on(chunk)
        return [out] if isinstance(out, dict) else out

    def send_on(self, chunk: Mapping[str, Any]) -> dict[str, Any] | list[dict[str, Any]]:
        """`feed`, with the one chunk of the common case not wrapped in a list (what the
        stream drivers call, once per chunk)."""
        lane = self._lane
        if lane is not None and type(chunk) is dict:
            # The common case, once per chunk: the stream's one choice, text alone.
            out = lane.take_chunk(chunk)
            if out is not None:
                self._last = chunk
                if isinstance(out, dict):
                    self.lane_chunk = out
                    return self._with_diagnostics(out) if self._pending else out
                return self._send_segments(chunk, [out])
        return self._send_on_any(chunk)

    def _send_on_any(self, chunk: Mapping[str, Any]) -> dict[str, Any] | list[dict[str, Any]]:
        """`send_on` for every chunk the common case does not cover."""
        if self._ended:
            raise ToolmendError("this stream's recovery has ended; feed() after end()")
        if type(chunk) is not dict:
            if not isinstance(chunk, Mapping):
                dump = getattr(chunk, "model_dump", None)  # an `openai` client's chunk object
                if callable(dump):
                    return self.send_on(dump())
                raise ToolmendError(
                    f"a chunk is a chat.completion.chunk dict, got {type(chunk).__name__}"
                )
            chunk = dict(chunk)
        self._last = chunk
        if self._model_from_stream and not self._choices:
            self._read_model(chunk)
        choices = chunk.get("choices")
        if type(choices) is not list or not choices:
            if chunk.get("error") is not None:
                # An error reported in the stream: the turn ends here, then the error goes on.
                return [*self._terminal(Terminal.ERROR), self._with_diagnostics(copy_chunk(chunk))]
            return self._with_diagnostics(copy_chunk(chunk))
        if len(choices) == 1:  # the common chunk: `_send_segments` of one choice, one out
            outs = self._take(0, choices[0])
            if len(outs) == 1:
                last = copy_chunk(chunk)
                last["choices"] = [outs[0]]
                return [self._with_diagnostics(last)]
            return self._send_segments(chunk, [outs])
        return self._send_segments(
            chunk, [self._take(position, choice) for position, choice in enumerate(choices)]
        )

    def _send_segments(
        self, chunk: Mapping[str, Any], per_choice: list[list[Any]]
    ) -> list[dict[str, Any]]:
        """The chunks for one upstream chunk whose choices each gave `outs` (split-off
        segments, then the choice's copy): segments first, in chunks toolmend adds; the copy of
        the chunk comes last."""
        last = copy_chunk(chunk)
        last["choices"] = [outs[-1] for outs in per_choice]
        out: list[dict[str, Any]] = []
        for level in range(max(len(outs) for outs in per_choice) - 1):
            added = [outs[level] for outs in per_choice if len(outs) - 1 > level]
            out.append(added_chunk(chunk, added))
        out.append(self._with_diagnostics(last))
        return out

    def end(self, how: Terminal = Terminal.END) -> list[dict[str, Any]]:
        """The terminal, exactly once: flush every choice; the chunks still to deliver."""
        if self._ended:
            return []
        out = self._terminal(how)
        self._ended = True
        self._lane = None
        if how is Terminal.ABORT:
            self._pending.clear()
            return []
        return out

    # ---------------------------------------------------------------------------- internals

    def _take(self, position: int, choice: object) -> list[Any]:
        if type(choice) is not dict:
            if not isinstance(choice, Mapping):
                return [choice]
            choice = dict(choice)
        index = choice.get("index", position)
        state = self._choices.get(index) if type(index) is int else None
        if state is None:
            state = self._choice(index if isinstance(index, int) else position)
        taken = state.take(choice)
        return [taken] if isinstance(taken, dict) else taken

    def _read_model(self, chunk: Mapping[str, Any]) -> None:
        model = chunk.get("model")
        if isinstance(model, str) and model:
            self._protocols = family_protocols(model)
            self._model_from_stream = False

    def _choice(self, index: int) -> ChoiceRecovery:
        state = self._choices.get(index)
        if state is None:
            leg, self._prepared = (self._prepared, None) if index == 0 else (None, self._prepared)
            state = ChoiceRecovery(
                index,
                self._protocols,
                self._tools,
                self._settler,
                self._new_id,
                self._report,
                leg=leg,
            )
            self._lane = None if self._choices else state
            self._choices[index] = state
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
    **options: Unpack[RecoveryOptions],
) -> RecoveredStream:
    """Recover leaked tool calls from a stream of `chat.completion.chunk` dicts.

    Arguments are checked now (an unknown protocol or bad tools raise before any chunk is read);
    the returned iterator yields chunks of the same shape. `protocols="auto"` uses the model
    family's formats. Options: `RecoveryOptions`.
    """
    recovery = StreamRecovery(tools, model, protocols, on_diagnostic, **options)
    return RecoveredStream(recovery, chunks)


def arecover_stream(
    chunks: AsyncIterable[Mapping[str, Any]],
    tools: ToolsLike = None,
    model: str | None = None,
    protocols: ProtocolsArg = "auto",
    on_diagnostic: DiagnosticSink | None = None,
    **options: Unpack[RecoveryOptions],
) -> AsyncRecoveredStream:
    """`recover_stream` over an async source (the `openai` client's `AsyncStream`, say)."""
    recovery = StreamRecovery(tools, model, protocols, on_diagnostic, **options)
    return AsyncRecoveredStream(recovery, chunks)


def _closers(names: str, *objects: object) -> list[Callable[[], Any]]:
    """The distinct `close` / `aclose` methods of the source and its iterator (an `openai`
    `Stream` closes its HTTP response in its own `close`, not in its iterator's)."""
    found: list[Callable[[], Any]] = []
    seen: set[int] = set()
    for obj in objects:
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        method = getattr(obj, names, None)
        if callable(method):
            found.append(method)
    return found


class RecoveredStream(Iterator[dict[str, Any]]):
    """What `recover_stream` returns: the recovered chunks, one terminal path around them.

    The terminal runs exactly once: at the source's end; on an exception from the source (the
    calls complete by then are delivered, the turn ending as `tool_calls`, then the exception
    is raised again); or on `close()` and other aborts (every parser is flushed, nothing
    executable is yielded). `close()`, also before the first chunk, closes the source.
    """

    __slots__ = ("_closers", "_gen", "_recovery", "_started")

    def __init__(self, recovery: StreamRecovery, chunks: Iterable[Mapping[str, Any]]) -> None:
        source = iter(chunks)
        self._recovery = recovery
        self._closers = _closers("close", source, chunks)
        self._gen = self._drive(source)
        self._started = False

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return self._gen  # a `for` loop runs the generator itself: no call per chunk here

    def __next__(self) -> dict[str, Any]:
        return next(self._gen)

    def close(self) -> None:
        """Stop: flush every parser (nothing more is yielded) and close the source."""
        self._gen.close()
        if not self._started:  # a generator never started runs no `finally`
            self._finish()

    def __enter__(self) -> RecoveredStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _drive(self, source: Iterator[Mapping[str, Any]]) -> Generator[dict[str, Any], None, None]:
        self._started = True
        recovery = self._recovery
        send_on = recovery.send_on
        ended = False
        try:
            for chunk in source:
                out = send_on(chunk)
                if isinstance(out, dict):
                    yield out
                else:
                    yield from out
            ended = True
            yield from recovery.end(Terminal.END)
        except Exception:
            if not ended:  # the source (or a chunk) failed, not the consumer
                ended = True
                yield from recovery.end(Terminal.ERROR)
            raise
        finally:
            self._finish()

    def _finish(self) -> None:
        self._recovery.end(Terminal.ABORT)  # a no-op after a terminal
        closers, self._closers = self._closers, []
        for close in closers:
            close()


class AsyncRecoveredStream(AsyncIterator[dict[str, Any]]):
    """What `arecover_stream` returns: `RecoveredStream`'s terminal path, awaited.

    A consumer that reshapes every recovered chunk may pass `shape` (a chunk to the chunk to
    yield, None to yield nothing) and `after_failure` (the chunks to yield after a failure's
    terminal chunks, before the exception goes on): both run in this stream's own loop, so
    reshaping costs no generator of its own, one more `async for` level per chunk.
    """

    __slots__ = ("_after_failure", "_closers", "_gen", "_recovery", "_shape", "_started")

    def __init__(
        self,
        recovery: StreamRecovery,
        chunks: AsyncIterable[Mapping[str, Any]],
        *,
        shape: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None,
        after_failure: Callable[[], list[dict[str, Any]]] | None = None,
    ) -> None:
        source = aiter(chunks)
        self._recovery = recovery
        self._closers = _closers("aclose", source, chunks) + _closers("close", chunks)
        self._shape = shape
        self._after_failure = after_failure
        self._gen = self._drive(source)
        self._started = False

    def __aiter__(self) -> AsyncIterator[dict[str, Any]]:
        return self._gen

    async def __anext__(self) -> dict[str, Any]:
        return await anext(self._gen)

    async def aclose(self) -> None:
        """Stop: flush every parser (nothing more is yielded) and close the source."""
        await self._gen.aclose()
        if not self._started:
            await self._finish()

    async def __aenter__(self) -> AsyncRecoveredStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def _drive(
        self, source: AsyncIterator[Mapping[str, Any]]
    ) -> AsyncGenerator[dict[str, Any], None]:
        self._started = True
        recovery = self._recovery
        send_on = recovery.send_on
        shape = self._shape
        ended = False
        try:
            async for chunk in source:
                out = send_on(chunk)
                if shape is not None:
                    for one in (out,) if isinstance(out, dict) else out:
                        shaped = shape(one)
                        if shaped is not None:
                            yield shaped
                elif isinstance(out, dict):
                    yield out
                else:
                    for one in out:
                        yield one
            ended = True
            for out in recovery.end(Terminal.END):
                shaped = out if shape is None else shape(out)
                if shaped is not None:
                    yield shaped
        except Exception:
            if not ended:
                ended = True
                for out in recovery.end(Terminal.ERROR):
                    shaped = out if shape is None else shape(out)
                    if shaped is not None:
                        yield shaped
            if self._after_failure is not None:
                for out in self._after_failure():
                    yield out
            raise
        finally:
            await self._finish()

    async def _finish(self) -> None:
        self._recovery.end(Terminal.ABORT)
        closers, self._closers = self._closers, []
        for close in closers:
            result = close()
            if hasattr(result, "__await__"):
                await result
