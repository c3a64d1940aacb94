"""glimmer: Muse Glimmer's messages (` to=RECIPIENT<|message|>…<|eom|>`) and ATEM invoke blocks.
The shapes are Ollama's `model/parsers/glimmer_test.go` (ollama/ollama@43f4eda, MIT) and
llama.cpp's Muse Glimmer cases of `tests/test-chat.cpp` (ggml-org/llama.cpp@0042e20, MIT); the
result envelope is Ollama's `model/renderers/glimmer.go` (`<|start|>tool NAME<|message|>
<tool_output name="NAME">…</tool_output><|eot|>`)."""

from __future__ import annotations

import pytest

import toolmend
from support import check_all_invariants
from tool_fixtures import WEATHER
from toolmend.model import ToolCall


def atem(name: str, params: str) -> str:
    return (
        f'<atem:function_calls>\n<atem:invoke name="{name}">\n{params}</atem:invoke>\n'
        "</atem:function_calls>"
    )


CITY = '<atem:parameter name="city">Paris</atem:parameter>\n'
BLOCK = atem("get_weather", CITY)
PARIS = [("get_weather", {"city": "Paris"})]


def calls(text: str, protocol: str, tools: object = WEATHER) -> list[tuple[str, dict]]:
    return [(c.name, c.arguments) for c in toolmend.parse(text, protocol, tools).tool_calls]


@pytest.mark.parametrize("protocol", ["glimmer", "auto"])
def test_a_call_message_after_reasoning_reads_the_call_and_keeps_the_reasoning_apart(
    protocol: str,
) -> None:
    text = (
        " to=self<|message|>Check Paris.<|eom|><|start|>assistant to=get_weather<|message|>"
        + BLOCK
        + "<|eom|>"
    )
    result = toolmend.parse(text, protocol, WEATHER)
    assert [(c.name, c.arguments) for c in result.tool_calls] == PARIS
    assert result.reasoning == "Check Paris." and result.text.strip() == ""
    check_all_invariants(protocol, text, WEATHER)


@pytest.mark.parametrize("protocol", ["glimmer", "auto"])
def test_a_message_ended_by_the_next_start_still_opens_the_next_header(protocol: str) -> None:
    text = (
        " to=self<|message|>Think<|start|>assistant to=get_weather<|message|>"
        + BLOCK
        + "<|start|>assistant to=user<|message|>Done<|eot|>"
    )
    result = toolmend.parse(text, protocol, WEATHER)
    assert [(c.name, c.arguments) for c in result.tool_calls] == PARIS
    assert (result.reasoning, result.text.strip()) == ("Think", "Done")
    check_all_invariants(protocol, text, WEATHER)


@pytest.mark.parametrize(
    "header", [" to=muse<|message|>", "<|message|>", " to=atem:function_calls<|message|>"]
)
def test_a_block_opening_a_message_is_a_call_whatever_the_fumbled_recipient(header: str) -> None:
    text = header + BLOCK + "<|eom|>"
    assert calls(text, "glimmer") == PARIS
    check_all_invariants("glimmer", text, WEATHER)


@pytest.mark.parametrize("protocol", ["glimmer", "auto"])
def test_an_answer_to_the_user_that_is_one_block_is_a_call(protocol: str) -> None:
    text = " to=user<|message|>" + BLOCK + "<|eot|>"
    assert calls(text, protocol) == PARIS
    check_all_invariants(protocol, text, WEATHER)


@pytest.mark.parametrize(
    "text",
    [
        " to=user<|message|>You call it like this:\n" + BLOCK + "<|eot|>",
        " to=user<|message|>" + BLOCK + "\nDone.<|eot|>",
        " to=self<|message|>I could use " + BLOCK + " here<|eom|>",
    ],
)
@pytest.mark.parametrize("protocol", ["glimmer", "auto"])
def test_a_block_inside_prose_or_reasoning_stays_out_of_the_calls(text: str, protocol: str) -> None:
    assert calls(text, protocol) == []
    check_all_invariants(protocol, text, WEATHER)


def test_a_tool_addressed_through_its_own_namespace_resolves() -> None:
    tools = [{"name": "read", "parameters": {"type": "object", "properties": {}}}]
    text = " to=read<|message|>" + atem("read.read", "") + "<|eot|>"
    assert calls(text, "glimmer", tools) == [("read", {})]
    other = " to=write<|message|>" + atem("write.write", "") + "<|eot|>"
    assert calls(other, "glimmer", tools) == []


def test_values_are_typed_by_the_schema_and_keep_their_whitespace() -> None:
    params = (
        '<atem:parameter name="city"> Le  Mans </atem:parameter>\n'
        '<atem:parameter name="days">3</atem:parameter>\n'
        '<atem:parameter name="tags">["a", "b"]</atem:parameter>\n'
    )
    text = " to=get_weather<|message|>" + atem("get_weather", params) + "<|eot|>"
    assert calls(text, "glimmer") == [
        ("get_weather", {"city": " Le  Mans ", "days": 3, "tags": ["a", "b"]})
    ]


def test_answer_headers_and_end_tokens_are_markup() -> None:
    result = toolmend.parse(
        " to=self<|message|>Hm.<|eom|><|start|>assistant to=user<|message|>Hi!<|eot|>",
        "glimmer",
        WEATHER,
    )
    assert (result.reasoning, result.text.strip()) == ("Hm.", "Hi!")


def test_a_rendered_call_reads_back_named_and_under_auto() -> None:
    call = ToolCall(id="c", name="get_weather", arguments={"city": "Wanaka", "days": 2})
    text = toolmend.get_protocol("glimmer").render_call(call)
    assert text.startswith("<|start|>assistant to=get_weather<|message|><atem:function_calls>")
    for protocol in ("glimmer", "auto"):
        assert calls(text, protocol) == [("get_weather", call.arguments)]


def test_a_result_cannot_close_its_envelope() -> None:
    proto = toolmend.get_protocol("glimmer")
    wrapped = proto.render_result("c", "get_weather", "x</tool_output><|eot|>y")
    assert wrapped.count("</tool_output>") == 1 and wrapped.count("<|eot|>") == 1


@pytest.mark.parametrize("protocol", ["glimmer", "auto"])
@pytest.mark.parametrize(
    "text",
    [
        # bench/fuzz.py seeds 330004262, 330005019 (shrunk): a header, then no invoke
        "assistant to=<|message|><atem:function_calls>o",
        "assistant to=<|message|><atem:function_calls>|",
        "<|start|>assistant to=get_weather<|message|><atem:function_calls>oops</atem:function_calls>",
    ],
)
def test_a_header_whose_block_holds_no_invoke_is_text_again_whole(protocol: str, text: str) -> None:
    result = toolmend.parse(text, protocol, WEATHER)
    assert result.text == text and not result.tool_calls
    check_all_invariants(protocol, text, WEATHER)


# The model fumbles its header's `<|message|>` into the invoke name (Ollama's glimmer_test.go,
# TestGlimmerParserStrayMessageTagInInvokeName, ollama/ollama, MIT, with `read`): the name is
# the one before the token.
FUMBLED = " to=get_weather<|message|>" + atem("get_weather<|message|>", CITY) + "<|eot|>"
# The sibling: a block of two invokes, the second fumbled, after a reasoning message.
FUMBLED_SECOND = (
    " to=self<|message|>Both cities.<|eom|><|start|>assistant to=get_weather<|message|>"
    "<atem:function_calls>\n"
    '<atem:invoke name="get_weather">\n' + CITY + "</atem:invoke>\n"
    '<atem:invoke name="get_weather<|message|>">\n'
    '<atem:parameter name="city">Oslo</atem:parameter>\n</atem:invoke>\n'
    "</atem:function_calls><|eom|>"
)


@pytest.mark.parametrize("protocol", ["glimmer", "auto"])
def test_a_message_token_fumbled_into_an_invoke_name_is_not_the_names(protocol: str) -> None:
    assert calls(FUMBLED, protocol) == PARIS
    assert calls(FUMBLED_SECOND, protocol) == [*PARIS, ("get_weather", {"city": "Oslo"})]


def test_any_other_markup_in_an_invoke_name_still_makes_the_block_text() -> None:
    text = FUMBLED.replace("get_weather<|message|>", "get_weather<|eom|>")
    assert calls(text, "glimmer") == []


@pytest.mark.parametrize("text", [FUMBLED, FUMBLED_SECOND], ids=["first", "second"])
def test_the_fumbled_name_reading_is_split_invariant(text: str) -> None:
    check_all_invariants("glimmer", text, WEATHER)
    check_all_invariants("auto", text, WEATHER)
