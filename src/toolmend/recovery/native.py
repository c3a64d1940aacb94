"""Native tool calls: fragments reassembled per call, then resolved, gated and split.

Owns the reading of `delta.tool_calls` fragments (OpenAI streams a call's `id`, `name` and
`arguments` in pieces keyed by `index`), the rules for fragments that break that order, and the
settling of one complete call: its name through the `ToolResolver` (`Todo`, `mcp_49f0-Todo`
map back to the declared name), its arguments through the `SchemaGate` (validated repairs), and
several JSON objects glued into one arguments string split into separate calls when each
validates on its own. A call that cannot be made valid comes back flagged (`incomplete` or
`error`), never dropped. Fields of a fragment that toolmend does not own are kept for the
emitted call.

Never: emits chunks, assigns wire indices or decides the order of calls (the stream does),
reads visible text.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from toolmend.guard.patterns import Flag
from toolmend.guard.preflight import parse_arguments
from toolmend.model import Tool, ToolCall
from toolmend.names import ToolResolver
from toolmend.recovery import diagnostics as codes
from toolmend.recovery.diagnostics import (
    REJECTION_REASONS,
    RecoveryDiagnostic,
    diagnostic,
    guard_signal,
)
from toolmend.schema_gate import Policy, SchemaGate

#: Keys of a `tool_calls` entry and of its `function` that toolmend owns; every other key is
#: the vendor's and passes through to the emitted call.
OWNED_CALL_KEYS = frozenset({"index", "id", "type", "function"})
OWNED_FUNCTION_KEYS = frozenset({"name", "arguments"})
#: The arguments a native call's text may hold before it is refused: it bounds the memory one
#: runaway call can take (the same 1 MiB bound the text parsers keep per call).
MAX_NATIVE_ARGUMENTS = 1024 * 1024


@dataclass(slots=True)
class SettledCall:
    """A call ready to be emitted or flagged: the canonical call and what rides with it.

    `call.id` is the upstream id for a native call (one is made when it sent none); a recovered
    call gets its wire id when it is emitted. `extras` / `function_extras` are the vendor fields
    of the native entry. `native` tells where it came from.
    """

    call: ToolCall
    protocol: str | None
    native: bool
    extras: dict[str, Any] = field(default_factory=dict)
    function_extras: dict[str, Any] = field(default_factory=dict)
    #: A call of a type toolmend does not read: its fragments, emitted as they came.
    fragments: list[dict[str, Any]] | None = None
    #: A flagged native call's arguments as the model wrote them, so the caller can say what
    #: was wrong with them (a `cwd` object reads as a missing `command` without them).
    written_arguments: str | None = None


#: Settled calls (several when glued JSON was split) and the diagnostics of settling them.
Settlement = tuple[list[SettledCall], list[RecoveryDiagnostic]]


@dataclass(slots=True)
class NativeCall:
    """One native call being reassembled from its fragments."""

    index: int
    id: str = ""
    name_parts: list[str] = field(default_factory=list)
    argument_parts: list[str] = field(default_factory=list)
    argument_length: int = 0
    extras: dict[str, Any] = field(default_factory=dict)
    function_extras: dict[str, Any] = field(default_factory=dict)
    #: A later call began: this one is complete (the wire never returns to it).
    closed: bool = False
    #: Why this call cannot be read any more (a `REJECTION_REASONS` key), or None.
    broken: str | None = None
    #: The fragments as they came, for a call of a type toolmend does not read (`custom`).
    opaque: list[dict[str, Any]] | None = None

    def add_arguments(self, arguments: str) -> None:
        """Take a piece of the arguments' text (past `MAX_NATIVE_ARGUMENTS` the call is
        broken as too large and nothing of them is kept)."""
        self.argument_length += len(arguments)
        if self.argument_length > MAX_NATIVE_ARGUMENTS:
            self.broken = "too_large"
            self.argument_parts.clear()
        elif self.broken is None:
            self.argument_parts.append(arguments)


class NativeAssembler:
    """Reassembles one choice's native calls; `add(entry)` returns a call when one begins."""

    __slots__ = ("calls", "order_diagnostics")

    def __init__(self) -> None:
        self.calls: list[NativeCall] = []
        self.order_diagnostics: list[RecoveryDiagnostic] = []

    @property
    def open_call(self) -> NativeCall | None:
        return self.calls[-1] if self.calls else None

    def add(self, entry: object) -> NativeCall | None:
        """Take one `delta.tool_calls` entry; the new `NativeCall` if it starts one."""
        calls = self.calls
        if calls and type(entry) is dict and len(entry) == 2:
            # The common fragment, once per chunk of a streamed call: the open call's index
            # and a piece of its arguments, nothing else (what the general path below makes
            # of it, without its look-ups).
            function = entry.get("function")
            last = calls[-1]
            if (
                type(function) is dict
                and len(function) == 1
                and last.opaque is None
                and entry.get("index") == last.index
            ):
                arguments = function.get("arguments")
                if type(arguments) is str and arguments:
                    last.add_arguments(arguments)
                    return None
        if not isinstance(entry, Mapping):
            self.order_diagnostics.append(
                diagnostic(codes.NATIVE_ORDER, message="a tool_calls entry is not an object")
            )
            return None
        current = self.open_call
        index = entry.get("index")
        if not isinstance(index, int) or isinstance(index, bool):
            index = current.index if current is not None else 0
        entry_id = entry.get("id")
        entry_id = entry_id if isinstance(entry_id, str) else ""
        started: NativeCall | None = None
        target = self._target(index, entry_id)
        if target is None:
            if current is not None:
                current.closed = True
            target = started = NativeCall(index=index, id=entry_id)
            kind = entry.get("type")
            if isinstance(kind, str) and kind != "function" and "function" not in entry:
                target.opaque = []
            self.calls.append(target)
        elif entry_id and not target.id:
            target.id = entry_id
        self._absorb(target, entry)
        return started

    def _target(self, index: int, entry_id: str) -> NativeCall | None:
        """The call this fragment continues, or None when it begins a new one."""
        current = self.open_call
        if current is not None and current.index == index:
            # A new id at the same index, after a name: a server that reuses index 0 for every
            # call (seen behind some OpenAI-compatible gateways) begins another call.
            if entry_id and current.id and entry_id != current.id and current.name_parts:
                return None
            return current
        earlier = next((c for c in self.calls if c.index == index), None)
        if earlier is not None:
            # The wire went back to a call it had left: no reading of this is safe.
            earlier.broken = "out_of_order"
            self.order_diagnostics.append(
                diagnostic(
                    codes.NATIVE_ORDER,
                    call_id=earlier.id or None,
                    message="native tool-call fragments arrived out of order",
                    index=index,
                )
            )
            return earlier
        return None

    @staticmethod
    def _absorb(call: NativeCall, entry: Mapping[str, Any]) -> None:
        if call.opaque is not None:
            call.opaque.append(dict(entry))
            return
        for key, value in entry.items():
            if key not in OWNED_CALL_KEYS:
                call.extras.setdefault(key, value)
        function = entry.get("function")
        if not isinstance(function, Mapping):
            return
        for key, value in function.items():
            if key not in OWNED_FUNCTION_KEYS:
                call.function_extras.setdefault(key, value)
        name = function.get("name")
        if isinstance(name, str) and name:
            call.name_parts.append(name)
        arguments = function.get("arguments")
        if isinstance(arguments, Mapping):  # a server that sends the object itself
            arguments = json.dumps(arguments, ensure_ascii=False)
        if isinstance(arguments, str) and arguments:
            call.add_arguments(arguments)


class NativeSettler:
    """Settles complete native calls against the tools: resolve, gate, split or flag."""

    __slots__ = ("_gates", "_new_id", "resolver")

    def __init__(self, tools: list[Tool] | None, new_id: Callable[[], str]) -> None:
        self.resolver = ToolResolver(tools)
        self._gates: dict[str, SchemaGate] = {}
        self._new_id = new_id

    def _gate(self, tool: Tool) -> SchemaGate:
        gate = self._gates.get(tool.name)
        if gate is None:
            gate = self._gates[tool.name] = SchemaGate(tool, Policy.LENIENT)
        return gate

    def settle(self, native: NativeCall, cut_reason: str | None = None) -> Settlement:
        """One reassembled call as settled calls (several when split) and its diagnostics.

        `cut_reason` says the call never completed (the stream ended by an error or abort).
        """
        if native.opaque is not None:
            # Not a function call: toolmend owns none of it and passes it on as it came.
            call = ToolCall(id=native.id, name="")
            return [SettledCall(call, None, native=True, fragments=native.opaque)], []
        if not native.id:
            native.id = self._new_id()
        written = "".join(native.name_parts)
        raw = "".join(native.argument_parts)
        diags: list[RecoveryDiagnostic] = []
        tool = self.resolver.resolve(written) if written else None
        name = tool.name if tool is not None else written

        def flagged(reason: str, error: str | None = None, **detail: Any) -> Settlement:
            """The call flagged: `error` (for the caller; it may quote the model) and a
            diagnostic that gives only the reason."""
            error = error or REJECTION_REASONS[reason]
            call = ToolCall(id=native.id, name=name, incomplete=True, error=error)
            diags.append(codes.rejection(reason, tool=name or None, call_id=native.id, **detail))
            settled = self._settled(native, call)
            settled.written_arguments = raw
            return [settled], diags

        if cut_reason is not None:
            return flagged("cut_off", cut_reason, **guard_signal(str(Flag.TRUNCATED_JSON)))
        if native.broken is not None:
            return flagged(native.broken)
        if tool is None:
            reason = "unknown_tool"
            if not written:
                reason = "nameless"
            elif self.resolver.is_ambiguous(written):
                reason = "ambiguous_tool"
            return flagged(reason, **guard_signal(str(Flag.UNKNOWN_TOOL)))
        if tool.name != written:
            diags.append(
                diagnostic(
                    codes.NATIVE_NAME_RESOLVED,
                    tool=tool.name,
                    call_id=native.id,
                    message="a disguised tool name was mapped to the declared tool",
                )
            )
        _, finding = parse_arguments(raw)
        if finding is not None and finding.flag is Flag.TRUNCATED_JSON:
            # Cut-off JSON is never completed by repair: the rest of what the model meant
            # (a file's content, say) is unknown.
            return flagged("truncated_json", **guard_signal(str(finding.flag)))
        gate = self._gate(tool)
        decoded = gate.decode_json_object(raw)
        if not decoded.ok:
            flag = finding.flag if finding is not None else Flag.INVALID_JSON
            reason = "concatenated_json" if flag is Flag.CONCATENATED_JSON else "invalid_json"
            return flagged(reason, decoded.error, **guard_signal(str(flag)))
        checked = [gate.check(obj) for obj in decoded.objects]
        if len(checked) > 1:
            invalid = [r for r in checked if not r.valid]
            if invalid:
                return flagged(
                    "concatenated_json",
                    f"{len(checked)} JSON objects glued into one call; one of them: "
                    f"{invalid[0].error}",
                    count=len(checked),
                    **guard_signal(str(Flag.CONCATENATED_JSON)),
                )
            diags.append(
                diagnostic(
                    codes.CONCATENATED_SPLIT,
                    tool=tool.name,
                    call_id=native.id or None,
                    message="JSON objects glued into one call's arguments became separate calls",
                    count=len(checked),
                )
            )
        result = checked[0]
        if not result.valid:
            return flagged("invalid_arguments", result.error)
        settled: list[SettledCall] = []
        for position, one in enumerate(checked):
            repairs = [*decoded.repairs, *one.repairs]
            call_id = native.id if position == 0 else self._new_id()
            call = ToolCall(id=call_id, name=tool.name, arguments=one.arguments, repairs=repairs)
            if repairs:
                diags.append(
                    diagnostic(
                        codes.ARGUMENTS_REPAIRED,
                        tool=tool.name,
                        call_id=call_id or None,
                        message="the arguments were repaired and then validated",
                        repairs=list(repairs),
                    )
                )
            settled.append(self._settled(native, call))
        return settled, diags

    @staticmethod
    def _settled(native: NativeCall, call: ToolCall) -> SettledCall:
        return SettledCall(
            call,
            None,
            native=True,
            extras=dict(native.extras),
            function_extras=dict(native.function_extras),
        )
