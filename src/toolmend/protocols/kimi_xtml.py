"""Kimi XTML (Kimi K3's native channel syntax): typed `argument` channels in `call` channels.

The wire format (one line on the wire; spaces added here for reading)::

    <|open|>tools<|sep|>
      <|open|>call tool="NAME" index="1"<|sep|>
        <|open|>argument key="KEY" type="string"<|sep|>VALUE<|close|>argument<|sep|>
      <|close|>call<|sep|>
    <|close|>tools<|sep|>

Owns the format: the tool declaration, a call written back with typed arguments, the tool-result
channel, and the block reader the shared `StreamParser` runs. What a marker is comes from
`xtml_markers` (shared with leak recovery); this module only says what each marker means here.

Reading rules:

* `type` is `string` (the default when absent), `number`, `boolean`, `object`, `array` or `null`
  (aliases: str, integer, int, float, bool). A string value is the raw text between the markers,
  streamed while it is written; every other value must be strict JSON of that type, else the
  call is rejected (incomplete, with a diagnostic), never coerced.
* Several `call` channels in one `tools` block are parallel calls. A `call` channel without the
  `tools` wrapper is read the same way.
* A call whose tool does not resolve stays text, markup and all; so does a `tools` block holding
  only such calls. A malformed call header is not a call (text).
* Anything else inside a call than argument channels and whitespace makes the call incomplete.
* An argument whose `<|close|>argument` is missing ends at the call's `<|close|>call` (or the
  wrapper's `<|close|>tools`), which then closes the call too (`core/closers.py`'s rule for
  nested closers): a repair under the lenient policy, an error under strict.
* A call cut off right after its header (nothing but blanks after it, not even a piece of
  `<|close|>call`) is incomplete, even when its tool requires nothing: R3's empty-body rule
  (`core/calls.py`).
* The `think` channel is reasoning (`reasoning_spans`): the parser never scans it for calls.
* Any other complete marker in visible text (a stray channel transition: response,
  message, unnamed `<|open|><|sep|>`, a bare `<|sep|>`, a sep-less `<|close|>think`) is removed
  and recorded (`markup_stripped` with its length, `xtml_marker_stripped` with its channel).
  Code spans are never read (the engine's text scanner masks them).

Results (our choice; Kimi's own chat template feeds results as a separate message role, which a
text protocol cannot express): `<|open|>tool_result call_id="ID" tool="NAME"<|sep|>CONTENT
<|close|>tool_result<|sep|>`, a channel of the same syntax the model already reads.

Never: defines marker syntax (xtml_markers does), scans text or code spans (the engine), checks
or repairs arguments against a schema (the schema gate).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from toolmend.core.fastpath import ValueText
from toolmend.core.keyrules import duplicate_key_error
from toolmend.core.reader import (
    CUT_AFTER_HEADER,
    CUT_OFF,
    MAX_TAG_LENGTH,
    BlockContext,
    BlockReader,
    EofVerdict,
    ReasoningSpan,
)
from toolmend.core.textscan import is_proper_prefix, skip_blanks
from toolmend.jsontext import json_type
from toolmend.model import Tool, ToolCall, canonical_json
from toolmend.names import ToolResolver
from toolmend.protocols.base import TextProtocol, declare_tools
from toolmend.protocols.xtml_markers import CLOSE, LEADS, OPEN, SEP, MarkerStatus, match_marker
from toolmend.schema_gate import Policy
from toolmend.textvalue import strict_json_as

TOOLS_OPEN = f"{OPEN}tools{SEP}"
TOOLS_CLOSE = f"{CLOSE}tools{SEP}"
CALL_CLOSE = f"{CLOSE}call{SEP}"
ARGUMENT_CLOSE = f"{CLOSE}argument{SEP}"
CALL_OPEN = f"{OPEN}call"
ARGUMENT_OPEN = f"{OPEN}argument"
RESULT_CHANNEL = "tool_result"

#: The `type` attribute -> the JSON kind the value must have.
ARGUMENT_TYPES: dict[str, str] = {
    "string": "string",
    "str": "string",
    "number": "number",
    "integer": "number",
    "int": "number",
    "float": "number",
    "boolean": "boolean",
    "bool": "boolean",
    "object": "object",
    "array": "array",
    "null": "null",
}

_ATTRIBUTE = re.compile(r'[ \t\r\n]*([A-Za-z_][\w.:-]*)[ \t]*=[ \t]*"([^"]*)"')
#: A string value is text as written up to the next marker (no escapes), for the fast path.
_VALUE_TEXT = ValueText(LEADS)
_QUOTED_TOOL = re.compile(r'(?:^|[ \t\r\n])tool[ \t]*=[ \t]*"([^"]*)"')


def parse_attributes(text: str) -> dict[str, str] | None:
    """`key="a" type="string"` -> {"key": "a", "type": "string"}; None when malformed.

    Values are taken as written (no entity decoding); the first of a repeated name wins.
    """
    attrs: dict[str, str] = {}
    pos = 0
    while pos < len(text):
        m = _ATTRIBUTE.match(text, pos)
        if m is None:
            return attrs if not text[pos:].strip(" \t\r\n") else None
        attrs.setdefault(m.group(1), m.group(2))
        pos = m.end()
    return attrs


def decode_typed(raw: str, kind: str) -> tuple[Any, str | None]:
    """A non-string value: strict JSON of `kind` (surrounding whitespace allowed), or an error.

    Kimi's wire names the type, so nothing else is read (`textvalue.strict_json_as`)."""
    return strict_json_as(raw, kind)


class KimiXtmlProtocol(TextProtocol):
    id = "kimi-xtml"
    #: The think channel is reasoning (its close may lack the `<|sep|>`).
    reasoning_spans = (ReasoningSpan(f"{OPEN}think{SEP}", (f"{CLOSE}think{SEP}", f"{CLOSE}think")),)
    summary = (
        'Kimi K3 XTML channels: <|open|>tools<|sep|><|open|>call tool="..."<|sep|>'
        '<|open|>argument key="..." type="..."<|sep|>...<|close|>argument<|sep|>...'
    )
    #: Any XTML marker in a result could end its channel or open another one.
    result_closers = (CLOSE, OPEN, SEP)

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return LEADS

    def closing_markers(self) -> Sequence[str]:
        return (CALL_CLOSE, TOOLS_CLOSE)

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        return XtmlReader(marker, ctx)

    def render_tools(self, tools: Sequence[Tool]) -> str:
        return (
            declare_tools(tools, noun="tools", wrap=False)
            + "To call tools, write one tools channel holding a call channel per call (the calls "
            "of one tools channel run in parallel; number them with index):\n"
            f'{TOOLS_OPEN}{OPEN}call tool="TOOL_NAME" index="1"{SEP}'
            f'{OPEN}argument key="ARGUMENT_NAME" type="string"{SEP}VALUE{ARGUMENT_CLOSE}'
            f"{CALL_CLOSE}{TOOLS_CLOSE}\n\n"
            "Write one argument channel per argument. Its type is string, number, boolean, "
            "object, array or null. A string value is written as it is, without quotes or "
            "escapes; any other value is written as JSON."
        )

    def render_call(self, call: ToolCall) -> str:
        parts = [TOOLS_OPEN, f'{OPEN}call tool="{call.name}" index="1"{SEP}']
        for key, value in call.arguments.items():
            kind = json_type(value, integers=False)
            text = value if isinstance(value, str) else canonical_json(value)
            parts.append(f'{OPEN}argument key="{key}" type="{kind}"{SEP}{text}{ARGUMENT_CLOSE}')
        parts += [CALL_CLOSE, TOOLS_CLOSE]
        return "".join(parts)

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        return (
            f'{OPEN}{RESULT_CHANNEL} call_id="{call_id}" tool="{name}"{SEP}'
            f"{content}{CLOSE}{RESULT_CHANNEL}{SEP}"
        )


_HEAD, _TOOLS, _BODY, _VALUE = range(4)


class _Call:
    """One call being read (of a declared tool, or of an unknown one whose markup is text)."""

    __slots__ = (
        "arguments",
        "error",
        "junk",
        "key",
        "kind",
        "known",
        "pieces",
        "repairs",
        "streaming",
    )

    def __init__(self, known: bool) -> None:
        self.known = known
        self.arguments: dict[str, Any] = {}
        self.error: str | None = None
        self.key: str | None = None  # the argument in progress; None: its value is discarded
        self.kind = "string"
        self.pieces: list[str] = []  # the raw value of the argument in progress
        self.streaming = False
        self.junk = False  # unexpected content was met (reported once)
        self.repairs: list[str] = []  # forgotten closers put back


class XtmlReader(BlockReader):
    """Reads one block opened by `<|open|>`, `<|close|>` or `<|sep|>` (see the module doc).

    Headers (a call's or an argument's, bounded by `MAX_TAG_LENGTH`) and markers are held back
    until complete, then decided at once; values are consumed as they come. Until a call of a
    declared tool begins, the reader keeps what it consumed, so that the block can become text.
    """

    def __init__(self, lead: str, ctx: BlockContext) -> None:
        self.lead = lead
        self.ctx = ctx
        self.state = _HEAD
        self.wrapped = False  # opened by <|open|>tools<|sep|>
        self.consumed: list[str] = []  # text after the lead, while the block may become text
        self.tracking = True
        self.literal = False  # an unknown call was read: the block so far is text
        self.calls_ended = 0
        self.call: _Call | None = None
        self.over = False  # the block ended or was reverted
        self.eof_name: str | None = None  # a readable name in a call header cut off by the end
        self.tail_ok = True  # at the end, what is left after the last argument may be ignored
        self.closer_begun = False  # at the end, (a proper prefix of) a call's closer was read

    # ------------------------------------------------------------------------ BlockReader

    def step(self, buf: str, pos: int, end: int, final: bool) -> int:
        if self.state == _VALUE and not final:
            pos, again = self._value(buf, pos, end, final)  # the hot path: inside a long value
            if not again:
                return pos
        again = True
        while again and not self.over:
            if self.state == _VALUE:
                pos, again = self._value(buf, pos, end, final)
            elif self.state == _BODY:
                pos, again = self._body(buf, pos, end, final)
            elif self.state == _TOOLS:
                pos, again = self._tools(buf, pos, end, final)
            else:
                pos, again = self._head(buf, pos, end, final)
        if final and self.literal and not self.over:
            # The stream ended inside the markup of an unknown tool: all of it is text.
            self.consumed.append(buf[pos:end])
            pos, _ = self._revert(end)
        return pos

    def at_eof(self) -> EofVerdict:
        call = self.call
        if call is None:
            return EofVerdict(recoverable=False, name=self.eof_name)
        arguments = dict(call.arguments)
        if self.state == _BODY:
            if not arguments and call.error is None and not self.closer_begun:
                return EofVerdict(False, reason=CUT_AFTER_HEADER)
            ok = call.error is None and self.tail_ok
            return EofVerdict(ok, arguments, reason=call.error or CUT_OFF)
        if call.key is not None and call.kind == "string" and call.key not in arguments:
            arguments[call.key] = "".join(call.pieces)
        return EofVerdict(False, arguments, reason=call.error or CUT_OFF)

    # ---------------------------------------------------------------------------- helpers

    def _advance(self, buf: str, pos: int, new: int) -> int:
        if self.tracking and new > pos:
            self.consumed.append(buf[pos:new])
        return new

    def _revert(self, at: int) -> tuple[int, bool]:
        """Everything consumed (ending at `at`) becomes text, the lead first."""
        self.ctx.revert("".join(self.consumed), rescan=False)
        self.over = True
        return at, True

    def _end_block(self, at: int) -> tuple[int, bool]:
        self.ctx.end_block()
        self.over = True
        return at, True

    def _leave(self, at: int) -> tuple[int, bool]:
        """Something that is not a call at `at`: the block ends before it."""
        if self.literal:
            return self._revert(at)
        return self._end_block(at)

    def _call_error(self, call: _Call, code: str, message: str, **metadata: Any) -> None:
        if not call.known:
            return
        if call.error is None:
            call.error = message
        self.ctx.args.halt()
        self.ctx.diagnostic(code, message, **metadata)

    def _header_end(self, buf: str, elem: int, marker_end: int, end: int) -> int | None:
        """Where the `<|sep|>` ending a header begins; -1 when the header is too long."""
        limit = elem + MAX_TAG_LENGTH
        sep = buf.find(SEP, marker_end, min(end, limit))
        if sep != -1:
            return sep
        return None if end < limit else -1

    # ------------------------------------------------------------------------- the states

    def _head(self, buf: str, pos: int, end: int, final: bool) -> tuple[int, bool]:
        m = match_marker(buf, pos, end, final, lead=self.lead)
        if m.status is MarkerStatus.PARTIAL:
            return pos, False
        if m.status is MarkerStatus.NONE:
            return self._revert(pos)
        if m.is_marker("open", "tools") and m.has_sep:
            self.wrapped = True
            self.state = _TOOLS
            return self._advance(buf, pos, m.end), True
        if m.is_marker("open", "call") and not m.has_sep:
            return self._call_header(buf, pos, m.end, end, final)
        if m.structural:
            # `<|open|>argument` outside a call, or `<|open|>call<|sep|>` with no header.
            return self._revert(pos)
        self.ctx.diagnostic(
            "xtml_marker_stripped",
            "a stray XTML channel marker was removed from the text",
            kind=m.kind,
            channel=m.channel,
        )
        return self._end_block(m.end)

    def _tools(self, buf: str, pos: int, end: int, final: bool) -> tuple[int, bool]:
        j = self._advance(buf, pos, skip_blanks(buf, pos, end))
        if j == end or (final and is_proper_prefix(buf[j:end], (CALL_OPEN,))):
            return j, False  # at the end: cut before a call's name (the engine drops it)
        if buf[j] != "<":
            return self._leave(j)
        m = match_marker(buf, j, end, final)
        if m.status is MarkerStatus.PARTIAL:
            return j, False
        if m.is_marker("open", "call") and not m.has_sep:
            return self._call_header(buf, j, m.end, end, final)
        if m.is_marker("close", "tools"):
            new = self._advance(buf, j, m.end)
            return self._revert(new) if self.literal else self._end_block(new)
        return self._leave(j)

    def _call_header(
        self, buf: str, elem: int, marker_end: int, end: int, final: bool
    ) -> tuple[int, bool]:
        """`<|open|>call` at `elem`: read its header once it is complete, then decide."""
        sep = self._header_end(buf, elem, marker_end, end)
        if sep is None:
            if final:
                self._cut_in_call_header(buf[marker_end:end])
            return elem, False
        attrs = parse_attributes(buf[marker_end:sep]) if sep >= 0 else None
        name = attrs.get("tool") if attrs else None
        if not name:
            # Not a call header: at the top it is text, in a tools block the block ends here.
            if self.state == _HEAD and sep >= 0:
                return self._revert(self._advance(buf, elem, sep + len(SEP)))
            return self._revert(elem) if self.state == _HEAD else self._leave(elem)
        header_end = sep + len(SEP)
        if self.ctx.resolver.resolve(name) is not None:
            if self.literal:
                # Unknown calls came first: they are text; this call is read as one of its own.
                return self._revert(elem)
            if self.ctx.begin_call(name):
                self.tracking = False
                self.consumed.clear()
                self.call = _Call(known=True)
                self.state = _BODY
                return header_end, True
        if self.calls_ended:
            return self._end_block(elem)  # read again as a block of its own, which stays text
        self.ctx.begin_call(name)  # records that the name does not resolve
        self.literal = True
        self.call = _Call(known=False)
        self.state = _BODY
        return self._advance(buf, elem, header_end), True

    def _cut_in_call_header(self, header: str) -> None:
        """The stream ended inside a call header: keep a readable name for R1, or make text."""
        m = _QUOTED_TOOL.search(header)
        if m is None:
            return  # no readable name: the engine drops the fragment
        if self.ctx.resolver.resolve(m.group(1)) is not None:
            self.eof_name = m.group(1)
        elif not self.calls_ended:
            self.ctx.begin_call(m.group(1))  # records the unknown name
            self.literal = True

    def _body(self, buf: str, pos: int, end: int, final: bool) -> tuple[int, bool]:
        call = self.call
        assert call is not None
        j = self._advance(buf, pos, skip_blanks(buf, pos, end))
        if j == end:
            return j, False
        if final and is_proper_prefix(buf[j:end], (CALL_CLOSE, SEP)):
            self.closer_begun = True
            return j, False  # R3: only (a proper prefix of) the closer is missing
        if final and is_proper_prefix(buf[j:end], (ARGUMENT_OPEN,)):
            self.tail_ok = False  # cut inside an argument header
            return j, False
        m = match_marker(buf, j, end, final)
        if m.status is MarkerStatus.PARTIAL:
            return j, False
        if m.is_marker("open", "argument") and not m.has_sep:
            return self._argument_header(call, buf, j, m.end, end, final)
        if m.is_marker("close", "call"):
            return self._end_call(call, self._advance(buf, j, m.end))
        if m.is_marker("close", "tools") and self.wrapped:
            at = self._advance(buf, j, m.end)
            return self._end_call(call, at, close_block=True, repairs=["xtml-call-close-missing"])
        if m.is_marker("open", "call") and not m.has_sep:
            return self._end_call(call, j, error="the call was not closed before the next one")
        if m.status is MarkerStatus.COMPLETE:
            stop = m.end
        else:
            stop = buf.find("<", j + 1, end)
            stop = end if stop == -1 else stop
        if not call.junk:  # once per call: the junk may arrive in any number of pieces
            call.junk = True
            self._call_error(
                call,
                "xtml_unexpected_content",
                "unexpected content between the arguments of a call",
            )
        return self._advance(buf, j, stop), True

    def _end_call(
        self,
        call: _Call,
        at: int,
        *,
        error: str | None = None,
        close_block: bool = False,
        repairs: Sequence[str] = (),
    ) -> tuple[int, bool]:
        self.call = None
        self.state = _TOOLS
        if call.known:
            repairs = [*call.repairs, *repairs]
            self.ctx.end_call(call.arguments, at=at, error=error or call.error, repairs=repairs)
            self.calls_ended += 1
            if close_block or not self.wrapped:
                return self._end_block(at)
            return at, True
        if close_block or not self.wrapped:
            return self._revert(at)
        return at, True

    def _argument_header(
        self, call: _Call, buf: str, elem: int, marker_end: int, end: int, final: bool
    ) -> tuple[int, bool]:
        sep = self._header_end(buf, elem, marker_end, end)
        if sep is None:
            if final:
                self.tail_ok = False  # cut inside an argument header
            return elem, False
        if sep < 0:
            self._call_error(call, "malformed_argument", "an argument header is too long")
            return self._advance(buf, elem, marker_end), True
        attrs = parse_attributes(buf[marker_end:sep])
        new = self._advance(buf, elem, sep + len(SEP))
        self.state = _VALUE
        call.key = None
        call.pieces = []
        call.streaming = False
        key = attrs.get("key") if attrs is not None else None
        type_name = (attrs or {}).get("type", "string")
        kind = ARGUMENT_TYPES.get(type_name.strip().lower())
        if key is None:
            self._call_error(call, "malformed_argument", "an argument header without a key")
        elif kind is None:
            self._call_error(
                call,
                "malformed_argument",
                f"argument {key[:64]!r} has an unknown type {type_name[:32]!r}",
                key=key[:64],
            )
        elif key in call.arguments:
            self._call_error(
                call,
                "duplicate_argument",
                duplicate_key_error(key),
                key=key[:64],
            )
        elif call.known:
            call.key = key
            call.kind = kind
            if kind == "string":
                call.streaming = self.ctx.args.open_string(key)
                if call.streaming:
                    self.ctx.stream_value(_VALUE_TEXT, raw=(call.pieces,))
        return new, True

    def _value(self, buf: str, pos: int, end: int, final: bool) -> tuple[int, bool]:
        call = self.call
        assert call is not None
        i = buf.find("<|", pos, end)
        if i == -1:  # the hot path: value text with no marker in it
            cut = end - 1 if not final and end > pos and buf[end - 1] == "<" else end
            if cut > pos:
                text = buf[pos:cut]
                if self.tracking:
                    self.consumed.append(text)
                if call.key is not None:
                    call.pieces.append(text)
                    if call.streaming:
                        self.ctx.args.string_chunk(text)
            return cut, False
        self._piece(call, buf, pos, i)
        m = match_marker(buf, i, end, final)
        if m.status is MarkerStatus.PARTIAL:
            return i, False
        if m.is_marker("close", "argument"):
            self._finish_value(call)
            self.state = _BODY
            return self._advance(buf, i, m.end), True
        if m.is_marker("close", "call") or (m.is_marker("close", "tools") and self.wrapped):
            # An enclosing closer: the argument's own was forgotten; the body reads the closer.
            self._finish_value(call)
            if self.ctx.policy is Policy.LENIENT:
                call.repairs.append("xtml-argument-close-missing")
            elif call.error is None:
                call.error = "an argument is not closed with <|close|>argument"
            self.state = _BODY
            return i, True
        stop = m.end if m.status is MarkerStatus.COMPLETE else i + 2
        self._piece(call, buf, i, stop)  # marker-shaped text inside a value is value text
        return stop, True

    def _piece(self, call: _Call, buf: str, pos: int, stop: int) -> None:
        if stop <= pos:
            return
        self._advance(buf, pos, stop)
        if call.key is None:
            return
        text = buf[pos:stop]
        call.pieces.append(text)
        if call.streaming:
            self.ctx.args.string_chunk(text)

    def _finish_value(self, call: _Call) -> None:
        key = call.key
        if key is None:
            return
        call.key = None
        raw = "".join(call.pieces)
        call.pieces = []
        if call.kind == "string":
            if call.streaming:
                self.ctx.stop_value()
                self.ctx.args.close_string()
                call.streaming = False
            call.arguments[key] = raw
            return
        value, error = decode_typed(raw, call.kind)
        if error is not None:
            self._call_error(
                call,
                "malformed_argument",
                f"argument {key[:64]!r} {error}",
                key=key[:64],
                type=call.kind,
            )
            return
        call.arguments[key] = value
        self.ctx.args.put(key, value)


PROTOCOL = KimiXtmlProtocol()
