"""`toolmend.pydantic_ai`: the pydantic-ai 2.x adapter, the `Toolmend` capability.

The public name of `toolmend.integrations.pydantic_ai`, which holds the code; this module only
re-exports it (and so needs the `pydantic-ai` extra).
"""

from toolmend.integrations.pydantic_ai import RecoveringModel, Toolmend

__all__ = ["RecoveringModel", "Toolmend"]
