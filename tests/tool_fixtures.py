"""Tool definitions shared by the protocol tests: a weather tool, a file writer, a multiplier."""

from __future__ import annotations

from typing import Any

#: OpenAI-style definition with a typed, closed schema (integers, arrays with minItems).
WEATHER: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "days": {"type": "integer"},
                    "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                },
                "required": ["city"],
                "additionalProperties": False,
            },
        },
    }
]
#: Bare definition of a tool whose long string argument streams.
WRITE: list[dict[str, Any]] = [
    {
        "name": "write_file",
        "parameters": {
            "type": "object",
            "properties": {"file_path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["file_path", "content"],
        },
    }
]

#: mlx-lm's test tool (its key/value-format cases multiply two numbers).
MULTIPLY = [
    {
        "name": "multiply",
        "parameters": {
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
        },
    }
]
