"""The pydantic-ai adapter: the conformance table through an `Agent` on `FunctionModel`.

The agent loop is pydantic-ai's own; the model is its `FunctionModel` replaying each scenario's
reply, then a closing answer.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

pytest.importorskip("pydantic_ai", reason="the pydantic-ai extra is not installed")

from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    PartDeltaEvent,
    PartStartEvent,
    TextPart,
    TextPartDelta,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from toolmend.integrations.pydantic_ai import Toolmend
from toolmend.recovery.textmode import calls_text

from .scenarios import FIRST_FAILURE, SCENARIOS, THIRD_FAILURE, Scenario, header


def reply(scenario: Scenario) -> ModelResponse:
    parts: list[Any] = []
    if scenario.content:
        parts.append(TextPart(content=scenario.content))
    parts += [
        ToolCallPart(tool_name=name, args=raw, tool_call_id=f"call_n{i}")
        for i, (name, raw) in enumerate(scenario.native)
    ]
    return ModelResponse(parts=parts, model_name=scenario.model)


class Host:
    """An agent with one `read_file` tool, a scripted model and the capability."""

    def __init__(self, replies: list[ModelResponse], *, missing: bool = False) -> None:
        self.ran: list[dict[str, Any]] = []
        self.replies = list(replies)
        self.seen: list[list[ModelMessage]] = []

        def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            self.seen.append(list(messages))
            return self.replies.pop(0) if self.replies else ModelResponse(parts=[TextPart("Done.")])

        self.agent = Agent(FunctionModel(respond), capabilities=[Toolmend()])

        @self.agent.tool_plain
        def read_file(file_path: str, limit: int = 10) -> str:
            """Read a file of the workspace."""
            self.ran.append({"file_path": file_path, "limit": limit})
            if missing:
                raise FileNotFoundError(2, "No such file or directory", file_path)
            return f"contents of {file_path}"

    def run(self) -> Any:
        return self.agent.run_sync("Read a.txt")


def tool_returns(result: Any) -> list[ToolReturnPart]:
    return [
        part
        for message in result.all_messages()
        for part in getattr(message, "parts", [])
        if isinstance(part, ToolReturnPart)
    ]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_the_agent_runs_the_same_calls_as_every_host(scenario):
    host = Host([reply(scenario)])
    result = host.run()
    ran = sorted(r["file_path"] for r in host.ran)  # parallel calls run in any order
    assert ran == sorted(a["file_path"] for _, a in scenario.calls)
    first = result.all_messages()[1]
    calls = [(p.tool_name, p.args_as_dict()) for p in first.parts if isinstance(p, ToolCallPart)]
    assert [c for c in calls if c[0] not in scenario.rejected] == list(scenario.calls)
    if scenario.text is not None:
        assert [p.content for p in first.parts if isinstance(p, TextPart)] == [scenario.text]
    assert result.output == "Done."


def test_repaired_arguments_are_what_the_tool_receives():
    repair = next(s for s in SCENARIOS if s.name.startswith("native arguments"))
    host = Host([reply(repair)])
    host.run()
    assert host.ran == [{"file_path": "a.txt", "limit": 5}]


def test_a_call_cut_off_is_answered_with_guidance_without_spending_retries():
    cut = next(s for s in SCENARIOS if s.name.startswith("a call cut off"))
    host = Host([reply(cut)])
    result = host.run()
    returns = tool_returns(result)
    assert host.ran == []
    assert [r.outcome for r in returns] == ["failed"]
    assert header(returns[0].content).startswith(cut.rejected_guidance)


def test_arguments_that_cannot_validate_are_answered_with_guidance():
    bad = ModelResponse(
        parts=[
            ToolCallPart(tool_name="read_file", args=json.dumps({"limit": 3}), tool_call_id="c1")
        ]
    )
    host = Host([bad])
    returns = tool_returns(host.run())
    assert host.ran == [] and returns[0].outcome == "failed"
    assert header(returns[0].content).startswith("PARAM_MISSING EI/PARAM_MISSING/001")


def test_a_tool_that_raises_three_times_meets_the_loop_breaker():
    calls = [
        ModelResponse(
            parts=[
                ToolCallPart(
                    tool_name="read_file",
                    args={"file_path": "/work/missing.txt"},
                    tool_call_id=f"c{i}",
                )
            ]
        )
        for i in range(3)
    ]
    host = Host(calls, missing=True)
    returns = tool_returns(host.run())
    assert len(host.ran) == 3
    assert [r.outcome for r in returns] == ["failed"] * 3
    assert header(returns[0].content).startswith(FIRST_FAILURE)
    assert header(returns[2].content).startswith(THIRD_FAILURE)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_a_streamed_run_runs_the_same_calls(scenario):
    import asyncio

    from pydantic_ai.models.function import DeltaToolCall

    ran: list[str] = []

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> Any:
        if len(messages) > 1:
            yield "Done."
            return
        text = scenario.content or ""
        for i in range(0, len(text), 7):
            yield text[i : i + 7]
        for i, (name, raw) in enumerate(scenario.native):
            yield {i: DeltaToolCall(name=name, json_args=raw, tool_call_id=f"call_n{i}")}

    agent = Agent(
        FunctionModel(stream_function=stream, model_name=scenario.model), capabilities=[Toolmend()]
    )

    @agent.tool_plain
    def read_file(file_path: str, limit: int = 10) -> str:
        """Read a file of the workspace."""
        ran.append(file_path)
        return "ok"

    streamed: list[str] = []

    async def run() -> Any:
        async def watch(ctx: Any, events: Any) -> None:
            async for event in events:
                if isinstance(event, PartStartEvent) and isinstance(event.part, TextPart):
                    streamed.append(event.part.content)
                elif isinstance(event, PartDeltaEvent) and isinstance(event.delta, TextPartDelta):
                    streamed.append(event.delta.content_delta)

        return await agent.run("Read a.txt", event_stream_handler=watch)

    result = asyncio.run(run())
    assert sorted(ran) == sorted(a["file_path"] for _, a in scenario.calls)
    assert result.output == "Done."
    if scenario.text is not None:  # what the consumer saw stream: the text, never the markup
        assert "".join(streamed) == scenario.text + "Done."


def test_a_tools_own_model_retry_stays_pydantic_ais_retry():
    from pydantic_ai import ModelRetry

    asked: list[int] = []
    first = ModelResponse(parts=[ToolCallPart(tool_name="check", args={}, tool_call_id="c1")])
    host = Host([first])

    @host.agent.tool_plain
    def check() -> str:
        """Checks once, asks again the first time."""
        asked.append(1)
        if len(asked) == 1:
            raise ModelRetry("try once more")
        return "fine"

    returns = tool_returns(host.run())
    assert [r.outcome for r in returns] == ["retried"]
    assert "try once more" in str(returns[0].content)


# ------------------------------------------------------------------- text-protocol mode


class TextHost:
    """An agent whose model has no native tool calling: toolmend's text-protocol mode."""

    def __init__(self, replies: list[str]) -> None:
        self.ran: list[dict[str, Any]] = []
        self.replies = list(replies)
        self.infos: list[AgentInfo] = []
        self.seen: list[list[ModelMessage]] = []

        def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            self.infos.append(info)
            self.seen.append(list(messages))
            text = self.replies.pop(0) if self.replies else "Done."
            return ModelResponse(parts=[TextPart(text)], model_name="qwen3-32b")

        async def stream(messages: list[ModelMessage], info: AgentInfo) -> Any:
            text = respond(messages, info).parts[0].content
            for i in range(0, len(text), 6):
                yield text[i : i + 6]

        model = FunctionModel(respond, stream_function=stream)
        capability = Toolmend(text_protocol="hermes")
        self.agent = Agent(model, instructions="Be brief.", capabilities=[capability])

        @self.agent.tool_plain
        def read_file(file_path: str, limit: int = 10) -> str:
            """Read a file of the workspace."""
            self.ran.append({"file_path": file_path, "limit": limit})
            return f"contents of {file_path}"


def sent_text(messages: list[ModelMessage]) -> str:
    return "\n".join(
        str(getattr(part, "content", "")) for message in messages for part in message.parts
    )


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "stream"])
def test_in_text_mode_tools_go_into_the_instructions_and_history_is_text(streamed):
    leak = SCENARIOS[0]
    host = TextHost([leak.content, "Done."])
    if streamed:

        async def watch(ctx: Any, events: Any) -> None:  # streams every model response
            async for _ in events:
                pass

        asyncio.run(host.agent.run("Read a.txt", event_stream_handler=watch))
    else:
        host.agent.run_sync("Read a.txt")
    assert host.ran == [{"file_path": "a.txt", "limit": 10}]
    first, second = host.infos[:2]
    assert first.function_tools == [] and second.function_tools == []
    assert "read_file" in (first.instructions or "") and "Be brief." in (first.instructions or "")
    history = sent_text(host.seen[1])
    assert "<tool_call>" in history and "contents of a.txt" in history
    assert not any(
        isinstance(p, ToolCallPart | ToolReturnPart) for m in host.seen[1] for p in m.parts
    )


def test_in_text_mode_the_history_is_written_with_the_proxys_text_mode_code():
    host = TextHost([SCENARIOS[0].content, "Done."])
    host.agent.run_sync("Read a.txt")
    call = next(p for m in host.seen[1] if isinstance(m, ModelResponse) for p in m.parts)
    entry = {"id": "x", "function": {"name": "read_file", "arguments": '{"file_path": "a.txt"}'}}
    written = calls_text("hermes", "Let me read it.\n", [entry])
    assert call.content == written
