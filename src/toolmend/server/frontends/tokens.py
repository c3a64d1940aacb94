"""Input-token counts for `message_start`, `count_tokens` and Responses usage before upstream usage.

Claude Code decides when to compact from `message_start.usage.input_tokens`, so the number must
be honest before the upstream has said anything. With a tokenizer configured for the model
(any object with `encode(text)` returning a sequence, such as a Hugging Face `tokenizers`
`Tokenizer` or a `tiktoken` encoding) the text is counted with it; otherwise the documented
estimate is used: one token per four ASCII characters, one per other character (CJK text runs
near one token per character), `MESSAGE_OVERHEAD` per message and `IMAGE_TOKENS` per image.
The count covers the messages, the tools' compact JSON and nothing else. `TokenizerTable` maps
model globs to Hugging Face `tokenizer.json` files (the configuration's `[frontends]
tokenizers`), loaded with the `tokenizers` package on first use. This module never calls an
upstream.
"""

from __future__ import annotations

import fnmatch
import math
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from toolmend.server import wirejson

#: Role markers and separators a chat template adds around each message.
MESSAGE_OVERHEAD = 4
#: Anthropic's own figure for an image at its largest size (about 1.15 megapixels).
IMAGE_TOKENS = 1600
ASCII_CHARS_PER_TOKEN = 4


class TokenizerError(RuntimeError):
    """A configured tokenizer cannot be loaded; the message names the file and the reason."""


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
            total += _count(_json_text(calls), tokenizer)
    tools = request.get("tools")
    if tools:
        total += _count(_json_text(tools), tokenizer)
    return total


def _json_text(value: object) -> str:
    """Compact JSON, as the proxy's codec writes it: a coding agent's tools are tens of
    kilobytes, which `json.dumps` took about 600 µs to write here (loaded), orjson a tenth."""
    return wirejson.dumps(value).decode()


class TokenizerTable:
    """Model globs to tokenizer files; each file is loaded once, when a model first needs it."""

    def __init__(self, files: Mapping[str, str]) -> None:
        self._files = dict(files)
        self._loaded: dict[str, Tokenizer] = {}

    def for_model(self, model: str) -> Tokenizer | None:
        """The tokenizer configured for `model` (first matching glob), or None: the estimate."""
        for pattern, path in self._files.items():
            if fnmatch.fnmatchcase(model.lower(), pattern.lower()):
                if path not in self._loaded:
                    self._loaded[path] = _load(path)
                return self._loaded[path]
        return None


def _load(path: str) -> Tokenizer:
    try:
        from tokenizers import Tokenizer as HuggingFaceTokenizer
    except ImportError:
        raise TokenizerError(
            f"counting with {path} needs the tokenizers package: pip install tokenizers"
        ) from None
    try:
        return HuggingFaceTokenizer.from_file(path)
    except Exception as exc:  # the library raises its own untyped errors
        raise TokenizerError(f"cannot load the tokenizer {path}: {exc}") from None
