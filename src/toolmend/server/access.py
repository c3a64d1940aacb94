"""Client access: who may use the proxy, checked in constant time.

This module owns reading a client's key (`Authorization: Bearer …` or `x-api-key`), comparing
it with every configured key with `hmac.compare_digest` (no early exit, so timing tells nothing
about a key), and the rule for forwarding the client's own `Authorization` upstream. It never
logs or returns a key: callers get the key's configured name or None.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping

from toolmend.server.config import ApiKey


def presented_key(headers: Mapping[str, str]) -> str | None:
    """The key a client presented, if any."""
    authorization = headers.get("authorization")
    if authorization:
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() == "bearer" and token.strip():
            return token.strip()
    api_key = headers.get("x-api-key")
    return api_key.strip() if api_key else None


def authenticate(keys: tuple[ApiKey, ...], headers: Mapping[str, str]) -> str | None:
    """The name of the key the client presented, or None when it matches none.

    Every key is compared, matched or not, so the time taken does not depend on which key (or
    how much of one) matched.
    """
    given = (presented_key(headers) or "").encode()
    found: str | None = None
    for key in keys:
        if hmac.compare_digest(given, key.key.encode()) and found is None:
            found = key.name
    return found


def forwards_client_authorization(keys: tuple[ApiKey, ...]) -> bool:
    """Whether the client's Authorization may go upstream: only when it is not our own key."""
    return not keys
