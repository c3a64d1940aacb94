"""`toolmend.langchain`: the LangChain v1 adapter, `ToolmendMiddleware` and `ToolmendChatModel`.

The public name of `toolmend.integrations.langchain` and `.langchain_chat`, which hold the code;
this module only re-exports them (and so needs the `langchain` extra).
"""

from toolmend.integrations.langchain import ToolmendMiddleware
from toolmend.integrations.langchain_chat import ToolmendChatModel

__all__ = ["ToolmendChatModel", "ToolmendMiddleware"]
