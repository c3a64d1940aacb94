"""Leaks users reported, replayed through `recover_stream` as the server streamed them.

Each case is the text a model wrote into `content` as quoted in a public bug report (the
tools reduced to the ones it calls, with string parameters). Every one comes out as the same
calls with only the prose around them left as text, however the content is split; the bare
JSON ones also with `tools=None` (each is the whole output).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from .wire import recover, split_every


def _tool(name: str, *params: str) -> dict[str, Any]:
    properties = {p: {"type": "string"} for p in params}
    return {
        "type": "function",
        "function": {
            "name": name,
            "parameters": {"type": "object", "properties": properties, "required": [params[0]]},
        },
    }


#: report -> (model, content as written, the tools, the calls it makes)
REPORTS: dict[str, tuple[str, str, list[dict[str, Any]], list[str]]] = {
    "vllm-project/vllm#11786 (Llama 3.2, the OpenAI call shape)": (
        "llama-3.2-11b-vision-instruct",
        '{"type": "function", "function": {"name": "get_current_traffic", "parameters": '
        '{"location": "Sydney"}}}',
        [_tool("get_current_traffic", "location")],
        ["get_current_traffic"],
    ),
    "Gitlawb/openclaude#433 (qwen2.5-coder on Ollama)": (
        "qwen2.5-coder:14b",
        '{\n  "name": "WebSearch",\n  "arguments": {\n    "query": "repository structure"\n  }\n}',
        [_tool("WebSearch", "query")],
        ["WebSearch"],
    ),
    "nbonamy/multi-llm-ts#4 (llama3.2, type and parameters beside the name)": (
        "llama3.2",
        '{"type": "function", "name": "arxiv__search_papers", "parameters": {"query": '
        '"PV systems in cooperative Renewable Energy Communities in Europe", "date_from": '
        '"2020", "max_results": "100"}}',
        [_tool("arxiv__search_papers", "query", "date_from", "max_results")],
        ["arxiv__search_papers"],
    ),
    "sgomez/ollama-ai-provider#11 (two objects side by side)": (
        "llama3.1",
        '{\n  "name": "weather",\n  "arguments": {\n    "location": "San Francisco"\n  }\n} '
        '{\n  "name": "cityAttractions",\n  "arguments": {\n    "city": "San Francisco"\n  }\n}',
        [_tool("weather", "location"), _tool("cityAttractions", "city")],
        ["weather", "cityAttractions"],
    ),
    "mudler/LocalAI#10052 (qwen3-4b, arguments before the name)": (
        "qwen3-4b",
        '{"arguments": {"message": "Hello!"}, "name": "send_message"}',
        [_tool("send_message", "message")],
        ["send_message"],
    ),
    "ggml-org/llama.cpp#14697 (devstral, the tool_calls envelope)": (
        "devstral",
        '{\n  "tool_calls": [\n    {\n      "name": "file_view",\n      "arguments": {\n'
        '        "path": "src/util.rs"\n      },\n      "id": "162875335"\n    }\n  ]\n}',
        [_tool("file_view", "path")],
        ["file_view"],
    ),
    "ollama/ollama#11185 (the whole Ollama message)": (
        "qwen3:30b-a3b",
        json.dumps(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "function": {
                            "name": "LLM_Tool_RAG",
                            "arguments": {"term": "accidents", "vector": "Versailles court"},
                        }
                    }
                ],
            }
        ),
        [_tool("LLM_Tool_RAG", "term", "vector")],
        ["LLM_Tool_RAG"],
    ),
}
#: report -> (model, content, tools, calls, the visible text left): calls in markup after prose.
IN_PROSE: dict[str, tuple[str, str, list[dict[str, Any]], list[str], str]] = {
    "vllm-project/vllm#22975 (Qwen3-Coder, a regex in a parameter)": (
        "Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8",
        "Let me try to grep for the implementation of BaseService.\n\n<tool_call>\n"
        "<function=GrepTool>\n<parameter=pattern>\nclass BaseService\\(\n</parameter>\n"
        "<parameter=path>\n.\n</parameter>\n</function>\n</tool_call>",
        [_tool("GrepTool", "pattern", "path")],
        ["GrepTool"],
        "Let me try to grep for the implementation of BaseService.\n\n",
    ),
}


@pytest.mark.parametrize("report", list(IN_PROSE))
@pytest.mark.parametrize("size", [1, 5, 4096])
def test_a_reported_leak_after_prose_comes_out_as_its_calls_and_the_prose(
    report: str, size: int
) -> None:
    model, content, tools, names, visible = IN_PROSE[report]
    got = recover(split_every(content, size), tools=tools, model=model)
    assert [name for name, _ in got["calls"]] == names
    assert got["text"] == visible
    assert got["finish"] == ["tool_calls"]


@pytest.mark.parametrize("report", list(REPORTS))
@pytest.mark.parametrize("size", [1, 5, 4096])
def test_a_reported_leak_comes_out_as_its_calls(report: str, size: int) -> None:
    model, content, tools, names = REPORTS[report]
    for given in (tools, None):
        got = recover(split_every(content, size), tools=given, model=model)
        assert [name for name, _ in got["calls"]] == names
        assert got["text"] == ""
        assert got["rejected"] == []
        assert got["finish"] == ["tool_calls"]
