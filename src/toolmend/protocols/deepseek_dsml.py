"""DeepSeek V3.2: DSML, the invoke family's markup with the `｜DSML｜` prefix on every tag.

    <｜DSML｜function_calls>
    <｜DSML｜invoke name="get_weather">
    <｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>
    <｜DSML｜parameter name="days" string="false">3</｜DSML｜parameter>
    </｜DSML｜invoke>
    </｜DSML｜function_calls>

The invoke family's wire format (`toolmend.protocols.invoke_xml`), configured: the prefix
`｜DSML｜` (also read with ASCII bars, `|DSML|`), its wrappers (`function_calls`; DeepSeek V4's
`tool_calls`), and each parameter's `string` attribute (`false`: the value is JSON), written on
rendering too. An invoke closed short, `</｜DSML｜inv>` (DeepSeek V4's 4- to 6-bit quants write
it, mlx-lm's `test_deepseek_dsml_close_tag.py`), is closed with a repair. A parameter given twice
keeps its last value, as DeepSeek's own
parser does; the schema gate repairs leniently. It holds no parsing of its own. V3 and V3.1's
special-token calls are the `deepseek` protocol's.
"""

from __future__ import annotations

from toolmend.core.keyrules import DuplicateRule
from toolmend.protocols.invoke_xml import InvokeFormat, InvokeProtocol
from toolmend.schema_gate import Policy

DSML = "｜DSML｜"
#: The prefix written with ASCII bars (seen when the tokens are decoded as text).
DSML_ASCII = "|DSML|"
WRAPPER = f"{DSML}function_calls"
#: DeepSeek V4 wraps the same invokes in `tool_calls`.
WRAPPERS = tuple(f"<{p}{w}>" for p in (DSML, DSML_ASCII) for w in ("function_calls", "tool_calls"))

FORMAT = InvokeFormat(
    id="deepseek-v3.2",
    summary='DeepSeek V3.2 DSML: <｜DSML｜invoke name="NAME"><｜DSML｜parameter name="KEY" '
    'string="true">VALUE</｜DSML｜parameter>',
    wrap_output=True,
    policy=Policy.LENIENT,
    duplicates=DuplicateRule.LAST_WINS,
    missing_angle=False,
    wrapper=WRAPPER,
    prefixes=(DSML, DSML_ASCII),
    wrappers=WRAPPERS,
    string_attribute=True,
    short_invoke_close=True,
)


class DsmlProtocol(InvokeProtocol):
    aliases = ("dsml", "deepseek-dsml", "deepseek_v32", "deepseek-v32")


PROTOCOL = DsmlProtocol(FORMAT)
