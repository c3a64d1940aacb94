"""toolmend.guard: error interception for tool calls.

Classifies tool errors and tool results, turns failures into short WHAT / WHY / NEXT guidance,
counts repeats and breaks loops. This package never executes tools, never talks to a network and
keeps no global state that could change an answer: per-task state lives in `Interceptor`, and
`guard_history` derives the same state from an OpenAI message history with the same counting
code; what is kept process-wide is a bounded memo of pure classifications (`guard.memo`).
"""

from toolmend.guard.classify import Classification, classify_error
from toolmend.guard.guidance import Guidance
from toolmend.guard.history import guard_history
from toolmend.guard.interceptor import GuardSession, Interceptor, InterceptorConfig
from toolmend.guard.patterns import Category, Disposition
from toolmend.guard.reminder import json_error_reminder
from toolmend.guard.results import ResultVerdict, classify_result

__all__ = [
    "Category",
    "Classification",
    "Disposition",
    "GuardSession",
    "Guidance",
    "Interceptor",
    "InterceptorConfig",
    "ResultVerdict",
    "classify_error",
    "classify_result",
    "guard_history",
    "json_error_reminder",
]
