"""The vLLM adapter: a `ToolParser` plugin, `--tool-parser-plugin toolmend.integrations.vllm`.

Owns `ToolmendToolParser` and its registration with vLLM's `ToolParserManager` under
`toolmend` (the model family's formats, as the proxy picks them from the model id) and
`toolmend-<protocol>` for every registered protocol (that format alone), so a server runs with
`--enable-auto-tool-choice --tool-call-parser toolmend`. Written against vLLM 0.33's legacy
`ToolParser` interface, which out-of-tree plugins keep: `extract_tool_calls(model_output,
request)` recovers a whole reply with `recover_response`; `extract_tool_calls_streaming(...)`
feeds each `delta_text` to one `StreamRecovery` and answers with one `DeltaMessage` (or None
while markup is held back); `finish_streaming()` is the end-of-stream flush, which vLLM's
`Parser` calls on the parsers that declare `engine_based_streaming`, and which hands over the
calls still held. The tools' schemas are the request's `tools`.

A call recovery refuses (unknown tool, arguments that cannot be made valid, cut off) never
becomes a tool call, and its markup is not shown as text; vLLM's reply has no field for it, so
it is logged as a warning. Never parses text, repairs arguments or chooses formats itself:
recovery does, as for the proxy and the other adapters.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

try:
    from vllm.entrypoints.generate.base.protocol import (
        DeltaFunctionCall,
        DeltaMessage,
        DeltaToolCall,
        ExtractedToolCallInformation,
        FunctionCall,
        ToolCall,
    )
    from vllm.logger import init_logger
    from vllm.tool_parsers.abstract_tool_parser import ToolParser, ToolParserManager
except ImportError as missing:  # pragma: no cover - exercised where vLLM is absent
    raise ImportError(
        "toolmend.integrations.vllm is a vLLM tool-parser plugin and needs vLLM 0.33 or later "
        f"(pip install 'toolmend[vllm]'): {missing}"
    ) from missing

from toolmend.integrations._chat import ChatTurn, Recovery, chat_turn, recover_message
from toolmend.protocols import protocols
from toolmend.recovery import REJECTED_CALLS_FIELD, StreamRecovery
from toolmend.recovery.emitter import REASONING_FIELD
from toolmend.recovery.families import ProtocolsArg

#: The name `--tool-call-parser` takes for the model family's formats; `PARSER_NAME-<id>`
#: names one protocol.
PARSER_NAME = "toolmend"

logger = init_logger(__name__)


def request_turn(request: Any) -> ChatTurn:
    """What a vLLM `ChatCompletionRequest` tells recovery: its tools' schemas, its model."""
    tools = [_tool_dict(t) for t in getattr(request, "tools", None) or ()]
    body = {
        "tools": tools,
        "tool_choice": getattr(request, "tool_choice", None),
        "model": getattr(request, "model", None),
    }
    return chat_turn(body)


def _tool_dict(tool: Any) -> Any:
    dump = getattr(tool, "model_dump", None)
    return dump(exclude_none=True) if callable(dump) else tool


class ToolmendToolParser(ToolParser):
    """Tool calls read by toolmend's recovery: leaked or mangled calls made real and valid."""

    #: The protocols this parser reads ("auto": the model family's, as the proxy chooses).
    protocols: ClassVar[ProtocolsArg] = "auto"
    #: vLLM calls `finish_streaming()` at the end of a stream only on such parsers.
    engine_based_streaming = True

    def __init__(self, tokenizer: Any, tools: list[Any] | None = None) -> None:
        super().__init__(tokenizer, tools)
        self._stream: StreamRecovery | None = None
        self._passthrough = False

    @property
    def recovery(self) -> Recovery:
        return Recovery(self.protocols)

    def extract_tool_calls(self, model_output: str, request: Any) -> Any:
        """A whole reply: its calls recovered and repaired, its text without their markup."""
        recovered = recover_message(
            {"role": "assistant", "content": model_output}, request_turn(request), self.recovery
        )
        _log_refused(recovered.get(REJECTED_CALLS_FIELD))
        calls = [
            ToolCall(
                id=entry["id"],
                function=FunctionCall(
                    name=entry["function"]["name"], arguments=entry["function"]["arguments"]
                ),
            )
            for entry in recovered.get("tool_calls") or ()
        ]
        content = recovered.get("content")
        return ExtractedToolCallInformation(
            tools_called=bool(calls), tool_calls=calls, content=content or None
        )

    def extract_tool_calls_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
        request: Any,
    ) -> Any:
        """One delta of the reply through recovery: one `DeltaMessage`, or None for now."""
        if self._stream is None and not self._passthrough:
            turn = request_turn(request)
            if turn.recovers:
                self._stream = self.recovery.stream(turn)
            else:
                self._passthrough = True
        if self._stream is None:
            return DeltaMessage(content=delta_text) if delta_text else None
        if not delta_text:
            return None
        chunk = {"choices": [{"index": 0, "delta": {"content": delta_text}}]}
        return _delta_message(self._stream.feed(chunk))

    def finish_streaming(self) -> Any:
        """The end of the stream: the text and calls recovery still held, as one delta."""
        stream, self._stream = self._stream, None
        return _delta_message(stream.end()) if stream is not None else None


def _delta_message(chunks: Sequence[Mapping[str, Any]]) -> Any:
    """Recovery's chunks for one step as one `DeltaMessage` (None when they say nothing)."""
    content: list[str] = []
    reasoning: list[str] = []
    calls: list[Any] = []
    for chunk in chunks:
        for choice in chunk.get("choices") or ():
            delta = choice.get("delta") or {}
            content.append(delta.get("content") or "")
            reasoning.append(delta.get(REASONING_FIELD) or "")
            _log_refused(delta.get(REJECTED_CALLS_FIELD))
            for entry in delta.get("tool_calls") or ():
                function = entry.get("function") or {}
                calls.append(
                    DeltaToolCall(
                        index=entry["index"],
                        id=entry.get("id"),
                        type=entry.get("type"),
                        function=DeltaFunctionCall(
                            name=function.get("name"), arguments=function.get("arguments")
                        ),
                    )
                )
    text, thought = "".join(content), "".join(reasoning)
    if not (text or thought or calls):
        return None
    return DeltaMessage(content=text or None, reasoning=thought or None, tool_calls=calls)


def _log_refused(entries: object) -> None:
    for entry in entries if isinstance(entries, list) else ():
        function = entry.get("function") or {}
        logger.warning(
            "toolmend refused a call to %r, not returned as a tool call: %s",
            function.get("name"),
            entry.get("error") or "incomplete",
        )


def _protocol_parser(protocol_id: str) -> type[ToolmendToolParser]:
    """The parser class that reads `protocol_id` alone."""
    name = "ToolmendToolParser_" + "".join(c if c.isalnum() else "_" for c in protocol_id)
    doc = f"toolmend's recovery reading the {protocol_id!r} format only."
    attributes = {"protocols": (protocol_id,), "__doc__": doc, "__module__": __name__}
    return type(name, (ToolmendToolParser,), attributes)


#: Every parser this plugin registers, by the name `--tool-call-parser` takes.
PARSERS: dict[str, type[ToolmendToolParser]] = {
    PARSER_NAME: ToolmendToolParser,
    **{f"{PARSER_NAME}-{p}": _protocol_parser(p) for p in protocols()},
}

for _name, _parser in PARSERS.items():
    ToolParserManager.register_module(name=_name, module=_parser)
