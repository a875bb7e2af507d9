"""Names for the definitions a schema does not name: by rule, from meaning, never by position.

A `$defs` entry keeps its own name. Everything else is named from its parent and what tells it
apart, so reordering a schema's branches renames nothing:
- a tagged union's variant: parent + tag (`ContentBlock` + `text` → `ContentBlockText`); when that
  is already a `$defs` name (the variant is that def plus its tag) the tag goes first
  (`AuthMethod` + `terminal` → `TerminalAuthMethod`, since `AuthMethodTerminal` exists);
- an untagged branch: parent + its `title`, else parent + the first `required` key no sibling
  requires;
- a branch distributed over an inner union: the parent's name + each level's part, outer first;
- a union's catch-all: `Unknown` + the union (`UnknownSessionUpdate`), or the union + `Other`
  when that is a `$defs` name;
- an inline object or union in a property: parent + property (`Plan` + `entries` → `PlanEntries`).

`OVERRIDES` replaces a rule's name where the rule reads badly; it is keyed by meaning (the parent
definition and the tag or title), never by JSON pointer or array index.
"""

from __future__ import annotations

from collections.abc import Mapping

from codegen.words import pascal

OVERRIDES: Mapping[tuple[str, str], str] = {
    # (parent definition, tag or title) → name. Empty rows would be dead weight: add one only when
    # a rule's name reads badly, and say why.
}


def overridden(parent: str, part: str) -> str | None:
    return OVERRIDES.get((parent, part))


def variant_name(parent: str, tag: str, taken: frozenset[str]) -> str:
    """A tagged variant's name: parent + tag, or tag + parent when that is a `$defs` name."""
    override = overridden(parent, tag)
    if override is not None:
        return override
    name = parent + pascal(tag)
    return pascal(tag) + parent if name in taken else name


def catch_all_name(union: str, taken: frozenset[str]) -> str:
    """`Unknown` + the union; `<union>Other` when that is a `$defs` name (the unstable v1
    `StateUpdate` has a variant `UnknownStateUpdate`)."""
    name = "Unknown" + union
    return union + "Other" if name in taken else name


def member_name(parent: str, prop: str) -> str:
    """An inline object or union held by property `prop` of `parent`."""
    return overridden(parent, prop) or parent + pascal(prop)
