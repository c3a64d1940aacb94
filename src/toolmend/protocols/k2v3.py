"""K2V3 (IFM tags): GLM's key/value tags under `ifm|` names, with an optional type hint.

    <ifm|think>need lookup</ifm|think>
    <ifm|tool_calls>
    <ifm|tool_call>get_weather<ifm|arg_key>city</ifm|arg_key><ifm|arg_value>Tokyo</ifm|arg_value></ifm|tool_call>
    </ifm|tool_calls>

As SGLang's `K2V3Detector` (the "BBQ 0518 IFM" format, ported from vLLM's `K2V3ToolParser`)
reads it, in its three dialects: `xml` (the pairs above), `xml_typed` (an
`<ifm|arg_type>TYPE</ifm|arg_type>` hint between a key and its value) and `json` (a JSON call
object, or a list of them, inside `<ifm|tool_call>`). All three are read whatever the server's
setting, since the block's first character tells them apart.

Owns the tags, the `<ifm|tool_calls>` wrapper (markup only: removed and recorded, the calls
inside are blocks of their own), the three reasoning spans (`<ifm|think>`, `<ifm|think_fast>`,
`<ifm|think_faster>`: the effort levels) and the renderers. The reading of a block is GLM's
(`glm.GlmReader` with these tags: raw values typed by the tool's schema, forgotten tags put
back, R3 at the end); a type hint types a value only where the schema declares no type, so the
schema always decides. The JSON dialect is the JSON-values family's (`json_values`).

Results (our choice: the template's result encoding is not public) go back in
`<ifm|tool_response>…</ifm|tool_response>`, an envelope of the same tag syntax.
"""

from __future__ import annotations

from collections.abc import Sequence

from toolmend.core.reader import BlockContext, BlockReader, ReasoningSpan
from toolmend.names import ToolResolver
from toolmend.protocols.base import Claim, MarkupOnlyReader
from toolmend.protocols.glm import GlmProtocol, GlmReader, KeyValueTags
from toolmend.protocols.json_values import CallValuesReader, call_format

OPEN = "<ifm|tool_call>"
CLOSE = "</ifm|tool_call>"
#: The wrapper some outputs put around their calls: markup, never text.
WRAPPER = ("<ifm|tool_calls>", "</ifm|tool_calls>")
TAGS = KeyValueTags(
    OPEN,
    CLOSE,
    "<ifm|arg_key>",
    "</ifm|arg_key>",
    "<ifm|arg_value>",
    "</ifm|arg_value>",
    "<ifm|arg_type>",
    "</ifm|arg_type>",
)
#: One reasoning span per effort level the template offers.
THINKING = tuple(
    ReasoningSpan(f"<ifm|{level}>", (f"</ifm|{level}>",))
    for level in ("think", "think_fast", "think_faster")
)
RESULT_OPEN = "<ifm|tool_response>"
RESULT_CLOSE = "</ifm|tool_response>"
JSON_FORMAT = call_format(closers=(CLOSE,), reopeners=(OPEN,), block="an <ifm|tool_call> block")


class K2V3Protocol(GlmProtocol):
    reasoning_spans = THINKING
    result_closers = (RESULT_CLOSE,)

    def opening_markers(self, resolver: ToolResolver) -> Sequence[str]:
        return (OPEN, *WRAPPER)

    def token_openers(self) -> Sequence[str]:
        return (OPEN,)

    def claims(self, marker: str, body: str) -> Claim:
        return Claim.MINE  # no other format writes the `ifm|` tags

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        if marker in WRAPPER:
            return MarkupOnlyReader(ctx)

        def json_reader(ctx: BlockContext) -> BlockReader:
            return CallValuesReader(ctx, JSON_FORMAT, marker)

        return GlmReader(ctx, TAGS, json_reader, json_leads="{[")

    def wrap_result(self, call_id: str, name: str, content: str) -> str:
        return f"{RESULT_OPEN}{content}{RESULT_CLOSE}"


PROTOCOL = K2V3Protocol(
    "k2-v3",
    "K2V3 IFM tags: <ifm|tool_call>NAME<ifm|arg_key>K</ifm|arg_key>"
    "<ifm|arg_value>V</ifm|arg_value></ifm|tool_call>, or a JSON call object inside",
    ("k2v3", "k2_v3", "ifm"),
    "",
    TAGS,
)
