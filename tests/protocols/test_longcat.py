"""The longcat protocol's key/value form: GLM's reading with `longcat_`-prefixed tags."""

from __future__ import annotations

from typing import Any

import toolmend
from support import check_all_invariants
from tool_fixtures import MULTIPLY

# ml-explore/mlx-lm@d78bf58e217c904ec282ed8da9b947491f78c022 tests/test_tool_parsing.py
# (test_parsers, longcat), MIT; between the block's tags, as LongCat's template writes it.
KEY_VALUE = (
    "<longcat_tool_call>multiply<longcat_arg_key>a</longcat_arg_key>\n"
    "<longcat_arg_value>12234585</longcat_arg_value>\n<longcat_arg_key>b</longcat_arg_key>\n"
    "<longcat_arg_value>48838483920</longcat_arg_value></longcat_tool_call>"
)


def calls(text: str, protocol: str = "longcat", tools: Any = MULTIPLY) -> list[Any]:
    result = toolmend.parse(text, protocol, tools)
    return [(c.name, c.arguments, c.executable) for c in result.tool_calls]


def test_key_value_tags_are_read_and_typed_by_the_schema() -> None:
    assert calls(KEY_VALUE) == [("multiply", {"a": 12234585, "b": 48838483920}, True)]


def test_key_value_tags_keep_the_invariants_at_every_split() -> None:
    check_all_invariants("longcat", "Working on it. " + KEY_VALUE + " Done.", MULTIPLY)


def test_auto_reads_the_key_value_form_and_the_json_form() -> None:
    json_form = (
        '<longcat_tool_call>{"name": "multiply", "arguments": {"a": 2, "b": 3}}</longcat_tool_call>'
    )
    assert calls(KEY_VALUE + json_form, "auto") == [
        ("multiply", {"a": 12234585, "b": 48838483920}, True),
        ("multiply", {"a": 2, "b": 3}, True),
    ]


def test_glm_tags_inside_a_longcat_block_are_not_its_arguments() -> None:
    text = "<longcat_tool_call>multiply<arg_key>a</arg_key><arg_value>1</arg_value></longcat_tool_call>"
    assert [executable for _, _, executable in calls(text)] == [False]


def test_a_forgotten_value_closer_is_put_back_at_the_block_closer() -> None:
    text = (
        "<longcat_tool_call>multiply<longcat_arg_key>a</longcat_arg_key>"
        "<longcat_arg_value>2</longcat_arg_value><longcat_arg_key>b</longcat_arg_key>"
        "<longcat_arg_value>3\n</longcat_tool_call>"
    )
    assert calls(text) == [("multiply", {"a": 2, "b": 3}, True)]
