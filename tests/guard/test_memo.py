"""The guard's memo of pure results: a hit gives what a fresh computation gives, and it is bounded."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolmend.guard import InterceptorConfig, guard_history
from toolmend.guard.guidance import redact_secrets, truncate_utf8
from toolmend.guard.history import GUIDANCE_PREFIX, KEPT_ORIGINAL_MEMO, kept_original
from toolmend.guard.interceptor import PREFLIGHT_MEMO, RESULT_MEMO
from toolmend.guard.memo import MAX_ENTRY_CHARS, PureMemo

from .conftest import load_cases

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
                "required": ["path"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "bash",
            "parameters": {
                "type": "object",
                "properties": {"command": {"type": "string"}},
                "required": ["command"],
            },
        },
    },
]


def _clear() -> None:
    PREFLIGHT_MEMO.clear()
    RESULT_MEMO.clear()
    KEPT_ORIGINAL_MEMO.clear()


def _history(results: list[str], calls: list[tuple[str, str]]) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "fix the build"}]
    for n, result in enumerate(results):
        name, arguments = calls[n % len(calls)]
        call = {
            "id": f"c{n}",
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        }
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": f"c{n}", "content": result})
    return messages


CALLS = [
    ("read_file", '{"path": "src/app.py"}'),
    ("bash", '{"command": "pytest -q"}'),
    ("read_file", '{"path": "src/app.py", "limit": "ten"}'),  # wrong type: preflight blocks it
    ("read_file", '{"path": "a.py"}{"path": "b.py"}'),  # glued objects
    ("bash", '{"command": "pytest -q"}'),
    ("write_file", '{"path": "x"}'),  # not a declared tool
    ("read_file", '{"cwd": {"path": "/repo"}, "path": "a.py"}'),
]


def test_a_replay_with_every_result_memoised_equals_a_fresh_one_over_the_real_error_corpus() -> (
    None
):
    texts = [row["text"] for row in load_cases("real_errors.json")]
    texts += ["ok", "", "    1  import os\n    2  print('hi')\n", '{"success": false}']
    messages = _history(texts, CALLS)
    _clear()
    fresh = guard_history(messages, tools=TOOLS)
    assert len(RESULT_MEMO) > 0 and len(PREFLIGHT_MEMO) > 0 and len(KEPT_ORIGINAL_MEMO) > 0
    memoised = guard_history(messages, tools=TOOLS)
    assert json.dumps(memoised) == json.dumps(fresh)


def test_the_same_call_is_checked_against_each_tool_set_it_comes_with() -> None:
    # The same arguments text: valid when `limit` is a string, a type mismatch when an integer.
    as_string = json.loads(json.dumps(TOOLS))
    as_string[0]["function"]["parameters"]["properties"]["limit"]["type"] = "string"
    messages = _history(["ok"], [("read_file", '{"path": "a.py", "limit": "ten"}')])
    _clear()
    blocked = guard_history(messages, tools=TOOLS)[-1]["content"]
    allowed = guard_history(messages, tools=as_string)[-1]["content"]
    assert "TYPE_MISMATCH" in blocked or "limit" in blocked
    assert allowed == "ok"
    assert guard_history(messages, tools=None)[-1]["content"] == "ok"


def test_a_result_is_classified_under_the_configured_tool_lists_it_is_read_with() -> None:
    # `read_file` is a content tool by default: its JSON text is file content, not an envelope.
    envelope = json.dumps({"error": "ENOENT: no such file or directory, open 'src/app.py'"})
    messages = _history([envelope], CALLS[:1])
    _clear()
    as_content = guard_history(messages, tools=TOOLS)[-1]["content"]
    as_envelope = InterceptorConfig(content_tools=frozenset())
    guided = guard_history(messages, tools=TOOLS, config=as_envelope)[-1]["content"]
    assert as_content == messages[-1]["content"]
    assert guided.startswith(GUIDANCE_PREFIX)
    assert guard_history(messages, tools=TOOLS)[-1]["content"] == as_content


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(max_size=80),
            st.sampled_from(
                [
                    "Error: ENOENT: no such file or directory, open 'a.py'",
                    "bash: pnpm: command not found",
                    '{"ok": false, "error": "denied"}',
                    'Traceback (most recent call last):\n  File "x", line 1\nValueError: bad',
                ]
            ),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_any_history_guards_the_same_with_a_warm_memo_as_with_a_cleared_one(
    results: list[str],
) -> None:
    messages = _history(results, CALLS)
    warm = guard_history(messages, tools=TOOLS)
    _clear()
    assert guard_history(messages, tools=TOOLS) == warm


def test_the_memo_forgets_the_least_recently_used_entry_beyond_its_entry_bound() -> None:
    memo: PureMemo[int] = PureMemo(max_entries=3, max_chars=1000)
    for key in "abc":
        memo.put(key, ord(key), 1)
    assert memo.get("a") == (ord("a"),)  # "a" is now the most recently used
    memo.put("d", 4, 1)
    assert len(memo) == 3
    assert memo.get("b") is None
    assert memo.get("a") == (ord("a"),) and memo.get("d") == (4,)


def test_the_memo_is_bounded_by_the_characters_its_keys_stand_for() -> None:
    memo: PureMemo[str] = PureMemo(max_entries=100, max_chars=10)
    memo.put("first", "x", 6)
    memo.put("second", "y", 6)
    assert memo.get("first") is None and memo.get("second") == ("y",)
    assert memo.chars == 6
    memo.put("second", "z", 4)  # replacing an entry does not count its old size twice
    assert memo.chars == 4 and memo.get("second") == ("z",)


def test_an_input_longer_than_the_entry_bound_is_never_kept() -> None:
    memo: PureMemo[None] = PureMemo()
    memo.put("huge", None, MAX_ENTRY_CHARS + 1)
    assert memo.get("huge") is None and len(memo) == 0


def test_a_kept_none_is_told_apart_from_a_miss() -> None:
    memo: PureMemo[None] = PureMemo()
    memo.put("success", None, 7)
    assert memo.get("success") == (None,)
    assert memo.get("other") is None


def test_a_failed_results_original_is_masked_and_cut_once_per_text() -> None:
    _clear()
    original = "  Error: auth failed for api_key=sk-abcdefghijklmnop1234 " + "x" * 3000
    first = kept_original(original, 512)
    assert first == truncate_utf8(redact_secrets(original.strip()), 512)
    assert "sk-abcdefghijklmnop1234" not in first
    assert kept_original(original, 512) is first  # the memo's answer, not a new string
    assert kept_original(original, 64) != first  # the bytes kept are part of the key
    assert kept_original(original, 0) == ""
