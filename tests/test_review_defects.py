"""Regression tests for the defects a review and a grammar fuzzer found on main (issue 8).

Each test is the smallest input that showed the defect; each would fail without its fix. The
tools are the fuzzer's: `get_weather(city: string, days?: integer)` and `write_file`.
"""

from __future__ import annotations

from typing import Any

import pytest

import toolmend
from fuzzing import TOOLS
from support import assert_conserved, assert_split_invariant, comparable, run_chunks

EVERY_PROTOCOL = [*toolmend.protocols(), "auto"]


def calls(result: toolmend.ParseResult) -> list[tuple[str, dict[str, Any], bool]]:
    return [(c.name, c.arguments, c.incomplete) for c in result.tool_calls]


# ------------------------------------------------------------- 1: qwen3-coder JSON bodies

TWO_JSON_CALLS = (
    '<tool_call>\n{"name":"get_weather","arguments":{"city":"Rome"}}\n</tool_call>\n'
    '<tool_call>\n{"name":"get_weather","arguments":{"city":"Paris"}}\n</tool_call>'
)


@pytest.mark.parametrize("chunk_size", [None, 1, 13])
def test_qwen3_coder_reads_two_json_bodied_calls_whole_and_in_chunks(
    chunk_size: int | None,
) -> None:
    result = toolmend.parse(TWO_JSON_CALLS, "qwen3-coder", TOOLS, chunk_size=chunk_size)
    assert calls(result) == [
        ("get_weather", {"city": "Rome"}, False),
        ("get_weather", {"city": "Paris"}, False),
    ]
    assert [d.code for d in result.diagnostics] == []


@pytest.mark.parametrize("protocol", ["qwen3-coder", "hermes", "auto"])
def test_a_json_body_handed_to_the_hermes_reader_is_split_invariant(protocol: str) -> None:
    assert_split_invariant(protocol, '<tool_call>{<tool_call>{"name":""', TOOLS)
    assert_split_invariant(protocol, TWO_JSON_CALLS, TOOLS)


# --------------------------------------------- 2: held-back text is not re-read per feed


@pytest.mark.parametrize("protocol", EVERY_PROTOCOL)
@pytest.mark.parametrize(
    "text",
    [
        "`" * 3000,
        "x " + "`" * 3000 + " y",
        "```\n" + "`" * 3000,
        "```\ncode\n" + "`" * 2000 + " " * 800 + "\nafter",
        "``" + " " * 2500 + "``" + " tail",
        "```" + " " * 600 + "\nfenced",
        "<tool_call>" + " " * 3000,
        "<function_calls>" + " " * 3000,
        "<write_file>" + " " * 3000,
    ],
    ids=lambda t: repr(t[:14]),
)
def test_long_runs_held_back_read_the_same_one_character_at_a_time(
    protocol: str, text: str
) -> None:
    """The scanner and the auto dispatch resume where they stopped looking; what they decide
    must not change (linear cost itself is checked by bench/linear_cost.py)."""
    whole = run_chunks(protocol, [text], TOOLS)
    by_char = run_chunks(protocol, list(text), TOOLS)
    assert comparable(by_char) == comparable(whole)
    assert_conserved(text, by_char)


# ----------------------------------------------------------- 3: gemma4 argument language


@pytest.mark.parametrize(
    "text",
    [
        '<|tool_call>call:getweather{"city"#}',
        '<|tool_call>call:get_weather{<|"|>Rome<|"|>}<tool_call|>',
        '<|tool_call>call:get_weather{"city"<|"|>Rome<|"|>}<tool_call|>',
    ],
)
def test_gemma4_reads_a_value_without_its_container_or_colon_as_an_incomplete_call(
    text: str,
) -> None:
    result = toolmend.parse(text, "gemma4", TOOLS)
    assert [c.incomplete for c in result.tool_calls] == [True]
    assert_split_invariant("gemma4", text, TOOLS)


# ------------------------------------------------- 8: one trailing-comma rule for all formats

TRAILING_COMMAS = {
    "gemma4": '<|tool_call>call:get_weather{city:<|"|>Oslo<|"|>,days:2,}<tool_call|>',
    "hermes": '<tool_call>{"name":"get_weather","arguments":{"city":"Oslo","days":2,}}</tool_call>',
    "qwen3-coder": '<tool_call>\n<function=get_weather>\n{"city":"Oslo","days":2,}\n</function>\n</tool_call>',
}


@pytest.mark.parametrize("protocol", sorted(TRAILING_COMMAS))
def test_a_trailing_comma_is_a_recorded_repair_under_lenient(protocol: str) -> None:
    result = toolmend.parse(TRAILING_COMMAS[protocol], protocol, TOOLS, policy="lenient")
    [call] = result.tool_calls
    assert (call.arguments, call.incomplete) == ({"city": "Oslo", "days": 2}, False)
    assert "trailing-comma" in call.repairs


@pytest.mark.parametrize("protocol", sorted(TRAILING_COMMAS))
def test_a_trailing_comma_leaves_the_call_incomplete_under_strict(protocol: str) -> None:
    result = toolmend.parse(TRAILING_COMMAS[protocol], protocol, TOOLS, policy="strict")
    assert [c.incomplete for c in result.tool_calls] == [True]


def test_a_comma_inside_a_json_string_is_never_dropped() -> None:
    text = '<tool_call>{"name":"get_weather","arguments":{"city":"a,}",}}</tool_call>'
    [call] = toolmend.parse(text, "hermes", TOOLS).tool_calls
    assert call.arguments == {"city": "a,}"}


# ------------------------------------------------ 9: duplicate keys follow the format's rule

DUPLICATES = {
    "yaml-xml": "<get_weather>\ncity: Rome\ncity: Paris\n</get_weather>",
    "anthropic-xml": '<invoke name="get_weather"><parameter name="city">Rome</parameter><parameter name="city">Paris</parameter></invoke>',
    "hermes": '<tool_call>{"name":"get_weather","arguments":{"city":"Rome","city":"Paris"}}</tool_call>',
    "gemma4": '<|tool_call>call:get_weather{city:<|"|>Rome<|"|>,city:<|"|>Paris<|"|>}<tool_call|>',
    "qwen3-coder": "<tool_call>\n<function=get_weather>\n<parameter=city>\nRome\n</parameter>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
    "morph-xml": "<get_weather>\n<city>Rome</city>\n<city>Paris</city>\n</get_weather>",
}


@pytest.mark.parametrize("protocol", sorted(DUPLICATES))
def test_a_duplicate_key_rejects_the_call_in_formats_that_reject(protocol: str) -> None:
    [call] = toolmend.parse(DUPLICATES[protocol], protocol, TOOLS).tool_calls
    assert call.incomplete
    assert call.error == "argument 'city' is given twice"


def test_a_duplicate_kept_by_last_wins_is_recorded_as_a_repair() -> None:
    [call] = toolmend.parse(DUPLICATES["anthropic-xml"], "antml", TOOLS).tool_calls
    assert (call.arguments, call.incomplete) == ({"city": "Paris"}, False)
    assert "duplicate-key-last-wins" in call.repairs


# --------------------------------------------- 4: a marker cut off by the end of the stream


@pytest.mark.parametrize("tail", ["<|clo", "<|se"])
@pytest.mark.parametrize("chunk_size", [None, 1])
def test_kimi_xtml_strips_a_marker_cut_off_after_a_complete_call(
    tail: str, chunk_size: int | None
) -> None:
    call = toolmend.ToolCall(id="call_1", name="get_weather", arguments={"city": "Rome"})
    text = toolmend.get_protocol("kimi-xtml").render_call(call) + tail
    result = toolmend.parse(text, "kimi-xtml", TOOLS, chunk_size=chunk_size)
    assert result.text == ""
    assert calls(result) == [("get_weather", {"city": "Rome"}, False)]
    assert [d.code for d in result.diagnostics] == ["truncated_marker_dropped"]
    assert_conserved(text, run_chunks("kimi-xtml", [text], TOOLS))


@pytest.mark.parametrize("protocol", ["hermes", "qwen3-coder", "gemma4", "auto"])
def test_every_format_strips_its_own_cut_off_opening_marker_but_not_a_short_one(
    protocol: str,
) -> None:
    marker = {"gemma4": "<|tool_call>"}.get(protocol, "<tool_call>")
    cut = toolmend.parse("Done. " + marker[:6], protocol, TOOLS)
    assert cut.text == "Done. "
    short = toolmend.parse("if a <t", protocol, TOOLS)
    assert short.text == "if a <t"


def test_a_cut_off_tool_name_tag_stays_text_since_it_may_be_prose() -> None:
    assert toolmend.parse("Calling <get_wea", "morph-xml", TOOLS).text == "Calling <get_wea"


# -------------------------------------- 5: a call a format cannot carry is refused, not garbled

UNCARRIABLE = {
    "qwen3-coder": ["a</parameter>b", "a</function>b", "<parameter=x>"],
    "gemma4": ['x<|"|>y'],
    "yaml-xml": ["</get_weather>"],
}


@pytest.mark.parametrize(
    ("protocol", "value"), [(p, v) for p, values in UNCARRIABLE.items() for v in values]
)
def test_render_call_refuses_a_value_the_format_cannot_carry(protocol: str, value: str) -> None:
    call = toolmend.ToolCall(id="call_1", name="get_weather", arguments={"city": value})
    with pytest.raises(toolmend.CannotRenderError, match="cannot carry"):
        toolmend.get_protocol(protocol).render_call(call)


# -------------------------------------------------- 6: results can never close their envelope


@pytest.mark.parametrize("protocol", toolmend.protocols())
def test_a_result_holding_any_envelope_closer_cannot_end_its_envelope(protocol: str) -> None:
    proto = toolmend.get_protocol(protocol)
    assert proto.result_closers, "every protocol declares its result envelope's closer"
    every_closer = sorted(
        {c for p in toolmend.protocols() for c in toolmend.get_protocol(p).result_closers}
    )
    hostile = " ".join(
        [*every_closer, *(c.upper() for c in every_closer), "< /tool_response >", "</stdout >"]
    )
    empty = proto.render_result("call_1", "get_weather", "ok")
    for content in (hostile, '{"page": "' + hostile.replace('"', '\\"') + '"}'):
        rendered = proto.render_result("call_1", "get_weather", content)
        for closer in proto.result_closers:
            assert rendered.lower().count(closer.lower()) == empty.lower().count(closer.lower())


def test_a_closer_spelled_with_a_json_escape_is_made_inert_in_gemma4_results() -> None:
    rendered = toolmend.get_protocol("gemma4").render_result(
        "call_1", "get_weather", '{"page": "\\u003ctool_response|> and \\u003c|\\"|>"}'
    )
    assert rendered.count("<tool_response|>") == 1
    assert rendered.count('<|"|>') == 2


# ------------------------------------------------------- 7: the MiniMax-M2 wrapper is markup


@pytest.mark.parametrize("protocol", ["anthropic-xml", "antml", "auto"])
def test_the_minimax_wrapper_around_an_invoke_is_removed_with_it(protocol: str) -> None:
    # vllm-mlx tests/test_minimax_tool_calling.py::test_single_tool_call (Apache-2.0), as in
    # the shared corpus (vllm_mlx_tests-47d50f1a48).
    text = (
        'Here.\n<minimax:tool_call>\n<invoke name="get_weather">\n'
        '<parameter name="city">Wanaka</parameter>\n</invoke>\n</minimax:tool_call>'
    )
    result = toolmend.parse(text, protocol, TOOLS)
    assert result.text == "Here.\n"
    assert calls(result) == [("get_weather", {"city": "Wanaka"}, False)]
    assert_split_invariant(protocol, text, TOOLS)


# ------------------------------------------ 11: no key of a JSON call body is dropped silently


@pytest.mark.parametrize("key", ["arguments", "parameters", "args", "input"])
def test_a_json_call_body_reads_its_arguments_under_every_key_models_write(key: str) -> None:
    text = f'<tool_call>\n{{"name": "set_light", "{key}": {{"room": "hall", "on": false}}}}\n</tool_call>'
    for protocol in ("hermes", "qwen3-coder", "auto"):
        result = toolmend.parse(text, protocol, None)
        assert calls(result) == [("set_light", {"room": "hall", "on": False}, False)]


@pytest.mark.parametrize(
    "body",
    [
        '{"name": "set_light", "room": "hall"}',
        '{"name": "set_light", "arguments": {"room": "hall"}, "args": {"on": true}}',
        '{"name": "set_light", "arguments": {}, "extra": 1}',
    ],
)
def test_a_call_body_key_that_is_not_read_makes_the_call_incomplete(body: str) -> None:
    [call] = toolmend.parse(f"<tool_call>{body}</tool_call>", "hermes", None).tool_calls
    assert call.incomplete and call.error


def test_metadata_keys_of_a_call_body_are_not_arguments_and_do_not_block_it() -> None:
    body = '{"id": "c1", "type": "function", "name": "set_light", "arguments": {"room": "hall"}}'
    result = toolmend.parse(f"<tool_call>{body}</tool_call>", "hermes", None)
    assert calls(result) == [("set_light", {"room": "hall"}, False)]


# --------------------------------------------------------------- found by the grammar fuzzer


def test_a_block_that_names_an_unknown_tool_is_text_up_to_the_name_whatever_the_split() -> None:
    # Fuzzer seed 3021 (shrunk): the Hermes reader read on past the unknown name when the rest
    # came in the same chunk, so a later call of another format became text.
    text = (
        '<tool_call>{"name":"x"} then <|open|>call tool="get_weather"<|sep|>'
        '<|open|>argument key="city"<|sep|>Rome<|close|>argument<|sep|><|close|>call<|sep|>'
    )
    result = toolmend.parse(text, "auto", TOOLS)
    assert calls(result) == [("get_weather", {"city": "Rome"}, False)]
    assert_split_invariant("auto", text, TOOLS)
    assert_split_invariant("auto", '<tool_call>{"name":""<|se', TOOLS)


def test_a_long_fence_line_is_decided_by_its_first_characters_whatever_the_split() -> None:
    # Fuzzer seed 3462 (shrunk): past the fence-line lookahead a backtick decided "inline code"
    # when the line came whole, "fence" when it came in pieces.
    text = (
        "`" * 120
        + "x" * 500
        + "`\n<tool_call>\n"
        + '{"name":"get_weather","arguments":{"city":"Rome"}}</tool_call>'
    )
    whole = comparable(run_chunks("hermes", [text], TOOLS))
    for size in (1, 5, 64):
        chunks = [text[i : i + size] for i in range(0, len(text), size)]
        assert comparable(run_chunks("hermes", chunks, TOOLS)) == whole


def test_qwen3_coder_decides_a_wrapper_of_blanks_the_same_whatever_the_split() -> None:
    # Fuzzer seed 1023765: more than 128 blanks then `</tool_call>` was an empty wrapper when
    # the text came whole, text when the blanks came in pieces.
    for blanks in (100, 129, 130, 300):
        assert_split_invariant("qwen3-coder", "<tool_call>" + " " * blanks + "</tool_call>é", TOOLS)


def test_a_broken_body_nested_deeper_than_arguments_may_be_is_not_handed_to_json_repair() -> None:
    # Fuzzer (seed 1029162): `<tool_call>` and 250 `{` spent 0.2 s in json-repair, whose cost
    # grows with the square of the nesting; such arguments are refused anyway.
    from toolmend.jsontext import decode_json_object

    decoded = decode_json_object("{" * 150, allow_repair=True)
    assert decoded.objects == [] and "nested too deeply to repair" in (decoded.error or "")
    shallow = decode_json_object('{"a": [1, 2', allow_repair=True)
    assert shallow.objects == [{"a": [1, 2]}]


def test_a_raw_newline_beside_an_escape_decodes_the_same_in_any_chunking() -> None:
    # Fuzzer seed 2000513 (shrunk): a string piece holding a raw newline and an escape was
    # refused when both came in one piece and read when they came apart.
    text = '<tool_call>{"name":"writefile","arguments"{"":"\n\\"'
    assert_split_invariant("hermes", text, TOOLS)
    done = '<tool_call>{"name":"write_file","arguments":{"file_path":"a\n\\"b","content":"x"}}'
    assert_split_invariant("hermes", done + "</tool_call>", TOOLS)


def test_a_gemma4_header_longer_than_a_tag_is_text_whatever_the_split() -> None:
    # Fuzzer seed 3012050 (shrunk): a 123-character name was read as a header (an unknown
    # tool) when it came whole, and as no header when it came in pieces.
    text = "<|tool_call>call:" + "`" * 123 + "{"
    assert_split_invariant("gemma4", text, TOOLS)
    assert toolmend.parse(text, "gemma4", TOOLS).text == text


@pytest.mark.parametrize("protocol", ["morph-xml", "yaml-xml", "auto"])
def test_a_tool_name_tag_with_a_long_run_of_blanks_is_decided_the_same_whatever_the_split(
    protocol: str,
) -> None:
    # A sibling of the gemma4 case: `<get_weather` and 200 blanks before `>` was a call when
    # it came whole and text when it came in pieces (the header bound applied only to pieces).
    for blanks in (100, 127, 128, 200):
        text = "<get_weather" + " " * blanks + ">\n<city>Rome</city>\n</get_weather>"
        assert_split_invariant(protocol, text, TOOLS, exhaustive_limit=0)


@pytest.mark.parametrize("escape", ["\\\n", "\\x", "\\u12"])
def test_the_text_before_an_invalid_escape_streams_the_same_whatever_the_split(
    escape: str,
) -> None:
    # Fuzzer seed 7039125: `"p\<newline>` streamed `p` when a chunk ended before the backslash
    # and nothing when `p` and the escape came in one piece.
    text = '<tool_call>{"name":"write_file","arguments":{"file_path":"p' + escape
    for protocol in ("hermes", "auto"):
        assert_split_invariant(protocol, text, TOOLS)


@pytest.mark.parametrize(
    ("protocol", "opener"),
    [
        ("internlm2", "<|action_start|><|plugin|>"),
        ("cohere", "<|START_ACTION|>"),
        ("mistral", "[TOOL_CALLS]"),
        ("granite", "<|tool_call|>"),
    ],
)
@pytest.mark.parametrize("blank", [" ", "\n"])
def test_blanks_after_a_json_calls_opener_are_decided_at_the_bound_whatever_the_split(
    protocol: str, opener: str, blank: str
) -> None:
    # Fuzzer seeds 30003672, 30005318, 30006445: an opener, ~130 blanks and `{` was a call cut
    # off when it came whole and text when it came one character at a time (the bound on the
    # blanks to wait through was applied to pieces only; the whole text looked past it).
    for count in (127, 128, 129, 130, 200):
        for tail in ("{", '{"name": "get_weather", "arguments": {"city": "Rome"}}', "["):
            text = opener + blank * count + tail
            assert_split_invariant(protocol, text, TOOLS, exhaustive_limit=0)


def test_a_mistral_header_that_stops_being_a_name_swallows_the_same_text_whatever_the_split() -> (
    None
):
    # Fuzzer seed 30004349: a bad header after a call (`>g`) was swallowed whole when it came in
    # one piece, and only up to its first bad character when it came one character at a time.
    text = '[TOOL_CALLS]writefile[ARGS]{""[TOOL_CALLS]>g'
    assert_split_invariant("mistral", text, TOOLS)
    assert_conserved(text, run_chunks("mistral", [text], TOOLS))
    long_name = '[TOOL_CALLS]get_weather[ARGS]{"city": "Rome"}[TOOL_CALLS]' + "a" * 200
    assert_split_invariant("mistral", long_name, TOOLS, exhaustive_limit=0)


@pytest.mark.parametrize(
    "text",
    [
        '<|tool_call_begin|>functions.writefile:0<|tool_call_argument_begin|>{"""content":"\\o"}'
        '<function_calls>"i',
        '[TOOL_CALLS]writefile[ARGS]{"""""content":"\\y"}<function_calls>;&',
    ],
)
def test_a_call_that_ended_inside_a_string_value_takes_no_text_of_a_later_block(text: str) -> None:
    # Fuzzer seeds 50016689 and 50013805 (shrunk): a call repaired at its end with a string
    # value still open kept its argument stream open, and a later block's value text (the
    # OLMo 3 `<function_calls>` here, under `auto`) streamed into it as deltas after its end.
    assert_split_invariant("auto", text, TOOLS)
    events = run_chunks("auto", [text[:-1], text[-1]], TOOLS)
    ended = {e.call.id for e in events if isinstance(e, toolmend.ToolCallEnd)}
    after = False
    for e in events:
        after = after or isinstance(e, toolmend.ToolCallEnd)
        assert not (after and isinstance(e, toolmend.ToolCallDelta) and e.id in ended)


@pytest.mark.parametrize("key", ["name", "function", "tool", "tool_name"])
@pytest.mark.parametrize("protocol", ["hermes", "auto"])
def test_a_tool_call_body_names_its_tool_under_every_key_models_write(
    protocol: str, key: str
) -> None:
    # Bare JSON calls read all four spellings; a <tool_call> body read only `name`, so a body
    # naming its tool under `function` was a malformed call with no text left.
    text = f'<tool_call>\n{{"{key}": "get_weather", "arguments": {{"city": "Rome"}}}}\n</tool_call>'
    result = toolmend.parse(text, protocol, TOOLS)
    assert [(c.name, c.arguments, c.executable) for c in result.tool_calls] == [
        ("get_weather", {"city": "Rome"}, True)
    ]
    assert_split_invariant(protocol, text, TOOLS)


def test_the_openai_wire_shape_in_a_tool_call_body_is_still_unwrapped() -> None:
    text = (
        '<tool_call>{"type": "function", "function": {"name": "get_weather", '
        '"arguments": "{\\"city\\": \\"Rome\\"}"}}</tool_call>'
    )
    result = toolmend.parse(text, "hermes", TOOLS)
    assert [(c.name, c.arguments) for c in result.tool_calls] == [("get_weather", {"city": "Rome"})]
