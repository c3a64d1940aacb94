"""toolmend.server: the OpenAI-compatible proxy (`toolmend serve`) and `toolmend demo`.

Needs the `server` extra (Starlette, uvicorn, aiohttp, prometheus_client, openai). Public:
`create_app(config)` to embed the proxy in an ASGI stack, `resolve_config` / `load_config_file`
for its configuration, and `ServerConfig` with its records. Importing this package imports no
web or metrics library: `toolmend serve --workers N` must set up the shared metrics directory
before `prometheus_client` is first imported, so the app is loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolmend.server.config import (
    ConfigError,
    Limits,
    ModelRule,
    Overrides,
    ServerConfig,
    Upstream,
    load_config_file,
    resolve_config,
)

if TYPE_CHECKING:
    from toolmend.server.app import create_app

__all__ = [
    "ConfigError",
    "Limits",
    "ModelRule",
    "Overrides",
    "ServerConfig",
    "Upstream",
    "create_app",
    "load_config_file",
    "resolve_config",
]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from toolmend.server.app import create_app

        return create_app
    raise AttributeError(f"module 'toolmend.server' has no attribute {name!r}")
