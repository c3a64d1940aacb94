"""Tool-name resolution: exact, then case-insensitive, then alias key; collisions resolve to none."""

from __future__ import annotations

import pytest

from toolmend.model import Tool
from toolmend.names import ToolResolver, alias_key


def resolver(*names: str) -> ToolResolver:
    return ToolResolver([Tool(name=n) for n in names])


def test_an_exact_name_resolves_to_its_tool() -> None:
    assert resolver("todo", "Todo").resolve("Todo").name == "Todo"  # type: ignore[union-attr]


def test_a_miscased_name_resolves_case_insensitively() -> None:
    assert resolver("todo").resolve("TODO").name == "todo"  # type: ignore[union-attr]


@pytest.mark.parametrize("wire", ["mcp_49f0-Todo", "Todo", "mcp__tasks__todo", "TO-DO", "to_do"])
def test_wire_aliases_of_gateways_resolve_to_the_declared_tool(wire: str) -> None:
    assert resolver("todo", "read_file").resolve(wire).name == "todo"  # type: ignore[union-attr]


def test_two_tools_colliding_on_an_alias_key_resolve_to_neither() -> None:
    r = resolver("read_file", "ReadFile")
    assert r.resolve("read-file") is None
    assert r.is_ambiguous("read-file")


def test_two_tools_colliding_case_insensitively_resolve_to_neither() -> None:
    r = resolver("Search", "search")
    assert r.resolve("SEARCH") is None and r.is_ambiguous("SEARCH")
    assert r.resolve("search").name == "search"  # type: ignore[union-attr]


def test_an_unknown_name_resolves_to_none_and_is_not_ambiguous() -> None:
    r = resolver("todo")
    assert r.resolve("launch_rockets") is None
    assert not r.is_ambiguous("launch_rockets")


def test_a_different_word_is_never_guessed() -> None:
    assert resolver("read").resolve("read_file") is None


def test_without_tools_every_non_blank_name_is_taken_as_written() -> None:
    r = ToolResolver(None)
    assert r.resolve("Anything-Goes").name == "Anything-Goes"  # type: ignore[union-attr]
    assert r.resolve("   ") is None


def test_the_alias_key_strips_mcp_prefixes_and_separators() -> None:
    assert alias_key("mcp__github__create_issue") == "createissue"
    assert alias_key("mcp_a1b2c3-Create-Issue") == "createissue"
    assert alias_key("create.issue") == "createissue"
