"""Pythonic calls: LFM2 (`lfm2`), OLMo 3 (`olmo3`), bare lists (`pythonic`, Llama 3.2/4) and
`[Calling tool: ...]` lines (`calling-tool`), read with `ast` and never evaluated. Corpus cases
run in `tests/test_corpus_conformance.py`; these pin the behaviours one by one."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolmend
from conformance import case_text, load_engine_cases
from support import check_all_invariants, comparable, run_chunks, split_at
from tool_fixtures import WEATHER
from toolmend.protocols.pythonic import NotALiteral, read_calls

FORMATS = ("pythonic_lfm2", "olmo3_pythonic", "pythonic", "bracket_calling_tool")
PROTOCOL_OF = {
    "pythonic_lfm2": "lfm2",
    "olmo3_pythonic": "olmo3",
    "pythonic": "pythonic",
    "bracket_calling_tool": "calling-tool",
}
CORPUS = [c for c in load_engine_cases() if c["format"] in FORMATS]


def calls(text: str, protocol: str, tools: Any = WEATHER) -> list[Any]:
    result = toolmend.parse(text, protocol, tools)
    return [(c.name, c.arguments, c.executable) for c in result.tool_calls]


def test_an_lfm2_block_holds_a_list_of_calls() -> None:
    text = 'Checking.<|tool_call_start|>[get_weather(city="Paris"), get_weather(city="Oslo", days=2)]<|tool_call_end|>'
    assert calls(text, "lfm2") == [
        ("get_weather", {"city": "Paris"}, True),
        ("get_weather", {"city": "Oslo", "days": 2}, True),
    ]


@pytest.mark.parametrize(
    "body",
    [
        '[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
        '{"name": "get_weather", "parameters": {"city": "Paris"}}',
        '[{"type": "function", "function": {"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}}]',
    ],
)
def test_an_lfm2_block_of_json_call_objects_is_read_as_json(body: str) -> None:
    # LFM2 asked for JSON writes JSON between its tokens (SGLang's LFM2 detector tests).
    text = f"<|tool_call_start|>{body}<|tool_call_end|>"
    for protocol in ("lfm2", "auto"):
        assert calls(text, protocol) == [("get_weather", {"city": "Paris"}, True)]
        check_all_invariants(protocol, text, WEATHER)


def test_an_lfm2_block_of_json_without_a_call_shape_is_malformed() -> None:
    text = '<|tool_call_start|>[{"city": "Paris"}]<|tool_call_end|>'
    result = toolmend.parse(text, "lfm2", WEATHER)
    assert result.tool_calls == [] and "Paris" not in result.text


def test_an_olmo3_block_holds_one_call_per_line() -> None:
    text = '<function_calls>get_weather(city="Paris")\nget_weather(city="Oslo")</function_calls>'
    assert [c[1] for c in calls(text, "olmo3")] == [{"city": "Paris"}, {"city": "Oslo"}]


def test_function_calls_holding_invokes_is_still_the_invoke_format_under_auto() -> None:
    text = '<function_calls><invoke name="get_weather"><parameter name="city">Rome</parameter></invoke></function_calls>'
    assert calls(text, "auto") == [("get_weather", {"city": "Rome"}, True)]


def test_an_olmo3_block_is_read_under_auto() -> None:
    text = '<function_calls>get_weather(city="Rome")</function_calls>'
    assert calls(text, "auto") == [("get_weather", {"city": "Rome"}, True)]


def test_a_parameter_named_by_a_python_keyword_is_read() -> None:
    assert read_calls('book(from="SFO", to="NYC")')[0].arguments == {"from": "SFO", "to": "NYC"}


def test_python_and_json_constants_and_negative_numbers_are_literals() -> None:
    got = read_calls("f(a=True, b=false, c=None, d=null, e=-3, f=[1, (2, 3)], g={'k': 1.5})")
    assert got[0].arguments == {
        "a": True,
        "b": False,
        "c": None,
        "d": None,
        "e": -3,
        "f": [1, [2, 3]],
        "g": {"k": 1.5},
    }


@pytest.mark.parametrize(
    "source",
    [
        "f(a=__import__('os').system('id'))",
        "f(a=1 + 2)",
        "f(a=x)",
        "f(a=g())",
        "f(**kw)",
        "f(1, 2)",
        "x = f(a=1)",
        "import os",
    ],
)
def test_anything_but_literal_keyword_calls_is_refused_never_evaluated(source: str) -> None:
    with pytest.raises(NotALiteral):
        read_calls(source)


def test_a_call_with_one_positional_object_takes_it_as_arguments() -> None:
    assert read_calls('read({"file_path": "/tmp/a"})')[0].arguments == {"file_path": "/tmp/a"}


def test_a_bare_list_of_declared_tools_is_read_at_the_start_of_a_line() -> None:
    text = 'Let me look.\n[get_weather(city="Paris")]\n'
    assert calls(text, "pythonic") == [("get_weather", {"city": "Paris"}, True)]


def test_a_bare_list_mid_line_stays_text() -> None:
    text = 'You could run [get_weather(city="Paris")] yourself.'
    result = toolmend.parse(text, "pythonic", WEATHER)
    assert result.tool_calls == [] and result.text == text


def test_a_bare_list_of_an_unknown_tool_stays_text() -> None:
    text = '[delete_everything(path="/")]'
    result = toolmend.parse(text, "pythonic", WEATHER)
    assert result.tool_calls == [] and result.text == text


def test_without_tools_a_bare_list_is_a_call_only_as_the_whole_output() -> None:
    alone = '  [get_weather(city="Paris")]\n'
    assert calls(alone.strip(), "pythonic", None) == [("get_weather", {"city": "Paris"}, True)]
    for text in ['[get_weather(city="Paris")] is how you call it.', "See:\n[f(x=1)]"]:
        result = toolmend.parse(text, "pythonic", None)
        assert result.tool_calls == [] and result.text == text


def test_markdown_links_and_citations_at_a_line_start_stay_text() -> None:
    text = "[1] See the docs.\n[link](https://example.com)\n[ ] todo item\n"
    result = toolmend.parse(text, "auto", WEATHER)
    assert result.tool_calls == [] and result.text == text


def test_a_calling_tool_line_is_read_and_a_cut_one_is_not_executed() -> None:
    assert calls('[Calling tool: get_weather({"city": "Tokyo"})]', "calling-tool") == [
        ("get_weather", {"city": "Tokyo"}, True)
    ]
    result = toolmend.parse('Let me check. [Calling tool: get_weather({"city":"Prague"', "auto")
    assert result.tool_calls == [] and result.text == "Let me check. "


def test_a_close_marker_inside_a_string_value_does_not_end_a_bracketed_list() -> None:
    text = '[get_weather(city="a)]b")]'
    assert calls(text, "pythonic") == [("get_weather", {"city": "a)]b"}, True)]


@pytest.mark.parametrize("protocol", ["lfm2", "olmo3", "pythonic", "calling-tool"])
def test_a_rendered_call_reads_back_under_its_protocol_and_auto(protocol: str) -> None:
    call = toolmend.ToolCall(id="c1", name="get_weather", arguments={"city": 'S"o\n', "days": 2})
    text = toolmend.get_protocol(protocol).render_call(call)
    for reader in (protocol, "auto"):
        assert calls(text, reader) == [("get_weather", call.arguments, True)]


@pytest.mark.parametrize("case", CORPUS, ids=lambda c: c["id"])
def test_corpus_text_keeps_the_stream_invariants(case: dict[str, Any]) -> None:
    check_all_invariants(PROTOCOL_OF[case["format"]], case_text(case), case.get("tools"))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=60), max_size=8))
def test_any_split_of_a_bare_list_gives_the_same_events(points: list[int]) -> None:
    text = 'Sure.\n[get_weather(city="Paris, \\"FR\\"", days=3)]\nDone.'
    whole = comparable(run_chunks("auto", [text], WEATHER))
    assert comparable(run_chunks("auto", split_at(text, points), WEATHER)) == whole


# ------------------------------------------------ Gemma's tool_code without its fence
# vllm-mlx's test_e2b_unfenced_tool_code_assignment(_mixed_args) (waybarrios/vllm-mlx@4b654c09,
# tests/test_gemma4_tool_parser.py, Apache-2.0): the shape a small Gemma model writes.
UNFENCED = 'tool_code = radarr_get_movies(search="Dune")\nprint(tool_code)'
MOVIES = [
    {
        "name": "radarr_get_movies",
        "parameters": {"type": "object", "properties": {"search": {"type": "string"}}},
    }
]


@pytest.mark.parametrize("protocol", ["gemma-tool-code", "auto"])
@pytest.mark.parametrize("tools", [MOVIES, None], ids=["declared", "tools=None"])
def test_an_unfenced_tool_code_line_is_a_call_and_its_print_line_markup(
    protocol: str, tools: Any
) -> None:
    result = toolmend.parse(UNFENCED, protocol, tools)
    assert [(c.name, c.arguments) for c in result.tool_calls] == [
        ("radarr_get_movies", {"search": "Dune"})
    ]
    assert result.text == ""
    check_all_invariants(protocol, UNFENCED, tools)


def test_an_unfenced_tool_code_line_among_text_needs_a_declared_tool() -> None:
    text = f"Sure.\n{UNFENCED}\nDone."
    result = toolmend.parse(text, "gemma-tool-code", MOVIES)
    assert [c.name for c in result.tool_calls] == ["radarr_get_movies"]
    assert result.text == "Sure.\n\nDone."
    assert toolmend.parse(text, "gemma-tool-code", None).text == text  # tools=None: not alone
    check_all_invariants("gemma-tool-code", text, MOVIES)


@pytest.mark.parametrize(
    "text",
    [
        'x = radarr_get_movies(search="Dune")',  # vllm-mlx: a plain assignment is no call
        'I set tool_code = radarr_get_movies(search="Dune")',  # not at a line start
        'tool_code = get_time(zone="UTC")',  # not a declared tool
        "```python\n" + UNFENCED + "\n```",  # an example in a code fence
    ],
)
def test_an_assignment_that_is_not_gemmas_call_line_stays_text(text: str) -> None:
    for protocol in ("gemma-tool-code", "auto"):
        result = toolmend.parse(text, protocol, MOVIES)
        assert (result.tool_calls, result.text) == ([], text)


@pytest.mark.parametrize("tools", [WEATHER, None], ids=["declared", "tools=None"])
@pytest.mark.parametrize(
    ("before", "after"),
    [("", ""), ("Weather on Mars. ", " Done.")],
    ids=["alone", "after-prose-on-the-line"],
)
def test_llama4s_python_tokens_mark_a_call_wherever_they_stand(
    tools: Any, before: str, after: str
) -> None:
    # Llama 4 writes a pythonic list between <|python_start|> and <|python_end|>; the tokens are
    # markup, and they open a call after prose on the same line too (SGLang's pythonic detector
    # test), unlike a bare list, which opens only at a line start.
    text = f"{before}<|python_start|>[get_weather(city='Mars')]<|python_end|>{after}"
    for protocol in ("pythonic", "auto"):
        result = toolmend.parse(text, protocol, tools)
        assert [(c.name, c.arguments) for c in result.tool_calls] == [
            ("get_weather", {"city": "Mars"})
        ]
        assert result.text == before + after
        check_all_invariants(protocol, text, tools)


def test_a_bare_list_after_prose_on_the_same_line_stays_text() -> None:
    text = "You could call [get_weather(city='Paris')] for that."
    assert toolmend.parse(text, "pythonic", WEATHER).tool_calls == []


def test_a_bare_list_followed_by_text_keeps_the_text() -> None:
    text = "[get_weather(city='Paris')]\n<b>done</b>"
    result = toolmend.parse(text, "pythonic", WEATHER)
    assert [c.name for c in result.tool_calls] == ["get_weather"]
    assert result.text == "\n<b>done</b>"
    check_all_invariants("pythonic", text, WEATHER)


# SGLang's multi-format detector, "python" dialect: one pythonic call in Hermes's tags.
IN_TAGS_TOOLS = [{"name": "get_weather", "parameters": {"type": "object", "properties": {}}}]


def test_a_pythonic_call_in_tool_call_tags_is_read_named_and_under_auto() -> None:
    text = 'Checking.<tool_call>get_weather(city="NYC", days=3)</tool_call>'
    for protocol in ("pythonic", "auto"):
        result = toolmend.parse(text, protocol, IN_TAGS_TOOLS)
        assert [(c.name, c.arguments) for c in result.tool_calls] == [
            ("get_weather", {"city": "NYC", "days": 3})
        ]
        assert result.text == "Checking."
    check_all_invariants("auto", text, IN_TAGS_TOOLS)


def test_under_auto_a_glm_name_in_tool_call_tags_is_still_glms() -> None:
    text = (
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>NYC</arg_value>\n</tool_call>"
    )
    (call,) = toolmend.parse(text, "auto", IN_TAGS_TOOLS).tool_calls
    assert (call.name, call.arguments) == ("get_weather", {"city": "NYC"})


def test_an_expression_in_a_tagged_pythonic_call_is_never_evaluated() -> None:
    result = toolmend.parse("<tool_call>get_weather(x=2+2)</tool_call>", "auto", IN_TAGS_TOOLS)
    assert not any(c.executable for c in result.tool_calls)


# llama-stack's `test_hyphenated_function_name` and `test_single_quotes_in_arguments`
# (meta-llama/llama-stack@bd1e0fe, tests/unit/models/llama/llama3/test_tool_utils.py, MIT):
# MCP tool names hold hyphens, which Python's grammar reads as a subtraction.
HYPHENATED = [
    {
        "name": "add-note",
        "parameters": {"type": "object", "properties": {"name": {"type": "string"}}},
    },
    {
        "name": "get-x-y",
        "parameters": {"type": "object", "properties": {"from": {"type": "string"}}},
    },
]


@pytest.mark.parametrize("protocol", ["pythonic", "lfm2", "auto"])
def test_a_hyphenated_tool_name_is_read_as_one_name(protocol: str) -> None:
    body = "[add-note(name='demo'), get-x-y(from=\"SFO\")]"
    text = f"<|tool_call_start|>{body}<|tool_call_end|>" if protocol == "lfm2" else body
    assert calls(text, protocol, HYPHENATED) == [
        ("add-note", {"name": "demo"}, True),
        ("get-x-y", {"from": "SFO"}, True),
    ]
    check_all_invariants(protocol, text, HYPHENATED)


@pytest.mark.parametrize(
    "source",
    [
        "[f(x=a-b(1))]",  # a hyphenated call inside an argument is an expression, not a literal
        "[f(x=1)-g(y=2)]",  # two calls subtracted
        "[add - note(name='demo')]",  # blanks around the hyphen: a subtraction
    ],
)
def test_a_subtraction_is_still_no_call(source: str) -> None:
    with pytest.raises(NotALiteral):
        read_calls(source)


def test_a_hyphen_inside_a_string_value_is_kept_as_written() -> None:
    (call,) = read_calls('[add-note(name="a-b(c) - d")]')
    assert (call.name, call.arguments) == ("add-note", {"name": "a-b(c) - d"})


# vLLM's tests/tool_parsers/test_pythonic_tool_parser.py (bad siblings, a non-finite number):
# one call that cannot run does not take its well-formed siblings with it.
SIBLINGS = [
    "[bad(x=b'z'), get_weather(city='Paris')]",  # bytes: no JSON value
    "[calc(x=1e999), get_weather(city='Paris')]",  # overflows to inf: no JSON number
    "[get_weather(city='Paris'), calc(x=-1e999)]",
]


@pytest.mark.parametrize("text", SIBLINGS)
def test_a_sibling_whose_argument_is_no_literal_is_a_call_that_cannot_run(text: str) -> None:
    for protocol in ("pythonic", "auto"):
        calls = toolmend.parse(text, protocol).tool_calls
        assert [(c.name, c.arguments) for c in calls if c.executable] == [
            ("get_weather", {"city": "Paris"})
        ]
        [bad] = [c for c in calls if not c.executable]
        assert bad.incomplete and bad.error and bad.name in ("bad", "calc")
    check_all_invariants("pythonic", text)


def test_a_list_whose_only_call_has_no_literal_argument_stays_text() -> None:
    for text in ("[calc(x=1e999)]", "[bad(x=b'z')]"):
        result = toolmend.parse(text, "pythonic")
        assert (result.tool_calls, result.text) == ([], text)


def test_a_non_finite_number_is_no_literal() -> None:
    with pytest.raises(NotALiteral):
        read_calls("[calc(x=1e999)]")
