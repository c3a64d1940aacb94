"""Shared test helpers: the invariants every protocol must keep, checked the same way for all.

* split-invariance: the coalesced events are identical however the input is split;
* conservation: every input character is visible text, inside a call, or a recorded strip;
* argument deltas: each call's deltas concatenate to a prefix of its final arguments JSON, and
  one id runs from start to end.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import toolmend
from toolmend.events import (
    Diagnostic,
    Event,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    coalesce,
)
from toolmend.protocols.invoke_xml import PREFIX

CORPUS_DIR = Path(__file__).parent / "corpus"


def run_chunks(protocol: str, chunks: Iterable[str], tools: Any = None, **kw: Any) -> list[Event]:
    parser = toolmend.stream_parser(protocol, tools, id_prefix="call_", **kw)
    events: list[Event] = []
    for chunk in chunks:
        events += parser.feed(chunk)
    events += parser.finish()
    return events


def split_at(text: str, points: Sequence[int]) -> list[str]:
    bounds = [0, *sorted(set(points)), len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds) if b > a]


def comparable(events: Iterable[Event]) -> list[Any]:
    """Coalesced events as plain data (a call's `to_dict` instead of the object)."""
    out: list[Any] = []
    for e in coalesce(events):
        if isinstance(e, ToolCallEnd):
            out.append(("end", e.index, e.source_length, e.call.to_dict()))
        else:
            out.append(e)
    return out


def assert_split_invariant(
    protocol: str,
    text: str,
    tools: Any = None,
    *,
    exhaustive_limit: int = 400,
    seed: int = 0,
    **kw: Any,
) -> None:
    """Whole text == every 2-way split (short texts) == random splits == one char at a time."""
    reference = comparable(run_chunks(protocol, [text], tools, **kw))
    splits: list[list[str]] = [list(text)]
    if len(text) <= exhaustive_limit:
        splits += [split_at(text, [i]) for i in range(1, len(text))]
    rng = random.Random(seed)
    for _ in range(20):
        k = rng.randint(1, max(1, len(text) // 3))
        splits.append(split_at(text, [rng.randint(1, max(1, len(text) - 1)) for _ in range(k)]))
    for chunks in splits:
        got = comparable(run_chunks(protocol, chunks, tools, **kw))
        assert got == reference, f"split {[len(c) for c in chunks][:20]} changed the events"


def assert_conserved(text: str, events: Sequence[Event]) -> None:
    """Every input character is text, inside a call, or counted by a diagnostic."""
    visible = sum(len(e.text) for e in events if isinstance(e, TextDelta))
    visible += sum(len(e.text) + e.markup_length for e in events if isinstance(e, ReasoningDelta))
    in_calls = sum(e.source_length for e in events if isinstance(e, ToolCallEnd))
    stripped = sum(e.stripped_length for e in events if isinstance(e, Diagnostic))
    assert visible + in_calls + stripped == len(text), (visible, in_calls, stripped, len(text))


def assert_deltas_are_prefixes(events: Sequence[Event]) -> None:
    """Per call: one id from start to end, deltas concatenate to a prefix of the final JSON."""
    sent: dict[str, str] = {}
    started: set[str] = set()
    for e in events:
        if isinstance(e, ToolCallStart):
            assert e.id not in started
            started.add(e.id)
            sent[e.id] = ""
        elif isinstance(e, ToolCallDelta):
            assert e.id in started
            sent[e.id] += e.arguments_delta
        elif isinstance(e, ToolCallEnd):
            assert e.call.id in started
            final = e.call.arguments_json()
            assert final.startswith(sent[e.call.id]), (sent[e.call.id][:80], final[:80])
            assert sent[e.call.id] == final, "all arguments are sent by the end"


def check_all_invariants(protocol: str, text: str, tools: Any = None, **kw: Any) -> None:
    events = run_chunks(protocol, [text], tools, **kw)
    assert_conserved(text, events)
    assert_deltas_are_prefixes(events)
    char_events = run_chunks(protocol, list(text), tools, **kw)
    assert_conserved(text, char_events)
    assert_deltas_are_prefixes(char_events)
    assert_split_invariant(protocol, text, tools, **kw)


def streamed_arguments(events: Iterable[Event]) -> str:
    """Every argument delta of `events`, joined (the streamed prefix of the arguments JSON)."""
    return "".join(e.arguments_delta for e in events if isinstance(e, ToolCallDelta))


def ns(text: str) -> str:
    """Invoke markup with `<@tag` / `</@tag` written in the exact `antml:` namespace."""
    return text.replace("</@", "</" + PREFIX).replace("<@", "<" + PREFIX)


def load_cases(name: str) -> list[dict[str, Any]]:
    """Cases copied from ../shared/corpus into tests/corpus (with their source and licence)."""
    path = CORPUS_DIR / name
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def load_exceptions(name: str) -> dict[str, str]:
    """Corpus case ids we deliberately decide differently from upstream, with the reason."""
    path = CORPUS_DIR / name
    return json.loads(path.read_text()) if path.exists() else {}


def calls_as_expected(result: toolmend.ParseResult) -> list[dict[str, Any]]:
    return [{"name": c.name, "arguments": c.arguments} for c in result.tool_calls]


def readers_built(protocol: str, monkeypatch: Any) -> list[str]:
    """The markers `protocol` builds a reader for from now on (the list grows as it does):
    `monkeypatch` (pytest's) wraps the protocol's `new_reader` for the test."""
    proto = toolmend.get_protocol(protocol)
    built: list[str] = []
    real = type(proto).new_reader

    def counted(self: Any, marker: str, ctx: Any) -> Any:
        built.append(marker)
        return real(self, marker, ctx)

    monkeypatch.setattr(type(proto), "new_reader", counted)
    return built
