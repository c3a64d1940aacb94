"""Input-token counts for `message_start`, `count_tokens` and Responses usage before upstream usage.

Claude Code decides when to compact from `message_start.usage.input_tokens`, so the number must
be honest before the upstream has said anything. With a tokenizer configured for the model
(any object with `encode(text)` returning a sequence, such as a Hugging Face `tokenizers`
`Tokenizer` or a `tiktoken` encoding) the text is counted with it; otherwise the documented
estimate is used: one token per four ASCII characters, one per other character (CJK text runs
near one token per character), `MESSAGE_OVERHEAD` per message and `IMAGE_TOKENS` per image.
The count covers the messages, the tools' JSON and nothing else. This module never calls an
upstream.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

#: Role markers and separators a chat template adds around each message.
MESSAGE_OVERHEAD = 4
#: Anthropic's own figure for an image at its largest size (about 1.15 megapixels).
IMAGE_TOKENS = 1600
ASCII_CHARS_PER_TOKEN = 4


class Tokenizer(Protocol):
    def encode(self, text: str) -> Sequence[Any] | Any: ...


def estimate_text_tokens(text: str) -> int:
    """The documented estimate for one text: ASCII characters / 4, other characters 1 each."""
    ascii_chars = len(text.encode("ascii", "ignore"))
    return math.ceil(ascii_chars / ASCII_CHARS_PER_TOKEN) + (len(text) - ascii_chars)


def _count(text: str, tokenizer: Tokenizer | None) -> int:
    if tokenizer is None:
        return estimate_text_tokens(text)
    encoded = tokenizer.encode(text)
    ids = getattr(encoded, "ids", encoded)  # `tokenizers` returns an Encoding
    return len(ids)


def _content_tokens(content: object, tokenizer: Tokenizer | None) -> int:
    if isinstance(content, str):
        return _count(content, tokenizer)
    if not isinstance(content, list):
        return 0
    total = 0
    for part in content:
        if not isinstance(part, Mapping):
            continue
        if part.get("type") == "image_url":
            total += IMAGE_TOKENS
        elif isinstance(part.get("text"), str):
            total += _count(part["text"], tokenizer)
    return total


def count_chat_tokens(request: Mapping[str, Any], tokenizer: Tokenizer | None = None) -> int:
    """Input tokens of a chat/completions request: its messages, tool calls and tools."""
    total = 0
    for message in request.get("messages") or ():
        if not isinstance(message, Mapping):
            continue
        total += MESSAGE_OVERHEAD + _content_tokens(message.get("content"), tokenizer)
        if isinstance(message.get("reasoning_content"), str):
            total += _count(message["reasoning_content"], tokenizer)
        calls = message.get("tool_calls")
        if calls:
            total += _count(json.dumps(calls, ensure_ascii=False), tokenizer)
    tools = request.get("tools")
    if tools:
        total += _count(json.dumps(tools, ensure_ascii=False), tokenizer)
    return total
