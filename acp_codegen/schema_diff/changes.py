"""The changes between two editions of a protocol, computed on the typed IR.

Each `Change` says whom it breaks, per role, by one rule: a change breaks the side that *sends* a
message when old senders no longer produce valid messages (a new required field, a removed value
or variant, a field no longer nullable), and the side that *receives* it when old receivers may
now get what they do not expect (a field now optional or nullable or gone, a new value in a closed
enumeration, a new variant of a union with no declared catch-all). A changed type breaks both;
a removed method breaks its callers; a method that changes side or kind breaks both.
"""

from __future__ import annotations

from dataclasses import dataclass

from acp_codegen import ir
from acp_codegen.schema_diff.usage import ROLES, directions, handlers, other


@dataclass(frozen=True, slots=True)
class Change:
    kind: str
    subject: str
    detail: str
    breaks: frozenset[str]
    """The roles (`agent`, `client`) whose implementers this change breaks."""

    @property
    def breaking(self) -> bool:
        return bool(self.breaks)


SENDER, RECEIVER, BOTH = "sender", "receiver", "both"


def compare(old: ir.Edition, new: ir.Edition) -> tuple[Change, ...]:
    """Every change from `old` to `new`, methods first, then types by name."""
    changes = _method_changes(old, new)
    usage = {**directions(old)}
    for name, found in directions(new).items():
        usage[name] = usage.get(name, set()) | found
    old_defs = {d.name: d for d in old.definitions}
    new_defs = {d.name: d for d in new.definitions}
    for name in sorted(old_defs.keys() | new_defs.keys()):
        before, after = old_defs.get(name), new_defs.get(name)
        flows = usage.get(name, set())
        if before is None:
            changes.append(Change("type-added", name, _kind(after), frozenset()))
        elif after is None:
            changes.append(Change("type-removed", name, _kind(before), _who(flows, BOTH)))
        elif type(before) is not type(after):
            detail = f"{_kind(before)} → {_kind(after)}"
            changes.append(Change("type-changed", name, detail, _who(flows, BOTH)))
        else:
            changes += _definition_changes(before, after, flows)
    return tuple(changes)


def _who(flows: set[tuple[str, str]], party: str) -> frozenset[str]:
    roles: set[str] = set()
    for sender, receiver in flows:
        if party in (SENDER, BOTH):
            roles.add(sender)
        if party in (RECEIVER, BOTH):
            roles.add(receiver)
    return frozenset(roles)


def _kind(definition: ir.Definition | None) -> str:
    names = {
        ir.Struct: "struct",
        ir.Enumeration: "enumeration",
        ir.TaggedUnion: "tagged union",
        ir.Alias: "alias",
    }
    return names[type(definition)] if definition is not None else ""


def _method_changes(old: ir.Edition, new: ir.Edition) -> list[Change]:
    changes: list[Change] = []
    old_by_name = {m.key: m for m in old.methods}
    new_by_name = {m.key: m for m in new.methods}
    names_old = {m.name: m for m in old.methods}
    names_new = {m.name: m for m in new.methods}
    for key in sorted(old_by_name.keys() | new_by_name.keys()):
        before, after = old_by_name.get(key), new_by_name.get(key)
        name, kind = key
        if after is None and before is not None:
            moved = names_new.get(name)
            if moved is not None and moved.kind is not kind:
                detail = f"{kind.value} → {moved.kind.value}"
                changes.append(Change("method-kind-changed", name, detail, frozenset(ROLES)))
            else:
                callers = frozenset(other(h) for h in handlers(before.side))
                changes.append(Change("method-removed", name, f"{kind.value}", callers))
        elif before is None and after is not None:
            if names_old.get(name) is None or names_old[name].kind is kind:
                detail = f"{kind.value} handled by {after.side.value}"
                changes.append(Change("method-added", name, detail, frozenset()))
        elif before is not None and after is not None:
            if before.side is not after.side:
                detail = f"handled by {before.side.value} → {after.side.value}"
                changes.append(Change("method-side-changed", name, detail, frozenset(ROLES)))
            for part, was, now in (
                ("params", before.params, after.params),
                ("result", before.result, after.result),
            ):
                if was != now:
                    detail = f"{part} type {was} → {now}"
                    changes.append(Change("method-type-changed", name, detail, frozenset(ROLES)))
    return changes


def _definition_changes(
    before: ir.Definition,
    after: ir.Definition,
    flows: set[tuple[str, str]],
) -> list[Change]:
    if isinstance(before, ir.Struct) and isinstance(after, ir.Struct):
        changes = _field_changes(before.name, _own(before), _own(after), flows)
        if before.bases != after.bases:
            detail = f"composed of {list(before.bases)} → {list(after.bases)}"
            changes.append(Change("type-changed", before.name, detail, _who(flows, BOTH)))
        return changes
    if isinstance(before, ir.Enumeration) and isinstance(after, ir.Enumeration):
        return _enum_changes(before, after, flows)
    if isinstance(before, ir.TaggedUnion) and isinstance(after, ir.TaggedUnion):
        return _union_changes(before, after, flows)
    if (
        isinstance(before, ir.Alias)
        and isinstance(after, ir.Alias)
        and _shape(before.target) != _shape(after.target)
    ):
        detail = f"{_spell(before.target)} → {_spell(after.target)}"
        return [Change("type-changed", before.name, detail, _who(flows, BOTH))]
    return []


def _own(struct: ir.Struct) -> dict[str, ir.Field]:
    """A struct's own fields by wire name (a base's change is reported once, on the base)."""
    return {f.wire_name: f for f in struct.fields}


def _field_changes(
    owner: str,
    before: dict[str, ir.Field],
    after: dict[str, ir.Field],
    flows: set[tuple[str, str]],
) -> list[Change]:
    changes: list[Change] = []
    for wire in sorted(before.keys() | after.keys()):
        was, now = before.get(wire), after.get(wire)
        subject = f"{owner}.{wire}"
        if was is None and now is not None:
            party = SENDER if now.required else None
            detail = "required" if now.required else "optional"
            breaks = _who(flows, party) if party else frozenset()
            changes.append(Change("field-added", subject, detail, breaks))
        elif now is None and was is not None:
            changes.append(Change("field-removed", subject, "", _who(flows, RECEIVER)))
        elif was is not None and now is not None:
            if was.required != now.required:
                detail = "optional → required" if now.required else "required → optional"
                party = SENDER if now.required else RECEIVER
                changes.append(Change("field-requiredness", subject, detail, _who(flows, party)))
            if was.nullable != now.nullable:
                detail = "now nullable" if now.nullable else "no longer nullable"
                party = RECEIVER if now.nullable else SENDER
                changes.append(Change("field-nullability", subject, detail, _who(flows, party)))
            for rule, on in _policy_changes(was.policy, now.policy):
                detail = f"{rule} {'added' if on else 'removed'}"
                changes.append(Change("field-decoding", subject, detail, frozenset()))
            if _shape(_unwrap(was.type)) != _shape(_unwrap(now.type)):
                detail = f"{_spell(_unwrap(was.type))} → {_spell(_unwrap(now.type))}"
                changes.append(Change("field-type-changed", subject, detail, _who(flows, BOTH)))
    return changes


def _policy_changes(was: ir.FieldPolicy, now: ir.FieldPolicy) -> list[tuple[str, bool]]:
    """The lenient-decoding rules (`x-deserialize-*`) added (True) or removed (False). They make
    receivers accept more; senders are unaffected, so none of them breaks anyone."""
    rules = (
        ("default-on-error", was.default_on_error, now.default_on_error),
        ("skip-invalid-items", was.skip_invalid_items, now.skip_invalid_items),
        ("default-on-null", was.default_on_null, now.default_on_null),
    )
    return [(name, after) for name, before, after in rules if before != after]


def _enum_changes(
    before: ir.Enumeration, after: ir.Enumeration, flows: set[tuple[str, str]]
) -> list[Change]:
    changes = []
    old_values = [m.value for m in before.members]
    new_values = [m.value for m in after.members]
    for value in new_values:
        if value not in old_values:
            breaks = frozenset() if before.open else _who(flows, RECEIVER)
            changes.append(Change("enum-value-added", before.name, repr(value), breaks))
    for value in old_values:
        if value not in new_values:
            changes.append(
                Change("enum-value-removed", before.name, repr(value), _who(flows, SENDER))
            )
    if before.open != after.open:
        detail = "now open" if after.open else "now closed"
        party = RECEIVER if after.open else SENDER
        changes.append(Change("enum-openness", before.name, detail, _who(flows, party)))
    return changes


def _union_changes(
    before: ir.TaggedUnion, after: ir.TaggedUnion, flows: set[tuple[str, str]]
) -> list[Change]:
    changes = []
    if before.tag != after.tag:
        detail = f"tag {before.tag!r} → {after.tag!r}"
        return [Change("type-changed", before.name, detail, _who(flows, BOTH))]
    old_tags = {v.tag: v for v in before.variants}
    new_tags = {v.tag: v for v in after.variants}
    for tag in new_tags.keys() - old_tags.keys():
        breaks = frozenset() if before.catch_all_declared else _who(flows, RECEIVER)
        changes.append(Change("variant-added", before.name, repr(tag), breaks))
    for tag in old_tags.keys() - new_tags.keys():
        changes.append(Change("variant-removed", before.name, repr(tag), _who(flows, SENDER)))
    return sorted(changes, key=lambda c: (c.kind, c.detail))


def _unwrap(expr: ir.TypeExpr) -> ir.TypeExpr:
    return expr.inner if isinstance(expr, ir.Nullable) else expr


def _shape(expr: ir.TypeExpr) -> ir.TypeExpr:
    """A type expression without what does not change the wire type (constraints, formats)."""
    if isinstance(expr, ir.Primitive):
        return ir.Primitive(expr.kind)
    if isinstance(expr, ir.Array):
        return ir.Array(_shape(expr.items))
    if isinstance(expr, ir.Map):
        return ir.Map(_shape(expr.values))
    if isinstance(expr, ir.Nullable):
        return ir.Nullable(_shape(expr.inner))
    if isinstance(expr, ir.UnionOf):
        return ir.UnionOf(tuple(_shape(o) for o in expr.options))
    return expr


def _spell(expr: ir.TypeExpr) -> str:
    """A short, language-neutral spelling of a type expression for reports."""
    if isinstance(expr, ir.Primitive):
        return expr.kind.value
    if isinstance(expr, ir.Const):
        return repr(expr.value)
    if isinstance(expr, ir.InlineEnum):
        return " | ".join(repr(v) for v in expr.values)
    if isinstance(expr, ir.Array):
        return f"array of {_spell(expr.items)}"
    if isinstance(expr, ir.Map):
        return f"map of {_spell(expr.values)}"
    if isinstance(expr, ir.Ref):
        return expr.name
    if isinstance(expr, ir.Nullable):
        return f"{_spell(expr.inner)} | null"
    if isinstance(expr, ir.UnionOf):
        return " | ".join(_spell(o) for o in expr.options)
    return "null" if isinstance(expr, ir.NullType) else "any"
