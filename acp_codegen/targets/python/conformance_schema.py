"""Schema text for the conformance data (layer: generator, Python target): quotes read from the
IR (a field's description, a sentence of a definition's or a variant's description) with the JSON
pointer that says them, and the level their words carry.

Shared by `conformance` (the edition's data) and `conformance_lifecycle` (the v2 lifecycle's).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from acp_codegen import ir


@dataclass(frozen=True, slots=True)
class QuoteView:
    """Schema text and the JSON pointer of the description that says it (None: not found)."""

    text: str
    pointer: str | None


_MUST = re.compile(r"\b(?:MUST|REQUIRED|SHALL)\b")
_SHOULD = re.compile(r"\b(?:SHOULD|RECOMMENDED)\b")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def level(*texts: str) -> str:
    """MUST when the text says MUST (MUST NOT, REQUIRED, SHALL), else SHOULD when it says SHOULD
    (SHOULD NOT, RECOMMENDED), else informative (the schema's own capitals, as RFC 2119 writes
    them; the conformance package's `levels.level_of` is the same rule)."""
    joined = " ".join(texts).replace("*", "")
    if _MUST.search(joined):
        return "MUST"
    if _SHOULD.search(joined):
        return "SHOULD"
    return "informative"


def flat(text: str) -> str:
    """A description on one line (its line breaks and runs of blanks as single spaces)."""
    return " ".join(text.split())


def sentences_saying(doc: str, fragment: str) -> str | None:
    """The whole sentences of `doc` that `fragment` lies in (compared without case and with
    blanks folded), or None when `doc` does not say it."""
    text = flat(doc)
    at = text.lower().find(flat(fragment).lower())
    if at < 0:
        return None
    starts = [0] + [m.end() for m in _SENTENCE_END.finditer(text)]
    first = max(s for s in starts if s <= at)
    after = [s for s in starts if s >= at + len(flat(fragment))]
    end = after[0] if after else len(text)
    return text[first:end].strip()


def field_quote(edition: ir.Edition, struct: str, path: tuple[str, ...]) -> QuoteView | None:
    """The description of the field at `path` (wire keys from `struct` down, through refs)."""
    current: str | None = struct
    field = None
    for key in path:
        if current is None:
            return None
        field = find_field(edition, current, key)
        if field is None:
            return None
        current = ref_name(field.type)
    if field is None or not field.doc:
        return None
    return QuoteView(flat(field.doc), hash_pointer(field.pointer))


def definition_quote(edition: ir.Edition, name: str, fragment: str) -> QuoteView | None:
    """The sentences of definition `name`'s description that say `fragment`."""
    definition = find_definition(edition, name)
    doc = getattr(definition, "doc", "") if definition is not None else ""
    said = sentences_saying(doc or "", fragment)
    if definition is None or said is None:
        return None
    return QuoteView(said, hash_pointer(definition.pointer))


def variant_quote(edition: ir.Edition, name: str, tag: str) -> QuoteView | None:
    """The description of the variant `tag` of the tagged union `name` (its `anyOf` member)."""
    definition = find_definition(edition, name)
    if not isinstance(definition, ir.TaggedUnion):
        return None
    for index, variant in enumerate(definition.variants):
        if variant.tag == tag and variant.doc:
            pointer = hash_pointer(definition.pointer)
            return QuoteView(flat(variant.doc), f"{pointer}/anyOf/{index}")
    return None


def find_field(edition: ir.Edition, name: str, wire_name: str) -> ir.Field | None:
    definition = find_definition(edition, name)
    return edition.field_of(definition, wire_name) if isinstance(definition, ir.Struct) else None


def ref_name(expression: ir.TypeExpr) -> str | None:
    if isinstance(expression, ir.Nullable):
        return ref_name(expression.inner)
    if isinstance(expression, ir.Ref):
        return expression.name
    if isinstance(expression, ir.UnionOf):
        names = [n for n in (ref_name(o) for o in expression.options) if n is not None]
        return names[0] if len(names) == 1 else None
    return None


def find_definition(edition: ir.Edition, name: str) -> ir.Definition | None:
    try:
        definition = edition.definition(name)
    except KeyError:
        return None
    if isinstance(definition, ir.Alias):
        target = ref_name(definition.target)
        return find_definition(edition, target) if target else definition
    return definition


def find_method(edition: ir.Edition, name: str, kind: ir.MethodKind) -> ir.Method | None:
    return next((m for m in edition.methods if m.name == name and m.kind is kind), None)


def definition_pointer(edition: ir.Edition, name: str) -> str | None:
    definition = find_definition(edition, name)
    return hash_pointer(definition.pointer) if definition is not None else None


def hash_pointer(pointer: str | None) -> str | None:
    """A pointer as a URI fragment (`#/$defs/…`)."""
    if pointer is None or pointer.startswith("#"):
        return pointer
    return "#" + pointer
