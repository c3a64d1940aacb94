"""The proxy's configuration: a TOML file, environment variables and flags, validated once.

This module owns the shape of the configuration (`ServerConfig` and the records it holds), the
JSON Schema every file is checked against (with `jsonschema`, so a bad file names the file, the
key and the reason), the precedence flags > environment > file > defaults, and the choice of the
rule that applies to a model id. It never opens a socket and never reads a request.
"""

from __future__ import annotations

import fnmatch
import functools
import ipaddress
import json
import os
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from jsonschema import Draft202012Validator

from toolmend.model import ToolmendError
from toolmend.protocols import AUTO, get_protocol

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 4000
DEFAULT_UPSTREAM_URL = "http://127.0.0.1:11434/v1"
DEFAULT_UPSTREAM_NAME = "default"

Mode = Literal["native", "text"]
#: The API an upstream speaks: chat/completions (front-ends translate to it), Anthropic
#: Messages or OpenAI Responses (the front-end of the same API forwards to it natively).
UpstreamApi = Literal["chat", "anthropic", "responses"]
UPSTREAM_APIS: tuple[UpstreamApi, ...] = ("chat", "anthropic", "responses")

#: The environment variables read by `resolve_config`, each overriding the file's value.
ENV_CONFIG = "TOOLMEND_CONFIG"
ENV_HOST = "TOOLMEND_HOST"
ENV_PORT = "TOOLMEND_PORT"
ENV_WORKERS = "TOOLMEND_WORKERS"
ENV_UPSTREAM = "TOOLMEND_UPSTREAM"
ENV_UPSTREAM_API_KEY = "TOOLMEND_UPSTREAM_API_KEY"
ENV_API_KEYS = "TOOLMEND_API_KEYS"
ENV_LOG_FILE = "TOOLMEND_LOG_FILE"
ENV_LOG_CONTENT = "TOOLMEND_LOG_CONTENT"
#: `{"<model glob>": "/path/tokenizer.json"}` as JSON: count_tokens' real tokenizers.
ENV_TOKENIZERS = "TOOLMEND_TOKENIZERS"
#: Where `/v1/responses` keeps conversations: `sqlite:///path` or `redis://host:port/db`.
ENV_RESPONSE_STORE = "TOOLMEND_RESPONSE_STORE"
#: Where `prometheus_client` keeps every worker's values (read when it is first imported).
ENV_METRICS_DIR = "PROMETHEUS_MULTIPROC_DIR"

#: Text-mode protocol by model family, first match wins (the format each family was trained on).
FAMILY_PROTOCOLS: tuple[tuple[str, str], ...] = (
    ("*qwen3-coder*", "qwen3-coder"),
    ("*qwen3*coder*", "qwen3-coder"),
    ("*kimi*", "kimi-xtml"),
    ("*gemma-4*", "gemma4"),
    ("*gemma4*", "gemma4"),
    ("*claude*", "antml"),
)
FALLBACK_TEXT_PROTOCOL = "hermes"


class ConfigError(ToolmendError):
    """A configuration that cannot be used; the message names the source, the key and why."""


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds on one request. Sizes in bytes or characters, times in seconds."""

    #: Largest request body accepted (agents send whole histories; 32 MiB is far above any).
    max_request_bytes: int = 32 * 1024 * 1024
    #: Largest tool call kept while it streams before it is cut off and flagged.
    max_fragment: int = 1024 * 1024
    #: Time to open a connection to the upstream.
    connect_timeout: float = 10.0
    #: Longest silence from the upstream, before its first byte or between two chunks.
    read_timeout: float = 300.0
    #: Longest time one upstream request may take from start to end.
    total_timeout: float = 1800.0


@dataclass(frozen=True, slots=True)
class Upstream:
    """One model server. `api_key` replaces the client's credentials.

    `api` is the API it speaks at `url`: `chat` (`/chat/completions`, every endpoint serves
    from it), `anthropic` (`/messages`, only `/v1/messages` forwards to it) or `responses`
    (`/responses`, only `/v1/responses` forwards to it).
    """

    name: str
    url: str
    api_key: str | None = field(default=None, repr=False)
    api: UpstreamApi = "chat"


DEFAULT_UPSTREAMS = (Upstream(DEFAULT_UPSTREAM_NAME, DEFAULT_UPSTREAM_URL),)


@dataclass(frozen=True, slots=True)
class ModelRule:
    """What the proxy does for model ids matching `match` (a glob, case-insensitive)."""

    match: str = "*"
    upstream: str | None = None
    mode: Mode = "native"
    #: Text mode: the wire format the tools are rendered in (None: by model family).
    protocol: str | None = None
    #: Native mode: the formats recovered from leaked text ("auto" or a list of ids).
    recovery_protocols: str | tuple[str, ...] = AUTO
    guard: bool = True
    #: How many times the upstream is asked again when its answer holds an unusable call.
    self_correction: int = 1
    limits: Limits = field(default_factory=Limits)

    def text_protocol(self, model: str) -> str:
        """The text-mode protocol for `model`: the rule's own, else by family, else Hermes."""
        if self.protocol is not None:
            return self.protocol
        lowered = model.lower()
        for pattern, protocol in FAMILY_PROTOCOLS:
            if fnmatch.fnmatchcase(lowered, pattern):
                return protocol
        return FALLBACK_TEXT_PROTOCOL


@functools.lru_cache(maxsize=16)
def default_rule(limits: Limits) -> ModelRule:
    """The rule of a model no configured rule matches, under `limits`: made once per set of
    limits (both are frozen, so one object serves every request; making it costs more than the
    rest of the rule lookup)."""
    return ModelRule(limits=limits)


@dataclass(frozen=True, slots=True)
class ApiKey:
    """A client key; `name` is what a log may say about who called, never the key."""

    name: str
    key: str = field(repr=False)


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """Everything `toolmend serve` needs, resolved and validated."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    workers: int = 1
    insecure: bool = False
    upstreams: tuple[Upstream, ...] = DEFAULT_UPSTREAMS
    models: tuple[ModelRule, ...] = ()
    aliases: Mapping[str, str] = field(default_factory=dict)
    keys: tuple[ApiKey, ...] = ()
    limits: Limits = field(default_factory=Limits)
    log_file: str | None = None
    log_content: bool = False
    #: Model globs to Hugging Face `tokenizer.json` files, for count_tokens (else the estimate).
    tokenizers: Mapping[str, str] = field(default_factory=dict)
    #: The `/v1/responses` store URL (None: an SQLite file in the user's cache).
    response_store: str | None = None
    source: str = "defaults"

    def upstream(self, name: str | None) -> Upstream:
        """The upstream called `name`, or the first one."""
        if name is None:
            return self.upstreams[0]
        for upstream in self.upstreams:
            if upstream.name == name:
                return upstream
        raise ConfigError(f"{self.source}: no upstream named {name!r}")  # checked at load

    def rule_for(self, model: str) -> ModelRule:
        """The first rule whose glob matches `model`, else the default rule."""
        lowered = model.lower()
        for rule in self.models:
            if fnmatch.fnmatchcase(lowered, rule.match.lower()):
                return rule
        return default_rule(self.limits)

    def resolve_alias(self, model: str) -> str:
        """The upstream model id a client's model id stands for."""
        return self.aliases.get(model, model)


_TIMEOUT = {"type": "number", "exclusiveMinimum": 0}
_LIMITS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "max_request_bytes": {"type": "integer", "minimum": 1024},
        "max_fragment": {"type": "integer", "minimum": 256},
        "connect_timeout": _TIMEOUT,
        "read_timeout": _TIMEOUT,
        "total_timeout": _TIMEOUT,
    },
}
_SECRET = {"type": "string", "minLength": 1}
CONFIG_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "server": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "host": {"type": "string", "minLength": 1},
                "port": {"type": "integer", "minimum": 0, "maximum": 65535},
                "workers": {"type": "integer", "minimum": 1, "maximum": 256},
                "insecure": {"type": "boolean"},
            },
        },
        "logging": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "file": {"type": "string", "minLength": 1},
                "content": {"type": "boolean"},
            },
        },
        "limits": _LIMITS_SCHEMA,
        "upstreams": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["name", "url"],
                "properties": {
                    "name": {"type": "string", "pattern": r"^[A-Za-z0-9_.-]+$"},
                    "url": {"type": "string", "pattern": r"^https?://[^\s/]+(/\S*)?$"},
                    "api_key": _SECRET,
                    "api_key_env": {"type": "string", "minLength": 1},
                    "api": {"enum": list(UPSTREAM_APIS)},
                },
            },
        },
        "frontends": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "response_store": {"type": "string", "pattern": r"^(sqlite|redis|rediss)://"},
                "tokenizers": {
                    "type": "object",
                    "additionalProperties": {"type": "string", "minLength": 1},
                },
            },
        },
        "models": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["match"],
                "properties": {
                    "match": {"type": "string", "minLength": 1},
                    "upstream": {"type": "string"},
                    "mode": {"enum": ["native", "text"]},
                    "protocol": {"type": "string"},
                    "recovery_protocols": {
                        "anyOf": [
                            {"const": AUTO},
                            {"type": "array", "items": {"type": "string"}, "minItems": 1},
                        ]
                    },
                    "guard": {"type": "boolean"},
                    "self_correction": {"type": "integer", "minimum": 0, "maximum": 5},
                    "limits": _LIMITS_SCHEMA,
                },
            },
        },
        "aliases": {"type": "object", "additionalProperties": {"type": "string", "minLength": 1}},
        "keys": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["name"],
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "key": _SECRET,
                    "key_env": {"type": "string", "minLength": 1},
                },
                "oneOf": [{"required": ["key"]}, {"required": ["key_env"]}],
            },
        },
    },
}
_VALIDATOR = Draft202012Validator(CONFIG_SCHEMA)


def _key_path(path: Sequence[str | int]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _reason(error: Any) -> str:
    if error.validator == "oneOf" and error.schema is CONFIG_SCHEMA["properties"]["keys"]["items"]:
        return "give exactly one of 'key' or 'key_env'"
    message: str = error.message
    # A secret's value must never be echoed back, even when it is the wrong type.
    if error.path and str(error.path[-1]) in {"api_key", "key"}:
        return f"must be a non-empty string (value not shown), rule {error.validator!r}"
    return message


def validate_document(data: Mapping[str, Any], source: str) -> None:
    """Raise `ConfigError` for the first problem (by key path) in a parsed config document."""
    errors = sorted(_VALIDATOR.iter_errors(data), key=lambda e: [str(p) for p in e.path])
    if errors:
        error = errors[0]
        raise ConfigError(f"{source}: {_key_path(list(error.path))}: {_reason(error)}")


def _secret(entry: Mapping[str, Any], value_key: str, env_key: str, where: str) -> str | None:
    if value_key in entry:
        return str(entry[value_key])
    env_name = entry.get(env_key)
    if env_name is None:
        return None
    value = os.environ.get(env_name)
    if not value:
        raise ConfigError(f"{where}.{env_key}: the environment variable {env_name} is not set")
    return value


def _limits(data: Mapping[str, Any] | None, base: Limits) -> Limits:
    return replace(base, **dict(data)) if data else base


def _protocol_id(value: str, where: str) -> str:
    try:
        proto = get_protocol(value)
    except ToolmendError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    return proto.id


def build_config(data: Mapping[str, Any], source: str) -> ServerConfig:
    """A `ServerConfig` from a parsed document (validated first)."""
    validate_document(data, source)
    server = data.get("server", {})
    logging = data.get("logging", {})
    frontends = data.get("frontends", {})
    limits = _limits(data.get("limits"), Limits())
    upstreams = (
        tuple(
            Upstream(
                entry["name"],
                entry["url"].rstrip("/"),
                _secret(entry, "api_key", "api_key_env", f"{source}: upstreams[{i}]"),
                entry.get("api", "chat"),
            )
            for i, entry in enumerate(data.get("upstreams", ()))
        )
        or DEFAULT_UPSTREAMS
    )
    names = [u.name for u in upstreams]
    if len(set(names)) != len(names):
        raise ConfigError(f"{source}: upstreams: two upstreams share a name")
    rules = []
    for i, entry in enumerate(data.get("models", ())):
        where = f"{source}: models[{i}]"
        if "upstream" in entry and entry["upstream"] not in names:
            raise ConfigError(f"{where}.upstream: no upstream named {entry['upstream']!r}")
        target = upstreams[names.index(entry.get("upstream", names[0]))]
        if target.api != "chat" and entry.get("mode") == "text":
            raise ConfigError(
                f"{where}.mode: text mode renders tools into a chat prompt, but the upstream "
                f"{target.name!r} speaks the {target.api} API (use native mode)"
            )
        protocol = entry.get("protocol")
        if protocol is not None:
            protocol = _protocol_id(protocol, f"{where}.protocol")
            if protocol == AUTO:
                raise ConfigError(f"{where}.protocol: text mode needs one format, not 'auto'")
        recovery = entry.get("recovery_protocols", AUTO)
        if recovery != AUTO:
            recovery = tuple(
                _protocol_id(p, f"{where}.recovery_protocols[{j}]") for j, p in enumerate(recovery)
            )
        rules.append(
            ModelRule(
                match=entry["match"],
                upstream=entry.get("upstream"),
                mode=entry.get("mode", "native"),
                protocol=protocol,
                recovery_protocols=recovery,
                guard=entry.get("guard", True),
                self_correction=entry.get("self_correction", 1),
                limits=_limits(entry.get("limits"), limits),
            )
        )
    keys = tuple(
        ApiKey(entry["name"], _secret(entry, "key", "key_env", f"{source}: keys[{i}]") or "")
        for i, entry in enumerate(data.get("keys", ()))
    )
    return ServerConfig(
        host=server.get("host", DEFAULT_HOST),
        port=server.get("port", DEFAULT_PORT),
        workers=server.get("workers", 1),
        insecure=server.get("insecure", False),
        upstreams=upstreams,
        models=tuple(rules),
        aliases=dict(data.get("aliases", {})),
        keys=keys,
        limits=limits,
        log_file=logging.get("file"),
        log_content=logging.get("content", False),
        tokenizers=dict(frontends.get("tokenizers", {})),
        response_store=frontends.get("response_store"),
        source=source,
    )


def load_config_file(path: str) -> ServerConfig:
    """Read, parse and validate a TOML configuration file."""
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    return build_config(data, path)


@dataclass(frozen=True, slots=True)
class Overrides:
    """What the command line asked for; None means "not given"."""

    config: str | None = None
    host: str | None = None
    port: int | None = None
    workers: int | None = None
    upstream: str | None = None
    insecure: bool | None = None
    log_file: str | None = None
    log_content: bool | None = None


def _env_int(env: Mapping[str, str], name: str) -> int | None:
    value = env.get(name)
    if value is None or value == "":
        return None
    try:
        return int(value)
    except ValueError:
        raise ConfigError(f"environment {name}: not a whole number: {value!r}") from None


def _env_tokenizers(env: Mapping[str, str]) -> dict[str, str]:
    raw = env[ENV_TOKENIZERS]
    try:
        files = json.loads(raw)
    except ValueError as exc:
        raise ConfigError(f"environment {ENV_TOKENIZERS}: not a JSON object: {exc}") from None
    if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
        raise ConfigError(f"environment {ENV_TOKENIZERS}: must map model globs to tokenizer files")
    return files


def _override_upstream(config: ServerConfig, url: str, api_key: str | None) -> ServerConfig:
    if not url.startswith(("http://", "https://")):
        raise ConfigError(f"--upstream: not an http(s) URL: {url!r}")
    first = config.upstreams[0]
    moved = replace(first, url=url.rstrip("/"), api_key=api_key or first.api_key)
    return replace(config, upstreams=(moved, *config.upstreams[1:]))


def resolve_config(flags: Overrides, env: Mapping[str, str] | None = None) -> ServerConfig:
    """The configuration in force: flags over environment over file over defaults."""
    env = os.environ if env is None else env
    path = flags.config or env.get(ENV_CONFIG)
    config = load_config_file(path) if path else ServerConfig()
    upstream_url = flags.upstream or env.get(ENV_UPSTREAM)
    upstream_key = env.get(ENV_UPSTREAM_API_KEY) or None
    if upstream_url:
        config = _override_upstream(config, upstream_url, upstream_key)
    elif upstream_key:
        config = _override_upstream(config, config.upstreams[0].url, upstream_key)
    env_keys = tuple(
        ApiKey(f"env:{i + 1}", key.strip())
        for i, key in enumerate(env.get(ENV_API_KEYS, "").split(","))
        if key.strip()
    )
    log_content_env = env.get(ENV_LOG_CONTENT, "").lower() in {"1", "true", "yes"}
    tokenizers = _env_tokenizers(env) if env.get(ENV_TOKENIZERS) else config.tokenizers
    config = replace(
        config,
        host=flags.host or env.get(ENV_HOST) or config.host,
        port=flags.port if flags.port is not None else (_env_int(env, ENV_PORT) or config.port),
        workers=flags.workers or _env_int(env, ENV_WORKERS) or config.workers,
        insecure=bool(flags.insecure) or config.insecure,
        keys=config.keys + env_keys,
        log_file=flags.log_file or env.get(ENV_LOG_FILE) or config.log_file,
        log_content=bool(flags.log_content) or log_content_env or config.log_content,
        tokenizers=tokenizers,
        response_store=env.get(ENV_RESPONSE_STORE) or config.response_store,
    )
    if config.workers < 1:
        raise ConfigError(f"workers must be at least 1, got {config.workers}")
    return config


def is_loopback(host: str) -> bool:
    """Whether `host` names only this machine (so a server bound there is unreachable outside)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_exposure(config: ServerConfig) -> None:
    """Refuse to serve without keys on an address other machines can reach, unless told to."""
    if config.keys or config.insecure or is_loopback(config.host):
        return
    raise ConfigError(
        f"refusing to listen on {config.host}: no client keys are configured, so anyone who can "
        "reach this address could use your upstream. Add [[keys]] to the config or set "
        f"{ENV_API_KEYS}, or pass --insecure if the network is trusted."
    )
