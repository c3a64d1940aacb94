"""toolmend.guard: error interception for tool calls.

Classifies tool errors and tool results, turns failures into short WHAT / WHY / NEXT guidance,
counts repeats and breaks loops. This package never executes tools, never talks to a network and
keeps no global state: per-task state lives in `Interceptor`, and `guard_history` derives the
same state from an OpenAI message history.
"""

from toolmend.guard.classify import Classification, classify_error
from toolmend.guard.results import ResultVerdict, classify_result

__all__ = [
    "Classification",
    "ResultVerdict",
    "classify_error",
    "classify_result",
]
