"""YAML in a tool-name tag: `<tool_name>\\nkey: value\\n</tool_name>`, the body a YAML mapping.

The format of the ai-sdk-tool-call-middleware's yamlXml ("orchestrator") protocol. Only a
declared tool name opens a call (`<name>`, `<name/>`, `<name >`); with `tools=None` nothing can
open one. The body is read raw up to the exact closer `</tool_name>` and decoded once, when it
closes, with PyYAML's safe loader (libyaml's when present) minus timestamp resolution, so
`2024-01-01` stays a string; a body using aliases is refused, so a small body cannot expand into
a huge value. Arguments are emitted when the body closes: partial YAML is never streamed. An
empty body or `<tool_name/>` is a call without arguments; a body that is not a mapping, or not
valid YAML, is an incomplete call with an error. The body is bounded by the engine's fragment cap.

At the end of a stream, a body missing only its closer is complete (R3) only if its last line
is finished and starts at column 0 (a complete top-level `key: value`); an indented last line
may be a cut block scalar or nested mapping, so such a call stays incomplete.

The module never executes, renames or repairs anything: the schema gate does that.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

import yaml

from toolmend.core.fastpath import ValueText
from toolmend.core.keyrules import duplicate_key_error
from toolmend.core.reader import MAX_TAG_LENGTH, BlockContext, BlockReader, EofVerdict
from toolmend.core.textscan import find_closer, skip_blanks
from toolmend.model import Tool, ToolCall
from toolmend.protocols.base import carried_raw, declare_tools
from toolmend.protocols.toolname_tags import ToolTagReader, ToolTagSyntax

#: Line width passed to the YAML emitter: long strings are never folded over several lines.
RENDER_WIDTH = 1 << 30
#: Nesting depth a decoded body may have (deeper is refused: the walk and the gate recurse).
MAX_DEPTH = 64
#: A `key:` on the opening tag's own line (`<tool>key: value`): the only text there that makes a
#: call; anything else right after a tool-name tag is prose mentioning the tool.
_INLINE_KEY = re.compile(r"[\w\"'][^:\n<>]{0,120}:[ \t\n]")
#: A last line whose value continues on the next lines (`key:`, `key: |`, `key: >-`).
_VALUE_FOLLOWS = re.compile(r":[ \t]*(?:[|>][-+0-9]*)?[ \t]*\Z")


# libyaml's parser when PyYAML has it (a 50 KB body decodes in milliseconds, not a tenth of a
# second), with the safe constructor either way.
_SafeBase: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _DuplicateKey(yaml.YAMLError):
    """A mapping of the body gives one key twice (YAML forbids it; PyYAML would keep the last)."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


class _Loader(_SafeBase):  # type: ignore[misc]
    """The safe loader without timestamp resolution (dates stay strings), refusing duplicate
    keys: yaml-xml follows `DuplicateRule.REJECT`, as YAML itself does."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[tuple[str, str]] = set()
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                key = (key_node.tag, key_node.value)
                if key in seen:
                    raise _DuplicateKey(key_node.value)
                seen.add(key)
        mapping: dict[Any, Any] = super().construct_mapping(node, deep)
        return mapping


_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


class _Dumper(yaml.SafeDumper):
    """SafeDumper writing multi-line strings as literal block scalars (`|`)."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _represent_str)


def _non_json(value: Any, seen: set[int], depth: int = 0) -> str | None:
    """Why a loaded YAML value is not JSON (a non-string key, a non-finite number, a shared
    container), or None. A container met twice came from an alias: refused, since a small body
    with nested aliases would expand into a huge value (and a cycle into an endless one)."""
    if depth > MAX_DEPTH:
        return "the YAML body is nested too deeply"
    if isinstance(value, (dict, list)):
        if id(value) in seen:
            return "aliases are not accepted in tool arguments"
        seen.add(id(value))
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                return f"a YAML key is not a string ({type(k).__name__})"
            why = _non_json(v, seen, depth + 1)
            if why:
                return why
        return None
    if isinstance(value, list):
        for v in value:
            why = _non_json(v, seen, depth + 1)
            if why:
                return why
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return "a YAML number is not finite"
    if value is None or isinstance(value, (str, int, float, bool)):
        return None
    return f"a YAML value of type {type(value).__name__} is not JSON"


def decode_body(body: str) -> tuple[dict[str, Any], str | None]:
    """The arguments held by a YAML body, or an error."""
    try:
        value = yaml.load(body, Loader=_Loader)  # a SafeLoader subclass
    except _DuplicateKey as exc:
        return {}, duplicate_key_error(exc.key)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        return {}, f"the call's YAML body does not parse{where}"
    if value is None:
        return {}, None
    if not isinstance(value, dict):
        return {}, f"the call's YAML body is not a mapping (got {type(value).__name__})"
    why = _non_json(value, set())
    if why is not None:
        return {}, why
    return value, None


def render_body(arguments: dict[str, Any]) -> str:
    """YAML text that `decode_body` turns back into exactly `arguments`."""
    return yaml.dump(
        arguments,
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=RENDER_WIDTH,
    )


class YamlXmlProtocol(ToolTagSyntax):
    body_is_tags = False
    id = "yaml-xml"
    summary = "YAML arguments in a tag named after the tool: <tool>\\nkey: value\\n</tool>"
    # Arguments are known only when the body closes; nothing streams before.
    incremental_arguments = False

    def new_reader(self, marker: str, ctx: BlockContext) -> BlockReader:
        return YamlXmlReader(marker, ctx)

    def render_tools(self, tools: Sequence[Tool]) -> str:
        return (
            declare_tools(tools)
            + "To call a function, write a tag named after it holding its arguments as a YAML "
            "mapping, one `key: value` per line:\n"
            "<write_file>\npath: notes/todo.md\ncontent: |\n  # Todo\n  - buy milk\n"
            "</write_file>\n\n"
            "Use a `|` block for text spanning several lines (indent every line of it), quote "
            'text that YAML would read as something else ("yes", "1", "null"), and write '
            "a call without arguments as <function-name/>. Write one block per call."
        )

    def render_call(self, call: ToolCall) -> str:
        if not call.arguments:
            return f"<{call.name}/>"
        body = carried_raw(render_body(call.arguments), (f"</{call.name}>",), protocol_id=self.id)
        return f"<{call.name}>\n{body}</{call.name}>"


class YamlXmlReader(ToolTagReader):
    """Reads one yaml-xml body: raw text up to `</tool_name>`, decoded when it closes."""

    def __init__(self, marker: str, ctx: BlockContext) -> None:
        super().__init__(marker, ctx)
        self.body: list[str] = []
        self.on_new_line = False  # a newline came between the opening tag and the body text

    def body_step(self, buf: str, pos: int, end: int, final: bool) -> int:
        if not self.begun:
            pos = self._before_begin(buf, pos, end, final)
            if not self.begun:
                return pos
        stop, closed = find_closer(buf, pos, end, (self.closer,))
        if stop > pos:
            self.body.append(buf[pos:stop])
        if closed:
            arguments, error = decode_body("".join(self.body))
            return self.finish_call(arguments, stop + len(self.closer), error)
        if final:
            self.tail = buf[stop:end]
        return stop

    def _before_begin(self, buf: str, pos: int, end: int, final: bool) -> int:
        """Begin the call once the body shows one: its first text on a later line than the tag,
        or a `key:` right after it. Other text on the tag's line means prose: revert."""
        start = pos
        pos = skip_blanks(buf, pos, end)
        if pos > start:
            self.consumed.append(buf[start:pos])
            self.body.append(buf[start:pos])
            self.on_new_line = self.on_new_line or "\n" in buf[start:pos]
        if buf.startswith(self.closer, pos, end):
            self.begin()  # an empty body
            return pos
        if pos == end or self.closer.startswith(buf[pos:end]):
            if final:
                self.tail = buf[pos:end]
            return pos  # nothing yet, or perhaps the closer
        if not self.on_new_line and _INLINE_KEY.match(buf, pos, end) is None:
            if buf.find("\n", pos, end) < 0 and end - pos < MAX_TAG_LENGTH and not final:
                return pos  # a `key:` may still come on this line
            self.not_a_call()
            return pos
        if self.begin():
            # Body text before the closer is kept without calling this reader (nothing streams:
            # the argument stream ignores it).
            self.ctx.stream_value(ValueText((self.closer,)), raw=(self.body,))
        return pos

    def body_verdict(self) -> EofVerdict:
        body = "".join(self.body)
        if not self.begun:
            # An empty body is complete only with (a prefix of) its closer after it (R3).
            if self.tail and self.closer.startswith(self.tail) and self.begin():
                return EofVerdict(recoverable=True, arguments={})
            return EofVerdict(recoverable=False, name=self.name)
        arguments, error = decode_body(body)
        last = body.rstrip(" \t\r\n").rpartition("\n")[2]
        finished = (
            body.rstrip(" \t").endswith("\n")
            and last[:1] not in (" ", "\t", "")
            and _VALUE_FOLLOWS.search(last) is None
        )
        if error is not None:
            return EofVerdict(recoverable=False, arguments=arguments, reason=error)
        return EofVerdict(recoverable=finished, arguments=arguments)


PROTOCOL = YamlXmlProtocol()
