"""The schema gate: the one place where tool-call arguments meet their tool's JSON Schema.

`SchemaGate.check()` normalises lone surrogates, validates with `jsonschema` (Draft 2020-12, one
compiled validator per schema, cached) and, under `Policy.LENIENT`, applies safe repairs: type
coercions, case/separator-insensitive names, parameter aliases, unknown-key removal where the
schema forbids extras, enum spellings, JSON held in strings, scalar-to-array wrapping. A value is
touched only where its own subschema rejects it, and the repaired arguments are returned only if
the whole then validates; otherwise the caller gets what the model sent (normalised) and a short
error naming the failing parameter(s). Every repair is recorded as a short stable string.

The gate never invents a value (repairs only narrow or convert what the model sent), never
executes anything, and never puts the argument body into an error message.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache, partial
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match
from jsonschema.protocols import Validator

from toolmend.jsontext import (
    DecodedArguments,
    json_type,
    nesting_exceeds,
    normalize_text,
    normalize_value,
)
from toolmend.jsontext import decode_json_object as _decode_json_object
from toolmend.model import Tool
from toolmend.textvalue import NOT_READ, container_from_text, read_as

__all__ = ["ALIAS_GROUPS", "GateResult", "Policy", "SchemaGate"]

#: Compiled validators kept across gates (keyed by the schema's JSON text): a long-lived proxy sees
#: the same few tools on every request, but must not grow without bound on ever-new schemas.
MAX_CACHED_VALIDATORS = 256
#: Per-schema subschema validators kept; past this the cache is cleared (it is only a speed-up).
MAX_SUBSCHEMA_VALIDATORS = 1024
#: The model-facing error is short: it names parameters, it never carries the argument body.
MAX_ERROR_CHARS = 300
#: How much of an offending value an error message may quote.
MAX_VALUE_PREVIEW = 40
#: Nesting depth the repair walk descends; deeper values are validated but never repaired, so a
#: hostile deeply nested value cannot exhaust the stack.
MAX_REPAIR_DEPTH = 64

#: Parameter names models substitute for one another; a name is resolved to whichever member the
#: schema declares (only when exactly one member is declared and it is absent from the call).
ALIAS_GROUPS: tuple[frozenset[str], ...] = (
    frozenset({"file_path", "path", "filename", "file", "filepath"}),
    frozenset({"old_string", "old_str", "old_text", "oldText"}),
    frozenset({"new_string", "new_str", "new_text", "newText"}),
    frozenset({"command", "cmd"}),
)

_SEPARATORS = re.compile(r"[_\- ]")
_QUOTES = "\"'`"
# Keywords that make a string subschema do more than "is a string": a value may be rewritten.
_NOT_PLAIN_STRING = frozenset(
    {"enum", "const", "anyOf", "oneOf", "allOf", "not", "if", "then", "else", "$ref", "$dynamicRef"}
)
# Keywords that constrain a value; a subschema with none of them accepts anything unchanged.
_ANNOTATIONS = frozenset(
    {"title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
     "$comment", "format", "$id", "$schema", "$anchor"}
)  # fmt: skip


def _norm_key(key: str) -> str:
    return _SEPARATORS.sub("", key).lower()


_ALIAS_NORMS: tuple[frozenset[str], ...] = tuple(
    frozenset(_norm_key(name) for name in group) for group in ALIAS_GROUPS
)


class Policy(str, Enum):  # noqa: UP042 - the documented interface is a str-valued Enum
    """How much the gate may do: validate only, or validation-gated repairs."""

    STRICT = "strict"
    LENIENT = "lenient"


@dataclass(slots=True)
class GateResult:
    """What `SchemaGate.check` returns.

    `arguments` are the repaired arguments when valid; otherwise what the model sent, with only
    lone-surrogate normalisation (no data lost). `error` is None iff valid.
    """

    arguments: dict[str, Any]
    repairs: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def valid(self) -> bool:
        return self.error is None


class _Compiled:
    """One schema's compiled validator plus memoised subschema validators."""

    __slots__ = ("_merged", "_subs", "root", "schema")

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema
        self.root: Validator = Draft202012Validator(schema)
        # id(subschema) -> (subschema, validator); holding the subschema keeps its id unique.
        self._subs: dict[int, tuple[Any, Validator]] = {}
        # (id(schema), keyword, index) -> (schema, merged branch) for anyOf/oneOf repairs.
        self._merged: dict[tuple[int, str, int], tuple[Any, dict[str, Any]]] = {}

    def is_valid(self, value: Any, schema: Any) -> bool:
        validator: Validator
        if schema is self.schema:
            validator = self.root
        else:
            hit = self._subs.get(id(schema))
            if hit is None or hit[0] is not schema:
                if len(self._subs) >= MAX_SUBSCHEMA_VALIDATORS:
                    self._subs.clear()
                # evolve keeps the root's reference resolver, so "$ref"s still resolve.
                hit = (schema, self.root.evolve(schema=schema))
                self._subs[id(schema)] = hit
            validator = hit[1]
        try:
            return bool(validator.is_valid(value))
        except RecursionError:
            return False

    def merged(self, schema: dict[str, Any], keyword: str, index: int) -> dict[str, Any]:
        """`schema` without its anyOf/oneOf, overlaid with branch `index` of `keyword`."""
        key = (id(schema), keyword, index)
        hit = self._merged.get(key)
        if hit is None or hit[0] is not schema:
            if len(self._merged) >= MAX_SUBSCHEMA_VALIDATORS:
                self._merged.clear()
            base = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}
            hit = (schema, {**base, **schema[keyword][index]})
            self._merged[key] = hit
        return hit[1]


@lru_cache(maxsize=MAX_CACHED_VALIDATORS)
def _compile(schema_text: str) -> _Compiled:
    return _Compiled(with_nullable_as_null(json.loads(schema_text)))


def with_nullable_as_null(schema: Any, depth: int = 0) -> Any:
    """`schema` with OpenAPI's `nullable: true` written as JSON Schema says it: null among the
    types (or the `anyOf`/`oneOf` branches, or the `enum` members).

    OpenAPI 3.0 has no null type; tools declared in its dialect (Gemini's, transformers'
    `get_json_schema` for an `Optional` parameter) mark a nullable value so, and a JSON Schema
    validator ignores the keyword: without this a model's `null` would be refused or kept the
    text "null". Beyond `MAX_REPAIR_DEPTH` levels the schema is left as it is.
    """
    if depth > MAX_REPAIR_DEPTH:
        return schema
    if isinstance(schema, list):
        return [with_nullable_as_null(s, depth + 1) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: with_nullable_as_null(v, depth + 1) for k, v in schema.items()}
    if out.get("nullable") is not True:
        return out
    declared = out.get("type")
    if isinstance(declared, str) and declared != "null":
        out["type"] = [declared, "null"]
    elif isinstance(declared, list) and "null" not in declared:
        out["type"] = [*declared, "null"]
    for keyword in ("anyOf", "oneOf"):
        if isinstance(out.get(keyword), list):
            out[keyword] = [*out[keyword], {"type": "null"}]
    if isinstance(out.get("enum"), list) and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    return out


def _compiled_for(tool: Tool) -> _Compiled:
    # Tool.parameters is a dict (unhashable): its canonical JSON text is the cache key.
    return _compile(json.dumps(tool.parameters, sort_keys=True, ensure_ascii=False))


# --------------------------------------------------------------------------------------------
# small value helpers


def schema_types(schema: Any) -> set[str]:
    """The JSON types a subschema asks for, inferred from its keywords when "type" is absent
    (empty when it is not a schema or names none)."""
    if not isinstance(schema, dict):
        return set()
    declared = schema.get("type")
    if isinstance(declared, str):
        return {declared}
    if isinstance(declared, list):
        return {t for t in declared if isinstance(t, str)}
    types: set[str] = set()
    if any(
        k in schema for k in ("properties", "additionalProperties", "patternProperties", "required")
    ):
        types.add("object")
    if "items" in schema or "prefixItems" in schema:
        types.add("array")
    members = _enum_members(schema)
    if members is not None:
        types.update(json_type(m) for m in members)
    return types


def declared_types(schema: Any, depth: int = 0) -> frozenset[str] | None:
    """The JSON types a parameter's schema declares, or None when it declares none we can read.

    Reads `type` (a name or a list), the branches of `anyOf`/`oneOf`, and `enum`/`const` members;
    OpenAPI's `nullable: true` adds null (`with_nullable_as_null`).
    """
    if not isinstance(schema, dict) or depth > MAX_REPAIR_DEPTH:
        return None
    if schema.get("nullable") is True:
        schema = with_nullable_as_null(schema, MAX_REPAIR_DEPTH)
    declared = schema.get("type")
    if isinstance(declared, str):
        return frozenset((declared,))
    if isinstance(declared, list):
        names = frozenset(t for t in declared if isinstance(t, str))
        return names or None
    types: set[str] = set()
    for keyword in ("anyOf", "oneOf"):
        branches = schema.get(keyword)
        if isinstance(branches, list):
            for branch in branches:
                sub = declared_types(branch, depth + 1)
                if sub is None:
                    return None
                types |= sub
    members = schema.get("enum", [schema["const"]] if "const" in schema else None)
    if isinstance(members, list):
        types.update(json_type(m) for m in members)
    return frozenset(types) or None


def _enum_members(schema: dict[str, Any]) -> list[Any] | None:
    if isinstance(schema.get("enum"), list):
        return list(schema["enum"])
    if "const" in schema:
        return [schema["const"]]
    return None


def _unquote(text: str) -> str:
    """Strip surrounding whitespace and one layer of matching quotes."""
    t = text.strip()
    if len(t) >= 2 and t[0] == t[-1] and t[0] in _QUOTES:
        t = t[1:-1].strip()
    return t


def _path_text(path: tuple[str | int, ...]) -> str:
    return ".".join(str(p) for p in path) if path else "$"


def _preview(value: Any) -> str:
    if isinstance(value, str):
        if len(value) > MAX_VALUE_PREVIEW:
            return repr(value[:MAX_VALUE_PREVIEW]) + "…"
        return repr(value)
    if isinstance(value, dict):
        return f"an object with {len(value)} key(s)"
    if isinstance(value, list):
        return f"an array of {len(value)} item(s)"
    text = repr(value)
    return text if len(text) <= MAX_VALUE_PREVIEW else text[:MAX_VALUE_PREVIEW] + "…"


def _error_message(error: ValidationError) -> str:
    """jsonschema's message with the offending instance replaced by a short preview."""
    message = error.message
    if error.validator == "type":
        wanted = error.validator_value
        wanted_text = " or ".join(wanted) if isinstance(wanted, list) else str(wanted)
        return f"expected {wanted_text}, got {json_type(error.instance)} {_preview(error.instance)}"
    if error.validator == "enum" and isinstance(error.validator_value, list):
        members = ", ".join(_preview(m) for m in error.validator_value[:12])
        return f"{_preview(error.instance)} is not one of: {members}"
    if isinstance(error.instance, (dict, list, str)) or len(message) > MAX_ERROR_CHARS:
        try:
            instance_repr = repr(error.instance)
        except RecursionError:
            instance_repr = ""
        if instance_repr and message.startswith(instance_repr):
            message = _preview(error.instance) + message[len(instance_repr) :]
    return message


def _describe_errors(errors: list[ValidationError]) -> str:
    best = best_match(errors)
    where = ".".join(str(p) for p in best.absolute_path)
    head = f"parameter '{where}': " if where else ""
    text = f"invalid arguments: {head}{_error_message(best)}"
    best_top = best.absolute_path[0] if best.absolute_path else None
    others = sorted({str(e.absolute_path[0]) for e in errors if e.absolute_path} - {str(best_top)})
    if others:
        text += " (also invalid: " + ", ".join(repr(o) for o in others) + ")"
    if len(text) > MAX_ERROR_CHARS:
        text = text[: MAX_ERROR_CHARS - 1] + "…"
    return text


# --------------------------------------------------------------------------------------------
# the repair walk


class _Repairer:
    """One repair attempt: walks a value against a subschema, collecting repairs.

    Invariant: a value that is valid against its own subschema is returned unchanged.
    """

    __slots__ = ("compiled", "repairs")

    def __init__(self, compiled: _Compiled) -> None:
        self.compiled = compiled
        self.repairs: list[str] = []

    def attempt(
        self, fn: Callable[[_Repairer], Any], schema: Any, label: str | None = None
    ) -> tuple[bool, Any]:
        """Run `fn` on a fresh repairer; keep its repairs (after `label`) only if it validates."""
        trial = _Repairer(self.compiled)
        value = fn(trial)
        if self.compiled.is_valid(value, schema):
            if label is not None:
                self.repairs.append(label)
            self.repairs.extend(trial.repairs)
            return True, value
        return False, value

    def repair(self, value: Any, schema: Any, path: tuple[str | int, ...], depth: int) -> Any:
        if not isinstance(schema, dict) or depth > MAX_REPAIR_DEPTH:
            return value
        if self.compiled.is_valid(value, schema):
            return value
        for keyword in ("anyOf", "oneOf"):
            branches = schema.get(keyword)
            if not isinstance(branches, list):
                continue
            for index, branch in enumerate(branches):
                if not isinstance(branch, dict):
                    continue
                sub = self.compiled.merged(schema, keyword, index)
                ok, repaired = self.attempt(
                    partial(_Repairer.repair, value=value, schema=sub, path=path, depth=depth + 1),
                    schema,
                )
                if ok:
                    return repaired
            return value
        target = self._local_ref(schema)
        if target is not None:
            return self.repair(value, target, path, depth + 1)
        return self._coerce(value, schema, schema_types(schema), path, depth)

    def _local_ref(self, schema: dict[str, Any]) -> Any:
        """The target of a bare local "$ref" ("#/$defs/x"), or None; other refs are not repaired."""
        ref = schema.get("$ref")
        if not isinstance(ref, str) or not ref.startswith("#/"):
            return None
        if any(k not in _ANNOTATIONS and k != "$ref" for k in schema):
            return None
        node: Any = self.compiled.schema
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                return None
        return node if isinstance(node, dict) else None

    def _coerce(
        self,
        value: Any,
        schema: dict[str, Any],
        types: set[str],
        path: tuple[str | int, ...],
        depth: int,
    ) -> Any:
        if isinstance(value, dict) and ("object" in types or not types):
            return self._repair_object(value, schema, path, depth)
        if isinstance(value, list):
            if "array" in types or not types:
                return self._repair_array(value, schema, path, depth)
            return value
        if not isinstance(value, dict):
            for candidate, label in self._scalar_candidates(value, schema, types, path):
                if self.compiled.is_valid(candidate, schema):
                    self.repairs.append(label)
                    return candidate
        if isinstance(value, str) and types & {"object", "array"}:
            parsed = container_from_text(value, repair=True)
            if parsed is not None and (
                ("object" in types and isinstance(parsed[0], dict))
                or ("array" in types and isinstance(parsed[0], list))
            ):
                ok, repaired = self.attempt(
                    lambda r: r.repair(parsed[0], schema, path, depth + 1),
                    schema,
                    f"{parsed[1]}:{_path_text(path)}",
                )
                if ok:
                    return repaired
        # A string that starts like an array but did not parse is a broken array, not one item.
        looks_like_array = isinstance(value, str) and value.lstrip().startswith("[")
        if "array" in types and value is not None and not looks_like_array:
            ok, repaired = self.attempt(
                lambda r: r._repair_array([value], schema, path, depth + 1),
                schema,
                f"wrap-array:{_path_text(path)}",
            )
            if ok:
                return repaired
        return value

    def _scalar_candidates(
        self, value: Any, schema: dict[str, Any], types: set[str], path: tuple[str | int, ...]
    ) -> Iterable[tuple[Any, str]]:
        where = _path_text(path)
        if isinstance(value, str):
            members = _enum_members(schema)
            if members is not None:
                wanted = _unquote(value).casefold()
                matches = [m for m in members if isinstance(m, str) and m.casefold() == wanted]
                if len(matches) == 1:
                    yield matches[0], f"{'enum' if 'enum' in schema else 'const'}:{where}"
            # The one reading of value text (`textvalue`), of the text inside any quotes.
            for kind in ("boolean", "integer", "number"):
                if kind in types:
                    read = read_as(_unquote(value), kind)
                    if read is not NOT_READ:
                        yield read, f"coerce:{where}:string->{kind}"
        elif "string" in types:
            if isinstance(value, bool):
                yield ("true" if value else "false"), f"coerce:{where}:boolean->string"
            elif isinstance(value, int):
                yield str(value), f"coerce:{where}:integer->string"
            elif isinstance(value, float) and math.isfinite(value):
                yield json.dumps(value), f"coerce:{where}:number->string"

    def _repair_object(
        self, obj: dict[str, Any], schema: dict[str, Any], path: tuple[str | int, ...], depth: int
    ) -> dict[str, Any]:
        props = schema.get("properties")
        props = props if isinstance(props, dict) else {}
        patterns = _patterns(schema)
        additional = schema.get("additionalProperties", True)
        closed = additional is False
        declared: set[str] = set(props)
        # unevaluatedProperties closes the object only when every evaluated property is visible
        # here (properties and allOf branches); other applicators are not followed.
        if (
            "additionalProperties" not in schema
            and schema.get("unevaluatedProperties") is False
            and not any(k in schema for k in ("anyOf", "oneOf", "if", "$ref", "dependentSchemas"))
        ):
            closed = True
            for branch in schema.get("allOf") or ():
                if isinstance(branch, dict) and isinstance(branch.get("properties"), dict):
                    declared.update(branch["properties"])

        def allowed_by_pattern(key: str) -> bool:
            return any(p.search(key) for p in patterns)

        claims: dict[str, list[str]] = {}
        for key in obj:
            if key in declared or allowed_by_pattern(key):
                continue
            target = _rename_target(key, props)
            if target is not None and target not in obj:
                claims.setdefault(target, []).append(key)
        renames = {sources[0]: target for target, sources in claims.items() if len(sources) == 1}

        out: dict[str, Any] = {}
        for key, value in obj.items():
            new_key = renames.get(key, key)
            if new_key != key:
                self.repairs.append(f"rename:{_path_text((*path, key))}->{new_key}")
            if new_key in props:
                out[new_key] = self.repair(value, props[new_key], (*path, new_key), depth + 1)
            elif new_key in declared or allowed_by_pattern(new_key):
                out[new_key] = value
            elif closed:
                self.repairs.append(f"drop:{_path_text((*path, key))}")
            elif isinstance(additional, dict):
                out[new_key] = self.repair(value, additional, (*path, new_key), depth + 1)
            else:
                out[new_key] = value
        return out

    def _repair_array(
        self, arr: list[Any], schema: dict[str, Any], path: tuple[str | int, ...], depth: int
    ) -> list[Any]:
        prefix = schema.get("prefixItems")
        prefix = prefix if isinstance(prefix, list) else []
        items = schema.get("items")
        out: list[Any] = []
        for index, item in enumerate(arr):
            sub = prefix[index] if index < len(prefix) else items
            out.append(self.repair(item, sub, (*path, index), depth + 1))
        return out


def _patterns(schema: dict[str, Any]) -> list[re.Pattern[str]]:
    raw = schema.get("patternProperties")
    if not isinstance(raw, dict):
        return []
    out: list[re.Pattern[str]] = []
    for pattern in raw:
        try:
            out.append(re.compile(pattern))
        except re.error:
            continue
    return out


def _rename_target(key: str, props: dict[str, Any]) -> str | None:
    """The declared property an undeclared `key` means, if exactly one fits."""
    norm = _norm_key(key)
    same = [p for p in props if _norm_key(p) == norm]
    if same:
        return same[0] if len(same) == 1 else None
    for group in _ALIAS_NORMS:
        if norm in group:
            members = [p for p in props if _norm_key(p) in group]
            return members[0] if len(members) == 1 else None
    return None


# --------------------------------------------------------------------------------------------
# the gate


class SchemaGate:
    """Checks and repairs one tool's arguments against its JSON Schema (see the module doc)."""

    __slots__ = ("_compiled", "policy", "tool")

    def __init__(self, tool: Tool | None, policy: Policy = Policy.LENIENT) -> None:
        self.tool = tool
        self.policy = Policy(policy)
        self._compiled = _compiled_for(tool) if tool is not None else None

    # -- queries used by streaming layers -------------------------------------------------

    def _root(self) -> dict[str, Any]:
        assert self._compiled is not None
        return self._compiled.schema

    def _properties(self) -> dict[str, Any]:
        props = self._root().get("properties")
        return props if isinstance(props, dict) else {}

    def _open_root(self) -> bool:
        """The root declares no names at all and accepts any key."""
        root = self._root()
        return (
            not self._properties()
            and not root.get("patternProperties")
            and root.get("additionalProperties", True) is not False
            and root.get("unevaluatedProperties", True) is not False
        )

    def _key_schema(self, key: str) -> Any:
        """The subschema a key's value is checked against, or None when the key is not declared."""
        props = self._properties()
        if key in props:
            return props[key]
        if self._open_root():
            additional = self._root().get("additionalProperties", True)
            return additional if isinstance(additional, dict) else {}
        return None

    def declares(self, key: str) -> bool:
        """True iff `key` is exactly a root property name (or any key is accepted as-is)."""
        if self._compiled is None:
            return True
        return self._key_schema(key) is not None

    def streams_string_as_is(self, key: str) -> bool:
        """True iff any string value for `key` is kept byte-for-byte by `check()`.

        That is: the key is declared and its subschema is a plain string type (no enum/const or
        combinators that could rewrite it), or it constrains nothing at all.
        """
        if self._compiled is None:
            return True
        sub = self._key_schema(key)
        if sub is True:
            return True
        if not isinstance(sub, dict):
            return False
        if all(k in _ANNOTATIONS for k in sub):
            return True
        declared = sub.get("type")
        plain = declared == "string" or (
            isinstance(declared, list) and declared and all(t == "string" for t in declared)
        )
        return bool(plain) and not any(k in _NOT_PLAIN_STRING for k in sub)

    def declared_types(self, key: str) -> frozenset[str] | None:
        """The JSON types `key`'s subschema declares (`declared_types`); None when it declares
        none we can read, or the key is undeclared, or there is no schema."""
        if self._compiled is None:
            return None
        return declared_types(self._key_schema(key))

    def value_as_is(self, key: str, value: Any) -> bool:
        """True iff `key` is declared and `value` validates unchanged (so `check()` keeps it)."""
        if self._compiled is None:
            return True
        sub = self._key_schema(key)
        if sub is None or nesting_exceeds(value) or normalize_value(value) is not value:
            return False
        return self._compiled.is_valid(value, sub)

    # -- checking ---------------------------------------------------------------------------

    def check(self, arguments: dict[str, Any]) -> GateResult:
        """Validate (and under LENIENT, repair) one call's arguments; see `GateResult`."""
        if not isinstance(arguments, dict):
            return GateResult(
                {}, [], f"arguments must be a JSON object, got {json_type(arguments)}"
            )
        normalised: dict[str, Any] = normalize_value(arguments)
        notes = _surrogate_notes(arguments, normalised)
        compiled = self._compiled
        if compiled is None or compiled.is_valid(normalised, compiled.schema):
            return GateResult(normalised, notes, None)
        error = self._error(normalised)
        if self.policy is Policy.LENIENT:
            repairer = _Repairer(compiled)
            candidate = repairer.repair(normalised, compiled.schema, (), 0)
            if isinstance(candidate, dict) and compiled.is_valid(candidate, compiled.schema):
                return GateResult(candidate, [*notes, *repairer.repairs], None)
        return GateResult(normalised, [], error)

    def errors(self, arguments: dict[str, Any]) -> list[ValidationError]:
        """Every way `arguments` fail the schema, as the gate's own validator finds them
        (empty when valid, when there is no schema, or when nesting is too deep to walk)."""
        if self._compiled is None:
            return []
        try:
            return list(self._compiled.root.iter_errors(arguments))
        except RecursionError:
            return []

    def _error(self, arguments: dict[str, Any]) -> str:
        assert self._compiled is not None
        try:
            errors = list(self._compiled.root.iter_errors(arguments))
        except RecursionError:
            return "invalid arguments: nested too deeply"
        if not errors:  # is_valid said no, iter_errors found nothing: only a recursion limit
            return "invalid arguments: nested too deeply"
        return _describe_errors(errors)

    def decode_json_object(self, raw: str) -> DecodedArguments:
        """Decode JSON argument text; repairs (escapes, json-repair) only under LENIENT."""
        return _decode_json_object(raw, allow_repair=self.policy is Policy.LENIENT)


def _surrogate_notes(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    if before is after:
        return []
    notes: list[str] = []
    for (key, value), (new_key, new_value) in zip(before.items(), after.items(), strict=False):
        if new_key is not key or new_value is not value:
            notes.append(f"surrogate:{normalize_text(new_key)}")
    return notes
