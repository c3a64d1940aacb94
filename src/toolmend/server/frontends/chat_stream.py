"""Reading a chat.completion.chunk stream into the pieces every front-end grammar is built from.

Both front-ends need the same facts from the upstream's chunks: reasoning text (vLLM and
DeepSeek call it `reasoning_content`, newer vLLM and OpenRouter `reasoning`), visible text,
tool calls and their argument fragments, the finish reason, the stop string that matched and
the usage chunk that arrives after the last choice. `ChatStreamReader` turns chunks into
`Piece`s in order. Tool calls are tracked by `index`, never by id (servers repeat or omit ids);
a call opens only once its name is known, with any arguments that came before it, so the
delta that opens a block is never lost; ids are kept when valid and unseen in the
conversation, else minted; names are mapped back to the client's. A whole `chat.completion`
is read as the one chunk `server.answer.completion_as_chunk` makes of it, so the non-streaming
path is the streaming path fed once. A block or item that a native upstream of the client's own
API sent and chat cannot carry (a signed thinking block, a reasoning item with its encrypted
content, a hosted tool's call) rides in the delta under `NATIVE_ITEM_FIELD`, whole, and comes
out as a `native` piece for the front-end to write as it came.

This module never writes any front-end's wire format.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from toolmend.events import Diagnostic
from toolmend.server.frontends.ids import UniqueIds
from toolmend.server.frontends.toolnames import BLANK_NAME, ToolNameMap

#: The delta field a native upstream's own block or item travels in through the chat pipeline
#: (recovery copies deltas with their fields; no chat server sends it).
NATIVE_ITEM_FIELD = "toolmend_native_item"


@dataclass(slots=True)
class ToolCallState:
    """One streamed call: its chat index, the id and client name it got, its arguments so far."""

    index: int
    id: str = ""
    name: str = ""
    arguments: str = ""
    opened: bool = False
    pending: list[str] = field(default_factory=list)


@dataclass(slots=True, frozen=True)
class Piece:
    """One step of the answer: reasoning or text, a call opening, a call's argument text, or a
    native upstream's block or item (`item`) passed on as it came."""

    kind: Literal["reasoning", "text", "call_open", "call_arguments", "native"]
    text: str = ""
    call: ToolCallState | None = None
    item: dict[str, Any] | None = None


class ChatStreamReader:
    """Chunks in, `Piece`s out; keeps the finish reason, matched stop and usage for the end."""

    def __init__(self, names: ToolNameMap, history_ids: Iterable[str], id_prefix: str) -> None:
        self._names = names
        self._ids = UniqueIds(id_prefix, history_ids)
        self.calls: dict[int, ToolCallState] = {}
        self.finish_reason: str | None = None
        self.stop_match: str | None = None
        self.usage: dict[str, Any] | None = None

    @property
    def called(self) -> bool:
        """Whether any tool call was opened."""
        return any(call.opened for call in self.calls.values())

    def feed(self, chunk: Mapping[str, Any]) -> list[Piece]:
        # Chunks are parsed JSON, so `dict` checks suffice (and cost a tenth of `Mapping`'s).
        pieces: list[Piece] = []
        usage = chunk.get("usage")
        if usage is not None and type(usage) is dict:
            self.usage = dict(usage)  # its values are only read, at the end: no deep copy
        for choice in chunk.get("choices") or ():
            if type(choice) is not dict or choice.get("index", 0) != 0:
                continue  # n > 1 is not a front-end feature; the first choice is the answer
            delta = choice.get("delta")
            if type(delta) is dict:
                self._read_delta(delta, pieces)
            finish_reason = choice.get("finish_reason")
            if finish_reason is not None and type(finish_reason) is str:
                self.finish_reason = finish_reason
            stop_reason = choice.get("stop_reason")  # vLLM: the stop string that matched
            if stop_reason is not None and type(stop_reason) is str:
                self.stop_match = stop_reason
        return pieces

    def finish(self) -> list[Piece]:
        """Opens the calls whose name never came (as `BLANK_NAME`), so none is lost."""
        pieces: list[Piece] = []
        for call in self.calls.values():
            if not call.opened:
                call.name = BLANK_NAME
                self._open(call, pieces)
        return pieces

    def _read_delta(self, delta: dict[str, Any], pieces: list[Piece]) -> None:
        reasoning = delta.get("reasoning_content") or delta.get("reasoning")
        if reasoning and type(reasoning) is str:
            pieces.append(Piece("reasoning", reasoning))
        content = delta.get("content")
        if content and type(content) is str:
            pieces.append(Piece("text", content))
        native = delta.get(NATIVE_ITEM_FIELD)
        if native is not None and type(native) is dict:
            pieces.append(Piece("native", item=native))
        calls = delta.get("tool_calls")
        if calls and type(calls) is list:
            for entry in calls:
                if type(entry) is dict:
                    self._read_call(entry, pieces)

    def _index_of(self, entry: Mapping[str, Any]) -> int:
        index = entry.get("index")
        if isinstance(index, int) and not isinstance(index, bool):
            return index
        # No index (some servers omit it): a named fragment starts a call, others continue it.
        function = entry.get("function")
        named = isinstance(function, Mapping) and bool(function.get("name"))
        if named or not self.calls:
            return max(self.calls, default=-1) + 1
        return max(self.calls)

    def _read_call(self, entry: Mapping[str, Any], pieces: list[Piece]) -> None:
        index = self._index_of(entry)
        call = self.calls.get(index)
        if call is None:
            call = self.calls[index] = ToolCallState(index)
        function = entry.get("function")
        function = function if isinstance(function, Mapping) else {}
        arguments = function.get("arguments")
        arguments = arguments if isinstance(arguments, str) else ""
        if call.opened:
            if arguments:
                call.arguments += arguments
                pieces.append(Piece("call_arguments", arguments, call))
            return
        if not call.id and entry.get("id"):
            call.id = str(entry["id"])
        if arguments:
            call.pending.append(arguments)
        name = function.get("name")
        if isinstance(name, str) and name.strip():
            call.name = self._names.to_client(name)
            self._open(call, pieces)

    def _open(self, call: ToolCallState, pieces: list[Piece]) -> None:
        call.id = self._ids.claim(call.id or None)
        call.opened = True
        pieces.append(Piece("call_open", call=call))
        if call.pending:
            text = "".join(call.pending)
            call.pending.clear()
            call.arguments += text
            pieces.append(Piece("call_arguments", text, call))


def plain_text(chunk: Mapping[str, Any]) -> str | None:
    """The text of a chunk that carries nothing but visible text: one choice, choice 0, whose
    delta is only its `content`, with no finish reason, stop string or usage; None for any
    other chunk. Nearly every chunk of an answer is one (the pipeline writes text as
    `{"content": ...}` deltas), and reading one changes nothing in a `ChatStreamReader` but
    yields that text as one `text` piece, so a writer may take the text without the reader.
    It runs once a chunk: the common chunk is read by subscripts (a `get` is a method call),
    the rarer fields only when the choice has more than the pipeline's three."""
    try:
        (choice,) = chunk["choices"]
        delta = choice["delta"]
        text = delta["content"]
    except (KeyError, TypeError, ValueError):
        return None
    if type(text) is not str or not text or type(delta) is not dict or len(delta) != 1:
        return None
    if type(choice) is not dict or ("usage" in chunk and chunk["usage"] is not None):
        return None
    if len(choice) == 3 and "finish_reason" in choice and "index" in choice:
        return text if choice["finish_reason"] is None and choice["index"] == 0 else None
    if (
        choice.get("finish_reason") is not None
        or choice.get("stop_reason") is not None
        or choice.get("index", 0) != 0
    ):
        return None
    return text


def late_fragment(index: int, protocol: str) -> Diagnostic:
    """A call's arguments arrived after another block opened: the grammar cannot take them."""
    return Diagnostic(
        "tool_call_fragment_after_close",
        "arguments of a call arrived after the next block began and could not be sent",
        protocol,
        {"index": index},
    )


def cached_tokens(usage: Mapping[str, Any]) -> int:
    """Prompt tokens served from the upstream's cache (`prompt_tokens_details.cached_tokens`)."""
    details = usage.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, Mapping) else None
    return cached if isinstance(cached, int) else 0
