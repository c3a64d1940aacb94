"""Deliver 4 (dual protocol) and 5: native and recovered calls together, ids, finish_reason."""

from __future__ import annotations

import toolmend

from .wire import TOOLS, chunk, fold, native_fragments

HERMES_A = '<tool_call>{"name": "read_file", "arguments": {"path": "a.py"}}</tool_call>'
HERMES_C = '<tool_call>{"name": "read_file", "arguments": {"path": "c.py"}}</tool_call>'


def run(chunks, **kw):
    diags: list[dict] = []
    got = fold(
        toolmend.recover_stream(
            chunks,
            tools=TOOLS,
            model="mimo-v2.5-pro",
            on_diagnostic=diags.append,
            id_prefix="rc_",
            **kw,
        )
    )
    got["codes"] = [d["code"] for d in diags]
    got["diags"] = diags
    return got


def test_interleaved_native_and_leaked_calls_keep_source_order_and_contiguous_indices():
    chunks = [
        chunk({"role": "assistant", "content": f"First {HERMES_A} then"}),
        chunk({"tool_calls": native_fragments("call_b", "todo", '{"item": "b"}')}),
        chunk({"content": f" and {HERMES_C}"}),
        chunk({}, "tool_calls"),
    ]
    got = run(chunks)
    assert got["calls"] == [
        ("read_file", {"path": "a.py"}),
        ("todo", {"item": "b"}),
        ("read_file", {"path": "c.py"}),
    ]
    assert got["ids"][1] == "call_b" and len(set(got["ids"])) == 3
    assert got["text"] == "First  then and "


def test_markup_in_text_next_to_native_calls_is_recorded_with_the_guard_signal():
    chunks = [
        chunk({"role": "assistant", "content": f"I will read it. {HERMES_A}"}),
        chunk({"tool_calls": native_fragments("call_n", "read_file", '{"path": "a.py"}')}),
        chunk({}, "tool_calls"),
    ]
    got = run(chunks)
    # The XML echo of the native call is stripped from the text and not run a second time.
    assert got["calls"] == [("read_file", {"path": "a.py"})]
    assert got["ids"] == ["call_n"]
    assert got["text"] == "I will read it. "
    dual = next(d for d in got["diags"] if d["code"] == "xml_native_dual")
    assert dual["detail"]["category"] == "INVALID_TOOL_PROTOCOL"
    assert dual["detail"]["pattern_id"] == "EI/INVALID_TOOL_PROTOCOL/002"
    assert "dual_protocol_duplicate" in got["codes"]


def test_the_guard_classifies_the_dual_protocol_diagnostic_as_invalid_tool_protocol():
    chunks = [
        chunk({"content": HERMES_A}),
        chunk({"tool_calls": native_fragments("call_n", "todo", '{"item": "x"}')}),
        chunk({}, "tool_calls"),
    ]
    dual = next(d for d in run(chunks)["diags"] if d["code"] == "xml_native_dual")
    verdict = toolmend.classify_error("", metadata=dual["detail"])
    assert verdict.category == "INVALID_TOOL_PROTOCOL"


def test_a_native_id_that_collides_with_an_earlier_call_fails_closed():
    chunks = [
        chunk({"tool_calls": native_fragments("call_1", "todo", '{"item": "a"}', index=0)}),
        chunk({"tool_calls": native_fragments("call_1", "todo", '{"item": "b"}', index=1)}),
        chunk({}, "tool_calls"),
    ]
    got = run(chunks)
    assert got["calls"] == [("todo", {"item": "a"})]
    assert [r["id"] for r in got["rejected"]] == ["call_1"]
    collision = next(d for d in got["diags"] if d["code"] == "tool_call_id_collision")
    assert collision["call_id"] == "call_1"


def test_recovered_ids_never_take_an_id_a_native_call_holds():
    chunks = [
        chunk({"content": HERMES_A}),
        chunk({"tool_calls": native_fragments("rc_1", "todo", '{"item": "x"}')}),
        chunk({}, "tool_calls"),
    ]
    got = run(chunks)
    assert len(got["calls"]) == 2 and len(set(got["ids"])) == 2 and "rc_1" in got["ids"]


def test_stop_becomes_tool_calls_when_a_call_was_recovered():
    got = run([chunk({"content": HERMES_A}), chunk({}, "stop")])
    assert got["finish"] == ["tool_calls"]


def test_tool_calls_becomes_stop_when_no_executable_call_is_left():
    got = run([chunk({"tool_calls": native_fragments("c", "nope", "{}")}), chunk({}, "tool_calls")])
    assert got["calls"] == [] and got["finish"] == ["stop"]


def test_each_choice_of_a_multi_choice_stream_is_recovered_on_its_own():
    def two(delta0, delta1, finish=None):
        return {
            "id": "x",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "m",
            "choices": [
                {"index": 0, "delta": delta0, "finish_reason": finish},
                {"index": 1, "delta": delta1, "finish_reason": finish},
            ],
        }

    chunks = [two({"content": HERMES_A}, {"content": "no call"}), two({}, {}, "stop")]
    out = list(toolmend.recover_stream(chunks, tools=TOOLS, model="m"))
    assert fold(out, 0)["calls"] == [("read_file", {"path": "a.py"})]
    assert fold(out, 1)["calls"] == [] and fold(out, 1)["text"] == "no call"
    assert fold(out, 1)["finish"] == ["stop"] and fold(out, 0)["finish"] == ["tool_calls"]


def test_a_leaked_call_in_small_pieces_still_comes_before_the_native_call_after_it():
    pieces = [HERMES_A[i : i + 3] for i in range(0, len(HERMES_A), 3)]
    chunks = [
        chunk({"role": "assistant", "content": "First "}),
        *[chunk({"content": piece}) for piece in pieces],
        chunk({"tool_calls": native_fragments("call_b", "todo", '{"item": "b"}')}),
        chunk({"content": " done"}),
        chunk({}, "tool_calls"),
    ]
    got = run(chunks)
    assert got["calls"] == [("read_file", {"path": "a.py"}), ("todo", {"item": "b"})]
    assert got["text"] == "First  done"
