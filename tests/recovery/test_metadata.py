"""Deliver 7: every field toolmend does not own passes through untouched; usage is copied."""

from __future__ import annotations

import copy
import json

import toolmend

from .wire import ENVELOPE, TOOLS, fold, native_fragments

INVOKE = '<invoke name="read_file"><parameter name="path">a.py</parameter></invoke>'


def vendor_stream():
    """Chunks carrying vendor fields at every level (chunk, choice, delta, tool call, usage)."""
    first = {
        **ENVELOPE,
        "model": "claude-opus-4-1",
        "system_fingerprint": "fp_1",
        "x_gateway": {"region": "eu", "hops": [1, 2]},
        "choices": [
            {
                "index": 0,
                "delta": {"role": "assistant", "content": "", "x_delta_note": "keep"},
                "finish_reason": None,
                "logprobs": {"content": [{"token": "a", "logprob": -0.1}]},
                "x_choice": True,
            }
        ],
    }
    text = {
        **ENVELOPE,
        "model": "claude-opus-4-1",
        "obfuscation": "abc",
        "choices": [
            {"index": 0, "delta": {"content": INVOKE, "x_delta_note": 2}, "finish_reason": None}
        ],
    }
    native = native_fragments("c1", "todo", '{"item": "x"}')
    native[0]["x_cursor_exec_resolved"] = True  # seed 003: a resolved marker must survive
    native[0]["extra_content"] = {"google": {"thought_signature": "sig"}}
    calls = {
        **ENVELOPE,
        "choices": [{"index": 0, "delta": {"tool_calls": native}, "finish_reason": None}],
    }
    finish = {
        **ENVELOPE,
        "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls", "stop_reason": 7}],
        "usage": {
            "prompt_tokens": 1,
            "completion_tokens": 2,
            "prompt_tokens_details": {"cached_tokens": 0},
        },
    }
    return [first, text, calls, finish]


def test_unknown_vendor_fields_at_every_level_survive_as_json():
    chunks = vendor_stream()
    out = list(toolmend.recover_stream(chunks, tools=TOOLS, model="claude-opus-4-1"))
    assert json.dumps(out[0], sort_keys=True) == json.dumps(chunks[0], sort_keys=True)
    assert out[1]["obfuscation"] == "abc"
    assert out[1]["choices"][0]["delta"]["x_delta_note"] == 2
    last = out[-1]
    assert last["usage"] == chunks[-1]["usage"]
    assert last["choices"][0]["stop_reason"] == 7
    entries = last["choices"][0]["delta"]["tool_calls"]
    native = next(e for e in entries if e["id"] == "c1")
    assert native["x_cursor_exec_resolved"] is True
    assert native["extra_content"] == {"google": {"thought_signature": "sig"}}


def test_the_input_chunks_are_never_mutated():
    chunks = vendor_stream()
    before = copy.deepcopy(chunks)
    list(toolmend.recover_stream(chunks, tools=TOOLS, model="claude-opus-4-1"))
    assert chunks == before


def test_usage_objects_are_copied_not_shared():
    chunks = vendor_stream()
    out = list(toolmend.recover_stream(chunks, tools=TOOLS, model="claude-opus-4-1"))
    usage = out[-1]["usage"]
    assert usage is not chunks[-1]["usage"]
    assert usage["prompt_tokens_details"] is not chunks[-1]["usage"]["prompt_tokens_details"]


def test_the_calls_of_a_vendor_stream_are_in_source_order():
    got = fold(toolmend.recover_stream(vendor_stream(), tools=TOOLS, model="claude-opus-4-1"))
    assert got["calls"] == [("read_file", {"path": "a.py"}), ("todo", {"item": "x"})]


def test_diagnostics_are_attached_to_the_stream_only_when_asked():
    plain = list(toolmend.recover_stream(vendor_stream(), tools=TOOLS, model="claude-opus-4-1"))
    assert not any("toolmend_diagnostics" in c for c in plain)
    attached = list(
        toolmend.recover_stream(
            vendor_stream(), tools=TOOLS, model="claude-opus-4-1", attach_diagnostics=True
        )
    )
    codes = [d["code"] for c in attached for d in c.get("toolmend_diagnostics", [])]
    assert "leaked_call_recovered" in codes
    for c in attached:
        for d in c.get("toolmend_diagnostics", []):
            assert set(d) == {"code", "protocol", "tool", "call_id", "detail"}
