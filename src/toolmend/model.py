"""The canonical model every part of toolmend speaks: tools and tool calls.

This module owns the shapes only. It never parses model output, never repairs arguments and
never talks to a network; protocols, the schema gate and the proxy build on these types so that
no two entry points can disagree about what a tool call is.
"""

from __future__ import annotations

import json
import random
import re
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

# The caller's errors live in `toolmend.errors`; they are named here too, where they always were.
from toolmend.errors import (
    CannotRenderError,
    ToolmendError,
    ToolSchemaError,
    UnknownProtocolError,
)

__all__ = [
    "EMPTY_OBJECT_SCHEMA",
    "CallIdFactory",
    "CannotRenderError",
    "JSONDict",
    "Tool",
    "ToolCall",
    "ToolSchemaError",
    "ToolmendError",
    "ToolsLike",
    "UnknownProtocolError",
    "canonical_json",
    "coerce_tools",
]

JSONDict = dict[str, Any]

#: The schema used when a tool declares no parameters: any object.
EMPTY_OBJECT_SCHEMA: JSONDict = {"type": "object", "properties": {}}


#: The JSON Schema types.
JSON_SCHEMA_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})

#: Type names tool schemas write that are no JSON Schema type, each read as the type it means:
#: Python's and C's spellings (TensorRT-LLM's and mlx-lm's tests declare `"float"`, `"int"`,
#: `"dict"`; vLLM's Qwen3 parsers read `"long"`, `"uint"`, `"double"` the same way). Matched
#: in any letter case, so `"String"` and `"Integer"` (Java-style schemas) read too.
TYPE_ALIASES: dict[str, str] = {
    **{name: "number" for name in ("float", "double", "decimal", "num")},
    **{name: "integer" for name in ("int", "long", "short", "uint", "unsigned")},
    **{name: "string" for name in ("str", "text")},
    "bool": "boolean",
    **{name: "object" for name in ("dict", "map")},
    **{name: "array" for name in ("list", "tuple")},
    "none": "null",
}

#: Schema keywords whose values are data, not schemas: an alias inside them is left as written.
_DATA_KEYWORDS = frozenset({"enum", "const", "default", "examples", "example"})


#: A numeric type name with its width (`int32`, `uint64`, `float32`, C's `int64_t`): HY V4's
#: test declares `"uint32"`, and vLLM's HY V4 and Qwen3-Coder parsers read every `int…`/`uint…`
#: name as an integer. Only a number stem takes a width: `string8` means nothing.
_SIZED_NUMBER = re.compile(r"([a-z]+?)(?:8|16|32|64|128)(?:_t)?")


def _alias_target(name: Any) -> str | None:
    """The JSON Schema type a type name means, when it is an alias (not already a type)."""
    if not isinstance(name, str) or name in JSON_SCHEMA_TYPES:
        return None
    folded = name.strip().lower()
    if folded in JSON_SCHEMA_TYPES:
        return folded
    sized = _SIZED_NUMBER.fullmatch(folded)
    if sized is not None:
        stem = TYPE_ALIASES.get(sized.group(1), sized.group(1))
        return stem if stem in ("integer", "number") else None
    return TYPE_ALIASES.get(folded)


def _map_type_aliases(node: Any, path: str, notes: list[str]) -> Any:
    """`node` (a schema or a part of one) with every aliased `type` written as its JSON Schema
    type; each mapping is noted as `PATH: ALIAS -> TYPE`."""
    if isinstance(node, list):
        return [_map_type_aliases(v, f"{path}/{i}", notes) for i, v in enumerate(node)]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        where = f"{path}/{key}" if path else key
        if key == "type" and isinstance(value, (str, list)):
            names = value if isinstance(value, list) else [value]
            mapped = []
            for name in names:
                target = _alias_target(name)
                if target is not None:
                    notes.append(f"{where}: {name} -> {target}")
                mapped.append(target or name)
            out[key] = mapped if isinstance(value, list) else mapped[0]
        elif key in _DATA_KEYWORDS:
            out[key] = value
        else:
            out[key] = _map_type_aliases(value, where, notes)
    return out


def _meta_schema_problem(schema: Any) -> str | None:
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "(root)"
        unknown = exc.instance if exc.validator == "anyOf" and where.endswith("type") else None
        if isinstance(unknown, str):
            known = ", ".join(sorted(JSON_SCHEMA_TYPES))
            return (
                f"invalid parameters schema at {where}: {unknown!r} is no JSON Schema type "
                f"(one of {known}, or an alias of one: {', '.join(sorted(TYPE_ALIASES))}, "
                "or a number's name with its width, such as int32)"
            )
        return f"invalid parameters schema at {where}: {exc.message}"
    return None


@lru_cache(maxsize=1024)
def _read_schema(schema_json: str) -> tuple[tuple[str, ...], str | None]:
    """A parameters schema (given as JSON) as toolmend reads it: `(aliases, problem)`.

    `aliases` notes each type alias (`TYPE_ALIASES`) the schema writes, which
    `_map_type_aliases` writes as the JSON Schema type it means; `problem` says why the schema
    (so mapped) is not a valid JSON Schema, or is None.

    Cached by the schema's text: an agent sends the same tools with every request, and checking
    a schema against the meta-schema costs milliseconds, more than parsing a long reply.
    """
    schema = json.loads(schema_json)
    problem = _meta_schema_problem(schema)
    if problem is None:
        return (), None
    notes: list[str] = []
    mapped = _map_type_aliases(schema, "", notes)
    if not notes:
        return (), problem
    return tuple(notes), _meta_schema_problem(mapped)


@dataclass(frozen=True, slots=True)
class Tool:
    """One callable tool: a name, a description and a JSON Schema for its arguments."""

    name: str
    description: str = ""
    parameters: JSONDict = field(default_factory=lambda: dict(EMPTY_OBJECT_SCHEMA))
    #: The type aliases the given schema wrote (`PATH: ALIAS -> TYPE`, see `TYPE_ALIASES`),
    #: which `parameters` holds as the JSON Schema types they mean.
    type_aliases: tuple[str, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ToolSchemaError(f"tool name must be a non-empty string, got {self.name!r}")
        if not isinstance(self.parameters, dict):
            raise ToolSchemaError(
                f"tool {self.name!r}: parameters must be a JSON Schema object, "
                f"got {type(self.parameters).__name__}"
            )
        try:
            schema_json = json.dumps(self.parameters, sort_keys=True)
        except (TypeError, ValueError) as exc:
            raise ToolSchemaError(
                f"tool {self.name!r}: the parameters schema is not JSON ({exc})"
            ) from None
        aliases, problem = _read_schema(schema_json)
        if problem is not None:
            raise ToolSchemaError(f"tool {self.name!r}: {problem}")
        if aliases:
            # Mapped on the schema as given, not its cached sorted text: properties keep their
            # order (prompts and positional calls follow it).
            object.__setattr__(self, "parameters", _map_type_aliases(self.parameters, "", []))
            object.__setattr__(self, "type_aliases", aliases)

    @classmethod
    def from_dict(cls, spec: Mapping[str, Any]) -> Tool:
        """Build a tool from an OpenAI `{"type":"function","function":{...}}` or bare dict."""
        if not isinstance(spec, Mapping):
            raise ToolSchemaError(f"a tool must be a JSON object, got {type(spec).__name__}")
        body: Any = spec
        if spec.get("type") == "function" or "function" in spec:
            body = spec.get("function")
            if not isinstance(body, Mapping):
                raise ToolSchemaError(
                    f"tool of type 'function' needs a 'function' object, got {body!r:.80}"
                )
        name = body.get("name")
        if not isinstance(name, str) or not name.strip():
            raise ToolSchemaError(f"tool without a usable 'name': {json.dumps(body)[:120]}")
        params = body.get("parameters", body.get("input_schema"))
        if params is None:
            params = dict(EMPTY_OBJECT_SCHEMA)
        description = body.get("description") or ""
        if not isinstance(description, str):
            raise ToolSchemaError(f"tool {name!r}: description must be a string")
        return cls(name=name, description=description, parameters=params)

    def to_openai(self) -> JSONDict:
        """The OpenAI chat-completions form of this tool."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


ToolsLike = Iterable["Tool | Mapping[str, Any]"] | None


def coerce_tools(tools: ToolsLike) -> list[Tool] | None:
    """Normalise what callers pass as `tools` into `Tool` objects (None stays None)."""
    if tools is None:
        return None
    if isinstance(tools, (str, bytes, Mapping)):
        raise ToolSchemaError("tools must be a list of tool definitions")
    out: list[Tool] = []
    for spec in tools:
        out.append(spec if isinstance(spec, Tool) else Tool.from_dict(spec))
    return out


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call as toolmend hands it to an agent.

    `incomplete` marks a call that must not be executed (cut off, or arguments that do not
    validate); `error` then says why. `repairs` names every repair the schema gate applied.
    Frozen: a consumer holding a call (from a `ToolCallEnd`, a `ParseResult`) sees it as it was
    emitted; toolmend builds a new call rather than changing one (`dataclasses.replace`).
    """

    id: str
    name: str
    arguments: JSONDict = field(default_factory=dict)
    incomplete: bool = False
    error: str | None = None
    repairs: list[str] = field(default_factory=list)

    @property
    def executable(self) -> bool:
        """True when the call may be run: complete and without error."""
        return not self.incomplete and self.error is None

    def arguments_json(self) -> str:
        """The canonical JSON text of the arguments (the one argument deltas are prefixes of)."""
        return canonical_json(self.arguments)

    def to_dict(self) -> JSONDict:
        return {
            "id": self.id,
            "name": self.name,
            "arguments": self.arguments,
            "incomplete": self.incomplete,
            "error": self.error,
            "repairs": list(self.repairs),
        }


def canonical_json(value: Any) -> str:
    """The one JSON spelling toolmend emits for arguments: key order kept, no ASCII escapes."""
    return _ARGUMENTS_ENCODER.encode(value)


#: `canonical_json`'s encoder, made once: `json.dumps` with any option builds a new encoder on
#: every call, a third of what encoding a small call's arguments costs (a call's end encodes
#: them, and its argument stream each complete value).
_ARGUMENTS_ENCODER = json.JSONEncoder(ensure_ascii=False)


class CallIdFactory:
    """Makes tool-call ids: `call_` + random hex, or deterministic when asked.

    With `prefix`, ids are `prefix` + a counter (`call_1`, `call_2`, ...); with `seed`, the random
    part comes from a seeded generator, so the same input always yields the same ids.
    """

    __slots__ = ("_counter", "_prefix", "_rng")

    def __init__(self, prefix: str | None = None, seed: int | str | None = None) -> None:
        self._prefix = prefix
        self._rng = random.Random(seed) if seed is not None else None
        self._counter = 0

    def next_id(self) -> str:
        self._counter += 1
        if self._prefix is not None and self._rng is None:
            return f"{self._prefix}{self._counter}"
        prefix = self._prefix if self._prefix is not None else "call_"
        if self._rng is not None:
            return prefix + f"{self._rng.getrandbits(96):024x}"
        return prefix + secrets.token_hex(12)
