"""An OpenAI-wire envelope written as text, `{"tool_calls": [{…}, …]}`, is the calls it holds.

Models trained on chat-completion transcripts sometimes write an assistant message's
`tool_calls` field itself as their output (the whole message and the legacy `function_call`:
`test_openai_messages.py`). The whole object is consumed as its calls (one or
several, arguments as a JSON string or an object), never read as the inner calls with
`{"tool_calls": }` left behind as visible text. Read by every format of call objects: bare JSON,
`auto`, Llama JSON, and inside Hermes' `<tool_call>` (leak recovery reads it through `auto`:
`tests/recovery/test_text_scanning.py`).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import toolmend
from support import assert_conserved, assert_split_invariant, run_chunks
from tool_fixtures import WEATHER
from toolmend.events import TextDelta, ToolCallEnd

TOOLS = WEATHER


def _call(call_id: str, city: str, *, as_string: bool) -> dict[str, Any]:
    arguments: Any = {"city": city}
    return {
        "id": call_id,
        "type": "function",
        "function": {
            "name": "get_weather",
            "arguments": json.dumps(arguments) if as_string else arguments,
        },
    }


#: The envelope with its arguments as the wire writes them (a JSON string), as an object, and
#: with several calls in its list.
STRING_ARGUMENTS = json.dumps({"tool_calls": [_call("call_1", "Oslo", as_string=True)]})
OBJECT_ARGUMENTS = json.dumps({"tool_calls": [_call("call_1", "Oslo", as_string=False)]})
SEVERAL = json.dumps(
    {
        "tool_calls": [
            _call("call_1", "Oslo", as_string=True),
            _call("call_2", "Bergen", as_string=False),
        ]
    }
)
ENVELOPES = {
    "arguments as a JSON string": (STRING_ARGUMENTS, ["Oslo"]),
    "arguments as an object": (OBJECT_ARGUMENTS, ["Oslo"]),
    "several calls": (SEVERAL, ["Oslo", "Bergen"]),
}
BARE_FORMATS = ["json", "llama3-json", "auto"]


def _read(protocol: str, text: str, tools: Any = TOOLS) -> tuple[str, list[tuple[str, Any]]]:
    result = toolmend.parse(text, protocol, tools)
    assert all(c.executable for c in result.tool_calls), result.tool_calls
    return result.text, [(c.name, c.arguments) for c in result.tool_calls]


@pytest.mark.parametrize("protocol", BARE_FORMATS)
@pytest.mark.parametrize("case", list(ENVELOPES))
def test_an_envelope_as_the_whole_output_is_its_calls_and_leaves_no_text(
    protocol: str, case: str
) -> None:
    text, cities = ENVELOPES[case]
    for tools in (TOOLS, None):  # with no tools, a whole output is read too
        visible, calls = _read(protocol, text, tools)
        assert visible == ""
        assert calls == [("get_weather", {"city": city}) for city in cities]


@pytest.mark.parametrize("protocol", BARE_FORMATS)
def test_an_envelope_in_prose_is_consumed_whole_and_the_prose_stays(protocol: str) -> None:
    visible, calls = _read(protocol, f"Checking both.\n{SEVERAL}\nOne moment.")
    assert visible == "Checking both.\n\nOne moment."
    assert calls == [("get_weather", {"city": "Oslo"}), ("get_weather", {"city": "Bergen"})]


@pytest.mark.parametrize("closing", ["", "}"], ids=["its final brace missing", "whole"])
def test_an_envelope_inside_a_hermes_tool_call_block_is_its_calls(closing: str) -> None:
    # A lenient format repairs the brace a model forgot before the block's closer.
    text = f"<tool_call>\n{SEVERAL[:-1]}{closing}\n</tool_call>"
    visible, calls = _read("hermes", text)
    assert visible == ""
    assert calls == [("get_weather", {"city": "Oslo"}), ("get_weather", {"city": "Bergen"})]
    assert_conserved(text, run_chunks("hermes", list(text), TOOLS))
    assert_split_invariant("hermes", text, TOOLS)


def test_an_envelope_with_the_messages_role_and_empty_content_is_still_its_calls() -> None:
    message = {**json.loads(STRING_ARGUMENTS), "role": "assistant", "content": None}
    visible, calls = _read("json", json.dumps(message))
    assert visible == ""
    assert calls == [("get_weather", {"city": "Oslo"})]


def test_an_envelope_whose_message_has_text_keeps_it_as_visible_text_before_its_calls() -> None:
    message = {"tool_calls": json.loads(STRING_ARGUMENTS)["tool_calls"], "content": "Hi"}
    visible, calls = _read("json", f"Note: {json.dumps(message)}")
    assert calls == [("get_weather", {"city": "Oslo"})]
    assert visible == "Note: Hi"


def test_an_envelope_naming_an_unknown_tool_stays_text() -> None:
    text = SEVERAL.replace("get_weather", "launch_rocket")
    visible, calls = _read("auto", f"Example: {text}")
    assert calls == []
    assert visible == f"Example: {text}"


@pytest.mark.parametrize("protocol", BARE_FORMATS)
@pytest.mark.parametrize("case", list(ENVELOPES))
def test_an_envelope_reads_the_same_however_the_stream_is_split(protocol: str, case: str) -> None:
    text = f"Sure. {ENVELOPES[case][0]} Done."
    assert_split_invariant(protocol, text, TOOLS)
    events = run_chunks(protocol, list(text), TOOLS)
    assert_conserved(text, events)
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Sure.  Done."
    assert len([e for e in events if isinstance(e, ToolCallEnd)]) == len(ENVELOPES[case][1])


@pytest.mark.parametrize("protocol", BARE_FORMATS)
def test_an_envelope_cut_off_by_the_end_of_the_stream_runs_nothing(protocol: str) -> None:
    for cut in range(1, len(SEVERAL), 7):
        result = toolmend.parse(f"Go. {SEVERAL[:cut]}", protocol, TOOLS)
        assert not [c for c in result.tool_calls if c.executable], cut
