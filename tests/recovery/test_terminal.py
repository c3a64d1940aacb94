"""Deliver 6: one terminal path for normal end, transport errors, source failures, cancellation."""

from __future__ import annotations

import pytest

import toolmend

from .wire import TOOLS, chunk, content_stream, fold, native_fragments, split_every

INVOKE = '<invoke name="read_file"><parameter name="path">a.py</parameter></invoke>'
PARTIAL = '<invoke name="read_file"><parameter name="path">b.py</parameter>'


class Source:
    """An upstream that yields chunks, then raises `error` (if any); records being closed."""

    def __init__(self, chunks, error: BaseException | None = None) -> None:
        self.chunks = list(chunks)
        self.error = error
        self.closed = False
        self.read = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.read < len(self.chunks):
            self.read += 1
            return self.chunks[self.read - 1]
        if self.error is not None:
            raise self.error
        raise StopIteration

    def close(self) -> None:
        self.closed = True


def test_a_transport_error_delivers_the_complete_call_ends_as_tool_calls_then_raises():
    chunks = content_stream([INVOKE, "\n", PARTIAL], finish=None, usage=False)
    source = Source(chunks, ConnectionError("upstream reset"))
    diags: list[dict] = []
    out: list[dict] = []
    with pytest.raises(ConnectionError):
        for c in toolmend.recover_stream(
            source, tools=TOOLS, model="claude-opus-4-1", on_diagnostic=diags.append
        ):
            out.append(c)
    got = fold(out)
    assert got["calls"] == [("read_file", {"path": "a.py"})]
    assert got["finish"] == ["tool_calls"]
    assert [r["function"]["name"] for r in got["rejected"]] == ["read_file"]  # the partial one
    assert "cut off" in got["rejected"][0]["error"]
    assert source.closed


def test_a_transport_error_cuts_the_native_call_still_streaming():
    native = [
        *native_fragments("c1", "todo", '{"item": "x"}', index=0),
        *native_fragments("c2", "read_file", '{"path": "b.py"}', index=1),
    ]
    source = Source(content_stream([], native=native, finish=None, usage=False), OSError("eof"))
    out: list[dict] = []
    with pytest.raises(OSError):
        out.extend(toolmend.recover_stream(source, tools=TOOLS, model="gpt-4o"))
    got = fold(out)
    assert got["calls"] == [("todo", {"item": "x"})]
    assert [r["id"] for r in got["rejected"]] == ["c2"]


def test_an_error_chunk_in_the_stream_ends_the_turn_and_is_passed_on():
    chunks = content_stream([INVOKE], finish=None, usage=False)
    error = {"error": {"message": "overloaded", "type": "server_error", "code": 529}}
    out = list(toolmend.recover_stream([*chunks, error], tools=TOOLS, model="claude-opus-4-1"))
    assert out[-1] == error and out[-1] is not error
    got = fold(out[:-1])
    assert got["calls"] == [("read_file", {"path": "a.py"})] and got["finish"] == ["tool_calls"]


def test_a_stream_that_ends_without_a_finish_reason_still_delivers_its_calls():
    chunks = content_stream(["x ", INVOKE], finish=None, usage=False)
    got = fold(toolmend.recover_stream(chunks, tools=TOOLS, model="claude-opus-4-1"))
    assert got["calls"] == [("read_file", {"path": "a.py"})]
    assert got["finish"] == ["tool_calls"]


def test_cancelling_mid_call_yields_no_executable_call_and_closes_the_source():
    chunks = content_stream([INVOKE, " more text", " and more"], usage=False)
    source = Source(chunks)
    diags: list[dict] = []
    stream = toolmend.recover_stream(
        source, tools=TOOLS, model="claude-opus-4-1", on_diagnostic=diags.append
    )
    seen = [next(stream), next(stream)]
    stream.close()
    assert source.closed
    assert all(not ch["delta"].get("tool_calls") for c in seen for ch in c["choices"])
    assert any(d["code"] == "call_cut_off" for d in diags)
    assert not any(d["code"] == "leaked_call_recovered" for d in diags)


def test_an_abort_from_the_source_never_yields_an_executable_call():
    source = Source(content_stream([INVOKE], finish=None, usage=False), KeyboardInterrupt())
    out: list[dict] = []
    with pytest.raises(KeyboardInterrupt):
        out.extend(toolmend.recover_stream(source, tools=TOOLS, model="claude-opus-4-1"))
    assert fold(out)["calls"] == []
    assert source.closed


@pytest.mark.parametrize(
    "ending",
    ["normal", "error", "error-chunk", "cancel"],
)
def test_every_ending_flushes_each_parser_exactly_once(ending):
    # A nameless fragment is reported by the parser's flush: exactly once per flush.
    cut = '<tool_call>{"argu'
    chunks = content_stream(["hi ", cut], finish=None, usage=False)
    if ending == "error-chunk":
        chunks.append({"error": {"message": "upstream failed"}})
    source = Source(chunks, RuntimeError("boom") if ending == "error" else None)
    diags: list[dict] = []
    stream = toolmend.recover_stream(source, tools=TOOLS, model="qwen3", on_diagnostic=diags.append)
    if ending == "cancel":
        for _ in range(3):  # the role chunk, "hi ", the cut fragment (held by the parser)
            next(stream)
        stream.close()
    elif ending == "error":
        with pytest.raises(RuntimeError):
            list(stream)
    else:
        list(stream)
    assert [d["code"] for d in diags].count("truncated_fragment_dropped") == 1


def test_closing_the_output_closes_the_source_generator():
    closed = []

    def upstream():
        try:
            yield from content_stream(["one ", "two ", "three"])
        finally:
            closed.append(True)

    stream = toolmend.recover_stream(upstream(), tools=TOOLS, model="gpt-4o")
    next(stream)
    stream.close()
    assert closed == [True]


def test_a_chunk_that_is_not_a_dict_is_a_clear_error():
    with pytest.raises(toolmend.ToolmendError, match=r"chat\.completion\.chunk"):
        list(toolmend.recover_stream(["not a chunk"], tools=TOOLS))


def test_finish_reason_length_and_content_filter_are_kept():
    for reason in ("length", "content_filter"):
        chunks = [chunk({"content": INVOKE}), chunk({}, reason)]
        got = fold(toolmend.recover_stream(chunks, tools=TOOLS, model="claude-opus-4-1"))
        assert got["calls"] == [("read_file", {"path": "a.py"})]
        assert got["finish"] == [reason]


def test_closing_the_output_before_reading_it_closes_the_source():
    source = Source(content_stream(["x"]))
    toolmend.recover_stream(source, tools=TOOLS).close()
    assert source.closed and source.read == 0


class ClientStream:
    """Like the `openai` client's `Stream`: iterating gives a fresh generator; `close()` on the
    stream itself releases the HTTP response."""

    def __init__(self, chunks) -> None:
        self.chunks = chunks
        self.closed = False

    def __iter__(self):
        yield from self.chunks

    def close(self) -> None:
        self.closed = True


def test_the_stream_object_itself_is_closed_not_only_its_iterator():
    upstream = ClientStream(content_stream(["a", "b"]))
    with toolmend.recover_stream(upstream, tools=TOOLS) as stream:
        next(stream)
    assert upstream.closed


class Dumped:
    """A chunk object with `model_dump()`, as the `openai` client yields them."""

    def __init__(self, data) -> None:
        self.data = data

    def model_dump(self):
        return self.data


def test_chunk_objects_with_model_dump_are_read_as_their_dicts():
    chunks = [Dumped(c) for c in content_stream([INVOKE])]
    got = fold(toolmend.recover_stream(chunks, tools=TOOLS, model="claude-opus-4-1"))
    assert got["calls"] == [("read_file", {"path": "a.py"})]


def test_the_sans_io_core_runs_one_terminal_however_often_it_is_asked():
    from toolmend.recovery import StreamRecovery, Terminal

    recovery = StreamRecovery(TOOLS, "claude-opus-4-1")
    out = [
        c
        for piece in content_stream([INVOKE], finish=None, usage=False)
        for c in recovery.feed(piece)
    ]
    out += recovery.end(Terminal.END)
    assert recovery.end(Terminal.ERROR) == [] and recovery.end(Terminal.ABORT) == []
    assert fold(out)["calls"] == [("read_file", {"path": "a.py"})]
    with pytest.raises(toolmend.ToolmendError):
        recovery.feed(chunk({"content": "more"}))


def test_a_call_complete_in_small_chunks_before_a_transport_error_is_delivered():
    chunks = content_stream([*split_every(INVOKE, 3), " and", " then "], finish=None, usage=False)
    source = Source(chunks, TimeoutError("read timed out"))
    out: list[dict] = []
    with pytest.raises(TimeoutError):
        out.extend(toolmend.recover_stream(source, tools=TOOLS, model="claude-opus-4-1"))
    got = fold(out)
    assert got["calls"] == [("read_file", {"path": "a.py"})]
    assert got["rejected"] == [] and got["text"] == " and then "
