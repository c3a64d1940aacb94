"""`toolmend demo`: the proxy on loopback against the scripted upstream, driven by `openai`.

This module owns the demo run: start the scripted upstream and the proxy in-process on free
loopback ports, send every bundled case once straight to the upstream (what an agent gets
without toolmend) and twice through the proxy (streaming and not, with the official `openai`
client), print what each received and whether it is right, and exit 0 only when every case
is. It touches no other address and leaves nothing running.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Iterable
from typing import Any, TextIO

import openai

from toolmend.server.app import create_app
from toolmend.server.config import ServerConfig, Upstream
from toolmend.server.demo.cases import DemoCase, Received, load_cases, scripts_for
from toolmend.server.demo.scripted import ScriptedUpstream
from toolmend.server.loopback import LoopbackServer
from toolmend.server.requestlog import SCHEMA

#: Characters of visible text shown per answer.
SHOWN_TEXT = 110
DEMO_KEY = "demo-key-not-a-secret"


def _arguments(text: str | None) -> Any:
    """Arguments as an agent reads them: JSON, or the raw text it could not parse."""
    try:
        return json.loads(text or "{}")
    except ValueError:
        return f"<not JSON: {text}>"


def _received_from_message(message: Any) -> Received:
    calls = [(c.function.name, _arguments(c.function.arguments)) for c in message.tool_calls or ()]
    flagged = [f"{c['function']['name']}: {c.get('error')}" for c in _rejected(message)]
    return Received(message.content or "", calls, flagged)


def _rejected(part: Any) -> list[dict[str, Any]]:
    extra = getattr(part, "model_extra", None) or {}
    return list(extra.get("toolmend_rejected_calls") or ())


def _received_from_stream(chunks: Iterable[Any]) -> Received:
    text: list[str] = []
    calls: dict[int, list[str]] = {}
    flagged: list[str] = []
    for chunk in chunks:
        for choice in chunk.choices:
            delta = choice.delta
            text.append(delta.content or "")
            for part in delta.tool_calls or ():
                slot = calls.setdefault(part.index, ["", ""])
                if part.function is not None:
                    slot[0] += part.function.name or ""
                    slot[1] += part.function.arguments or ""
            flagged += [f"{c['function']['name']}: {c.get('error')}" for c in _rejected(delta)]
    ordered = [(name, _arguments(args)) for name, args in (calls[i] for i in sorted(calls))]
    return Received("".join(text), ordered, flagged)


def _ask(client: openai.OpenAI, case: DemoCase, stream: bool) -> Received:
    request: dict[str, Any] = {"model": case.model, "messages": case.messages, "tools": case.tools}
    if stream:
        return _received_from_stream(client.chat.completions.create(**request, stream=True))
    answer = client.chat.completions.create(**request)
    return _received_from_message(answer.choices[0].message)


def _describe(received: Received) -> str:
    text = received.text.strip().replace("\n", "\\n")
    if len(text) > SHOWN_TEXT:
        text = text[: SHOWN_TEXT - 1] + "…"
    calls = ", ".join(
        f"{name}({json.dumps(args, ensure_ascii=False)})" for name, args in received.calls
    )
    parts = [f'text "{text}"' if text else "no text", calls or "no tool calls"]
    if received.flagged:
        parts.append(f"flagged: {'; '.join(received.flagged)}")
    return " · ".join(parts)


def _log_lines(path: str, seen: int) -> tuple[list[dict[str, Any]], int]:
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    records = [json.loads(line) for line in lines[seen:] if line.strip()]
    return [r for r in records if r.get("schema") == SCHEMA], len(lines)


def _what_toolmend_did(records: list[dict[str, Any]]) -> str:
    notes: list[str] = []
    record = records[-1] if records else {}
    for key, label in (
        ("recovered", "recovered"),
        ("repairs", "repaired"),
        ("guidance", "guidance"),
    ):
        counts = record.get(key) or {}
        if counts:
            notes.append(f"{label} {', '.join(f'{k}×{v}' for k, v in counts.items())}")
    for key, label in (("self_corrections", "self-corrected"), ("loops_broken", "loop broken")):
        if record.get(key):
            notes.append(f"{label} ×{record[key]}")
    splits = (record.get("diagnostics") or {}).get("concatenated_json_split")
    if splits:
        notes.append(f"glued JSON split ×{splits}")
    return "; ".join(notes) or "nothing to do"


def run_demo(out: TextIO = sys.stdout) -> int:
    """Run every bundled case; 0 when all came out right, 1 otherwise."""
    cases = load_cases()
    upstream = ScriptedUpstream(scripts_for(cases))
    failures = 0
    with tempfile.TemporaryDirectory(prefix="toolmend-demo-") as workdir:
        log_path = os.path.join(workdir, "requests.jsonl")
        with LoopbackServer(upstream.app()) as model_server:
            config = ServerConfig(
                upstreams=(Upstream("scripted", f"{model_server.url}/v1"),),
                log_file=log_path,
                source="demo",
            )
            with LoopbackServer(create_app(config)) as proxy:
                direct = openai.OpenAI(
                    base_url=f"{model_server.url}/v1", api_key=DEMO_KEY, max_retries=0
                )
                through = openai.OpenAI(base_url=f"{proxy.url}/v1", api_key=DEMO_KEY, max_retries=0)
                banner = f"proxy {proxy.url} → scripted model server {model_server.url}"
                print(f"toolmend demo: {banner}\n", file=out)
                seen = 0
                for number, case in enumerate(cases, 1):
                    without = _ask(direct, case, stream=False)
                    streamed = _ask(through, case, stream=True)
                    whole = _ask(through, case, stream=False)
                    records, seen = _log_lines(log_path, seen)
                    problems = [f"stream: {p}" for p in case.problems(streamed)]
                    problems += [f"non-stream: {p}" for p in case.problems(whole)]
                    if streamed.calls != whole.calls:
                        problems.append("streaming and non-streaming answers differ")
                    failures += bool(problems)
                    source = case.provenance
                    print(f"[{number}/{len(cases)}] {case.id}: {case.title}", file=out)
                    print(
                        f"    model {case.model}; source {source['source']} ({source['license']})",
                        file=out,
                    )
                    print(f"    without toolmend: {_describe(without)}", file=out)
                    print(f"    with toolmend:    {_describe(streamed)}", file=out)
                    print(f"    toolmend:         {_what_toolmend_did(records)}", file=out)
                    verdict = (
                        "right (streaming and not)"
                        if not problems
                        else "WRONG: " + "; ".join(problems)
                    )
                    print(f"    {'✓' if not problems else '✗'} {verdict}\n", file=out)
    total = len(cases)
    print(f"{total - failures} of {total} cases right.", file=out)
    return 0 if failures == 0 else 1
