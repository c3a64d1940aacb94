"""minimax-m3: MiniMax-M3's token-led invokes (`]<]minimax[>[<invoke name=…>]<]minimax[>[<KEY>…`).
The shapes are llama.cpp's MiniMax-M3 cases of `tests/test-chat.cpp` (ggml-org/llama.cpp@0042e20,
MIT); the tags written without the token are from users' reports of MiniMax-M3 output quoted in
public test suites (a closer without the token, a bare `<tool_call>` wrapper)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolmend
from support import check_all_invariants
from tool_fixtures import WEATHER
from toolmend.events import ToolCallEnd
from toolmend.model import ToolCall
from toolmend.protocols.minimax_m3 import NS

UNION = [
    {
        "name": "union_args",
        "parameters": {
            "type": "object",
            "properties": {
                "label": {"oneOf": [{"type": "string"}, {"type": "object"}]},
                "limit": {
                    "oneOf": [
                        {"type": "integer"},
                        {"type": "object", "properties": {"max": {"type": "integer"}}},
                    ]
                },
            },
        },
    }
]


def el(key: str, value: str) -> str:
    return f"{NS}<{key}>{value}{NS}</{key}>"


def block(*invokes: tuple[str, str]) -> str:
    body = "".join(f'{NS}<invoke name="{n}">{a}{NS}</invoke>\n' for n, a in invokes)
    return f"{NS}<tool_call>\n{body}{NS}</tool_call>"


def calls(text: str, protocol: str, tools: object = WEATHER) -> list[tuple[str, dict]]:
    return [(c.name, c.arguments) for c in toolmend.parse(text, protocol, tools).tool_calls]


@pytest.mark.parametrize("protocol", ["minimax-m3", "auto"])
def test_parallel_invokes_after_reasoning_are_read_with_values_typed_by_the_schema(
    protocol: str,
) -> None:
    text = "<mm:think>Two cities.</mm:think>" + block(
        ("get_weather", el("city", "Paris") + el("days", "3")),
        ("get_weather", el("city", "Oslo") + f"{NS}<tags>{el('item', 'rain')}{NS}</tags>"),
    )
    result = toolmend.parse(text, protocol, WEATHER)
    assert [(c.name, c.arguments) for c in result.tool_calls] == [
        ("get_weather", {"city": "Paris", "days": 3}),
        ("get_weather", {"city": "Oslo", "tags": ["rain"]}),
    ]
    assert result.reasoning == "Two cities." and result.text == ""
    check_all_invariants(protocol, text, WEATHER)


def test_a_bare_reasoning_closer_opening_the_turn_is_markup() -> None:
    text = "</mm:think>" + block(("get_weather", el("city", "Rome")))
    result = toolmend.parse(text, "minimax-m3", WEATHER)
    assert result.text == "" and len(result.tool_calls) == 1


@pytest.mark.parametrize("protocol", ["minimax-m3", "auto"])
def test_tags_written_without_the_token_are_read_too(protocol: str) -> None:
    text = f'{NS}<tool_call>\n{NS}<invoke name="get_weather">{NS}<city>Lyon</city>{NS}</invoke>\n'
    assert calls(text + f"{NS}</tool_call>", protocol) == [("get_weather", {"city": "Lyon"})]


def test_an_invoke_opens_a_block_without_its_wrapper() -> None:
    text = f'Checking.{NS}<invoke name="get_weather">{el("city", "Bern")}{NS}</invoke>'
    assert calls(text, "minimax-m3") == [("get_weather", {"city": "Bern"})]


def test_a_union_with_a_string_keeps_text_and_picks_the_branch_by_the_value() -> None:
    structured_text = f"{NS}<text>hi{NS}</text>"
    text = block(("union_args", el("label", structured_text) + el("limit", "5")))
    assert calls(text, "minimax-m3", UNION) == [
        ("union_args", {"label": structured_text, "limit": 5})
    ]
    nested = block(("union_args", f"{NS}<limit>{el('max', '10')}{NS}</limit>"))
    assert calls(nested, "minimax-m3", UNION) == [("union_args", {"limit": {"max": 10}})]


def test_an_unknown_tool_stays_text_as_written() -> None:
    text = block(("launch", el("target", "moon")))
    result = toolmend.parse(text, "minimax-m3", WEATHER)
    assert result.tool_calls == [] and result.text == text


def test_a_cut_off_invoke_is_no_executable_call() -> None:
    text = block(("get_weather", el("city", "Paris")))[:-60]
    assert [c for c in toolmend.parse(text, "minimax-m3", WEATHER).tool_calls if c.executable] == []


def test_a_rendered_call_reads_back_and_a_value_holding_the_token_is_refused() -> None:
    proto = toolmend.get_protocol("minimax-m3")
    call = ToolCall(id="c", name="get_weather", arguments={"city": "Wanaka", "tags": ["a", "b"]})
    for protocol in ("minimax-m3", "auto"):
        assert calls(proto.render_call(call), protocol) == [("get_weather", call.arguments)]
    with pytest.raises(toolmend.CannotRenderError):
        proto.render_call(ToolCall(id="c", name="get_weather", arguments={"city": NS}))


#: Pieces of the closers an invoke's text may hold without being closed by them.
NEAR_CLOSERS = st.lists(
    st.sampled_from(["]", "]<]mini", NS, "<", "</", "</inv", "</invoke", "<invoke", "x", "\n"]),
    max_size=8,
).map("".join)


@settings(max_examples=60, deadline=None)
@given(NEAR_CLOSERS, st.integers(1, 12))
def test_an_invoke_holding_pieces_of_its_closer_reads_the_same_in_any_chunks(
    noise: str, size: int
) -> None:
    # The invoke's text goes by the fast path while nothing read can begin a closer: text that
    # can begin one, or closes it, is read by the reader whatever chunk it falls in.
    text = block(("get_weather", el("city", "Par" + noise.replace("</invoke", "</invok") + "is")))
    whole = toolmend.parse(text, "minimax-m3", WEATHER)
    events = []
    parser = toolmend.stream_parser("minimax-m3", WEATHER)
    for i in range(0, len(text), size):
        events += parser.feed(text[i : i + size])
    events += parser.finish()
    assert [e.call.arguments for e in events if isinstance(e, ToolCallEnd)] == [
        c.arguments for c in whole.tool_calls
    ]
    check_all_invariants("minimax-m3", text, WEATHER)
