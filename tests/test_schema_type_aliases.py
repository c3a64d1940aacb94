"""Tool schemas that write Python's or C's type names (`"float"`, `"int"`, `"dict"`, …), as
TensorRT-LLM's and mlx-lm's tests and many hand-written tools do: read as the JSON Schema types
they mean, with a diagnostic, while a type name that means nothing is still refused clearly."""

from __future__ import annotations

import pytest

import toolmend
from toolmend.model import Tool, ToolSchemaError

# TensorRT-LLM's Qwen3-Coder test declares `"float"`; mlx-lm's tests `"int"`, `"str"`, `"dict"`.
ALIASED = {
    "name": "multi_param_func",
    "parameters": {
        "type": "object",
        "properties": {
            "ratio": {"type": "float"},
            "count": {"type": "int"},
            "label": {"type": "str"},
            "flag": {"type": "bool"},
            "options": {"type": "dict"},
            "items": {"type": "list", "items": {"type": "int"}},
        },
        "required": ["ratio", "count"],
    },
}

CALL = (
    "<tool_call>\n<function=multi_param_func>\n"
    "<parameter=ratio>\n41.9\n</parameter>\n<parameter=count>\n42\n</parameter>\n"
    "<parameter=label>\n42\n</parameter>\n<parameter=flag>\ntrue\n</parameter>\n"
    '<parameter=options>\n{"key": "value"}\n</parameter>\n<parameter=items>\n[1, 2, 3]\n</parameter>\n'
    "</function>\n</tool_call>"
)


def test_a_schema_writing_python_type_names_is_read_as_the_json_schema_types_they_mean() -> None:
    props = Tool.from_dict(ALIASED).parameters["properties"]
    assert {k: v["type"] for k, v in props.items()} == {
        "ratio": "number",
        "count": "integer",
        "label": "string",
        "flag": "boolean",
        "options": "object",
        "items": "array",
    }
    assert props["items"]["items"] == {"type": "integer"}


def test_a_call_to_a_tool_with_aliased_types_is_typed_by_them_and_executes() -> None:
    for protocol in ("qwen3-coder", "auto"):
        (call,) = toolmend.parse(CALL, protocol, [ALIASED]).tool_calls
        assert call.executable
        assert call.arguments == {
            "ratio": 41.9,
            "count": 42,
            "label": "42",
            "flag": True,
            "options": {"key": "value"},
            "items": [1, 2, 3],
        }


def test_the_parse_says_which_type_names_it_read_as_which_types() -> None:
    result = toolmend.parse(CALL, "qwen3-coder", [ALIASED])
    (note,) = [d for d in result.diagnostics if d.code == "tool_schema_type_alias"]
    assert note.metadata["tool"] == "multi_param_func"
    assert "properties/ratio/type: float -> number" in note.metadata["aliases"]
    assert "properties/items/items/type: int -> integer" in note.metadata["aliases"]


def test_a_schema_with_json_schema_types_only_gets_no_alias_diagnostic() -> None:
    plain = {"name": "f", "parameters": {"type": "object", "properties": {"x": {"type": "number"}}}}
    result = toolmend.parse(
        '<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>', "hermes", [plain]
    )
    assert not [d for d in result.diagnostics if d.code == "tool_schema_type_alias"]
    assert Tool.from_dict(plain).type_aliases == ()


def test_type_names_in_any_letter_case_and_in_type_lists_are_read() -> None:
    tool = Tool.from_dict(
        {"name": "j", "parameters": {"properties": {"a": {"type": ["String", "none"]}}}}
    )
    assert tool.parameters["properties"]["a"]["type"] == ["string", "null"]


def test_an_alias_inside_data_keywords_stays_as_written() -> None:
    data = {"type": "object", "properties": {"k": {"type": "object", "default": {"type": "int"}}}}
    tool = Tool.from_dict(
        {
            "name": "d",
            "parameters": {
                **data,
                "properties": {
                    "k": {**data["properties"]["k"], "enum": [{"type": "float"}]},
                    "n": {"type": "float"},
                },
            },
        }
    )
    assert tool.parameters["properties"]["k"]["default"] == {"type": "int"}
    assert tool.parameters["properties"]["k"]["enum"] == [{"type": "float"}]


def test_the_schema_keeps_its_property_order_when_aliases_are_mapped() -> None:
    assert list(Tool.from_dict(ALIASED).parameters["properties"]) == list(
        ALIASED["parameters"]["properties"]
    )


def test_a_type_name_that_is_no_type_nor_alias_is_still_refused_naming_the_field() -> None:
    broken = {
        "name": "odd",
        "parameters": {"properties": {"a": {"type": "float"}, "b": {"type": "other_type"}}},
    }
    with pytest.raises(
        ToolSchemaError, match=r"tool 'odd'.*properties/b/type.*'other_type' is no JSON Schema type"
    ):
        Tool.from_dict(broken)
    with pytest.raises(ToolSchemaError):
        toolmend.parse("hi", "auto", [broken])


# transformers' `get_json_schema` writes `Optional[str]` as OpenAPI does (its chat-parsing test
# `test_callable_tools_are_converted_to_schemas`, huggingface/transformers@0d7e95d, Apache-2.0).
NULLABLE = {
    "name": "set_alarm",
    "parameters": {
        "type": "object",
        "properties": {
            "hour": {"type": "integer"},
            "label": {"type": "string", "nullable": True},
            "tone": {"enum": ["beep", "ring"], "nullable": True},
        },
        "required": ["hour"],
    },
}


@pytest.mark.parametrize(
    ("protocol", "text"),
    [
        (
            "qwen3-coder",
            "<tool_call>\n<function=set_alarm>\n<parameter=hour>\n7\n</parameter>\n"
            "<parameter=label>\nnull\n</parameter>\n</function>\n</tool_call>",
        ),
        (
            "anthropic-xml",
            '<invoke name="set_alarm"><parameter name="hour">7</parameter>'
            '<parameter name="label">null</parameter></invoke>',
        ),
        (
            "hermes",
            '<tool_call>{"name": "set_alarm", "arguments": {"hour": 7, "label": null}}</tool_call>',
        ),
    ],
)
def test_openapi_nullable_lets_a_value_be_null(protocol: str, text: str) -> None:
    (call,) = toolmend.parse(text, protocol, [NULLABLE]).tool_calls
    assert call.executable and call.arguments == {"hour": 7, "label": None}


def test_openapi_nullable_adds_null_to_an_enum_and_a_plain_string_stays_text() -> None:
    text = '<tool_call>{"name": "set_alarm", "arguments": {"hour": 7, "tone": null}}</tool_call>'
    (call,) = toolmend.parse(text, "hermes", [NULLABLE]).tool_calls
    assert call.executable and call.arguments == {"hour": 7, "tone": None}
    plain = {**NULLABLE["parameters"], "properties": {"label": {"type": "string"}}}
    qwen = "<tool_call>\n<function=set_alarm>\n<parameter=label>\nnull\n</parameter>\n</function>\n</tool_call>"
    (call,) = toolmend.parse(
        qwen, "qwen3-coder", [{"name": "set_alarm", "parameters": plain}]
    ).tool_calls
    assert call.arguments == {"label": "null"}


# vLLM's HY V4 test tool (vllm-project/vllm@212dfd8:tests/tool_parsers/test_hy_v4_tool_parser.py,
# `TYPED_TOOL`, Apache-2.0) declares `"uint32"`; its parser, like vLLM's Qwen3-Coder parser, reads
# any `int…`/`uint…` name as an integer.
HY_V4_TYPED = {
    "name": "typed",
    "parameters": {
        "type": "object",
        "properties": {
            "i": {"type": "integer"},
            "alias_int": {"type": "int"},
            "prefix_uint": {"type": "uint32"},
        },
    },
}


def test_a_sized_integer_name_is_an_integer_and_the_tools_are_no_longer_refused() -> None:
    text = "<tool_call>typed<arg_key>prefix_uint</arg_key><arg_value>42</arg_value></tool_call>"
    for protocol in ("glm47", "auto"):
        (call,) = toolmend.parse(text, protocol, [HY_V4_TYPED]).tool_calls
        assert call.executable and call.arguments == {"prefix_uint": 42}


@pytest.mark.parametrize(
    ("name", "target"),
    [("int64", "integer"), ("UInt8", "integer"), ("int32_t", "integer"), ("float32", "number")],
)
def test_numbers_written_with_their_width_read_as_their_type(name: str, target: str) -> None:
    tool = Tool.from_dict({"name": "w", "parameters": {"properties": {"n": {"type": name}}}})
    assert tool.parameters["properties"]["n"]["type"] == target


def test_a_sized_qwen3_coder_parameter_is_typed_by_its_stem() -> None:
    tool = {
        "name": "resize",
        "parameters": {"properties": {"w": {"type": "int64"}, "scale": {"type": "float64"}}},
    }
    text = (
        "<tool_call>\n<function=resize>\n<parameter=w>\n640\n</parameter>\n"
        "<parameter=scale>\n0.5\n</parameter>\n</function>\n</tool_call>"
    )
    (call,) = toolmend.parse(text, "qwen3-coder", [tool]).tool_calls
    assert call.executable and call.arguments == {"w": 640, "scale": 0.5}


@pytest.mark.parametrize("name", ["string8", "bool32", "int7"])
def test_a_width_on_a_name_that_is_no_number_is_still_refused(name: str) -> None:
    with pytest.raises(ToolSchemaError, match=f"'{name}' is no JSON Schema type"):
        Tool.from_dict({"name": "w", "parameters": {"properties": {"n": {"type": name}}}})
