"""Reasoning spans: their text is reasoning (`ReasoningDelta`, `ParseResult.reasoning`), never
visible text and never scanned for calls, in every protocol and under `auto`."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolmend
from support import check_all_invariants, run_chunks, split_at
from toolmend.events import ReasoningDelta, ToolCallEnd, ToolCallStart

WEATHER = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]
CALL = toolmend.ToolCall(id="call_1", name="get_weather", arguments={"city": "Oslo"})
HERMES_CALL = '<tool_call>{"name":"get_weather","arguments":{"city":"Oslo"}}</tool_call>'


def rendered(protocol: str) -> str:
    return toolmend.get_protocol(protocol).render_call(CALL)


def test_a_hermes_call_inside_think_tags_is_reasoning_not_a_call() -> None:
    # The defect of issue 9, as it was reported.
    text = f"<think>I could call {HERMES_CALL} but no.</think>Answer: sunny."
    result = toolmend.parse(text, protocol="hermes", tools=WEATHER)
    assert result.tool_calls == []
    assert result.text == "Answer: sunny."
    assert result.reasoning == f"I could call {HERMES_CALL} but no."


def test_a_call_after_the_reasoning_is_still_read() -> None:
    text = f"<think>plan</think>{HERMES_CALL}"
    result = toolmend.parse(text, protocol="hermes", tools=WEATHER)
    assert [c.name for c in result.tool_calls] == ["get_weather"]
    assert result.reasoning == "plan"


PAIRS = [(p, p) for p in toolmend.protocols()] + [("auto", p) for p in toolmend.protocols()]


@pytest.mark.parametrize(("protocol", "writer"), PAIRS)
@settings(max_examples=25, deadline=None)
@given(cuts=st.lists(st.integers(min_value=1, max_value=400), max_size=6))
def test_a_call_inside_reasoning_is_never_executed_however_it_is_split(
    protocol: str, writer: str, cuts: list[int]
) -> None:
    text = f"Let me see.<think>maybe {rendered(writer)} or not</think>Done."
    events = run_chunks(protocol, split_at(text, [c for c in cuts if c < len(text)]), WEATHER)
    assert not [e for e in events if isinstance(e, (ToolCallStart, ToolCallEnd))]
    reasoning = "".join(e.text for e in events if isinstance(e, ReasoningDelta))
    assert reasoning == f"maybe {rendered(writer)} or not"


@pytest.mark.parametrize(
    ("protocol", "opener", "closer"),
    [
        ("kimi-xtml", "<|open|>think<|sep|>", "<|close|>think<|sep|>"),
        ("kimi-xtml", "<|open|>think<|sep|>", "<|close|>think"),
        ("gemma4", "<|channel>thought\n", "<channel|>"),
        ("mistral", "[THINK]", "[/THINK]"),
        ("cohere", "<|START_THINKING|>", "<|END_THINKING|>"),
        ("harmony", "<|channel|>analysis<|message|>", "<|end|>"),
        ("harmony", "<|start|>assistant<|channel|>analysis<|message|>", "<|end|>"),
    ],
)
@pytest.mark.parametrize("reader", ["own", "auto"])
def test_a_format_s_own_reasoning_span_is_never_scanned(
    protocol: str, opener: str, closer: str, reader: str
) -> None:
    text = f"{opener}maybe {rendered(protocol)}{closer}Done."
    parsed_by = protocol if reader == "own" else "auto"
    result = toolmend.parse(text, protocol=parsed_by, tools=WEATHER)
    assert result.tool_calls == []
    assert result.text == "Done."
    assert rendered(protocol) in result.reasoning
    check_all_invariants(parsed_by, text, WEATHER)


def test_reasoning_tags_split_at_every_boundary_keep_every_invariant() -> None:
    check_all_invariants("hermes", f"a<think>b {HERMES_CALL} c</think>d{HERMES_CALL}", WEATHER)


def test_think_mentioned_inside_code_stays_text() -> None:
    text = f"Use `<think>` for it:\n```\n<think>{HERMES_CALL}</think>\n```\n"
    result = toolmend.parse(text, protocol="hermes", tools=WEATHER)
    assert result.text == text
    assert result.reasoning == ""
    assert result.tool_calls == []  # fenced: an example, never a call


def test_output_that_begins_inside_reasoning_is_reasoning_up_to_the_closer() -> None:
    text = f"the template opened it {HERMES_CALL}</think>Answer.{HERMES_CALL}"
    result = toolmend.parse(text, protocol="hermes", tools=WEATHER, reasoning="open")
    assert result.reasoning == f"the template opened it {HERMES_CALL}"
    assert result.text == "Answer."
    assert len(result.tool_calls) == 1
    check_all_invariants("hermes", text, WEATHER, reasoning="open")


def test_a_stream_cut_inside_reasoning_keeps_it_reasoning_and_reads_no_call() -> None:
    result = toolmend.parse(f"<think>half {HERMES_CALL} and then", protocol="auto", tools=WEATHER)
    assert result.reasoning == f"half {HERMES_CALL} and then"
    assert result.tool_calls == [] and result.text == ""


def test_a_hermes_call_ending_an_unclosed_reasoning_span_is_recovered() -> None:
    # `<tool_call>` is a special token of the Qwen tokenizers (`test_reasoning_calls`).
    result = toolmend.parse(f"<think>half {HERMES_CALL}", protocol="auto", tools=WEATHER)
    assert result.reasoning == "half "
    assert [c.name for c in result.tool_calls] == ["get_weather"]
    assert [d.code for d in result.diagnostics] == ["call_in_unclosed_reasoning"]


def test_an_unknown_reasoning_option_is_a_caller_error() -> None:
    with pytest.raises(ValueError, match="reasoning"):
        toolmend.stream_parser("hermes", reasoning="closed")  # type: ignore[typeddict-item]


def test_the_reasoning_appears_in_the_result_dict_only_when_there_is_some() -> None:
    assert "reasoning" not in toolmend.parse("plain", protocol="hermes").to_dict()
    assert toolmend.parse("<think>r</think>", protocol="hermes").to_dict()["reasoning"] == "r"
