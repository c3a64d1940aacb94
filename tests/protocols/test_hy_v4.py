"""hy-v4: HY V4's GLM-4.7 key/value tags with the shipping tokenizer's `:opensource` suffix, its
`<tool_calls:opensource>` wrapper and its `<think:opensource>` reasoning.

Fixtures from vllm-project/vllm@212dfd8bfd6c0fe5c87898aeee89efe7df4ec509
tests/tool_parsers/test_hy_v4_tool_parser.py (Apache-2.0), each test named beside it; the
suffix is the one HY V4's and Hy3's chat templates write (users serving Hy3 with parsers that
know only the bare tags saw every call left as text).
"""

from __future__ import annotations

from typing import Any

import toolmend
from support import check_all_invariants

P = "hy-v4"
S = ":opensource"
TOOLS: list[dict[str, Any]] = [
    {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city"],
        },
    },
    {"name": "get_current_date", "parameters": {"type": "object", "properties": {}}},
]


def arg(key: str, value: str) -> str:
    return f"<arg_key{S}>{key}</arg_key{S}><arg_value{S}>{value}</arg_value{S}>"


def call(name: str, args: str = "") -> str:
    return f"<tool_call{S}>{name}{args}</tool_call{S}>"


def block(body: str) -> str:
    return f"<tool_calls{S}>{body}</tool_calls{S}>"


def parse(text: str, protocol: str = P) -> toolmend.ParseResult:
    check_all_invariants(protocol, text, TOOLS)
    return toolmend.parse(text, protocol, TOOLS)


def calls(result: toolmend.ParseResult) -> list[tuple[str, dict[str, Any], bool]]:
    return [(c.name, c.arguments, c.executable) for c in result.tool_calls]


def test_suffixed_tags_are_read_and_typed_by_the_schema_named_and_under_auto() -> None:
    # TestExtractToolCalls::test_values_typed_from_schema
    text = "sure!" + block(call("get_weather", arg("city", "Beijing") + arg("days", "3")))
    for protocol in (P, "auto"):
        result = parse(text, protocol)
        assert calls(result) == [("get_weather", {"city": "Beijing", "days": 3}, True)]
        assert result.text == "sure!"


def test_calls_keep_their_order_and_a_call_may_take_no_arguments() -> None:
    # TestExtractToolCalls::test_multiple_calls_keep_their_order, ::test_zero_arg_call
    text = block(call("get_weather", arg("city", "A")) + call("get_current_date"))
    assert calls(parse(text)) == [
        ("get_weather", {"city": "A"}, True),
        ("get_current_date", {}, True),
    ]


def test_blanks_between_the_wrapper_and_a_call_are_no_text() -> None:
    # TestExtractToolCallsStreaming::test_structural_tokens_split_across_deltas
    result = parse("hi" + block("\n  " + call("get_weather", arg("city", "Beijing"))))
    assert calls(result) == [("get_weather", {"city": "Beijing"}, True)]
    assert result.text.strip() == "hi"


def test_the_suffixed_think_span_is_reasoning_and_never_scanned() -> None:
    # TestStructuralTag::test_reasoning_prefix_is_skipped writes `</think:opensource>` first
    inner = call("get_current_date")
    text = f"<think{S}>maybe {inner}</think{S}>" + block(call("get_weather", arg("city", "A")))
    result = parse(text)
    assert calls(result) == [("get_weather", {"city": "A"}, True)]
    assert result.reasoning == f"maybe {inner}"


def test_a_key_given_twice_keeps_its_last_value() -> None:
    # test_hy_v4_duplicate_arg_key.py: "the later value wins, as in non-streaming"
    text = block(call("get_weather", arg("city", "Paris") + arg("city", "Berlin")))
    assert calls(parse(text)) == [("get_weather", {"city": "Berlin"}, True)]


def test_a_malformed_block_runs_nothing() -> None:
    # TestStrictMode: unbalanced_tool_call and unparsed_argument_payload
    unclosed = block(f"<tool_call{S}>get_weather" + arg("city", "X"))
    junk = block(f"<tool_call{S}>get_weather" + arg("city", "X") + "JUNK" + f"</tool_call{S}>")
    for text in (unclosed, junk):
        assert not [c for c in parse(text).tool_calls if c.executable]


def test_the_bare_spelling_is_glm47s_and_stays_text_here() -> None:
    # The preview tokenizers' bare tags (TestStructuralTag::test_unsuffixed_checkpoint) are
    # GLM-4.7's format: glm47 and auto read them; hy-v4 owns only the suffixed ones.
    bare = (
        "<tool_calls><tool_call>get_weather<arg_key>city</arg_key>"
        "<arg_value>A</arg_value></tool_call></tool_calls>"
    )
    assert calls(parse(bare, "glm47")) == [("get_weather", {"city": "A"}, True)]
    assert calls(parse(bare, "auto")) == [("get_weather", {"city": "A"}, True)]
    assert parse(bare).tool_calls == []


def test_a_rendered_call_reads_back_in_the_suffixed_spelling() -> None:
    rendered = toolmend.get_protocol(P).render_call(
        toolmend.ToolCall(id="c1", name="get_weather", arguments={"city": "Nara", "days": 2})
    )
    assert rendered.startswith(f"<tool_call{S}>get_weather<arg_key{S}>")
    assert calls(parse(rendered)) == [("get_weather", {"city": "Nara", "days": 2}, True)]
