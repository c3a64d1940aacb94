"""`toolmend.openai`: the openai SDK adapter, `toolmend.openai.wrap(client)`.

The public name of `toolmend.integrations.openai`, which holds the code; this module only
re-exports it (and so needs the `openai` extra). The host package itself is always imported
absolutely, so this name never stands for the real `openai` inside toolmend.
"""

from toolmend.integrations.openai import AsyncToolmendTransport, ToolmendTransport, wrap

__all__ = ["AsyncToolmendTransport", "ToolmendTransport", "wrap"]
