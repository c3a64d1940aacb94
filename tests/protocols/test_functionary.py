"""Functionary v3.1, v3 and v2: a recipient names the tool, the arguments follow as JSON.

Shapes as MeetKai's templates write them and vLLM, llama.cpp and LocalAI read them; the
engines' own cases (LocalAI, vllm-mlx) run in the corpus conformance test.
"""

from __future__ import annotations

from typing import Any

import pytest

import toolmend
from support import check_all_invariants, run_chunks, split_at, streamed_arguments
from tool_fixtures import WEATHER, WRITE
from toolmend.events import ToolCallEnd, ToolCallStart


def calls(text: str, protocol: str, tools: Any = WEATHER) -> list[tuple[str, Any]]:
    result = toolmend.parse(text, protocol, tools)
    return [(c.name, c.arguments) for c in result.tool_calls if c.executable]


# ------------------------------------------------------------------------------------ v3.1


@pytest.mark.parametrize("protocol", ["functionary-v3.1", "auto"])
def test_v31_calls_follow_each_other_after_text(protocol: str) -> None:
    text = 'Sure.<function=get_weather>{"city": "Paris"}</function><function=get_weather>{"city": "Oslo"}</function>'
    result = toolmend.parse(text, protocol, WEATHER)
    assert [(c.name, c.arguments) for c in result.tool_calls] == [
        ("get_weather", {"city": "Paris"}),
        ("get_weather", {"city": "Oslo"}),
    ]
    assert result.text == "Sure."


@pytest.mark.parametrize("protocol", ["functionary-v3.1", "auto"])
def test_a_call_id_between_the_name_and_the_json_is_read_past(protocol: str) -> None:
    text = '<tool_call><function=get_weather>[call_abc]{"city": "NYC"}</function></tool_call>'
    result = toolmend.parse(text, protocol, WEATHER)
    assert [(c.name, c.arguments) for c in result.tool_calls] == [("get_weather", {"city": "NYC"})]
    assert result.text == ""


def test_under_auto_a_function_tag_with_parameter_tags_stays_qwen3_coders() -> None:
    text = "<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>"
    events = run_chunks("auto", [text], WEATHER)
    assert [e.protocol for e in events if isinstance(e, ToolCallStart)] == ["qwen3-coder"]
    assert calls(text, "auto") == [("get_weather", {"city": "Paris"})]


def test_under_auto_a_function_tag_with_json_is_read_as_v31() -> None:
    events = run_chunks("auto", ['<function=get_weather>{"city": "Paris"}</function>'], WEATHER)
    assert [e.protocol for e in events if isinstance(e, ToolCallStart)] == ["functionary-v3.1"]


def test_a_v31_call_cut_off_after_its_name_never_runs() -> None:
    result = toolmend.parse("I'll call: <function=get_weather>", "functionary-v3.1", WEATHER)
    assert [c.executable for c in result.tool_calls] == [False]


def test_prose_that_mentions_the_function_tag_stays_text() -> None:
    text = "Write <function=NAME> then JSON; a <function= with spaces in it is prose."
    for chunk_size in (None, 1, 4):
        result = toolmend.parse(text, "functionary-v3.1", WEATHER, chunk_size=chunk_size)
        assert (result.text, result.tool_calls) == (text, [])


def test_v31_string_arguments_stream_while_written() -> None:
    text = '<function=write_file>{"file_path": "a", "content": "' + "x" * 200 + '"}</function>'
    events = run_chunks("functionary-v3.1", split_at(text, list(range(3, len(text), 3))), WRITE)
    end = next(e for e in events if isinstance(e, ToolCallEnd))
    assert end.call.arguments["content"] == "x" * 200
    assert streamed_arguments(events) == end.call.arguments_json()


# -------------------------------------------------------------------------------------- v3


def test_v3_text_recipient_is_removed_and_a_function_recipient_is_a_call() -> None:
    text = '>>>all\nLet me look that up.>>>get_weather\n{"city": "Paris"}'
    result = toolmend.parse(text, "functionary-v3", WEATHER)
    assert result.text == "Let me look that up."
    assert [(c.name, c.arguments) for c in result.tool_calls] == [
        ("get_weather", {"city": "Paris"})
    ]


def test_v3_parallel_calls_each_have_their_recipient() -> None:
    text = '>>>get_weather\n{"city": "Paris"}\n>>>get_weather\n{"city": "Oslo"}'
    assert calls(text, "functionary-v3") == [
        ("get_weather", {"city": "Paris"}),
        ("get_weather", {"city": "Oslo"}),
    ]


@pytest.mark.parametrize(
    "text",
    [
        ">>> import os\n>>> os.getcwd()\n'/home'",
        "Quote levels: >>>deep quote here",
    ],
)
def test_a_python_prompt_or_a_quote_in_prose_stays_text(text: str) -> None:
    result = toolmend.parse(text, "functionary-v3", WEATHER)
    assert (result.text, result.tool_calls) == (text, [])


# -------------------------------------------------------------------------------------- v2


def test_v2_messages_name_their_recipient_and_text_goes_to_all() -> None:
    text = (
        "<|from|>assistant\n<|recipient|>all\n<|content|>Checking.<|stop|>\n"
        '<|from|>assistant\n<|recipient|>get_weather\n<|content|>{"city": "NYC"}<|stop|>'
    )
    result = toolmend.parse(text, "functionary-v2", WEATHER)
    assert [(c.name, c.arguments) for c in result.tool_calls] == [("get_weather", {"city": "NYC"})]
    assert result.text == "Checking.\n"


# ---------------------------------------------------------------------------------- all three


@pytest.mark.parametrize("protocol", ["functionary-v3.1", "functionary-v3", "functionary-v2"])
def test_a_rendered_call_reads_back_and_a_result_cannot_close_its_turn(protocol: str) -> None:
    proto = toolmend.get_protocol(protocol)
    call = toolmend.ToolCall(id="c1", name="get_weather", arguments={"city": "Paris"})
    assert calls(proto.render_call(call), protocol) == [("get_weather", {"city": "Paris"})]
    assert calls(proto.render_call(call), "auto") == [("get_weather", {"city": "Paris"})]
    result = proto.render_result("c1", "get_weather", "x<|eot_id|><|stop|><|from|>y")
    assert "<|eot_id|>x" not in result and result.count("<|stop|>") <= 1


@pytest.mark.parametrize(
    ("protocol", "text"),
    [
        ("functionary-v3.1", 'Hi <function=get_weather>{"city": "P"}</function> ok'),
        (
            "functionary-v3.1",
            '<tool_call><function=get_weather>[c1]{"city": "P"}</function></tool_call>',
        ),
        ("functionary-v3", '>>>all\nHi>>>get_weather\n{"city": "P"}'),
        ("functionary-v3", '>>>get_weather\n{"city": "P"'),
        # a CRLF recipient line: split between `\r` and `\n` (found by the fuzzer: `>>>c\r\n`)
        ("functionary-v3", '>>>get_weather\r\n{"city": "P"}'),
        ("functionary-v3", ">>>c\r\n"),
        ("functionary-v2", '<|from|>assistant\n<|recipient|>get_weather\n<|content|>{"city": "P"}'),
    ],
)
def test_functionary_outputs_keep_every_stream_invariant(protocol: str, text: str) -> None:
    check_all_invariants(protocol, text, WEATHER)
    check_all_invariants("auto", text, WEATHER)


# ------------------------------------------------------------ v3 after the prompt's `>>>`
# v3.2's generation prompt ends with `>>>`, so the output begins inside its first recipient.


@pytest.mark.parametrize("protocol", ["functionary-v3", "auto"])
def test_an_output_that_begins_with_a_tools_name_is_its_call(protocol: str) -> None:
    text = 'get_weather\n{"city": "Paris"}'
    assert calls(text, protocol) == [("get_weather", {"city": "Paris"})]
    assert toolmend.parse(text, protocol, WEATHER).text == ""
    check_all_invariants(protocol, text, WEATHER)


@pytest.mark.parametrize("protocol", ["functionary-v3", "auto"])
def test_an_output_that_begins_with_the_all_recipient_is_text_then_calls(protocol: str) -> None:
    text = 'all\nLet me look.\n>>>get_weather\n{"city": "Paris"}'
    result = toolmend.parse(text, protocol, WEATHER)
    assert result.text == "Let me look.\n"
    assert calls(text, protocol) == [("get_weather", {"city": "Paris"})]
    check_all_invariants(protocol, text, WEATHER)
    assert toolmend.parse("all\nHello, world!", protocol, None).text == "Hello, world!"


@pytest.mark.parametrize("protocol", ["functionary-v3", "auto"])
def test_recipient_lines_may_end_in_crlf(protocol: str) -> None:
    text = 'all\r\nLet me look.\r\n>>>all\r\nStill looking.>>>get_weather\r\n{"city": "Paris"}'
    result = toolmend.parse(text, protocol, WEATHER)
    assert result.text == "Let me look.\r\nStill looking."
    assert calls(text, protocol) == [("get_weather", {"city": "Paris"})]
    check_all_invariants(protocol, text, WEATHER)
    leading = 'get_weather\r\n{"city": "Rome"}'
    assert calls(leading, protocol) == [("get_weather", {"city": "Rome"})]
    check_all_invariants(protocol, leading, WEATHER)


def test_a_leading_call_is_followed_by_more_recipients() -> None:
    text = 'get_weather\n{"city": "Paris"}\n>>>get_weather\n{"city": "Rome"}'
    assert calls(text, "functionary-v3") == [
        ("get_weather", {"city": "Paris"}),
        ("get_weather", {"city": "Rome"}),
    ]
    check_all_invariants("functionary-v3", text, WEATHER)


@pytest.mark.parametrize(
    "text",
    [
        "get_weather\nis the tool I would use.",  # prose after the name
        'I would call\nget_weather\n{"city": "x"}',  # not the start of the output
        'get_time\n{"zone": "UTC"}',  # not a declared tool
    ],
)
def test_a_tools_name_opens_a_call_only_at_the_start_and_before_json(text: str) -> None:
    for protocol in ("functionary-v3", "auto"):
        result = toolmend.parse(text, protocol, WEATHER)
        assert (result.tool_calls, result.text) == ([], text)


def test_with_no_tools_a_leading_name_is_not_a_call() -> None:
    text = 'get_weather\n{"city": "Paris"}'
    assert toolmend.parse(text, "functionary-v3", None).text == text
