"""The gemma4 protocol: `<|tool_call>call:NAME{key:<|"|>text<|"|>,n:1}<tool_call|>`."""

from __future__ import annotations

import json
from typing import Any

import pytest

import toolmend
from support import (
    check_all_invariants,
    load_cases,
    load_exceptions,
    run_chunks,
    streamed_arguments,
)
from tool_fixtures import WEATHER, WRITE
from toolmend.events import Diagnostic, ToolCallDelta, ToolCallEnd
from toolmend.protocols.gemma4_args import decode_arguments

BASH = [
    {
        "name": "bash",
        "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
    }
]

CASES = load_cases("gemma4.jsonl")
EXCEPTIONS = load_exceptions("gemma4.exceptions.json")
ARG_CASES = load_cases("gemma4_args.jsonl")


def parse(text: str, tools: Any = WEATHER, **kw: Any) -> toolmend.ParseResult:
    return toolmend.parse(text, "gemma4", tools, id_prefix="call_", **kw)


def calls(result: toolmend.ParseResult) -> list[tuple[str, dict[str, Any], bool]]:
    return [(c.name, c.arguments, c.incomplete) for c in result.tool_calls]


# ------------------------------------------------------------------------------ the corpus


def case_text(case: dict[str, Any]) -> str:
    """Inner-segment cases (`call:...` without markers: mlx-lm strips them, Ollama's
    `parseGemma4ToolCall` tests get what lies between them) are put back between the markers."""
    if not case["text"].startswith("call:"):
        return str(case["text"])
    opener, closer = case.get("delimiters") or ("<|tool_call>", "<tool_call|>")
    return str(opener + case["text"] + closer)


def case_tools(case: dict[str, Any]) -> Any:
    """The case's tools; for inner segments, the string-typed tool upstream's test passes."""
    if case.get("tools"):
        return case["tools"]
    if case["text"].startswith("call:") and case["expected"]:
        return [
            {
                "name": call["name"],
                "parameters": {
                    "type": "object",
                    "properties": {
                        k: ({"type": "string"} if isinstance(v, str) else {})
                        for k, v in call["arguments"].items()
                    },
                },
            }
            for call in case["expected"]
        ]
    return None


CHECKED = [c for c in CASES if c["expected"] is not None and c["id"] not in EXCEPTIONS]


@pytest.mark.parametrize("case", CHECKED, ids=[c["id"] for c in CHECKED])
def test_corpus_case_parses_to_its_expected_calls(case: dict[str, Any]) -> None:
    result = parse(case_text(case), case_tools(case))
    expected = case["expected"]
    if case.get("expected_partial"):
        assert [c.name for c in result.tool_calls] == [e["name"] for e in expected]
    else:
        got = [{"name": c.name, "arguments": c.arguments} for c in result.tool_calls]
        assert got == expected
    assert not any(c.incomplete for c in result.tool_calls)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_corpus_case_keeps_the_invariants(case: dict[str, Any]) -> None:
    check_all_invariants("gemma4", case_text(case), case_tools(case))


def test_every_exception_names_a_corpus_case() -> None:
    assert set(EXCEPTIONS) <= {c["id"] for c in CASES}


def test_the_excepted_cases_give_the_call_upstream_asserts() -> None:
    for case in CASES:
        if case["id"] in EXCEPTIONS:
            result = parse(case["text"], None)
            assert calls(result) == [("get_weather", {"location": "Paris"}, False)]
            assert result.text in ("", "Done.")


# ----------------------------------------------------------------- the argument language


def _string_keys(case: dict[str, Any]) -> tuple[str, ...]:
    for entry in case.get("tool_string_props") or ():
        if entry[0] == case.get("tool_name"):
            return tuple(entry[1:])
    return ()


TO_JSON = [c for c in ARG_CASES if c["kind"] == "gemma4_args_to_json"]
REPAIR = [c for c in ARG_CASES if c["kind"] == "gemma4_args_repair"]


@pytest.mark.parametrize("case", TO_JSON, ids=[c["note"] for c in TO_JSON])
def test_arguments_read_as_the_json_upstream_writes(case: dict[str, Any]) -> None:
    decoded = decode_arguments(case["text"])
    assert decoded.error is None
    assert decoded.arguments == json.loads(case["want"])


@pytest.mark.parametrize("case", REPAIR, ids=[c["note"] for c in REPAIR])
def test_argument_repairs_read_as_the_repaired_text(case: dict[str, Any]) -> None:
    """`want` is upstream's repaired text (or its list of candidates, the last one parsing):
    our reading of `text` equals the reading of `want`. Where upstream says the repair must not
    happen (`want_ok` false), the schema-gated raw-string repair is not applied."""
    keys = _string_keys(case)
    # Table 1001 tests the mechanical `}` insertion that follows another repair.
    after_repair = "table@1001" in case["source"]
    decoded = decode_arguments(
        case["text"], string_keys=keys, known_keys=keys, assume_repaired=after_repair
    )
    want = case["want"]
    if isinstance(want, list):
        want = want[-1]
    if want is None:
        assert case.get("want_ok") is False
        assert decoded.error is not None or "raw-string-value" not in decoded.repairs
        return
    # Upstream adds a missing final `}` only after another repair changed the text.
    reference = decode_arguments(want, assume_repaired=after_repair or want != case["text"])
    assert decoded.arguments == reference.arguments
    assert (decoded.error is None) == (reference.error is None)


def test_a_missing_final_brace_alone_is_not_repaired() -> None:
    assert decode_arguments("{n:1").error is not None


def test_an_unclosed_string_in_the_middle_is_not_repaired() -> None:
    decoded = decode_arguments('{first:<|"|>one,second:<|"|>two<|"|>}', string_keys=("first",))
    assert decoded.error is not None


def test_quoted_scalars_stay_strings() -> None:
    decoded = decode_arguments('{n:<|"|>1<|"|>,b:<|"|>true<|"|>,z:<|"|>null<|"|>}')
    assert decoded.arguments == {"n": "1", "b": "true", "z": "null"}


def test_a_raw_quoted_string_with_a_bad_escape_is_rejected() -> None:
    assert decode_arguments('{path:"C:\\users\\bob\\file.txt"}').error is not None


# ------------------------------------------------------------------------------ behaviours


def test_a_call_parses_to_its_name_and_arguments() -> None:
    text = 'Checking.<|tool_call>call:get_weather{city:<|"|>Paris<|"|>,days:3}<tool_call|>'
    result = parse(text)
    assert calls(result) == [("get_weather", {"city": "Paris", "days": 3}, False)]
    assert result.text == "Checking."


def test_several_blocks_are_parallel_calls() -> None:
    one = '<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|>'
    two = '<|tool_call>call:get_weather{city:<|"|>Oslo<|"|>}<tool_call|>'
    assert [c.arguments["city"] for c in parse(one + two).tool_calls] == ["Paris", "Oslo"]


def test_end_of_turn_also_ends_a_call() -> None:
    result = parse('<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<turn|>')
    assert calls(result) == [("get_weather", {"city": "Paris"}, False)]
    assert result.text == ""


def test_a_terminator_inside_an_open_string_is_text() -> None:
    text = '<|tool_call>call:bash{command:<|"|>echo "<tool_call|>"<|"|>}<tool_call|>'
    assert calls(parse(text, BASH)) == [("bash", {"command": 'echo "<tool_call|>"'}, False)]


def test_a_forgotten_closing_delimiter_ends_at_the_terminator() -> None:
    result = parse('<|tool_call>call:bash{command:<|"|>ls}<tool_call|>', BASH)
    assert calls(result) == [("bash", {"command": "ls"}, False)]


def test_a_forgotten_closing_delimiter_streams_no_brace() -> None:
    text = '<|tool_call>call:bash{command:<|"|>ls -la}<tool_call|>'
    events = run_chunks("gemma4", list(text), BASH)
    streamed = streamed_arguments(events)
    assert streamed == '{"command": "ls -la"}'


def test_a_string_argument_streams_while_it_is_written() -> None:
    parser = toolmend.stream_parser("gemma4", WRITE)
    parser.feed('<|tool_call>call:write_file{file_path:<|"|>a.py<|"|>,content:<|"|>print(1)\n')
    events = parser.feed("print(2)")
    assert streamed_arguments(events) == ("\\nprint(2)")


def test_a_trailing_brace_of_a_string_streams_once_it_is_text() -> None:
    parser = toolmend.stream_parser("gemma4", WRITE)
    first = parser.feed('<|tool_call>call:write_file{content:<|"|>if x {}')
    later = parser.feed(" else")
    sent = [e.arguments_delta for e in first + later if isinstance(e, ToolCallDelta)]
    assert "".join(sent) == '{"content": "if x {} else'
    assert not streamed_arguments(first).endswith("}")


def test_arguments_without_a_terminator_end_at_the_closing_brace() -> None:
    result = parse('<|tool_call>call:get_weather{city:<|"|>Paris<|"|>} It is sunny.')
    assert calls(result) == [("get_weather", {"city": "Paris"}, False)]
    assert result.text == " It is sunny."


def test_calls_written_back_to_back_in_one_block_are_parallel() -> None:
    text = (
        '<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}'
        'call:get_weather{city:<|"|>Oslo<|"|>}<tool_call|>'
    )
    assert [c.arguments["city"] for c in parse(text).tool_calls] == ["Paris", "Oslo"]


def test_stray_terminators_and_response_markers_after_a_call_are_markup() -> None:
    text = '<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|><tool_call|>Done.'
    assert parse(text).text == "Done."
    text = '<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|><|tool_response>'
    assert parse(text).text == ""


def test_an_empty_block_holds_no_call_and_is_not_shown() -> None:
    result = parse("<|tool_call><tool_call|>")
    assert result.tool_calls == [] and result.text == ""


def test_python_style_arguments_are_read() -> None:
    result = parse('<|tool_call>call:get_weather(city="Paris", days=2)')
    assert calls(result) == [("get_weather", {"city": "Paris", "days": 2}, False)]


def test_a_code_fenced_example_is_not_a_call() -> None:
    text = '```\n<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|>\n```'
    result = parse(text)
    assert result.tool_calls == [] and result.text == text


def test_bare_words_are_read_as_strings() -> None:
    result = parse("<|tool_call>call:get_weather{city:Paris}<tool_call|>")
    assert calls(result) == [("get_weather", {"city": "Paris"}, False)]


def test_a_bare_string_value_of_a_string_property_may_hold_commas() -> None:
    text = '<|tool_call>call:write_file{file_path:<|"|>a.txt<|"|>,content:one, two}<tool_call|>'
    result = parse(text, WRITE)
    assert calls(result) == [("write_file", {"file_path": "a.txt", "content": "one, two"}, False)]


def test_the_alias_names_the_same_protocol() -> None:
    assert toolmend.get_protocol("gemma4-delimiter") is toolmend.get_protocol("gemma4")


# -------------------------------------------------------------------------- R1-R4 matrix


def test_r3_a_call_complete_but_for_its_terminator_completes() -> None:
    result = parse('<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_ca')
    assert calls(result) == [("get_weather", {"city": "Paris"}, False)]
    assert result.text == ""


def test_r3_a_call_cut_inside_a_value_is_incomplete_with_best_effort_arguments() -> None:
    result = parse('<|tool_call>call:get_weather{days:2,city:<|"|>Par')
    assert calls(result) == [("get_weather", {"days": 2, "city": "Par"}, True)]
    assert result.text == ""


def test_r1_a_call_cut_inside_its_header_before_the_name_is_dropped() -> None:
    result = parse("Let me look.<|tool_call>cal")
    assert result.tool_calls == [] and result.text == "Let me look."
    dropped = [d for d in result.diagnostics if d.code == "truncated_fragment_dropped"]
    assert len(dropped) == 1 and "cal" not in json.dumps(dropped[0].metadata)


def test_r1_a_call_cut_after_its_name_is_incomplete() -> None:
    result = parse("<|tool_call>call:get_weather")
    assert calls(result) == [("get_weather", {}, True)]


def test_r2_an_unknown_tool_stays_text() -> None:
    text = '<|tool_call>call:launch_rocket{target:<|"|>moon<|"|>}<tool_call|>'
    result = parse(text)
    assert result.tool_calls == [] and result.text == text


def test_r4_arguments_violating_the_schema_are_incomplete() -> None:
    result = parse('<|tool_call>call:get_weather{city:<|"|>Paris<|"|>,tags:[]}<tool_call|>')
    assert [c.incomplete for c in result.tool_calls] == [True]
    assert "tags" in (result.tool_calls[0].error or "")


def test_r4_a_cut_call_whose_arguments_validate_completes_only_with_its_body_closed() -> None:
    events = run_chunks("gemma4", ['<|tool_call>call:get_weather{city:<|"|>Paris<|"|>'], WEATHER)
    ends = [e for e in events if isinstance(e, ToolCallEnd)]
    assert [e.call.incomplete for e in ends] == [True]
    assert not any(
        isinstance(e, Diagnostic) and e.code == "argument_stream_diverged" for e in events
    )


# ------------------------------------------------------------------------------ rendering


def test_render_call_writes_the_native_form() -> None:
    call = toolmend.ToolCall(id="c1", name="get_weather", arguments={"days": 2, "city": "Paris"})
    rendered = toolmend.get_protocol("gemma4").render_call(call)
    assert rendered == '<|tool_call>call:get_weather{city:<|"|>Paris<|"|>,days:2}<tool_call|>'


def test_render_tools_declares_each_tool_in_gemma_form() -> None:
    tools = toolmend.model.coerce_tools(WEATHER)
    assert tools is not None
    prompt = toolmend.get_protocol("gemma4").render_tools(tools)
    assert prompt.startswith('<|tool>declaration:get_weather{description:<|"|><|"|>,parameters:{')
    assert 'city:{type:<|"|>STRING<|"|>}' in prompt
    assert 'required:[<|"|>city<|"|>],type:<|"|>OBJECT<|"|>}}<tool|>' in prompt


def test_render_result_writes_a_tool_response() -> None:
    proto = toolmend.get_protocol("gemma4")
    assert proto.render_result("c1", "get_weather", "sunny") == (
        '<|tool_response>response:get_weather{value:<|"|>sunny<|"|>}<tool_response|>'
    )
    assert proto.render_result("c1", "get_weather", '{"temp": 15}') == (
        "<|tool_response>response:get_weather{temp:15}<tool_response|>"
    )


@pytest.mark.parametrize(
    "text",
    [
        'Sure.<|tool_call>call:get_weather{city:<|"|>Paris<|"|>,days:2}<tool_call|>Done.',
        '<|tool_call>call:get_weather{city:<|"|>Pa}ris <tool_call|> "x"<|"|>}<tool_call|>',
        '<|tool_call>call:get_weather{city:<|"|>Paris}\n<tool_call|>',
        "<|tool_call>call:get_weather(city='Paris')<tool_call|>after",
        '<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}call:nope{a:1}<tool_call|>',
        "<|tool_call>call:get_weather{city:Paris, days:2,}<turn|>",
    ],
)
def test_fixtures_keep_the_invariants(text: str) -> None:
    check_all_invariants("gemma4", text, WEATHER)


# A key missing before its `:` once made the argument reader loop forever (found by comparing
# the old reader with `JsonScan`'s on generated inputs): each ends now, as an anomaly.
MALFORMED_KEYS = [
    "{:1}",
    "{ :1}",
    "{a:1,:2}",
    '{a:"x":2}',
]


@pytest.mark.parametrize("arguments", MALFORMED_KEYS)
def test_a_key_missing_before_its_colon_is_an_anomaly_not_a_hang(arguments: str) -> None:
    assert decode_arguments(arguments).error is not None
    text = f"<|tool_call>call:get_weather{arguments}<tool_call|>after"
    result = parse(text)
    assert [c.incomplete for c in result.tool_calls] == [True]
    check_all_invariants("gemma4", text, WEATHER)


def test_a_colon_inside_a_bare_word_is_text_of_it() -> None:
    assert decode_arguments("{url:http://x.org/a,n::b}").arguments == {
        "url": "http://x.org/a",
        "n": ":b",
    }


def test_a_key_right_after_a_closed_string_needs_no_comma() -> None:
    # FunctionGemma's streamed output in vLLM's tests writes it; Gemma 4 shares the language.
    decoded = decode_arguments('{city:<|"|>NYC<|"|>unit:<|"|>celsius<|"|>,days:2}')
    assert (decoded.arguments, decoded.error) == (
        {"city": "NYC", "unit": "celsius", "days": 2},
        None,
    )
    assert decoded.repairs == ["missing-comma-after-string"]


def test_a_stray_colon_before_call_is_header_markup() -> None:
    # vllm-project/vllm@33a7f0986ab85b31a5af305eb7e7b0b6ec03f406
    # tests/tool_parsers/test_gemma4_regex_and_bare_calls.py (colon-prefixed), Apache-2.0.
    text = '<|tool_call>:call:bash{command:<|"|>pytest<|"|>}'
    for protocol in ("gemma4", "auto"):
        result = toolmend.parse(text, protocol)
        assert [(c.name, c.arguments, c.executable) for c in result.tool_calls] == [
            ("bash", {"command": "pytest"}, True)
        ]
        assert result.text == ""
    check_all_invariants("gemma4", text)


# Gemma 4 dropping its `<|tool_call>` opener: vLLM's test_gemma4_regex_and_bare_calls.py
# (TestGemma4EngineBareCallIntegration), a bare call right after the thought channel closes.
BARE_AFTER_THOUGHT = '<|channel>thought\nListing directory files.\n<channel|>call:bash{command:<|"|>ls -la /work<|"|>}'
# The sibling from the template's own call syntax: no reasoning, the opener gone but its
# `<tool_call|>` terminator kept, two calls back to back as one block writes them.
BARE_FIRST = (
    'call:get_weather{city:<|"|>Paris<|"|>}call:get_weather{city:<|"|>Oslo<|"|>}<tool_call|>'
)


@pytest.mark.parametrize("protocol", ["gemma4", "auto"])
def test_a_bare_call_first_in_the_visible_output_is_a_call_of_a_declared_tool(
    protocol: str,
) -> None:
    result = toolmend.parse(BARE_AFTER_THOUGHT, protocol, BASH)
    assert [(c.name, c.arguments, c.executable) for c in result.tool_calls] == [
        ("bash", {"command": "ls -la /work"}, True)
    ]
    assert result.text == ""
    result = toolmend.parse(BARE_FIRST, protocol, WEATHER)
    assert [(c.arguments, c.executable) for c in result.tool_calls] == [
        ({"city": "Paris"}, True),
        ({"city": "Oslo"}, True),
    ]


@pytest.mark.parametrize(
    ("text", "tools"),
    [
        ('Try call:get_weather{city:<|"|>Paris<|"|>}', WEATHER),  # prose first: an example
        ('call:delete_all{path:<|"|>/<|"|>}', WEATHER),  # not a declared tool
        ('<|channel>thought\nx\n<channel|>call:bash{command:<|"|>ls<|"|>}', None),  # no tools
    ],
    ids=["after-prose", "undeclared", "tools-none"],
)
def test_a_bare_call_anywhere_else_or_of_no_declared_tool_stays_text(text: str, tools: Any) -> None:
    for protocol in ("gemma4", "auto"):
        result = toolmend.parse(text, protocol, tools)
        assert result.tool_calls == []
        assert text.endswith(result.text)


@pytest.mark.parametrize("text", [BARE_AFTER_THOUGHT, BARE_FIRST], ids=["thought", "first"])
def test_the_bare_call_reading_is_split_invariant(text: str) -> None:
    tools = BASH if text is BARE_AFTER_THOUGHT else WEATHER
    check_all_invariants("gemma4", text, tools)
    check_all_invariants("auto", text, tools)


@pytest.mark.parametrize("protocol", ["gemma4", "auto"])
def test_an_output_ending_in_the_word_call_shows_it(protocol: str) -> None:
    # A bare call's marker `call:` is a word: "no call" at the end is text, never a cut marker
    # (while a cut `<|tool_call` token still is).
    assert toolmend.parse("no call", protocol, BASH).text == "no call"
    assert toolmend.parse("Use <|tool_call", protocol, BASH).text == "Use "
