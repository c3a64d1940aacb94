"""`ToolmendChatModel`: a LangChain chat model around another, recovered before anyone reads it.

Owns the wrapper model and its two paths: `_generate` recovers the whole `AIMessage`, `_stream`
feeds each `AIMessageChunk` (text and tool-call chunks) through `StreamRecovery` and yields
what leaves it, so token streams (`stream_mode="messages"`, `on_llm_new_token`) carry the text
without the leaked markup, and the calls arrive whole at the end. With `text_protocol` set
(text-protocol mode, for a model without native tool calling) the inner model is never bound
to the tools: the messages it gets are the proxy's text mode's (`text_request`: the tools in the
system message, past calls and results written in that protocol), and its reply is read with
that protocol alone. A call recovery refuses is
never a tool call or a tool-call chunk (LangChain parses partial JSON in chunks leniently, so a
cut-off call would become runnable): it rides in `additional_kwargs["toolmend_rejected_calls"]`,
where `ToolmendMiddleware` finds it and answers it with guidance. Never parses text or repairs
arguments itself.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    ToolCallChunk,
    convert_to_messages,
)
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable

from toolmend.integrations._chat import ChatTurn, Recovery, recover_message, rejected_calls
from toolmend.integrations.langchain import (
    lc_call,
    model_name,
    openai_history,
    openai_tools,
    stated_message,
    text_of,
)
from toolmend.model import coerce_tools
from toolmend.recovery import REJECTED_CALLS_FIELD
from toolmend.recovery.textmode import text_request

#: The inner model's own run is tagged so that LangGraph's `stream_mode="messages"` does not
#: stream its raw tokens next to the recovered ones (LangGraph's `TAG_NOSTREAM`).
INNER_CONFIG: dict[str, Any] = {"tags": ["nostream"]}
#: LangChain's `tool_choice` spellings for "call at least one tool", as OpenAI says it.
ANY_TOOL = ("any", "required", True)


def openai_tool_choice(tool_choice: Any) -> Any:
    """A `bind_tools(tool_choice=...)` value in OpenAI's form (a bare name names one tool)."""
    if tool_choice in ANY_TOOL:
        return "required"
    if isinstance(tool_choice, str) and tool_choice not in ("auto", "none"):
        return {"type": "function", "function": {"name": tool_choice}}
    return tool_choice


class ToolmendChatModel(BaseChatModel):
    """`ToolmendChatModel(inner=init_chat_model(...))`: the inner model, recovered."""

    inner: Any
    """The wrapped chat model (or, once tools are bound, the inner model bound to them)."""
    tools: list[dict[str, Any]] | None = None
    protocols: Any = "auto"
    model: str | None = None
    text_protocol: str | None = None
    """Text-protocol mode: the protocol the tools and the tool history are written in."""
    tool_choice: Any = None

    @property
    def _llm_type(self) -> str:
        return "toolmend"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Runnable[Any, AIMessage]:
        """A copy that knows the tools' schemas, around the inner model bound to them (in
        text-protocol mode the inner model stays unbound: the tools go into the prompt)."""
        specs = openai_tools(tools) or None
        if self.text_protocol is not None:
            choice = openai_tool_choice(kwargs.get("tool_choice"))
            return self.model_copy(update={"tools": specs, "tool_choice": choice})
        bound = self.inner.bind_tools(tools, **kwargs)
        return self.model_copy(update={"inner": bound, "tools": specs})

    def _turn(self) -> ChatTurn:
        inner = getattr(self.inner, "bound", self.inner)
        return ChatTurn(self.tools, self.model or model_name(inner))

    def _recovery(self) -> Recovery:
        if self.text_protocol is not None:
            return Recovery((self.text_protocol,))
        return Recovery(self.protocols)

    def _sent(self, messages: list[BaseMessage]) -> list[BaseMessage]:
        """The messages the inner model gets: as they are, or as text mode writes them."""
        if self.text_protocol is None:
            return messages
        body = {"tool_choice": self.tool_choice}
        tools = coerce_tools(self.tools)
        rewritten = text_request(body, openai_history(messages), tools, self.text_protocol)
        return convert_to_messages(rewritten["messages"])

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        sent = self._sent(messages)
        message = self.inner.invoke(sent, config=INNER_CONFIG, stop=stop, **kwargs)
        if not isinstance(message, AIMessage):
            return ChatResult(generations=[ChatGeneration(message=message)])
        stated = stated_message(message)
        recovered = recover_message(stated, self._turn(), self._recovery())
        if recovered != stated:
            refused = rejected_calls(recovered)
            update: dict[str, Any] = {
                "tool_calls": [lc_call(e) for e in recovered.get("tool_calls") or []],
                "invalid_tool_calls": [],
                "additional_kwargs": _with_refused(message.additional_kwargs, refused),
            }
            if text_of(message.content) is not None:
                update["content"] = recovered.get("content") or ""
            message = message.model_copy(update=update)
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        turn = self._turn()
        source = self.inner.stream(self._sent(messages), config=INNER_CONFIG, stop=stop, **kwargs)
        if not turn.recovers:
            for piece in source:
                yield ChatGenerationChunk(message=piece)
            return
        recovery = self._recovery().stream(turn)
        for piece in source:
            for out in recovery.feed(_chunk(piece)):
                yield from _generation_chunks(out)
        for out in recovery.end():
            yield from _generation_chunks(out)


def _with_refused(kwargs: Mapping[str, Any], refused: list[dict[str, Any]]) -> dict[str, Any]:
    out = {k: v for k, v in kwargs.items() if k != REJECTED_CALLS_FIELD}
    if refused:
        out[REJECTED_CALLS_FIELD] = refused
    return out


def _chunk(piece: Any) -> dict[str, Any]:
    """An `AIMessageChunk` as a `chat.completion.chunk`."""
    delta: dict[str, Any] = {"content": text_of(getattr(piece, "content", "")) or ""}
    calls = []
    for call in getattr(piece, "tool_call_chunks", None) or []:
        entry: dict[str, Any] = {"index": call.get("index") or 0}
        if call.get("id"):
            entry["id"] = call["id"]
        entry["function"] = {"name": call.get("name") or "", "arguments": call.get("args") or ""}
        calls.append(entry)
    if calls:
        delta["tool_calls"] = calls
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]}


def _generation_chunks(chunk: Mapping[str, Any]) -> Iterator[ChatGenerationChunk]:
    for choice in chunk.get("choices") or []:
        delta = choice.get("delta") or {}
        calls: list[ToolCallChunk] = []
        for position, entry in enumerate(delta.get("tool_calls") or []):
            function = entry.get("function") or {}
            calls.append(
                tool_call_chunk(
                    index=entry.get("index", position),
                    id=entry.get("id"),
                    name=function.get("name"),
                    args=function.get("arguments") or "{}",
                )
            )
        text = delta.get("content") or ""
        refused = delta.get(REJECTED_CALLS_FIELD) or []
        if text or calls or refused:
            kwargs = _with_refused({}, refused)
            message = AIMessageChunk(content=text, tool_call_chunks=calls, additional_kwargs=kwargs)
            yield ChatGenerationChunk(message=message)
