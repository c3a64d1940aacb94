"""The fast path: chunks of a streamed value that its declared `ValueText` vouches for skip
the reader.

Each test feeds the same chunks twice, once with the runs the readers register and once with
every run refused, and checks that the run was taken and that the events are the same.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fuzzing
import toolmend
from support import assert_split_invariant, comparable, streamed_arguments
from toolmend.core.calls import Block
from toolmend.core.engine import StreamParser
from toolmend.core.fastpath import Escapes, ValueRun, ValueText, pending_pattern, verbatim_pattern
from toolmend.events import Event, ToolCallDelta, ToolCallEnd
from toolmend.model import ToolCall
from toolmend.protocols.invoke_xml import _ENTITY, _entity, decode_entities

WRITE = [
    {
        "type": "function",
        "function": {
            "name": "write_file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"],
            },
        },
    }
]
#: A value long enough that its middle is streamed chunk by chunk.
FILLER = "x" * 40
#: Where the wire text under test goes in a rendered call.
MARK = "QQQQ"


def _feed(
    protocol: str, chunks: list[str], *, runs: bool, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[Event], int]:
    """The events of `chunks`, and how many feeds called a reader."""
    calls = 0
    original = StreamParser._run

    def counting(self: StreamParser, final: bool) -> None:
        nonlocal calls
        calls += 1
        original(self, final)

    with monkeypatch.context() as patch:
        patch.setattr(StreamParser, "_run", counting)
        if not runs:
            patch.setattr(Block, "stream_value", _refused)
        parser = toolmend.stream_parser(protocol, WRITE, id_prefix="call_")
        events: list[Event] = []
        for chunk in chunks:
            events += parser.feed(chunk)
        events += parser.finish()
    return events, calls


def _rendered(protocol: str, content: str) -> str:
    call = ToolCall(id="c", name="write_file", arguments={"path": "a", "content": content})
    return toolmend.get_protocol(protocol).render_call(call)


def _through_the_run(
    protocol: str, piece: str, monkeypatch: pytest.MonkeyPatch, *, before: str = ""
) -> tuple[bool, Any, Any]:
    """Feed a call whose content is written `FILLER + before + piece + FILLER` on the wire,
    `piece` as one chunk of its own.

    Returns whether that chunk skipped the reader, and the events with and without runs.
    """
    text = _rendered(protocol, FILLER + MARK + FILLER).replace(MARK, before + piece)
    at = text.index(FILLER + before + piece) + len(FILLER) + len(before)
    head, chunk, rest = text[:at], text[at : at + len(piece)], text[at + len(piece) :]
    chunks = [*head[: at - 8], head[at - 8 :], chunk, rest]  # the head char by char
    with_runs, calls = _feed(protocol, chunks, runs=True, monkeypatch=monkeypatch)
    reference, _ = _feed(protocol, chunks, runs=False, monkeypatch=monkeypatch)
    _, calls_without_piece = _feed(
        protocol, [*head[: at - 8], head[at - 8 :], rest], runs=True, monkeypatch=monkeypatch
    )
    skipped = calls == calls_without_piece
    return skipped, comparable(with_runs), comparable(reference)


def _refused(self: Block, text: ValueText, *, raw: Any = (), decoded: Any = ()) -> ValueRun:
    """`Block.stream_value` that builds the run but never lets the fast path use it."""
    return ValueRun(text, tuple(raw), tuple(decoded))


def test_a_stop_is_never_plain_and_nor_is_its_start_at_the_end() -> None:
    pattern = ValueText(("</p>", "<q=")).plain
    assert pattern.fullmatch("a < b <x> </x>")
    assert not pattern.fullmatch("a </p> b")
    assert not pattern.fullmatch("a <q= b")
    assert not pattern.fullmatch("a </")
    assert not pattern.fullmatch("a <")


def test_a_held_character_cannot_end_a_plain_chunk() -> None:
    pattern = ValueText(("</p>",), held="\n").plain
    assert pattern.fullmatch("a\nb")
    assert not pattern.fullmatch("a\n")


def test_a_chunk_of_hold_characters_only_is_not_plain_but_may_end_in_them() -> None:
    pattern = ValueText(("</p>",), hold=" }").plain
    assert pattern.fullmatch("a }")
    assert not pattern.fullmatch(" } ")


def test_complete_escapes_are_plain_and_escape_starts_are_not() -> None:
    pattern = ValueText((), Escapes(("&amp", "\r"), "&amp;")).plain
    assert pattern.fullmatch("a &amp; b & c")
    assert not pattern.fullmatch("a &amp b")
    assert not pattern.fullmatch("a\rb")


def test_a_hermes_chunk_with_complete_escapes_is_decoded_on_the_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    skipped, got, reference = _through_the_run("hermes", 'a\\"b\\nc\\\\', monkeypatch)
    assert skipped
    assert got == reference


def test_a_hermes_chunk_with_a_unicode_escape_goes_through_the_reader(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    skipped, got, reference = _through_the_run("hermes", "a\\u00e9b", monkeypatch)
    assert not skipped
    assert got == reference


def test_a_held_back_escape_start_and_the_next_chunk_go_on_the_run_together(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The reader holds the lone backslash; the next chunk completes the escape.
    skipped, got, reference = _through_the_run("hermes", 'n rest"', monkeypatch, before="\\")
    assert got == reference
    skipped, got, reference = _through_the_run("hermes", "n rest", monkeypatch, before="ab\\")
    assert skipped
    assert got == reference


@pytest.mark.parametrize(
    "protocol", ["qwen3-coder", "kimi-xtml", "gemma4", "morph-xml", "anthropic-xml"]
)
def test_a_chunk_whose_markup_cannot_start_a_closer_skips_the_reader(
    protocol: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    skipped, got, reference = _through_the_run(protocol, "a < b <x> </y", monkeypatch)
    assert skipped
    assert got == reference


@pytest.mark.parametrize(
    "protocol", ["qwen3-coder", "kimi-xtml", "gemma4", "morph-xml", "anthropic-xml"]
)
def test_a_chunk_ending_where_a_closer_may_begin_waits_without_the_reader(
    protocol: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "a " goes on the run; "<" is only the possible start of a closer (the run's `pending`).
    skipped, got, reference = _through_the_run(protocol, "a <", monkeypatch)
    assert skipped
    assert got == reference


def test_the_pending_rest_is_a_held_character_then_a_proper_prefix_of_a_stop() -> None:
    pending = pending_pattern(("</parameter>",), held="\n", extra=r"&\w*")
    assert all(pending.fullmatch(r) for r in ("<", "\n</par", "\n", "&am"))
    assert not any(pending.fullmatch(r) for r in ("</parameter>", "x<", "<x"))


@pytest.mark.parametrize("protocol", ["qwen3-coder", "morph-xml"])
def test_a_chunk_ending_in_a_newline_the_reader_may_hold_waits_without_the_reader(
    protocol: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "line" goes on the run; the newline may be layout before the closer, so it waits.
    skipped, got, reference = _through_the_run(protocol, "line\n", monkeypatch)
    assert skipped
    assert got == reference


def test_an_invoke_chunk_with_complete_entities_is_decoded_on_the_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    skipped, got, reference = _through_the_run("anthropic-xml", "a&lt;b", monkeypatch)
    assert skipped
    assert got == reference


@pytest.mark.parametrize("piece", ["line\n", "a} ", "a ]\n"])
def test_a_held_back_tail_is_kept_on_the_run_as_the_reader_keeps_it(
    piece: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Gemma 4 holds a string's trailing `}`, `]` and whitespace back from the argument stream.
    skipped, got, reference = _through_the_run("gemma4", piece, monkeypatch)
    assert skipped
    assert got == reference


def test_a_chunk_that_is_all_held_back_tail_waits_without_the_reader(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    skipped, got, reference = _through_the_run("gemma4", "}  ", monkeypatch)
    assert skipped
    assert got == reference


def test_a_pending_rest_longer_than_the_bound_goes_through_the_reader(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    skipped, got, reference = _through_the_run("gemma4", " " * 100, monkeypatch)
    assert not skipped
    assert got == reference


def test_held_back_text_is_streamed_before_the_next_chunk_once_it_is_text() -> None:
    parser = toolmend.stream_parser("gemma4", WRITE, id_prefix="call_")
    streamed = ""
    seen = []
    for chunk in ['<|tool_call>call:write_file{content:<|"|>', "ab", "c  ", "d"]:
        streamed += "".join(
            e.arguments_delta for e in parser.feed(chunk) if isinstance(e, ToolCallDelta)
        )
        seen.append(streamed)
    assert seen[-2].endswith('"abc')
    assert seen[-1].endswith('"abc  d')


# ------------------------------------------------------------------ the verbatim test


def _runs_of(protocol: str, monkeypatch: pytest.MonkeyPatch) -> list[ValueRun]:
    """The fast-path runs the protocol's readers register while a call is streamed."""
    runs: list[ValueRun] = []
    original = Block.stream_value

    def recording(self: Block, text: ValueText, **sinks: Any) -> ValueRun:
        run = original(self, text, **sinks)
        runs.append(run)
        return run

    with monkeypatch.context() as patch:
        patch.setattr(Block, "stream_value", recording)
        parser = toolmend.stream_parser(protocol, WRITE)
        for char in _rendered(protocol, FILLER + "\n" + FILLER):
            parser.feed(char)
        parser.finish()
    assert runs, protocol
    return runs


#: Characters that matter to some protocol's values (stops, escapes, held tails), and others.
_ALPHABET = '<>/&;#"\\ {}[]|=\t\r\n' + "ltgampquosx0u" + "parmetfuncio_" + "é\U0001f600"


#: Formats that read a call's values once the call has closed (no value streams, so no
#: fast-path run exists to check).
WHOLE_CALL_FORMATS = {"minimax-m3", "apertus"}


@pytest.mark.parametrize("protocol", sorted(set(toolmend.protocols()) - WHOLE_CALL_FORMATS))
def test_a_chunk_the_verbatim_test_passes_is_whole_value_text_that_decodes_to_itself(
    protocol: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = _runs_of(protocol, monkeypatch)

    @settings(max_examples=300, deadline=None)
    @given(st.text(alphabet=_ALPHABET, min_size=1, max_size=12))
    def check(chunk: str) -> None:
        for run in runs:
            if run.verbatim.search(chunk) is None:
                assert run.pattern.fullmatch(chunk), (protocol, chunk)
                assert run.decode is None or run.decode(chunk) == chunk, (protocol, chunk)

    check()


class _CountingPattern:
    """A run's pattern that counts its uses."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.uses = 0

    def match(self, text: str) -> re.Match[str] | None:
        self.uses += 1
        return self.pattern.match(text)


@pytest.mark.parametrize(
    ("protocol", "not_verbatim"),
    [
        ("hermes", 'a \\" b'),  # an escape: the pattern admits it, the decoder reads it
        ("gemma4", "a <t b"),  # `<t` may begin a stop (`<tool_call|>`): the pattern decides
        ("anthropic-xml", "a &lt; b"),
        ("qwen3-coder", "a </b"),
    ],
)
def test_a_verbatim_chunk_is_taken_without_the_pattern_and_a_chunk_with_a_stop_start_is_not(
    protocol: str, not_verbatim: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    patterns: list[_CountingPattern] = []
    original = Block.stream_value

    def counting(self: Block, text: ValueText, **sinks: Any) -> ValueRun:
        run = original(self, text, **sinks)
        counter = _CountingPattern(run.pattern)
        patterns.append(counter)
        run.pattern = counter  # type: ignore[assignment]
        return run

    head = _rendered(protocol, FILLER + MARK).split(MARK)[0]
    with monkeypatch.context() as patch:
        patch.setattr(Block, "stream_value", counting)
        parser = toolmend.stream_parser(protocol, WRITE)
        parser.feed(head)
        uses = sum(p.uses for p in patterns)
        deltas = parser.feed("plain value text ")
        assert sum(p.uses for p in patterns) == uses
        parser.feed(not_verbatim)
        assert sum(p.uses for p in patterns) == uses + 1
    assert [type(e) for e in deltas] == [ToolCallDelta]
    assert deltas[0].arguments_delta.startswith("plain value text")


def test_a_verbatim_test_finds_stop_starts_escapes_held_tails_and_all_held_text() -> None:
    verbatim = verbatim_pattern(("</p>", "<q", '"'), exclude="&", held="\n", hold=" }")
    assert verbatim.search("a b} c") is None
    assert verbatim.search("ab }") is None  # a held tail after text: the run holds it back
    assert verbatim.search("a < b <x>") is None  # no stop begins with "< " or "<x"
    for found in ("a</", "a<q", "ab<", 'a"b', "a&b", "ab\n", " }", "}"):
        assert verbatim.search(found), found


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="&#;ltgampquosx1Aé<", max_size=24))
def test_named_entities_decode_as_the_entity_pattern_decodes_them(text: str) -> None:
    assert decode_entities(text) == _ENTITY.sub(_entity, text)


def test_a_gemma4_tail_of_several_brackets_is_held_until_text_follows() -> None:
    parser = toolmend.stream_parser("gemma4", WRITE, id_prefix="call_")
    seen = []
    for chunk in ['<|tool_call>call:write_file{content:<|"|>', "ab}}", " ", "c", '<|"|>}']:
        events = parser.feed(chunk)
        seen.append(streamed_arguments(events))
    assert seen[1:4] == ["ab", "", "}} c"]
    (end,) = [e for e in parser.finish() if isinstance(e, ToolCallEnd)]
    assert end.call.arguments == {"content": "ab}} c"}


def test_a_stream_cut_inside_a_string_value_still_refuses_feeding_after_finish() -> None:
    parser = toolmend.stream_parser("hermes", WRITE)
    parser.feed('<tool_call>{"name": "write_file", "arguments": {"content": "abc')
    parser.finish()
    with pytest.raises(RuntimeError, match="finish"):
        parser.feed("def")


def test_bytes_fed_while_a_string_value_streams_are_a_caller_error() -> None:
    parser = toolmend.stream_parser("hermes", WRITE)
    parser.feed('<tool_call>{"name": "write_file", "arguments": {"content": "abc')
    with pytest.raises(TypeError, match="str"):
        parser.feed(b"def")  # type: ignore[arg-type]
    parser.feed("d\\")  # a held-back escape start: the next chunk is read with it
    with pytest.raises(TypeError, match="str"):
        parser.feed(b"n")  # type: ignore[arg-type]


# ------------------------------------------------------------------------- prose outside calls

#: Prose in 5-character deltas, several ending in a marker's possible start (`a` begins
#: `antml:invoke`, `t` begins `to=functions.`, `f` begins `functools[`; `<` many markers).
PROSE_DELTAS = ["The d", "og, a", "gain ", "and a", "t las", "t, a ", "few f", "ox <", "3 ok."]


@pytest.mark.parametrize("protocol", ["auto", "antml", "hermes", "kimi-xtml"])
def test_prose_ending_in_the_start_of_a_marker_is_released_without_the_state_machine(
    protocol: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    events, calls = _feed(protocol, PROSE_DELTAS, runs=True, monkeypatch=monkeypatch)
    assert calls == 2  # the first delta (at the start of a line) and `finish()`
    whole = toolmend.stream_parser(protocol, WRITE)
    assert comparable(events) == comparable(whole.feed("".join(PROSE_DELTAS)) + whole.finish())


def test_a_string_value_of_a_call_not_begun_yet_is_taken_on_the_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # apertus writes the tool's name as the key (`{"write_file": {…}}`): the call begins only
    # when its object closes, so the value's text is kept as written for that decoding.
    skipped, got, reference = _through_the_run("apertus", 'a\\"b\\nc\\\\', monkeypatch)
    assert skipped
    assert got == reference


@pytest.mark.parametrize(
    "text",
    [
        # arguments written before the name
        '{"arguments": {"path": "a", "content": "' + FILLER + "QQQQ" + FILLER + '"}, '
        '"name": "write_file"}',
        # a string nested inside an argument's object
        '<tool_call>{"name": "write_file", "arguments": {"path": "a", "content": "c", '
        '"meta": {"note": "' + FILLER + "QQQQ" + FILLER + '"}}}</tool_call>',
    ],
)
def test_a_string_no_hook_reads_is_taken_on_the_run_and_reads_the_same(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = text.index("QQQQ")
    chunks = [*text[:at], "QQQQ", text[at + 4 :]]
    with_runs, calls = _feed("hermes", chunks, runs=True, monkeypatch=monkeypatch)
    reference, _ = _feed("hermes", chunks, runs=False, monkeypatch=monkeypatch)
    _, calls_without = _feed(
        "hermes", [*text[:at], text[at + 4 :]], runs=True, monkeypatch=monkeypatch
    )
    assert calls == calls_without  # the chunk skipped the reader
    assert comparable(with_runs) == comparable(reference)


@pytest.mark.parametrize(
    ("protocol", "text"),
    [
        # Found by bench/fuzz.py: a string after the block was found to be no call (an empty
        # name, a bare word) belongs to the refused text, not to a call's record; and a string
        # of an unknown tool's arguments inside a harmony header is recorded by the header's
        # reader, which sees only what the arguments' reader reads.
        ("hermes", '{"name":""p":'),
        ("hermes", '{"id":c":'),
        ("harmony", 'to=functions.s{"":"n"}'),
        (
            "harmony",
            "<|start|>assistant<|channel|>commentary to=functions.nope <|message|>"
            '{"a": "some text", "b": 1}<|call|>',
        ),
    ],
)
def test_a_string_whose_reader_does_not_own_the_record_reads_the_same_at_every_split(
    protocol: str, text: str
) -> None:
    assert_split_invariant(protocol, text, fuzzing.TOOLS)


def test_a_minimax_m3_invoke_whose_text_cannot_begin_its_closer_is_taken_on_the_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    skipped, got, reference = _through_the_run("minimax-m3", "plain value text", monkeypatch)
    assert skipped
    assert got == reference
    # A chunk ending where the closer may begin waits for the next one, without the reader.
    skipped, got, reference = _through_the_run("minimax-m3", "a ]<]minimax[>[</invo", monkeypatch)
    assert skipped
    assert got == reference
