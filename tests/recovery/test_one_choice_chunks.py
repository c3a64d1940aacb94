"""A chunk of one choice is recovered exactly as the same choice beside another one.

`RecoveredStream.send_on` takes the common chunk (one choice, one piece out) by a shorter way
than the general one over any number of choices. The reference is the general way, reached
without looking inside: the same stream with a second, silent choice beside the first in every
chunk, whose recovered chunks, that choice dropped, must be byte for byte (JSON) the one-choice
stream's. The streams are a plain answer, a leaked Hermes call, native call fragments and text
before native calls, each cut into small pieces.
"""

from __future__ import annotations

import copy
from typing import Any

import orjson
import pytest

import toolmend

from .wire import TOOLS, content_stream, native_fragments, split_every

HERMES = '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.py"}}\n</tool_call>'
STREAMS = {
    "plain text": content_stream(split_every("The answer is plain text, nothing else.", 5)),
    "hermes leak": content_stream(split_every(f"Reading it.\n{HERMES}", 6), finish="stop"),
    "native fragments": content_stream(
        [],
        native=native_fragments(
            "call_1", "write_file", '{"file_path": "n.md", "content": "x y z"}'
        ),
    ),
    "text then native": content_stream(
        split_every("First the file.", 4),
        native=native_fragments("call_1", "read_file", '{"path": "a.py"}', size=3),
        finish="tool_calls",
    ),
}


def with_silent_choice(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each chunk with choices gets a second one (index 1) that says nothing."""
    out = []
    for chunk in copy.deepcopy(chunks):
        if chunk.get("choices"):
            chunk["choices"].append({"index": 1, "delta": {}, "finish_reason": None})
        out.append(chunk)
    return out


def without_choice_one(chunks: list[dict[str, Any]]) -> list[bytes]:
    out = []
    for chunk in chunks:
        choices = [c for c in chunk.get("choices", []) if c.get("index") != 1]
        if chunk.get("choices") and not choices:
            continue  # a chunk only the silent choice had
        out.append(orjson.dumps({**chunk, "choices": choices} if "choices" in chunk else chunk))
    return out


@pytest.mark.parametrize("name", list(STREAMS))
def test_a_one_choice_chunk_is_recovered_as_the_general_way_recovers_it(name: str) -> None:
    chunks = STREAMS[name]
    alone = toolmend.recover_stream(copy.deepcopy(chunks), tools=TOOLS, model="m", id_prefix="rc_")
    beside = toolmend.recover_stream(
        with_silent_choice(chunks), tools=TOOLS, model="m", id_prefix="rc_"
    )
    assert [orjson.dumps(c) for c in alone] == without_choice_one(list(beside))
