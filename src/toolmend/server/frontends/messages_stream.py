"""Chat/completions answers written as Anthropic Messages: the streaming event grammar and the
whole `message` object.

`MessagesStream` owns the answer direction of `/v1/messages`: `message_start` (with the
request's estimated `input_tokens`, which Claude Code compacts on) and a `ping`, then per block
`content_block_start`, its deltas (`thinking_delta`, `text_delta`, `input_json_delta`) and
`content_block_stop`, one block open at a time, never losing the delta that opens a block
(a tool call's arguments go whole as one `input_json_delta` when its block closes, checked to be
a JSON object first: the official SDK's stream reader raises on broken partial JSON);
after the upstream's last chunk (its usage chunk comes after the finish reason) one
`message_delta` with the stop reason and final usage, and `message_stop`. The stop reason is
`tool_use` whenever a call was emitted, whatever the upstream's `finish_reason`; cached prompt
tokens are reported apart from `input_tokens`. Thinking blocks carry an empty signature: the
answer came from a model that does not sign, and no signature is ever invented. Blocks of a
native Anthropic upstream that chat cannot carry (signed thinking, redacted thinking, server
tools and their results) are written as they came, with the upstream's own signature.

`assemble_message` folds the events into the non-streaming `message`, so both paths share one
translation. `text_frame` writes the event nearly every chunk becomes (more text of the open
text block) straight to its SSE frame, and an answer's first chunk when it opens a text block
(its opening frames are built by `start`, before the upstream's first chunk arrives). This
module does no I/O and never reads the request.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from toolmend.events import Diagnostic
from toolmend.server.answer import completion_as_chunk
from toolmend.server.frontends.chat_request import ChatRequest
from toolmend.server.frontends.chat_stream import (
    ChatStreamReader,
    Piece,
    ToolCallState,
    cached_tokens,
    late_fragment,
)
from toolmend.server.frontends.ids import new_id
from toolmend.server.frontends.messages import PROTOCOL, TOOL_USE_ID_PREFIX
from toolmend.server.frontends.sse import SLOT, FrameTemplate, sse_frame
from toolmend.server.frontends.tokens import estimate_text_tokens

_STOP_REASONS = {"stop": "end_turn", "length": "max_tokens", "content_filter": "refusal"}
#: Stop reasons of a native Anthropic upstream that no chat finish reason stands for.
NATIVE_STOP_REASONS = frozenset({"pause_turn", "refusal", "model_context_window_exceeded"})
#: The usage field a native Anthropic upstream's cache writes travel in (chat has none).
CACHE_CREATION_FIELD = "cache_creation_input_tokens"
#: What a tool-call argument that is not a JSON object becomes in a non-streamed `input`,
#: so the agent's schema check names the problem instead of reporting missing fields of `{}`.
INVALID_ARGUMENTS_KEY = "_invalid_json_arguments"

Event = dict[str, Any]


class MessagesStream:
    """Chat chunks in, Anthropic Messages stream events (dicts) out."""

    def __init__(
        self,
        request: ChatRequest,
        *,
        model: str,
        input_tokens: int,
        message_id: str | None = None,
    ) -> None:
        self._reader = ChatStreamReader(request.names, request.history_ids, TOOL_USE_ID_PREFIX)
        self._stops = set(request.body.get("stop") or ())
        self._model = model
        self._input_tokens = input_tokens
        self.message_id = message_id or new_id("msg_")
        self._started = False
        self._block_index = -1
        self._open_kind: str | None = None  # "text" | "thinking" | "tool_use"
        self._open_call: int | None = None
        self._open_state: ToolCallState | None = None
        self._text_template: FrameTemplate | None = None  # the open text block's delta frame
        #: The frames of a first block that is text (its start, its deltas' template), made
        #: with `start`, which the app sends while the model prefills, so that the first text
        #: chunk costs what any other does: that is the client's time to first token.
        self._first_text: tuple[bytes, FrameTemplate] | None = None
        self._output_estimate = 0.0
        self.diagnostics: list[Diagnostic] = []

    def start(self) -> list[Event]:
        """`message_start` and a `ping`; idempotent, so the app may send them early."""
        if self._started:
            return []
        self._started = True
        message: dict[str, Any] = {
            "id": self.message_id,
            "type": "message",
            "role": "assistant",
            "model": self._model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": self._input_tokens, "output_tokens": 0},
        }
        self._first_text = (
            sse_frame(self._block_start(0, {"type": "text", "text": ""})),
            FrameTemplate(self._text_delta_shape(SLOT, 0)),
        )
        return [{"type": "message_start", "message": message}, ping()]

    def feed(self, chunk: Mapping[str, Any]) -> list[Event]:
        events = [] if self._started else self.start()
        for piece in self._reader.feed(chunk):
            self._write(piece, events)
        return events

    def finish(self) -> list[Event]:
        """Closes the open block and ends the message with its stop reason and usage."""
        events = self.start()
        for piece in self._reader.finish():
            self._write(piece, events)
        self._close(events)
        stop_reason, stop_sequence = self._stop()
        events.append(
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": stop_sequence},
                "usage": self._usage(),
            }
        )
        events.append({"type": "message_stop"})
        return events

    def _stop(self) -> tuple[str, str | None]:
        if self._reader.called:
            return "tool_use", None
        reason = self._reader.finish_reason
        match = self._reader.stop_match
        if reason == "stop" and match is not None and match in self._stops:
            return "stop_sequence", match
        if reason in NATIVE_STOP_REASONS:
            return reason, None
        return _STOP_REASONS.get(reason or "stop", "end_turn"), None

    def _usage(self) -> dict[str, Any]:
        usage = self._reader.usage
        if usage is None:
            return {
                "input_tokens": self._input_tokens,
                "output_tokens": math.ceil(self._output_estimate),
            }
        cached = cached_tokens(usage)
        written = usage.get(CACHE_CREATION_FIELD)
        written = written if isinstance(written, int) else 0
        prompt = usage.get("prompt_tokens")
        completion = usage.get("completion_tokens")
        out: dict[str, Any] = {
            "input_tokens": max(0, prompt - cached - written)
            if isinstance(prompt, int)
            else self._input_tokens,
            "output_tokens": completion if isinstance(completion, int) else 0,
        }
        if cached:
            out["cache_read_input_tokens"] = cached
        if written:
            out[CACHE_CREATION_FIELD] = written
        return out

    def _count_output(self, text: str) -> None:
        """The documented estimate, summed in place (ASCII text: a quarter token a character)."""
        self._output_estimate += len(text) / 4 if text.isascii() else estimate_text_tokens(text)

    def text_frame(self, text: str) -> bytes | None:
        """The SSE frame of a chunk whose only content is `text` (the app knows which chunks
        those are), when it continues the open text block (nearly every chunk of an answer)
        or opens the answer's first block: the bytes `sse_frame` writes for its events; None
        otherwise, and `feed` then takes the chunk."""
        template = self._text_template
        opening = b""
        if template is None:
            if self._first_text is None or self._block_index != -1:
                return None
            opening, template = self._first_text
            # the answer's first block is this text: opened as `_ensure_open` does
            self._block_index, self._open_kind, self._open_call = 0, "text", None
            self._text_template, self._first_text = template, None
        self._output_estimate += len(text) / 4 if text.isascii() else estimate_text_tokens(text)
        try:  # `template.fill`, written out: this runs once a chunk
            return opening + template.head + orjson.dumps(text) + template.tail
        except TypeError:
            return opening + template.fill(text)

    def _text_delta(self, text: str) -> Event:
        """A `text_delta` of the open text block, its text counted in the output estimate (as
        `_count_output` counts the other pieces, written out here: this runs once a chunk)."""
        self._output_estimate += len(text) / 4 if text.isascii() else estimate_text_tokens(text)
        return self._text_delta_shape(text)

    def _text_delta_shape(self, text: str, index: int | None = None) -> Event:
        delta = {"type": "text_delta", "text": text}
        block = self._block_index if index is None else index
        return {"type": "content_block_delta", "index": block, "delta": delta}

    def _block_start(self, index: int, block: dict[str, Any]) -> Event:
        return {"type": "content_block_start", "index": index, "content_block": block}

    def _write(self, piece: Piece, events: list[Event]) -> None:
        if piece.kind == "text":
            self._ensure_open("text", None, events)
            events.append(self._text_delta(piece.text))
            return
        self._count_output(piece.text)
        if piece.kind == "reasoning":
            self._ensure_open("thinking", None, events)
            delta = {"type": "thinking_delta", "thinking": piece.text}
            events.append(
                {"type": "content_block_delta", "index": self._block_index, "delta": delta}
            )
        elif piece.kind == "call_open":
            assert piece.call is not None
            self._ensure_open("tool_use", piece.call.index, events, piece)
        elif piece.kind == "native":
            assert piece.item is not None
            self._native_block(piece.item, events)
        else:  # a call's arguments: sent whole when its block closes (`_close`)
            assert piece.call is not None
            if self._open_call != piece.call.index:
                self.diagnostics.append(late_fragment(piece.call.index, PROTOCOL))

    def _ensure_open(
        self, kind: str, call: int | None, events: list[Event], piece: Piece | None = None
    ) -> None:
        if self._open_kind == kind and self._open_call == call:
            return
        self._close(events)
        self._block_index += 1
        self._open_kind, self._open_call = kind, call
        if kind == "text":
            block: dict[str, Any] = {"type": "text", "text": ""}
            self._text_template = FrameTemplate(self._text_delta_shape(SLOT))
        elif kind == "thinking":
            block = {"type": "thinking", "thinking": "", "signature": ""}
        else:
            assert piece is not None and piece.call is not None
            self._open_state = piece.call
            block = {"type": "tool_use", "id": piece.call.id, "name": piece.call.name, "input": {}}
        events.append(self._block_start(self._block_index, block))

    def _native_block(self, block: dict[str, Any], events: list[Event]) -> None:
        """A native upstream's block, as the API streams it: a thinking block's text and its
        signature as deltas (the upstream's own signature, verbatim), a server tool's input as
        one `input_json_delta`, any other block whole in its `content_block_start`."""
        self._close(events)
        self._block_index += 1
        index = self._block_index
        kind = block.get("type")
        deltas: list[dict[str, Any]] = []
        start = dict(block)
        if kind == "thinking":
            start.update(thinking="", signature="")
            deltas.append({"type": "thinking_delta", "thinking": str(block.get("thinking", ""))})
            if block.get("signature"):
                deltas.append({"type": "signature_delta", "signature": block["signature"]})
        elif kind == "server_tool_use" or kind == "mcp_tool_use":
            start["input"] = {}
            deltas.append(
                {"type": "input_json_delta", "partial_json": json.dumps(block.get("input") or {})}
            )
        events.append(self._block_start(index, start))
        for delta in deltas:
            events.append({"type": "content_block_delta", "index": index, "delta": delta})
        events.append({"type": "content_block_stop", "index": index})

    def _close(self, events: list[Event]) -> None:
        if self._open_kind == "tool_use" and self._open_state is not None:
            arguments = tool_arguments_json(self._open_state.arguments)
            if arguments:
                delta = {"type": "input_json_delta", "partial_json": arguments}
                events.append(
                    {"type": "content_block_delta", "index": self._block_index, "delta": delta}
                )
            self._open_state = None
        if self._open_kind is not None:
            events.append({"type": "content_block_stop", "index": self._block_index})
            self._open_kind = self._open_call = None
            self._text_template = None


def ping() -> Event:
    """The keep-alive event."""
    return {"type": "ping"}


def tool_arguments_json(arguments: str) -> str:
    """The `input` JSON sent for a call: its arguments when they are a JSON object, else the
    raw text under `INVALID_ARGUMENTS_KEY` (never `{}`, and never broken JSON, on which the
    official SDK's stream reader raises); "" for no arguments at all."""
    if not arguments.strip():
        return ""
    try:
        value = json.loads(arguments)
    except ValueError:
        value = None
    if isinstance(value, dict):
        return arguments
    return json.dumps({INVALID_ARGUMENTS_KEY: arguments}, ensure_ascii=False)


def assemble_message(events: Iterable[Event]) -> dict[str, Any]:
    """The `message` object a client would build from these stream events."""
    message: dict[str, Any] = {}
    partial: dict[int, list[str]] = {}
    for event in events:
        kind = event["type"]
        if kind == "message_start":
            message = json.loads(json.dumps(event["message"]))
        elif kind == "content_block_start":
            message["content"].append(dict(event["content_block"]))
        elif kind == "content_block_delta":
            block = message["content"][event["index"]]
            delta = event["delta"]
            if delta["type"] == "text_delta":
                block["text"] += delta["text"]
            elif delta["type"] == "thinking_delta":
                block["thinking"] += delta["thinking"]
            elif delta["type"] == "signature_delta":
                block["signature"] = delta["signature"]
            elif delta["type"] == "input_json_delta":
                partial.setdefault(event["index"], []).append(delta["partial_json"])
        elif kind == "content_block_stop":
            block = message["content"][event["index"]]
            if block["type"] in ("tool_use", "server_tool_use", "mcp_tool_use"):
                text = "".join(partial.pop(event["index"], []))
                block["input"] = json.loads(text) if text else {}
        elif kind == "message_delta":
            message.update(event["delta"])
            message["usage"].update(event["usage"])
    return message


def message_from_chunks(
    chunks: Iterable[Mapping[str, Any]], request: ChatRequest, *, model: str, input_tokens: int
) -> dict[str, Any]:
    """The non-streaming Messages answer for the chunks of one chat answer."""
    stream = MessagesStream(request, model=model, input_tokens=input_tokens)
    events: list[Event] = []
    for chunk in chunks:
        events += stream.feed(chunk)
    return assemble_message(events + stream.finish())


def message_from_completion(
    completion: Mapping[str, Any], request: ChatRequest, *, model: str, input_tokens: int
) -> dict[str, Any]:
    """The non-streaming Messages answer for a `chat.completion`: the stream fed once."""
    return message_from_chunks(
        [completion_as_chunk(completion)], request, model=model, input_tokens=input_tokens
    )
