"""Build the IR from validated schema documents (see `codegen.validation`)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from codegen.ir import Edition, Kind, Method, MethodRole, Protocol, Stability, TypeDef, role_of
from codegen.problems import pointer_join

JsonObject = dict[str, Any]


def build_edition(
    doc: JsonObject,
    *,
    stability: Stability,
    source: str,
    sha256: str,
    stable_names: frozenset[str] | None = None,
) -> Edition:
    """Load one validated document. `stable_names` (types and methods of the stable edition) marks
    what only the unstable edition has as `UNSTABLE`; without it everything gets `stability`."""
    defs: JsonObject = doc["$defs"]

    def stability_of(name: str) -> Stability:
        if stable_names is None:
            return stability
        return Stability.STABLE if name in stable_names else Stability.UNSTABLE

    types = tuple(
        TypeDef(
            name=name,
            pointer=pointer_join("/$defs", name),
            description=str(schema.get("description", "")),
            stability=stability_of(name),
            json_schema=schema,
        )
        for name, schema in sorted(defs.items())
    )

    by_method: dict[str, dict[MethodRole, str]] = defaultdict(dict)
    for name, schema in defs.items():
        if "x-method" in schema:
            role = role_of(name)
            assert role is not None, "validation guarantees a role"
            by_method[schema["x-method"]][role] = name

    methods: list[Method] = []
    for method_name, roles in by_method.items():
        for role, kind in (
            (MethodRole.PARAMS, Kind.REQUEST),
            (MethodRole.NOTIFICATION, Kind.NOTIFICATION),
        ):
            if role not in roles:
                continue
            params = roles[role]
            methods.append(
                Method(
                    name=method_name,
                    side=defs[params]["x-side"],
                    kind=kind,
                    params_type=params,
                    result_type=roles.get(MethodRole.RESULT) if kind is Kind.REQUEST else None,
                    stability=stability_of(method_name),
                    description=str(defs[params].get("description", "")),
                )
            )
    methods.sort(key=lambda m: (m.name, m.kind.value))
    return Edition(stability, source, sha256, types, tuple(methods))


def build_protocol(
    *,
    name: str,
    version: str,
    origin: str,
    stable: tuple[JsonObject, str, str],
    unstable: tuple[JsonObject, str, str],
) -> Protocol:
    """`stable`/`unstable` are (document, source file name, sha256)."""
    stable_edition = build_edition(
        stable[0], stability=Stability.STABLE, source=stable[1], sha256=stable[2]
    )
    stable_names = frozenset(t.name for t in stable_edition.types) | frozenset(
        m.name for m in stable_edition.methods
    )
    unstable_edition = build_edition(
        unstable[0],
        stability=Stability.UNSTABLE,
        source=unstable[1],
        sha256=unstable[2],
        stable_names=stable_names,
    )
    return Protocol(name, version, origin, stable_edition, unstable_edition)
