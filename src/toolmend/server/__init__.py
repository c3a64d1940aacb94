"""toolmend.server: the OpenAI-compatible proxy (`toolmend serve`) and `toolmend demo`.

Needs the `server` extra (Starlette, uvicorn, aiohttp, prometheus_client). The public names:
`create_app(config)` for embedding the proxy in an ASGI stack, `resolve_config` /
`load_config_file` for its configuration, and `ServerConfig` and its records. The package keeps
no state between requests: every replica can serve any request.
"""

from toolmend.server.app import create_app
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
