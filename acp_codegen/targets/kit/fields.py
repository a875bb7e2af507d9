"""A struct's fields as every target writes them: flat.

No target writes a base as a base: Go has no inheritance (and an embedded struct's promoted
methods would fight the struct's own MarshalJSON), a TypeScript interface that redeclares a field
would fight `extends`, and a Python constructor takes every field as a parameter. So a struct's
fields are its bases' (depth first, in order), then its own; a field a struct redeclares takes
the base's place.
"""

from __future__ import annotations

from collections.abc import Mapping

from acp_codegen import ir


def flat_fields(struct: ir.Struct, by_name: Mapping[str, ir.Definition]) -> tuple[ir.Field, ...]:
    """`struct`'s fields with its bases' first; `by_name`: the edition's definitions by name."""
    merged: dict[str, ir.Field] = {}
    for base in struct.bases:
        parent = by_name[base]
        if isinstance(parent, ir.Struct):
            merged.update((f.wire_name, f) for f in flat_fields(parent, by_name))
    merged.update((f.wire_name, f) for f in struct.fields)
    return tuple(merged.values())
