"""The vLLM tool-parser plugin inside vLLM's own parsing path, with a small local tokenizer.

The parser is looked up as vLLM's server does (`ParserManager.get_parser` with
`--enable-auto-tool-choice`), built per request with the request's tools, and driven by vLLM's
`Parser.parse` (a whole reply) and `ChatStreamProcessor.step` (a stream, one engine step per
token, the last one carrying the finish reason, which is where vLLM calls
`finish_streaming()`). The tokenizer is a byte-level BPE trained here on the replies and loaded
through vLLM's `get_tokenizer`, so token boundaries cut markup as a real model's do.

vLLM reads only the text the model wrote: the table's text replies run as they are, and its
native-call scenarios as their text twins (the same call written as a Hermes block).
"""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from typing import Any

import pytest

from .scenarios import SCENARIOS, TOOLS, Scenario, expected

pytest.importorskip(
    "vllm.tool_parsers",
    reason="vLLM is not installed (pip install 'toolmend[vllm]'; see the README's vLLM section)",
)

from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
from vllm.entrypoints.openai.chat_completion.stream_processor import (
    ChatStreamProcessor,
)
from vllm.parser.parser_manager import ParserManager
from vllm.tokenizers import get_tokenizer
from vllm.tool_parsers.abstract_tool_parser import ToolParserManager

import toolmend
from toolmend.integrations.vllm import PARSER_NAME, ToolmendToolParser


def hermes(name: str, arguments: str) -> str:
    return f'<tool_call>\n{{"name": "{name}", "arguments": {arguments}}}\n</tool_call>'


def text_twin(scenario: Scenario) -> Scenario:
    """A native-call scenario as a model served by vLLM writes it: the calls as Hermes text."""
    blocks = "\n".join(hermes(name, arguments) for name, arguments in scenario.native)
    return replace(scenario, content=f"On it.\n{blocks}", native=(), text="On it.\n")


#: The native scenarios whose text twin means the same; glued arguments and an unknown tool are
#: properties of native calls (a text block to an undeclared tool stays text in native mode).
TWINS = {"native arguments that need a repair"}
ROWS = [s for s in SCENARIOS if not s.native] + [text_twin(s) for s in SCENARIOS if s.name in TWINS]


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A byte-level BPE learnt from the replies, saved and loaded the way vLLM loads a model's."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=["<|endoftext|>"],
    )
    bpe.train_from_iterator([s.content or "" for s in ROWS] * 4, trainer=trainer)
    folder = tmp_path_factory.mktemp("tokenizer")
    bpe.save(str(folder / "tokenizer.json"))
    config = {"tokenizer_class": "PreTrainedTokenizerFast", "eos_token": "<|endoftext|>"}
    (folder / "tokenizer_config.json").write_text(json.dumps(config))
    return get_tokenizer(str(folder))


def request(scenario: Scenario, stream: bool) -> ChatCompletionRequest:
    return ChatCompletionRequest(
        model=scenario.model,
        messages=[{"role": "user", "content": "Read a.txt"}],
        tools=TOOLS,
        stream=stream,
    )


def parser_for(name: str, tokenizer: Any, req: ChatCompletionRequest) -> tuple[Any, Any]:
    parser_cls = ParserManager.get_parser(
        tool_parser_name=name, enable_auto_tools=True, tokenizer=tokenizer
    )
    return parser_cls, parser_cls(tokenizer, req.tools)


def calls_of(function_calls: list[Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(c.name, json.loads(c.arguments)) for c in function_calls]


def streamed(scenario: Scenario, tokenizer: Any, name: str = PARSER_NAME) -> dict[str, Any]:
    """The scenario's reply through vLLM's stream processor, token by token."""
    req = request(scenario, stream=True)
    parser_cls, parser = parser_for(name, tokenizer, req)
    steps = ChatStreamProcessor(req, parser, enable_auto_tools=True, parser_cls=parser_cls)
    prompt = tokenizer.encode("Read a.txt", add_special_tokens=False)
    ids = tokenizer.encode(scenario.content, add_special_tokens=False)
    assert tokenizer.decode(ids) == scenario.content
    text, calls, finish = "", {}, None
    decoded = ""
    for position, token in enumerate(ids):
        upto = tokenizer.decode(ids[: position + 1])
        delta_text, decoded = upto[len(decoded) :], upto
        last = position == len(ids) - 1
        step = steps.step(delta_text, [token], "stop" if last else None, prompt)
        prompt = None  # the serving layer passes the prompt's ids with the first step only
        finish = step.finish_reason or finish
        delta = step.delta
        if delta is None:
            continue
        text += delta.content or ""
        for call in delta.tool_calls:
            entry = calls.setdefault(call.index, ["", ""])
            entry[0] += call.function.name or ""
            entry[1] += call.function.arguments or ""
    ordered = [calls[i] for i in sorted(calls)]
    return {
        "calls": [(n, json.loads(a)) for n, a in ordered],
        "text": text,
        "finish": finish,
    }


def test_the_plugin_registers_toolmend_and_one_parser_per_protocol():
    registered = set(ToolParserManager.list_registered())
    wanted = {PARSER_NAME, *(f"{PARSER_NAME}-{p}" for p in toolmend.protocols())}
    assert wanted <= registered
    assert ToolParserManager.get_tool_parser("toolmend-hermes").protocols == ("hermes",)
    assert issubclass(ToolParserManager.get_tool_parser("toolmend-hermes"), ToolmendToolParser)


def test_the_plugin_loads_the_way_tool_parser_plugin_loads_it():
    ToolParserManager.import_tool_parser("toolmend.vllm")
    assert ToolParserManager.get_tool_parser(PARSER_NAME) is ToolmendToolParser


@pytest.mark.parametrize("scenario", ROWS, ids=lambda s: s.name)
def test_a_whole_reply_gives_the_tables_calls_and_text(scenario, tokenizer):
    req = request(scenario, stream=False)
    _, parser = parser_for(PARSER_NAME, tokenizer, req)
    _, content, calls = parser.parse(scenario.content, req, enable_auto_tools=True)
    assert calls_of(calls or []) == expected(scenario)["calls"]
    assert content == scenario.text


@pytest.mark.parametrize("scenario", ROWS, ids=lambda s: s.name)
def test_a_streamed_reply_gives_the_same_calls_and_text_token_by_token(scenario, tokenizer):
    got = streamed(scenario, tokenizer)
    assert got["calls"] == expected(scenario)["calls"]
    assert got["text"] == scenario.text
    assert got["finish"] == ("tool_calls" if scenario.calls else "stop")


def test_what_recovery_holds_back_is_delivered_by_the_end_of_stream_flush(tokenizer):
    """A reply ending in what could open a call: held while it might, text once it ends."""
    ending = Scenario("a reply ending in a marker's first character", "qwen3-32b", "Done <")
    req = request(ending, stream=True)
    _, parser = parser_for(PARSER_NAME, tokenizer, req)
    held = parser.parse_delta("Done <", [1, 2], req, prompt_token_ids=[0], finished=False)
    assert held.content == "Done "
    flushed = parser.parse_delta("", [], req, finished=True)
    assert flushed.content == "<"


def test_a_named_protocol_parser_reads_its_format_only(tokenizer):
    leak = next(s for s in ROWS if s.name == "a qwen3-coder call leaked into the text")
    assert streamed(leak, tokenizer, "toolmend-qwen3-coder")["calls"] == list(leak.calls)
    hermes_only = streamed(leak, tokenizer, "toolmend-hermes")
    assert hermes_only["calls"] == []


def test_a_refused_call_is_no_tool_call_and_is_logged(tokenizer, caplog):
    cut = next(s for s in ROWS if s.rejected)
    with caplog.at_level(logging.WARNING, logger="toolmend.integrations.vllm"):
        got = streamed(cut, tokenizer)
    assert got["calls"] == []
    assert got["text"] == cut.text
    assert any("read_file" in r.getMessage() for r in caplog.records)


def test_a_request_without_tools_streams_its_text_untouched(tokenizer):
    scenario = ROWS[0]
    req = ChatCompletionRequest(
        model=scenario.model, messages=[{"role": "user", "content": "hi"}], stream=True
    )
    _, parser = parser_for(PARSER_NAME, tokenizer, req)
    out = parser.parse_delta(scenario.content, [1], req, prompt_token_ids=[0], finished=True)
    assert out.content == scenario.content
    assert not out.tool_calls
