"""Deliver 4: native `tool_calls` fragments reassembled, resolved, gated, split or flagged."""

from __future__ import annotations

import json
from types import MappingProxyType

from hypothesis import given
from hypothesis import strategies as st

import toolmend
from toolmend.recovery.native import NativeAssembler

from .wire import TOOLS, chunk, content_stream, fold, native_fragments

# Seed 000: six read_file objects glued into one arguments string (model batching reads).
SIX_READS = "".join(
    json.dumps({"path": f"src/core/task/{name}.ts", "mode": "slice"})
    for name in (
        "apiConversationHistory",
        "AskIgnoredError",
        "build-tools",
        "Task",
        "TaskRegistry",
        "index",
    )
)


def run(native, **kw):
    chunks = content_stream([], native=native, finish=kw.pop("finish", "tool_calls"))
    diags: list[dict] = []
    got = fold(
        toolmend.recover_stream(
            chunks, tools=TOOLS, model="gpt-4o", on_diagnostic=diags.append, id_prefix="n", **kw
        )
    )
    got["diags"] = diags
    return got


def test_native_fragments_are_reassembled_into_one_whole_call():
    got = run(native_fragments("call_a", "read_file", '{"path": "a.py"}', size=3))
    assert got["calls"] == [("read_file", {"path": "a.py"})]
    assert got["ids"] == ["call_a"]
    assert got["finish"] == ["tool_calls"]


def test_a_disguised_native_name_maps_back_to_the_declared_tool():
    for written in ("Todo", "mcp_49f0-Todo", "mcp__server__todo"):
        got = run(native_fragments("c1", written, '{"item": "x"}'))
        assert got["calls"] == [("todo", {"item": "x"})], written
        assert [d["code"] for d in got["diags"]] == ["native_name_resolved"]


def test_native_arguments_are_repaired_through_the_schema_gate():
    got = run(native_fragments("c1", "get_weather", '{"city": "Oslo", "days": "3"}'))
    assert got["calls"] == [("get_weather", {"city": "Oslo", "days": 3})]
    repaired = [d for d in got["diags"] if d["code"] == "arguments_repaired"]
    assert repaired and repaired[0]["call_id"] == "c1"


def test_six_glued_read_file_objects_become_six_calls():
    got = run(native_fragments("call_r", "read_file", SIX_READS, size=40))
    assert [c[0] for c in got["calls"]] == ["read_file"] * 6
    assert got["calls"][1][1] == {"path": "src/core/task/AskIgnoredError.ts", "mode": "slice"}
    assert got["ids"][0] == "call_r" and len(set(got["ids"])) == 6
    split = [d for d in got["diags"] if d["code"] == "concatenated_json_split"]
    assert split[0]["detail"]["count"] == 6


def test_glued_objects_that_do_not_all_validate_are_flagged_not_split():
    glued = '{"path": "a.py"}{"nope": 1}'
    got = run(native_fragments("call_g", "read_file", glued))
    assert got["calls"] == []
    assert got["rejected"][0]["id"] == "call_g" and got["rejected"][0]["incomplete"] is True
    rejected = [d for d in got["diags"] if d["code"] == "call_rejected"]
    assert rejected[0]["detail"]["flag"] == "concatenated_json"
    assert rejected[0]["detail"]["category"] == "INVALID_JSON_ARGUMENTS"
    assert got["finish"] == ["stop"]  # nothing left to execute


def test_a_native_call_that_cannot_be_made_valid_is_flagged_with_its_reason():
    got = run(native_fragments("c1", "read_file", '{"mode": "r"}'))
    assert got["calls"] == []
    assert got["rejected"][0]["function"]["name"] == "read_file"
    assert "path" in got["rejected"][0]["error"]


def test_a_flagged_native_call_keeps_the_arguments_the_model_wrote():
    # The caller answers it with an error result that says what was wrong: it needs them.
    written = '{"path": {"dir": "/tmp"}}'
    for name in ("rm_rf", "read_file"):
        got = run(native_fragments("c1", name, written, size=4))
        assert got["calls"] == []
        assert got["rejected"][0]["function"]["arguments"] == written, name


def test_a_native_call_of_an_unknown_tool_is_flagged_not_passed_on():
    got = run(native_fragments("c1", "rm_rf", "{}"))
    assert got["calls"] == [] and got["rejected"][0]["function"]["name"] == "rm_rf"
    rejected = next(d for d in got["diags"] if d["code"] == "call_rejected")
    assert rejected["detail"]["reason"] == "unknown_tool"
    assert rejected["detail"]["category"] == "TOOL_NOT_FOUND"


def test_truncated_native_json_is_flagged_as_truncated():
    got = run(native_fragments("c1", "read_file", '{"path": "a.p'), finish="length")
    assert got["calls"] == []
    assert got["finish"] == ["length"]
    detail = next(d for d in got["diags"] if d["code"] == "call_rejected")["detail"]
    assert detail["flag"] == "truncated_json"
    assert "a.p" not in json.dumps(got["diags"])  # no raw fragment in a diagnostic


def test_parallel_native_calls_keep_their_order_ids_and_indices():
    native = [
        *native_fragments("c1", "read_file", '{"path": "a"}', index=0),
        *native_fragments("c2", "todo", '{"item": "b"}', index=1),
    ]
    got = run(native)
    assert got["calls"] == [("read_file", {"path": "a"}), ("todo", {"item": "b"})]
    assert got["ids"] == ["c1", "c2"]


def test_a_server_that_reuses_index_zero_for_every_call_still_gives_two_calls():
    native = [
        *native_fragments("c1", "read_file", '{"path": "a"}', index=0),
        *native_fragments("c2", "read_file", '{"path": "b"}', index=0),
    ]
    got = run(native)
    assert [c[1]["path"] for c in got["calls"]] == ["a", "b"]


def test_fragments_that_return_to_an_earlier_call_fail_closed():
    native = [
        {"index": 0, "id": "c1", "function": {"name": "read_file", "arguments": '{"pa'}},
        {"index": 1, "id": "c2", "function": {"name": "todo", "arguments": '{"item": "x"}'}},
        {"index": 0, "function": {"arguments": 'th": "a"}'}},
    ]
    got = run(native)
    assert got["calls"] == [("todo", {"item": "x"})]
    assert [r["id"] for r in got["rejected"]] == ["c1"]
    assert "native_call_order" in [d["code"] for d in got["diags"]]


def test_a_native_call_without_an_id_gets_one():
    native = [{"index": 0, "function": {"name": "todo", "arguments": '{"item": "x"}'}}]
    got = run(native)
    assert got["ids"] == ["n1"]


def test_native_arguments_sent_as_an_object_are_read():
    native = [{"index": 0, "id": "c1", "function": {"name": "todo", "arguments": {"item": "x"}}}]
    assert run(native)["calls"] == [("todo", {"item": "x"})]


def test_the_non_streaming_path_splits_glued_native_arguments_too():
    response = {
        "id": "x",
        "object": "chat.completion",
        "model": "mimo-v2.5-pro",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_r",
                            "type": "function",
                            "function": {"name": "read_file", "arguments": SIX_READS},
                        }
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
    }
    out = toolmend.recover_response(response, tools=TOOLS)
    calls = out["choices"][0]["message"]["tool_calls"]
    assert len(calls) == 6 and all("index" not in c for c in calls)
    assert out["choices"][0]["message"]["content"] is None


def test_text_and_native_calls_in_one_chunk_are_both_read():
    chunks = [
        chunk(
            {
                "role": "assistant",
                "content": "ok",
                "tool_calls": native_fragments("c1", "todo", '{"item": "x"}'),
            }
        ),
        chunk({}, "tool_calls"),
    ]
    got = fold(toolmend.recover_stream(chunks, tools=TOOLS, model="gpt-4o"))
    assert got["text"] == "ok" and got["calls"] == [("todo", {"item": "x"})]


def test_native_arguments_beyond_the_size_bound_are_flagged_not_held():
    big = '{"path": "' + "x" * (1024 * 1024) + '"}'
    got = run(native_fragments("c1", "read_file", big, size=64 * 1024))
    assert got["calls"] == []
    rejected = next(d for d in got["diags"] if d["code"] == "call_rejected")
    assert rejected["detail"]["reason"] == "too_large"


def test_a_native_call_of_a_type_toolmend_does_not_read_passes_as_it_came():
    # A custom (free-form) tool call: no `function` object; its fragments go on untouched.
    native = [
        {
            "index": 0,
            "id": "call_c",
            "type": "custom",
            "custom": {"name": "patch", "input": "*** Begin"},
        },
        {"index": 0, "custom": {"input": " Patch"}},
        *native_fragments("call_f", "todo", '{"item": "x"}', index=1),
    ]
    chunks = content_stream([], native=native, finish="tool_calls")
    out = list(toolmend.recover_stream(chunks, tools=TOOLS, model="gpt-5"))
    entries = [e for c in out for ch in c["choices"] for e in ch["delta"].get("tool_calls", [])]
    assert entries[:2] == [
        {
            "index": 0,
            "id": "call_c",
            "type": "custom",
            "custom": {"name": "patch", "input": "*** Begin"},
        },
        {"index": 0, "custom": {"input": " Patch"}},
    ]
    assert entries[2]["index"] == 1 and entries[2]["function"]["name"] == "todo"


_FRAGMENTS = st.lists(
    st.fixed_dictionaries(
        {"index": st.sampled_from([0, 1, True, False, 1.0, "0"])},
        optional={
            "id": st.sampled_from(["call_a", "call_b", ""]),
            "function": st.one_of(
                st.fixed_dictionaries({"arguments": st.text(max_size=4)}),
                st.fixed_dictionaries(
                    {"name": st.sampled_from(["read_file", ""])},
                    optional={"arguments": st.text(max_size=4)},
                ),
            ),
        },
    ),
    max_size=12,
)


@given(_FRAGMENTS)
def test_the_assemblers_fast_path_for_argument_fragments_reads_them_as_the_general_path_does(
    entries: list[dict],
) -> None:
    """`NativeAssembler.add` takes a plain dict fragment of the open call's arguments on a
    path of its own; any other mapping goes the general way: both give the same calls."""
    fast, general = NativeAssembler(), NativeAssembler()
    for entry in entries:
        assert (fast.add(entry) is None) == (general.add(MappingProxyType(entry)) is None)
    assert fast.calls == general.calls
    assert fast.order_diagnostics == general.order_diagnostics
