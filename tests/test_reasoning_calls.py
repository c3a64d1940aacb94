"""A call at the end of reasoning that never closed (Kimi K2 Thinking behind llama.cpp).

When the output ends inside a reasoning span that was never closed, and the span ends with
complete calls in a format's special-token markup, the calls are recovered with a
`call_in_unclosed_reasoning` diagnostic. A closed reasoning span is never scanned; prose or code
that mentions the tokens, or markup followed by more reasoning, stays reasoning.
"""

from __future__ import annotations

from typing import Any

import pytest

import toolmend
from support import check_all_invariants
from toolmend.events import ReasoningDelta, ToolCallEnd

TOOLS = [
    {
        "name": "bash",
        "parameters": {
            "type": "object",
            "properties": {"command": {"type": "string"}, "description": {"type": "string"}},
            "required": ["command"],
        },
    },
    {
        "name": "glob",
        "parameters": {
            "type": "object",
            "properties": {"pattern": {"type": "string"}},
            "required": ["pattern"],
        },
    },
]

# The thinking output of anomalyco/opencode#8851 (Kimi-K2 through OpenRouter, 2026-01-16), the
# calls in Kimi K2's section markup inside a <think> that never closed (two of its four calls).
KIMI_CALLS = (
    "<|tool_calls_section_begin|> <|tool_call_begin|> functions.bash:0 "
    '<|tool_call_argument_begin|> {"command": "ls -la", "description": "List files in current '
    'directory"} <|tool_call_end|> <|tool_call_begin|> functions.glob:1 '
    '<|tool_call_argument_begin|> {"pattern": "/.json"} <|tool_call_end|> '
    "<|tool_calls_section_end|>"
)
THINKING = (
    "<think>I'll analyze the tech stack of this project by examining the configuration files "
    "and codebase structure. "
)
UNCLOSED = THINKING + KIMI_CALLS


def parse(text: str, protocol: str = "kimi-k2", **kw: Any) -> toolmend.ParseResult:
    return toolmend.parse(text, protocol, TOOLS, **kw)


@pytest.mark.parametrize("protocol", ["kimi-k2", "auto"])
def test_calls_ending_an_unclosed_reasoning_span_are_recovered(protocol: str) -> None:
    result = parse(UNCLOSED, protocol)
    assert [(c.name, c.arguments, c.executable) for c in result.tool_calls] == [
        ("bash", {"command": "ls -la", "description": "List files in current directory"}, True),
        ("glob", {"pattern": "/.json"}, True),
    ]
    assert [d.code for d in result.diagnostics] == ["call_in_unclosed_reasoning"]
    assert result.reasoning == THINKING[len("<think>") :]
    assert result.text.strip() == ""


def test_the_recovery_is_split_invariant_and_conserves_the_input() -> None:
    check_all_invariants("kimi-k2", UNCLOSED + "\n", TOOLS)
    check_all_invariants("auto", UNCLOSED, TOOLS)


def test_a_closed_reasoning_span_is_never_scanned() -> None:
    # vybestack/llxprt-code#749: the same markup inside a closed <think> stays reasoning.
    result = parse(UNCLOSED + "</think>Done.")
    assert result.tool_calls == []
    assert result.reasoning.endswith("<|tool_calls_section_end|>")
    assert result.text == "Done."


def test_reasoning_that_goes_on_after_the_markup_stays_reasoning() -> None:
    result = parse(UNCLOSED + " Then I will read the README.")
    assert result.tool_calls == []
    assert result.diagnostics == []
    assert result.reasoning.endswith("Then I will read the README.")


def test_an_incomplete_call_at_the_end_of_reasoning_stays_reasoning() -> None:
    cut = UNCLOSED[: UNCLOSED.index('{"pattern"') + 5]
    result = parse(cut)
    assert result.tool_calls == []
    assert result.reasoning == cut[len("<think>") :]


# lmdeploy's test_parse_complete_tool_start_ends_reasoning_without_close_tag
# (InternLM/lmdeploy@1263d5cd, tests/test_lmdeploy/serve/parsers/test_glm47_parser.py,
# Apache-2.0): GLM-4.7 wrote its call without closing <think>.
GLM_UNCLOSED = (
    "<think>first reason<tool_call>glob<arg_key>pattern</arg_key><arg_value>*</arg_value>"
    "</tool_call>"
)
HERMES_UNCLOSED = (
    '<think>I will call it: <tool_call>{"name": "glob", "arguments": {"pattern": "*"}}</tool_call>'
)


@pytest.mark.parametrize(
    ("protocol", "text"),
    [
        ("hermes", HERMES_UNCLOSED),
        ("glm47", GLM_UNCLOSED),
        ("auto", HERMES_UNCLOSED),
        ("auto", GLM_UNCLOSED),
    ],
)
def test_a_tokenizer_special_tag_call_ending_unclosed_reasoning_is_recovered(
    protocol: str, text: str
) -> None:
    # `<tool_call>` is an added special token of the Qwen2.5/Qwen3 and GLM-4.5/4.7 tokenizers:
    # structural markup, as `<|tool_call_begin|>` is Kimi's.
    result = toolmend.parse(text, protocol, TOOLS)
    assert [(c.name, c.arguments) for c in result.tool_calls] == [("glob", {"pattern": "*"})]
    assert [d.code for d in result.diagnostics] == ["call_in_unclosed_reasoning"]
    check_all_invariants(protocol, text, TOOLS)


def test_a_bare_function_tag_in_unclosed_reasoning_is_not_recovered() -> None:
    # `<function=` is plain text to Qwen3-Coder's tokenizer (only its wrapper is a token).
    text = "<think>so: <function=glob><parameter=pattern>*</parameter></function>"
    assert toolmend.parse(text, "qwen3-coder", TOOLS).tool_calls == []


def test_a_template_opened_reasoning_span_is_recovered_too() -> None:
    result = parse(UNCLOSED[len("<think>") :], reasoning="open")
    assert [c.name for c in result.tool_calls] == ["bash", "glob"]
    events = toolmend.stream_parser("kimi-k2", TOOLS, reasoning="open").feed(UNCLOSED[7:])
    assert all(isinstance(e, ReasoningDelta) for e in events)  # held until the end decides


def test_reasoning_after_a_mentioned_token_streams_without_waiting_for_the_end() -> None:
    # A probe per opener: once the text after it cannot be only calls, it is released.
    parser = toolmend.stream_parser("kimi-k2", TOOLS)
    events = parser.feed("<think>The section opens with <|tool_calls_section_begin|> and then")
    events += parser.feed(" the calls follow. More thinking here.")
    streamed = "".join(e.text for e in events if isinstance(e, ReasoningDelta))
    assert streamed.startswith("The section opens with <|tool_calls_section_begin|> and")
    assert streamed.endswith("More thinking here.")


def test_only_the_text_from_the_last_live_opener_is_held() -> None:
    parser = toolmend.stream_parser("kimi-k2", TOOLS)
    events = parser.feed(THINKING + "Mention <|tool_call_begin|> in prose. " + KIMI_CALLS[:60])
    streamed = "".join(e.text for e in events if isinstance(e, ReasoningDelta))
    assert streamed == THINKING[len("<think>") :] + "Mention <|tool_call_begin|> in prose. "
    rest = parser.feed(KIMI_CALLS[60:]) + parser.finish()
    assert [e.call.name for e in rest if isinstance(e, ToolCallEnd)] == ["bash", "glob"]


def test_an_early_release_keeps_the_recovery_split_invariant() -> None:
    text = THINKING + "Mention <|tool_call_begin|> in prose. " + KIMI_CALLS
    check_all_invariants("kimi-k2", text, TOOLS)
    check_all_invariants("auto", text, TOOLS)
    assert [c.name for c in parse(text).tool_calls] == ["bash", "glob"]
