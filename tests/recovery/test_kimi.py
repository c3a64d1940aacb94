"""Deliver 3: Kimi's leaked XTML (seed 003, 2026-07-29, 07-30 and 08-23 entries)."""

from __future__ import annotations

import json

import pytest

from toolmend.recovery import family_protocols

from .wire import recover, split_every, splits_at_every_boundary

KIMI = "kimi-k3-ultrafast-unlocked"
TOOLS_BLOCK = (
    '<|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|>'
    '<|open|>argument key="city" type="string"<|sep|>Oslo<|close|>argument<|sep|>'
    '<|open|>argument key="days" type="number"<|sep|>2<|close|>argument<|sep|>'
    "<|close|>call<|sep|><|close|>tools<|sep|>"
)


def test_kimi_model_ids_default_to_the_kimi_formats():
    assert family_protocols(KIMI)[0] == "kimi-xtml"
    assert family_protocols("moonshotai/Kimi-K2-Thinking")[0] == "kimi-xtml"


def test_a_leaked_tools_block_becomes_a_call():
    got = recover(split_every(f"Checking.{TOOLS_BLOCK}", 6), model=KIMI)
    assert got["calls"] == [("get_weather", {"city": "Oslo", "days": 2})]
    assert got["text"] == "Checking."
    assert got["finish"] == ["tool_calls"]


@pytest.mark.parametrize("pieces", list(splits_at_every_boundary("Answer.<|close|>think\n")))
def test_a_sep_less_close_think_marker_is_stripped_silently_split_anywhere(pieces):
    # Seed 003, 2026-08-23: a visible text block ended with the literal `<|close|>think\n`.
    diags: list[dict] = []
    got = recover(pieces, model=KIMI, on_diagnostic=diags.append)
    assert got["text"] == "Answer.\n"
    assert diags == []


@pytest.mark.parametrize(
    "marker", ["<|open|><|sep|>", "<|close|><|sep|>", "<|sep|>", "<|open|>response<|sep|>"]
)
def test_stray_channel_markers_are_stripped_from_text_silently(marker):
    diags: list[dict] = []
    got = recover([f"a{marker}b"], model=KIMI, on_diagnostic=diags.append)
    assert got["text"] == "ab"
    assert diags == []


def test_markers_inside_code_stay_text():
    text = "Use `<|close|>think` or\n```\n<|open|>tools<|sep|>\n```\n"
    got = recover(split_every(text, 3), model=KIMI)
    assert got["text"] == text and got["calls"] == []


def test_a_think_channel_in_the_text_becomes_reasoning_with_its_diagnostic():
    text = "<|open|>think<|sep|>Let me consider.<|close|>think<|sep|>The answer is 4."
    diags: list[dict] = []
    got = recover(split_every(text, 4), model=KIMI, on_diagnostic=diags.append)
    assert got["reasoning"] == "Let me consider."
    assert got["text"] == "The answer is 4."
    assert [d["code"] for d in diags] == ["kimi_xtml_thinking_recovery"]


def test_a_call_written_inside_the_think_channel_is_never_executed():
    text = f"<|open|>think<|sep|>maybe {TOOLS_BLOCK} no<|close|>think<|sep|>Done."
    got = recover(split_every(text, 5), model=KIMI)
    assert got["calls"] == []
    assert got["text"] == "Done."
    assert got["rejected"] and got["rejected"][0]["error"] == "written inside reasoning"


def test_an_unknown_tool_in_a_tools_block_stays_text():
    text = TOOLS_BLOCK.replace("get_weather", "launch_rockets")
    got = recover([text], model=KIMI)
    assert got["calls"] == [] and got["text"] == text


def test_a_chunk_split_into_text_and_reasoning_keeps_its_role_on_the_first_piece():
    import toolmend

    from .wire import TOOLS, chunk

    chunks = [
        chunk(
            {
                "role": "assistant",
                "content": "Hi <|open|>think<|sep|>hmm<|close|>think<|sep|> there",
            }
        ),
        chunk({}, "stop"),
    ]
    out = list(toolmend.recover_stream(chunks, tools=TOOLS, model=KIMI))
    deltas = [ch["delta"] for c in out for ch in c["choices"]]
    assert deltas[0] == {"role": "assistant", "content": "Hi "}
    assert [d.get("reasoning_content") for d in deltas[:3]] == [None, "hmm", None]
    assert "".join(d.get("content") or "" for d in deltas) == "Hi  there"


#: Kimi K2's section tokens (the second format a Kimi model is read with), as the LocalAI and
#: vllm-mlx parser tests write them (`tests/corpus/engines/`), for the same call as TOOLS_BLOCK.
K2_SECTION = (
    "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
    '<|tool_call_argument_begin|>{"city": "Oslo", "days": 2}<|tool_call_end|>'
    "<|tool_calls_section_end|>"
)


#: The same call in Kimi K2's tokens for another city (the reply's second call is not a copy of
#: its first: a call that repeats the one right before it is not run twice, whatever format).
K2_BERGEN = K2_SECTION.replace("Oslo", "Bergen")


@pytest.mark.parametrize(
    "pieces", list(splits_at_every_boundary(f"a {TOOLS_BLOCK} b {K2_BERGEN} c {TOOLS_BLOCK}"))
)
def test_both_kimi_formats_are_read_in_one_reply_however_it_is_split(pieces):
    got = recover(pieces, model=KIMI)
    oslo, bergen = {"city": "Oslo", "days": 2}, {"city": "Bergen", "days": 2}
    assert got["calls"] == [("get_weather", oslo), ("get_weather", bergen), ("get_weather", oslo)]
    assert got["text"] == "a  b  c "


def test_a_long_k2_section_call_in_small_chunks_keeps_its_arguments_and_the_text_after_it():
    # Long enough that its text reaches the parsers in batches while the call is read.
    content = "".join(f"line {i}: print({i})\n" for i in range(300))
    section = K2_SECTION.replace(
        '{"city": "Oslo", "days": 2}', f'{{"file_path": "a.py", "content": {json.dumps(content)}}}'
    ).replace("get_weather", "write_file")
    got = recover(split_every(f"Writing.{section}Done.", 5), model=KIMI)
    assert got["calls"] == [("write_file", {"file_path": "a.py", "content": content})]
    assert got["text"] == "Writing.Done."
