"""`toolmend serve`: resolve the configuration, refuse unsafe exposure, run uvicorn.

This module owns starting the proxy as a process: one worker in-process, or `--workers N`
processes that each build the app from the same file, environment and flags (passed on in
`TOOLMEND_SERVE_FLAGS`) and share a Prometheus multiprocess directory so `/metrics` counts all
of them. It never handles a request.
"""

from __future__ import annotations

import os
import sys
import tempfile

from toolmend.server.config import (
    ENV_METRICS_DIR,
    Overrides,
    ServerConfig,
    check_exposure,
    resolve_config,
)


def describe(config: ServerConfig) -> str:
    """One line for the operator (no key, no secret)."""
    rules = ", ".join(f"{r.match}→{r.mode}" for r in config.models) or "*→native"
    return (
        f"toolmend serve on http://{config.host}:{config.port} ({config.workers} worker(s)); "
        f"upstream {config.upstreams[0].name} {config.upstreams[0].url}; rules {rules}; "
        f"{len(config.keys)} client key(s); config {config.source}"
    )


def run_serve(flags: Overrides) -> int:
    """Serve until interrupted. A bad configuration raises `ConfigError` before binding."""
    config = resolve_config(flags)
    check_exposure(config)
    if config.workers > 1 and not os.environ.get(ENV_METRICS_DIR):
        # Before prometheus_client is imported, here and in every worker it starts.
        os.environ[ENV_METRICS_DIR] = tempfile.mkdtemp(prefix="toolmend-metrics-")
    print(describe(config), file=sys.stderr)
    import uvicorn

    if config.workers == 1:
        from toolmend.server.app import create_app

        uvicorn.run(
            create_app(config),
            host=config.host,
            port=config.port,
            log_level="warning",
            access_log=False,
        )
        return 0
    from toolmend.server.app import ENV_SERVE_FLAGS, overrides_to_environment

    os.environ[ENV_SERVE_FLAGS] = overrides_to_environment(flags)
    uvicorn.run(
        "toolmend.server.app:app_from_environment",
        factory=True,
        host=config.host,
        port=config.port,
        workers=config.workers,
        log_level="warning",
        access_log=False,
    )
    return 0
