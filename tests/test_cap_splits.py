"""A block that outgrows a small fragment cap overflows at the same point however its text
arrives: whole, in two pieces cut anywhere, or one character at a time.

Below the cap, a reader's step that consumes nothing is stepped again when more input comes;
at the cap no more comes, so the parser steps it once more itself before it counts as stuck
(`StreamParser._run`). Readers that change their mind without consuming anything (a call's
header read whole just as its `{` arrives, a ```` ```json ```` fence found to hold no call)
once overflowed there when the text came whole, and read on when it came in pieces. The fuzzer
found four such cases (kept here); the sweep finds their siblings in every protocol's own
calls.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolmend
from fuzzing import SAMPLE_CALLS, TOOLS
from support import assert_conserved, comparable, run_chunks, split_at
from toolmend.core.reader import MAX_TAG_LENGTH

PROTOCOLS = [*toolmend.protocols(), "auto"]
#: A call whose value outgrows every cap below.
LONG_CALL = toolmend.ToolCall(
    id="call_9", name="write_file", arguments={"file_path": "a.py", "content": "x = 1\n" * 30}
)
#: The least cap there is, one above it, and one a short call fits under.
CAPS = (MAX_TAG_LENGTH, MAX_TAG_LENGTH + 1, 200)

#: The fuzzer's cases: (seed, protocol, max_fragment, input).
FUZZ_CASES = [
    (
        270000301,
        "auto",
        128,
        "```json\n/|><|from|>assistant\n<|recipient|>all\n<|content|>```<function_call></think>"
        "function=<|channel|>analysis<message|>```tool_",
    ),
    (
        280010267,
        "auto",
        128,
        '```json   print```json<|stamage|>{"city": "Rome", "days": 2}<|call|>>>>all\r\n'
        "</" + "antml" + ":stdout><|end|><｜tool▁call▁end｜><tool_call <|t",
    ),
    (
        280003211,
        "kimi-k2",
        129,
        '>\n{"tempcontent>>><|END_ACTION|></ivoket></result></function_re", "arguments": '
        '{"file_path": "a.py", "content": "if a < b:\\n    print(\\"x & y\\")\\n"}}]</'
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.write_file:0"
        '<|tool_call_argument_begin|>{"file_path": "a.py", "content": "if a < b:\\n    '
        'print(\\"x & y\\")\\n"}<|tool_call_end|><|tool_calls_section_end|><|close|>call'
        "<|sep|><|channel|>analysis<|message|>to=functions.<end_function_response>2",
    ),
    (300009350, "functionary-v3", 129, "write_file\r\n" + "{" * 118),
    (
        330000747,
        "auto",
        128,
        '<invoke name="write_file">\n<parameter name="file_path">a.py</parameter>\n'
        '<parameter name="content">if a &lt; b:\n    print("x &ale ',
    ),
    (
        330005658,
        "auto",
        200,
        "e<|channel|>analysis<|message|><|tool_calls_section_begin|><_>functions.get_weather:0"
        '<|tool_call_argument_begin|>{"city": "Rome", "days": 2}<|toot_weather</tool_name>'
        '<stdout>{"temp": 21}</stdout></result></function_results>ome<escap<seed:tool_call>of|>'
        '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "write_file", "parameters": '
        '{"file_path": "a.py", "content":  \\")\\n"}}]<|END_ACTION|>',
    ),
]


def assert_same_at_every_split(protocol: str, text: str, cap: int) -> None:
    whole = run_chunks(protocol, [text], TOOLS, max_fragment=cap)
    assert_conserved(text, whole)
    reference = comparable(whole)
    splits = [list(text), *(split_at(text, [i]) for i in range(1, len(text)))]
    for chunks in splits:
        got = comparable(run_chunks(protocol, chunks, TOOLS, max_fragment=cap))
        assert got == reference, f"split {[len(c) for c in chunks][:3]} changed the events"


@pytest.mark.parametrize(("seed", "protocol", "cap", "text"), FUZZ_CASES, ids=lambda v: str(v)[:9])
def test_the_fuzzers_overflow_cases_read_the_same_at_every_split(
    seed: int, protocol: str, cap: int, text: str
) -> None:
    assert len(text) > cap
    assert_same_at_every_split(protocol, text, cap)


def test_a_json_fence_that_holds_no_call_overflows_at_one_point_however_it_arrives() -> None:
    # The fuzzer's first case: whole, the fence overflowed right after its marker (19
    # characters skipped to an `auto` closer, the rest text); one character at a time, at the
    # cap (all 129 skipped).
    _, protocol, cap, text = FUZZ_CASES[0]
    whole = comparable(run_chunks(protocol, [text], TOOLS, max_fragment=cap))
    assert whole == comparable(run_chunks(protocol, list(text), TOOLS, max_fragment=cap))


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_call_over_a_small_cap_after_a_short_one_overflows_the_same_at_every_split(
    protocol: str,
) -> None:
    # Failed for every format that names its tool in a header before a JSON object (Mistral
    # v11, DeepSeek, Kimi K2, Functionary): cut right before the `{`, the header was read
    # whole with nothing consumed, and the cap took that for a stuck reader.
    render = toolmend.get_protocol("hermes" if protocol == "auto" else protocol).render_call
    text = render(SAMPLE_CALLS[0]) + "\n" + render(LONG_CALL)
    for cap in (MAX_TAG_LENGTH, 200):
        assert_same_at_every_split(protocol, text, cap)


@settings(max_examples=40)
@given(
    protocol=st.sampled_from(PROTOCOLS),
    cap=st.sampled_from(CAPS),
    before=st.sampled_from(["", "```json\n", "```json\nSee ", "Sure.\n", "<think>a</think>"]),
    cut=st.integers(min_value=0, max_value=400),
    after=st.sampled_from(["", "\nDone.", "\n```\nok"]),
)
def test_any_cut_of_a_long_call_under_any_small_cap_reads_the_same_at_every_split(
    protocol: str, cap: int, before: str, cut: int, after: str
) -> None:
    rendered = toolmend.get_protocol("json" if protocol == "auto" else protocol).render_call(
        LONG_CALL
    )
    assert_same_at_every_split(protocol, before + rendered[: MAX_TAG_LENGTH + cut] + after, cap)


#: Invoke-family formats (XML entities in values) and value tails that begin with `&` but can no
#: longer become an entity: `&ale`, `&x`, a lone `&`.
ENTITY_PROTOCOLS = ("anthropic-xml", "antml", "minimax-m2", "glimmer", "deepseek-dsml")
NOT_ENTITY_TAILS = ("&ale ", "&x y", "& b")


@pytest.mark.parametrize("tail", NOT_ENTITY_TAILS)
@pytest.mark.parametrize("protocol", ENTITY_PROTOCOLS)
def test_an_ampersand_at_the_cap_is_held_only_while_it_may_still_become_an_entity(
    protocol: str, tail: str
) -> None:
    # A `&` held back as a possible entity makes the held value cross the cap at another
    # character than when the same text arrives whole; held only while it can still be one,
    # the overflow point is the same at every split (fuzzer seed 330000747).
    call = toolmend.ToolCall(
        id="call_1", name="write_file", arguments={"file_path": "a.py", "content": "x MARK"}
    )
    rendered = toolmend.get_protocol(protocol).render_call(call)
    text = rendered[: rendered.index("MARK")] + tail
    for cap in range(len(text) - len(tail) - 1, len(text) + 1):
        assert_same_at_every_split(protocol, text, max(cap, MAX_TAG_LENGTH))


def test_a_dead_opener_in_reasoning_then_a_long_stretch_then_a_call_reads_the_same_at_every_split() -> (
    None
):
    # A special-token opener in reasoning is probed and the text after it held; when that probe
    # dies, the held text is reasoning and a later opener is probed afresh. Text arriving whole
    # once made the held stretch outgrow the cap before the probe could die, so the call at the
    # end of the unclosed reasoning was recovered only when the text came in pieces (fuzzer seed
    # 330005658).
    call = toolmend.get_protocol("kimi-k2").render_call(
        toolmend.ToolCall(id="call_1", name="get_weather", arguments={"city": "Rome", "days": 2})
    )
    text = (
        "<think>Let me see. <|tool_calls_section_begin|><_>no, not yet. "
        + "I weigh the options. " * 12
        + call
    )
    whole = toolmend.parse(text, protocol="kimi-k2", tools=TOOLS, max_fragment=200)
    assert [c.name for c in whole.tool_calls] == ["get_weather"]
    assert_same_at_every_split("kimi-k2", text, 200)
