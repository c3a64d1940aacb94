"""FunctionGemma: `<start_function_call>call:NAME{key:<escape>text<escape>,n:1}<end_function_call>`.

Google's FunctionGemma (a Gemma 3 270M model tuned for function calling) writes Gemma 4's
blocks with other special tokens: `<escape>` delimits strings, `<end_function_call>` ends a
call (and `<end_of_turn>` the turn), tools are declared in `<start_function_declaration>` and
results come back in `<start_function_response>response:NAME{...}<end_function_response>`,
which is also the engine's stop sequence (so a stray one right after a call is markup). It has
no reasoning channel. Everything else, the reader, the argument language and its repairs, is
Gemma 4's (`gemma4`, `gemma4_args`) with this module's `GemmaMarkup`.
"""

from __future__ import annotations

from toolmend.core.reader import ReasoningSpan
from toolmend.protocols.gemma4 import Gemma4Protocol, GemmaMarkup
from toolmend.protocols.gemma4_args import GemmaDialect

CALL_OPEN = "<start_function_call>"
CALL_CLOSE = "<end_function_call>"
TURN_END = "<end_of_turn>"
ESCAPE = "<escape>"
RESPONSE_OPEN = "<start_function_response>"
RESPONSE_CLOSE = "<end_function_response>"

MARKUP = GemmaMarkup(
    CALL_OPEN,
    GemmaDialect(ESCAPE, (CALL_CLOSE, TURN_END)),
    RESPONSE_OPEN,
    RESPONSE_CLOSE,
    "<start_function_declaration>",
    "<end_function_declaration>",
)


class FunctionGemmaProtocol(Gemma4Protocol):
    id = "functiongemma"
    markup = MARKUP
    reasoning_spans: tuple[ReasoningSpan, ...] = ()
    #: No FunctionGemma output has been seen without its `<start_function_call>`.
    bare_calls = False
    aliases = ("function-gemma",)
    summary = "<start_function_call>call:NAME{key:<escape>text<escape>}<end_function_call>"
    result_closers = (RESPONSE_CLOSE, ESCAPE)


PROTOCOL = FunctionGemmaProtocol()
