"""Argument deltas: a call's canonical arguments JSON, emitted only where it is already final.

Clients render a call's arguments while they stream (a file being written, a command being
typed), so a parser emits `ToolCallDelta`s before the call closes. Those deltas must never be
taken back: their concatenation is always a prefix of the final `canonical_json(arguments)`.

`ArgumentStream` keeps that promise by emitting a key only while everything before it is final:
the key is exactly declared by the schema, seen for the first time, and its value is one the
schema gate will keep as it is (`SchemaGate.value_as_is` / `streams_string_as_is`). The first pair
that fails this halts incremental output; the rest is emitted when the call ends. It never decides
validity and never alters arguments.
"""

from __future__ import annotations

import json
from typing import Any

from toolmend.events import Event, ToolCallDelta
from toolmend.jsontext import normalize_text
from toolmend.model import canonical_json
from toolmend.schema_gate import SchemaGate

_encode_string = json.encoder.encode_basestring  # the C encoder json.dumps uses (no ASCII escapes)


def json_string_text(text: str) -> str:
    """`text` as the inside of its canonical JSON string (`canonical_json`'s encoding).

    Most chunks are printable ASCII with no quote or backslash, their own encoding: C string
    methods find that before the encoder runs.
    """
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return text
    return _encode_string(text if text.isascii() else normalize_text(text))[1:-1]


def is_canonical_json_string(raw: str) -> bool:
    """Whether `raw`, the inside of a JSON string as a model wrote it (its escapes complete
    and valid), is already `json_string_text` of what it decodes to: printable ASCII whose
    escapes are the encoder's own (no `\\u`, no escaped `/`). A long value written by a
    JSON encoder is, and its delta then needs no second encoding."""
    return raw.isascii() and raw.isprintable() and "\\u" not in raw and "\\/" not in raw


class ArgumentStream:
    """Builds the streamed prefix of one call's arguments JSON; see the module docstring."""

    __slots__ = ("_gate", "_halted", "_keys", "_out", "call_id", "in_string", "index", "pieces")

    def __init__(
        self,
        gate: SchemaGate,
        out: list[Event],
        call_id: str,
        index: int,
        *,
        incremental: bool = True,
    ) -> None:
        self._gate = gate
        self._out = out  # the parser's event list: deltas are appended in stream order
        self.call_id = call_id
        self.index = index
        #: The streamed deltas so far. Public, like `in_string` (a string value's text streams
        #: now), for the parser's per-delta hot path, which appends to it directly.
        self.pieces: list[str] = []
        self._keys: set[str] = set()
        self._halted = not incremental
        self.in_string = False

    @property
    def sent(self) -> str:
        return "".join(self.pieces)

    def _push(self, text: str) -> None:
        self.pieces.append(text)
        self._out.append(ToolCallDelta(self.call_id, self.index, text))

    def _open_pair(self, key: str) -> None:
        lead = "{" if not self._keys else ", "
        self._keys.add(key)
        self._push(f"{lead}{_encode_string(key)}: ")

    def _streamable_key(self, key: str) -> bool:
        return not self._halted and key not in self._keys and self._gate.declares(key)

    def open_string(self, key: str) -> bool:
        """A string value for `key` begins. Returns True when its chunks will be streamed."""
        if self._streamable_key(key) and self._gate.streams_string_as_is(key):
            self._open_pair(key)
            self._push('"')
            self.in_string = True
            return True
        self._halted = True
        return False

    def string_chunk(self, text: str, *, encoded: str | None = None) -> None:
        """More of the string value opened by `open_string` (only call when it returned True).

        `encoded` is `json_string_text(text)` when the caller has it already (JSON source that
        `is_canonical_json_string`)."""
        if encoded is not None and self.in_string and encoded:
            self.pieces.append(encoded)
            self._out.append(ToolCallDelta(self.call_id, self.index, encoded))
            return
        delta = self.string_delta(text)
        if delta is not None:
            self._out.append(delta)

    def string_delta(self, text: str) -> ToolCallDelta | None:
        """`string_chunk`, but the delta is returned to the caller instead of queued."""
        if not (self.in_string and text):
            return None
        text = json_string_text(text)
        self.pieces.append(text)
        return ToolCallDelta(self.call_id, self.index, text)

    def close_string(self) -> None:
        if self.in_string:
            self._push('"')
            self.in_string = False

    def put(self, key: str, value: Any) -> None:
        """A complete value for `key`; streamed only when it is certainly final."""
        if self._streamable_key(key) and self._gate.value_as_is(key, value):
            self._open_pair(key)
            self._push(canonical_json(value))  # the spelling the call's end compares with
        else:
            self._halted = True

    def halt(self) -> None:
        """Stop incremental output (e.g. a duplicate key appeared)."""
        self._halted = True

    def finish(self, final_json: str) -> bool:
        """Emit the rest of `final_json`. Returns False when it does not extend what was sent.

        The stream is closed then: a string value still open (a call ended inside it) takes no
        more text, so a later block's value text can never stream into this call."""
        self.in_string = False
        self._halted = True
        sent = self.sent
        if not final_json.startswith(sent):
            return False
        rest = final_json[len(sent) :]
        if rest:
            self._push(rest)
        return True
