"""Malformed or odd requests, on each endpoint over real HTTP: a 400 that names what is wrong, or
a 200 when the odd part can be passed over; never a 500 of toolmend's own.

The property test sends the three endpoints' usual bodies (an agent's history with a failed
call, tools, a leaked answer upstream) with one to four of their values replaced by values of
the wrong shape; the proxy must answer every one with a status below 500. It found, before it
was written down here: a `tools` that is not a list on `/v1/messages` and `/v1/responses`, a
Responses tool whose `type` is an object, an assistant's `tool_calls` that is not a list in
text mode, a `previous_response_id` holding a lone surrogate, a text-mode `tool_choice` naming
no declared tool (`tests/server/test_modes.py`), and lone surrogates (a tool's output decoded
with `surrogateescape`, sent as JSON's `"\\udc80"`) in tool names and tool results, which the
guard and the name mapping hashed or measured as UTF-8.
"""

from __future__ import annotations

import copy
import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from frontends.servers import Servers, running

SCHEMA = {
    "type": "object",
    "properties": {"file_path": {"type": "string"}, "content": {"type": "string"}},
    "required": ["file_path"],
}
CHAT = {
    "model": "plain",
    "stream": True,
    "tools": [{"type": "function", "function": {"name": "write_file", "parameters": SCHEMA}}],
    "messages": [
        {"role": "user", "content": "write a.py"},
        {
            "role": "assistant",
            "content": "ok",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "write_file", "arguments": '{"file_path": "a.py"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "Error: File not found: a.py"},
        {"role": "user", "content": [{"type": "text", "text": "again"}]},
    ],
}
MESSAGES = {
    "model": "plain",
    "max_tokens": 64,
    "stream": True,
    "system": "Be terse.",
    "tools": [{"name": "write_file", "input_schema": SCHEMA}],
    "messages": [
        {"role": "user", "content": "write a.py"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "ok"},
                {"type": "tool_use", "id": "toolu_1", "name": "write_file", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": True, "content": "x"},
                {"type": "text", "text": "again"},
            ],
        },
    ],
}
RESPONSES = {
    "model": "plain",
    "stream": True,
    "tools": [{"type": "function", "name": "write_file", "parameters": SCHEMA}],
    "input": [
        {"role": "user", "content": "write a.py"},
        {"type": "function_call", "call_id": "c1", "name": "write_file", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "error: not found"},
    ],
}
BODIES = {"/v1/chat/completions": CHAT, "/v1/messages": MESSAGES, "/v1/responses": RESPONSES}
#: Values of the wrong shape, and a lone surrogate.
ODD = [None, "", 0, -1, 1e308, True, [], {}, "x", [None], [{}], {"type": None}, "\udc80", [1, "a"]]


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    with running(Path(tmp_path_factory.mktemp("malformed"))) as running_servers:
        yield running_servers


def post(servers: Servers, path: str, body: Any) -> tuple[int, bytes]:
    """The status and body of one POST; the body is JSON as a client writes it (ASCII escapes,
    so a lone surrogate travels as `\\udc80`)."""
    request = urllib.request.Request(
        servers.url + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "x-api-key": "sk-test"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def places(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in a JSON value, as the keys and indexes that lead to it."""
    if path:
        yield path
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, inner in items:
        yield from places(inner, (*path, key))


def replaced(body: dict[str, Any], changes: list[tuple[int, int]]) -> dict[str, Any]:
    """`body` with, for each change, the place it picks (of those left) set to an odd value."""
    out = copy.deepcopy(body)
    for pick, odd in changes:
        where = list(places(out))
        path = where[pick % len(where)]
        parent = out
        for key in path[:-1]:
            parent = parent[key]
        parent[path[-1]] = copy.deepcopy(ODD[odd % len(ODD)])
    return out


@pytest.mark.parametrize(
    ("path", "body", "named"),
    [
        ("/v1/messages", {**MESSAGES, "tools": "write_file"}, "tools"),
        ("/v1/responses", {**RESPONSES, "tools": 3}, "tools"),
        (
            "/v1/chat/completions",
            {**CHAT, "messages": [CHAT["messages"][0], {"role": "assistant", "tool_calls": 5}]},
            "tool_calls",
        ),
    ],
)
def test_a_field_of_the_wrong_shape_is_a_400_that_names_it(
    servers: Servers, path: str, body: dict[str, Any], named: str
) -> None:
    status, raw = post(servers, path, body)
    assert status == 400
    assert named in json.loads(raw)["error"]["message"]


def test_a_hosted_tool_whose_type_is_an_object_is_left_out_and_the_request_served(
    servers: Servers,
) -> None:
    tools = [*RESPONSES["tools"], {"type": {"kind": "web_search"}}]  # type: ignore[list-item]
    status, raw = post(servers, "/v1/responses", {**RESPONSES, "stream": False, "tools": tools})
    assert status == 200
    assert json.loads(raw)["status"] == "completed"


@pytest.mark.parametrize("previous", [7, ["resp_1"], "resp_\udc80"])
def test_a_previous_response_id_that_is_no_id_given_is_a_400(
    servers: Servers, previous: Any
) -> None:
    status, raw = post(servers, "/v1/responses", {**RESPONSES, "previous_response_id": previous})
    assert status == 400
    assert "previous" in json.loads(raw)["error"]["message"]


@pytest.mark.parametrize("path", list(BODIES))
def test_lone_surrogates_in_tool_names_and_results_are_served(servers: Servers, path: str) -> None:
    body = json.loads(json.dumps(BODIES[path]))  # a copy
    if path == "/v1/chat/completions":
        body["messages"][2]["content"] = "Error: cannot read \udc80\udcff: File not found"
        body["tools"][0]["function"]["name"] = "write\udc80file"
    elif path == "/v1/messages":
        body["messages"][2]["content"][0]["content"] = "Error: cannot read \udc80: not found"
        body["tools"][0]["name"] = "write\udc80file"
    else:
        body["input"][2]["output"] = "error: \udc80 not found"
        body["tools"][0]["name"] = "write\udc80file"
    status, _ = post(servers, path, body)
    assert status == 200


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.sampled_from(list(BODIES)),
    st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 100)), min_size=1, max_size=4),
)
def test_a_request_with_values_of_the_wrong_shape_never_gets_a_500(
    servers: Servers, path: str, changes: list[tuple[int, int]]
) -> None:
    status, raw = post(servers, path, replaced(BODIES[path], changes))
    assert status < 500, raw[:300]
