"""Validate an ACP schema document before anything is built from it.

Every check runs and every problem is reported, each with its JSON pointer, so one run shows all
that is wrong. Checks:
- the document is a valid JSON Schema (its declared metaschema, draft 2020-12 by default);
- every local `$ref` resolves;
- every `x-method` has an `x-side` of `acp_codegen.ir.Side` (and no `x-side` stands alone);
- every method def is named by the role rule of `acp_codegen.lowering.surface.role_of`; each
  request has a response;
- (method, role) pairs and `$defs` names (case-insensitively) are unique.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import jsonschema

from acp_codegen.ir import Side
from acp_codegen.lowering.surface import MethodRole, role_of
from acp_codegen.problems import SchemaProblem, pointer_join

JsonObject = dict[str, Any]
SIDES = frozenset(side.value for side in Side)


def validate_schema(doc: JsonObject, source: str) -> list[SchemaProblem]:
    """Return every problem found in `doc` (empty when it is fit for the IR)."""
    problems: list[SchemaProblem] = []
    problems += _metaschema_problems(doc, source)
    problems += _dangling_refs(doc, source)
    defs = doc.get("$defs")
    if not isinstance(defs, dict):
        problems.append(SchemaProblem(source, "/$defs", "missing `$defs` object"))
        return problems
    problems += _method_problems(defs, source)
    problems += _name_problems(defs, source)
    return problems


def _metaschema_problems(doc: JsonObject, source: str) -> list[SchemaProblem]:
    validator_class = jsonschema.validators.validator_for(
        doc, default=jsonschema.Draft202012Validator
    )
    meta = validator_class(validator_class.META_SCHEMA)
    return [
        SchemaProblem(
            source,
            "".join(pointer_join("", token) for token in error.absolute_path),
            f"not a valid JSON Schema: {error.message}",
        )
        for error in meta.iter_errors(doc)
    ]


def _dangling_refs(doc: JsonObject, source: str) -> list[SchemaProblem]:
    problems: list[SchemaProblem] = []

    def resolves(ref: str) -> bool:
        node: Any = doc
        for raw in ref[2:].split("/") if ref != "#" else []:
            token = raw.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and token in node:
                node = node[token]
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                return False
        return True

    def walk(node: Any, pointer: str) -> None:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str):
                if not ref.startswith("#"):
                    problems.append(
                        SchemaProblem(
                            source, pointer_join(pointer, "$ref"), f"external $ref {ref!r}"
                        )
                    )
                elif not resolves(ref):
                    problems.append(
                        SchemaProblem(
                            source, pointer_join(pointer, "$ref"), f"$ref {ref!r} does not resolve"
                        )
                    )
            for key, value in node.items():
                walk(value, pointer_join(pointer, key))
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, pointer_join(pointer, index))

    walk(doc, "")
    return problems


def _method_problems(defs: JsonObject, source: str) -> list[SchemaProblem]:
    problems: list[SchemaProblem] = []
    roles: dict[tuple[str, MethodRole], list[str]] = defaultdict(list)
    for name, schema in defs.items():
        if not isinstance(schema, dict):
            continue
        pointer = pointer_join("/$defs", name)
        method, side = schema.get("x-method"), schema.get("x-side")
        if method is None:
            if side is not None:
                problems.append(
                    SchemaProblem(
                        source, pointer_join(pointer, "x-side"), "`x-side` without `x-method`"
                    )
                )
            continue
        if not isinstance(method, str) or not method:
            problems.append(
                SchemaProblem(
                    source, pointer_join(pointer, "x-method"), "`x-method` must be a string"
                )
            )
            continue
        if side is None:
            problems.append(
                SchemaProblem(source, pointer, f"`x-method` {method!r} has no `x-side`")
            )
        elif side not in SIDES:
            problems.append(
                SchemaProblem(
                    source,
                    pointer_join(pointer, "x-side"),
                    f"`x-side` {side!r} is not one of {', '.join(sorted(SIDES))}",
                )
            )
        role = role_of(name)
        if role is None:
            problems.append(
                SchemaProblem(
                    source,
                    pointer,
                    f"method def {name!r} must end in Request, Response or Notification",
                )
            )
            continue
        roles[(method, role)].append(name)

    for (method, role), names in sorted(roles.items()):
        if len(names) > 1:
            for name in names[1:]:
                problems.append(
                    SchemaProblem(
                        source,
                        pointer_join("/$defs", name),
                        f"method {method!r} already has a {role.value} type {names[0]!r}",
                    )
                )
        if role is MethodRole.PARAMS and (method, MethodRole.RESULT) not in roles:
            problems.append(
                SchemaProblem(
                    source,
                    pointer_join("/$defs", names[0]),
                    f"request method {method!r} has no response type",
                )
            )
        if role is MethodRole.RESULT and (method, MethodRole.PARAMS) not in roles:
            problems.append(
                SchemaProblem(
                    source,
                    pointer_join("/$defs", names[0]),
                    f"response type for {method!r} has no request type",
                )
            )
    return problems


def _name_problems(defs: JsonObject, source: str) -> list[SchemaProblem]:
    problems: list[SchemaProblem] = []
    seen: dict[str, str] = {}
    for name in defs:
        pointer = pointer_join("/$defs", name)
        if not name.isidentifier():
            problems.append(
                SchemaProblem(source, pointer, f"type name {name!r} is not an identifier")
            )
        folded = name.casefold()
        if folded in seen:
            problems.append(
                SchemaProblem(source, pointer, f"type name {name!r} clashes with {seen[folded]!r}")
            )
        seen[folded] = name
    return problems
