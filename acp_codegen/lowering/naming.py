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
from types import MappingProxyType

from acp_codegen.words import pascal

OVERRIDES: Mapping[tuple[str, str], str] = MappingProxyType(
    {
        # (parent definition, tag, title or property) → name. None is needed for any published
        # schema today; add one only where a rule's name reads badly, and say why.
    }
)


Overrides = Mapping[tuple[str, str], str]


def variant_name(parent: str, tag: str, taken: frozenset[str], overrides: Overrides) -> str:
    """A tagged variant's name: parent + tag, or tag + parent when that is a `$defs` name."""
    override = overrides.get((parent, tag))
    if override is not None:
        return override
    name = parent + pascal(tag)
    return pascal(tag) + parent if name in taken else name


def catch_all_name(union: str, taken: frozenset[str]) -> str:
    """`Unknown` + the union; `<union>Other` when that is a `$defs` name (the unstable v1
    `StateUpdate` has a variant `UnknownStateUpdate`)."""
    name = "Unknown" + union
    return union + "Other" if name in taken else name


def branch_name(parent: str, label: str, overrides: Overrides) -> str:
    """An untagged branch, or one level of a distributed branch: parent + title (or key)."""
    return overrides.get((parent, label)) or parent + pascal(label)


def member_name(parent: str, prop: str, overrides: Overrides) -> str:
    """An inline object or union held by property `prop` of `parent`."""
    return overrides.get((parent, prop)) or parent + pascal(prop)
