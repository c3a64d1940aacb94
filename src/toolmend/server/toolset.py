"""A request's `tools` as `Tool` objects, kept per worker by the tools' JSON text.

An agent sends the same tool list with every request of a conversation (OpenCode's nine tools
are about 5 KB of schemas), and building a `Tool` checks its schema and writes it as sorted-key
JSON, about 10 µs a tool: on a 9-tool agent request that is a tenth of a millisecond before the
upstream is asked. `request_tools` keeps the built tuple under the list's own compact JSON
(orjson, a few µs), so a hit is exactly what building would give: equal text, equal tools, and
`Tool` is frozen. A list that fails to build is never kept (its error is raised every time); a
list whose text is longer than `MAX_KEY_BYTES` is built afresh. This module never checks a
schema itself and keeps nothing that a request could tell apart from a fresh build.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import orjson

from toolmend.model import Tool, coerce_tools

#: Tool lists kept per worker: several agents' lists, each under one key.
MAX_ENTRIES = 64
#: Bytes of JSON of the longest tool list kept (a large MCP tool set is still well under).
MAX_KEY_BYTES = 256 * 1024

_kept: OrderedDict[bytes, tuple[Tool, ...]] = OrderedDict()


def request_tools(tools: Sequence[Any]) -> list[Tool]:
    """`coerce_tools(tools)`, from the kept tuple when this exact list was built before.

    Raises what `coerce_tools` raises (`ToolmendError`) for a list it refuses.
    """
    try:
        key = orjson.dumps(tools)
    except TypeError:  # not plain JSON (an integer beyond 64 bits): built, never kept
        return coerce_tools(tools) or []
    kept = _kept.get(key)
    if kept is not None:
        _kept.move_to_end(key)
        return list(kept)
    built = coerce_tools(tools) or []
    if len(key) <= MAX_KEY_BYTES:
        _kept[key] = tuple(built)
        if len(_kept) > MAX_ENTRIES:
            _kept.popitem(last=False)
    return built
