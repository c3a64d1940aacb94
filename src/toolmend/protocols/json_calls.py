"""The JSON-in-delimiters family: calls, or one call's arguments, written as JSON inside markers.

Two shapes, one reader (`JsonCallsReader`):

* **call objects** (Hermes, Granite, Jamba, Llama JSON, Mistral's `[TOOL_CALLS][...]`): the
  block holds JSON objects `{"name": ..., "arguments": {...}}` (or an array of them); each is
  a call, its name under one of `JsonCallFormat.name_keys`, its arguments under one of
  `argument_keys`; an OpenAI assistant message written as text (`{"role": "assistant",
  "content": …, "tool_calls": [...]}`, or the legacy `function_call`) holds calls, its content
  visible text before them. The first object naming no declared tool makes the whole block
  text, and so does prose before the first object (`Use the <tool_call> tag: {…}` mentions the
  marker; a code fence around the JSON is the one text allowed there).
* **named arguments** (Kimi K2, DeepSeek, harmony, Functionary, Mistral's `name[ARGS]{...}`):
  the format reads the tool name from its own header, begins the call, and hands the rest to
  a reader made with `JsonCallsReader.for_arguments`: the JSON object there is the arguments.

A format declares a `JsonCallFormat` (its closers and, for call objects, where the name and
arguments live) and gets the whole reading: strings inside JSON never end the block; string
arguments stream while they are written (with the parser's plain-text run); other values
stream once complete; a repeated key rejects the call; arguments given as a JSON string are
decoded; glued objects are never merged; an unclosed object is repaired only when the policy
allows; truncation follows R1–R4. Every arguments text goes through `arguments_from_text`.

It never scans visible text (the engine's `TextScanner` does), never validates or repairs
arguments against a schema (the gate does) and never writes raw markup into a diagnostic.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from toolmend.core.argstream import is_canonical_json_string
from toolmend.core.fastpath import Escapes, ValueText
from toolmend.core.jsonscan import JsonScan, decode_string_piece
from toolmend.core.keyrules import duplicate_key_error
from toolmend.core.reader import (
    CUT_AFTER_HEADER,
    MAX_TAG_LENGTH,
    BlockContext,
    BlockReader,
    EofVerdict,
)
from toolmend.jsontext import decode_json_object
from toolmend.schema_gate import Policy

#: Keys models use for the arguments object (Hermes writes "arguments"; others "parameters",
#: "args" or, Anthropic-style, "input").
ARGUMENT_KEYS = ("arguments", "parameters", "args", "input")
#: Keys models write a call's tool name under.
NAME_KEYS = ("name", "function", "tool", "tool_name")
#: Keys of a call object that say nothing about what to run (an id, the OpenAI `type`).
#: Any other key is read or makes the call incomplete: no key of a call is dropped silently.
METADATA_KEYS = frozenset(("name", "id", "type", "call_id"))
#: An OpenAI assistant message a model may write as its output, `{"role": "assistant",
#: "content": …, "tool_calls": [{…}, …]}`, or in the legacy shape with one call under
#: `function_call` (models trained on chat-completion transcripts write the wire's own fields):
#: the object holds no call of its own, its calls are the calls it lists.
ENVELOPE_KEY = "tool_calls"
#: A code fence around a block's JSON (```` ```json ````, ```` ``` ````): the one text a call
#: block may hold before its first call object.
FENCE_LINE = re.compile(r"`{3,}[\w+-]*")
LEGACY_CALL_KEY = "function_call"
#: The other keys such a message may begin with (`role`, or `content` first as SDKs dump it).
MESSAGE_KEYS = ("role", "content")
#: What may open a message written as text: the bare guard reads on past these first keys, and
#: an object they open that turns out no such message is text, silently.
ENVELOPE_KEYS = (ENVELOPE_KEY, LEGACY_CALL_KEY, *MESSAGE_KEYS)
#: Fields of an SDK's dump of a message that may stand beside the calls while they hold nothing
#: (`"refusal": null`); any other key, or one of these holding something, makes it no message.
EMPTY_MESSAGE_KEYS = frozenset(("refusal", "audio", "annotations"))


@dataclass(frozen=True, slots=True)
class Envelope:
    """An assistant message written as text: the call objects it lists, and its `content`,
    visible text that comes before them ("" when it is null or empty)."""

    calls: list[Any]
    text: str


def envelope_of(obj: dict[str, Any]) -> Envelope | None:
    """The assistant message `obj` is, or None when it is none (it is then read as a call
    object itself)."""
    listed, legacy = obj.get(ENVELOPE_KEY), obj.get(LEGACY_CALL_KEY)
    if isinstance(listed, list) and not legacy:
        calls = listed
    elif isinstance(legacy, dict) and not listed:
        calls = [legacy]
    else:
        return None
    content = obj.get("content")
    if obj.get("role", "assistant") != "assistant" or not (content is None or type(content) is str):
        return None
    for key, value in obj.items():
        if key not in ENVELOPE_KEYS and (key not in EMPTY_MESSAGE_KEYS or value):
            return None
    return Envelope(calls, content or "")


def call_name(obj: dict[str, Any], name_keys: Sequence[str]) -> Any:
    """The name a call object gives (under one of `name_keys`, or inside the OpenAI shape's
    `function` object), None when it gives none."""
    if not any(isinstance(obj.get(k), str) for k in name_keys):
        function = obj.get("function")
        obj = function if isinstance(function, dict) else obj
    return next((obj[k] for k in name_keys if k in obj), None)


#: The C string decoder `json.loads` runs (the stubs do not declare it): (text, end, strict) ->
#: (decoded, end); called with strict False, as `decode_string_piece` reads.
_scanstring: Callable[[str, int, bool], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]


def call_object(obj: dict[str, Any], name_keys: Sequence[str]) -> dict[str, Any]:
    """The object holding a call's name and arguments: `obj`, or, for the OpenAI wire shape
    `{"type": "function", "function": {...}}` (no string name of its own), its `function`."""
    named = any(isinstance(obj.get(k), str) for k in name_keys)
    inner = obj.get("function")
    return inner if not named and isinstance(inner, dict) else obj


def _decode_plain(raw: str) -> str:
    """The text of a chunk `_PLAIN_TEXT` matched (its escapes are complete and valid).

    The same JSON string decoder `decode_string_piece` runs, without `json.loads`' overhead.
    """
    return _scanstring(raw + '"', 0, False)[0] if "\\" in raw else raw


#: How a JSON string value is written, for the fast path: it ends at a quote; complete
#: two-character escapes (what `decode_string_piece` reads; a raw control character is itself)
#: are decoded on the way, and an unfinished one waits (a `\u` escape goes through the reader).
JSON_STRING = ValueText(
    ('"',), Escapes(("\\",), r'\\["\\/bfnrt]', r"\\(?:u[0-9a-fA-F]{0,3})?", _decode_plain)
)
_PLAIN_TEXT = JSON_STRING.plain
#: A string window at least this long is first tried whole by the C decoder (`_whole_string`):
#: below it, in the small chunks of a stream, the pattern costs as little and never fails.
LONG_STRING = 1024


def _whole_string(buf: str, pos: int, end: int) -> tuple[str, str] | None:
    """The rest of the JSON string at `buf[pos]`, as written and decoded, when it closes
    before `end` with only the escapes `_PLAIN_TEXT` takes (what that pattern would match,
    found by the C decoder in one pass instead); None otherwise."""
    if buf.find('"', pos, end) < 0:
        return None
    try:
        text, after = _scanstring(buf, pos, False)
    except ValueError:
        return None  # an invalid escape, or not closed (in what follows `end`, even)
    raw = buf[pos : after - 1]
    if after > end or "\\u" in raw:
        return None  # a `\u` escape goes through the reader (surrogates)
    return raw, text


@dataclass(frozen=True, slots=True)
class JsonCallFormat:
    """What one JSON-in-delimiters format says about its blocks.

    `closers` end a block and are consumed with it; `reopeners` end it unconsumed (a new block
    begins before this one closed). `block` names the block in the diagnostic of one that held
    no usable call. `name_keys` / `argument_keys` / `metadata_keys` say where a call object
    keeps its name and arguments and which other keys carry nothing to run.
    """

    closers: tuple[str, ...]
    reopeners: tuple[str, ...] = ()
    block: str = "a call block"
    name_keys: tuple[str, ...] = ("name",)
    argument_keys: tuple[str, ...] = ARGUMENT_KEYS
    metadata_keys: frozenset[str] = METADATA_KEYS


@dataclass(slots=True)
class ArgumentsText:
    """Arguments decoded from their JSON text: the object, or why there is none."""

    arguments: dict[str, Any]
    error: str | None
    repairs: list[str]


def arguments_from_text(text: str, ctx: BlockContext, *, repairs: list[str]) -> ArgumentsText:
    """The one reading of a call's arguments written as JSON text (decoded under the policy).

    Several objects glued together are never merged: the call is incomplete, with a
    `concatenated_json` diagnostic. `repairs` are the repairs recorded so far; the decoder's
    own are added after them.
    """
    inner = decode_json_object(text, allow_repair=ctx.policy is Policy.LENIENT)
    noted = [*repairs, *inner.repairs]
    if len(inner.objects) > 1:
        error = (
            f"the arguments hold {len(inner.objects)} JSON objects glued together; "
            "write one tool call per object"
        )
        ctx.diagnostic("concatenated_json", error, count=len(inner.objects))
        return ArgumentsText({}, error, noted)
    if inner.error is not None or not inner.objects:
        return ArgumentsText({}, inner.error or "no arguments object", noted)
    return ArgumentsText(inner.objects[0], None, noted)


class JsonCallsReader(JsonScan, BlockReader):
    """Reads one block of JSON calls (or, `for_arguments`, one call's JSON arguments)."""

    def __init__(self, ctx: BlockContext, fmt: JsonCallFormat, marker: str) -> None:
        super().__init__((*fmt.closers, *fmt.reopeners))
        self.ctx = ctx
        self.format = fmt
        self.consumed: list[str] = [marker]  # the block's raw text, for a failed block's record
        #: The depth of the arguments object: 2 inside a call object, 1 when the JSON value is
        #: the arguments of a call its format's header already named.
        self.args_depth = 2
        self.calls_ended = 0
        self.objects_seen = 0
        #: A named call's top-level JSON values: `consumed[values_start:values_end]`.
        self.values_start = -1
        self.values_end = -1
        self.not_a_call = False  # the first object names no declared tool: the block is text
        self.stray_text = False  # a named call's body held text that is no JSON value
        #: Text that is no code fence came before the block's first call object.
        self.prose_first = False
        #: The string value in progress is a fast-path run (`_run_value`), decoded or not.
        self.value_run = False
        self.decoding = False
        #: The block's own reader: `consumed` is the block's record, so a string that no hook
        #: reads may reach it without the hooks. False inside another reader, which records
        #: the block's text from what this one reads (`json_args`).
        self.own_block = True
        self._new_object()

    @classmethod
    def for_arguments(
        cls, ctx: BlockContext, fmt: JsonCallFormat, marker: str, header: str
    ) -> JsonCallsReader:
        """A reader of the JSON arguments of the call `ctx.begin_call` has just begun.

        `marker` and `header` are the block's text read so far (the header names the tool),
        for the record of a block that fails. The first JSON value is the arguments object;
        the call ends when it closes (or at the first stop marker, or the end of the stream).
        """
        reader = cls(ctx, fmt, marker)
        reader.consumed.append(header)
        reader.own_block = False
        reader.args_depth = 1
        reader.begun = True
        return reader

    def _arguments_text(self) -> str:
        """A named call's arguments as written: its top-level JSON values, and what lies
        between them (text around them, such as a code fence, is not part of them)."""
        if self.values_start < 0:
            return ""
        return "".join(self.consumed[self.values_start : self.values_end])

    @property
    def named(self) -> bool:
        """The call's name came from the format's header, not from the JSON."""
        return self.args_depth == 1

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
        if depth == 1 and self.named:
            # The arguments object itself. A second value glued to it ends the streaming: the
            # call's end reads them all and refuses them.
            if self.values_start < 0:
                self.obj_start = self.values_start = len(self.consumed) - 1
                self.objects_seen += 1
                self.args_open = char == "{"
            else:
                self.ctx.args.halt()
            return
        if depth == 1:
            if self.prose_first and not self.objects_seen:
                # Prose between the opener and the first call object (`Use the <tool_call>
                # tag like this: {…}`): the marker was mentioned, not written as markup.
                self.not_a_call = self.decided = True
                return
            self._new_object()
            self.obj_start = len(self.consumed) - 1
            self.objects_seen += 1
        if depth == self.args_depth and char == "{" and self._arguments_key(self.key1):
            self.args_open = True
        elif depth == self.args_depth + 1 and self.args_open and self.capture_start < 0:
            self.capture_start = len(self.consumed) - 1

    def _arguments_key(self, key: str) -> bool:
        return key in self.format.argument_keys and self.stack[0] == "{"

    def on_close(self, char: str) -> None:
        depth = self.depth
        if depth == self.args_depth and self.args_open and self.capture_start >= 0:
            raw = "".join(self.consumed[self.capture_start :])
            self.capture_start = -1
            try:
                self._argument(self.key2, json.loads(raw))
            except (ValueError, RecursionError):
                self.ctx.args.halt()
        elif depth == self.args_depth - 1 and self.args_open and depth > 0:
            self.args_open = False
        elif depth == 0:
            self._end_object()

    def on_key(self, key: str) -> None:
        if self.depth == self.args_depth and self.args_open:
            self.key2 = key
        elif self.depth == 1:
            self.key1 = key

    def on_string_start(self) -> None:
        depth = self.depth
        if depth == 1 and not self.named and self.key1 in self.format.name_keys:
            if self.name is None:
                self.name_pieces = []
        elif depth == self.args_depth and self.args_open and self.begun:
            if self.key2 in self.done:
                self._duplicate(self.key2)
                return
            self.partial = []
            self.streaming = self.ctx.args.open_string(self.key2)
            self._run_value(decoding=True)
            return
        if self.name_pieces is None and self.own_block and not self.not_a_call:
            # A string no hook reads piece by piece (a value of a call not begun yet, as in
            # `{"NAME": {…}}` or arguments written before the name; a nested value): only its
            # text as written is kept, for the object's decoding at its end.
            self._run_value(decoding=False)

    def _run_value(self, *, decoding: bool) -> None:
        """The string value in progress is plain text until its closing quote: the fast path
        (`ctx.stream_value`) takes its plain pieces to `consumed` (and, `decoding`, decoded to
        `partial`) without the hooks, and `read` takes long stretches of it in one go."""
        self.value_run = True
        self.decoding = decoding
        decoded = (self.partial,) if decoding else ()
        self.ctx.stream_value(JSON_STRING, raw=(self.consumed,), decoded=decoded)

    def _stop_value(self) -> None:
        if self.value_run:
            self.value_run = False
            self.ctx.stop_value()

    def _in_argument_string(self) -> bool:
        return (
            self.depth == self.args_depth
            and self.args_open
            and self.begun
            and self.duplicate is None
        )

    def on_string_piece(self, raw: str) -> None:
        if self.name_pieces is not None:
            self.name_pieces.append(raw)
        elif self._in_argument_string():
            text = decode_string_piece(raw)
            if text is None:
                self.ctx.args.halt()
                self._stop_value()
                self.streaming = False
                self.partial = []
                return
            self.partial.append(text)
            if self.streaming:
                self.ctx.args.string_chunk(text)

    def on_string_end(self) -> None:
        self._stop_value()
        if self.name_pieces is not None:
            name = decode_string_piece("".join(self.name_pieces))
            self.name_pieces = None
            self.name = name or ""
            self._begin()
        elif self._in_argument_string():
            if self.streaming:
                self.ctx.args.close_string()
                self.streaming = False
            if self.key2 not in self.done:
                self.done[self.key2] = "".join(self.partial)
            self.partial = []

    def on_scalar(self, raw: str) -> None:
        if self.depth == 0 and self.named:
            self.stray_text = True  # text where the arguments object belongs
        elif self.depth == 0 and not self.objects_seen and not FENCE_LINE.fullmatch(raw):
            self.prose_first = True
        elif self.depth == self.args_depth and self.args_open and self.begun:
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
        if self.named:
            # The call ends at its stop marker (or the end of the stream): a value may follow.
            self.values_end = len(self.consumed)
            self.args_open = False
            return
        raw = "".join(self.consumed[self.obj_start :])
        if raw.startswith("["):
            self._finish_array(raw)
        else:
            decoded = decode_json_object(raw, allow_repair=self.ctx.policy is Policy.LENIENT)
            self._finish_decoded(decoded.objects, decoded.error, decoded.repairs, at=self.cursor)
        self._new_object()

    def _named_arguments(self, raw: str) -> ArgumentsText:
        """What a named call's arguments, written as `raw`, are (best effort when broken)."""
        if self.duplicate is not None:
            return ArgumentsText(self._best_effort(), duplicate_key_error(self.duplicate), [])
        if self.stray_text and self.values_start < 0:
            return ArgumentsText({}, "the arguments are text, not a JSON object", [])
        read = arguments_from_text(raw, self.ctx, repairs=[])
        if read.error is not None and not read.arguments:
            read.arguments = self._best_effort()  # what streamed is a prefix of it
        return read

    def _end_named(self, raw: str, *, at: int) -> None:
        """End the header-named call with the arguments written as `raw`."""
        read = self._named_arguments(raw)
        self._end_call(read.arguments, at=at, error=read.error, repairs=read.repairs)

    def _end_call(
        self,
        arguments: dict[str, Any],
        *,
        at: int,
        error: str | None,
        repairs: Sequence[str] = (),
    ) -> None:
        self.ctx.end_call(arguments, at=at, error=error, repairs=repairs)
        self.calls_ended += 1
        self.begun = False

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
        self._finish_items(items, [], at=self.cursor)

    def _finish_items(self, items: list[Any], repairs: list[str], *, at: int) -> None:
        """A list of parallel calls (an array, an envelope's `tool_calls`), in order."""
        objects = [item for item in items if isinstance(item, dict)]
        if len(objects) != len(items):
            self.ctx.diagnostic("malformed_call", "a call array holds items that are not objects")
        for obj in objects:
            if self.not_a_call:
                break  # its first item names no declared tool: the block is text
            self.unknown = False  # each item names its own tool
            self._finish_object(obj, repairs, at=at)

    def _finish_envelope(self, envelope: Envelope, repairs: list[str], *, at: int) -> None:
        """A message written as text: its content is visible text, then come its calls; the
        content is sent only once its first call names a declared tool (else it all stays
        text, as written)."""
        first = envelope.calls[0] if envelope.calls else None
        name = call_name(first, self.format.name_keys) if isinstance(first, dict) else None
        if envelope.text and isinstance(name, str) and self.ctx.resolver.resolve(name):
            self.ctx.text(envelope.text)
        self._finish_items(envelope.calls, repairs, at=at)

    def _finish_decoded(
        self, objects: list[dict[str, Any]], error: str | None, repairs: list[str], *, at: int
    ) -> None:
        if error is not None or not objects:
            if self.begun:
                self._end_call(self._best_effort(), at=at, error=error or "no call object")
            else:
                self.ctx.diagnostic("malformed_call", error or "no call object in the block")
            return
        for obj in objects:
            self._finish_object(obj, repairs, at=at)

    def _finish_object(self, obj: dict[str, Any], repairs: list[str], *, at: int) -> None:
        envelope = envelope_of(obj)
        if envelope is not None:
            self._finish_envelope(envelope, repairs, at=at)
            return
        obj = call_object(obj, self.format.name_keys)
        name = call_name(obj, self.format.name_keys)
        if not self.begun:
            if self.unknown or not isinstance(name, str):
                if not self.unknown:
                    self.ctx.diagnostic("malformed_call", "a call object without a string name")
                return
            self.name = name
            self._begin()
            if not self.begun:
                return
        arguments: Any = next((obj[k] for k in self.format.argument_keys if k in obj), {})
        error = self._unread_keys(obj)
        if error is not None:
            arguments = self._best_effort() if isinstance(arguments, str) else arguments
            arguments = arguments if isinstance(arguments, dict) else {}
        elif self.duplicate is not None:
            error = duplicate_key_error(self.duplicate)
            arguments = self._best_effort()
        elif isinstance(arguments, str):
            read = arguments_from_text(arguments, self.ctx, repairs=[*repairs, "parse-json-string"])
            arguments, error, repairs = read.arguments, read.error, read.repairs
        elif not isinstance(arguments, dict):
            error = f"arguments must be a JSON object, got {type(arguments).__name__}"
            arguments = {}
        self._end_call(arguments, at=at, error=error, repairs=repairs)

    def _unread_keys(self, obj: dict[str, Any]) -> str | None:
        """Why a call object cannot be read whole (arguments given twice, keys nothing reads)."""
        fmt = self.format
        given = [k for k in fmt.argument_keys if k in obj]
        if len(given) > 1:
            return f"the call gives its arguments under several keys ({', '.join(given)})"
        known = fmt.metadata_keys | set(fmt.name_keys) | set(fmt.argument_keys)
        unread = [k for k in obj if k not in known]
        if unread:
            keys = ", ".join(repr(k[:64]) for k in unread[:5])
            return f"the call object holds keys that are not its name or arguments: {keys}"
        return None

    def _best_effort(self) -> dict[str, Any]:
        args = dict(self.done)
        if self.partial and self.key2 not in args:
            args[self.key2] = "".join(self.partial)
        return args

    # -------------------------------------------------------------------- BlockReader

    def read(self, buf: str, pos: int, end: int, final: bool) -> tuple[int, str | None]:
        """Consume JSON from `buf[pos:end]`: the new position and the stop marker found there
        (a closer or reopener, outside strings and not consumed), or None.

        A format that holds the JSON inside more markup of its own calls this, then `settle`
        at a stop; `step` does both for a block that is JSON alone.
        """
        if self.value_run and self.in_string:
            # A long string in one piece (a batch parse, a large chunk): its plain text and
            # simple escapes are taken in one go (`_whole_string`, else the plain-text run's
            # pattern); the scanner reads the rest.
            whole = _whole_string(buf, pos, end) if end - pos >= LONG_STRING else None
            if whole is not None:
                raw, text = whole
            else:
                m = _PLAIN_TEXT.match(buf, pos, end)
                raw = "" if m is None else m.group()
                text = _decode_plain(raw) if self.decoding else raw
            if raw:
                self.consumed.append(raw)
                if self.decoding:
                    self.partial.append(text)
                if self.streaming:
                    encoded = raw if is_canonical_json_string(raw) else None
                    self.ctx.args.string_chunk(text, encoded=encoded)
                pos += len(raw)
        return self.scan(buf, pos, end, final)

    def step(self, buf: str, pos: int, end: int, final: bool) -> int:
        pos, stop = self.read(buf, pos, end, final)
        if self.not_a_call:
            # Not a call of a declared tool: the whole block stays text.
            self.ctx.revert("".join(self.consumed[1:]), rescan=False)
            return pos
        if stop is None:
            return pos
        self.settle(pos)
        if stop in self.format.reopeners:
            self._end_block()  # a new block begins before this one closed
            return pos
        self.consumed.append(stop)
        self._end_block()
        return pos + len(stop)

    def settle(self, at: int) -> None:
        """The JSON ends at `buf[at]` (a stop marker): end what is still open there.

        An unclosed object is repaired when the policy allows, else its call fails. A named
        call ends here, with all the JSON values written before the stop.
        """
        if self.named:
            if self.begun:
                if self.depth > 0 or self.in_string:
                    self.values_end = len(self.consumed)
                self._end_named(self._arguments_text(), at=at)
            self._reset_scan()
        elif self.depth > 0 or self.in_string:
            self._close_unfinished(at)

    def cut(self, at: int, error: str) -> None:
        """The JSON ends unfinished at `buf[at]` because the output moved on (a format's next
        message began): the call in progress ends incomplete with `error`, never repaired."""
        if self.begun:
            self._end_call(self._best_effort(), at=at, error=error)
        self._reset_scan()

    def _close_unfinished(self, at: int) -> None:
        """The block closes with its JSON still open: repair if allowed, else fail the call."""
        raw = "".join(self.consumed[self.obj_start :]) if self.obj_start >= 0 else ""
        if self.ctx.policy is Policy.LENIENT and raw:
            decoded = decode_json_object(raw, allow_repair=True)
            if decoded.error is None and decoded.objects:
                self._finish_decoded(decoded.objects, None, decoded.repairs, at=at)
                self._reset_scan()
                return
        if self.begun:
            self._end_call(self._best_effort(), at=at, error="the call's JSON is not closed")
        self._reset_scan()

    def _reset_scan(self) -> None:
        self._stop_value()
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
                f"{self.format.block} held no usable call",
            )

    def at_eof(self) -> EofVerdict:
        if self.named and self.begun:
            if self.depth > 0 or self.in_string:
                return EofVerdict(recoverable=False, arguments=self._best_effort())
            raw = self._arguments_text()
            if not raw.strip():
                return EofVerdict(recoverable=False, reason=CUT_AFTER_HEADER)
            read = self._named_arguments(raw)
            if read.error is not None:
                return EofVerdict(recoverable=False, arguments=read.arguments, reason=read.error)
            return EofVerdict(recoverable=True, arguments=read.arguments)
        if self.depth == 0 and not self.in_string:
            return EofVerdict(recoverable=True)
        return EofVerdict(recoverable=False, arguments=self._best_effort())


class NamedArgumentsReader(BlockReader):
    """A block `MARKER HEADER HEADER_END {JSON arguments} CLOSER`, the header naming the tool.

    The shape of Kimi K2 (`<|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>`),
    Mistral (`[TOOL_CALLS]NAME[ARGS]`) and others: `name_of(header)` reads the tool name from
    the header (None: not a call). A header longer than `MAX_TAG_LENGTH`, one that names no
    tool, or a tool that does not resolve leaves the block text, as written.
    """

    def __init__(
        self,
        ctx: BlockContext,
        fmt: JsonCallFormat,
        marker: str,
        *,
        header_end: str,
        name_of: Callable[[str], str | None],
    ) -> None:
        self.ctx = ctx
        self.format = fmt
        self.marker = marker
        self.header_end = header_end
        self.name_of = name_of
        self.arguments: JsonCallsReader | None = None
        self.header_name: str | None = None  # the name of a header the stream cut off

    def step(self, buf: str, pos: int, end: int, final: bool) -> int:
        if self.arguments is None:
            limit = min(end, pos + MAX_TAG_LENGTH + len(self.header_end))
            j = buf.find(self.header_end, pos, limit)
            if j < 0:
                if limit - pos > MAX_TAG_LENGTH + len(self.header_end) - 1:
                    self.ctx.revert("", rescan=True)  # too long for a header: not a call
                elif final:
                    self.header_name = self.name_of(buf[pos:end])
                return pos
            header = buf[pos:j]
            name = self.name_of(header)
            if name is None or not self.ctx.begin_call(name):
                self.ctx.revert("", rescan=True)
                return pos
            after = j + len(self.header_end)
            self.arguments = JsonCallsReader.for_arguments(
                self.ctx, self.format, self.marker, buf[pos:after]
            )
            pos = after
        return self.arguments.step(buf, pos, end, final)

    def at_eof(self) -> EofVerdict:
        if self.arguments is None:
            return EofVerdict(recoverable=False, name=self.header_name)
        return self.arguments.at_eof()
