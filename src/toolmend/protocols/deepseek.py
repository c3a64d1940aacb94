"""DeepSeek V3, V3.1 and R1: calls between special tokens, JSON arguments after the name.

    <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME
    ```json
    {"city": "Paris"}
    ```<｜tool▁call▁end｜><｜tool▁calls▁end｜>                               V3, R1
    <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{"city": "Paris"}
    <｜tool▁call▁end｜><｜tool▁calls▁end｜>                                          V3.1

Owns the markers (with the spellings of the section opener llama.cpp also reads, and every
token spelled with ASCII bars, `<|tool▁call▁begin|>`, as some tokenizers and templates write
them: Ollama's tests feed that spelling), the header
rule (`tool_name`: the `function` type and the fence are optional), and rendering in V3.1's
syntax with results in `<｜tool▁output▁begin｜>`. The reading is `json_args.HeaderJsonReader`'s.
A call opener without its section (the section tokens stripped by a server) opens a block too.
Never: reads DeepSeek V3.2's DSML markup (its own module).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from toolmend.core.reader import BlockContext, BlockReader
from toolmend.model import Tool, ToolCall, canonical_json
from toolmend.names import ToolResolver
from toolmend.protocols.base import TextProtocol, declare_tools
from toolmend.protocols.json_args import HeaderJsonReader, HeaderJsonSyntax

CALLS_BEGIN = "<｜tool▁calls▁begin｜>"
#: Other spellings of the section opener seen in the wild (tokenizer and template variants).
CALLS_BEGIN_VARIANTS = ("<｜tool calls begin｜>", "<｜tool\\_calls\\_begin｜>", "<｜tool▁calls｜>")
CALLS_END = "<｜tool▁calls▁end｜>"
CALL_BEGIN = "<｜tool▁call▁begin｜>"
CALL_END = "<｜tool▁call▁end｜>"
SEP = "<｜tool▁sep｜>"
#: The tokens with ASCII bars instead of full-width ones (the `▁` kept, so no prose writes it).
ASCII_CALLS_BEGIN, ASCII_CALLS_END = "<|tool▁calls▁begin|>", "<|tool▁calls▁end|>"
ASCII_CALL_BEGIN, ASCII_CALL_END = "<|tool▁call▁begin|>", "<|tool▁call▁end|>"
ASCII_SEP = "<|tool▁sep|>"
OUTPUT_BEGIN = "<｜tool▁output▁begin｜>"
OUTPUT_END = "<｜tool▁output▁end｜>"

_NAME = r"([^\s<>{}`]+)"
_SEP = f"(?:{re.escape(SEP)}|{re.escape(ASCII_SEP)})"
_FENCE = r"(?:```[A-Za-z]*[ \t]*\r?\n?)?"
#: V3 / R1: the call's type, the separator, the name, an optional opening fence.
_TYPED_HEADER = re.compile(rf"\s*function\s*{_SEP}\s*{_NAME}\s*{_FENCE}\s*\Z")
#: V3.1: the name, the separator (an opening fence tolerated).
_NAMED_HEADER = re.compile(rf"\s*{_NAME}\s*{_SEP}\s*{_FENCE}\s*\Z")
#: Between the arguments object and the call's closer: blanks and V3's closing fence (a
#: part of it too, so that a fence split across chunks waits for the rest).
_FILLER = re.compile(r"[ \t\r\n]*(?:`{1,3}[ \t\r\n]*)?")


def tool_name(header: str) -> str | None:
    """The tool named by a call's header (the text before its `{`), either version's."""
    m = _TYPED_HEADER.match(header) or _NAMED_HEADER.match(header)
    return m.group(1) if m else None


SYNTAX = HeaderJsonSyntax(
    parse_header=tool_name,
    call_openers=(CALL_BEGIN, ASCII_CALL_BEGIN),
    call_closers=(CALL_END, ASCII_CALL_END),
    block_closers=(CALLS_END, ASCII_CALLS_END),
    filler=_FILLER,
    breakers=(CALLS_BEGIN, *CALLS_BEGIN_VARIANTS, ASCII_CALLS_BEGIN),
    bare_first_call=True,
)


class DeepSeekProtocol(TextProtocol):
    id = "deepseek"
    aliases = ("deepseek-v3", "deepseek-v3.1", "deepseek-r1", "deepseek_v3", "deepseek_v31")
    summary = "DeepSeek V3/V3.1/R1 tokens: <｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{...}"
    result_closers = (OUTPUT_END,)

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return (CALLS_BEGIN, *CALLS_BEGIN_VARIANTS, ASCII_CALLS_BEGIN, CALL_BEGIN, ASCII_CALL_BEGIN)

    def closing_markers(self) -> Sequence[str]:
        return (CALLS_END, CALL_END, ASCII_CALLS_END, ASCII_CALL_END)

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        return HeaderJsonReader(SYNTAX, marker, ctx)

    def render_tools(self, tools: Sequence[Tool]) -> str:
        return (
            declare_tools(tools)
            + "To call functions, write them between the tool-call tokens, each with its name "
            "and its arguments as one JSON object:\n"
            f"{CALLS_BEGIN}{CALL_BEGIN}<function-name>{SEP}{{<arguments as JSON>}}{CALL_END}"
            f"{CALLS_END}"
        )

    def render_call(self, call: ToolCall) -> str:
        body = canonical_json(call.arguments)
        return f"{CALLS_BEGIN}{CALL_BEGIN}{call.name}{SEP}{body}{CALL_END}{CALLS_END}"

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        return f"{OUTPUT_BEGIN}{content}{OUTPUT_END}"


PROTOCOL = DeepSeekProtocol()
