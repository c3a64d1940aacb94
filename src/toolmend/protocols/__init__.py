"""The protocol registry: every text tool-call format toolmend speaks, by id.

Each format lives in its own module (see `toolmend.protocols.base.TextProtocol`); this module
only maps ids and aliases to them.
"""

from __future__ import annotations

from importlib import import_module

from toolmend.core.engine import prepare
from toolmend.model import UnknownProtocolError
from toolmend.protocols.base import TextProtocol

#: id -> module holding `PROTOCOL` (or `module:NAME`, the module's protocol NAME). Import is
#: lazy so that one format's import cost is paid only by its users.
_MODULES: dict[str, str] = {
    "hermes": "toolmend.protocols.hermes",
    "gemma4": "toolmend.protocols.gemma4",
    "anthropic-xml": "toolmend.protocols.anthropic_xml",
    "antml": "toolmend.protocols.antml",
    "morph-xml": "toolmend.protocols.morph_xml",
    "yaml-xml": "toolmend.protocols.yaml_xml",
    "kimi-xtml": "toolmend.protocols.kimi_xtml",
    "qwen3-coder": "toolmend.protocols.qwen3_coder",
    # key/value tags, XML and pythonic families ("module:NAME" when a module holds several)
    "glm45": "toolmend.protocols.glm:GLM45",
    "glm47": "toolmend.protocols.glm:GLM47",
    "lfm2": "toolmend.protocols.pythonic:LFM2",
    "olmo3": "toolmend.protocols.pythonic:OLMO3",
    "pythonic": "toolmend.protocols.pythonic:PYTHONIC",
    "calling-tool": "toolmend.protocols.pythonic:CALLING_TOOL",
    "gemma-tool-code": "toolmend.protocols.pythonic:GEMMA_TOOL_CODE",
    "minimax-m2": "toolmend.protocols.minimax_m2",
    "functiongemma": "toolmend.protocols.functiongemma",
    # Model-native formats: JSON arguments in delimiters, special-token sections, bare JSON.
    "mistral": "toolmend.protocols.mistral",
    "deepseek": "toolmend.protocols.deepseek",
    "kimi-k2": "toolmend.protocols.kimi_k2",
    "llama3-json": "toolmend.protocols.llama3_json",
    "json": "toolmend.protocols.bare_json",
    "granite": "toolmend.protocols.granite",
    "cohere": "toolmend.protocols.cohere",
    "minimax-m1": "toolmend.protocols.tool_calls_tag",
    "internlm2": "toolmend.protocols.internlm2",
    "phi4-mini": "toolmend.protocols.phi4_mini",
    "longcat": "toolmend.protocols.longcat",
    "k2-v3": "toolmend.protocols.k2v3",
    "hy-v4": "toolmend.protocols.hy_v4",
    "gigachat3": "toolmend.protocols.gigachat3",
    "nemotron": "toolmend.protocols.nemotron",
    "qwen25-coder": "toolmend.protocols.qwen25_coder",
    # Model-native formats of the header-and-channel and recipient families.
    "harmony": "toolmend.protocols.harmony",
    "functionary-v3.1": "toolmend.protocols.functionary:V31_PROTOCOL",
    "functionary-v3": "toolmend.protocols.functionary:V3_PROTOCOL",
    "functionary-v2": "toolmend.protocols.functionary:V2_PROTOCOL",
    # ... and of the key/value-tag and invoke families.
    "seed-oss": "toolmend.protocols.seed_oss",
    "deepseek-v3.2": "toolmend.protocols.deepseek_dsml",
    "step3": "toolmend.protocols.step3",
    "minicpm4-xml": "toolmend.protocols.minicpm4_xml",
    "glimmer": "toolmend.protocols.glimmer",
    "minimax-m3": "toolmend.protocols.minimax_m3",
    "apertus": "toolmend.protocols.apertus",
    "command-r-plus": "toolmend.protocols.command_r",
}
_loaded: dict[str, TextProtocol] = {}


def _load(protocol_id: str) -> TextProtocol:
    proto = _loaded.get(protocol_id)
    if proto is None:
        module, _, name = _MODULES[protocol_id].partition(":")
        proto = getattr(import_module(module), name or "PROTOCOL")
        prepare(proto)
        _loaded[protocol_id] = proto
    return proto


def _aliases() -> dict[str, str]:
    return {alias: pid for pid in _MODULES for alias in _load(pid).aliases}


#: Not a format but a detector over all of them (see `toolmend.protocols.auto`).
AUTO = "auto"


def protocols() -> list[str]:
    """The registered protocol ids (aliases and the `auto` detector not included)."""
    return list(_MODULES)


def get_protocol(protocol_id: str) -> TextProtocol:
    """The protocol registered under `protocol_id` or one of its aliases."""
    if not isinstance(protocol_id, str):
        raise UnknownProtocolError(f"a protocol id is a string, got {type(protocol_id).__name__}")
    key = protocol_id.strip().lower()
    if key == AUTO:
        auto: TextProtocol = import_module("toolmend.protocols.auto").PROTOCOL
        return auto
    if key in _MODULES:
        return _load(key)
    alias_target = _aliases().get(key)
    if alias_target is not None:
        return _load(alias_target)
    known = ", ".join(sorted([*_MODULES, *_aliases(), AUTO]))
    raise UnknownProtocolError(f"unknown protocol {protocol_id!r}; known protocols: {known}")
