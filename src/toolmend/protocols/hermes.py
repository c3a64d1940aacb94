"""Hermes: `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`, results in `<tool_response>`.

The format of Hermes, Qwen 2.5/3 and many fine-tunes. Several blocks, or several JSON objects in
one block, are parallel calls. A `</tool_call>` inside a JSON string is not a close; a new
`<tool_call>` before a close ends the previous block; arguments given as a JSON string are
decoded. String arguments stream while they are written.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from toolmend.core.fastpath import Escapes, ValueText
from toolmend.core.jsonscan import JsonScan, decode_string_piece
from toolmend.core.keyrules import duplicate_key_error
from toolmend.core.reader import BlockContext, BlockReader, EofVerdict
from toolmend.jsontext import decode_json_object
from toolmend.model import Tool, ToolCall, canonical_json
from toolmend.names import ToolResolver
from toolmend.protocols.base import TextProtocol, declare_tools
from toolmend.schema_gate import Policy

OPEN = "<tool_call>"
CLOSE = "</tool_call>"
#: Keys models use for the arguments object (Hermes writes "arguments"; others "parameters",
#: "args" or, Anthropic-style, "input").
ARGUMENT_KEYS = ("arguments", "parameters", "args", "input")
#: Keys of a call object that say nothing about what to run (an id, the OpenAI `type`).
#: Any other key is read or makes the call incomplete: no key of a call is dropped silently.
METADATA_KEYS = frozenset(("name", "id", "type", "call_id"))
#: The C string decoder `json.loads` runs (the stubs do not declare it): (text, end, strict) ->
#: (decoded, end); called with strict False, as `decode_string_piece` reads.
_scanstring: Callable[[str, int, bool], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]


def _decode_plain(raw: str) -> str:
    """The text of a chunk `_PLAIN_TEXT` matched (its escapes are complete and valid).

    The same JSON string decoder `decode_string_piece` runs, without `json.loads`' overhead.
    """
    return _scanstring(raw + '"', 0, False)[0] if "\\" in raw else raw


#: How a JSON string value is written, for the fast path: it ends at a quote; complete
#: two-character escapes are decoded on the way (a `\u` escape goes through the reader).
JSON_STRING = ValueText(
    ('"',), Escapes(("\\",), r'\\["\\/bfnrt]', r"\\(?:u[0-9a-fA-F]{0,3})?", _decode_plain)
)
_PLAIN_TEXT = JSON_STRING.plain


class HermesProtocol(TextProtocol):
    id = "hermes"
    summary = 'JSON in <tool_call> tags: <tool_call>{"name": ..., "arguments": {...}}</tool_call>'
    result_closers = ("</tool_response>",)

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return (OPEN,)

    def closing_markers(self) -> Sequence[str]:
        return (CLOSE,)

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        return HermesReader(ctx)

    def accepts_body(self, marker: str, first_char: str) -> bool:
        return first_char in "{["

    def render_tools(self, tools: Sequence[Tool]) -> str:
        return (
            declare_tools(tools)
            + "To call a function, write one JSON object holding its name and its arguments "
            "inside <tool_call></tool_call> tags; write one block per call:\n"
            '<tool_call>\n{"name": "<function-name>", "arguments": {<arguments as JSON>}}\n'
            "</tool_call>"
        )

    def render_call(self, call: ToolCall) -> str:
        body = canonical_json({"name": call.name, "arguments": call.arguments})
        return f"{OPEN}\n{body}\n{CLOSE}"

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        return f"<tool_response>\n{content}\n</tool_response>"


class HermesReader(JsonScan, BlockReader):
    """Reads one `<tool_call>` block: zero or more JSON call objects, then `</tool_call>`."""

    def __init__(self, ctx: BlockContext) -> None:
        super().__init__((CLOSE, OPEN))
        self.ctx = ctx
        self.consumed: list[str] = [OPEN]  # the block's raw text, for a failed block's record
        self.calls_ended = 0
        self.objects_seen = 0
        self.not_a_call = False  # the first object names no declared tool: the block is text
        self._new_object()

    def _new_object(self) -> None:
        self.obj_start = -1  # index into self.consumed where the open object's text starts
        self.key1 = ""  # the current key of the call object
        self.key2 = ""  # the current key inside its arguments object
        self.name_pieces: list[str] | None = None
        self.name: str | None = None
        self.begun = False
        self.unknown = False
        self.args_open = False
        self.streaming = False
        self.partial: list[str] = []  # decoded text of the string argument in progress
        self.done: dict[str, Any] = {}  # arguments completed so far (first occurrence wins)
        self.duplicate: str | None = None
        self.capture_start = -1

    # --------------------------------------------------------------------- JsonScan hooks

    def on_raw(self, raw: str) -> None:
        self.consumed.append(raw)

    def on_open(self, char: str) -> None:
        depth = self.depth
        if depth == 1:
            self._new_object()
            self.obj_start = len(self.consumed) - 1
            self.objects_seen += 1
        elif depth == 2 and char == "{" and self.key1 in ARGUMENT_KEYS and self.stack[0] == "{":
            self.args_open = True
        elif depth == 3 and self.args_open and self.capture_start < 0:
            self.capture_start = len(self.consumed) - 1

    def on_close(self, char: str) -> None:
        depth = self.depth
        if depth == 2 and self.args_open and self.capture_start >= 0:
            raw = "".join(self.consumed[self.capture_start :])
            self.capture_start = -1
            try:
                self._argument(self.key2, json.loads(raw))
            except (ValueError, RecursionError):
                self.ctx.args.halt()
        elif depth == 1 and self.args_open:
            self.args_open = False
        elif depth == 0:
            self._end_object()

    def on_key(self, key: str) -> None:
        if self.depth == 1:
            self.key1 = key
        elif self.depth == 2 and self.args_open:
            self.key2 = key

    def on_string_start(self) -> None:
        if self.depth == 1 and self.key1 == "name" and self.name is None:
            self.name_pieces = []
        elif self.depth == 2 and self.args_open and self.begun:
            if self.key2 in self.done:
                self._duplicate(self.key2)
                return
            self.partial = []
            self.streaming = self.ctx.args.open_string(self.key2)
            if self.streaming:
                self.ctx.stream_value(JSON_STRING, raw=(self.consumed,), decoded=(self.partial,))

    def on_string_piece(self, raw: str) -> None:
        if self.name_pieces is not None:
            self.name_pieces.append(raw)
        elif self.depth == 2 and self.args_open and self.begun and self.duplicate is None:
            text = decode_string_piece(raw)
            if text is None:
                self.ctx.args.halt()
                self.ctx.stop_value()
                self.streaming = False
                self.partial = []
                return
            self.partial.append(text)
            if self.streaming:
                self.ctx.args.string_chunk(text)

    def on_string_end(self) -> None:
        if self.name_pieces is not None:
            name = decode_string_piece("".join(self.name_pieces))
            self.name_pieces = None
            self.name = name or ""
            self._begin()
        elif self.depth == 2 and self.args_open and self.begun and self.duplicate is None:
            if self.streaming:
                self.ctx.args.close_string()
                self.ctx.stop_value()
                self.streaming = False
            if self.key2 not in self.done:
                self.done[self.key2] = "".join(self.partial)
            self.partial = []

    def on_scalar(self, raw: str) -> None:
        if self.depth == 2 and self.args_open and self.begun:
            try:
                value = json.loads(raw)
            except ValueError:
                self.ctx.args.halt()
                return
            self._argument(self.key2, value)

    # ------------------------------------------------------------------------- decisions

    def _argument(self, key: str, value: Any) -> None:
        if not self.begun or self.duplicate is not None:
            return
        if key in self.done:
            self._duplicate(key)
            return
        self.done[key] = value
        self.ctx.args.put(key, value)

    def _duplicate(self, key: str) -> None:
        self.duplicate = key
        self.ctx.args.halt()

    def _begin(self) -> None:
        if self.begun or self.unknown or self.name is None:
            return
        if self.ctx.begin_call(self.name):
            self.begun = True
        else:
            self.unknown = True
            self.not_a_call = self.calls_ended == 0 and self.objects_seen == 1
            self.decided = self.not_a_call  # read no further: the block is text up to here

    def _end_object(self) -> None:
        """A top-level JSON value closed: decode it once and end its call(s)."""
        raw = "".join(self.consumed[self.obj_start :])
        if raw.startswith("["):
            self._finish_array(raw)
        else:
            decoded = decode_json_object(raw, allow_repair=self.ctx.policy is Policy.LENIENT)
            self._finish_decoded(decoded.objects, decoded.error, decoded.repairs, at=self.cursor)
        self._new_object()

    def _finish_array(self, raw: str) -> None:
        """`[{call}, {call}]` (Granite and others): each object is a parallel call."""
        try:
            items = json.loads(raw)
        except json.JSONDecodeError as exc:
            self.ctx.diagnostic("malformed_call", f"a call array is not valid JSON: {exc.msg}")
            return
        except RecursionError:
            self.ctx.diagnostic("malformed_call", "a call array is nested too deeply")
            return
        objects = [item for item in items if isinstance(item, dict)]
        if len(objects) != len(items):
            self.ctx.diagnostic("malformed_call", "a call array holds items that are not objects")
        for obj in objects:
            self._finish_object(obj, [], at=self.cursor)

    def _finish_decoded(
        self, objects: list[dict[str, Any]], error: str | None, repairs: list[str], *, at: int
    ) -> None:
        if error is not None or not objects:
            if self.begun:
                self.ctx.end_call(self._best_effort(), at=at, error=error or "no call object")
                self.calls_ended += 1
            else:
                self.ctx.diagnostic("malformed_call", error or "no call object in the block")
            return
        for obj in objects:
            self._finish_object(obj, repairs, at=at)

    def _finish_object(self, obj: dict[str, Any], repairs: list[str], *, at: int) -> None:
        if "name" not in obj and isinstance(obj.get("function"), dict):
            obj = obj["function"]  # the OpenAI wire shape {"type": "function", "function": {...}}
        name = obj.get("name")
        if not self.begun:
            if self.unknown or not isinstance(name, str):
                if not self.unknown:
                    self.ctx.diagnostic("malformed_call", "a call object without a string name")
                return
            self.name = name
            self._begin()
            if not self.begun:
                return
        arguments: Any = next((obj[k] for k in ARGUMENT_KEYS if k in obj), {})
        error = _unread_keys(obj)
        if error is not None:
            arguments = self._best_effort() if isinstance(arguments, str) else arguments
            arguments = arguments if isinstance(arguments, dict) else {}
        elif self.duplicate is not None:
            error = duplicate_key_error(self.duplicate)
            arguments = self._best_effort()
        elif isinstance(arguments, str):
            inner = decode_json_object(arguments, allow_repair=self.ctx.policy is Policy.LENIENT)
            repairs = [*repairs, "parse-json-string", *inner.repairs]
            if len(inner.objects) > 1:
                error = (
                    f"the arguments hold {len(inner.objects)} JSON objects glued together; "
                    "write one tool call per object"
                )
                self.ctx.diagnostic("concatenated_json", error, count=len(inner.objects))
                arguments = {}
            elif inner.error is not None:
                error, arguments = inner.error, {}
            else:
                arguments = inner.objects[0]
        elif not isinstance(arguments, dict):
            error = f"arguments must be a JSON object, got {type(arguments).__name__}"
            arguments = {}
        self.ctx.end_call(arguments, at=at, error=error, repairs=repairs)
        self.calls_ended += 1
        self.begun = False

    def _best_effort(self) -> dict[str, Any]:
        args = dict(self.done)
        if self.partial and self.key2 not in args:
            args[self.key2] = "".join(self.partial)
        return args

    # -------------------------------------------------------------------- BlockReader

    def step(self, buf: str, pos: int, end: int, final: bool) -> int:
        if self.streaming and self.in_string:
            # A long string in one piece (a batch parse, a large chunk): the plain-text run's
            # pattern takes its plain text and simple escapes in one go; the scanner the rest.
            m = _PLAIN_TEXT.match(buf, pos, end)
            if m is not None:
                raw = m.group()
                text = _decode_plain(raw)
                self.consumed.append(raw)
                self.partial.append(text)
                self.ctx.args.string_chunk(text)
                pos = m.end()
        pos, stop = self.scan(buf, pos, end, final)
        if self.not_a_call:
            # Not a call of a declared tool: the whole block stays text.
            self.ctx.revert("".join(self.consumed[1:]), rescan=False)
            return pos
        if stop is None:
            return pos
        if self.depth > 0 or self.in_string:
            self._close_unfinished(pos)
        if stop == OPEN:
            self._end_block()  # a new block begins before this one closed
            return pos
        self.consumed.append(CLOSE)
        self._end_block()
        return pos + len(CLOSE)

    def _close_unfinished(self, at: int) -> None:
        """The block closes with its JSON still open: repair if allowed, else fail the call."""
        raw = "".join(self.consumed[self.obj_start :]) if self.obj_start >= 0 else ""
        if self.ctx.policy is Policy.LENIENT and raw:
            decoded = decode_json_object(raw, allow_repair=True)
            if decoded.error is None and decoded.objects:
                self._finish_decoded(decoded.objects, None, decoded.repairs, at=at)
                return
        if self.begun:
            self.ctx.end_call(self._best_effort(), at=at, error="the call's JSON is not closed")
            self.calls_ended += 1
        self.stack.clear()
        self.expect_key.clear()
        self.in_string = False

    def _end_block(self) -> None:
        if self.calls_ended:
            self.ctx.end_block()
        else:
            self.ctx.fail_block(
                "".join(self.consumed[1:]),
                "malformed_call",
                "a <tool_call> block held no usable call",
            )

    def at_eof(self) -> EofVerdict:
        if self.depth == 0 and not self.in_string:
            return EofVerdict(recoverable=True)
        return EofVerdict(recoverable=False, arguments=self._best_effort())


def _unread_keys(obj: dict[str, Any]) -> str | None:
    """Why a call object cannot be read whole (arguments given twice, keys nothing reads)."""
    given = [k for k in ARGUMENT_KEYS if k in obj]
    if len(given) > 1:
        return f"the call gives its arguments under several keys ({', '.join(given)})"
    unread = [k for k in obj if k not in METADATA_KEYS and k not in ARGUMENT_KEYS]
    if unread:
        keys = ", ".join(repr(k[:64]) for k in unread[:5])
        return f"the call object holds keys that are not its name or arguments: {keys}"
    return None


PROTOCOL = HermesProtocol()
