"""toolmend.recovery: native-mode leak recovery over OpenAI chat-completions dicts.

A model called with native tools sometimes writes its call into the visible text. This package
turns such text back into real `tool_calls` (through the stream parsers of the model family's
formats), gives native calls the same care (name resolution, schema gate, split of glued JSON),
and keeps every field it does not own as it came. Public: `recover_stream`, `arecover_stream`,
`recover_response`, and `StreamRecovery`, the sans-IO core they share (`feed(chunk)`,
`end(how)`), for callers that own their loop. `textmode` holds text mode's request side (tools
and tool history written in a protocol), shared by the proxy and the adapters.
"""

from toolmend.recovery.choice import Terminal
from toolmend.recovery.diagnostics import RecoveryDiagnostic
from toolmend.recovery.emitter import DIAGNOSTICS_FIELD, REJECTED_CALLS_FIELD
from toolmend.recovery.families import family_protocols
from toolmend.recovery.response import recover_response
from toolmend.recovery.stream import (
    AsyncRecoveredStream,
    RecoveredStream,
    RecoveryOptions,
    StreamRecovery,
    arecover_stream,
    recover_stream,
)

__all__ = [
    "DIAGNOSTICS_FIELD",
    "REJECTED_CALLS_FIELD",
    "AsyncRecoveredStream",
    "RecoveredStream",
    "RecoveryDiagnostic",
    "RecoveryOptions",
    "StreamRecovery",
    "Terminal",
    "arecover_stream",
    "family_protocols",
    "recover_response",
    "recover_stream",
]
