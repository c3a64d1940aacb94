"""HY V4 (Tencent Hunyuan): GLM-4.7's key/value tags, every token suffixed `:opensource`.

    <think:opensource>need the weather</think:opensource>
    <tool_calls:opensource><tool_call:opensource>get_weather<arg_key:opensource>city</arg_key:opensource><arg_value:opensource>Beijing</arg_value:opensource></tool_call:opensource></tool_calls:opensource>

The shipping tokenizer appends one suffix to every control token (its chat template sets it;
vLLM's `HYV4ToolParser` reads it from the vocab, and users serving the checkpoint with parsers
that know only the bare tags saw the calls left as text). The preview tokenizers' bare spelling,
`<tool_calls><tool_call>NAME<arg_key>…`, is GLM-4.7's format byte for byte and is read by
`glm47`; this module owns only the suffixed tags, so under `auto` no bare marker changes hands.

The tags, the `<tool_calls:opensource>` wrapper (markup only: removed and recorded, each call
inside is a block of its own) and the `<think:opensource>` reasoning span are this module's;
the reading of a block is GLM's (`glm.GlmReader` with these tags: raw values typed by the tool's
schema, a key given twice keeps its last value, as HY V4's parser does), and so is the
rendering. Results (our choice: the template's result encoding is not read here) go back in
GLM's `<tool_response>` envelope.
"""

from __future__ import annotations

from collections.abc import Sequence

from toolmend.core.reader import BlockContext, BlockReader, ReasoningSpan
from toolmend.names import ToolResolver
from toolmend.protocols.base import Claim, MarkupOnlyReader
from toolmend.protocols.glm import GlmProtocol, GlmReader, KeyValueTags
from toolmend.protocols.hermes import hermes_reader

SUFFIX = ":opensource"


def _pair(name: str) -> tuple[str, str]:
    """A control token's opening and closing spellings, suffixed."""
    return f"<{name}{SUFFIX}>", f"</{name}{SUFFIX}>"


OPEN, CLOSE = _pair("tool_call")
#: The section around the calls: markup, never text.
WRAPPER = _pair("tool_calls")
TAGS = KeyValueTags(OPEN, CLOSE, *_pair("arg_key"), *_pair("arg_value"))
THINK, THINK_END = _pair("think")


class HyV4Protocol(GlmProtocol):
    reasoning_spans = (ReasoningSpan(THINK, (THINK_END,)),)

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return (OPEN, *WRAPPER)

    def token_openers(self) -> Sequence[str]:
        return (OPEN,)

    def claims(self, marker: str, body: str) -> Claim:
        return Claim.MINE  # no other format writes the suffixed tokens

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        if marker in WRAPPER:
            return MarkupOnlyReader(ctx)
        return GlmReader(ctx, TAGS, hermes_reader)


PROTOCOL = HyV4Protocol(
    "hy-v4",
    "HY V4 (Hunyuan): GLM-4.7's key/value tags suffixed :opensource: <tool_call:opensource>NAME"
    "<arg_key:opensource>K</arg_key:opensource><arg_value:opensource>V</arg_value:opensource>"
    "</tool_call:opensource>, in <tool_calls:opensource>",
    ("hy_v4", "hyv4", "hunyuan-v4"),
    "",
    TAGS,
)
