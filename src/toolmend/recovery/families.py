"""Which text protocols a model's leaked calls are read with, by model id.

Owns the model-family defaults of leak recovery: a Claude-family model leaks ANTML invokes (and
the tool-name tags agents' prompts teach it), a Kimi-family model leaks Kimi XTML channels or
Kimi K2 section tokens, any other model is read by `auto` (every registered format). The
caller's `protocols=` always wins. This module only chooses protocol ids; it never parses text
and never looks at a response.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from toolmend.model import ToolmendError
from toolmend.protocols import AUTO, get_protocol, protocols

#: A model id names the Claude family when `claude` stands as a word of it (`claude-opus-4-1`,
#: `anthropic/claude-3.5-sonnet`, `us.anthropic.claude-3-7-sonnet-20250219-v1:0`,
#: `ccapi-clb/claude-opus-5`), never inside a longer word.
CLAUDE_FAMILY = re.compile(r"(?<![a-z0-9])claude(?![a-z])", re.IGNORECASE)
#: The same boundary rule for Kimi (`kimi-k2-instruct`, `moonshotai/Kimi-K2-Thinking`,
#: `kimi-k3-ultrafast-unlocked`).
KIMI_FAMILY = re.compile(r"(?<![a-z0-9])kimi(?![a-z])", re.IGNORECASE)

#: Claude writes ANTML invokes; behind an agent whose prompt taught it the tool-name-tag format
#: (Cline, Roo Code, Kilo Code: `<read_file><path>…</path></read_file>`), it writes that too when
#: it was given native tools (Roo-Code #10270): only a declared tool's name opens such a tag.
CLAUDE_PROTOCOLS: tuple[str, ...] = ("antml", "morph-xml")
#: Kimi K3 writes XTML channels, Kimi K2 its section tokens; an id not registered (yet) is
#: skipped, so a format registered later is picked up without a change here.
KIMI_PROTOCOLS: tuple[str, ...] = ("kimi-xtml", "kimi-k2")
#: The protocol whose stray channel markers the Kimi thinking-channel recovery reads.
KIMI_XTML = "kimi-xtml"

ProtocolsArg = str | Sequence[str] | None


def family_protocols(model: str | None) -> tuple[str, ...]:
    """The default protocol ids for `model` (registered ones only), `("auto",)` otherwise."""
    if isinstance(model, str):
        if CLAUDE_FAMILY.search(model):
            return _registered(CLAUDE_PROTOCOLS)
        if KIMI_FAMILY.search(model):
            return _registered(KIMI_PROTOCOLS)
    return (AUTO,)


def _registered(ids: Sequence[str]) -> tuple[str, ...]:
    known = set(protocols())
    chosen = tuple(p for p in ids if p in known)
    return chosen or (AUTO,)


def follows_family(protocols_arg: ProtocolsArg) -> bool:
    """True when the caller leaves the choice to the model family (`"auto"` or None)."""
    return protocols_arg is None or (
        isinstance(protocols_arg, str) and protocols_arg.strip().lower() == AUTO
    )


def select_protocols(protocols_arg: ProtocolsArg, model: str | None) -> tuple[str, ...]:
    """The protocol ids to scan with: the caller's choice, or the family default for "auto".

    `"auto"` (or None) means the model family's default; a protocol id or a list of ids is used
    as given (each checked now, so an unknown id fails before the stream starts). `["auto"]`
    is the detector over every format, whatever the model.
    """
    if protocols_arg is None or follows_family(protocols_arg):
        return family_protocols(model)
    chosen = (protocols_arg,) if isinstance(protocols_arg, str) else tuple(protocols_arg)
    if not chosen:
        raise ToolmendError("protocols must name at least one protocol (or be 'auto')")
    for protocol_id in chosen:
        if not isinstance(protocol_id, str):
            raise ToolmendError(f"a protocol id is a string, got {type(protocol_id).__name__}")
        get_protocol(protocol_id)  # raises UnknownProtocolError with the known ids
    return chosen
