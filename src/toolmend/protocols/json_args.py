"""JSON arguments after a header: the shared reader of formats that name the tool in markup and
write its arguments as one JSON object.

    <｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris"}<｜tool▁call▁end｜>  DeepSeek
    [TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}                              Mistral v11
    <|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{…}   Kimi K2

A format describes itself with a `HeaderJsonSyntax`: the markers that open one call inside a
block, close a call and close the block, and a pure function from the header (the text between a
call's opener and the `{` of its arguments) to the tool name. `HeaderJsonReader` does the rest
for every such format: blanks between calls, the header bounded by `MAX_TAG_LENGTH`, the
arguments object read by the family's `json_calls.JsonCallsReader` (streamed while it is
written, decoded, repaired under the policy), the filler a format
allows between the object and its closer (DeepSeek V3's closing fence), a missing closer, a
closer met inside unfinished JSON, and a block of call objects instead (Mistral before v11,
handed to `json_values`).

Reading rules: a call whose name does not resolve is read past and dropped with a diagnostic,
and a block holding only such calls stays text; a header that names nothing is not a
call (text) at the start of a block; arguments that are not one JSON object make the call
incomplete. Never: scans visible text (the engine does), knows any one format's markers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from toolmend.core.reader import MAX_TAG_LENGTH, BlockContext, BlockReader, EofVerdict
from toolmend.core.textscan import closers, find_closer, is_proper_prefix, skip_blanks
from toolmend.protocols.json_calls import JsonCallFormat, JsonCallsReader

#: Blanks only: what most formats allow between the arguments object and the call's closer.
BLANKS = re.compile(r"[ \t\r\n]*")

#: A header parser: the text between a call's opener and its `{` -> the tool name, or None
#: when the text is not this format's header.
HeaderParser = Callable[[str], "str | None"]


def header_name_by(pattern: re.Pattern[str]) -> HeaderParser:
    """The header parser that reads the tool name as `pattern`'s first group (None when the
    header does not match it)."""

    def tool_name(header: str) -> str | None:
        m = pattern.match(header)
        return m.group(1) if m else None

    return tool_name


#: Builds the reader of a block of call objects (`[{"name": …, "arguments": …}]`).
ObjectsReaderFactory = Callable[[BlockContext, str], BlockReader]


@dataclass(frozen=True, slots=True)
class HeaderJsonSyntax:
    """One format's knowledge, as `HeaderJsonReader` needs it.

    `call_openers` begin one call inside a block (a block opened by one of them begins with its
    header); `call_closers` end a call; `block_closers` end the block. `filler` is the text
    allowed between the arguments object and the marker after it. With `single_call` a block
    holds one call and ends after it (its closer, if any, included). `objects_reader` reads a
    block whose header is empty and whose body opens with `[` or `{` as call objects.
    """

    parse_header: HeaderParser
    call_openers: tuple[str, ...] = ()
    call_closers: tuple[str, ...] = ()
    block_closers: tuple[str, ...] = ()
    filler: re.Pattern[str] = BLANKS
    single_call: bool = False
    objects_reader: ObjectsReaderFactory | None = None
    #: Markers that end the header's search without being part of it (e.g. the format's
    #: opener, which begins a new block): met in a header, the call has no body.
    breakers: tuple[str, ...] = ()
    #: Matches (whole) every beginning of a header: a header that stops matching is prose
    #: after a marker, released as text at once instead of waiting for a `{`.
    header_viable: re.Pattern[str] | None = None
    #: Markers that begin the next message: met inside unfinished JSON, they cut the call off
    #: (incomplete, R3) instead of closing it with a repair.
    cut_by: tuple[str, ...] = ()
    #: The block's first call may leave out its opener (DeepSeek's `<｜tool▁calls｜>function
    #: <｜tool▁sep｜>NAME…`, as llama.cpp reads it): a header right after the block's marker.
    bare_first_call: bool = False
    stops: tuple[str, ...] = field(init=False)
    #: What ends a call's header: the `{` of its arguments, or a stop.
    header_ends: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        stops = dict.fromkeys((*self.call_closers, *self.block_closers, *self.call_openers))
        stops.update(dict.fromkeys(self.breakers))
        object.__setattr__(self, "stops", tuple(stops))
        object.__setattr__(self, "header_ends", closers("{", *stops))


class _ArgumentsReader(JsonCallsReader):
    """A header-named call's arguments, read by the family reader, ending where the object
    closes: what follows is the format's own markup (or text), not more JSON."""

    def _end_object(self) -> None:
        super()._end_object()
        if self.named:
            self.decided = True


def arguments_reader(
    ctx: BlockContext, fmt: JsonCallFormat, marker: str, header: str, *, live: bool
) -> JsonCallsReader:
    """The reader of one call's JSON arguments: the call `ctx.begin_call` just began (`live`),
    or, for a tool that did not resolve, a reader that only scans them (nothing streams)."""
    if live:
        return _ArgumentsReader.for_arguments(ctx, fmt, marker, header)
    reader = _ArgumentsReader(ctx, fmt, marker)
    reader.own_block = False
    reader.args_depth = 1  # the object is the arguments, of no call
    return reader


_BETWEEN, _HEADER, _BODY, _AFTER = range(4)


class HeaderJsonReader(BlockReader):
    """Reads one block of header-then-JSON calls for a `HeaderJsonSyntax` (see the module)."""

    def __init__(
        self, syntax: HeaderJsonSyntax, marker: str, ctx: BlockContext, *, header: str = ""
    ) -> None:
        """`header`: the start of the first call's header, when the marker that opened the
        block is that text (a tool's name that the prompt's call opener precedes)."""
        self.syntax = syntax
        self.ctx = ctx
        self.marker = marker
        self.consumed: list[str] = []  # the block's text after its marker (for a revert)
        self.state = _HEADER if header or marker in syntax.call_openers else _BETWEEN
        self.header: list[str] = [header] if header else []
        self.header_length = len(header)
        self.body: JsonCallsReader | None = None
        self.format = JsonCallFormat(closers=syntax.stops)
        self.calls = 0  # calls begun in this block
        self.unknown = 0  # calls of tools that do not resolve, read past
        self.delegate: BlockReader | None = None

    # ----------------------------------------------------------------------- BlockReader

    def step(self, buf: str, pos: int, end: int, final: bool) -> int:
        if self.delegate is not None:
            return self.delegate.step(buf, pos, end, final)
        states = (self._between, self._header, self._body, self._after)
        while True:
            new, done = states[self.state](buf, pos, end, final)
            if self.delegate is not None:
                return self.delegate.step(buf, new, end, final)
            if done or new == pos:
                return new  # the block ended, or more input is needed (at the end: at_eof)
            pos = new

    def at_eof(self) -> EofVerdict:
        if self.delegate is not None:
            return self.delegate.at_eof()
        if self.state == _HEADER:
            name = self.syntax.parse_header("".join(self.header))
            return EofVerdict(recoverable=False, name=name or None)
        if self.state == _BODY and self.body is not None:
            return self.body.at_eof()
        return EofVerdict(recoverable=True)

    # ------------------------------------------------------------------------ the states

    def _take(self, buf: str, pos: int, new: int) -> int:
        if new > pos:
            self.consumed.append(buf[pos:new])
        return new

    def _between(self, buf: str, pos: int, end: int, final: bool) -> tuple[int, bool]:
        """Between calls: blanks, then a call's opener or the block's closer."""
        found, at, marker = expect_marker(
            buf,
            pos,
            end,
            final,
            (*self.syntax.call_openers, *self.syntax.block_closers),
            BLANKS,
        )
        if found is None:
            return pos, False
        if not found:
            bare = self.syntax.bare_first_call and not self.calls and not self.unknown
            first = skip_blanks(buf, pos, end)
            if bare and first < end and first - pos <= MAX_TAG_LENGTH:
                self.state = _HEADER  # the first call's header, its opener left out
                return self._header(buf, pos, end, final)
            return self._end_block(buf, pos), True
        self._take(buf, pos, at + len(marker))
        if marker in self.syntax.block_closers:
            return self._end_block(buf, at + len(marker)), True
        self.state = _HEADER
        return at + len(marker), False

    def _header(self, buf: str, pos: int, end: int, final: bool) -> tuple[int, bool]:
        """The call's header, up to the `{` of its arguments (or a stop: a call with no body)."""
        if self.syntax.objects_reader is not None and self.calls == 0 and not self.header_length:
            kind = objects_ahead(buf, pos, end, final)
            if kind is None:
                return pos, False
            if kind:
                self.delegate = self.syntax.objects_reader(self.ctx, self.marker)
                return pos, False
        stop_at, ender = find_closer(buf, pos, end, self.syntax.header_ends, final=final)
        stop_at = self._header_limit(buf, pos, stop_at)
        self.header.append(buf[pos:stop_at])
        self.header_length += stop_at - pos
        self._take(buf, pos, stop_at)
        header = "".join(self.header)
        if self.header_length > MAX_TAG_LENGTH or not self._viable(header):
            return self._not_a_header(buf, stop_at)
        if not ender:
            if final and self.calls == 0 and self.syntax.parse_header(header) is None:
                return self._not_a_header(buf, stop_at)
            return stop_at, False
        if ender != "{":
            return self._not_a_header(buf, stop_at)
        name = self.syntax.parse_header(header)
        if name is None:
            return self._not_a_header(buf, stop_at)
        self.header, self.header_length = [], 0
        self.begin_body(name, header)
        return stop_at, False

    def begin_body(self, name: str, header: str) -> None:
        """The header named `name`: its arguments object comes next (a tool that does not
        resolve is read past; the block is text if it holds nothing else)."""
        live = self.ctx.begin_call(name)
        if live:
            self.calls += 1
        else:
            self.unknown += 1
        self.body = arguments_reader(self.ctx, self.format, self.marker, header, live=live)
        self.state = _BODY

    @property
    def in_header(self) -> bool:
        """No header has been read whole yet (nothing of the call is known)."""
        return self.state == _HEADER

    def _header_limit(self, buf: str, pos: int, stop_at: int) -> int:
        """`stop_at`, or just past the first character that makes the header too long or no
        longer viable: a bad header swallows the same text however much of it had arrived."""
        stop_at = min(stop_at, pos + MAX_TAG_LENGTH + 1 - self.header_length)
        head = "".join(self.header)
        if self._viable(head + buf[pos:stop_at]):
            return stop_at
        return next(k for k in range(pos + 1, stop_at + 1) if not self._viable(head + buf[pos:k]))

    def _viable(self, header: str) -> bool:
        viable = self.syntax.header_viable
        return viable is None or viable.fullmatch(header) is not None

    def _not_a_header(self, buf: str, at: int) -> tuple[int, bool]:
        if self.calls == 0 and not self.unknown:
            # Text after a marker: scanned again (it is at most a tag long), so that what it
            # holds reads the same however far it had arrived when this was decided.
            self.ctx.revert("".join(self.consumed), rescan=True)
            return at, True
        self.ctx.diagnostic("malformed_call", "a call header that names no tool was dropped")
        return self._end_block(buf, at), True

    def _body(self, buf: str, pos: int, end: int, final: bool) -> tuple[int, bool]:
        """The arguments object, up to its closing brace (or a stop: the call ends there)."""
        body = self.body
        assert body is not None
        new, stop = body.read(buf, pos, end, final)
        self._take(buf, pos, new)
        if not body.decided and stop is None:
            return new, False  # more of the object to come (at the end: at_eof decides)
        live = body.begun
        if stop in self.syntax.cut_by and (body.depth > 0 or body.in_string):
            body.cut(new, "the call's JSON was cut off by the next message")
        else:
            body.settle(new)  # ends the call at `new`, with the arguments read (or why not)
        if not live:
            self.ctx.diagnostic("malformed_call", "a call of an unknown tool was dropped")
        self.state = _AFTER
        return new, False

    def _after(self, buf: str, pos: int, end: int, final: bool) -> tuple[int, bool]:
        """After the arguments: filler, then the call's closer, the block's or the next call."""
        syntax = self.syntax
        markers = (*syntax.call_closers, *syntax.block_closers, *syntax.call_openers)
        found, at, marker = expect_marker(buf, pos, end, final, markers, syntax.filler)
        if found is None:
            return pos, False
        if not found:
            if final and self._cut_closer(buf, pos, end):
                # The stream ended inside the call's closer: markup, as a whole closer is (R3).
                self._take(buf, pos, end)
                return self._end_block(buf, end), True
            return self._end_block(buf, pos), True
        if syntax.single_call and marker in syntax.call_openers:
            return self._end_block(buf, pos), True  # the next call is a block of its own
        stop = at + len(marker)
        self._take(buf, pos, stop)
        if marker in syntax.block_closers or (syntax.single_call and marker in syntax.call_closers):
            return self._end_block(buf, stop), True
        self.state = _HEADER if marker in syntax.call_openers else _BETWEEN
        return stop, False

    def _cut_closer(self, buf: str, pos: int, end: int) -> bool:
        """Whether `buf[pos:end]` is filler, then a closer cut off by the end of the stream."""
        m = self.syntax.filler.match(buf, pos, end)
        at = m.end() if m is not None else pos
        ends = (*self.syntax.call_closers, *self.syntax.block_closers)
        return at < end and is_proper_prefix(buf[at:end], ends)

    def _end_block(self, buf: str, at: int) -> int:
        if self.calls:
            self.ctx.end_block()
        elif self.unknown:
            self.ctx.revert("".join(self.consumed), rescan=False)  # no call of a given tool
        else:
            self.ctx.fail_block(
                "".join(self.consumed), "malformed_call", "a call block held no usable call"
            )
        return at


def expect_marker(
    buf: str,
    pos: int,
    end: int,
    final: bool,
    markers: Sequence[str],
    filler: re.Pattern[str],
) -> tuple[bool | None, int, str]:
    """Is `buf[pos:]` `filler` text then one of `markers`? (found, marker position, marker).

    found is None while more input may still decide (bounded: after `MAX_TAG_LENGTH`
    characters of filler it is decided), False when something else follows.
    """
    m = filler.match(buf, pos, min(end, pos + MAX_TAG_LENGTH + 1))
    at = m.end() if m is not None else pos
    if at - pos > MAX_TAG_LENGTH:
        return False, pos, ""  # decided at the bound, whatever follows and however split
    for marker in markers:
        if buf.startswith(marker, at, end):
            return True, at, marker
    if final:
        return False, pos, ""
    if at == end or is_proper_prefix(buf[at:end], markers):
        return None, pos, ""
    return False, pos, ""


_OBJECTS_START = re.compile(r"[ \t\r\n]*(?:\{|\[[ \t\r\n]*[{\]])")
_OBJECTS_UNDECIDED = re.compile(r"[ \t\r\n]*(?:\[[ \t\r\n]*)?")


def objects_ahead(buf: str, pos: int, end: int, final: bool) -> bool | None:
    """Does a block of call objects (`{…}`, `[{…}]`, `[]`) begin at `buf[pos:end]`?

    None while only blanks and a `[` are there (bounded by `MAX_TAG_LENGTH`).
    """
    if _OBJECTS_START.match(buf, pos, end):
        return True
    undecided = _OBJECTS_UNDECIDED.match(buf, pos, end)
    if undecided is not None and undecided.end() == end and not final:
        return None if end - pos <= MAX_TAG_LENGTH else False
    return False
