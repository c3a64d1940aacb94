"""The readings a worker keeps of histories it guarded answer exactly as a fresh reading does.

`ReplayCache.read` reads only what a history added to the longest prefix it read before. The
reference is the cold reading: a new `HistoryGuard` over the whole history. Histories come from
`test_history_state`'s generator (duplicates, failures repeating up to the loop breaker,
preflight findings, unknown tools, reused ids) and grow turn by turn as an agent's do, and from
one of Anthropic-shaped turns (`tool_use` inputs, `tool_result` blocks with and without
`is_error`, results beside the user's text) read after a random prefix. Each request is a
deep copy, as a new request's messages are new objects; a state is compared by what it decides
next (a call and its result in both shapes) and by the calls it holds.
"""

from __future__ import annotations

import copy
import datetime
import uuid
from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolmend.guard import replays
from toolmend.guard.history import HistoryGuard
from toolmend.guard.interceptor import InterceptorConfig
from toolmend.guard.replays import ReplayCache
from toolmend.model import Tool, coerce_tools

from .test_history import ANTHROPIC_TOOLS, NOT_FOUND, _anthropic
from .test_history_state import TOOLS, histories

CONFIG = InterceptorConfig()
#: What comes after a history: a call and a failing result the counts so far decide on.
NEXT = [
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": "call_9",
                "type": "function",
                "function": {"name": "bash", "arguments": '{"command": "npm test"}'},
            }
        ],
    },
    {
        "role": "tool",
        "tool_call_id": "call_9",
        "content": "bash: line 1: pnpm: command not found\nexit code 127",
    },
]


#: The same in the Anthropic shape, and the call ids whose calls a state may still hold.
NEXT_BLOCKS = [
    {
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": "toolu_9", "name": "Bash", "input": {"command": "npm test"}}
        ],
    },
    {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_9", "content": "exit code 1"}],
    },
]
CALL_IDS = ["call_0", "call_1", "call_2", "call_3", "call_4", "toolu_0", "toolu_1", "toolu_2"]


def answers(state: HistoryGuard) -> tuple[object, ...]:
    """What a state decides after its history: the next call and result in either shape (each
    on its own fork), and which calls the last assistant message holds."""
    return (
        state.fork().read_all(NEXT),
        state.fork().read_all(NEXT_BLOCKS),
        [state.holds_call(call_id) for call_id in CALL_IDS],
    )


def cold(
    messages: Sequence[Mapping[str, Any]], tools: Sequence[Tool] | None = TOOLS
) -> tuple[list[dict[str, Any]], tuple[object, ...]]:
    """The fresh reading's guided copies, and what its state decides after them."""
    state = HistoryGuard(tools, CONFIG)
    return state.read_all(messages), answers(state)


def kept(
    cache: ReplayCache, messages: Sequence[Mapping[str, Any]], tools: Sequence[Tool] | None = TOOLS
) -> tuple[list[dict[str, Any]], tuple[object, ...]]:
    """The same through `cache`, for a request of its own (new objects, as a new request's)."""
    guided, state = cache.read(copy.deepcopy(messages), tools, CONFIG)
    return guided, answers(state)


def failing_history(turns: int) -> list[dict[str, Any]]:
    """A conversation whose same failing command repeats `turns` times."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Run the tests."}]
    for n in range(turns):
        call = {**NEXT[0]["tool_calls"][0], "id": f"call_{n}"}
        messages.append({"role": "assistant", "content": "", "tool_calls": [call]})
        messages.append({**NEXT[1], "tool_call_id": f"call_{n}"})
    return messages


@settings(max_examples=150, deadline=None)
@given(histories)
def test_a_history_read_as_it_grows_answers_as_each_fresh_reading(
    history: list[dict[str, Any]],
) -> None:
    cache = ReplayCache()
    for end in range(len(history) + 1):
        assert kept(cache, history[:end]) == cold(history[:end])


@settings(max_examples=60, deadline=None)
@given(histories, histories)
def test_a_history_that_leaves_a_kept_one_answers_as_its_fresh_reading(
    first: list[dict[str, Any]], second: list[dict[str, Any]]
) -> None:
    cache = ReplayCache()
    kept(cache, first)
    branch = first[: len(first) // 2] + second
    assert kept(cache, branch) == cold(branch)


BLOCK_TOOLS = coerce_tools(
    [
        *ANTHROPIC_TOOLS,
        {
            "name": "Bash",
            "input_schema": {
                "type": "object",
                "properties": {"command": {"type": "string"}},
                "required": ["command"],
            },
        },
    ]
)
BLOCK_IDS = ["toolu_0", "toolu_1", "toolu_2"]
INPUTS = [
    {"file_path": "a.py", "old_string": "x = 1", "new_string": "x = 2"},
    {"file_path": "a.py"},
    {"command": "npm test"},
    {"command": "grep -r x ."},
    {"command": 7},
    {},
]
BLOCK_RESULTS = [
    "done",
    NOT_FOUND,
    "exit code 1",
    "Error: ENOENT: no such file or directory, open '/repo/a.py'",
    [{"type": "text", "text": "bash: line 1: pnpm: command not found\nexit code 127"}],
    "",
]
tool_use = st.builds(
    lambda call_id, name, given: {"type": "tool_use", "id": call_id, "name": name, "input": given},
    st.sampled_from(BLOCK_IDS),
    st.sampled_from(["Edit", "Bash", "Nope"]),
    st.sampled_from(INPUTS),
)
block_assistant = st.builds(
    lambda text, uses: {"role": "assistant", "content": [*text, *uses]},
    st.sampled_from([[], [{"type": "text", "text": "Let me look."}]]),
    st.lists(tool_use, min_size=1, max_size=2),
)
tool_result = st.builds(
    lambda call_id, result, flag: {
        "type": "tool_result",
        "tool_use_id": call_id,
        "content": result,
        **({} if flag is None else {"is_error": flag}),
    },
    st.sampled_from(BLOCK_IDS),
    st.sampled_from(BLOCK_RESULTS),
    st.sampled_from([None, True, False]),
)
block_user = st.builds(
    lambda results, text: {"role": "user", "content": [*results, *text]},
    st.lists(tool_result, min_size=1, max_size=2),
    st.sampled_from([[], [{"type": "text", "text": "Now the tests."}]]),
)
block_turn = st.one_of(
    st.tuples(block_assistant, block_user).map(list),
    st.tuples(block_assistant).map(list),
    st.tuples(block_user).map(list),
    st.just([{"role": "user", "content": "Keep going."}]),
)
block_histories = st.lists(block_turn, max_size=12).map(lambda ts: [m for t in ts for m in t])


@settings(max_examples=150, deadline=None)
@given(block_histories, st.data())
def test_an_anthropic_history_read_after_a_prefix_answers_as_its_fresh_reading(
    history: list[dict[str, Any]], data: st.DataObject
) -> None:
    cache = ReplayCache()
    cut = data.draw(st.integers(0, len(history)))
    assert kept(cache, history[:cut], BLOCK_TOOLS) == cold(history[:cut], BLOCK_TOOLS)
    assert kept(cache, history, BLOCK_TOOLS) == cold(history, BLOCK_TOOLS)
    assert kept(cache, history, BLOCK_TOOLS) == cold(history, BLOCK_TOOLS)  # a whole hit


def test_the_loop_breaker_counts_over_the_kept_prefix_and_the_new_turns() -> None:
    cache = ReplayCache()
    for turns in range(1, 6):
        guided, after = kept(cache, failing_history(turns))
        assert (guided, after) == cold(failing_history(turns))
    assert "MODEL_STUCK_LOOP" in guided[-1]["content"]


def test_anthropic_blocks_guided_in_place_answer_as_a_fresh_reading() -> None:
    tools = coerce_tools(ANTHROPIC_TOOLS)
    history = _anthropic((NOT_FOUND, True), ("done", None), (NOT_FOUND, None))
    cache = ReplayCache()
    for end in range(len(history) + 1):
        assert kept(cache, history[:end], tools) == cold(history[:end], tools)
    assert history[-1]["content"][0]["content"] == NOT_FOUND


def test_a_grown_history_replaces_the_reading_it_grew_from() -> None:
    cache = ReplayCache()
    for turns in range(1, 5):
        kept(cache, failing_history(turns))
    assert len(cache) == 1


def test_what_a_caller_does_with_its_copies_and_state_changes_no_later_answer() -> None:
    cache = ReplayCache()
    history = _anthropic((NOT_FOUND, True), ("done", None))
    tools = coerce_tools(ANTHROPIC_TOOLS)
    first, _ = cache.read(history, tools, CONFIG)
    again = copy.deepcopy(history)
    second, state = cache.read(again, tools, CONFIG)
    assert second == first == HistoryGuard(tools, CONFIG).read_all(history)
    assert again == history  # the request's own messages are never changed
    second[2]["content"][0]["content"] = "changed by the caller"
    state.read_all([*NEXT, *NEXT_BLOCKS])  # reading on the handed state leaves the kept one
    assert kept(cache, history, tools) == cold(history, tools)


def grep_history(result: str | None) -> list[dict[str, Any]]:
    """A `grep` the agent ran (whose exit status 1 only says nothing matched), and its result."""
    use = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "grep -r x ."}}
    history: list[dict[str, Any]] = [
        {"role": "user", "content": "Find x."},
        {"role": "assistant", "content": [use]},
    ]
    if result is not None:
        block = {"type": "tool_result", "tool_use_id": "toolu_1", "content": result}
        history.append({"role": "user", "content": [block]})
    return history


def test_a_request_changing_its_messages_after_the_reading_changes_no_later_answer() -> None:
    # The kept state owns what it keeps of the messages (here the call still waiting for its
    # result): a front-end or pipeline that edits a request's messages later edits only those.
    cache = ReplayCache()
    request = grep_history(None)
    cache.read(request, None, CONFIG)
    request[1]["content"][0]["input"]["command"] = "npm test"
    grown = grep_history("exit code 1")
    guided, _ = cache.read(grown, None, CONFIG)
    assert guided == HistoryGuard(None, CONFIG).read_all(grown)
    assert guided[-1]["content"][0]["content"] == "exit code 1"


def test_the_kept_state_still_holds_the_calls_a_request_renamed_after_its_reading() -> None:
    cache = ReplayCache()
    request = failing_history(1)[:2]
    cache.read(request, TOOLS, CONFIG)
    request[1]["tool_calls"][0]["id"] = "call_other"
    _, state = cache.read(failing_history(1)[:2], TOOLS, CONFIG)
    assert state.holds_call("call_0") and not state.holds_call("call_other")


def test_the_same_messages_with_other_tools_are_read_for_those_tools() -> None:
    history = failing_history(1)
    cache = ReplayCache()
    kept(cache, history)
    without_bash = tuple(t for t in TOOLS if t.name != "bash")
    assert kept(cache, history, without_bash) == cold(history, without_bash)
    assert kept(cache, history, without_bash) != kept(cache, history)


def test_the_same_messages_under_another_config_are_read_for_that_config() -> None:
    cache = ReplayCache()
    history = failing_history(3)
    default, _ = cache.read(history, TOOLS, CONFIG)
    other = InterceptorConfig(stuck_after=2)
    guided, _ = cache.read(history, TOOLS, other)
    assert guided == HistoryGuard(TOOLS, other).read_all(history)
    assert guided != default


def test_tools_given_as_dicts_are_read_and_never_kept() -> None:
    cache = ReplayCache()
    history = failing_history(2)
    dict_tools: Any = [{"name": "bash", "parameters": {"type": "object"}}]
    guided, _ = cache.read(history, dict_tools, CONFIG)
    assert guided == HistoryGuard(dict_tools, CONFIG).read_all(history)
    assert len(cache) == 0


class Role(StrEnum):
    USER = "user"


class Tagged(dict[str, Any]):
    """A message type of a caller's own."""


@pytest.mark.parametrize(
    "odd",
    [
        pytest.param({"role": Role.USER, "content": "Keep going."}, id="an enum member"),
        pytest.param(Tagged(role="user", content="Keep going."), id="a dict subclass"),
        pytest.param({"role": "user", "content": uuid.UUID(int=7)}, id="a UUID"),
        pytest.param({"role": "user", "content": datetime.date(2026, 1, 1)}, id="a date"),
    ],
)
def test_a_history_holding_objects_that_are_not_builtin_values_is_read_and_never_kept(
    odd: dict[str, Any],
) -> None:
    cache = ReplayCache()
    history = [*failing_history(2), odd, *NEXT]
    assert kept(cache, history) == cold(history)
    assert len(cache) == 0


def test_values_that_json_or_python_would_confuse_are_told_apart() -> None:
    # Blocks in a tuple have the JSON text of a list, and are no list of blocks; an `is_error`
    # of `1` equals `True` in Python, and is no runtime's verdict (the retry is a duplicate).
    tools = coerce_tools(ANTHROPIC_TOOLS)
    listed = _anthropic((NOT_FOUND, None))
    tupled = [*listed[:-1], {**listed[-1], "content": tuple(listed[-1]["content"])}]
    flagged = _anthropic(("done", True), ("done", None))
    numbered = _anthropic(("done", 1), ("done", None))  # type: ignore[arg-type]
    assert orjson.dumps(listed) == orjson.dumps(tupled) and flagged == numbered
    for one, other in ((listed, tupled), (flagged, numbered)):
        assert cold(one, tools) != cold(other, tools)
        cache = ReplayCache()
        for history in (one, other, one):
            assert kept(cache, history, tools) == cold(history, tools)


def test_the_cache_is_bounded_by_entries() -> None:
    cache = ReplayCache(max_entries=3)
    for n in range(10):
        kept(cache, [{"role": "user", "content": f"conversation {n}"}, *failing_history(1)])
    assert len(cache) == 3


def test_the_cache_is_bounded_by_the_bytes_of_its_messages() -> None:
    cache = ReplayCache(max_bytes=5000)
    for n in range(20):
        kept(cache, [{"role": "user", "content": f"conversation {n} " * 20}, *failing_history(2)])
    assert 0 < cache.bytes <= 5000
    assert len(cache) < 20


def test_a_history_longer_than_an_entry_may_be_is_never_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(replays, "MAX_ENTRY_BYTES", 100)
    cache = ReplayCache()
    assert kept(cache, failing_history(3)) == cold(failing_history(3))
    assert len(cache) == 0 and cache.bytes == 0


def test_histories_whose_keys_collide_are_still_told_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    def colliding(tools: object, config: object, texts: Sequence[bytes]) -> list[int]:
        return list(range(len(texts)))  # every history of a length has the same key

    monkeypatch.setattr(replays, "_chain", colliding)
    cache = ReplayCache()
    kept(cache, failing_history(2))
    other = [{"role": "user", "content": "Something else."}, *failing_history(2)[1:]]
    other[-1] = {**other[-1], "content": "ok"}
    assert kept(cache, other) == cold(other)


def test_a_message_pickled_in_several_writes_is_known_by_all_of_them() -> None:
    # A large message is pickled in several writes: two of the same length that differ only
    # after the first write differ.
    head = "line of a long log\n" * 20_000
    tail = "bash: line 1: pnpm: command not found\nexit code 127"
    failed = [*failing_history(1)[:2], {"role": "tool", "tool_call_id": "call_0"}]
    failed[-1]["content"] = head + tail
    passed = [*failed[:-1], {**failed[-1], "content": head + "done".ljust(len(tail))}]
    cache = ReplayCache()
    assert kept(cache, failed) == cold(failed)
    assert kept(cache, passed) == cold(passed)
    assert cold(failed) != cold(passed)
