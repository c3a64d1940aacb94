"""toolmend.integrations: in-process adapters for the hosts Python agents already run on.

Each module is a thin shell over `toolmend.recovery` (leaked calls, native-call repair) and
`toolmend.guard` (guidance for failing results, the loop breaker), written against one host's
own extension point: `openai` (an httpx transport), `litellm` (a `CustomLogger` and stream
wrappers), `langchain` (an `AgentMiddleware`), `pydantic_ai` (a capability and a
`WrapperModel`), `vllm` (a `ToolParser` plugin). Nothing here parses text or classifies errors
itself, and importing this package imports no host: each module needs its own extra.
"""
