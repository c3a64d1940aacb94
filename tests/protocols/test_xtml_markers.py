"""The shared XTML marker definition: what is a marker, what could still grow, what is text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from toolmend.protocols.xtml_markers import (
    CLOSE,
    MAX_CHANNEL_NAME,
    OPEN,
    SEP,
    XTML_MARKER_PATTERN,
    MarkerStatus,
    match_marker,
)

COMPLETE, PARTIAL, NONE = MarkerStatus.COMPLETE, MarkerStatus.PARTIAL, MarkerStatus.NONE


def test_a_named_marker_ends_after_its_sep() -> None:
    m = match_marker("<|open|>think<|sep|>rest", 0)
    assert (m.status, m.kind, m.channel, m.has_sep, m.end) == (COMPLETE, "open", "think", True, 20)


def test_a_sep_less_close_ends_before_the_newline_after_it() -> None:
    text = "done<|close|>think\n"
    m = match_marker(text, 4)
    assert (m.status, m.kind, m.channel, m.has_sep) == (COMPLETE, "close", "think", False)
    assert text[m.end :] == "\n"


def test_a_sep_less_marker_at_the_end_could_still_grow_while_streaming() -> None:
    assert match_marker("<|close|>think", 0).status is PARTIAL


def test_a_sep_less_marker_at_the_end_of_the_stream_is_complete() -> None:
    m = match_marker("<|close|>think", 0, final=True)
    assert (m.status, m.channel, m.end) == (COMPLETE, "think", 14)


def test_a_partial_sep_after_the_name_could_still_grow() -> None:
    assert match_marker("<|close|>think<|se", 0).status is PARTIAL


def test_a_partial_sep_at_the_end_of_the_stream_is_not_part_of_the_marker() -> None:
    m = match_marker("<|close|>think<|se", 0, final=True)
    assert (m.status, m.has_sep, m.end) == (COMPLETE, False, 14)


def test_a_bare_sep_is_a_marker() -> None:
    m = match_marker("x<|sep|>y", 1)
    assert (m.status, m.kind, m.channel, m.end) == (COMPLETE, "sep", "", 8)


def test_unnamed_open_and_close_are_markers() -> None:
    for text, kind in ((f"{OPEN}{SEP}", "open"), (f"{CLOSE}{SEP}", "close")):
        m = match_marker(text, 0)
        assert (m.status, m.kind, m.channel, m.has_sep, m.end) == (
            COMPLETE,
            kind,
            "",
            True,
            len(text),
        )


def test_a_word_run_after_a_marker_belongs_to_its_channel_name() -> None:
    m = match_marker("<|close|>thinkafter more", 0)
    assert (m.channel, m.end) == ("thinkafter", 19)


def test_an_incomplete_lead_could_still_grow_while_streaming() -> None:
    assert match_marker("<|clo", 0).status is PARTIAL


def test_an_incomplete_lead_at_the_end_of_the_stream_is_plain_text() -> None:
    assert match_marker("<|clo", 0, final=True).status is NONE


def test_other_pipe_tokens_are_not_markers() -> None:
    assert match_marker("<|end_of_msg|>", 0).status is NONE
    assert match_marker("<|opened|>", 0).status is NONE


def test_call_and_argument_opens_are_structural() -> None:
    m = match_marker('<|open|>call tool="f"<|sep|>', 0)
    assert (m.channel, m.structural, m.end) == ("call", True, 12)
    assert match_marker("<|close|>call<|sep|>", 0).structural is False
    assert match_marker("<|open|>think<|sep|>", 0).structural is False


def test_a_channel_name_longer_than_the_bound_is_not_a_marker() -> None:
    assert match_marker(OPEN + "a" * (MAX_CHANNEL_NAME + 1), 0).status is NONE
    assert match_marker(OPEN + "a" * MAX_CHANNEL_NAME + " ", 0).status is COMPLETE


def test_a_caller_that_consumed_the_lead_gets_the_same_answer() -> None:
    for text in ("<|close|>think\n", "<|open|>tools<|sep|>", "<|close|><|sep|>", "<|sep|>x"):
        lead = next(x for x in (OPEN, CLOSE, SEP) if text.startswith(x))
        whole = match_marker(text, 0)
        after_lead = match_marker(text, len(lead), lead=lead)
        assert after_lead == whole


def test_only_the_given_window_is_read() -> None:
    assert match_marker("<|close|>think<|sep|>", 0, 14).status is PARTIAL


_pieces = st.lists(
    st.sampled_from([OPEN, CLOSE, SEP, "<|", "|>", "<", "think", "call", "x", " ", "\n", "_"]),
    max_size=6,
).map("".join)


@settings(max_examples=400, deadline=None)
@given(text=_pieces)
def test_the_pattern_and_the_matcher_agree_at_the_end_of_the_stream(text: str) -> None:
    m = XTML_MARKER_PATTERN.match(text)
    got = match_marker(text, 0, final=True)
    assert got.complete == (m is not None)
    if m is not None:
        assert got.end == m.end()


@settings(max_examples=400, deadline=None)
@given(text=_pieces)
def test_a_complete_answer_never_changes_when_more_text_arrives(text: str) -> None:
    final = match_marker(text, 0, final=True)
    for cut in range(len(text) + 1):
        early = match_marker(text, 0, cut)
        if early.status is COMPLETE:
            assert early == final, cut
        elif early.status is NONE:
            assert final.status is NONE, cut
