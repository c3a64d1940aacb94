"""The pydantic-ai 2.x adapter: the `Toolmend` capability for `Agent(..., capabilities=[...])`.

Owns the capability's hooks and the conversion of pydantic-ai messages to the OpenAI form the
guard and recovery read. `after_model_request` recovers a whole response (leaked calls in its
text become `ToolCallPart`s, native calls are repaired, split or refused); `get_wrapper_model`
puts the model behind `RecoveringModel`, a `WrapperModel` whose streamed responses feed their
text deltas through recovery, so a consumer of the event stream never sees leaked markup;
`before_tool_validate`
repairs a call's arguments against its tool's schema before pydantic validates them;
`on_tool_validate_error` and `wrap_tool_execute` answer a call that cannot be made valid, a
blocked call (a duplicate), a raised exception or a failing result with the guard's guidance,
returned as the tool's failed result (`ToolFailed`, which spends no retry budget, unlike
`ModelRetry`). Counts come from the run's message history through `guard_history`, as the proxy
derives them, so they follow the conversation, not this object. With `text_protocol` set
(text-protocol mode, for a model without native tool calling) `RecoveringModel` sends the model
no function tools: their declaration goes into the instructions (`tools_prompt`), past calls
and tool results are written in that protocol (`calls_text`, `result_text`: the proxy's text
mode's code), and replies are read with that protocol alone.

Never parses text, repairs arguments or classifies errors itself: recovery and the guard do.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.exceptions import ToolFailed
from pydantic_ai.messages import (
    InstructionPart,
    ModelMessage,
    ModelResponse,
    ModelResponsePart,
    ModelResponseStreamEvent,
    PartDeltaEvent,
    PartStartEvent,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    TextPartDelta,
    ThinkingPart,
    ThinkingPartDelta,
    ToolCallPart,
    ToolCallPartDelta,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models import Model, ModelRequestParameters, StreamedResponse
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.settings import ModelSettings
from pydantic_ai.tools import ToolDefinition

from toolmend.guard.answers import (
    blocking_guidance,
    is_guidance,
    rejected_guidance,
    result_guidance,
)
from toolmend.guard.classify import error_text
from toolmend.integrations._chat import ChatTurn, Recovery, recover_message, rejected_calls
from toolmend.model import coerce_tools
from toolmend.recovery import REJECTED_CALLS_FIELD, StreamRecovery
from toolmend.recovery.emitter import REASONING_FIELD
from toolmend.recovery.families import ProtocolsArg
from toolmend.recovery.stream import DiagnosticSink
from toolmend.recovery.textmode import calls_text, result_text, tools_prompt

#: The `provider_details` key marking a call recovery refused: answered, never run.
REFUSED = "toolmend_refused"


def openai_tool(tool: ToolDefinition) -> dict[str, Any]:
    function = {"name": tool.name, "parameters": tool.parameters_json_schema}
    if tool.description:
        function["description"] = tool.description
    return {"type": "function", "function": function}


def _call_entry(part: ToolCallPart) -> dict[str, Any]:
    args = part.args
    arguments = args if isinstance(args, str) else json.dumps(args or {})
    function = {"name": part.tool_name, "arguments": arguments}
    return {"id": part.tool_call_id, "type": "function", "function": function}


def _content(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, Sequence):
        return "\n".join(v for v in value if isinstance(v, str))
    return str(value)


def openai_history(messages: Sequence[ModelMessage]) -> list[dict[str, Any]]:
    """A run's messages as OpenAI chat messages (what `guard_history` replays)."""
    out: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, ModelResponse):
            text = "".join(p.content for p in message.parts if isinstance(p, TextPart))
            calls = [_call_entry(p) for p in message.parts if isinstance(p, ToolCallPart)]
            stated: dict[str, Any] = {"role": "assistant", "content": text}
            if calls:
                stated["tool_calls"] = calls
            out.append(stated)
            continue
        for part in message.parts:
            if isinstance(part, SystemPromptPart):
                out.append({"role": "system", "content": part.content})
            elif isinstance(part, UserPromptPart):
                out.append({"role": "user", "content": _content(part.content)})
            elif isinstance(part, ToolReturnPart):
                content = part.model_response_str(wrap_if_error=False)
                out.append({"role": "tool", "tool_call_id": part.tool_call_id, "content": content})
            elif isinstance(part, RetryPromptPart) and part.tool_name:
                out.append(
                    {
                        "role": "tool",
                        "tool_call_id": part.tool_call_id,
                        "content": part.model_response(),
                    }
                )
    return out


def _parts(recovered: Mapping[str, Any], original: ModelResponse) -> list[ModelResponsePart]:
    """The response's parts after recovery: other parts kept, text and calls as recovered."""
    kept = [p for p in original.parts if not isinstance(p, TextPart | ToolCallPart)]
    parts: list[ModelResponsePart] = list(kept)
    text = recovered.get("content")
    if isinstance(text, str) and text:
        parts.append(TextPart(content=text))
    refused = rejected_calls(recovered)
    for entry in [*(recovered.get("tool_calls") or []), *refused]:
        function = entry.get("function") or {}
        reason = entry.get("error") if entry in refused else None
        parts.append(
            ToolCallPart(
                tool_name=function.get("name") or "",
                args=function.get("arguments") or "{}",
                tool_call_id=entry.get("id") or "",
                provider_details={REFUSED: reason} if reason is not None else None,
            )
        )
    return parts


# ------------------------------------------------------------------------- text-protocol mode


def text_history(messages: Sequence[ModelMessage], protocol_id: str) -> list[ModelMessage]:
    """The run's messages as text mode writes them: calls and tool results in the protocol."""
    out: list[ModelMessage] = []
    for message in messages:
        if isinstance(message, ModelResponse):
            calls = [_call_entry(p) for p in message.parts if isinstance(p, ToolCallPart)]
            if not calls:
                out.append(message)
                continue
            text = "".join(p.content for p in message.parts if isinstance(p, TextPart))
            kept = [p for p in message.parts if not isinstance(p, TextPart | ToolCallPart)]
            written = TextPart(content=calls_text(protocol_id, text, calls))
            out.append(replace(message, parts=[*kept, written]))
            continue
        parts: list[Any] = []
        for part in message.parts:
            if isinstance(part, ToolReturnPart):
                result = part.model_response_str(wrap_if_error=False)
                written_result = result_text(protocol_id, part.tool_call_id, part.tool_name, result)
                parts.append(UserPromptPart(content=written_result))
            elif isinstance(part, RetryPromptPart) and part.tool_name:
                retry = part.model_response()
                parts.append(
                    UserPromptPart(
                        content=result_text(protocol_id, part.tool_call_id, part.tool_name, retry)
                    )
                )
            else:
                parts.append(part)
        out.append(replace(message, parts=parts))
    return out


def text_parameters(parameters: ModelRequestParameters, protocol_id: str) -> ModelRequestParameters:
    """The request's parameters without function tools, their declaration in the instructions."""
    tools = coerce_tools([openai_tool(t) for t in parameters.function_tools])
    prompt = tools_prompt(protocol_id, tools, None)
    if not prompt:
        return parameters
    declared = InstructionPart(content=prompt, dynamic=True)
    parts = InstructionPart.sorted([*(parameters.instruction_parts or []), declared])
    return replace(parameters, function_tools=[], instruction_parts=parts)


# ------------------------------------------------------------------------- streamed responses


def _event_delta(event: ModelResponseStreamEvent) -> dict[str, Any] | None:
    """One upstream stream event as a `chat.completion.chunk` delta (None: nothing to say)."""
    if isinstance(event, PartStartEvent):
        part, index = event.part, event.index
        if isinstance(part, TextPart):
            return {"content": part.content}
        if isinstance(part, ThinkingPart):
            return {REASONING_FIELD: part.content}
        if isinstance(part, ToolCallPart):
            return {"tool_calls": [{**_call_entry(part), "index": index}]}
        return None
    if isinstance(event, PartDeltaEvent):
        delta, index = event.delta, event.index
        if isinstance(delta, TextPartDelta):
            return {"content": delta.content_delta}
        if isinstance(delta, ThinkingPartDelta):
            return {REASONING_FIELD: delta.content_delta or ""}
        if isinstance(delta, ToolCallPartDelta):
            args = delta.args_delta
            arguments = args if isinstance(args, str) else json.dumps(args) if args else ""
            function = {"name": delta.tool_name_delta or "", "arguments": arguments}
            return {"tool_calls": [{"index": index, "function": function}]}
    return None


@dataclass
class RecoveredStreamedResponse(StreamedResponse):
    """A streamed response whose text deltas went through recovery before anyone saw them.

    Text and reasoning are re-emitted as they leave recovery (markup held back and removed);
    native calls and the calls recovered from the text arrive whole when the stream ends.
    """

    inner: StreamedResponse = field(kw_only=True)
    recovery: StreamRecovery = field(kw_only=True)

    async def _get_event_iterator(self) -> AsyncIterator[ModelResponseStreamEvent]:
        try:
            async for event in self.inner:
                delta = _event_delta(event)
                if delta is None:
                    continue
                chunk = {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
                for out in self.recovery.feed(chunk):
                    for recovered in self._events(out):
                        yield recovered
            for out in self.recovery.end():
                for recovered in self._events(out):
                    yield recovered
        finally:
            self._usage = self.inner.usage
            self.finish_reason = self.inner.finish_reason
            self.provider_response_id = self.inner.provider_response_id

    def _events(self, chunk: Mapping[str, Any]) -> Iterator[ModelResponseStreamEvent]:
        parts = self._parts_manager
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            if delta.get(REASONING_FIELD):
                yield from parts.handle_thinking_delta(
                    vendor_part_id="reasoning", content=delta[REASONING_FIELD]
                )
            if delta.get("content"):
                yield from parts.handle_text_delta(
                    vendor_part_id="content", content=delta["content"]
                )
            refused = delta.get(REJECTED_CALLS_FIELD) or []
            for entry in [*(delta.get("tool_calls") or []), *refused]:
                function = entry.get("function") or {}
                reason = entry.get("error") if entry in refused else None
                yield from parts.handle_tool_call_delta_events(
                    vendor_part_id=("call", entry.get("id")),
                    tool_name=function.get("name") or "",
                    args=function.get("arguments") or "{}",
                    tool_call_id=entry.get("id"),
                    provider_details={REFUSED: reason} if reason is not None else None,
                )

    async def close_stream(self) -> None:
        await self.inner.close_stream()

    @property
    def model_name(self) -> str:
        return self.inner.model_name

    @property
    def provider_name(self) -> str | None:
        return self.inner.provider_name

    @property
    def provider_url(self) -> str | None:
        return self.inner.provider_url

    @property
    def timestamp(self) -> datetime:
        return self.inner.timestamp


class RecoveringModel(WrapperModel):
    """A model whose streamed responses are recovered as they stream (whole responses are
    recovered by the capability's `after_model_request`)."""

    def __init__(self, wrapped: Model, capability: Toolmend) -> None:
        super().__init__(wrapped)
        self.capability = capability

    def _sent(
        self, messages: list[ModelMessage], parameters: ModelRequestParameters
    ) -> tuple[list[ModelMessage], ModelRequestParameters]:
        """What the wrapped model gets: as it came, or as text-protocol mode writes it."""
        protocol = self.capability.text_protocol
        if protocol is None:
            return messages, parameters
        return text_history(messages, protocol), text_parameters(parameters, protocol)

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        sent, parameters = self._sent(messages, model_request_parameters)
        return await self.wrapped.request(sent, model_settings, parameters)

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: Any = None,
    ) -> AsyncGenerator[StreamedResponse]:
        tools = [openai_tool(t) for t in model_request_parameters.function_tools]
        sent, parameters = self._sent(messages, model_request_parameters)
        async with self.wrapped.request_stream(
            sent, model_settings, parameters, run_context
        ) as inner:
            if not tools:
                yield inner
                return
            turn = ChatTurn(tools, self.capability.model or inner.model_name)
            recovery = self.capability.recovery.stream(turn)
            yield RecoveredStreamedResponse(
                model_request_parameters, inner=inner, recovery=recovery
            )


@dataclass(init=False)
class Toolmend(AbstractCapability[Any]):
    """Leak recovery, argument repair and guidance for a pydantic-ai agent, in one line:

    `Agent(model, tools=[...], capabilities=[Toolmend()])`.
    """

    protocols: ProtocolsArg
    model: str | None
    on_diagnostic: DiagnosticSink | None
    #: Text-protocol mode: the protocol the tools and the tool history are written in.
    text_protocol: str | None

    def __init__(
        self,
        *,
        protocols: ProtocolsArg = "auto",
        model: str | None = None,
        on_diagnostic: DiagnosticSink | None = None,
        text_protocol: str | None = None,
    ) -> None:
        self.protocols = protocols
        self.model = model
        self.on_diagnostic = on_diagnostic
        self.text_protocol = text_protocol

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return "Toolmend"

    @property
    def recovery(self) -> Recovery:
        """Replies are read with the model family's formats, or the text protocol alone."""
        if self.text_protocol is not None:
            return Recovery((self.text_protocol,), self.on_diagnostic)
        return Recovery(self.protocols, self.on_diagnostic)

    # -- model responses ---------------------------------------------------------------

    def get_wrapper_model(self, model: Model) -> Model | None:
        """Streamed responses are recovered while they stream, so no one sees leaked markup."""
        return RecoveringModel(model, self)

    async def after_model_request(
        self, ctx: Any, *, request_context: Any, response: ModelResponse
    ) -> ModelResponse:
        tools = [openai_tool(t) for t in request_context.model_request_parameters.function_tools]
        turn = ChatTurn(
            tools or None, self.model or response.model_name or request_context.model_id
        )
        if not turn.recovers:
            return response
        (stated,) = openai_history([response])
        recovered = recover_message(stated, turn, self.recovery)
        if recovered == stated:
            return response
        return replace(response, parts=_parts(recovered, response))

    # -- tool validation ---------------------------------------------------------------

    async def before_tool_validate(
        self, ctx: Any, *, call: ToolCallPart, tool_def: ToolDefinition, args: Any
    ) -> Any:
        """The call's arguments repaired against its tool's schema (as they came otherwise);
        a call recovery refused is answered with guidance here, before anything runs."""
        entry = _call_entry(replace(call, args=args))
        if call.provider_details and REFUSED in call.provider_details:
            history = openai_history(ctx.messages)
            refused = {**entry, "error": call.provider_details[REFUSED]}
            raise ToolFailed(rejected_guidance(history, refused, [openai_tool(tool_def)]))
        turn = ChatTurn([openai_tool(tool_def)], self.model)
        stated = {"role": "assistant", "content": None, "tool_calls": [entry]}
        settled = recover_message(stated, turn, self.recovery).get("tool_calls") or []
        if len(settled) != 1:
            return args
        repaired = json.loads(settled[0]["function"]["arguments"])
        return repaired if isinstance(repaired, dict) else args

    async def on_tool_validate_error(
        self, ctx: Any, *, call: ToolCallPart, tool_def: ToolDefinition, args: Any, error: Any
    ) -> Any:
        """A call that does not validate is answered with guidance, never run."""
        history = openai_history(ctx.messages)
        entry = _call_entry(replace(call, args=args))
        tools = [openai_tool(tool_def)]
        raise ToolFailed(rejected_guidance(history, {**entry, "incomplete": True}, tools))

    # -- tool execution ----------------------------------------------------------------

    async def before_tool_execute(
        self, ctx: Any, *, call: ToolCallPart, tool_def: ToolDefinition, args: Any
    ) -> Any:
        """A blocked call (a duplicate, say) is answered with guidance and not run."""
        entry = _call_entry(replace(call, args=args))
        tools = [openai_tool(tool_def)]
        blocked = blocking_guidance(openai_history(ctx.messages), entry, tools)
        if blocked is not None:
            raise ToolFailed(blocked)
        return args

    async def on_tool_execute_error(
        self, ctx: Any, *, call: ToolCallPart, tool_def: ToolDefinition, args: Any, error: Exception
    ) -> Any:
        """The tool raised (pydantic-ai's control flow never reaches here): guidance instead."""
        entry = _call_entry(replace(call, args=args))
        text = f"Error: {error_text(error)}"
        guided = result_guidance(openai_history(ctx.messages), entry, text, [openai_tool(tool_def)])
        raise ToolFailed(guided or text) from error

    async def after_tool_execute(
        self, ctx: Any, *, call: ToolCallPart, tool_def: ToolDefinition, args: Any, result: Any
    ) -> Any:
        """A failing result is answered with guidance; a protocol note rides on a success."""
        if not isinstance(result, str):
            return result
        entry = _call_entry(replace(call, args=args))
        tools = [openai_tool(tool_def)]
        guided = result_guidance(openai_history(ctx.messages), entry, result, tools)
        if guided is None:
            return result
        if is_guidance(guided):
            raise ToolFailed(guided)
        return guided
