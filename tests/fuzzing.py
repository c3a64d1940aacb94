"""A grammar fuzzer for every text protocol: vocabulary, generator, checks and a shrinker.

The vocabulary is built from what the registered protocols say about themselves (their opening
and closing markers, result envelopes, rendered calls and results), plus escapes, entities,
code fences, reasoning tags, value text and long runs of one character. An input is a random
sequence of those pieces, sometimes with a slice of a rendered call spliced in (so that inputs
come near valid calls and then break them), sometimes with one character dropped.

`check(text, rng)` runs the input through every protocol and `auto` and returns the first
failure (a share of inputs under a small fragment cap, `draw_max_fragment`, so that calls and
refused values outgrow it and the overflow paths run): an exception, a result that changes
when the input is fed in random chunks (or one character at a time), a character not
conserved, argument deltas that are not a prefix of the final arguments, or a complete call
whose arguments do not validate against the tool's schema, or a parser that never returns (`hang`: each protocol's checks of one input get
`HANG_CPU_SECONDS` of CPU, so a loop that would stall the run ends as a failure). Timing beyond
that is the caller's business (`bench/fuzz.py` bounds it; tests never time anything).

Used by `tests/test_fuzz.py` (a short seeded run) and `bench/fuzz.py` (a million inputs).
"""

from __future__ import annotations

import random
import re
import signal
import threading
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import jsonschema

import toolmend
from support import comparable, run_chunks, split_at
from toolmend.core.reader import MAX_TAG_LENGTH
from toolmend.events import (
    Diagnostic,
    Event,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
)
from toolmend.names import ToolResolver
from toolmend.protocols.base import MAX_DETECTION_LOOKAHEAD

TOOLS: list[dict[str, Any]] = [
    {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city"],
        },
    },
    {
        "name": "write_file",
        "parameters": {
            "type": "object",
            "properties": {"file_path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["file_path", "content"],
        },
    },
]
SCHEMAS = {t["name"]: t["parameters"] for t in TOOLS}
PROTOCOLS = [*toolmend.protocols(), "auto"]

SAMPLE_CALLS = [
    toolmend.ToolCall(id="call_1", name="get_weather", arguments={"city": "Rome", "days": 2}),
    toolmend.ToolCall(
        id="call_2",
        name="write_file",
        arguments={"file_path": "a.py", "content": 'if a < b:\n    print("x & y")\n'},
    ),
]
ESCAPES = ['\\"', "\\\\", "\\n", "\\u00e9", "\\ud83d", "\\u00", "&lt;", "&amp;", "&#60;", "&#x3c;"]
FENCES = ["```", "```python\n", "\n```\n", "~~~\n", "`", "``", "\n    "]
REASONING = ["<think>", "</think>", "<|channel|>analysis<|message|>", "<|end|>"]
VALUES = [
    "Rome",
    "get_weather",
    "write_file",
    "getweather",
    "city",
    "days",
    "content",
    "2",
    "-1.5e3",
    "true",
    "null",
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    '"',
    "'",
    "=",
    "(",
    ")",
    "\n",
    " ",
    "\t",
    "\r\n",
    "é",
    "😀",
    "call:",
    "name",
    "arguments",
    '"name": "get_weather"',
    '"arguments": {',
]
#: Characters whose long runs stress held-back text (backticks, blanks, tag and brace starts).
RUN_CHARS = "` <{~\n|"
#: Run lengths around the bounds readers wait through, drawn often since a random length
#: rarely lands on them: one short of the bound, at it, and just past it.
BOUND_RUNS = tuple(n + d for n in (MAX_TAG_LENGTH, MAX_DETECTION_LOOKAHEAD) for d in (-1, 0, 1, 2))


#: A token of an input, for the word-dropping mutation: a name, a number, or one other character.
TOKEN = re.compile(r"\w+|[^\w\s]")
#: Fragment caps a share of inputs run under (`draw_max_fragment`): the least there is, and a
#: few up to the size of an input, so that calls and refused values outgrow them (the default
#: cap, 1 MiB, is never reached by a fuzz input, and a hang past it went unfound).
SMALL_CAPS = (MAX_TAG_LENGTH, MAX_TAG_LENGTH + 1, 200, 256, 512, 1024, 4096)
#: The share of inputs run under one of `SMALL_CAPS`.
SMALL_CAP_SHARE = 0.3
#: CPU seconds one protocol's checks of one input may take before they count as a hang: linear
#: parsing of a few thousand characters takes milliseconds, so only a loop comes near it.
HANG_CPU_SECONDS = 5.0


@lru_cache(maxsize=1)
def vocabulary() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(pieces, rendered calls) gathered from every registered protocol."""
    resolver = ToolResolver(toolmend.model.coerce_tools(TOOLS))
    pieces: set[str] = set(ESCAPES + FENCES + REASONING + VALUES)
    rendered: list[str] = []
    for pid in toolmend.protocols():
        proto = toolmend.get_protocol(pid)
        opening = list(proto.opening_markers(resolver))
        pieces.update(opening)
        pieces.update(proto.closing_markers())
        for marker in opening:
            pieces.update(proto.closing_markers_after(marker))
        pieces.update(proto.result_closers)
        for call in SAMPLE_CALLS:
            rendered.append(proto.render_call(call))
        rendered.append(proto.render_result("call_1", "get_weather", '{"temp": 21}'))
    return tuple(sorted(pieces)), tuple(rendered)


def generate(rng: random.Random, *, max_run: int = 300) -> str:
    """One input: pieces, slices of rendered calls, long runs, and an occasional dropped char
    or dropped token (a key or value gone from a rendered call: `{:1}`, `city=>`)."""
    pieces, rendered = vocabulary()
    out: list[str] = []
    for _ in range(rng.randint(1, 24)):
        roll = rng.random()
        if roll < 0.2:
            call = rng.choice(rendered)
            a = rng.randint(0, len(call))
            b = rng.randint(a, len(call))
            out.append(call if rng.random() < 0.4 else call[a:b])
        elif roll < 0.25:
            length = rng.choice(BOUND_RUNS) if rng.random() < 0.3 else rng.randint(2, max_run)
            out.append(rng.choice(RUN_CHARS) * length)
        else:
            out.append(rng.choice(pieces))
    text = "".join(out)
    if text and rng.random() < 0.2:
        i = rng.randrange(len(text))
        text = text[:i] + text[i + 1 :]
    if text and rng.random() < 0.2:
        text = drop_token(text, rng)
    return text


def drop_token(text: str, rng: random.Random) -> str:
    """`text` without one of its tokens (a whole key, value or name, or one punctuation mark)."""
    tokens = list(TOKEN.finditer(text))
    if not tokens:
        return text
    token = rng.choice(tokens)
    return text[: token.start()] + text[token.end() :]


def draw_max_fragment(rng: random.Random) -> int | None:
    """The fragment cap of one input's checks: one of `SMALL_CAPS` for a `SMALL_CAP_SHARE` of
    inputs, else None (the parser's default)."""
    return rng.choice(SMALL_CAPS) if rng.random() < SMALL_CAP_SHARE else None


class Hang(BaseException):
    """A protocol's checks of one input ran out of `HANG_CPU_SECONDS` (a BaseException, so that
    no `except Exception` inside a parser can swallow it)."""


@contextmanager
def cpu_bound(seconds: float) -> Iterator[None]:
    """Raise `Hang` in the block once it used `seconds` of CPU (main thread only: elsewhere a
    signal cannot be delivered, and the block runs unbounded)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise Hang

    previous = signal.signal(signal.SIGPROF, expire)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


@dataclass(frozen=True)
class Failure:
    """What broke, for which protocol, under which fragment cap (None: the default); `detail`
    is a short message (never more than 2 KB)."""

    protocol: str
    kind: str
    detail: str
    max_fragment: int | None = None


def _conservation(text: str, events: list[Event]) -> str | None:
    visible = sum(len(e.text) for e in events if isinstance(e, TextDelta))
    visible += sum(len(e.text) + e.markup_length for e in events if isinstance(e, ReasoningDelta))
    in_calls = sum(e.source_length for e in events if isinstance(e, ToolCallEnd))
    stripped = sum(e.stripped_length for e in events if isinstance(e, Diagnostic))
    if visible + in_calls + stripped != len(text):
        return f"text {visible} + calls {in_calls} + stripped {stripped} != {len(text)}"
    return None


def _deltas(events: list[Event]) -> str | None:
    sent: dict[str, str] = {}
    ended: set[str] = set()
    for e in events:
        if isinstance(e, ToolCallStart):
            sent[e.id] = ""
        elif isinstance(e, ToolCallDelta):
            if e.id not in sent:
                return "a delta before its start"
            if e.id in ended:
                return "a delta after its call ended"
            sent[e.id] += e.arguments_delta
        elif isinstance(e, ToolCallEnd):
            ended.add(e.call.id)
            final = e.call.arguments_json()
            if sent.get(e.call.id, "") != final and not _diverged(events, e.call.id):
                return f"deltas {sent.get(e.call.id, '')[:60]!r} are not {final[:60]!r}"
    return None


def _diverged(events: list[Event], call_id: str) -> bool:
    """The parser said so itself (`argument_stream_diverged`): a documented, flagged case."""
    return any(
        isinstance(e, Diagnostic)
        and e.code == "argument_stream_diverged"
        and e.metadata.get("call_id") == call_id
        for e in events
    )


def _invalid_call(events: list[Event]) -> str | None:
    for e in events:
        if isinstance(e, ToolCallEnd) and not e.call.incomplete:
            schema = SCHEMAS.get(e.call.name)
            if schema is None:
                return f"an executable call of an undeclared tool {e.call.name!r}"
            try:
                jsonschema.validate(e.call.arguments, schema)
            except jsonschema.ValidationError as exc:
                return f"an executable call that does not validate: {exc.message[:200]}"
    return None


def _chunkings(text: str, rng: random.Random, by_char_share: float) -> list[list[str]]:
    """One character at a time for short inputs (a `by_char_share` of them), one random split."""
    splits = [list(text)] if len(text) <= 400 and rng.random() < by_char_share else []
    size = rng.choice((1, 2, 3, 5, 8, 13, 64))
    points = range(size, len(text), size) if rng.random() < 0.5 else None
    if points is None:
        points = [rng.randint(1, max(1, len(text) - 1)) for _ in range(rng.randint(1, 16))]
    splits.append(split_at(text, list(points)))
    return splits


def check_protocol(
    text: str,
    protocol: str,
    rng: random.Random,
    by_char_share: float = 1.0,
    max_fragment: int | None = None,
) -> Failure | None:
    """The first invariant `text` breaks under `protocol` (and `max_fragment`), or None."""
    try:
        with cpu_bound(HANG_CPU_SECONDS):
            failure = _check_protocol(text, protocol, rng, by_char_share, max_fragment)
    except Hang:
        failure = Failure(protocol, "hang", f"no result after {HANG_CPU_SECONDS:.0f} s of CPU")
    return None if failure is None else replace(failure, max_fragment=max_fragment)


def _check_protocol(
    text: str, protocol: str, rng: random.Random, by_char_share: float, max_fragment: int | None
) -> Failure | None:
    options = {} if max_fragment is None else {"max_fragment": max_fragment}
    try:
        whole = run_chunks(protocol, [text], TOOLS, **options)
    except Exception:
        return Failure(protocol, "exception", traceback.format_exc(limit=6)[-2000:])
    for kind, why in (
        ("conservation", _conservation(text, whole)),
        ("deltas", _deltas(whole)),
        ("invalid_call", _invalid_call(whole)),
    ):
        if why is not None:
            return Failure(protocol, kind, why)
    reference = comparable(whole)
    for chunks in _chunkings(text, rng, by_char_share):
        try:
            events = run_chunks(protocol, chunks, TOOLS, **options)
        except Exception:
            return Failure(protocol, "exception", traceback.format_exc(limit=6)[-2000:])
        if comparable(events) != reference:
            sizes = [len(c) for c in chunks[:12]]
            return Failure(protocol, "split", f"chunks {sizes}... change the result")
        why = _conservation(text, events) or _deltas(events)
        if why is not None:
            return Failure(protocol, "conservation_split", why)
    return None


def check(
    text: str, rng: random.Random, protocols: list[str] = PROTOCOLS, by_char_share: float = 1.0
) -> Failure | None:
    """The first invariant `text` breaks under any protocol or `auto`, or None; all of them
    under one fragment cap drawn for the input (`draw_max_fragment`)."""
    max_fragment = draw_max_fragment(rng)
    for protocol in protocols:
        failure = check_protocol(
            text, protocol, random.Random(rng.random()), by_char_share, max_fragment
        )
        if failure is not None:
            return failure
    return None


def shrink(text: str, fails: Callable[[str], bool], *, budget: int = 400) -> str:
    """A shorter text that still `fails` (greedy removal of ever smaller spans)."""
    span = max(1, len(text) // 2)
    while span >= 1 and budget > 0:
        i = 0
        removed = False
        while i < len(text) and budget > 0:
            candidate = text[:i] + text[i + span :]
            budget -= 1
            if candidate != text and fails(candidate):
                text = candidate
                removed = True
            else:
                i += span
        if not removed:
            span //= 2
    return text


def same_failure(failure: Failure, seed: int) -> Callable[[str], bool]:
    """A predicate for `shrink`: the same protocol fails in the same way."""

    def fails(candidate: str) -> bool:
        found = check_protocol(
            candidate, failure.protocol, random.Random(seed), max_fragment=failure.max_fragment
        )
        return found is not None and found.kind == failure.kind

    return fails
