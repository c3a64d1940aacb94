"""A stream's first parsers built ahead (`StreamRecovery.prepare`) change nothing it gives.

The proxy builds the first choice's parsers while the model prefills, so the first chunk does
not wait for them; the chunks that come out must be exactly those of a stream that built them
at its first text, whatever the stream holds and however it is cut.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from support import split_at
from toolmend.recovery import StreamRecovery, Terminal
from toolmend.recovery import choice as choice_module

from .test_properties import CALLS, PROSE
from .wire import ENVELOPE, TOOLS, chunk, content_stream


def recovered(chunks: list[dict[str, Any]], *, prepared: bool, **kw: Any) -> list[dict[str, Any]]:
    recovery = StreamRecovery(TOOLS, model=kw.pop("model", "m"), seed=7, **kw)
    if prepared:
        recovery.prepare()
    out = [c for piece in chunks for c in recovery.feed(piece)]
    return out + recovery.end(Terminal.END)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(PROSE, st.sampled_from(CALLS)), min_size=1, max_size=2),
    st.lists(st.integers(min_value=0, max_value=10_000), max_size=8),
    st.sampled_from(["auto", "hermes", ("kimi-xtml", "kimi-k2")]),
)
def test_a_prepared_stream_gives_the_chunks_an_unprepared_one_gives(parts, cuts, protocols):
    text = "".join(prose + " " + markup for prose, markup in parts)
    pieces = split_at(text, [c % (len(text) + 1) for c in cuts])
    chunks = content_stream(pieces)
    assert recovered(chunks, prepared=True, protocols=protocols) == recovered(
        chunks, prepared=False, protocols=protocols
    )


def test_after_prepare_the_first_text_builds_no_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[object] = []
    real = choice_module.TextLeg

    def counting(*args: Any) -> Any:
        built.append(args)
        return real(*args)

    monkeypatch.setattr(choice_module, "TextLeg", counting)
    recovery = StreamRecovery(TOOLS, model="m")
    recovery.prepare()
    for piece in content_stream(["Hello ", CALLS[0]]):
        recovery.feed(piece)
    assert built == []


def test_a_stream_whose_first_choice_is_not_index_0_keeps_the_prepared_parsers_for_index_0() -> (
    None
):
    two = [
        {**ENVELOPE, "choices": [{"index": 1, "delta": {"content": "B " + CALLS[0]}}]},
        chunk({"content": "A " + CALLS[2]}),
        {**ENVELOPE, "choices": [{"index": 1, "delta": {}, "finish_reason": "stop"}]},
        chunk({}, "stop"),
    ]
    assert recovered(two, prepared=True) == recovered(two, prepared=False)


def test_a_stream_whose_model_decides_its_formats_prepares_nothing_and_reads_as_before() -> None:
    # No model named, the family's default asked for: the stream's `model` picks the formats.
    claude = content_stream(["Sure. " + CALLS[1]], model="claude-opus-4-1")
    assert recovered(claude, prepared=True, model=None) == recovered(
        claude, prepared=False, model=None
    )
