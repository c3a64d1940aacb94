"""anthropic-xml: the legacy Anthropic invoke format, read strictly.

`<invoke name="NAME"><parameter name="KEY">VALUE</parameter></invoke>`, bare or inside
`<function_calls>`, results in `<function_results>`. This module only configures the shared
invoke machinery (`toolmend.protocols.invoke_xml`): calls are rendered bare, arguments are
validated without repairs, and a parameter given twice rejects the call. It holds no parsing of
its own.
"""

from __future__ import annotations

from toolmend.core.keyrules import DuplicateRule
from toolmend.protocols.invoke_xml import InvokeFormat, InvokeProtocol
from toolmend.schema_gate import Policy

FORMAT = InvokeFormat(
    id="anthropic-xml",
    summary='XML invokes: <invoke name="..."><parameter name="...">...</parameter></invoke>',
    wrap_output=False,
    policy=Policy.STRICT,
    duplicates=DuplicateRule.REJECT,
    missing_angle=False,
)

PROTOCOL = InvokeProtocol(FORMAT)
