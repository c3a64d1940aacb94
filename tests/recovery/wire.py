"""Helpers for the recovery tests: upstream chunk streams built from text, and their folding.

A stream is what an OpenAI-compatible server sends: a role chunk, `delta.content` pieces, an
optional `delta.tool_calls` run, a finish chunk and a usage chunk. `fold` reads the recovered
chunks back the way an agent accumulates them (text, reasoning, calls by index).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

import toolmend

READ_FILE = {
    "type": "function",
    "function": {
        "name": "read_file",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "mode": {"type": "string"}},
            "required": ["path"],
            "additionalProperties": False,
        },
    },
}
WRITE_FILE = {
    "type": "function",
    "function": {
        "name": "write_file",
        "parameters": {
            "type": "object",
            "properties": {"file_path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["file_path", "content"],
            "additionalProperties": False,
        },
    },
}
TODO = {
    "type": "function",
    "function": {
        "name": "todo",
        "parameters": {
            "type": "object",
            "properties": {"item": {"type": "string"}},
            "required": ["item"],
        },
    },
}
GET_WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city"],
        },
    },
}
TOOLS = [READ_FILE, WRITE_FILE, TODO, GET_WEATHER]

ENVELOPE = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m"}


def chunk(
    delta: dict[str, Any], finish: str | None = None, model: str = "m", **choice_extra: Any
) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "finish_reason": finish, **choice_extra}
    return {**ENVELOPE, "model": model, "choices": [choice]}


def content_stream(
    pieces: Iterable[str],
    *,
    model: str = "m",
    finish: str | None = "stop",
    native: Sequence[dict[str, Any]] = (),
    usage: bool = True,
) -> list[dict[str, Any]]:
    """Chunks of a reply whose visible text arrives as `pieces`, then native call fragments."""
    out = [chunk({"role": "assistant", "content": ""}, model=model)]
    out += [chunk({"content": p}, model=model) for p in pieces]
    out += [chunk({"tool_calls": [entry]}, model=model) for entry in native]
    if finish is not None:
        out.append(chunk({}, finish, model=model))
    if usage:
        out.append(
            {
                **ENVELOPE,
                "model": model,
                "choices": [],
                "usage": {"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8},
            }
        )
    return out


def split_every(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def splits_at_every_boundary(text: str) -> Iterable[list[str]]:
    """The text cut in two at every position, and once into single characters."""
    for cut in range(1, len(text)):
        yield [text[:cut], text[cut:]]
    yield list(text)


def native_fragments(
    call_id: str, name: str, arguments: str, *, index: int = 0, size: int = 7
) -> list[dict[str, Any]]:
    """A native call streamed the OpenAI way: id and name first, then argument pieces."""
    head = {
        "index": index,
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": ""},
    }
    rest = [
        {"index": index, "function": {"arguments": a}} for a in split_every(arguments, size) if a
    ]
    return [head, *rest]


def fold(chunks: Iterable[dict[str, Any]], choice_index: int = 0) -> dict[str, Any]:
    """What an agent accumulates from the recovered chunks of one choice."""
    text: list[str] = []
    reasoning: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    rejected: list[dict[str, Any]] = []
    finish: list[Any] = []
    diagnostics: list[Any] = []
    for c in chunks:
        diagnostics += c.get("toolmend_diagnostics", [])
        for choice in c.get("choices", []):
            if choice.get("index") != choice_index:
                continue
            delta = choice.get("delta") or {}
            text.append(delta.get("content") or "")
            reasoning.append(delta.get("reasoning_content") or "")
            for entry in delta.get("tool_calls") or []:
                slot = calls.setdefault(entry["index"], {"id": None, "name": "", "arguments": ""})
                slot["id"] = entry.get("id") or slot["id"]
                slot["name"] += entry.get("function", {}).get("name") or ""
                slot["arguments"] += entry.get("function", {}).get("arguments") or ""
            rejected += delta.get("toolmend_rejected_calls") or []
            if choice.get("finish_reason") is not None:
                finish.append(choice["finish_reason"])
    ordered = [calls[i] for i in sorted(calls)]
    assert sorted(calls) == list(range(len(calls))), "wire indices must be contiguous from 0"
    return {
        "text": "".join(text),
        "reasoning": "".join(reasoning),
        "calls": [(c["name"], json.loads(c["arguments"])) for c in ordered],
        "ids": [c["id"] for c in ordered],
        "rejected": rejected,
        "finish": finish,
        "diagnostics": diagnostics,
    }


def recover(
    pieces: Iterable[str], tools: Any = TOOLS, model: str = "m", **kw: Any
) -> dict[str, Any]:
    stream_kw = {k: kw.pop(k) for k in ("finish", "native", "usage") if k in kw}
    chunks = content_stream(pieces, model=model, **stream_kw)
    return fold(toolmend.recover_stream(chunks, tools=tools, model=model, id_prefix="rc_", **kw))
