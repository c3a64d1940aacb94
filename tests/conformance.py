"""Corpus conformance: every case of `tests/corpus/engines/` whose `expected` is known, read by
`toolmend.parse` with the case's own format named and again with `auto`.

A case passes when the executable calls are the expected ones (names and arguments; where
upstream asserts only some keys, `expected_partial`, the names and those keys, and the texts
that `expected_contains` says a value must contain). A `plain_text`
case (no call at all) is read by every registered protocol when named: none may return a call.
The cases toolmend decides differently are listed in `tests/corpus/conformance.exceptions.json`
with a reason each; `tests/test_corpus_conformance.py` holds the list to the facts and
`bench/conformance_table.py` prints the per-format table (and rewrites the list with `--write`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import toolmend

CORPUS = Path(__file__).parent / "corpus"
ENGINES = CORPUS / "engines"
EXCEPTIONS_FILE = CORPUS / "conformance.exceptions.json"
MODES = ("named", "auto")

#: The reason of a case whose format has no registered protocol yet.
NOT_IMPLEMENTED = "format not implemented"
#: What `--write` puts beside a new failing case of a registered format: the test refuses it
#: until someone writes the real reason.
UNEXPLAINED = "UNEXPLAINED: write why this case is decided differently"

#: Corpus `format` label -> the protocol id that reads it. Each engineer keeps the lines of the
#: formats they own. `None`: no call at all (every protocol is tried); "auto": only the detector
#: can read it (several formats in one output).
FORMAT_PROTOCOLS: dict[str, str | None] = {
    "plain_text": None,
    "mixed_json_and_qwen3_coder": "auto",
    # landed before the native-formats issue
    "hermes": "hermes",
    "qwen3_coder": "qwen3-coder",
    "gemma4": "gemma4",
    # key/value tags, XML and pythonic families (formats-b)
    "glm45": "glm45",
    "glm47": "glm47",
    "glm_name_json": "glm45",
    "pythonic_lfm2": "lfm2",
    "olmo3_pythonic": "olmo3",
    "pythonic": "pythonic",
    "minimax_m2": "minimax-m2",
    "functiongemma": "functiongemma",
    "gemma_tool_code": "gemma-tool-code",
    "bracket_calling_tool": "calling-tool",
    # JSON in delimiters and special-token families (formats-a)
    "mistral": "mistral",
    "mistral_v11": "mistral",
    "deepseek_v3": "deepseek",
    "deepseek_v31": "deepseek",
    "harmony": "harmony",
    "json_bare": "json",
    "json_list": "json",
    "json_codeblock": "json",
    "json_single_quoted": "json",
    "llama3_json": "llama3-json",
    "kimi_k2": "kimi-k2",
    "functionary_v3.1": "functionary-v3.1",
    "functionary_v2": "functionary-v2",
    "cohere_command_a": "cohere",
    "longcat": "longcat",
    "granite": "granite",
    "minimax_m1": "minimax-m1",
    # vLLM's parser tests of the families with few cases elsewhere (fmt6)
    "xlam": "json",
    "jamba": "minimax-m1",
    "internlm2": "internlm2",
    "phi4_mini": "phi4-mini",
    # SGLang's detector tests (fmt7)
    "deepseek_v32": "deepseek-v3.2",
    "seed_oss": "seed-oss",
    # the SGLang gateway's Step-3 tests (fmt8)
    "step3": "step3",
    # vLLM's newer parser tests (fmt9): Hunyuan A13B writes Jamba's `<tool_calls>[…]`, ERNIE 4.5
    # Hermes's `<tool_call>{…}`; GigaChat 3 has no protocol yet
    "hunyuan_a13b": "minimax-m1",
    "ernie45": "hermes",
    "gigachat3": "gigachat3",
    # SGLang's MiniCPM4 detector (fmt9): `<function name="…"><param name="…">`, no protocol yet
    "minicpm4_xml": "minicpm4-xml",
    # transformers' response-template tests (fmt10): Inkling's (TMLv0) message blocks, no
    # protocol yet; llama-stack's Llama 3/4 tool-call tests use pythonic and llama3_json
    "inkling": "inkling",
    # NVIDIA Dynamo's tool-calling fixtures (fmt10): Nemotron's `<TOOLCALL>[…]</TOOLCALL>`
    "nemotron": "nemotron",
    # llama.cpp's newer test-chat.cpp (fmt11): Kimi K3's XTML, Functionary v3.2's recipients,
    # FireFunction v2's `functools[…]` (Phi-4-mini's list), and the families with no protocol
    # yet: Apertus, Command R+, MiniMax-M3, Muse Glimmer
    "kimi_xtml": "kimi-xtml",
    "functionary_v3": "functionary-v3",
    "firefunction_v2": "phi4-mini",
    "apertus": "apertus",
    "command_r_plus": "command-r-plus",
    "minimax_m3": "minimax-m3",
    "glimmer": "glimmer",
    # SGLang's newest detector tests (fmt15): K2V3's IFM tags (`<ifm|tool_call>NAME<ifm|arg_key>…`)
    "k2v3_ifm": "k2-v3",
    # vLLM's newest parser tests (fmt17): HY V4's GLM-4.7 key/value tags, every token suffixed
    # `:opensource` (its preview tokenizers' bare spelling is GLM-4.7's, labelled glm47); Granite
    # 20B FC's `<function_call> {…}`, which the granite protocol reads
    "hy_v4": "hy-v4",
    "granite_20b_fc": "granite",
    # Qwen2.5-Coder's `<tools>{…}</tools>` (vLLM's qwen25_coder parser); Granite's pythonic calls
    # written bare, one per line
    "qwen25_coder_tools": "qwen25-coder",
    "granite_pythonic": "pythonic",
}


def load_engine_cases() -> list[dict[str, Any]]:
    """Every parser case with a known `expected`, in file order."""
    cases = []
    for path in sorted(ENGINES.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            case = json.loads(line) if line.strip() else None
            if case is not None and case.get("expected") is not None:
                cases.append(case)
    return cases


def load_exceptions() -> dict[str, dict[str, str]]:
    data = json.loads(EXCEPTIONS_FILE.read_text()) if EXCEPTIONS_FILE.exists() else {}
    return {mode: dict(data.get(mode, {})) for mode in MODES}


#: Formats whose cases may keep only the inner segment of a call (the text between its markers,
#: what upstream's test of the inner function gets) without saying so in `delimiters`: the
#: markers, and a pattern such a segment starts with ("" for anything that lacks the opener).
INNER_SEGMENTS = {
    # Ollama's qwen3vl tests call `parseJSONToolCall` on the JSON between the tags.
    "hermes": ("<tool_call>", "</tool_call>", "{"),
    "gemma4": ("<|tool_call>", "<tool_call|>", "call:"),
    "glm45": ("<tool_call>", "</tool_call>", ""),
    "glm47": ("<tool_call>", "</tool_call>", ""),
    "pythonic_lfm2": ("<|tool_call_start|>", "<|tool_call_end|>", ""),
    "olmo3_pythonic": ("<function_calls>", "</function_calls>", ""),
    "minimax_m2": ("<minimax:tool_call>", "</minimax:tool_call>", "<invoke"),
    # Ollama's parseToolCallContent tests: `NAME<｜tool▁sep｜>…` (V3.1) or
    # `function<｜tool▁sep｜>NAME…` (V3, cogito), the text between one call's tokens.
    "deepseek_v3": ("<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "[^<]*<｜tool▁sep｜>"),
    "deepseek_v31": ("<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "[^<]*<｜tool▁sep｜>"),
}


def case_text(case: dict[str, Any]) -> str:
    """The output as a server streams it (some cases keep only the inner segment)."""
    text, delimiters = case["text"], case.get("delimiters")
    opener, closer, start = INNER_SEGMENTS.get(case["format"], ("", "", None))
    if not delimiters and start is not None and opener not in text and re.match(start, text):
        delimiters = [opener, closer]
    return delimiters[0] + text + delimiters[1] if delimiters else text


def case_tools(case: dict[str, Any]) -> Any:
    """The case's tools without the `null` members upstream's Go structs write for an empty
    field (`"required": null`): they mean "not given", and JSON Schema has no null keywords."""

    def without_nulls(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: without_nulls(v) for k, v in value.items() if v is not None}
        if isinstance(value, list):
            return [without_nulls(v) for v in value]
        return value

    return without_nulls(case.get("tools"))


def executable_calls(text: str, protocol: str, tools: Any) -> list[dict[str, Any]]:
    result = toolmend.parse(text, protocol, tools)
    return [{"name": c.name, "arguments": c.arguments} for c in result.tool_calls if c.executable]


def expected_calls(case: dict[str, Any]) -> list[dict[str, Any]]:
    """The case's expected calls, arguments as objects where a case holds them as JSON text
    (text that is not JSON stays: upstream passes invalid arguments on as written)."""
    out = []
    for e in case["expected"]:
        try:
            out.append({**e, "arguments": json.loads(e["arguments"])})
        except (TypeError, ValueError):
            out.append(e)
    return out


def matches(got: list[dict[str, Any]], case: dict[str, Any]) -> bool:
    expected = expected_calls(case)
    if not case.get("expected_partial"):
        return bool(got == expected)
    if [g["name"] for g in got] != [e["name"] for e in expected]:
        return False
    for g, e in zip(got, expected, strict=True):
        wanted = e.get("arguments")
        if isinstance(wanted, dict) and any(g["arguments"].get(k) != v for k, v in wanted.items()):
            return False
    # Where upstream asserts only that a value contains some text (Ginkgo's ContainSubstring),
    # `expected_contains` holds, per call, each such key and the texts its value must contain.
    for g, contains in zip(got, case.get("expected_contains", []), strict=False):
        for key, texts in contains.items():
            value = g["arguments"].get(key)
            if not isinstance(value, str) or not all(t in value for t in texts):
                return False
    return True


def named_protocols(case: dict[str, Any]) -> list[str] | None:
    """The protocols a named run uses; None when the case's format is not registered."""
    protocol = FORMAT_PROTOCOLS.get(case["format"], "")
    if protocol is None:
        return toolmend.protocols()
    return [protocol] if protocol == "auto" or protocol in toolmend.protocols() else None


@dataclass(frozen=True)
class Outcome:
    passed: bool
    #: Why it failed, in a few words (the calls read, or a crash), for the table's details.
    detail: str = ""
    #: A call was returned that upstream says should not exist.
    spurious: bool = False


def outcome(case: dict[str, Any], mode: str) -> Outcome:
    """How `mode` ("named" or "auto") decides `case`."""
    protocols = named_protocols(case) if mode == "named" else ["auto"]
    if protocols is None:
        return Outcome(False, NOT_IMPLEMENTED)
    text, tools = case_text(case), case_tools(case)
    for protocol in protocols:
        try:
            got = executable_calls(text, protocol, tools)
        except Exception as exc:  # a crash is a failed case, reported with its type
            return Outcome(False, f"{protocol}: {type(exc).__name__}: {exc}"[:200])
        if not matches(got, case):
            spurious = len(got) > len(case["expected"])
            return Outcome(False, f"{protocol}: read {json.dumps(got)[:160]}", spurious)
    return Outcome(True)


def all_outcomes() -> Iterator[tuple[dict[str, Any], str, Outcome]]:
    for case in load_engine_cases():
        for mode in MODES:
            yield case, mode, outcome(case, mode)
