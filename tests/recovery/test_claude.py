"""Deliver 2: Claude's leaked invokes (seed 003, 2026-07-20 and 2026-08-09 / 08-18 entries).

Markup is built from pieces (`LT`, `NS`) so that the fixtures read as the model wrote them
while staying plain Python strings.
"""

from __future__ import annotations

import pytest

from .wire import recover, split_every, splits_at_every_boundary

LT = "<"
NS = "antml" + ":"
TRAILER = LT + "/function_results>"
CLAUDE = "claude-opus-5"


def invoke(ns: str = "", name: str = "read_file", path: str = "a.py") -> str:
    return (
        f'{LT}{ns}invoke name="{name}">{LT}{ns}parameter name="path">{path}'
        f"{LT}/{ns}parameter>{LT}/{ns}invoke>"
    )


#: The observed transcript shape: the opening `<` of an exact `antml:` invoke is lost.
MISSING_ANGLE = invoke(NS)[1:]


@pytest.mark.parametrize("ns", ["", NS], ids=["bare", "antml-prefixed"])
def test_bare_and_prefixed_invokes_become_calls(ns):
    got = recover(split_every(f"Reading.\n{invoke(ns)}\nok", 4), model=CLAUDE)
    assert got["calls"] == [("read_file", {"path": "a.py"})]
    assert got["text"] == "Reading.\n\nok"


def test_invokes_inside_function_calls_are_read():
    text = f"{LT}function_calls>\n{invoke(NS)}\n{invoke(NS, path='b.py')}\n{LT}/function_calls>"
    got = recover(split_every(text, 7), model=CLAUDE)
    assert [c[1]["path"] for c in got["calls"]] == ["a.py", "b.py"]


@pytest.mark.parametrize("pieces", list(splits_at_every_boundary("x\n" + MISSING_ANGLE)))
def test_the_missing_angle_opening_is_recovered_split_at_every_boundary(pieces):
    got = recover(pieces, model=CLAUDE)
    assert got["calls"] == [("read_file", {"path": "a.py"})]
    assert got["text"] == "x\n"


def test_the_missing_angle_opening_counts_only_at_a_boundary():
    got = recover(["word" + MISSING_ANGLE], model=CLAUDE)
    assert got["calls"] == [] and got["text"] == "word" + MISSING_ANGLE


def test_the_missing_angle_opening_is_exact_case():
    text = "x " + MISSING_ANGLE.replace("antml", "ANTML", 1)
    got = recover([text], model=CLAUDE)
    assert got["calls"] == [] and got["text"] == text


def test_a_stray_function_results_trailer_after_a_missing_angle_call_is_consumed():
    text = f"x\n{MISSING_ANGLE}\n{TRAILER}\nafter"
    for size in (1, 3, len(text)):
        got = recover(split_every(text, size), model=CLAUDE)
        assert got["calls"] == [("read_file", {"path": "a.py"})]
        assert got["text"] == "x\n\nafter"


def test_the_trailer_is_consumed_after_at_most_127_whitespace_characters():
    got = recover([f"x\n{MISSING_ANGLE}{' ' * 127}{TRAILER}after"], model=CLAUDE)
    assert got["text"] == "x\nafter"


def test_a_longer_whitespace_run_before_the_trailer_is_text():
    got = recover([f"x\n{MISSING_ANGLE}{' ' * 128}{TRAILER}after"], model=CLAUDE)
    assert got["calls"] == [("read_file", {"path": "a.py"})]
    assert got["text"] == f"x\n{' ' * 128}{TRAILER}after"


@pytest.mark.parametrize(
    "text",
    [f"done {TRAILER} here", f"{invoke()}{TRAILER}", f"x\n{MISSING_ANGLE}{LT}/function_result>"],
    ids=["standalone", "after-a-bare-invoke", "mismatched"],
)
def test_a_standalone_or_mismatched_trailer_stays_text(text):
    got = recover([text], model=CLAUDE)
    assert TRAILER in got["text"] or LT + "/function_result>" in got["text"]


@pytest.mark.parametrize("written", ["Todo", "mcp_49f0-Todo"])
def test_a_leaked_invoke_with_a_wire_alias_name_resolves_to_the_declared_tool(written):
    # Seed 003, 2026-08-18: ccapi-clb/claude-opus-5 leaked an invoke named `mcp_49f0-Todo`,
    # ended with stop_reason tool_use and zero tool calls.
    text = f'{LT}{NS}invoke name="{written}">{LT}{NS}parameter name="item">ship it{LT}/{NS}parameter>{LT}/{NS}invoke>'
    got = recover(split_every(text, 5), model="ccapi-clb/claude-opus-5", finish="tool_calls")
    assert got["calls"] == [("todo", {"item": "ship it"})]
    assert got["finish"] == ["tool_calls"]


def test_claude_slop_is_repaired_through_the_schema_gate():
    # Invented key and an alias (`file_path` for `path`): repaired, then validated.
    text = (
        f'{LT}invoke name="read_file">{LT}parameter name="file_path">a.py{LT}/parameter>'
        f'{LT}parameter name="requireUnique">true{LT}/parameter>{LT}/invoke>'
    )
    diags: list[dict] = []
    got = recover([text], model=CLAUDE, on_diagnostic=diags.append)
    assert got["calls"] == [("read_file", {"path": "a.py"})]
    assert "leaked_call_recovered" in [d["code"] for d in diags]
    repaired = next(d for d in diags if d["code"] == "arguments_repaired")
    assert repaired["detail"]["repairs"] and repaired["tool"] == "read_file"


@pytest.mark.parametrize(
    "model",
    [
        "claude-3-5-sonnet-20241022",
        "anthropic/claude-sonnet-4",
        "us.anthropic.claude-3-7-sonnet-20250219-v1:0",
    ],
)
def test_claude_family_ids_default_to_antml_then_tool_name_tags(model):
    from toolmend.recovery import family_protocols

    assert family_protocols(model) == ("antml", "morph-xml")


def test_a_name_that_merely_contains_claude_is_not_the_family():
    from toolmend.recovery import family_protocols

    assert family_protocols("claudette-7b") == ("auto",)
