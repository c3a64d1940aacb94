"""Chat/completions answers written as OpenAI Responses: the streaming event grammar and the
whole `response` object.

`ResponsesStream` owns the answer direction of `/v1/responses`: `response.created` and
`response.in_progress`; then one output item at a time, each with a stable `output_index`
given when it is added and closed before the next one opens: a `reasoning` item
(`response.reasoning_text.delta`), a `message` item (`response.content_part.added`,
`response.output_text.delta` / `.done`, `response.content_part.done`), a `function_call` item
(`response.function_call_arguments.delta` / `.done`, with its `namespace` when it was declared
in one), a `custom_tool_call` item (`response.custom_tool_call_input.delta` / `.done`) or a
`local_shell_call` item, each ending with `response.output_item.done`; last
`response.completed` (or `response.incomplete` when the upstream stopped at its token limit)
with every item and the usage, after the upstream's usage chunk. An item of a native Responses
upstream that chat cannot carry (a reasoning item with its encrypted content, a hosted tool's
call, a freeform call) is added and done whole, as it came. Every event carries a
`sequence_number`. A failure ends with `response.failed` after closing the items.

The items of the answer are kept (`output`), so the caller can store the conversation for a
later `previous_response_id`. `text_frame` writes the event nearly every chunk becomes (more
text of the open message item) straight to its SSE frame, and an answer's first text when it
opens the first item (that item's opening frames are built by `start`, before the upstream's
first chunk arrives). This module does no I/O.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import orjson

from toolmend.events import Diagnostic
from toolmend.server import wirejson
from toolmend.server.answer import completion_as_chunk
from toolmend.server.frontends.chat_stream import (
    ChatStreamReader,
    Piece,
    ToolCallState,
    cached_tokens,
    late_fragment,
)
from toolmend.server.frontends.ids import new_id
from toolmend.server.frontends.responses import (
    CALL_ID_PREFIX,
    PROTOCOL,
    ResponsesChatRequest,
)
from toolmend.server.frontends.sse import SLOT, FrameTemplate, sse_frame

Event = dict[str, Any]
#: Fields of the request echoed in the `response` object, as the Responses API does.
ECHOED_FIELDS = (
    "instructions",
    "max_output_tokens",
    "metadata",
    "parallel_tool_calls",
    "previous_response_id",
    "temperature",
    "text",
    "tool_choice",
    "tools",
    "top_p",
    "reasoning",
    "store",
)
_TEXT_DELTA = {
    "reasoning": "response.reasoning_text.delta",
    "message": "response.output_text.delta",
}
_DEFAULTS: dict[str, Any] = {"parallel_tool_calls": True, "tool_choice": "auto", "tools": []}


@dataclass(frozen=True, slots=True)
class _TextItem:
    """A reasoning or message item made ready to open: the item, the fields its deltas share,
    its deltas' frame template (a message's), and its opening events (`output_item.added`,
    `content_part.added`) numbered from `sequence`, with their frames when made early."""

    item: dict[str, Any]
    delta_fields: dict[str, Any]
    template: FrameTemplate | None
    events: list[Event]
    sequence: int
    frames: bytes = b""


class ResponsesStream:
    """Chat chunks in, Responses stream events (dicts) out."""

    def __init__(
        self,
        request: ResponsesChatRequest,
        body: Mapping[str, Any],
        *,
        model: str,
        input_tokens: int | Callable[[], int],
        response_id: str | None = None,
    ) -> None:
        """`input_tokens`: the request's count, or how to count it, asked only when the
        upstream's usage has no `prompt_tokens` (the usage is the upstream's when it has)."""
        self._request = request
        self._reader = ChatStreamReader(request.names, request.history_ids, CALL_ID_PREFIX)
        self.response_id = response_id or new_id("resp_")
        self._input_tokens = input_tokens
        self._response: dict[str, Any] = {
            "id": self.response_id,
            "object": "response",
            "created_at": int(time.time()),
            "model": model,
            "status": "in_progress",
            "output": [],
            "error": None,
            "incomplete_details": None,
            "usage": None,
            # The client's own values, shared by every event that carries the response
            # (`_snapshot`): nothing changes a request body once it is read.
            **_DEFAULTS,
            **{k: body[k] for k in ECHOED_FIELDS if body.get(k) is not None},
        }
        self.output: list[dict[str, Any]] = self._response["output"]
        self.diagnostics: list[Diagnostic] = []
        self._sequence = 0
        self._started = False
        self._open: dict[str, Any] | None = None  # the open item
        self._open_call: ToolCallState | None = None
        self._open_text: list[str] = []  # the open reasoning or message item's text so far
        self._delta_fields: dict[str, Any] = {}  # what the open text item's deltas share
        self._text_template: FrameTemplate | None = None  # the open message's delta frame
        #: The first item when it is a message, made by `start`, which the app sends while
        #: the model prefills, so that an answer's first text chunk costs what any other does
        #: (that is the client's time to first token); dropped once anything else is written.
        self._first_message: _TextItem | None = None

    def _event(self, kind: str, **fields: Any) -> Event:
        event = {"type": kind, "sequence_number": self._sequence, **fields}
        self._sequence += 1
        return event

    def _snapshot(self) -> dict[str, Any]:
        """The response as it stands, for one event: its own top level and `output` list, the
        values in them shared, since none changes once set (the echoed request fields are the
        client's, never changed; an item enters `output` when it is done, never to change; the
        usage, the error and the details are set whole). Codex's instructions and tools, which
        every `response.*` event echoes, are tens of kilobytes: a 32 KB response took about
        400 µs to copy per event here (loaded) and 250 µs once through orjson, its shallow
        copy under 1 µs."""
        return {**self._response, "output": list(self.output)}

    def start(self) -> list[Event]:
        """`response.created` and `response.in_progress`; idempotent."""
        if self._started:
            return []
        self._started = True
        events = [
            self._event("response.created", response=self._snapshot()),
            self._event("response.in_progress", response=self._snapshot()),
        ]
        first = self._text_item("message", 0, self._sequence)
        frames = b"".join([sse_frame(event) for event in first.events])
        self._first_message = replace(first, frames=frames)
        return events

    def text_frame(self, text: str) -> bytes | None:
        """The SSE frame of a chunk whose only content is `text` (the app knows which chunks
        those are), when it continues the open message item (nearly every chunk of an answer)
        or opens the answer's first item: the bytes `sse_frame` writes for its events; None
        otherwise, and `feed` then takes the chunk."""
        template = self._text_template
        opening = b""
        if template is None:
            first = self._take_first_message()
            if first is None:
                return None
            opening, template = first.frames, first.template
            assert template is not None  # a message item's
        self._open_text.append(text)
        sequence = self._sequence
        self._sequence = sequence + 1
        try:  # `template.fill2`, written out: this runs once a chunk
            return (
                opening
                + template.head
                + orjson.dumps(sequence)
                + template.middle
                + orjson.dumps(text)
                + template.tail
            )
        except TypeError:
            return opening + template.fill2(sequence, text)

    def feed(self, chunk: Mapping[str, Any]) -> list[Event]:
        events = self.start()
        for piece in self._reader.feed(chunk):
            self._write(piece, events)
        return events

    def finish(self) -> list[Event]:
        """Closes the open item and ends with `response.completed` (or `.incomplete`)."""
        events = self.start()
        for piece in self._reader.finish():
            self._write(piece, events)
        self._close(events)
        self._response["usage"] = self._usage()
        if self._reader.finish_reason == "length":
            self._response["status"] = "incomplete"
            self._response["incomplete_details"] = {"reason": "max_output_tokens"}
            events.append(self._event("response.incomplete", response=self._snapshot()))
        else:
            self._response["status"] = "completed"
            events.append(self._event("response.completed", response=self._snapshot()))
        return events

    def fail(self, message: str, code: str = "server_error") -> list[Event]:
        """Closes the open item and ends with `response.failed` carrying the error."""
        events = self.start()
        self._close(events)
        self._response["status"] = "failed"
        self._response["error"] = {"code": code, "message": message}
        events.append(self._event("response.failed", response=self._snapshot()))
        return events

    def response(self) -> dict[str, Any]:
        """The `response` object as it stands (complete after `finish`)."""
        return self._snapshot()

    def _usage(self) -> dict[str, Any]:
        usage = self._reader.usage or {}
        prompt = usage.get("prompt_tokens")
        completion = usage.get("completion_tokens")
        details = usage.get("completion_tokens_details")
        reasoning = details.get("reasoning_tokens") if isinstance(details, Mapping) else None
        if isinstance(prompt, int):
            input_tokens = prompt
        elif callable(self._input_tokens):
            input_tokens = self._input_tokens()
        else:
            input_tokens = self._input_tokens
        output_tokens = completion if isinstance(completion, int) else 0
        return {
            "input_tokens": input_tokens,
            "input_tokens_details": {
                "cached_tokens": cached_tokens(usage),
                "cache_write_tokens": 0,
            },
            "output_tokens": output_tokens,
            "output_tokens_details": {
                "reasoning_tokens": reasoning if isinstance(reasoning, int) else 0
            },
            "total_tokens": input_tokens + output_tokens,
        }

    # -- items ---------------------------------------------------------------------------

    def _text_delta(self, text: str) -> Event:
        """A text delta of the open reasoning or message item, from the fields its deltas share
        (`_delta_fields`, set when it opened); its text is kept in `_open_text` (joined once at
        the item's end, so a long answer costs linear time)."""
        self._open_text.append(text)
        event = {**self._delta_fields, "sequence_number": self._sequence, "delta": text}
        self._sequence += 1
        return event

    def _write(self, piece: Piece, events: list[Event]) -> None:
        if piece.kind == "reasoning" or piece.kind == "text":
            kind = "reasoning" if piece.kind == "reasoning" else "message"
            item = self._open
            if item is None or item["type"] != kind:
                self._ensure(kind, events)
            events.append(self._text_delta(piece.text))
        elif piece.kind == "call_open":
            assert piece.call is not None
            self._open_tool(piece.call, events)
        elif piece.kind == "native":
            assert piece.item is not None
            self._close(events)
            item = _public(piece.item)
            index = len(self.output)
            self.output.append(item)
            added = self._event("response.output_item.added", output_index=index, item=item)
            events += [
                added,
                self._event("response.output_item.done", output_index=index, item=item),
            ]
        else:
            assert piece.call is not None
            if self._open_call is not piece.call:
                self.diagnostics.append(late_fragment(piece.call.index, PROTOCOL))
                return
            assert self._open is not None
            if self._open["type"] == "function_call":
                events.append(
                    self._event(
                        "response.function_call_arguments.delta",
                        **self._where(self._open),
                        delta=piece.text,
                    )
                )

    def _where(self, item: Mapping[str, Any]) -> dict[str, Any]:
        return {"item_id": item["id"], "output_index": item["_index"]}

    def _add(
        self,
        item: dict[str, Any],
        events: list[Event],
        announce: bool = True,
        call: ToolCallState | None = None,
    ) -> None:
        self._close(events)
        item["_index"] = len(self.output)
        self._open, self._open_call = item, call
        self._open_text = []
        self._text_template = None
        if announce:
            events.append(
                self._event(
                    "response.output_item.added", output_index=item["_index"], item=_public(item)
                )
            )

    def _ensure(self, kind: str, events: list[Event]) -> None:
        """Opens a `kind` item (reasoning or message) unless one is open."""
        if self._open is not None and self._open["type"] == kind:
            return
        opened = self._take_first_message() if kind == "message" else None
        if opened is None:
            self._close(events)
            opened = self._text_item(kind, len(self.output), self._sequence)
            self._open_item(opened)
        events += opened.events

    def _take_first_message(self) -> _TextItem | None:
        """The first item made by `start`, opened, when nothing was written since; else None
        (and it is dropped: once anything else is written it can never be the first)."""
        first, self._first_message = self._first_message, None
        if first is None or self._open is not None or self._sequence != first.sequence:
            return None
        self._open_item(first)
        return first

    def _open_item(self, opened: _TextItem) -> None:
        self._open, self._open_call = opened.item, None
        self._open_text = []
        self._delta_fields = opened.delta_fields
        self._text_template = opened.template
        self._sequence = opened.sequence + len(opened.events)

    def _text_item(self, kind: str, index: int, sequence: int) -> _TextItem:
        """A `kind` item (reasoning or message) at `index`, its opening events numbered from
        `sequence`; nothing of the stream changes until it is opened (`_open_item`)."""
        item: dict[str, Any]
        part: dict[str, Any]
        if kind == "reasoning":
            item = {
                "id": new_id("rs_"),
                "type": "reasoning",
                "summary": [],
                "content": [{"type": "reasoning_text", "text": ""}],
            }
            part = {"type": "reasoning_text", "text": ""}
        else:
            item = {
                "id": new_id("msg_"),
                "type": "message",
                "role": "assistant",
                "status": "in_progress",
                "content": [{"type": "output_text", "text": "", "annotations": []}],
            }
            part = {"type": "output_text", "text": "", "annotations": []}
        announced = {**item, "content": []}  # the event's own (a new dict of strings)
        item["_index"] = index
        where = self._where(item)
        delta_fields = {
            "type": _TEXT_DELTA[kind],
            **where,
            "content_index": 0,
            **({"logprobs": []} if kind == "message" else {}),
        }
        template = None
        if kind == "message":
            template = FrameTemplate({**delta_fields, "sequence_number": SLOT, "delta": SLOT})
        events = [
            {
                "type": "response.output_item.added",
                "sequence_number": sequence,
                "output_index": index,
                "item": announced,
            },
            {
                "type": "response.content_part.added",
                "sequence_number": sequence + 1,
                **where,
                "content_index": 0,
                "part": part,
            },
        ]
        return _TextItem(item, delta_fields, template, events, sequence)

    def _open_tool(self, call: ToolCallState, events: list[Event]) -> None:
        kind = self._request.kind_of(call.name)
        namespace = {"namespace": kind.namespace} if kind.namespace else {}
        item: dict[str, Any]
        if kind.kind == "function":
            item = {
                "id": new_id("fc_"),
                "type": "function_call",
                "status": "in_progress",
                "call_id": call.id,
                "name": kind.name,
                "arguments": "",
                **namespace,
            }
            self._add(item, events, call=call)
        elif kind.kind == "custom":
            item = {
                "id": new_id("ctc_"),
                "type": "custom_tool_call",
                "status": "in_progress",
                "call_id": call.id,
                "name": kind.name,
                "input": "",
                **namespace,
            }
            self._add(item, events, call=call)
        else:  # local_shell: the action is only known whole, so it is announced at the end
            item = {
                "id": new_id("lsh_"),
                "type": "local_shell_call",
                "status": "in_progress",
                "call_id": call.id,
                "action": {"type": "exec", "command": [], "env": {}},
            }
            self._add(item, events, announce=False, call=call)

    def _close(self, events: list[Event]) -> None:
        item = self._open
        if item is None:
            return
        self._open = None
        self._text_template = None
        call, self._open_call = self._open_call, None
        where = self._where(item)
        kind = item["type"]
        if kind in ("reasoning", "message"):
            item["content"][0]["text"] = "".join(self._open_text)
        if kind == "reasoning":
            part = item["content"][0]
            events.append(
                self._event(
                    "response.reasoning_text.done", **where, content_index=0, text=part["text"]
                )
            )
            events.append(
                self._event("response.content_part.done", **where, content_index=0, part=dict(part))
            )
        elif kind == "message":
            part = item["content"][0]
            events.append(
                self._event(
                    "response.output_text.done",
                    **where,
                    content_index=0,
                    text=part["text"],
                    logprobs=[],
                )
            )
            events.append(
                self._event("response.content_part.done", **where, content_index=0, part=dict(part))
            )
            item["status"] = "completed"
        elif kind == "function_call":
            assert call is not None
            item["arguments"] = call.arguments
            events.append(
                self._event(
                    "response.function_call_arguments.done",
                    **where,
                    name=item["name"],
                    arguments=call.arguments,
                )
            )
            item["status"] = "completed"
        elif kind == "custom_tool_call":
            assert call is not None
            item["input"] = _custom_input(call.arguments)
            events.append(
                self._event("response.custom_tool_call_input.delta", **where, delta=item["input"])
            )
            events.append(
                self._event("response.custom_tool_call_input.done", **where, input=item["input"])
            )
            item["status"] = "completed"
        else:
            assert call is not None
            item["action"] = _shell_action(call.arguments)
            item["status"] = "completed"
            events.append(
                self._event(
                    "response.output_item.added",
                    output_index=item["_index"],
                    item=_public({**item, "status": "in_progress"}),
                )
            )
        # Shared by `output` and the event, and with `item`, which is closed: none of them
        # changes again (a copy of a long answer's text cost twice writing it).
        done = {k: v for k, v in item.items() if k != "_index"}
        self.output.append(done)
        events.append(
            self._event("response.output_item.done", output_index=item["_index"], item=done)
        )


def _json_copy(value: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy of JSON data, through the proxy's codec (orjson: every event that carries
    the response or an item copies it, about 10 µs with `json`)."""
    copied: dict[str, Any] = wirejson.loads(wirejson.dumps(value))
    return copied


def _public(item: Mapping[str, Any]) -> dict[str, Any]:
    """An item as the client sees it (without the index kept beside it)."""
    return _json_copy({k: v for k, v in item.items() if k != "_index"})


def _custom_input(arguments: str) -> str:
    """A freeform call's raw input: the `input` string of the function arguments it was sent as."""
    try:
        value = json.loads(arguments)
    except ValueError:
        return arguments
    raw = value.get("input") if isinstance(value, dict) else None
    return raw if isinstance(raw, str) else arguments


def _shell_action(arguments: str) -> dict[str, Any]:
    try:
        value = json.loads(arguments)
    except ValueError:
        value = {}
    action: dict[str, Any] = {"type": "exec", "command": [], "env": {}}
    if isinstance(value, dict):
        command = value.get("command")
        if isinstance(command, str):
            command = ["bash", "-lc", command]
        if isinstance(command, list):
            action["command"] = [str(part) for part in command]
        for key in ("working_directory", "timeout_ms", "env", "user"):
            if value.get(key) is not None:
                action[key] = value[key]
    return action


def response_from_chunks(
    chunks: Iterable[Mapping[str, Any]],
    request: ResponsesChatRequest,
    body: Mapping[str, Any],
    *,
    model: str,
    input_tokens: int | Callable[[], int],
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The non-streaming `response` for the chunks of one chat answer, and its output items."""
    stream = ResponsesStream(request, body, model=model, input_tokens=input_tokens)
    for chunk in chunks:
        stream.feed(chunk)
    stream.finish()
    return stream.response(), stream.output


def response_from_completion(
    completion: Mapping[str, Any],
    request: ResponsesChatRequest,
    body: Mapping[str, Any],
    *,
    model: str,
    input_tokens: int | Callable[[], int],
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The non-streaming `response` for a `chat.completion` (the stream fed once), and its items."""
    return response_from_chunks(
        [completion_as_chunk(completion)], request, body, model=model, input_tokens=input_tokens
    )
