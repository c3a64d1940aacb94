"""chat.completion.chunk builders for front-end tests, shaped as vLLM and llama.cpp send them."""

from __future__ import annotations

from typing import Any


def chunk(
    delta: dict[str, Any] | None = None, finish: str | None = None, **choice: Any
) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "qwen3-coder",
        "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish, **choice}],
    }


def text(content: str) -> dict[str, Any]:
    return chunk({"content": content})


def reasoning(content: str, key: str = "reasoning_content") -> dict[str, Any]:
    return chunk({key: content})


def call(
    index: int, *, id: str | None = None, name: str | None = None, arguments: str = ""
) -> dict[str, Any]:
    function: dict[str, Any] = {"arguments": arguments}
    if name is not None:
        function["name"] = name
    entry: dict[str, Any] = {"index": index, "type": "function", "function": function}
    if id is not None:
        entry["id"] = id
    return chunk({"tool_calls": [entry]})


def usage(prompt: int, completion: int, cached: int = 0) -> dict[str, Any]:
    body: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    if cached:
        body["prompt_tokens_details"] = {"cached_tokens": cached}
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "qwen3-coder",
        "choices": [],
        "usage": body,
    }


def split_call_stream(
    arguments: str, name: str = "Write", call_id: str = "call_0"
) -> list[dict[str, Any]]:
    """One call whose first fragment carries the name and the first piece of arguments."""
    pieces = [arguments[i : i + 7] for i in range(0, len(arguments), 7)]
    out = [call(0, id=call_id, name=name, arguments=pieces[0])]
    out += [call(0, arguments=p) for p in pieces[1:]]
    return out


#: Steps of a generated answer: text, reasoning, a call opening (with "{"), its closing fragment.
PLAN_STEPS = ("text", "reasoning", "call0", "call1", "args0", "args1")


def plan_chunks(plan: list[str], name: str) -> list[dict[str, Any]]:
    """The chunks of a generated plan: calls to `name` at index 0 and 1, interleaved freely."""
    out: list[dict[str, Any]] = []
    for step in plan:
        if step == "text":
            out.append(text("t"))
        elif step == "reasoning":
            out.append(reasoning("r"))
        elif step.startswith("call"):
            out.append(call(int(step[-1]), id=f"id{step[-1]}", name=name, arguments="{"))
        else:
            out.append(call(int(step[-1]), arguments="}"))
    return out


def completion(
    content: str,
    calls: list[tuple[str, str, str]],
    usage: tuple[int, int],
    **message: Any,
) -> dict[str, Any]:
    """A `chat.completion` with text, native calls `(id, name, arguments)` and usage."""
    tool_calls = [
        {"id": i, "type": "function", "function": {"name": n, "arguments": a}} for i, n, a in calls
    ]
    body = {"role": "assistant", "content": content, "tool_calls": tool_calls, **message}
    prompt, done = usage
    return {
        "id": "chatcmpl-9",
        "object": "chat.completion",
        "model": "qwen3-coder",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": body}],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": done,
            "total_tokens": prompt + done,
        },
    }
