"""A request's tools are built once per worker for the same list, and a hit is a fresh build."""

from __future__ import annotations

import copy

import pytest

from toolmend.model import Tool, ToolSchemaError, coerce_tools
from toolmend.server import toolset

from .servers import TOOLS


def test_the_same_tool_list_twice_gives_the_tools_a_fresh_build_gives() -> None:
    first = toolset.request_tools(TOOLS)
    again = toolset.request_tools(copy.deepcopy(TOOLS))
    assert again == first == coerce_tools(TOOLS)
    assert all(isinstance(tool, Tool) for tool in again)
    assert again is not first  # each request gets its own list


def test_a_changed_schema_is_not_served_from_the_kept_tools() -> None:
    toolset.request_tools(TOOLS)
    changed = copy.deepcopy(TOOLS)
    changed[0]["function"]["parameters"]["required"] = []
    assert toolset.request_tools(changed) == coerce_tools(changed)
    assert toolset.request_tools(changed) != toolset.request_tools(TOOLS)


def test_a_tool_list_that_fails_to_build_fails_every_time() -> None:
    bad = [{"type": "function", "function": {"name": "x", "parameters": {"type": 7}}}]
    for _ in range(2):
        with pytest.raises(ToolSchemaError):
            toolset.request_tools(bad)


def test_a_tool_list_orjson_cannot_write_is_built_and_not_kept() -> None:
    huge = [{"name": "big", "parameters": {"type": "object", "maximum": 2**70}}]
    assert toolset.request_tools(huge) == coerce_tools(huge)


def test_the_kept_lists_are_bounded() -> None:
    for i in range(toolset.MAX_ENTRIES + 10):
        toolset.request_tools([{"name": f"tool_{i}"}])
    assert len(toolset._kept) <= toolset.MAX_ENTRIES
