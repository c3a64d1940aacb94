"""A call cut off right after its header never runs (R3 for an empty body).

When the stream ends right after `<function=NAME>`, `<invoke name="NAME">`, `<NAME>` or
`to=functions.NAME<|message|>`, nothing shows the call was finished: its parameters may have
been about to follow. So the empty body completes only when (a prefix of) its closer follows
it; else the call ends incomplete and is never executed, whatever the tool's schema allows, in
every family, named and under `auto`, however the text is split.

The seed case is vllm-mlx's `test_truncated_function_only` (waybarrios/vllm-mlx@4b654c09,
tests/test_tool_parsers.py, Apache-2.0): `I'll call: <function=get_weather>` holds no call.
"""

from __future__ import annotations

import pytest

import toolmend
from support import check_all_invariants

#: A tool without required parameters: the schema alone cannot stop an empty call.
NO_REQUIRED = [
    {"name": "get_time", "parameters": {"type": "object", "properties": {"tz": {"type": "string"}}}}
]

CUT_AFTER_HEADER = [
    ("qwen3-coder", "<tool_call>\n<function=get_time>"),
    ("qwen3-coder", "<function=get_time>\n"),
    ("seed-oss", "<seed:tool_call>\n<function=get_time>"),
    ("functionary-v3.1", "<function=get_time>"),
    ("minimax-m2", '<minimax:tool_call>\n<invoke name="get_time">'),
    ("minimax-m2", '<minimax:tool_call>\n<invoke name="get_time">\n'),
    ("anthropic-xml", '<function_calls>\n<invoke name="get_time">'),
    (
        "step3",
        '<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get_time">',
    ),
    ("glm45", "<tool_call>get_time\n"),
    ("morph-xml", "<get_time>\n"),
    ("yaml-xml", "<get_time>\n"),
    ("harmony", "<|channel|>commentary to=functions.get_time<|message|>"),
]

#: The same calls with their closer begun (or their JSON body whole): complete but for it (R3).
CLOSING = [
    ("qwen3-coder", "<tool_call>\n<function=get_time>\n</func"),
    ("minimax-m2", '<minimax:tool_call>\n<invoke name="get_time">\n</inv'),
    ("glm45", "<tool_call>get_time\n</tool"),
    ("morph-xml", "<get_time></get"),
    ("yaml-xml", "<get_time>\n</get"),
    ("harmony", "<|channel|>commentary to=functions.get_time<|message|>{}"),
]


def executable(text: str, protocol: str, tools: object) -> list[str]:
    return [c.name for c in toolmend.parse(text, protocol, tools).tool_calls if c.executable]


@pytest.mark.parametrize(("protocol", "text"), CUT_AFTER_HEADER)
@pytest.mark.parametrize("tools", [NO_REQUIRED, None], ids=["declared", "tools=None"])
def test_a_call_cut_off_right_after_its_header_is_never_executable(
    protocol: str, text: str, tools: object
) -> None:
    assert executable(text, protocol, tools) == []
    assert executable(text, "auto", tools) == []


@pytest.mark.parametrize(("protocol", "text"), CUT_AFTER_HEADER)
def test_the_cut_off_call_is_reported_incomplete_with_its_reason(protocol: str, text: str) -> None:
    calls = toolmend.parse(text, protocol, NO_REQUIRED).tool_calls
    assert [(c.name, c.incomplete) for c in calls] == [("get_time", True)]
    assert calls[0].error


@pytest.mark.parametrize(("protocol", "text"), CUT_AFTER_HEADER)
def test_the_cut_off_call_reads_the_same_however_it_is_split(protocol: str, text: str) -> None:
    check_all_invariants(protocol, text, NO_REQUIRED)
    check_all_invariants("auto", text, NO_REQUIRED)


@pytest.mark.parametrize(("protocol", "text"), CLOSING)
def test_an_empty_body_cut_off_inside_its_closer_completes(protocol: str, text: str) -> None:
    assert executable(text, protocol, NO_REQUIRED) == ["get_time"]


def test_vllm_mlx_a_bare_function_tag_cut_off_after_prose_holds_no_call() -> None:
    text = "I'll call: <function=get_weather>"
    for protocol in ("functionary-v3.1", "qwen3-coder", "auto"):
        assert executable(text, protocol, None) == []
