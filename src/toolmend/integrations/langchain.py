"""The LangChain v1 adapter: `ToolmendMiddleware`, an `AgentMiddleware` for `create_agent`.

Owns the two hooks and the conversions they need. `wrap_model_call` states the model's
`AIMessage` as an OpenAI assistant message (its text, `tool_calls` and `invalid_tool_calls`),
runs it through recovery with the bound tools' schemas and reads it back: leaked calls become
`tool_calls`, arguments are repaired, `invalid_tool_calls` that repair cleanly are promoted, and
each call that cannot be made valid stays on the message answered by a guidance `ToolMessage`,
so the agent goes back to the model instead of stopping silently. `wrap_tool_call` settles the
call again (names and arguments, against the same schemas), answers a blocked call with the
guard's preflight guidance without running it, and turns an error `ToolMessage` or a raised
exception into a guidance `ToolMessage(status="error")`. The loop breaker's counts are derived
from the agent state's `messages` with `guard_history`, as the proxy derives them from a
request, so they live in the (checkpointed, per-thread) state, not in this object.

Never parses text, repairs arguments or classifies errors itself: recovery and the guard do.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage, convert_to_openai_messages
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.errors import GraphBubbleUp

from toolmend.guard.answers import (
    blocking_guidance,
    is_guidance,
    rejected_guidance,
    result_guidance,
)
from toolmend.guard.classify import error_text
from toolmend.integrations._chat import ChatTurn, Recovery, recover_message, rejected_calls
from toolmend.recovery import REJECTED_CALLS_FIELD
from toolmend.recovery.families import ProtocolsArg
from toolmend.recovery.stream import DiagnosticSink


def openai_tools(tools: Sequence[Any]) -> list[dict[str, Any]]:
    """The bound tools as OpenAI function tools (provider built-ins that are not, skipped)."""
    out: list[dict[str, Any]] = []
    for tool in tools:
        try:
            spec = convert_to_openai_tool(tool)
        except (ValueError, TypeError):
            continue
        if spec.get("type") == "function" and isinstance(spec.get("function"), dict):
            out.append(spec)
    return out


def model_name(model: Any) -> str | None:
    """The model id a chat model is configured with (`model_name`, `model`, `model_id`)."""
    for attribute in ("model_name", "model", "model_id"):
        value = getattr(model, attribute, None)
        if isinstance(value, str) and value:
            return value
    return None


def openai_history(messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
    history: list[dict[str, Any]] = convert_to_openai_messages(list(messages))
    return history


# ------------------------------------------------------------------------- AIMessage <-> dict


def text_of(content: Any) -> str | None:
    """The text of a message's content: a string, or a list of text blocks only."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(
        isinstance(b, str) or (isinstance(b, Mapping) and b.get("type") == "text") for b in content
    ):
        return "".join(b if isinstance(b, str) else str(b.get("text", "")) for b in content)
    return None


def stated_message(message: AIMessage) -> dict[str, Any]:
    calls = [
        {
            "id": call.get("id") or "",
            "type": "function",
            "function": {"name": call["name"], "arguments": json.dumps(call.get("args") or {})},
        }
        for call in message.tool_calls
    ]
    calls += [
        {
            "id": call.get("id") or "",
            "type": "function",
            "function": {"name": call.get("name") or "", "arguments": call.get("args") or ""},
        }
        for call in message.invalid_tool_calls
    ]
    stated: dict[str, Any] = {"role": "assistant", "content": text_of(message.content)}
    if calls:
        stated["tool_calls"] = calls
    return stated


def _arguments(entry: Mapping[str, Any]) -> dict[str, Any]:
    function = entry.get("function")
    raw = function.get("arguments") if isinstance(function, Mapping) else None
    try:
        value = json.loads(raw) if isinstance(raw, str) and raw else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def lc_call(entry: Mapping[str, Any]) -> dict[str, Any]:
    function = entry.get("function")
    name = function.get("name") if isinstance(function, Mapping) else ""
    return {"name": name, "args": _arguments(entry), "id": entry.get("id"), "type": "tool_call"}


def _openai_call(call: Mapping[str, Any]) -> dict[str, Any]:
    arguments = json.dumps(call.get("args") or {})
    function = {"name": call.get("name") or "", "arguments": arguments}
    return {"id": call.get("id") or "", "type": "function", "function": function}


def raised(exc: BaseException) -> str:
    """A raised exception as the tool result the guard reads: LangChain's own `Error: ...`
    form, which the result classifier takes as the failure it is."""
    return f"Error: {error_text(exc)}"


# ------------------------------------------------------------------------- the middleware


class ToolmendMiddleware(AgentMiddleware):
    """Leak recovery, argument repair and guidance for a LangChain v1 agent, in one line:

    `create_agent(model, tools, middleware=[ToolmendMiddleware()])`.
    """

    def __init__(
        self,
        *,
        protocols: ProtocolsArg = "auto",
        model: str | None = None,
        on_diagnostic: DiagnosticSink | None = None,
    ) -> None:
        super().__init__()
        self.recovery = Recovery(protocols, on_diagnostic)
        self.model = model
        #: The tools of the last model call: what a tool call is settled and guided against.
        self.bound_tools: list[dict[str, Any]] | None = None

    # -- model calls -------------------------------------------------------------------

    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        return self._recovered(request, handler(request))

    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        return self._recovered(request, await handler(request))

    def _recovered(self, request: Any, response: Any) -> Any:
        self.bound_tools = openai_tools(request.tools) or None
        turn = ChatTurn(self.bound_tools, self.model or model_name(request.model))
        if not turn.recovers or request.tool_choice == "none":
            return response
        history = openai_history(request.messages)
        result: list[BaseMessage] = []
        for message in response.result:
            result += (
                self.recover(message, turn, history)
                if isinstance(message, AIMessage)
                else [message]
            )
        response.result = result
        return response

    def recover(
        self, message: AIMessage, turn: ChatTurn, history: list[dict[str, Any]]
    ) -> list[BaseMessage]:
        """The recovered message, then a guidance `ToolMessage` for each call it refused."""
        stated = stated_message(message)
        recovered = recover_message(stated, turn, self.recovery)
        # Calls a `ToolmendChatModel` already refused arrive beside the message: answered too.
        carried = rejected_calls(message.additional_kwargs)
        if recovered == stated and not carried:
            return [message]
        refused = [*rejected_calls(recovered), *carried]
        calls = [lc_call(e) for e in recovered.get("tool_calls") or []]
        calls += [lc_call(e) for e in refused]
        kwargs = {k: v for k, v in message.additional_kwargs.items() if k != REJECTED_CALLS_FIELD}
        update: dict[str, Any] = {
            "tool_calls": calls,
            "invalid_tool_calls": [],
            "additional_kwargs": kwargs,
        }
        text = recovered.get("content")
        if text_of(message.content) is not None:
            update["content"] = text if isinstance(text, str) else ""
        fixed = message.model_copy(update=update)
        answered = [
            *history,
            {**recovered, "tool_calls": [*recovered.get("tool_calls", []), *refused]},
        ]
        answers: list[BaseMessage] = [
            ToolMessage(
                content=rejected_guidance(answered, entry, turn.tools),
                tool_call_id=entry.get("id") or "",
                name=lc_call(entry)["name"],
                status="error",
            )
            for entry in refused
        ]
        return [fixed, *answers]

    # -- tool calls --------------------------------------------------------------------

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        settled, answer = self._before(request)
        if answer is not None:
            return answer
        try:
            outcome = handler(settled)
        except GraphBubbleUp:  # LangGraph's control flow (interrupt, Command to a parent)
            raise
        except Exception as exc:  # the tool raised: the model is told what to do next
            return self._after(settled, raised(exc), failed=True)
        return self._guided(settled, outcome)

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        settled, answer = self._before(request)
        if answer is not None:
            return answer
        try:
            outcome = await handler(settled)
        except GraphBubbleUp:
            raise
        except Exception as exc:
            return self._after(settled, raised(exc), failed=True)
        return self._guided(settled, outcome)

    def _tools_for(self, request: Any) -> list[dict[str, Any]] | None:
        if self.bound_tools:
            return self.bound_tools
        return openai_tools([request.tool]) if request.tool is not None else None

    def _history(self, request: Any) -> list[dict[str, Any]]:
        state = request.state
        messages = state.get("messages") if isinstance(state, Mapping) else None
        return openai_history(messages) if isinstance(messages, list) else []

    def _before(self, request: Any) -> tuple[Any, ToolMessage | None]:
        """The request with its call settled, or the guidance answering it instead."""
        call = request.tool_call
        tools = self._tools_for(request)
        history = self._history(request)
        entry = _openai_call(call)
        stated = {"role": "assistant", "content": None, "tool_calls": [entry]}
        recovered = recover_message(stated, ChatTurn(tools, self.model), self.recovery)
        refused = rejected_calls(recovered)
        if refused:
            text = rejected_guidance(history, refused[0], tools)
            return request, self._answer(call, text)
        settled_entries = recovered.get("tool_calls") or [entry]
        settled = {**lc_call(settled_entries[0]), "id": call.get("id")}
        blocked = blocking_guidance(history, _openai_call(settled), tools)
        if blocked is not None:
            return request, self._answer(call, blocked)
        if settled["name"] != call.get("name") or settled["args"] != call.get("args"):
            request = request.override(tool_call=settled)
        return request, None

    def _guided(self, request: Any, outcome: Any) -> Any:
        if not isinstance(outcome, ToolMessage):
            return outcome  # a Command: the tool steers the graph itself
        text = text_of(outcome.content)
        if text is None:
            return outcome
        guided = self._after(request, text, failed=outcome.status == "error")
        if guided.content == text and guided.status == outcome.status:
            return outcome
        return outcome.model_copy(update={"content": guided.content, "status": guided.status})

    def _after(self, request: Any, text: str, *, failed: bool) -> ToolMessage:
        call = request.tool_call
        tools = self._tools_for(request)
        guided = result_guidance(self._history(request), _openai_call(call), text, tools)
        if guided is None:
            return self._answer(call, text, failed=failed)
        return self._answer(call, guided, failed=failed or is_guidance(guided))

    @staticmethod
    def _answer(call: Mapping[str, Any], text: str, *, failed: bool = True) -> ToolMessage:
        return ToolMessage(
            content=text,
            tool_call_id=call.get("id") or "",
            name=call.get("name"),
            status="error" if failed else "success",
        )
