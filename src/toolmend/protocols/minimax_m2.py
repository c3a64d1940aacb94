"""minimax-m2: MiniMax-M2/M2.1's invokes, `<minimax:tool_call><invoke name="NAME"><parameter
name="KEY">VALUE</parameter></invoke></minimax:tool_call>`.

The invoke family's wire format (`toolmend.protocols.invoke_xml`), configured: calls are
rendered in the `<minimax:tool_call>` wrapper, a value of an undeclared key that is a JSON
number, boolean, null, array or object is read as that value (MiniMax's template writes them as
JSON; declared keys follow the schema as in every invoke format), the schema gate repairs
leniently, a parameter given twice keeps its last value, and a value written on its own lines
loses those two layout line breaks (`layout_breaks`); values are raw text, `&amp;` the five
characters it is (`raw_values`). It holds no parsing of its own.
"""

from __future__ import annotations

from toolmend.core.keyrules import DuplicateRule
from toolmend.protocols.invoke_xml import InvokeFormat, InvokeProtocol
from toolmend.schema_gate import Policy

FORMAT = InvokeFormat(
    id="minimax-m2",
    summary="MiniMax-M2 invokes in <minimax:tool_call>; undeclared JSON values read as JSON",
    wrap_output=True,
    policy=Policy.LENIENT,
    duplicates=DuplicateRule.LAST_WINS,
    missing_angle=False,
    wrapper="minimax:tool_call",
    undeclared_json=True,
    layout_breaks=True,
    raw_values=True,
)

PROTOCOL = InvokeProtocol(FORMAT)
