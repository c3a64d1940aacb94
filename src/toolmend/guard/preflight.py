"""Preflight: structural checks of a tool call before it runs.

This module owns the pure checks that block a call before execution: an unknown tool name,
arguments that are not one JSON object (concatenated, truncated, or bad syntax), `cwd` present
but not a string, another tool's call nested inside a parameter, a missing required parameter,
a parameter of the wrong JSON type; and XML tool markup in the message text next to native
calls. Each check returns a `Finding` (a flag plus safe names). It never executes anything,
never counts and never builds guidance. A parameter the schema declares as an object (or as an
array of objects) is never flagged as a nested call.

It answers as the parser does because it asks the parser's own pieces: names resolve through
`ToolResolver` (`Todo` is the declared `todo`), arguments are checked by the tool's
`SchemaGate` (one compiled validator), argument text is read by `jsontext`, and message text is
scanned by `TextScanner` (markup in inline code and in any fence the parser masks is not markup).
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolmend.core.textscan import TextScanner
from toolmend.guard.classify import safe_identifier
from toolmend.guard.patterns import Flag
from toolmend.jsontext import json_type, loads_json_data, split_concatenated
from toolmend.model import Tool, ToolCall
from toolmend.names import ToolResolver
from toolmend.schema_gate import Policy, SchemaGate

#: Nested-call walk bounds: deep enough for `{"args": {"calls": [{...}]}}`, small enough that a
#: hostile argument tree costs nothing. Cycles are cut by identity.
MAX_NESTED_DEPTH = 4
MAX_NESTED_NODES = 64
#: Message text scanned for tool markup next to native calls.
MAX_MARKUP_SCAN_CHARS = 100_000
#: A declared tool's required keys identify a nested call only when there are at least this
#: many: a single common key such as `path` is not a signature.
MIN_SIGNATURE_KEYS = 2

_ARGS_KEYS = frozenset({"arguments", "args", "input", "parameters", "params"})
_CALL_KEYS = frozenset({"tool_calls", "tool_use", "function_call"})
#: The openings of tool markup in message text; a marker with a pattern counts only when the
#: text after it matches (`<function=NAME>`, `<invoke name=`, a tool-name tag then a tag or a
#: line break).
_MARKUP_MARKERS = (
    "<tool_call>",
    "<function=",
    "<invoke",
    "<function_calls>",
    "<tool_use>",
    "<use_mcp_tool>",
    "<|tool_call>",
    "<|tool_call|>",
)
_MARKUP_CONFIRM = {"<function=": re.compile(r"[\w.\-]+>"), "<invoke": re.compile(r"\s+name=")}
_TOOL_TAG_CONFIRM = re.compile(r"\s*(?:<|\n)")


@dataclass(frozen=True, slots=True)
class Finding:
    """One structural problem: its flag and the safe names the guidance may use."""

    flag: Flag
    param: str | None = None
    got_type: str | None = None
    requested_tool: str | None = None

    def metadata(self) -> dict[str, Any]:
        meta: dict[str, Any] = {"flag": self.flag.value, "stage": "preflight"}
        if self.param:
            meta["param"] = self.param
        if self.requested_tool:
            meta["requested_tool"] = self.requested_tool
        return meta


@dataclass(frozen=True, slots=True)
class CallView:
    """A tool call in any accepted shape, normalised: ToolCall, OpenAI dict, or bare dict."""

    id: str
    name: str
    arguments: Mapping[str, Any] | None
    raw_arguments: str | None
    incomplete: bool = False

    @property
    def key_arguments(self) -> object:
        return self.arguments if self.arguments is not None else (self.raw_arguments or "")


def view_call(call: object) -> CallView:
    """Normalise `call`; odd shapes become a call with no name and no arguments. A `CallView`
    is its own view (a history replay views each call once and passes the view on)."""
    if type(call) is CallView:
        return call
    if isinstance(call, ToolCall):
        return CallView(call.id, call.name, call.arguments, None, call.incomplete)
    # Parsed JSON is made of dicts: `type() is dict` first, the slower ABC check for the rest.
    if type(call) is not dict and not isinstance(call, Mapping):
        return CallView("", "", None, None)
    body: Mapping[str, Any] = call
    function = call.get("function")
    if type(function) is dict or isinstance(function, Mapping):
        body = function
    name = body.get("name")
    args = body.get("arguments", body.get("input", body.get("args")))
    call_id = call.get("id")
    raw = args if isinstance(args, str) else None
    mapping = args if type(args) is dict or isinstance(args, Mapping) else None
    return CallView(
        call_id if isinstance(call_id, str) else "",
        name if isinstance(name, str) else "",
        mapping,
        raw,
        call.get("incomplete") is True,  # the dict form of ToolCall carries it too
    )


def parse_arguments(raw: str) -> tuple[dict[str, Any] | None, Finding | None]:
    """Parse an arguments string: one JSON object, or the finding that says why not."""
    text = raw.strip()
    if not text:
        return {}, None
    try:
        value = loads_json_data(text)
    except json.JSONDecodeError as exc:
        return None, Finding(_json_failure(text, exc))
    except ValueError:  # JSON that is no data (NaN, nesting too deep): the parser refuses it
        return None, Finding(Flag.INVALID_JSON)
    if not isinstance(value, dict):
        return None, Finding(Flag.INVALID_JSON)
    return value, None


def _json_failure(text: str, exc: json.JSONDecodeError) -> Flag:
    """Why `text` is not one JSON value (`exc` is what `json.loads` said): glued objects, a
    value cut off, or otherwise broken."""
    if split_concatenated(text) is not None:
        return Flag.CONCATENATED_JSON
    if exc.msg == "Extra data":  # one whole value, then something that is not another object
        return Flag.INVALID_JSON
    if exc.pos >= len(text) - 1 or exc.msg.startswith("Unterminated string"):
        return Flag.TRUNCATED_JSON
    return Flag.INVALID_JSON


def _declares_object(schema: object) -> bool:
    if not isinstance(schema, Mapping):
        return False
    kind = schema.get("type")
    kinds = set(kind) if isinstance(kind, list) else {kind}
    if "object" in kinds or "properties" in schema:
        return True
    if "array" in kinds:
        items = schema.get("items")
        return isinstance(items, Mapping) and _declares_object(items)
    return any(_declares_object(s) for s in schema.get("anyOf", schema.get("oneOf", [])) or [])


class PreflightChecker:
    """The checks for one tool set; validators are compiled once per tool."""

    def __init__(self, tools: Sequence[Tool] | None) -> None:
        self.tools: dict[str, Tool] | None = (
            {t.name: t for t in tools} if tools is not None else None
        )
        self._tool_list = list(tools) if tools is not None else None
        #: The declared names, in order (read on every call a history replays).
        self.tool_names: tuple[str, ...] = tuple(self.tools) if self.tools is not None else ()
        self._resolver = ToolResolver(tools)
        self._gates: dict[str, SchemaGate] = {}
        self._signatures: list[frozenset[str]] = []
        for tool in tools or []:
            required = tool.parameters.get("required")
            if isinstance(required, list) and len(required) >= MIN_SIGNATURE_KEYS:
                self._signatures.append(frozenset(str(r) for r in required))

    @functools.cached_property
    def fingerprint(self) -> bytes | None:
        """A digest of what the checks depend on (each tool's name and parameters schema, in
        order): two checkers with the same fingerprint give the same findings."""
        if self._tool_list is None:
            return None
        spec = [[tool.name, tool.parameters] for tool in self._tool_list]
        return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).digest()

    def tool(self, name: str) -> Tool | None:
        """The declared tool `name` resolves to, as the parser resolves it (None: unknown)."""
        return self._resolver.resolve(name) if self.tools is not None else None

    def check(self, call: CallView) -> tuple[Finding | None, Mapping[str, Any] | None]:
        """The first structural problem of `call` (or None) and its parsed arguments."""
        if self.tools is not None and self.tool(call.name) is None:
            flag = Flag.MCP_TOOL_MISSING if call.name.startswith("mcp__") else Flag.UNKNOWN_TOOL
            return Finding(flag, requested_tool=safe_identifier(call.name)), None
        args = call.arguments
        if args is None and call.raw_arguments is not None:
            args, finding = parse_arguments(call.raw_arguments)
            if finding:
                return finding, None
        if call.incomplete:
            return Finding(Flag.TRUNCATED_JSON), args
        if args is None:
            return None, None
        tool = self.tool(call.name)
        props = _properties(tool)
        cwd = args.get("cwd")
        if cwd is not None and not isinstance(cwd, str) and not _declares_object(props.get("cwd")):
            return Finding(Flag.CWD_OBJECT, "cwd", json_type(args["cwd"])), args
        nested = self._nested(args, props)
        if nested:
            return Finding(Flag.NESTED_TOOL_CALL, safe_identifier(nested)), args
        if tool is not None:
            return self._schema(tool, args), args
        return None, args

    def _schema(self, tool: Tool, args: Mapping[str, Any]) -> Finding | None:
        required = tool.parameters.get("required")
        if isinstance(required, list):
            for name in required:
                if name not in args:
                    return Finding(Flag.MISSING_PARAM, safe_identifier(name))
        gate = self._gates.get(tool.name)
        if gate is None:
            gate = self._gates[tool.name] = SchemaGate(tool, Policy.STRICT)
        for error in gate.errors(dict(args)):
            if error.validator == "type" and error.absolute_path:
                return Finding(Flag.TYPE_MISMATCH, safe_identifier(str(error.absolute_path[0])))
        return None

    def _nested(self, args: Mapping[str, Any], props: Mapping[str, Any]) -> str | None:
        budget = [MAX_NESTED_NODES]
        seen: set[int] = set()
        for key, value in args.items():
            if key == "cwd" or _declares_object(props.get(key)):
                continue
            if self._walk(value, 1, budget, seen):
                return str(key)
        return None

    def _walk(self, value: object, depth: int, budget: list[int], seen: set[int]) -> bool:
        if depth > MAX_NESTED_DEPTH or budget[0] <= 0:
            return False
        if isinstance(value, Mapping):
            if id(value) in seen:
                return False
            seen.add(id(value))
            budget[0] -= 1
            if self._looks_like_call(value):
                return True
            children: list[object] = list(value.values())
        elif isinstance(value, list):
            if id(value) in seen:
                return False
            seen.add(id(value))
            budget[0] -= 1
            children = list(value)
        else:
            return False
        return any(self._walk(child, depth + 1, budget, seen) for child in children)

    def _looks_like_call(self, obj: Mapping[str, Any]) -> bool:
        keys = frozenset(str(k) for k in obj)
        if keys & _CALL_KEYS:
            return True
        if obj.get("type") == "function" and isinstance(obj.get("function"), Mapping):
            return True
        name = obj.get("name", obj.get("tool", obj.get("tool_name")))
        if isinstance(name, str) and keys & _ARGS_KEYS:
            return safe_identifier(name) is not None
        return any(signature <= keys for signature in self._signatures)


def _properties(tool: Tool | None) -> Mapping[str, Any]:
    if tool is None:
        return {}
    props = tool.parameters.get("properties")
    return props if isinstance(props, Mapping) else {}


def has_tool_markup(text: object, tool_names: Sequence[str] = ()) -> bool:
    """True when message text carries XML tool-call markup outside code spans."""
    if not isinstance(text, str) or "<" not in text:
        return False
    visible = text[:MAX_MARKUP_SCAN_CHARS]
    tags = {f"<{name}>" for name in tool_names if safe_identifier(name)}
    scanner = TextScanner((*_MARKUP_MARKERS, *tags))
    pos = 0
    while True:
        at = scanner.scan(visible, pos, True)[1]
        if at is None:
            return False
        marker = scanner.matched
        pos = at + len(marker)
        confirm = _MARKUP_CONFIRM.get(marker, _TOOL_TAG_CONFIRM if marker in tags else None)
        if confirm is None or confirm.match(visible, pos):
            return True
