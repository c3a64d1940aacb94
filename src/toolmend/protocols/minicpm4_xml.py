"""minicpm4-xml: MiniCPM4's XML calls, `<function name="NAME"><param name="KEY">VALUE</param>
</function>`, bare in the text (no wrapper), as SGLang's `minicpm4_xml` detector reads them.

The invoke family's wire format (`toolmend.protocols.invoke_xml`) with its tags renamed
(`function`, `param`) and values quotable as `<![CDATA[…]]>` (its content is the value, newlines
kept), the parameters optionally inside `<arguments>…</arguments>` (MiniCPM5 writes them so,
as Ollama's MiniCPM5 parser reads them). Values are typed by the schema (`[1, 2, 3]` for an
array, `true` for a boolean), a parameter given twice rejects the call, an unknown tool's block
stays text. It holds no parsing of its own.
"""

from __future__ import annotations

from toolmend.core.keyrules import DuplicateRule
from toolmend.protocols.invoke_xml import InvokeFormat, InvokeProtocol
from toolmend.schema_gate import Policy

FORMAT = InvokeFormat(
    id="minicpm4-xml",
    summary='MiniCPM4: <function name="NAME"><param name="KEY">VALUE</param></function>',
    wrap_output=False,
    policy=Policy.LENIENT,
    duplicates=DuplicateRule.REJECT,
    missing_angle=False,
    prefixes=("",),
    wrappers=(),
    invoke_tag="function",
    parameter_tag="param",
    cdata=True,
    parameters_wrapper="arguments",
)

PROTOCOL = InvokeProtocol(FORMAT)
