"""Call objects that end where their JSON ends: blocks with no closer of their own, and bare JSON.

    [TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}]        Mistral < v11
    <|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}; {…}   Llama 3.x
    <|tool_call|>[{…}]   functools[{…}]   {"name": "get_weather", "arguments": {…}} (bare)

The family reader (`json_calls.JsonCallsReader`) reads each JSON value; `CallValuesReader` adds
what such blocks need: one or more values separated by blanks, `,` or `;`; the block ends at
its closer if the format has one, else at the first text that is not another value (that text
stays visible); the key spellings models use (`CALL_FORMAT`: `name`/`function`/`tool`/
`tool_name`, `arguments`/`parameters`/`args`/`input`, the OpenAI `{"type": "function",
"function": {…}}` shape, and an OpenAI assistant message written as text, `{"role": "assistant",
"content": …, "tool_calls": [{…}, …]}` or `{"function_call": {…}}`, whose calls are the block's
and whose content is visible text before them, consumed whole).

False-positive guard for bare JSON (`bare`): the value must look like a call from its start
(`{"` or `[{`) and its first key (else it is text, read no further; an object opened by a
message's key, `role` or `content`, is read to its end and is text unless it is such a message
holding calls), its name must resolve
against the given tools, and with `tools=None` it is a call only when it stands alone as the
whole output (its calls wait for the end of the stream to say so) or when, blanks aside, the
next thing after it is another call block's opener (`BlockContext.block_openers`: a model that
writes a bare call and then a `<tool_call>` block wrote nothing but calls); prose before or
after it keeps it text. A `</tool_call>` after bare
calls (a Hermes block whose opener was left out) and a surplus `]` after a call list are the
block's own markup, not text.
Never: scans visible text (the engine does), knows any one format's markers.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from toolmend.core.jsonskip import RefusedJson
from toolmend.core.reader import (
    DATA,
    MAX_TAG_LENGTH,
    Anchor,
    BlockContext,
    BlockReader,
    BodyStart,
    EofVerdict,
)
from toolmend.core.textscan import is_proper_prefix, skip_blanks
from toolmend.jsontext import decode_json_object
from toolmend.model import Tool, ToolCall
from toolmend.names import ToolResolver
from toolmend.protocols.base import TextProtocol, declare_tools
from toolmend.protocols.json_calls import (
    ARGUMENT_KEYS,
    ENVELOPE_KEYS,
    METADATA_KEYS,
    NAME_KEYS,
    JsonCallFormat,
    JsonCallsReader,
    envelope_of,
)
from toolmend.schema_gate import Policy

#: The closer of a Hermes block whose opener the model left out (or the engine stripped, or
#: the prompt already wrote): after bare call JSON it is the block's end, markup, not text.
DROPPED_OPENER_CLOSERS = ("</tool_call>",)
#: Cohere's Command-A numbers its calls.
CALL_METADATA_KEYS = METADATA_KEYS | {"tool_call_id"}
#: What a call object's first key may be: anything else is not a call (the bare guard). An
#: assistant message written as text (`{"role": "assistant", "tool_calls": [...]}`) holds call
#: objects.
CALL_KEYS = frozenset((*NAME_KEYS, *ARGUMENT_KEYS, *CALL_METADATA_KEYS, *ENVELOPE_KEYS))


#: A bare list whose first item is a JSON value other than an object (`[1, …`, `["a", …`,
#: `[[…`, `[true, …`) is data: it and every call-shaped object in it are text (`BodyStart.data`).
#: A list of numbers is data once something other than numbers follows them, or they fill the
#: lookahead; closed right after them (`[1, 2]`, most brackets in prose) it holds nothing the
#: scanner would find, and is left to it as plain text.
_NUMBERS = r"-?[0-9][ \t0-9.+\-:,]*"
DATA_LIST_START = BodyStart(
    re.compile(
        rf'[ \t\r\n]*(?:["\[]|true|false|null|{_NUMBERS}[^ \t0-9.+\-:,\]])'
        rf"|(?=[ \t\r\n]*-?[0-9])[ \t\r\n0-9.+\-:,]{{{MAX_TAG_LENGTH + 1}}}"
    ),
    re.compile(rf"[ \t\r\n]*(?:-|t(?:ru?)?|f(?:a(?:ls?)?)?|n(?:ul?)?|{_NUMBERS})?"),
    lookahead=MAX_TAG_LENGTH + 1,
)
#: How a bare call value goes on after its first character, at most `MAX_TAG_LENGTH` blanks
#: on (the bare guard): an object with a key (`{"`), a list with an object (`[{`). The reader
#: refuses any other body at once (`BodyStart`), so the parser asks this before building one.
BARE_BODY_STARTS: Mapping[str, BodyStart] = {
    "{": BodyStart(
        re.compile(r'[ \t\r\n]*"'), re.compile(r"[ \t\r\n]*"), lookahead=MAX_TAG_LENGTH + 1
    ),
    "[": BodyStart(
        re.compile(r"[ \t\r\n]*\{"),
        re.compile(r"[ \t\r\n]*"),
        lookahead=MAX_TAG_LENGTH + 1,
        data=DATA_LIST_START,
    ),
}


def call_format(
    closers: tuple[str, ...] = (), reopeners: tuple[str, ...] = (), block: str = "a call block"
) -> JsonCallFormat:
    """The `JsonCallFormat` of a format of call objects, with every key spelling models use."""
    return JsonCallFormat(
        closers=closers,
        reopeners=reopeners,
        block=block,
        name_keys=NAME_KEYS,
        metadata_keys=CALL_METADATA_KEYS,
    )


def _bounded_blanks(buf: str, pos: int, end: int) -> tuple[int, int]:
    """The end of the blanks at `pos`, and the end of what may be looked at after them.

    A reader waits for what follows a run of blanks only while the run is within
    `MAX_TAG_LENGTH`; a longer run must decide the same way whether the character after it has
    arrived (one piece) or not (one character at a time), so past the bound nothing is seen.
    """
    i = skip_blanks(buf, pos, min(end, pos + MAX_TAG_LENGTH + 1))
    return i, (i if i - pos > MAX_TAG_LENGTH else end)


class CallValuesReader(JsonCallsReader):
    """Reads a block of JSON call values that ends where they end (see the module).

    `prime` is the end of the opening marker that is already JSON (a bare `{` or `[`, Phi-4's
    `functools[`): it is read first. `separators` may stand between values besides blanks.
    Bare values may end at a `DROPPED_OPENER_CLOSERS` closer; with `closer_required` (Hermes
    JSON whose opener was left out) they are calls only when it follows them.
    """

    def __init__(
        self,
        ctx: BlockContext,
        fmt: JsonCallFormat,
        marker: str,
        *,
        bare: bool = False,
        prime: str = "",
        separators: str = ",;",
        closer_required: bool = False,
    ) -> None:
        super().__init__(ctx, fmt, marker)
        self.bare = bare
        self.separators = separators
        self.closer_required = closer_required
        self.closers = fmt.closers
        if bare:
            self.closers = tuple(dict.fromkeys((*fmt.closers, *DROPPED_OPENER_CLOSERS)))
        #: The closer arrived and, with tools=None, only blanks may follow it.
        self.after_close = False
        self.blanks_after = 0  # the blanks read after it
        self.in_value = False
        self.values = 0
        self.keys_seen = 0
        #: Inside a `[` list of call objects: its brackets are the block's own syntax, each
        #: object in it a value of its own (read, streamed and ended as it closes).
        self.in_list = False
        #: The list has just closed: a `]` may still follow it (one too many).
        self.list_closed = False
        #: With tools=None a bare block is a call only if it is the whole output: its call
        #: objects wait here until the end of the stream says so.
        #: With `closer_required` they wait for the closer.
        self.deferred: list[dict[str, Any]] | None = None
        if bare and (ctx.resolver.accepts_any or closer_required):
            self.deferred = []  # (it opened at the output's start: `CallValuesProtocol.anchors`)
        #: The bare guard: how the value must go on after `prime` (`BARE_BODY_STARTS`).
        self.body_start = BARE_BODY_STARTS.get(prime) if bare else None
        self.guarded = self.body_start is None  # the bare guard has looked at the value's start
        #: A bare value refused while still open: the rest of it is text (see `RefusedJson`),
        #: for a value the marker itself opened (a fence reads its own rest instead).
        self.refused: RefusedJson | None = None
        self.skips_refused = bare and bool(prime)
        if prime == "[":
            self.in_list = True
            self.values = 1
        elif prime and not self.not_a_call:
            self.in_value = True
            self.scan(prime, 0, len(prime), False)
        self.skip = len(self.consumed)  # the marker (and prime): not re-emitted by a revert

    # --------------------------------------------------------------------- JsonScan hooks

    def _refuse(self) -> None:
        """Not a call: a bare block is text from here on, read no further."""
        if self.bare and self.calls_ended == 0 and not self.begun:
            self.not_a_call = True
            self.decided = True

    def _new_object(self) -> None:
        super()._new_object()
        self.keys_seen = 0
        self.envelope = False  # its first key is a message's: an assistant message of calls

    def on_open(self, char: str) -> None:
        if self.depth == 1:
            self.values += 1
            if char == "[":
                self._refuse()  # a list in a list
        elif self.depth == 2 and not self.keys_seen:
            self._refuse()  # a container where a key belongs
        super().on_open(char)

    def on_key(self, key: str) -> None:
        if self.depth == 1:
            self.keys_seen += 1
            if self.keys_seen == 1:
                self.envelope = key in ENVELOPE_KEYS
                if key not in CALL_KEYS:
                    self._refuse()
        super().on_key(key)

    def on_scalar(self, raw: str) -> None:
        if self.depth == 1 and not self.envelope:
            self._refuse()  # a bare word where a key belongs
        super().on_scalar(raw)

    def _begin(self) -> None:
        if self.deferred is None:
            super()._begin()

    def _end_object(self) -> None:
        if self.not_a_call:
            return  # refused as it closed (its last token): the block is text
        if self.deferred is not None:
            raw = "".join(self.consumed[self.obj_start :])
            decoded = decode_json_object(raw, allow_repair=self.ctx.policy is Policy.LENIENT)
            items = [] if decoded.error is not None else _calls_of(decoded.objects)
            if not items or not all(map(_names_a_tool, items)):
                self._refuse()
            else:
                self.deferred += decoded.objects
            self._new_object()
        else:
            super()._end_object()
        self.decided = True  # the value is whole: separators, a closer or text follow

    def _finish_decoded(
        self, objects: list[dict[str, Any]], error: str | None, repairs: list[str], *, at: int
    ) -> None:
        if self.envelope and (error is not None or not all(map(envelope_of, objects))):
            self._refuse()  # JSON opened like a message that is none (`{"role": "user", …}`)
            if self.not_a_call:
                return
        super()._finish_decoded(objects, error, repairs, at=at)

    def _finish_object(self, obj: dict[str, Any], repairs: list[str], *, at: int) -> None:
        function = obj.get("function")
        if isinstance(function, dict) and "name" not in obj:
            # The OpenAI wire shape {"type": "function", "function": {"name": …, …}}.
            obj = {k: v for k, v in obj.items() if k not in ("function", "type")} | function
        super()._finish_object(obj, repairs, at=at)

    # -------------------------------------------------------------------- BlockReader

    def step(self, buf: str, pos: int, end: int, final: bool) -> int:
        if self.after_close:
            return self._after_close(buf, pos, end, final)
        if self.refused is not None:
            return self._skip_refused(buf, pos, end, final)
        if not self.guarded and not self.not_a_call:
            # The guard: a call's JSON goes on with a key (`{"`) or an object (`[{`); a list
            # of other values is data, all text (as the parser takes it when it asks first).
            assert self.body_start is not None
            opens = self.body_start.outcome(buf, pos, end, final)
            if opens is None:
                return pos
            if opens == DATA:
                return self._pass_over(RefusedJson(1, in_string=False), buf, pos, end, final)
            if not opens:
                return self._revert(pos, rescan=True)
            self.guarded = True
        while True:
            if self.not_a_call:
                return self._give_up(pos, buf, end, final)
            if self.in_value:
                new, stop = self.read(buf, pos, end, final)
                if self.not_a_call:
                    return self._give_up(new, buf, end, final)
                if self.decided:
                    self.decided = self.in_value = False  # the value closed at `new`
                elif stop is not None:
                    self.settle(new)  # a closer inside unfinished JSON
                    self.in_value = False
                else:
                    return new
                pos = new
                continue
            new, done = self._between(buf, pos, end, final)
            if done or (new == pos and not self.in_value):
                return new
            pos = new

    def _between(self, buf: str, pos: int, end: int, final: bool) -> tuple[int, bool]:
        """Between values: blanks and separators, then a value, a closer, or the block's end."""
        i, end = _bounded_blanks(buf, pos, end)
        if i < end and buf[i] in self.separators and self.values:
            self.consumed.append(buf[pos : i + 1])
            return i + 1, False
        for closer in self.closers:
            if buf.startswith(closer, i, end):
                self.consumed.append(buf[pos : i + len(closer)])
                if self.deferred is not None and self.ctx.resolver.accepts_any and self.values:
                    self.after_close = True  # the whole-output rule: decided by what follows
                    return i + len(closer), True
                return self._end(i + len(closer), closed=True), True
        if any(buf.startswith(m, i, end) for m in self.format.reopeners):
            return self._end(pos), True
        markers = (*self.closers, *self.format.reopeners, *self._followers())
        undecided = i == end or is_proper_prefix(buf[i:end], markers)
        if undecided and not final and i - pos <= MAX_TAG_LENGTH:
            return pos, False  # what follows may still be a closer (`[` of `[/TOOL_CALLS]`)
        if i < end and buf[i] == "[" and not self.in_list:
            self.consumed.append(buf[pos : i + 1])
            self.in_list = True
            self.values += 1
            return i + 1, False
        if i < end and buf[i] == "]" and (self.in_list or self.list_closed):
            # The list's end; a `]` right after it is one too many (Ollama's "list trailing ]"),
            # the list's own markup rather than text.
            self.consumed.append(buf[pos : i + 1])
            self.list_closed = True
            self.in_list = False
            return i + 1, False
        self.list_closed = False
        if i < end and buf[i] == "{":
            self.consumed.append(buf[pos:i])
            self.in_value = True
            return i, False
        if self.objects_seen == 0:
            return self._revert(pos, rescan=True), True  # the marker opens no call: text
        if self.deferred is not None and self._call_follows(buf, i, end):
            return self._end(pos), True  # another call follows: nothing but calls so far
        if self.closer_required or (self.deferred is not None and not (final and i == end)):
            return self._revert(pos), True  # text follows: the JSON was not the whole output
        return self._end(pos), True

    def _after_close(self, buf: str, pos: int, end: int, final: bool) -> int:
        """After the closer of deferred calls (tools=None): only blanks may follow them."""
        i = skip_blanks(buf, pos, end)
        self.consumed.append(buf[pos:i])
        self.blanks_after += i - pos
        # Another call's opener counts within a tag's length of blanks, however they arrive.
        near = self.blanks_after <= MAX_TAG_LENGTH
        if near and i < end and not final and is_proper_prefix(buf[i:end], self._followers()):
            return i  # what follows may still be another call's opener
        if near and i < end and self._call_follows(buf, i, end):
            self.after_close = False
            return CallValuesReader._end(self, i, closed=True)
        if i < end:  # text follows: the calls were not the whole output
            self.after_close = False
            return CallValuesReader._revert(self, i)
        if final:
            self.after_close = False
            return CallValuesReader._end(self, i, closed=True)
        return i

    def _followers(self) -> Sequence[str]:
        """What may follow deferred calls as another call's opener (tools=None)."""
        return self.ctx.block_openers if self.deferred is not None else ()

    def _call_follows(self, buf: str, i: int, end: int) -> bool:
        """Another call block opens at `buf[i]`, right after the deferred calls and blanks:
        the output holds nothing but calls so far, so they are calls (with tools=None a bare
        call is one only as the whole output or among other calls, never in prose)."""
        return not self.closer_required and any(
            buf.startswith(m, i, end) for m in self._followers()
        )

    def _give_up(self, at: int, buf: str, end: int, final: bool) -> int:
        """Not a call. A bare value refused before its end is text up to its end, never
        scanned again (a call object nested in other JSON, `{"messages": [{"role": "assistant",
        "tool_calls": [...]}]}`, is an example, not a call); any other is reverted."""
        depth = self.depth + self.in_list
        if not self.skips_refused or (depth == 0 and not self.in_string):
            return self._revert(at)
        return self._pass_over(RefusedJson(depth, in_string=self.in_string), buf, at, end, final)

    def _pass_over(self, refused: RefusedJson, buf: str, at: int, end: int, final: bool) -> int:
        """The rest of the value is text up to its end, passed on as it is read."""
        self.refused = refused
        self.ctx.pass_text()
        self.ctx.text(self.consumed[0] + "".join(self.consumed[self.skip :]))
        return self._skip_refused(buf, at, end, final)

    def _skip_refused(self, buf: str, pos: int, end: int, final: bool) -> int:
        assert self.refused is not None
        new, done = self.refused.skip(buf, pos, end)
        if new > pos:
            self.ctx.text(buf[pos:new])
        if done or (final and new == end):
            self.ctx.end_block()
        return new

    def _revert(self, at: int, *, rescan: bool = False) -> int:
        self.ctx.revert("".join(self.consumed[self.skip :]), rescan=rescan)
        return at

    def _end(self, at: int, *, closed: bool = False) -> int:
        """The block ends at `at` (`closed`: at its closer); its deferred calls are read."""
        if self.closer_required and not closed:
            return self._revert(at)  # Hermes JSON without its opener needs its closer
        deferred, self.deferred = self.deferred, None
        for obj in deferred or ():
            self._finish_object(obj, [], at=at)
        if self.calls_ended:
            self.ctx.end_block()
        elif self.bare:
            self._revert(at)  # JSON that holds no call is text
        else:
            self._end_block()
        return at

    def at_eof(self) -> EofVerdict:
        if self.in_value:
            return super().at_eof()
        return EofVerdict(recoverable=True)


def _calls_of(objects: list[dict[str, Any]]) -> list[Any]:
    """The call objects of top-level JSON objects: a message's calls, else the object."""
    out: list[Any] = []
    for obj in objects:
        envelope = envelope_of(obj)
        out += [obj] if envelope is None else envelope.calls
    return out


def _names_a_tool(value: Any) -> bool:
    """A call object (a call shape, before any tool is known): a string name and its arguments
    under one of the argument keys. `{"name": "John"}` alone is data a model answered with
    (a record, a structured reply), not a call: with no tools to resolve the name against,
    only the arguments key says it is one."""
    if not isinstance(value, dict):
        return False
    function = value.get("function")
    inner = function if isinstance(function, dict) else value
    named = any(isinstance(inner.get(k), str) for k in NAME_KEYS)
    return named and any(k in inner for k in ARGUMENT_KEYS)


class CallValuesProtocol(TextProtocol):
    """A format whose calls are JSON call objects after its opening marker, in a list.

    A format module sets `opener`, `format` (its closers and reopeners) and, for rendering,
    `closer` (written after the list), `arguments_key` and `wrap_result`.
    """

    opener: str = ""
    #: The first characters of a bare call value (`{`, `[`), for a format that reads one
    #: without a marker: with `tools=None` such a call is the whole output, so they open a
    #: block only at its start.
    bare_markers: tuple[str, ...] = ()
    format: JsonCallFormat = call_format()
    #: Written after a rendered list of calls (the format's closer, if it has one).
    closer: str = ""
    arguments_key: str = "arguments"
    name_key: str = "name"

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return (self.opener,)

    def anchors(self, resolver: ToolResolver) -> Mapping[str, Anchor]:
        start: Anchor = "output"
        return dict.fromkeys(self.bare_markers, start) if resolver.accepts_any else {}

    def body_starts(self, resolver: ToolResolver) -> Mapping[str, BodyStart]:
        # (a bare marker's reader is a bare `CallValuesReader` primed with it: `new_reader`)
        return {marker: BARE_BODY_STARTS[marker] for marker in self.bare_markers}

    def closing_markers(self) -> Sequence[str]:
        return (*self.format.closers, *self.format.reopeners)

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        return CallValuesReader(ctx, self.format, marker)

    def call_object(self, call: ToolCall) -> dict[str, Any]:
        return {self.name_key: call.name, self.arguments_key: call.arguments}

    def render_tools(self, tools: Sequence[Tool]) -> str:
        example = json.dumps({self.name_key: "<function-name>", self.arguments_key: {}})
        then = f", then {self.closer}" if self.closer else ""
        return (
            declare_tools(tools)
            + f"To call functions, write {self.opener} and then a JSON list of calls, each "
            f"with its name and its arguments object{then}:\n"
            f"{self.opener}[{example}]{self.closer}"
        )

    def render_call(self, call: ToolCall) -> str:
        body = json.dumps([self.call_object(call)], ensure_ascii=False)
        return f"{self.opener}{body}{self.closer}"
