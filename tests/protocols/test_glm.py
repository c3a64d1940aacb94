"""GLM-4.5/4.6 (`glm45`) and GLM-4.7 (`glm47`): `<tool_call>NAME<arg_key>K</arg_key><arg_value>V
</arg_value></tool_call>`, with and without newlines. Corpus cases run in
`tests/test_corpus_conformance.py`; these pin the behaviours one by one."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolmend
from conformance import case_text, load_engine_cases
from support import check_all_invariants, comparable, run_chunks, split_at
from tool_fixtures import MULTIPLY, WEATHER, WRITE
from toolmend.protocols.glm import read_pairs, split_name

GLM45 = (
    "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n"
    "<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>"
)
GLM47 = (
    "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value>"
    "<arg_key>days</arg_key><arg_value>3</arg_value></tool_call>"
)
CORPUS = [c for c in load_engine_cases() if c["format"] in ("glm45", "glm47", "glm_name_json")]


def calls(text: str, protocol: str = "glm45", tools: Any = WEATHER, **kw: Any) -> list[Any]:
    result = toolmend.parse(text, protocol, tools, **kw)
    return [(c.name, c.arguments, c.executable) for c in result.tool_calls]


@pytest.mark.parametrize("protocol", ["glm45", "glm47", "auto"])
@pytest.mark.parametrize("text", [GLM45, GLM47])
def test_both_layouts_read_the_same_call_typed_by_the_schema(protocol: str, text: str) -> None:
    assert calls(text, protocol) == [("get_weather", {"city": "Paris", "days": 3}, True)]


def test_a_string_value_keeps_its_text_as_written() -> None:
    text = "<tool_call>get_weather<arg_key>city</arg_key><arg_value>  a < b &amp; 7\n</arg_value></tool_call>"
    assert calls(text)[0][1] == {"city": "  a < b &amp; 7\n"}


@pytest.mark.parametrize("protocol", ["glm45", "glm47", "longcat", "auto"])
def test_an_undeclared_quoted_value_is_its_string_as_glm_engines_deserialize_it(
    protocol: str,
) -> None:
    # mlx-lm's and vLLM's GLM parsers read a value whose parameter is not declared a string as
    # JSON first: `"London"` is London (mlx-lm's test_parsers case, tools=None).
    tags = (
        ("longcat_arg_key", "longcat_arg_value")
        if protocol == "longcat"
        else ("arg_key", "arg_value")
    )
    opener = "<longcat_tool_call>" if protocol == "longcat" else "<tool_call>"
    body = f'get_time<{tags[0]}>location</{tags[0]}><{tags[1]}>"London"</{tags[1]}>'
    text = f"{opener}{body}{opener.replace('<', '</')}"
    assert calls(text, protocol, tools=None) == [("get_time", {"location": "London"}, True)]


def test_a_quoted_value_declared_a_string_keeps_its_quotes() -> None:
    text = '<tool_call>get_weather<arg_key>city</arg_key><arg_value>"Paris"</arg_value></tool_call>'
    assert calls(text)[0][1] == {"city": '"Paris"'}


@pytest.mark.parametrize("protocol", ["glm45", "auto"])
def test_escaped_line_breaks_between_the_tags_are_layout(protocol: str) -> None:
    # GLM-4.6 writing its output JSON-escaped (SGLang's GLM tests): `\\n` where the template
    # writes a line break.
    text = (
        "<tool_call>get_weather\\n<arg_key>city</arg_key>\\n<arg_value>Paris</arg_value>\\n"
        "<arg_key>days</arg_key>\\n<arg_value>3</arg_value>\\n</tool_call>"
    )
    assert calls(text, protocol) == [("get_weather", {"city": "Paris", "days": 3}, True)]


def test_an_escaped_line_break_inside_a_value_is_kept() -> None:
    text = "<tool_call>get_weather<arg_key>city</arg_key><arg_value>a\\nb</arg_value></tool_call>"
    assert calls(text)[0][1] == {"city": "a\\nb"}


def test_the_name_then_json_variant_is_read() -> None:
    text = '<tool_call>get_weather\n{"city": "Oslo"}</tool_call>'
    assert calls(text) == [("get_weather", {"city": "Oslo"}, True)]


def test_a_json_call_object_in_the_block_is_read_as_hermes() -> None:
    text = '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>'
    assert calls(text) == [("get_weather", {"city": "Oslo"}, True)]


def test_a_zero_argument_call_is_its_bare_name() -> None:
    assert calls("<tool_call>get_time</tool_call>", tools=None) == [("get_time", {}, True)]


def test_prose_that_mentions_the_tag_stays_text() -> None:
    text = "Wrap each call in a <tool_call> tag like this </tool_call> please."
    result = toolmend.parse(text, "glm45", WEATHER)
    assert result.tool_calls == [] and result.text == text


def test_a_call_inside_a_code_fence_is_not_read() -> None:
    text = f"Example:\n```\n{GLM47}\n```\n"
    result = toolmend.parse(text, "glm47", WEATHER)
    assert result.tool_calls == [] and result.text == text


def test_an_unknown_tool_stays_text() -> None:
    text = "<tool_call>shell<arg_key>command</arg_key><arg_value>rm -rf /</arg_value></tool_call>"
    result = toolmend.parse(text, "glm45", WEATHER)
    assert result.tool_calls == []
    assert "rm -rf /" in result.text


def test_a_value_missing_its_closer_ends_at_the_block_closer_trimmed() -> None:
    text = "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris\n</tool_call>"
    result = toolmend.parse(text, "glm45", WEATHER)
    assert [(c.name, c.arguments, c.executable) for c in result.tool_calls] == [
        ("get_weather", {"city": "Paris"}, True)
    ]
    assert "close-arg-value" in result.tool_calls[0].repairs


def test_a_missing_tag_is_an_error_under_the_strict_policy() -> None:
    text = "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</tool_call>"
    assert calls(text, policy="strict")[0][2] is False


def test_a_value_cut_off_by_the_end_of_the_stream_is_not_executed() -> None:
    text = "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Par"
    got = calls(text)
    assert got and got[0][2] is False


def test_a_call_complete_but_for_its_closer_is_recovered_at_the_end_of_the_stream() -> None:
    text = "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool"
    assert calls(text) == [("get_weather", {"city": "Paris"}, True)]


def test_a_new_tool_call_before_the_closer_ends_the_unclosed_one_incomplete() -> None:
    text = (
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value>"
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Oslo</arg_value></tool_call>"
    )
    assert [(n, a, ok) for n, a, ok in calls(text)] == [
        ("get_weather", {"city": "Paris"}, False),
        ("get_weather", {"city": "Oslo"}, True),
    ]


# A value that mentions the block's own opener, read to its `</arg_value>` (llama.cpp's
# test-chat.cpp, Ling 3.0 template: `contains </think> and <tool_call> strings`). GLM's template
# writes a value raw, so a file or a note about the format holds the tag as it is.
LING_VALUE = (
    "check this\n</think>\n<tool_call>tool_2req_4opt\n<arg_key>req1</arg_key>\n"
    "<arg_value>contains </think> and <tool_call> strings</arg_value>\n"
    "<arg_key>req2</arg_key>\n<arg_value>1</arg_value>\n</tool_call>"
)
# The sibling in GLM-4.7's layout: a file documenting the format, the tag at the value's end.
NOTE_VALUE = (
    "<tool_call>write_file<arg_key>file_path</arg_key><arg_value>NOTES.md</arg_value>"
    "<arg_key>content</arg_key><arg_value>Each call opens with <tool_call></arg_value>"
    "</tool_call>"
)


@pytest.mark.parametrize("protocol", ["glm45", "glm47", "auto"])
def test_a_value_mentioning_the_opener_is_read_to_its_own_closer(protocol: str) -> None:
    got = calls(LING_VALUE, protocol, tools=None)
    assert got == [
        ("tool_2req_4opt", {"req1": "contains </think> and <tool_call> strings", "req2": 1}, True)
    ]
    content = "Each call opens with <tool_call>"
    assert calls(NOTE_VALUE, protocol, tools=WRITE) == [
        ("write_file", {"file_path": "NOTES.md", "content": content}, True)
    ]


def test_an_unclosed_value_still_ends_where_a_new_call_opens() -> None:
    # The next call writes its key before any `</arg_value>`: that closer is not this value's.
    text = (
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris"
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Oslo</arg_value></tool_call>"
    )
    assert calls(text, "glm47") == [
        ("get_weather", {"city": "Paris"}, False),
        ("get_weather", {"city": "Oslo"}, True),
    ]


@pytest.mark.parametrize("text", [LING_VALUE, NOTE_VALUE], ids=["ling", "note"])
def test_the_quoted_opener_reading_is_split_invariant(text: str) -> None:
    check_all_invariants("glm45", text, WRITE)
    check_all_invariants("auto", text + "\nDone.", WRITE)


def test_a_key_given_twice_keeps_its_last_value_and_says_so() -> None:
    text = (
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value>"
        "<arg_key>city</arg_key><arg_value>Oslo</arg_value></tool_call>"
    )
    result = toolmend.parse(text, "glm47", WEATHER)
    assert result.tool_calls[0].arguments == {"city": "Oslo"}
    assert "duplicate-key-last-wins" in result.tool_calls[0].repairs


@pytest.mark.parametrize("protocol", ["glm45", "glm47"])
def test_a_rendered_call_reads_back_under_its_protocol_and_auto(protocol: str) -> None:
    call = toolmend.ToolCall(
        id="c1", name="get_weather", arguments={"city": "São Paulo", "days": 2}
    )
    text = toolmend.get_protocol(protocol).render_call(call)
    for reader in (protocol, "auto"):
        assert calls(text, reader) == [("get_weather", call.arguments, True)]


def test_rendering_refuses_a_value_holding_its_own_closer() -> None:
    call = toolmend.ToolCall(id="c1", name="get_weather", arguments={"city": "x</arg_value>y"})
    with pytest.raises(toolmend.CannotRenderError):
        toolmend.get_protocol("glm47").render_call(call)


def test_the_name_must_look_like_a_name() -> None:
    assert split_name("get weather<arg_key>") is None
    assert split_name("  获取天气\n<arg_key>") == ("获取天气", "\n<arg_key>")


def test_pairs_are_read_with_forgotten_tags_put_back() -> None:
    pairs = read_pairs("<arg_key>a</arg_key>1</arg_value><arg_key>b<arg_value>2")
    assert pairs.items == [("a", "1"), ("b", "2")]
    assert pairs.repairs == ["open-arg-value", "close-arg-key", "close-arg-value"]
    assert pairs.open_at_end


@pytest.mark.parametrize("case", CORPUS, ids=lambda c: c["id"])
def test_corpus_text_keeps_the_stream_invariants(case: dict[str, Any]) -> None:
    check_all_invariants("glm45", case_text(case), case.get("tools"))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=len(GLM45) - 1), max_size=8))
def test_any_split_of_a_call_with_prose_gives_the_same_events(points: list[int]) -> None:
    text = "Sure. " + GLM45 + " Done."
    whole = comparable(run_chunks("auto", [text], WEATHER))
    assert comparable(run_chunks("auto", split_at(text, points), WEATHER)) == whole


# ml-explore/mlx-lm@d78bf58e217c904ec282ed8da9b947491f78c022 tests/test_tool_parsing.py::test_parsers
# (MIT), in tests/corpus/engines: the plain variant mlx-lm's GLM-4.7 parser reads.
PLAIN = "<tool_call>multiply a=12234585 b=48838483920</tool_call>"


@pytest.mark.parametrize("protocol", ["glm47", "glm45", "auto"])
def test_the_plain_variant_of_key_value_words_is_read_typed_by_the_schema(protocol: str) -> None:
    result = toolmend.parse(PLAIN, protocol, MULTIPLY)
    calls = [(c.name, c.arguments, c.executable) for c in result.tool_calls]
    assert calls == [("multiply", {"a": 12234585, "b": 48838483920}, True)]
    check_all_invariants(protocol, PLAIN, MULTIPLY)
    quoted = '<tool_call>note text="a b" n=2</tool_call>'
    got = toolmend.parse(quoted, protocol, None).tool_calls
    assert [(c.name, c.arguments) for c in got] == [("note", {"text": "a b", "n": 2})]


@pytest.mark.parametrize(
    "text",
    [
        "<tool_call>multiply a=1 and then b=2</tool_call>",  # a word that is no key=value
        "<tool_call>multiply a=1 b=2\nthat is all</tool_call>",  # the line goes on as prose
        "<tool_call>multiply a=1 b=2",  # no closer: never recovered
    ],
)
def test_the_plain_variant_needs_only_key_value_words_and_its_closer(text: str) -> None:
    result = toolmend.parse(text, "glm47", MULTIPLY)
    assert result.tool_calls == [] and result.text == text
    check_all_invariants("glm47", text, MULTIPLY)


# GLM-4.7 in production writes a tag twice (vLLM #54971, tests/corpus/engines/user_reports.jsonl):
# the key must be the one the model meant, not one holding the stray tag.
DOUBLED_TAGS = [
    "<tool_call>list_dir<arg_key>path</arg_key></arg_key><arg_value>/tmp/x</arg_value></tool_call>",
    "<tool_call>list_dir<arg_key><arg_key>path</arg_key><arg_value>/tmp/x</arg_value></tool_call>",
    "<tool_call>list_dir<arg_key>path</arg_key>\n<arg_value>/tmp/x</arg_value></arg_value></tool_call>",
]
LIST_DIR = [
    {
        "type": "function",
        "function": {
            "name": "list_dir",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    }
]


@pytest.mark.parametrize("text", DOUBLED_TAGS)
@pytest.mark.parametrize("protocol", ["glm47", "auto"])
def test_a_tag_written_twice_is_read_once_as_a_repair(protocol: str, text: str) -> None:
    result = toolmend.parse(text, protocol, LIST_DIR)
    assert [(c.name, c.arguments, c.executable) for c in result.tool_calls] == [
        ("list_dir", {"path": "/tmp/x"}, True)
    ]
    check_all_invariants(protocol, text, LIST_DIR)


def test_a_tag_written_twice_is_an_error_under_the_strict_policy() -> None:
    result = toolmend.parse(DOUBLED_TAGS[0], "glm47", LIST_DIR, policy="strict")
    assert [c.executable for c in result.tool_calls] == [False]


def test_a_doubled_tag_is_dropped_only_when_nothing_but_blanks_lies_between() -> None:
    assert read_pairs("<arg_key>a</arg_key> </arg_key><arg_value>1</arg_value>").items == [
        ("a", "1")
    ]
    assert read_pairs("<arg_key>a</arg_key>x</arg_key><arg_value>1</arg_value>").error is not None


# GLM-4-0414's tagless call, its name on the first line and its JSON arguments on the next
# (a user's report, ml-explore/mlx-swift-lm#623), and the sibling after reasoning, CRLF.
TAGLESS = 'get_weather\n{"city": "Paris", "days": 2}'
TAGLESS_AFTER_THINKING = '<think>Paris first.</think>\nget_weather\r\n{"city": "Paris"}'


@pytest.mark.parametrize("protocol", ["glm45", "auto"])
def test_a_tagless_name_then_json_call_at_the_outputs_start_is_read(protocol: str) -> None:
    assert calls(TAGLESS, protocol) == [("get_weather", {"city": "Paris", "days": 2}, True)]
    assert calls(TAGLESS_AFTER_THINKING, protocol) == [("get_weather", {"city": "Paris"}, True)]


@pytest.mark.parametrize(
    ("text", "tools"),
    [
        ('Sure.\nget_weather\n{"city": "Paris"}', WEATHER),  # prose first
        ("get_weather\nis the tool I would use.", WEATHER),  # no JSON after the name
        (TAGLESS, None),  # no tools: no name marks a call
    ],
    ids=["prose-first", "no-json", "tools-none"],
)
def test_a_tagless_call_anywhere_else_or_without_tools_stays_text(text: str, tools: Any) -> None:
    assert calls(text, "glm45", tools=tools) == []
    assert toolmend.parse(text, "glm45", tools).text == text


@pytest.mark.parametrize("text", [TAGLESS, TAGLESS_AFTER_THINKING], ids=["first", "thinking"])
def test_the_tagless_call_reading_is_split_invariant(text: str) -> None:
    check_all_invariants("glm45", text, WEATHER)


@pytest.mark.parametrize("protocol", ["glm45", "functionary-v3", "auto"])
def test_an_output_ending_in_a_tools_name_shows_it(protocol: str) -> None:
    # A leading call's marker is a tool's name and its line break: the name alone at the end
    # of an answer is a word of it, never a cut-off marker to strip.
    for text in ("I would use get_weather", "get_weather"):
        result = toolmend.parse(text, protocol, WEATHER)
        assert (result.text, result.tool_calls) == (text, [])
