"""The front-ends' configuration keys: the tokenizers, the response store and each upstream's API."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from frontends.native_upstreams import post
from frontends.test_tokens import _word_tokenizer
from toolmend.server import create_app
from toolmend.server.config import (
    ConfigError,
    Overrides,
    ServerConfig,
    Upstream,
    load_config_file,
    resolve_config,
)
from toolmend.server.demo.scripted import Answer, Script, ScriptedUpstream
from toolmend.server.loopback import LoopbackServer

README = Path(__file__).resolve().parents[2] / "README.md"


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "toolmend.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_the_readme_native_upstream_example_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocks = re.findall(r"```toml\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    example = next(block for block in blocks if 'api = "anthropic"' in block)
    monkeypatch.setenv("ANTHROPIC_UPSTREAM_KEY", "sk-ant")
    monkeypatch.setenv("OPENAI_UPSTREAM_KEY", "sk-oai")
    config = load_config_file(write(tmp_path, example))
    apis = {upstream.name: upstream.api for upstream in config.upstreams}
    assert set(apis.values()) == {"chat", "anthropic", "responses"}
    assert config.response_store is not None
    assert config.tokenizers


def test_the_file_names_the_tokenizers_and_the_response_store(tmp_path: Path) -> None:
    config = load_config_file(
        write(
            tmp_path,
            '[frontends]\nresponse_store = "redis://127.0.0.1:6379/0"\n'
            '[frontends.tokenizers]\n"qwen*" = "/models/qwen3/tokenizer.json"\n',
        )
    )
    assert config.response_store == "redis://127.0.0.1:6379/0"
    assert dict(config.tokenizers) == {"qwen*": "/models/qwen3/tokenizer.json"}


def test_the_environment_overrides_the_files_tokenizers_and_store(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '[frontends]\nresponse_store = "sqlite:///a.sqlite3"\n'
        '[frontends.tokenizers]\n"qwen*" = "/a.json"\n',
    )
    env = {
        "TOOLMEND_TOKENIZERS": '{"glm*": "/b.json"}',
        "TOOLMEND_RESPONSE_STORE": "sqlite:///b.sqlite3",
    }
    config = resolve_config(Overrides(config=path), env)
    assert dict(config.tokenizers) == {"glm*": "/b.json"}
    assert config.response_store == "sqlite:///b.sqlite3"
    assert resolve_config(Overrides(config=path), {}).response_store == "sqlite:///a.sqlite3"


def test_tokenizers_in_the_environment_must_map_globs_to_files() -> None:
    with pytest.raises(ConfigError, match="TOOLMEND_TOKENIZERS: must map"):
        resolve_config(Overrides(), {"TOOLMEND_TOKENIZERS": "[1, 2]"})
    with pytest.raises(ConfigError, match="TOOLMEND_TOKENIZERS: not a JSON object"):
        resolve_config(Overrides(), {"TOOLMEND_TOKENIZERS": "{qwen"})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[frontends]\nresponse_store = "/tmp/x"\n', r"frontends\.response_store"),
        ("[frontends.tokenizers]\nqwen = 3\n", r"frontends\.tokenizers\.qwen"),
        ('[[upstreams]]\nname = "a"\nurl = "http://127.0.0.1:1"\napi = "gemini"\n', "api"),
    ],
)
def test_a_bad_front_end_key_names_the_key(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config_file(write(tmp_path, text))


def test_text_mode_against_a_native_upstream_is_refused_at_load(tmp_path: Path) -> None:
    text = (
        '[[upstreams]]\nname = "claude"\nurl = "http://127.0.0.1:1/v1"\napi = "anthropic"\n'
        '[[models]]\nmatch = "*"\nmode = "text"\n'
    )
    with pytest.raises(ConfigError, match=r"models\[0\]\.mode: .*'claude' speaks the anthropic"):
        load_config_file(write(tmp_path, text))


def test_an_upstream_override_keeps_the_upstreams_api(tmp_path: Path) -> None:
    path = write(
        tmp_path, '[[upstreams]]\nname = "a"\nurl = "http://127.0.0.1:1"\napi = "responses"\n'
    )
    config = resolve_config(Overrides(config=path, upstream="http://127.0.0.1:2/v1"), {})
    assert config.upstreams[0].api == "responses"
    assert config.upstreams[0].url == "http://127.0.0.1:2/v1"


def _serve(config: ServerConfig) -> LoopbackServer:
    return LoopbackServer(create_app(config))


def test_count_tokens_uses_the_configured_tokenizer_over_http(tmp_path: Path) -> None:
    tokenizer = _word_tokenizer(tmp_path / "tokenizer.json")
    config = ServerConfig(tokenizers={"qwen*": tokenizer}, source="test")
    body = {"model": "qwen3", "messages": [{"role": "user", "content": "hello world hello"}]}
    with _serve(config) as proxy:
        _, counted = post(f"{proxy.url}/v1/messages/count_tokens", body)
        _, estimated = post(f"{proxy.url}/v1/messages/count_tokens", {**body, "model": "llama"})
    assert counted == {"input_tokens": 4 + 3}  # the message overhead and three words
    assert estimated == {"input_tokens": 4 + 5}  # 17 ASCII characters / 4, rounded up


def test_responses_are_kept_in_the_configured_store(tmp_path: Path) -> None:
    upstream = ScriptedUpstream({"plain": Script(Answer(content="stored"))})
    store = tmp_path / "kept.sqlite3"
    with LoopbackServer(upstream.app()) as model_server:
        config = ServerConfig(
            upstreams=(Upstream("scripted", f"{model_server.url}/v1"),),
            response_store=f"sqlite://{store}",
            source="test",
        )
        with _serve(config) as proxy:
            _, first = post(f"{proxy.url}/v1/responses", {"model": "plain", "input": "hi"})
            status, _ = post(
                f"{proxy.url}/v1/responses",
                {"model": "plain", "input": "again", "previous_response_id": first["id"]},
            )
    assert store.exists()
    assert status == 200
    history = upstream.received[-1]["body"]["messages"]
    assert [m["role"] for m in history] == ["user", "assistant", "user"]
