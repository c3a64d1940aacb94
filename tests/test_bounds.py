"""Bounded waits decide the same way however the input is split.

Readers wait through runs of blanks (and headers, and detection lookahead) only up to a bound
(`MAX_TAG_LENGTH`, `MAX_DETECTION_LOOKAHEAD`), so held-back text stays small. A run one past
the bound must then be decided without looking past it, or the whole text (which shows what
follows the run) and the same text one character at a time (which does not) read differently.
This sweeps such a run through every position of every protocol's own rendered calls; the
fuzzer (`tests/fuzzing.py`) found four such cases by chance, this finds their siblings by
construction.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

import toolmend
from fuzzing import SAMPLE_CALLS, TOOLS
from support import comparable, run_chunks
from toolmend.core.reader import MAX_TAG_LENGTH
from toolmend.protocols.base import MAX_DETECTION_LOOKAHEAD


@pytest.mark.parametrize("reader", ["own", "auto"])
@pytest.mark.parametrize("protocol", toolmend.protocols())
def test_a_blank_run_one_past_the_bound_anywhere_in_a_rendered_call_reads_the_same_by_char(
    protocol: str, reader: str
) -> None:
    rendered = toolmend.get_protocol(protocol).render_call(SAMPLE_CALLS[0])
    parse_as = protocol if reader == "own" else "auto"
    bound = MAX_TAG_LENGTH if reader == "own" else MAX_DETECTION_LOOKAHEAD
    for i in range(len(rendered) + 1):
        text = rendered[:i] + " " * (bound + 1) + rendered[i:]
        whole = comparable(run_chunks(parse_as, [text], TOOLS))
        by_char = comparable(run_chunks(parse_as, list(text), TOOLS))
        assert by_char == whole, f"the run at {i} ({rendered[max(0, i - 20) : i]!r}|...)"


@pytest.mark.parametrize("chunk", [None, 512])
@pytest.mark.parametrize("protocol", toolmend.protocols())
def test_a_call_over_the_fragment_cap_that_never_closes_ends_incomplete_and_never_hangs(
    protocol: str, chunk: int | None
) -> None:
    # The engine skips an oversized call to its closer; a stream that ends before the closer
    # once made `finish()` loop forever (the skip said "go on" with nothing left to read).
    call = toolmend.ToolCall(
        id="call_1", name="write_file", arguments={"file_path": "a.py", "content": "x" * 8000}
    )
    rendered = toolmend.get_protocol(protocol).render_call(call)
    text = rendered[: rendered.index("x" * 8000) + 6000]  # cut inside the long value
    chunks = [text] if chunk is None else [text[i : i + chunk] for i in range(0, len(text), chunk)]
    events: list[Any] = []
    worker = threading.Thread(
        target=lambda: events.extend(run_chunks(protocol, chunks, TOOLS, max_fragment=2048)),
        daemon=True,
    )
    worker.start()
    worker.join(timeout=60)
    assert not worker.is_alive(), "finish() did not return"
    calls = [e.call for e in events if isinstance(e, toolmend.ToolCallEnd)]
    assert all(c.incomplete for c in calls)
    assert "fragment_overflow" in [e.code for e in events if isinstance(e, toolmend.Diagnostic)]


#: A Phi-4-mini call whose first key lost its opening quote (the fuzzer's case: json-repair
#: reads it), then markup of another format: its reader returns part-way through the body.
BROKEN_KEY_CALL = (
    'functools[{name": "write_file", "arguments": {"file_path": "a.py", "content": '
    '"if a < b:\\n    print(\\"x & y\\")\\n"}}]<' + "antml" + ":invoke"
)


def test_a_reader_that_returns_short_of_the_fragment_cap_is_read_on_not_cut_off() -> None:
    # The engine once took any step given input past the cap for an overflow, even one that
    # stopped short of the cap and would have read on: the whole text then lost a call that
    # the same text in pieces kept.
    assert len(BROKEN_KEY_CALL) > MAX_TAG_LENGTH
    reference = comparable(run_chunks("phi4-mini", [BROKEN_KEY_CALL], TOOLS))
    assert [e[3]["name"] for e in reference if isinstance(e, tuple)] == ["write_file"]
    text = BROKEN_KEY_CALL
    for chunks in [[text], list(text), *([text[:i], text[i:]] for i in range(1, len(text)))]:
        got = comparable(run_chunks("phi4-mini", chunks, TOOLS, max_fragment=MAX_TAG_LENGTH))
        assert got == reference, f"split {[len(c) for c in chunks][:3]}"


@pytest.mark.parametrize("protocol", [*toolmend.protocols(), "auto"])
def test_a_call_under_the_fragment_cap_followed_by_more_text_reads_as_without_a_cap(
    protocol: str,
) -> None:
    rendered = toolmend.get_protocol(protocol if protocol != "auto" else "hermes").render_call(
        SAMPLE_CALLS[0]
    )
    text = rendered + "\nThat is the call; the rest of this reply is prose. " * 8
    cap = max(MAX_TAG_LENGTH, len(rendered) + 1)
    reference = comparable(run_chunks(protocol, [text], TOOLS))
    for chunks in ([text], list(text)):
        assert comparable(run_chunks(protocol, chunks, TOOLS, max_fragment=cap)) == reference
