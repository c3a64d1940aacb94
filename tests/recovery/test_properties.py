"""Properties of recovery over any chunking: split-invariance, and nothing recovered from code
spans, fenced blocks or reasoning."""

from __future__ import annotations

import itertools
import json

from hypothesis import given, settings
from hypothesis import strategies as st

import toolmend
from support import split_at

from .wire import TOOLS, chunk, content_stream, fold

LT = "<"
CALLS = [
    '<tool_call>{"name": "read_file", "arguments": {"path": "a.py"}}</tool_call>',
    LT
    + 'invoke name="todo">'
    + LT
    + 'parameter name="item">x'
    + LT
    + "/parameter>"
    + LT
    + "/invoke>",
    "<tool_call><function=get_weather><parameter=city>Oslo</parameter></function></tool_call>",
    '<|open|>tools<|sep|><|open|>call tool="todo" index="1"<|sep|><|open|>argument key="item" type="string"<|sep|>y<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>',
]
#: A call longer than the text leg's batch, so that it is read in batches while it streams.
LONG_CALL = (
    '<tool_call>{"name": "write_file", "arguments": {"file_path": "a", "content": "'
    + 'x <y> & \\"z\\" ' * 60
    + '"}}</tool_call>'
)
CALLS.append(LONG_CALL)
PROSE = st.text(alphabet="abc xyz.,:\n-*", max_size=12)


def pieces_of(text: str, cuts: list[int]) -> list[str]:
    return split_at(text, [c % (len(text) + 1) for c in cuts])


def run(pieces: list[str], **kw) -> dict:
    return fold(
        toolmend.recover_stream(content_stream(pieces), tools=TOOLS, model="m", id_prefix="p", **kw)
    )


def in_code(markup: str, style: int) -> str:
    if style == 0:
        return f"`{markup}`"
    if style == 1:
        return f"\n```\n{markup}\n```\n"
    return f"\n~~~json\n{markup}\n~~~\n"


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(PROSE, st.sampled_from(CALLS)), min_size=1, max_size=3),
    PROSE,
    st.lists(st.integers(min_value=0, max_value=10_000), max_size=12),
)
def test_the_emitted_calls_and_text_do_not_depend_on_the_chunking(parts, tail, cuts):
    text = "".join(prose + " " + markup for prose, markup in parts) + tail
    whole = run([text])
    split = run(pieces_of(text, cuts))
    assert split["calls"] == whole["calls"]
    assert split["text"] == whole["text"]
    # A call that repeats the one right before it never runs (`core.calls.REPEATED_CALL`).
    repeats = sum(a[1] == b[1] for a, b in itertools.pairwise(parts))
    assert len(whole["calls"]) == len(parts) - repeats


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(PROSE, st.sampled_from(CALLS), st.integers(0, 2)), min_size=1, max_size=3),
    st.lists(st.integers(min_value=0, max_value=10_000), max_size=12),
)
def test_no_call_is_ever_recovered_from_inline_code_or_a_fenced_block(parts, cuts):
    # Spans are kept apart by a blank: `A``B``C` is ONE span by CommonMark, longer than the
    # scanner's documented wait for a closer (MAX_INLINE_CODE_LOOKAHEAD) when A and C are long,
    # and past that bound an opener is literal text by design.
    text = "".join(prose + " " + in_code(markup, style) for prose, markup, style in parts)
    got = run(pieces_of(text, cuts))
    assert got["calls"] == [] and got["rejected"] == []
    assert got["text"] == text


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.sampled_from(CALLS), min_size=1, max_size=3),
    st.lists(st.integers(min_value=0, max_value=10_000), max_size=8),
)
def test_no_call_is_ever_recovered_from_reasoning_content(markups, cuts):
    reasoning = " then ".join(markups)
    chunks = [
        chunk({"role": "assistant", "reasoning_content": p}) for p in pieces_of(reasoning, cuts)
    ]
    chunks += [chunk({"content": "Answer."}), chunk({}, "stop")]
    got = fold(toolmend.recover_stream(chunks, tools=TOOLS, model="m"))
    assert got["calls"] == [] and got["reasoning"] == reasoning
    assert got["finish"] == ["stop"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=10_000), max_size=10))
def test_a_kimi_think_channel_never_yields_a_call_however_it_is_split(cuts):
    text = f"<|open|>think<|sep|>try {CALLS[3]} maybe<|close|>think<|sep|>Done."
    got = fold(
        toolmend.recover_stream(
            content_stream(pieces_of(text, cuts), model="kimi-k3"), tools=TOOLS, model="kimi-k3"
        )
    )
    assert got["calls"] == [] and got["text"] == "Done."


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.integers(min_value=1, max_value=9), min_size=1, max_size=30),
    st.sampled_from(['{"path": "a.py"}', '{"path": "a.py"}{"path": "b.py"}']),
)
def test_native_calls_come_out_the_same_however_their_fragments_are_cut(sizes, arguments):
    fragments = [
        {
            "index": 0,
            "id": "call_n",
            "type": "function",
            "function": {"name": "read_file", "arguments": ""},
        }
    ]
    pos = 0
    for size in sizes * 10:
        if pos >= len(arguments):
            break
        fragments.append({"index": 0, "function": {"arguments": arguments[pos : pos + size]}})
        pos += size
    if pos < len(arguments):
        fragments.append({"index": 0, "function": {"arguments": arguments[pos:]}})
    got = fold(
        toolmend.recover_stream(content_stream([], native=fragments), tools=TOOLS, model="m")
    )
    objects = [json.loads(x) for x in arguments.replace("}{", "}\n{").split("\n")]
    assert [c[1] for c in got["calls"]] == objects


SECRET = "Zq7-secret-value"
#: Streams whose calls fail in every way recovery reports; the secret is in each failed call.
FAILING = {
    "cut-off text call": {
        "content": f'<tool_call>{{"name": "read_file", "arguments": {{"path": "{SECRET}'
    },
    "invalid text call": {
        "content": f'<tool_call>{{"name": "get_weather", "arguments": {{"city": "x", "days": "{SECRET}"}}}}</tool_call>'
    },
    "cut-off native call": {"native": f'{{"path": "{SECRET}'},
    "invalid native arguments": {"native": f'{{"path": {{"deep": "{SECRET}"}}}}'},
    "glued native objects, one invalid": {"native": f'{{"path": "a"}}{{"x": "{SECRET}"}}'},
}


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(sorted(FAILING)),
    st.lists(st.integers(min_value=0, max_value=10_000), max_size=6),
    st.booleans(),
)
def test_no_diagnostic_ever_carries_model_text(kind, cuts, attach):
    case = FAILING[kind]
    native = []
    if "native" in case:
        native = [
            {"index": 0, "id": "c1", "function": {"name": "read_file", "arguments": p}}
            for p in pieces_of(case["native"], cuts)
        ]
    pieces = pieces_of(case["content"], cuts) if "content" in case else []
    diags: list[dict] = []
    out = list(
        toolmend.recover_stream(
            content_stream(pieces, native=native),
            tools=TOOLS,
            model="m",
            on_diagnostic=diags.append,
            attach_diagnostics=attach,
        )
    )
    assert diags, "a failed call is never silent"
    assert SECRET not in json.dumps(diags)
    attached = [d for c in out for d in c.get("toolmend_diagnostics", [])]
    assert SECRET not in json.dumps(attached)
    assert fold(out)["calls"] == []


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.text(alphabet='ab<>{}"|:', max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                ["index", "id", "type", "function", "name", "arguments", "content", "x"]
            ),
            inner,
            max_size=3,
        )
    ),
    max_leaves=8,
)
DELTA = st.fixed_dictionaries(
    {},
    optional={
        "content": JSON | st.sampled_from(CALLS),
        "tool_calls": JSON
        | st.lists(
            st.fixed_dictionaries({"index": JSON, "id": JSON, "function": JSON}), max_size=2
        ),
        "reasoning_content": JSON,
        "role": JSON,
    },
)
CHOICE = st.fixed_dictionaries(
    {"delta": DELTA | JSON}, optional={"index": JSON, "finish_reason": JSON}
)
CHUNK = st.fixed_dictionaries(
    {},
    optional={
        "choices": st.lists(CHOICE, max_size=2) | JSON,
        "usage": JSON,
        "error": JSON,
        "model": JSON,
    },
)


@settings(max_examples=300, deadline=None)
@given(st.lists(CHUNK, max_size=6))
def test_malformed_chunks_never_crash_and_every_emitted_call_is_whole(chunks):
    for out in toolmend.recover_stream(chunks, tools=TOOLS):
        choices = out.get("choices")
        for choice in choices if isinstance(choices, list) else []:
            if not isinstance(choice, dict) or not isinstance(choice.get("delta"), dict):
                continue
            for entry in choice["delta"].get("tool_calls") or []:
                if entry.get("type") != "function":
                    continue  # a call type toolmend does not read, passed on as it came
                assert entry["id"]
                assert isinstance(json.loads(entry["function"]["arguments"]), dict)


RESPONSE_CHOICE = st.fixed_dictionaries(
    {"message": DELTA | JSON}, optional={"index": JSON, "finish_reason": JSON}
)
RESPONSE = st.fixed_dictionaries(
    {},
    optional={
        "choices": st.lists(RESPONSE_CHOICE, max_size=3) | JSON,
        "usage": JSON,
        "model": JSON,
    },
)


@settings(max_examples=300, deadline=None)
@given(RESPONSE)
def test_malformed_responses_never_crash(response):
    out = toolmend.recover_response(response, tools=TOOLS)
    assert isinstance(out, dict)
