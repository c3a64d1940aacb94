"""A value's own closer ends it only where the call goes on after it (`core/closers.Continuation`).

Models write files that quote the format's own markup: a parser's fixture, a chat template, a
whole quoted call. A `</parameter>` inside such a value is followed by more of the quote, not by
the call's markup; a quoted `<parameter=…>` names no parameter the call may still take, and the
next `</parameter>` is its own. One rule for qwen3-coder, seed-oss and the invoke family
(minimax-m2, minicpm4-xml, DSML, ...): the closer ends the value only when blanks and then a
declared parameter, the call's or block's closer, a new call or the end of the output follow it
(an undeclared parameter only when it closes as a parameter does); inside a value only a
declared parameter not given yet ends it (its closer forgotten). Bounded look-ahead, so the
reading is the same however the stream is split.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolmend
from support import assert_split_invariant, check_all_invariants

ENGINES = Path(__file__).resolve().parents[1] / "corpus" / "engines"

WRITE = [
    {
        "name": "write_file",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        },
    }
]

#: vLLM's tests of quoted markup in a Qwen3-Coder value
#: (tests/tool_parsers/test_qwen3_xml_coder_shared.py, copied in
#: tests/corpus/engines/vllm_tool_parser_tests_newer.jsonl).
VLLM_QUOTED = [
    "vllm_newer-bb9edd1d87",  # `<tool_call>`, `<parameter=query>`, `</parameter>` in a list
    "vllm_newer-9a48015d50",  # `</parameter>` then an undeclared `<parameter=new_string>`
    "vllm_newer-6a7dcfa4bd",  # a quoted `<parameter=path>…</parameter>` (path given already)
    "vllm_newer-70cf2afa5b",  # a whole quoted `<tool_call>…</tool_call>`
]


def engine_case(case_id: str) -> dict[str, Any]:
    for line in (ENGINES / "vllm_tool_parser_tests_newer.jsonl").read_text().splitlines():
        case = json.loads(line)
        if case["id"] == case_id:
            return case
    raise KeyError(case_id)


def calls_of(text: str, protocol: str, tools: Any = WRITE) -> list[tuple[str, Any, bool]]:
    result = toolmend.parse(text, protocol, tools)
    return [(c.name, c.arguments, c.executable) for c in result.tool_calls]


def as_seed_oss(text: str) -> str:
    """A Qwen3-Coder call in Seed-OSS's wrapper (its first opener and last closer)."""
    head, _, tail = text.rpartition("</tool_call>")
    return (head + "</seed:tool_call>" + tail).replace("<tool_call>", "<seed:tool_call>", 1)


@pytest.mark.parametrize("case_id", VLLM_QUOTED)
def test_a_value_quoting_the_formats_markup_is_read_whole(case_id: str) -> None:
    case = engine_case(case_id)
    [want] = case["expected"]
    for protocol in ("qwen3-coder", "auto"):
        assert calls_of(case["text"], protocol, case["tools"]) == [
            (want["name"], want["arguments"], True)
        ]


@pytest.mark.parametrize("case_id", VLLM_QUOTED)
def test_seed_oss_reads_the_same_quotes_in_its_wrapper(case_id: str) -> None:
    case = engine_case(case_id)
    text = as_seed_oss(case["text"])
    assert text.startswith("<seed:tool_call>") and text.rstrip().endswith("</seed:tool_call>")
    [want] = case["expected"]
    for protocol in ("seed-oss", "auto"):
        assert calls_of(text, protocol, case["tools"]) == [(want["name"], want["arguments"], True)]


@pytest.mark.parametrize("case_id", VLLM_QUOTED)
def test_the_quoted_reading_is_split_invariant_at_every_boundary(case_id: str) -> None:
    case = engine_case(case_id)
    check_all_invariants("qwen3-coder", case["text"], case["tools"])
    assert_split_invariant("auto", case["text"] + "\nDone.", case["tools"], exhaustive_limit=0)


def test_a_quoted_call_after_a_call_to_an_undeclared_tool_is_read_whole() -> None:
    # vLLM's `test_two_tools_second_with_out_of_schema_nested_literal_nonstreaming`: `foo` is
    # not declared (it never runs); the second call quotes it.
    case = engine_case("vllm_newer-dada5a73ad")
    want = case["expected"][1]
    for protocol in ("qwen3-coder", "auto"):
        calls = [c for c in calls_of(case["text"], protocol, case["tools"]) if c[2]]
        assert calls == [(want["name"], want["arguments"], True)]


QWEN = "<tool_call>\n<function=write_file>\n<parameter=path>\na.py\n</parameter>\n<parameter=content>\n{}\n</parameter>\n</function>\n</tool_call>"

#: Values quoting the format's markup, and the one the call ends with: what follows each quoted
#: tag is no continuation of the call.
QWEN_QUOTES = [
    's = "</parameter>"\nt = 1',
    "</parameter>\nnot a tag",
    "x\n</parameter>\n<parameter=note>\ny\n</parameter>\nz",  # undeclared, closes into text
    "<parameter=path>\nb\n</parameter>",  # path given already: a quote, paired
    "<parameter=content>\nb\n</parameter>\nafter",  # the value's own name: a quote
    "<parameter=x>\n<parameter=y>\n</parameter>\n</parameter>",  # nested quotes pair up
]


@pytest.mark.parametrize("content", QWEN_QUOTES)
def test_qwen3_coder_values_keep_their_quoted_markup(content: str) -> None:
    text = QWEN.format(content)
    for protocol in ("qwen3-coder", "auto"):
        assert calls_of(text, protocol) == [
            ("write_file", {"path": "a.py", "content": content}, True)
        ]
    check_all_invariants("qwen3-coder", text, WRITE)


def test_a_closer_followed_by_a_declared_parameter_ends_the_value_even_when_repeated() -> None:
    # A repeat is the model's, not a quote: the duplicate rule answers it.
    text = QWEN.format("a\n</parameter>\n<parameter=path>\nb")
    [(name, _, executable)] = calls_of(text, "qwen3-coder")
    assert name == "write_file" and not executable
    [call] = toolmend.parse(text, "qwen3-coder", WRITE).tool_calls
    assert "given twice" in (call.error or "")


def test_an_undeclared_parameter_that_closes_as_one_continues_the_call() -> None:
    # The model added a parameter (the schema gate judges it): its closer is followed by the
    # call's markup, so the closer before it ended the value.
    text = (
        "<tool_call>\n<function=write_file>\n<parameter=path>\na.py\n</parameter>\n"
        "<parameter=mode>\nw\n</parameter>\n<parameter=content>\nx\n</parameter>\n</function>\n"
        "</tool_call>"
    )
    [(_, args, _)] = calls_of(text, "qwen3-coder")
    assert args == {"path": "a.py", "mode": "w", "content": "x"}
    check_all_invariants("qwen3-coder", text, WRITE)


def test_a_value_cut_short_at_a_quoted_closer_is_never_executed() -> None:
    # `</parameter>` was quoted, the value's own closer then forgotten: it ends at
    # `</function>`, but may hold less or more than was meant.
    text = "<tool_call>\n<function=write_file>\n<parameter=content>\na </parameter> b\n</function>\n</tool_call>"
    [(_, args, executable)] = calls_of(text, "qwen3-coder")
    assert not executable and args["content"].startswith("a </parameter> b")


def test_a_forgotten_closer_still_ends_the_value_at_the_next_declared_parameter() -> None:
    text = "<tool_call>\n<function=write_file>\n<parameter=content>\nx\n<parameter=path>\na.py\n</parameter>\n</function>\n</tool_call>"
    assert calls_of(text, "qwen3-coder") == [("write_file", {"content": "x", "path": "a.py"}, True)]


def test_the_look_ahead_past_a_closer_is_bounded() -> None:
    from toolmend.core.closers import MAX_CONTINUATION_LAYOUT

    # A closer followed by a long run of blanks ends the value whatever follows them, decided
    # before anything past the blanks has arrived.
    blanks = " " * MAX_CONTINUATION_LAYOUT
    text = QWEN.format("x").replace("</parameter>\n</function>", f"</parameter>{blanks}oops")
    parser = toolmend.stream_parser("qwen3-coder", WRITE)
    events = parser.feed(text[: text.index("oops")])
    sent = "".join(getattr(e, "arguments_delta", "") for e in events)
    assert '"content": "x"' in sent
    [(_, args, executable)] = calls_of(text, "qwen3-coder")
    assert args["content"] == "x" and not executable  # `oops` is text inside the call


def test_a_held_closer_is_released_once_what_follows_shows() -> None:
    parser = toolmend.stream_parser("qwen3-coder", WRITE)
    head = "<tool_call>\n<function=write_file>\n<parameter=content>\nab</parameter>"
    events = parser.feed(head)
    sent = "".join(getattr(e, "arguments_delta", "") for e in events)
    assert sent.endswith("ab")  # the value's text is sent; the closer waits
    events = parser.feed(" and more")
    sent += "".join(getattr(e, "arguments_delta", "") for e in events)
    assert sent.endswith("ab</parameter> and more")


# ------------------------------------------------------------------------ the invoke family

INVOKE = (
    '<minimax:tool_call>\n<invoke name="write_file">\n<parameter name="path">a.py</parameter>\n'
    '<parameter name="content">{}</parameter>\n</invoke>\n</minimax:tool_call>'
)
MINICPM = (
    '<function name="write_file"><param name="path">a.py</param>'
    '<param name="content">{}</param></function>'
)
INVOKE_QUOTES = [
    ("minimax-m2", INVOKE, "This text contains </parameter> in it"),
    ("minimax-m2", INVOKE, 'doc = """\n<parameter name="path">x</parameter>\n"""'),
    (
        "minimax-m2",
        INVOKE,
        '<minimax:tool_call><invoke name="write_file"><parameter name="content">q</parameter>'
        "</invoke></minimax:tool_call> quoted",
    ),
    ("minicpm4-xml", MINICPM, "see </param> here"),
    ("minicpm4-xml", MINICPM, '<param name="path">b</param> and </param>.'),
]


@pytest.mark.parametrize(("protocol", "shape", "content"), INVOKE_QUOTES)
def test_invoke_values_keep_their_quoted_markup(protocol: str, shape: str, content: str) -> None:
    text = shape.format(content)
    for name in (protocol, "auto"):
        assert calls_of(text, name) == [("write_file", {"path": "a.py", "content": content}, True)]
    check_all_invariants(protocol, text, WRITE)


def test_an_invoke_parameter_the_tool_does_not_declare_still_continues_the_invoke() -> None:
    # SGLang's DeepSeek V3.2 test: `another_city`, `topn`, `obj` are not declared.
    tools = [
        {
            "name": "spot",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        }
    ]
    text = (
        '<｜DSML｜function_calls>\n<｜DSML｜invoke name="spot">\n'
        '<｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>\n'
        '<｜DSML｜parameter name="another_city" string="true">London</｜DSML｜parameter>\n'
        '<｜DSML｜parameter name="topn" string="false">10</｜DSML｜parameter>\n'
        "</｜DSML｜invoke>\n</｜DSML｜function_calls>"
    )
    for name in ("deepseek-v3.2", "auto"):
        [(_, args, _)] = calls_of(text, name, tools)
        assert args == {"city": "Paris", "another_city": "London", "topn": 10}
    check_all_invariants("deepseek-v3.2", text, tools)


def test_an_invoke_value_ends_at_the_next_declared_parameter_when_its_closer_is_forgotten() -> None:
    text = (
        '<minimax:tool_call>\n<invoke name="write_file">\n<parameter name="content">x\n'
        '<parameter name="path">a.py</parameter>\n</invoke>\n</minimax:tool_call>'
    )
    [call] = toolmend.parse(text, "minimax-m2", WRITE).tool_calls
    assert call.executable and call.arguments == {"content": "x\n", "path": "a.py"}
    assert call.repairs == ["close-parameter"]
    check_all_invariants("minimax-m2", text, WRITE)


# ---------------------------------------------------------------------------- properties

_PIECES = st.sampled_from(
    [
        "</parameter>",
        "<parameter=path>",
        "<parameter=note>",
        "<parameter=content>",
        "</function>",
        "</tool_call>",
        "<tool_call>",
        "\n",
        " ",
        "x",
        '"',
        "<",
    ]
)


@settings(max_examples=60, deadline=None)
@given(st.lists(_PIECES, max_size=12), st.integers(0, 2**16))
def test_any_quote_reads_the_same_however_split(pieces: list[str], seed: int) -> None:
    text = QWEN.format("".join(pieces))
    assert_split_invariant("qwen3-coder", text, WRITE, exhaustive_limit=0, seed=seed)


_INVOKE_PIECES = st.sampled_from(
    [
        "</parameter>",
        '<parameter name="path">',
        '<parameter name="note">',
        "</invoke>",
        "</minimax:tool_call>",
        "\n",
        "x",
        "&lt;",
        "<",
    ]
)


@settings(max_examples=60, deadline=None)
@given(st.lists(_INVOKE_PIECES, max_size=12), st.integers(0, 2**16))
def test_any_invoke_quote_reads_the_same_however_split(pieces: list[str], seed: int) -> None:
    text = INVOKE.format("".join(pieces))
    assert_split_invariant("minimax-m2", text, WRITE, exhaustive_limit=0, seed=seed)


def test_the_continuation_waits_for_its_window_and_no_longer() -> None:
    from toolmend.protocols.qwen3_coder import TOOL_CALL

    follows = TOOL_CALL.continuation.follows
    closer = "</parameter>"
    for rest, open_, at_end in [
        ("\n<param", None, True),  # a tag cut off: undecided, at the end a closer cut off
        ("\n<parameter=path", None, False),  # its name not closed yet
        ("\n<parameter=path>", True, True),
        ("\n</func", None, True),
        ("\nxyz", False, False),
        ("\n", None, True),
    ]:
        text = closer + rest
        assert follows(text, len(closer), len(text), lambda n: True, final=False) is open_, rest
        assert follows(text, len(closer), len(text), lambda n: True, final=True) is at_end, rest
