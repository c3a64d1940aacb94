"""`plain_text`, the writers' hot path, against `ChatStreamReader`, the general one."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from tests.frontends.chunks import chunk, text, usage

from toolmend.server.frontends.chat_stream import ChatStreamReader, plain_text
from toolmend.server.frontends.toolnames import ToolNameMap

_DELTA_FIELDS = {
    "content": st.sampled_from(["Hello", "", "é中", None]),
    "role": st.just("assistant"),
    "reasoning_content": st.just("think"),
    "tool_calls": st.just([{"index": 0, "function": {"name": "Write", "arguments": "{}"}}]),
}
_CHOICE_FIELDS = {
    "finish_reason": st.sampled_from(["stop", "length", None]),
    "stop_reason": st.sampled_from(["END", None]),
    "index": st.sampled_from([0, 1]),
    "logprobs": st.just(None),
}


@st.composite
def chunks(draw: st.DrawFn) -> dict[str, Any]:
    delta = {k: draw(v) for k, v in _DELTA_FIELDS.items() if draw(st.booleans())}
    choice: dict[str, Any] = {"index": 0, "delta": delta, "finish_reason": None}
    choice.update({k: draw(v) for k, v in _CHOICE_FIELDS.items() if draw(st.booleans())})
    for left_out in ("index", "finish_reason", "delta"):  # servers leave fields out, too
        if draw(st.integers(0, 3)) == 0:
            del choice[left_out]
    out: dict[str, Any] = {"id": "chatcmpl-1", "choices": [choice]}
    if draw(st.booleans()):
        out["choices"].append({**choice, "index": 1})
    if draw(st.booleans()):
        out["usage"] = draw(st.sampled_from([usage(3, 4)["usage"], None]))
    return out


def _reader() -> ChatStreamReader:
    return ChatStreamReader(ToolNameMap(), (), "toolu_")


def _state(reader: ChatStreamReader) -> tuple[Any, ...]:
    return (dict(reader.calls), reader.finish_reason, reader.stop_match, reader.usage)


@given(chunks())
def test_a_chunk_plain_text_takes_is_one_text_piece_of_the_reader_and_changes_nothing(
    read: dict[str, Any],
) -> None:
    found = plain_text(read)
    if found is None:
        return
    reader = _reader()
    before = _state(reader)
    pieces = reader.feed(read)
    assert [(p.kind, p.text) for p in pieces] == [("text", found)]
    assert _state(reader) == before


def test_the_pipelines_text_chunks_take_the_hot_path_and_the_others_do_not() -> None:
    assert plain_text(text("Hello")) == "Hello"
    assert plain_text(chunk({"content": "Hello"}, logprobs=None, stop_reason=None)) == "Hello"
    assert plain_text({**text("Hello"), "usage": None}) == "Hello"
    assert plain_text(chunk({"content": "Hello"}, finish="stop")) is None
    assert plain_text(chunk({"content": "Hello"}, stop_reason="END")) is None
    assert plain_text(chunk({"content": "Hello", "role": "assistant"})) is None
    assert plain_text(chunk({"content": ""})) is None
    assert plain_text({**text("Hello"), "usage": usage(1, 1)["usage"]}) is None
