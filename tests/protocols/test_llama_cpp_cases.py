"""llama.cpp's parser cases for the families toolmend covers, read as llama.cpp reads them.

The outputs and their expected messages are those of `test_template_output_parsers` in
ggml-org/llama.cpp `tests/test-chat.cpp` (MIT): Functionary v3.2 (an output that begins inside
its first recipient, the prompt having written `>>>`), Functionary v3.1, FireFunction v2's
`functools[...]`, DeepSeek R1 (reasoning opened by the template, the `<｜tool▁calls｜>`
section spelling) and Granite. Each is read named and under `auto`, whole and split anywhere.
"""

from __future__ import annotations

from typing import Any

import pytest

import toolmend
from support import check_all_invariants

#: llama.cpp's `special_function_tool`.
SPECIAL = [
    {
        "name": "special_function",
        "description": "I'm special",
        "parameters": {
            "type": "object",
            "properties": {"arg1": {"type": "integer", "description": "The arg."}},
            "required": ["arg1"],
        },
    }
]
CALL = [("special_function", {"arg1": 1})]
R1_CALL = (
    "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>special_function\n"
    '```json\n{"arg1": 1}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>'
)

# (protocol, output, expected text, expected calls, parser options)
CASES: list[tuple[str, str, str, list[tuple[str, Any]], dict[str, Any]]] = [
    (
        "functionary-v3",
        'all\nHello, world!\nnono\nWhat\'s up?>>>special_function\n{"arg1": 1}\n',
        "Hello, world!\nnono\nWhat's up?",
        CALL,
        {},
    ),
    ("functionary-v3", 'special_function\n{"arg1": 1} \n                    ', "", CALL, {}),
    ("functionary-v3", "all\nHello, world!\nWhat's up?", "Hello, world!\nWhat's up?", [], {}),
    ("functionary-v3", 'special_function\n{"arg1": 1}', "", CALL, {}),
    ("functionary-v3.1", '<function=special_function>{"arg1": 1}</function>', "", CALL, {}),
    ("functionary-v3.1", '<function=special_function>{"arg1": 1}<', "", CALL, {}),  # cut off
    (
        "phi4-mini",
        ' functools[{"name": "special_function", "arguments": {"arg1": 1}}]',
        " ",
        CALL,
        {},
    ),
    ("deepseek", "<think>I'm\nthinking</think>\n\n" + R1_CALL, "\n\n", CALL, {}),
    (
        "deepseek",
        "<｜tool▁calls｜>function<｜tool▁sep｜>special_function\n"
        '```json\n{"arg1": 1}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
        "",
        CALL,
        {},
    ),
    (
        "deepseek",
        "I'm\nthinking</think>Hello, world!\nWhat's up?",
        "Hello, world!\nWhat's up?",
        [],
        {"reasoning": "open"},
    ),
    (
        "granite",
        '<|tool_call|>[{"name": "special_function", "arguments": {"arg1": 1}}]',
        "",
        CALL,
        {},
    ),
]


def read(text: str, protocol: str, **kw: Any) -> toolmend.ParseResult:
    return toolmend.parse(text, protocol, SPECIAL, **kw)


@pytest.mark.parametrize(("protocol", "text", "visible", "calls", "options"), CASES)
@pytest.mark.parametrize("mode", ["named", "auto"])
def test_llama_cpp_reads_these_outputs_so_and_so_does_toolmend(
    protocol: str,
    text: str,
    visible: str,
    calls: list[tuple[str, Any]],
    options: dict[str, Any],
    mode: str,
) -> None:
    result = read(text, protocol if mode == "named" else "auto", **options)
    assert [(c.name, c.arguments) for c in result.tool_calls if c.executable] == calls
    assert result.text.strip() == visible.strip()


@pytest.mark.parametrize(("protocol", "text", "visible", "calls", "options"), CASES)
def test_each_case_reads_the_same_however_it_is_split(
    protocol: str, text: str, visible: str, calls: list[tuple[str, Any]], options: dict[str, Any]
) -> None:
    check_all_invariants(protocol, text, SPECIAL, **options)


def test_deepseek_r1_reasoning_that_mentions_the_section_token_stays_reasoning() -> None:
    text = (
        "I need to remember the correct syntax. It starts with <｜tool▁calls▁begin｜> and ends with"
    )
    result = read(text, "deepseek", reasoning="open")
    assert result.tool_calls == []
    assert result.reasoning == text
    assert result.text == ""
