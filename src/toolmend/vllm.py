"""`toolmend.vllm`: the vLLM tool-parser plugin, `--tool-parser-plugin toolmend.vllm`.

The public name of `toolmend.integrations.vllm`, which holds the code; importing either
registers the `toolmend` and `toolmend-<protocol>` parsers with vLLM's `ToolParserManager`
(and so needs the `vllm` extra).
"""

from toolmend.integrations.vllm import PARSERS, ToolmendToolParser

__all__ = ["PARSERS", "ToolmendToolParser"]
