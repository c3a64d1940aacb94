"""antml: the `<function_calls>` invoke format Anthropic models are trained on, read leniently.

The same wire format and machinery as anthropic-xml (`toolmend.protocols.invoke_xml`), with
Claude-Code-style tolerance: calls are rendered inside `<function_calls>` (bare invokes are read
too), the schema gate repairs arguments (case/separator-insensitive names, aliases such as `path`
for `file_path`, unknown keys dropped where the schema closes the object, broken `\\u` escapes,
lenient scalars) and a repaired call must still validate; a parameter given twice keeps its last
value; and an invoke whose `<` was lost (`antml:invoke name="...">`) is recovered. This module
only configures; it holds no parsing of its own.
"""

from __future__ import annotations

from toolmend.core.keyrules import DuplicateRule
from toolmend.protocols.invoke_xml import InvokeFormat, InvokeProtocol
from toolmend.schema_gate import Policy

FORMAT = InvokeFormat(
    id="antml",
    summary="ANTML <function_calls> invokes, with Claude-Code-style validation-gated repairs",
    wrap_output=True,
    policy=Policy.LENIENT,
    duplicates=DuplicateRule.LAST_WINS,
    missing_angle=True,
)

PROTOCOL = InvokeProtocol(FORMAT)
