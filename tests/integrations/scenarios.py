"""The conformance table every adapter runs: one model reply (or one history) per scenario.

Each scenario is what a model sends back and what any host must then hand its agent: the
executable calls (name and arguments), the calls refused (by name), and for the repeated failure
the guidance header of the third result. Hosts run it with their own offline fakes; the
expected values are written here once, so every adapter is held to the same words.

Markup is built from pieces (`LT`, `NS`) so that the fixtures read as the model wrote them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

LT = "<"
NS = "antml" + ":"

READ_FILE = {
    "type": "function",
    "function": {
        "name": "read_file",
        "description": "Read a file of the workspace.",
        "parameters": {
            "type": "object",
            "properties": {
                "file_path": {"type": "string", "description": "path to read"},
                "limit": {"type": "integer", "description": "lines to read"},
            },
            "required": ["file_path"],
            "additionalProperties": False,
        },
    },
}
TOOLS = [READ_FILE]

#: A real error text (Node's ENOENT as agent CLIs relay it).
ENOENT = "Error: ENOENT: no such file or directory, open '/work/missing.txt'"


@dataclass(frozen=True)
class Scenario:
    """One model reply and what every host must make of it."""

    name: str
    model: str
    content: str | None = None
    #: native calls the model made: (name, raw arguments string)
    native: tuple[tuple[str, str], ...] = ()
    calls: tuple[tuple[str, dict[str, Any]], ...] = ()
    rejected: tuple[str, ...] = ()
    #: the guidance header a refused call is answered with (hosts that answer refused calls)
    rejected_guidance: str | None = None
    text: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def _invoke(path: str) -> str:
    return (
        f'{LT}{NS}invoke name="read_file">{LT}{NS}parameter name="file_path">{path}'
        f"{LT}/{NS}parameter>{LT}/{NS}invoke>"
    )


SCENARIOS = [
    Scenario(
        "a hermes call leaked into the text",
        "qwen3-32b",
        content='Let me read it.\n<tool_call>\n{"name": "read_file", "arguments": {"file_path": "a.txt"}}\n</tool_call>',
        calls=(("read_file", {"file_path": "a.txt"}),),
        text="Let me read it.\n",
    ),
    Scenario(
        "a qwen3-coder call leaked into the text",
        "qwen3-coder-30b",
        content="I'll look.\n<function=read_file>\n<parameter=file_path>\na.txt\n</parameter>\n</function>",
        calls=(("read_file", {"file_path": "a.txt"}),),
        text="I'll look.\n",
    ),
    Scenario(
        "a Claude invoke leaked into the text",
        "claude-opus-5",
        content=f"Reading.\n{_invoke('a.txt')}",
        calls=(("read_file", {"file_path": "a.txt"}),),
        text="Reading.\n",
    ),
    Scenario(
        "native arguments that need a repair",
        "gpt-4.1",
        native=(("read_file", '{"path": "a.txt", "limit": "5"}'),),
        calls=(("read_file", {"file_path": "a.txt", "limit": 5}),),
    ),
    Scenario(
        "a call to a tool that does not exist",
        "gpt-4.1",
        native=(("write_note", '{"text": "hi"}'),),
        rejected=("write_note",),
        rejected_guidance="TOOL_NOT_FOUND",
    ),
    Scenario(
        "glued JSON objects in one call's arguments",
        "gpt-4.1",
        native=(("read_file", '{"file_path": "a.txt"}{"file_path": "b.txt"}'),),
        calls=(("read_file", {"file_path": "a.txt"}), ("read_file", {"file_path": "b.txt"})),
    ),
    Scenario(
        "a call cut off by the end of the reply",
        "qwen3-32b",
        content='Reading.\n<tool_call>\n{"name": "read_file", "arguments": {"file_path": "a.t',
        rejected=("read_file",),
        rejected_guidance="INVALID_JSON_ARGUMENTS EI/INVALID_JSON_ARGUMENTS/002",
        text="Reading.\n",
    ),
]


def completion(scenario: Scenario) -> dict[str, Any]:
    """The scenario's reply as an OpenAI `chat.completion`."""
    message: dict[str, Any] = {"role": "assistant", "content": scenario.content}
    if scenario.native:
        message["tool_calls"] = [
            {"id": f"call_n{i}", "type": "function", "function": {"name": n, "arguments": a}}
            for i, (n, a) in enumerate(scenario.native)
        ]
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": scenario.model,
        "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 9, "total_tokens": 14},
    }


def chunks(scenario: Scenario, size: int = 7) -> list[dict[str, Any]]:
    """The scenario's reply streamed: a role chunk, text in `size` pieces, calls, a finish."""
    head = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1}
    head["model"] = scenario.model

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    out = [chunk({"role": "assistant", "content": ""})]
    text = scenario.content or ""
    out += [chunk({"content": text[i : i + size]}) for i in range(0, len(text), size)]
    for i, (name, arguments) in enumerate(scenario.native):
        opening = {"index": i, "id": f"call_n{i}", "type": "function"}
        out.append(
            chunk({"tool_calls": [{**opening, "function": {"name": name, "arguments": ""}}]})
        )
        for j in range(0, len(arguments), size):
            piece = arguments[j : j + size]
            out.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}))
    out.append(chunk({}, "tool_calls" if scenario.native else "stop"))
    return out


def sse(items: list[dict[str, Any]]) -> bytes:
    """Chunks as a server-sent events body, `[DONE]` at the end."""
    events = [f"data: {json.dumps(c)}\n\n" for c in items]
    return "".join([*events, "data: [DONE]\n\n"]).encode()


# -------------------------------------------------------------------- repeated failure


#: The history of a tool failing the same way three times (what every host guards).
def failing_history(times: int = 3) -> list[dict[str, Any]]:
    history: list[dict[str, Any]] = [{"role": "user", "content": "Read /work/missing.txt"}]
    for i in range(times):
        call = {
            "id": f"call_f{i}",
            "type": "function",
            "function": {"name": "read_file", "arguments": '{"file_path": "/work/missing.txt"}'},
        }
        history.append({"role": "assistant", "content": "", "tool_calls": [call]})
        history.append({"role": "tool", "tool_call_id": f"call_f{i}", "content": ENOENT})
    return history


#: The guidance header the third identical failure gets: the loop breaker's escalation.
THIRD_FAILURE = "MODEL_STUCK_LOOP EI/MODEL_STUCK_LOOP/001 | occurrence 3"
FIRST_FAILURE = "FILE_NOT_FOUND EI/FILE_NOT_FOUND/001 | occurrence 1"


def header(guidance: str) -> str:
    """The first line of a guidance block without its version tag."""
    first = guidance.splitlines()[0]
    return first.split("] ", 1)[1] if first.startswith("[toolmend guidance") else first


def outcome(message: dict[str, Any]) -> dict[str, Any]:
    """What an agent gets from an OpenAI assistant message: calls, refused names, text."""
    calls = [
        (c["function"]["name"], json.loads(c["function"]["arguments"]))
        for c in message.get("tool_calls") or []
    ]
    rejected = [c["function"]["name"] for c in message.get("toolmend_rejected_calls") or []]
    return {"calls": calls, "rejected": rejected, "text": message.get("content")}


def expected(scenario: Scenario) -> dict[str, Any]:
    return {"calls": [(n, a) for n, a in scenario.calls], "rejected": list(scenario.rejected)}


def sdk_stream_outcome(chunks: Any) -> dict[str, Any]:
    """What an agent gets from a stream of SDK chunk objects (openai's, LiteLLM's): the calls
    accumulated by index, and the refused calls' names (toolmend's extra delta field)."""
    calls: dict[int, list[str]] = {}
    rejected: list[str] = []
    for chunk in chunks:
        for choice in chunk.choices:
            for call in choice.delta.tool_calls or []:
                entry = calls.setdefault(call.index, ["", ""])
                entry[0] += call.function.name or ""
                entry[1] += call.function.arguments or ""
            refused = getattr(choice.delta, "toolmend_rejected_calls", None) or []
            rejected += [c["function"]["name"] for c in refused]
    ordered = [calls[i] for i in sorted(calls)]
    return {"calls": [(n, json.loads(a)) for n, a in ordered], "rejected": rejected}
