"""One JSON decoding path for arguments: a format that lets a call carry its arguments as a JSON
object (beside its own syntax) answers exactly as the JSON formats do."""

from __future__ import annotations

import json

import pytest
from tests.tool_fixtures import WEATHER

import toolmend

GLUED = '{"city": "Oslo"}{"city": "Rome"}'
#: Formats whose call body may be a JSON object instead of their own key/value markup.
JSON_BODIES = {
    "qwen3-coder": "<tool_call>\n<function=get_weather>\n{body}\n</function>\n</tool_call>",
    "glm45": "<tool_call>get_weather\n{body}</tool_call>",
}


@pytest.mark.parametrize("protocol", sorted(JSON_BODIES))
def test_a_json_body_is_decoded_and_recorded_as_a_repair(protocol: str) -> None:
    text = JSON_BODIES[protocol].format(body='{"city": "Oslo"}')
    (call,) = toolmend.parse(text, protocol, WEATHER).tool_calls
    assert (call.arguments, call.executable) == ({"city": "Oslo"}, True)
    assert "json-arguments" in call.repairs


@pytest.mark.parametrize("protocol", sorted(JSON_BODIES))
def test_glued_json_objects_are_never_merged_in_any_format(protocol: str) -> None:
    result = toolmend.parse(JSON_BODIES[protocol].format(body=GLUED), protocol, WEATHER)
    # Hermes reads arguments written as a JSON string through the same path.
    as_string = json.dumps({"name": "get_weather", "arguments": GLUED})
    hermes = toolmend.parse(f"<tool_call>{as_string}</tool_call>", "hermes", WEATHER)
    (call,) = result.tool_calls
    assert not call.executable
    assert call.error == hermes.tool_calls[0].error
    assert "concatenated_json" in [d.code for d in result.diagnostics]
