"""Input-token counts: a real tokenizer where one is configured for the model, else the estimate."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolmend.server.frontends.tokens import (
    IMAGE_TOKENS,
    TokenizerError,
    TokenizerTable,
    count_chat_tokens,
    estimate_text_tokens,
)

REQUEST = {"messages": [{"role": "user", "content": "hello world hello"}]}


def _word_tokenizer(path: Path) -> str:
    tokenizers = pytest.importorskip("tokenizers")
    model = tokenizers.models.WordLevel({"hello": 0, "world": 1, "[UNK]": 2}, unk_token="[UNK]")
    tokenizer = tokenizers.Tokenizer(model)
    tokenizer.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    tokenizer.save(str(path))
    return str(path)


def test_the_estimate_is_a_quarter_token_per_ascii_character_and_one_per_other() -> None:
    assert estimate_text_tokens("abcdefgh") == 2
    assert estimate_text_tokens("北京天气") == 4


def test_a_request_counts_its_messages_overhead_and_images() -> None:
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA=="}}
    request = {"messages": [{"role": "user", "content": [{"type": "text", "text": "abcd"}, image]}]}
    assert count_chat_tokens(request) == 4 + 1 + IMAGE_TOKENS


def test_a_configured_tokenizer_counts_instead_of_the_estimate(tmp_path: Path) -> None:
    table = TokenizerTable({"qwen*": _word_tokenizer(tmp_path / "tokenizer.json")})
    tokenizer = table.for_model("Qwen3-Coder")
    assert tokenizer is not None
    assert count_chat_tokens(REQUEST, tokenizer) == 4 + 3
    assert table.for_model("llama-3") is None


def test_a_tokenizer_file_that_cannot_be_loaded_is_named(tmp_path: Path) -> None:
    pytest.importorskip("tokenizers")
    table = TokenizerTable({"*": str(tmp_path / "missing.json")})
    with pytest.raises(TokenizerError, match=r"missing\.json"):
        table.for_model("any")
