"""`toolmend.litellm`: the LiteLLM adapter, `toolmend.litellm.completion` / `acompletion` and
`ToolmendHandler` for the LiteLLM proxy.

The public name of `toolmend.integrations.litellm`, which holds the code; this module only
re-exports it (and so needs the `litellm` extra).
"""

from toolmend.integrations.litellm import ToolmendHandler, acompletion, completion

__all__ = ["ToolmendHandler", "acompletion", "completion"]
