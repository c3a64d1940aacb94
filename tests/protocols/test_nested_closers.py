"""A value whose inner closers are missing ends at the first enclosing closer that arrives.

One rule (`toolmend.core.closers`) for every format that nests closers: a qwen3-coder value
whose `</parameter>` and `</function>` were forgotten ends at `</tool_call>`, an invoke value
whose `</parameter>` was forgotten at `</invoke>` or the wrapper's closer, a Kimi XTML argument
at `<|close|>call` or `<|close|>tools`; the call ends there
(lenient: a recorded repair; strict: an error) and what follows is text again. Engines cut these
blocks at their outer closer first, so no value can run past it there either.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolmend
from support import check_all_invariants

WRITE = [
    {
        "name": "write_file",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["path", "content"],
        },
    }
]


def read(text: str, protocol: str) -> tuple[list[Any], str]:
    result = toolmend.parse(text, protocol, WRITE)
    return [(c.name, c.arguments, c.executable) for c in result.tool_calls], result.text


# The shape of the report: the model wrote the wrapper's closer and forgot the others.
QWEN_FORGOTTEN = (
    "<tool_call>\n<function=write_file>\n<parameter=path>\na.txt\n</parameter>\n"
    "<parameter=content>\nprint('hi')\n</tool_call>\nDone."
)


def test_a_qwen3_coder_value_ends_at_the_wrappers_closer_trimmed() -> None:
    calls, text = read(QWEN_FORGOTTEN, "qwen3-coder")
    assert calls == [("write_file", {"path": "a.txt", "content": "print('hi')"}, True)]
    assert text == "\nDone."


def test_the_qwen3_coder_repair_is_split_invariant() -> None:
    check_all_invariants("qwen3-coder", QWEN_FORGOTTEN, WRITE)
    check_all_invariants("auto", QWEN_FORGOTTEN, WRITE)


def test_auto_reads_the_forgotten_closers_as_qwen3_coder_does() -> None:
    assert read(QWEN_FORGOTTEN, "auto") == read(QWEN_FORGOTTEN, "qwen3-coder")


def test_a_bare_qwen3_coder_function_keeps_a_tool_call_closer_in_its_value() -> None:
    # Without the wrapper `</tool_call>` encloses nothing: it is the value's text.
    text = "<function=write_file>\n<parameter=path>\na</tool_call>\n</parameter>\n</function>"
    calls, _ = read(text, "qwen3-coder")
    assert calls == [("write_file", {"path": "a</tool_call>"}, False)]


INVOKE_CASES = {
    "the invoke's closer": (
        '<function_calls><invoke name="write_file"><parameter name="path">a.txt</parameter>'
        '<parameter name="content">x = 1</invoke></function_calls>Done.'
    ),
    "the wrapper's closer": (
        '<function_calls><invoke name="write_file"><parameter name="path">a.txt</parameter>'
        '<parameter name="content">x = 1</function_calls>Done.'
    ),
}


@pytest.mark.parametrize("closer", INVOKE_CASES)
@pytest.mark.parametrize("protocol", ["antml", "minimax-m2", "auto"])
def test_an_invoke_value_ends_at_an_enclosing_closer(closer: str, protocol: str) -> None:
    text = INVOKE_CASES[closer]
    if protocol == "minimax-m2":
        text = text.replace("function_calls>", "minimax:tool_call>")
    calls, visible = read(text, protocol)
    assert calls == [("write_file", {"path": "a.txt", "content": "x = 1"}, True)]
    assert visible == "Done."
    check_all_invariants(protocol, text, WRITE)


def test_under_the_strict_policy_the_forgotten_closer_is_an_error() -> None:
    calls, visible = read(INVOKE_CASES["the wrapper's closer"], "anthropic-xml")
    assert [(name, executable) for name, _, executable in calls] == [("write_file", False)]
    assert visible == "Done."


_VALUE = st.text(st.sampled_from("ab <>/\n=x"), max_size=30).filter(
    lambda v: "</" not in v and "<parameter=" not in v
)


@settings(max_examples=60, deadline=None)
@given(value=_VALUE, after=st.text(st.sampled_from("ab .\n"), max_size=8))
def test_any_value_with_forgotten_closers_ends_at_the_wrapper(value: str, after: str) -> None:
    text = f"<tool_call>\n<function=write_file>\n<parameter=content>\n{value}\n</tool_call>{after}"
    result = toolmend.parse(text, "qwen3-coder", None)
    assert [c.arguments for c in result.tool_calls] == [{"content": value}]
    assert result.text == after


KIMI_FORGOTTEN = (
    '<|open|>tools<|sep|><|open|>call tool="write_file" index="1"<|sep|>'
    '<|open|>argument key="path" type="string"<|sep|>a.txt<|close|>argument<|sep|>'
    '<|open|>argument key="content" type="string"<|sep|>x = 1{closer}After.'
)


@pytest.mark.parametrize(
    "closer", ["<|close|>call<|sep|><|close|>tools<|sep|>", "<|close|>tools<|sep|>"]
)
def test_a_kimi_xtml_argument_ends_at_the_call_or_tools_closer(closer: str) -> None:
    text = KIMI_FORGOTTEN.format(closer=closer)
    calls, visible = read(text, "kimi-xtml")
    assert calls == [("write_file", {"path": "a.txt", "content": "x = 1"}, True)]
    assert visible == "After."
    check_all_invariants("kimi-xtml", text, WRITE)
    check_all_invariants("auto", text, WRITE)


def test_a_kimi_xtml_forgotten_argument_closer_is_an_error_under_strict() -> None:
    text = KIMI_FORGOTTEN.format(closer="<|close|>tools<|sep|>")
    result = toolmend.parse(text, "kimi-xtml", WRITE, policy="strict")
    assert [c.executable for c in result.tool_calls] == [False]


# A value that quotes an enclosing closer (a file being written holds `</tool_call>`): the
# value's own closer still follows, so the quoted closer is the value's text (TensorRT-LLM's
# Poolside test `test_detect_and_parse_allows_end_tag_text_in_string_arg`).
GLM_QUOTED = (
    "<tool_call>write_file\n<arg_key>path</arg_key>\n<arg_value>a.txt</arg_value>\n"
    "<arg_key>content</arg_key>\n<arg_value>literal </tool_call> marker</arg_value>\n</tool_call>"
)
QWEN_QUOTED = (
    "<tool_call>\n<function=write_file>\n<parameter=path>\na.py\n</parameter>\n"
    '<parameter=content>\nprint("</function></tool_call>")\nx = 1\n</parameter>\n'
    "</function>\n</tool_call>"
)
INVOKE_QUOTED = (
    '<minimax:tool_call><invoke name="write_file"><parameter name="path">a.txt</parameter>'
    '<parameter name="content">see </invoke> and </minimax:tool_call></parameter>'
    "</invoke></minimax:tool_call>"
)
QUOTED = [
    ("glm45", GLM_QUOTED, "literal </tool_call> marker"),
    ("qwen3-coder", QWEN_QUOTED, 'print("</function></tool_call>")\nx = 1'),
    ("minimax-m2", INVOKE_QUOTED, "see </invoke> and </minimax:tool_call>"),
]


@pytest.mark.parametrize(("protocol", "text", "content"), QUOTED, ids=[q[0] for q in QUOTED])
def test_a_value_quoting_an_enclosing_closer_is_read_whole_when_its_own_closer_follows(
    protocol: str, text: str, content: str
) -> None:
    for name in (protocol, "auto"):
        (call,) = toolmend.parse(text, name, WRITE).tool_calls
        assert call.executable
        assert call.arguments["content"] == content


@pytest.mark.parametrize(("protocol", "text", "content"), QUOTED, ids=[q[0] for q in QUOTED])
def test_the_quoted_closer_reading_is_split_invariant(
    protocol: str, text: str, content: str
) -> None:
    check_all_invariants(protocol, text, WRITE)
    check_all_invariants("auto", text + "\nDone.", WRITE)


def test_a_forgotten_closer_still_ends_the_value_when_a_new_call_opens_before_any_closer() -> None:
    # The next call's `</parameter>` is not this value's: a new call opened before it.
    second = "<tool_call>\n<function=write_file>\n<parameter=path>\nb.txt\n</parameter>\n"
    text = (
        QWEN_FORGOTTEN.replace("\nDone.", "\n")
        + second
        + "<parameter=content>\nx\n</parameter>\n</function>\n</tool_call>"
    )
    calls, _ = read(text, "qwen3-coder")
    assert [c[1]["path"] for c in calls] == ["a.txt", "b.txt"]
    assert calls[0] == ("write_file", {"path": "a.txt", "content": "print('hi')"}, True)


def test_the_look_ahead_for_the_values_own_closer_is_bounded() -> None:
    from toolmend.core.closers import LITERAL_CLOSER_LOOKAHEAD

    far = "x" * (LITERAL_CLOSER_LOOKAHEAD + 10)
    text = QWEN_FORGOTTEN.replace("\nDone.", f"\n{far}</parameter>")
    calls, visible = read(text, "qwen3-coder")
    assert calls == [("write_file", {"path": "a.txt", "content": "print('hi')"}, True)]
    assert visible.startswith("\nxxx")
    check_all_invariants("qwen3-coder", text, WRITE)


def test_an_unclosed_value_holding_a_quoted_call_is_never_executed_cut_short() -> None:
    # After vLLM's `test_two_tools_second_with_out_of_schema_nested_literal_nonstreaming` (whose
    # quoted call is read whole now: tests/protocols/test_structural_closers.py), with `content`
    # given first: the quoted call's `<parameter=path>` names a declared parameter not given
    # yet, so it ends `content` (its closer missing), which would run cut after `<function=`.
    text = (
        '<tool_call>\n<function=write_file>\n<parameter=content>\ntemplate = """\n'
        "<tool_call>\n<function=write_file>\n<parameter=path>baz</parameter>\n</function>\n"
        '</tool_call>\n"""\n</parameter>\n</function>\n</tool_call>'
    )
    for protocol in ("qwen3-coder", "auto"):
        calls = toolmend.parse(text, protocol, WRITE).tool_calls
        assert calls and not any(c.executable for c in calls)


def test_an_invoke_whose_closer_is_missing_ends_at_the_wrappers_closer() -> None:
    # Ollama's MiniMax-M2 test "missing closing invoke tag".
    text = (
        '<minimax:tool_call>\n<invoke name="write_file">\n<parameter name="path">a.txt</parameter>\n'
        '<parameter name="content">x</parameter>\n</minimax:tool_call>\nDone.'
    )
    for protocol in ("minimax-m2", "auto"):
        (call,) = toolmend.parse(text, protocol, WRITE).tool_calls
        assert (call.arguments, call.executable) == ({"path": "a.txt", "content": "x"}, True)
        assert call.repairs == ["close-invoke"]
    check_all_invariants("minimax-m2", text, WRITE)
    strict = toolmend.parse(
        text.replace("minimax:tool_call", "function_calls"), "anthropic-xml", WRITE
    )
    assert not strict.tool_calls[0].executable  # strict: the forgotten closer is an error
