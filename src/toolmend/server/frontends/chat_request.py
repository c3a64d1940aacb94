"""What a front-end's request becomes: the chat/completions body and what the answer needs back.

`ChatRequest` carries the translated body, the table that maps wire tool names back to the
client's, the tool-call ids the history already uses (so no answer repeats one) and the
diagnostics of the translation. The helpers here are the pieces both translators share: the
reasoning-echo rule by model family, image parts, and the one content shape chat servers read.
This module never reads a front-end's own wire format.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from toolmend.events import Diagnostic
from toolmend.server.frontends.toolnames import ToolNameMap

#: Families whose chat templates expect the previous turns' reasoning back (DeepSeek's
#: thinking-with-tools mode, GLM's preserved thinking, Kimi K2 thinking).
REASONING_ECHO_MODELS = re.compile(r"deepseek|glm|kimi|moonshot", re.IGNORECASE)
#: Model ids whose answer `echoes_reasoning` keeps (a proxy serves a few; clients name any).
MODELS_REMEMBERED = 256


@dataclass(slots=True)
class ChatRequest:
    """A translated request: the chat body, the names to map back, the ids already used."""

    body: dict[str, Any] = field(default_factory=dict)
    names: ToolNameMap = field(default_factory=ToolNameMap)
    history_ids: set[str] = field(default_factory=set)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def note(self, code: str, message: str, protocol: str, **metadata: Any) -> None:
        self.diagnostics.append(Diagnostic(code, message, protocol, metadata))

    def finish(self, body: dict[str, Any]) -> None:
        """Adopts the final body and records the call ids its history uses."""
        self.body = body
        self.history_ids = {
            call["id"]
            for message in body.get("messages") or ()
            for call in message.get("tool_calls") or ()
            if isinstance(call.get("id"), str)
        }


@functools.lru_cache(maxsize=MODELS_REMEMBERED)
def echoes_reasoning(model: str) -> bool:
    """Whether `model`'s family needs its earlier reasoning sent back upstream (asked once per
    request, of the few models a proxy serves: remembered)."""
    return bool(REASONING_ECHO_MODELS.search(model))


def image_part(url: object) -> dict[str, Any] | None:
    """A chat `image_url` part, or None when there is no URL."""
    if not isinstance(url, str) or not url:
        return None
    return {"type": "image_url", "image_url": {"url": url}}


def content_value(parts: Sequence[dict[str, Any]]) -> str | list[dict[str, Any]]:
    """Plain text as one string (every chat server reads it); parts only when images are in."""
    if len(parts) == 1 and parts[0]["type"] == "text":  # most messages: one text
        text: str = parts[0]["text"]
        return text
    if all(part["type"] == "text" for part in parts):
        return "\n".join(part["text"] for part in parts)
    return list(parts)
