"""The LangChain v1 adapter: the conformance table through `create_agent` with the middleware.

The agent loop is LangChain's own (`create_agent`, its tool node, its routing); the model is
LangChain's fake chat model replaying each scenario's reply, then a closing answer.
"""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("langchain.agents", reason="the langchain extra is not installed")

from langchain_core.messages import AIMessage, ToolMessage

from toolmend.integrations.langchain import ToolmendMiddleware

from .langchain_host import ScriptedModel, Workspace, ai_message, run_agent
from .scenarios import FIRST_FAILURE, SCENARIOS, THIRD_FAILURE, header

DONE = AIMessage(content="Done.")


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_the_agent_runs_the_same_calls_as_every_host(scenario):
    workspace = Workspace()
    messages = run_agent([ai_message(scenario), DONE], workspace, scenario.model)
    ran = sorted(c["file_path"] for c in workspace.calls)  # parallel calls run in any order
    assert ran == sorted(args["file_path"] for _, args in scenario.calls)
    reply = messages[1]
    assert isinstance(reply, AIMessage)
    assert [
        (c["name"], c["args"]) for c in reply.tool_calls if c["name"] not in scenario.rejected
    ] == [(n, a) for n, a in scenario.calls]
    if scenario.text is not None:
        assert reply.content == scenario.text
    assert reply.invalid_tool_calls == []
    assert messages[-1].content == "Done."


@pytest.mark.parametrize("scenario", [s for s in SCENARIOS if s.rejected], ids=lambda s: s.name)
def test_a_refused_call_is_answered_with_guidance_and_the_loop_goes_on(scenario):
    workspace = Workspace()
    messages = run_agent([ai_message(scenario), DONE], workspace, scenario.model)
    answers = [m for m in messages if isinstance(m, ToolMessage)]
    assert [a.status for a in answers] == ["error"] * len(scenario.rejected)
    assert header(answers[0].content).startswith(scenario.rejected_guidance)
    assert workspace.calls == []
    assert messages[-1].content == "Done."


def test_repaired_arguments_are_what_the_tool_receives():
    repair = next(s for s in SCENARIOS if s.name.startswith("native arguments"))
    workspace = Workspace()
    run_agent([ai_message(repair), DONE], workspace, repair.model)
    assert workspace.calls == [{"file_path": "a.txt", "limit": 5}]


def test_a_tool_that_raises_is_answered_with_guidance_and_the_third_time_with_the_loop_breaker():
    call = AIMessage(
        content="",
        tool_calls=[{"name": "read_file", "args": {"file_path": "/work/missing.txt"}, "id": "x"}],
    )
    replies = [
        call.model_copy(update={"tool_calls": [{**call.tool_calls[0], "id": f"c{i}"}]})
        for i in range(3)
    ]
    workspace = Workspace(missing=True)
    messages = run_agent([*replies, DONE], workspace, "gpt-4.1")
    answers = [m for m in messages if isinstance(m, ToolMessage)]
    assert len(workspace.calls) == 3
    assert [a.status for a in answers] == ["error"] * 3
    assert header(answers[0].content).startswith(FIRST_FAILURE)
    assert header(answers[2].content).startswith(THIRD_FAILURE)


def test_a_tool_call_stated_in_the_state_is_settled_before_it_runs():
    middleware = ToolmendMiddleware()
    workspace = Workspace()

    from langgraph.prebuilt.tool_node import ToolCallRequest

    call = {"name": "Read_File", "args": {"path": "a.txt"}, "id": "c1"}
    request = ToolCallRequest(
        tool_call=call, tool=workspace.tool, state={"messages": []}, runtime=None
    )
    seen = []

    def handler(request):
        seen.append(request.tool_call)
        return ToolMessage(content="ok", tool_call_id="c1")

    middleware.wrap_tool_call(request, handler)
    assert seen == [
        {"name": "read_file", "args": {"file_path": "a.txt"}, "id": "c1", "type": "tool_call"}
    ]


def test_the_async_agent_recovers_and_guides_alike():
    from langchain.agents import create_agent

    leak = SCENARIOS[0]
    workspace = Workspace()
    agent = create_agent(
        ScriptedModel(responses=[ai_message(leak), DONE]),
        [workspace.tool],
        middleware=[ToolmendMiddleware()],
    )
    state = asyncio.run(agent.ainvoke({"messages": [{"role": "user", "content": "Read a.txt"}]}))
    assert workspace.calls == [{"file_path": "a.txt", "limit": 10}]
    assert state["messages"][-1].content == "Done."


def test_langgraph_control_flow_raised_by_a_tool_is_never_turned_into_guidance():
    from langgraph.errors import GraphInterrupt
    from langgraph.prebuilt.tool_node import ToolCallRequest

    workspace = Workspace()
    call = {"name": "read_file", "args": {"file_path": "a.txt"}, "id": "c1"}
    request = ToolCallRequest(
        tool_call=call, tool=workspace.tool, state={"messages": []}, runtime=None
    )

    def handler(request):
        raise GraphInterrupt(())

    with pytest.raises(GraphInterrupt):
        ToolmendMiddleware().wrap_tool_call(request, handler)
