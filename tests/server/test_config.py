"""Configuration: the README's example loads, bad files name file, key and reason, precedence."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from toolmend.server.config import (
    ConfigError,
    Overrides,
    ServerConfig,
    check_exposure,
    load_config_file,
    resolve_config,
)

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_config() -> str:
    """The full configuration example in the README (the ```toml block of its proxy section)."""
    blocks = re.findall(r"```toml\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert blocks, "the README has no toml example"
    return max(blocks, key=len)


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "toolmend.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_the_readme_example_is_a_valid_configuration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VLLM_API_KEY", "sk-upstream")
    monkeypatch.setenv("ALICE_KEY", "sk-alice")
    config = load_config_file(write(tmp_path, readme_config()))
    assert [u.name for u in config.upstreams] == ["local", "vllm"]
    assert config.upstream("vllm").api_key == "sk-upstream"
    assert {k.name for k in config.keys} >= {"alice"}
    text_rule = config.rule_for("qwen2.5-coder:7b")
    assert text_rule.mode == "text" and text_rule.text_protocol("qwen2.5-coder:7b") == "hermes"
    assert config.rule_for("some-unlisted-model").mode == "native"
    assert config.resolve_alias("coder") != "coder"


def test_a_rule_matches_model_ids_by_glob_case_insensitively_first_match_wins(
    tmp_path: Path,
) -> None:
    config = load_config_file(
        write(
            tmp_path,
            '[[models]]\nmatch = "Qwen3-Coder*"\nmode = "text"\n\n'
            '[[models]]\nmatch = "qwen*"\nguard = false\n',
        )
    )
    assert config.rule_for("qwen3-coder-30b").mode == "text"
    assert config.rule_for("qwen3-coder-30b").text_protocol("qwen3-coder-30b") == "qwen3-coder"
    assert config.rule_for("qwen2.5").guard is False
    assert config.rule_for("llama").guard is True


@pytest.mark.parametrize(
    ("text", "key", "reason"),
    [
        ('[[models]]\nmatch = "x"\nmode = "nativ"\n', "models[0].mode", "'nativ' is not one of"),
        ("[server]\nport = 70000\n", "server.port", "70000 is greater than"),
        ("[limits]\nread_timeout = -1\n", "limits.read_timeout", "-1 is less than or equal"),
        ('[[upstreams]]\nname = "a"\nurl = "ftp://x"\n', "upstreams[0].url", "does not match"),
        ("[server]\ncolour = 1\n", "server", "'colour' was unexpected"),
        ('[[models]]\nmatch = "x"\nprotocol = "nope"\n', "models[0].protocol", "unknown protocol"),
        ('[[models]]\nmatch = "x"\nupstream = "nowhere"\n', "models[0].upstream", "no upstream"),
        ('[[keys]]\nname = "a"\n', "keys[0]", "exactly one of 'key' or 'key_env'"),
        ("[server\n", "not valid TOML", ""),
    ],
)
def test_a_bad_file_fails_naming_the_file_the_key_and_the_reason(
    tmp_path: Path, text: str, key: str, reason: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_config_file(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ")
    assert key in message and reason in message


def test_a_secret_of_the_wrong_type_is_not_echoed_in_the_error(tmp_path: Path) -> None:
    path = write(tmp_path, '[[upstreams]]\nname = "a"\nurl = "http://x"\napi_key = 12345678\n')
    with pytest.raises(ConfigError) as caught:
        load_config_file(path)
    assert "upstreams[0].api_key" in str(caught.value)
    assert "12345678" not in str(caught.value)


def test_a_key_from_an_unset_environment_variable_fails_at_start(tmp_path: Path) -> None:
    path = write(tmp_path, '[[keys]]\nname = "a"\nkey_env = "TOOLMEND_TEST_UNSET_KEY"\n')
    with pytest.raises(ConfigError, match="TOOLMEND_TEST_UNSET_KEY is not set"):
        load_config_file(path)


def test_flags_override_the_environment_which_overrides_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, '[server]\nport = 5000\nhost = "127.0.0.2"\n')
    env = {
        "TOOLMEND_CONFIG": path,
        "TOOLMEND_PORT": "6000",
        "TOOLMEND_UPSTREAM": "http://127.0.0.1:9/v1",
    }
    from_env = resolve_config(Overrides(), env)
    assert (from_env.host, from_env.port) == ("127.0.0.2", 6000)
    assert from_env.upstreams[0].url == "http://127.0.0.1:9/v1"
    flagged = resolve_config(Overrides(port=7000, upstream="http://127.0.0.1:8/v1"), env)
    assert flagged.port == 7000 and flagged.upstreams[0].url == "http://127.0.0.1:8/v1"


def test_the_defaults_are_loopback_port_4000_and_a_local_upstream() -> None:
    config = resolve_config(Overrides(), {})
    assert (config.host, config.port) == ("127.0.0.1", 4000)
    assert config.upstreams[0].url == "http://127.0.0.1:11434/v1"


def test_client_keys_come_from_the_environment_too() -> None:
    config = resolve_config(Overrides(), {"TOOLMEND_API_KEYS": "sk-a, sk-b"})
    assert [k.key for k in config.keys] == ["sk-a", "sk-b"]


def test_without_keys_a_non_loopback_host_is_refused_unless_insecure() -> None:
    with pytest.raises(ConfigError, match="no client keys"):
        check_exposure(ServerConfig(host="0.0.0.0"))
    check_exposure(ServerConfig(host="0.0.0.0", insecure=True))
    check_exposure(ServerConfig(host="::1"))
    check_exposure(resolve_config(Overrides(host="0.0.0.0"), {"TOOLMEND_API_KEYS": "sk-a"}))
