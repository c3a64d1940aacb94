"""An OpenAI-wire envelope written as text, `{"tool_calls": [{…}, …]}`, is the calls it holds.

Models trained on chat-completion transcripts sometimes write an assistant message's
`tool_calls` field itself as their output (its siblings, the whole message and the legacy
`function_call`, at the end of this module). The whole object is consumed as its calls (one or
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
from toolmend.events import Diagnostic, TextDelta, ToolCallEnd

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


# ---- the siblings: a whole assistant message, the legacy function_call
#
# A whole OpenAI assistant message written as text is its calls, its content visible text.
#
# The siblings of the `{"tool_calls": [...]}` envelope above that models
# trained on chat-completion transcripts write: the message itself, `{"role": "assistant",
# "content": null | "…", "tool_calls": [...]}` (also as an SDK dumps it, content first with
# `"refusal": null`, and inside a list), with OpenAI `{"type": "function", "function": {…}}` items
# or Ollama's `{"function": {"name", "arguments": {…}}}` ones, and the legacy
# `{"function_call": {"name": …, "arguments": "<json string>"}}` (alone or in a message). The
# message's content is visible text, before its calls; a message naming an unknown tool stays
# text as written; with `tools=None` it is read only as the whole output; JSON that is no
# assistant message holding calls (a user message, prose about these keys) stays text.

OSLO = {"city": "Oslo"}
OPENAI_ITEM = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": json.dumps(OSLO)},
}
#: Ollama's chat API writes a message's calls with object arguments and no id (the response
#: shape shown in ollama/ollama#11185), which models trained on its transcripts copy.
OLLAMA_ITEM = {"function": {"name": "get_weather", "arguments": OSLO}}
LEGACY = {"name": "get_weather", "arguments": json.dumps(OSLO)}

#: name -> (the message as written, its visible text)
MESSAGES: dict[str, tuple[Any, str]] = {
    "content null": ({"role": "assistant", "content": None, "tool_calls": [OPENAI_ITEM]}, ""),
    "content empty, Ollama items": (
        {"role": "assistant", "content": "", "tool_calls": [OLLAMA_ITEM]},
        "",
    ),
    "content text": (
        {"role": "assistant", "content": "Checking.", "tool_calls": [OPENAI_ITEM]},
        "Checking.",
    ),
    "an SDK's dump": (
        {"content": None, "refusal": None, "role": "assistant", "tool_calls": [OPENAI_ITEM]},
        "",
    ),
    "in a list": ([{"role": "assistant", "content": None, "tool_calls": [OPENAI_ITEM]}], ""),
    "legacy function_call": ({"function_call": LEGACY}, ""),
    "legacy in a message": (
        {"role": "assistant", "content": "On it.", "function_call": LEGACY},
        "On it.",
    ),
}
FORMATS = ["json", "llama3-json", "auto"]


@pytest.mark.parametrize("protocol", FORMATS)
@pytest.mark.parametrize("case", list(MESSAGES))
def test_a_message_in_prose_is_its_calls_and_its_content_is_text_in_place(
    protocol: str, case: str
) -> None:
    message, content = MESSAGES[case]
    visible, calls = _read(protocol, f"Sure. {json.dumps(message)} Done.")
    assert calls == [("get_weather", OSLO)]
    assert visible == f"Sure. {content} Done."


@pytest.mark.parametrize("protocol", FORMATS)
@pytest.mark.parametrize("case", list(MESSAGES))
def test_a_message_as_the_whole_output_is_read_with_and_without_tools(
    protocol: str, case: str
) -> None:
    message, content = MESSAGES[case]
    for tools in (TOOLS, None):
        visible, calls = _read(protocol, json.dumps(message), tools)
        assert calls == [("get_weather", OSLO)], tools
        assert visible == content


@pytest.mark.parametrize("case", list(MESSAGES))
def test_a_message_inside_a_hermes_tool_call_block_is_its_calls(case: str) -> None:
    message, content = MESSAGES[case]
    text = f"<tool_call>\n{json.dumps(message)}\n</tool_call>"
    visible, calls = _read("hermes", text)
    assert calls == [("get_weather", OSLO)]
    assert visible == content
    assert_conserved(text, run_chunks("hermes", list(text), TOOLS))


@pytest.mark.parametrize("protocol", FORMATS)
@pytest.mark.parametrize("case", ["content text", "in a list", "legacy in a message"])
def test_a_message_reads_the_same_however_the_stream_is_split(protocol: str, case: str) -> None:
    message, content = MESSAGES[case]
    text = f"Sure. {json.dumps(message)} Done."
    assert_split_invariant(protocol, text, TOOLS)
    events = run_chunks(protocol, list(text), TOOLS)
    assert_conserved(text, events)
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == f"Sure. {content} Done."
    assert len([e for e in events if isinstance(e, ToolCallEnd)]) == 1


def test_two_messages_in_a_list_keep_each_ones_text_before_its_calls() -> None:
    first = {"role": "assistant", "content": "First.", "tool_calls": [OPENAI_ITEM]}
    second = {"role": "assistant", "content": "Then.", "function_call": LEGACY}
    text = json.dumps([first, second])
    events = run_chunks("json", [text], TOOLS)
    order = [
        e.text if isinstance(e, TextDelta) else e.call.name
        for e in events
        if isinstance(e, TextDelta | ToolCallEnd)
    ]
    assert order == ["First.", "get_weather", "Then.", "get_weather"]
    assert_conserved(text, events)
    assert_split_invariant("json", text, TOOLS)


@pytest.mark.parametrize("protocol", FORMATS)
@pytest.mark.parametrize("case", list(MESSAGES))
def test_a_message_naming_an_unknown_tool_stays_text_as_written(protocol: str, case: str) -> None:
    written = json.dumps(MESSAGES[case][0]).replace("get_weather", "launch_rocket")
    text = f"Example: {written}"
    result = toolmend.parse(text, protocol, TOOLS)
    assert result.tool_calls == []
    assert result.text == text  # the content is not shown twice
    assert_conserved(text, run_chunks(protocol, list(text), TOOLS))


@pytest.mark.parametrize("protocol", FORMATS)
def test_a_message_in_prose_with_no_tools_given_stays_text(protocol: str) -> None:
    text = f"Like this: {json.dumps(MESSAGES['content text'][0])}"
    result = toolmend.parse(text, protocol, None)
    assert result.tool_calls == []
    assert result.text == text


#: JSON that mentions a message's keys and holds no assistant call: text, and no diagnostic.
NOT_CALLS = {
    "a user message": {"role": "user", "content": "What is the weather in Oslo?"},
    "an assistant message without calls": {"role": "assistant", "content": "It is sunny."},
    "a tool result message": {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
    "a user message listing calls": {"role": "user", "content": None, "tool_calls": [OPENAI_ITEM]},
    "a message with a key no message has": {
        "role": "assistant",
        "content": None,
        "tool_calls": [OPENAI_ITEM],
        "temperature": 0.2,
    },
    "content as a list of parts": {"content": [{"type": "text", "text": "hi"}], "role": "user"},
    "an empty function_call": {"function_call": None, "content": "none"},
    "calls in both shapes": {"tool_calls": [OPENAI_ITEM], "function_call": LEGACY},
}


@pytest.mark.parametrize("protocol", FORMATS)
@pytest.mark.parametrize("case", list(NOT_CALLS))
def test_json_that_is_no_assistant_message_with_calls_stays_text(protocol: str, case: str) -> None:
    written = json.dumps(NOT_CALLS[case])
    for text, tools in (
        (f"For example {written} is sent.", TOOLS),
        (written, TOOLS),
        (written, None),
    ):
        events = run_chunks(protocol, list(text), tools)
        assert [e for e in events if isinstance(e, ToolCallEnd)] == []
        assert "".join(e.text for e in events if isinstance(e, TextDelta)) == text
        assert [e.code for e in events if isinstance(e, Diagnostic)] == []


@pytest.mark.parametrize("protocol", FORMATS)
def test_a_message_cut_off_by_the_end_of_the_stream_runs_nothing(protocol: str) -> None:
    written = json.dumps(MESSAGES["content text"][0])
    for cut in range(1, len(written), 5):
        result = toolmend.parse(f"Go. {written[:cut]}", protocol, TOOLS)
        assert not [c for c in result.tool_calls if c.executable], cut


@pytest.mark.parametrize("protocol", ["json", "hermes"])
def test_a_call_after_an_unknown_one_in_a_list_is_still_read(protocol: str) -> None:
    # An unknown tool in the middle of a list is reported; the calls after it are not lost.
    oslo = {"name": "get_weather", "arguments": OSLO}
    unknown = {"name": "launch_rocket", "arguments": {}}
    bergen = {"name": "get_weather", "arguments": {"city": "Bergen"}}
    for body in ([oslo, unknown, bergen], {"tool_calls": [oslo, unknown, bergen]}):
        text = json.dumps(body)
        text = f"<tool_call>{text}</tool_call>" if protocol == "hermes" else text
        result = toolmend.parse(text, protocol, TOOLS)
        assert [c.arguments for c in result.tool_calls] == [OSLO, {"city": "Bergen"}]
        assert "unknown_tool" in [d.code for d in result.diagnostics]
