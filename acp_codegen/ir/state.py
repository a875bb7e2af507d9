"""The IR's client-held state annotations: the schema's own `x-state` and `x-scope` extensions.

From schema crate 1.20 the v2 types say, as data, how a message changes the state a client keeps
(`x-state`) and which keys scope it (`x-scope`). Each annotation becomes one typed node with its
JSON pointer; the client-state reducers of every target are rendered from these nodes.

- `x-state`: `{"session": [{"action": "upsert", "target": "toolCall", "id": "toolCallId"}]}`:
  per state scope (`session`, `agent`), the effects in order: an `action` (`upsert`, `append`,
  `replace`, `remove`) on a `target` (`toolCall`, `plan`, …), found by an `id` path of the
  message, optionally on one `field` of it, with the message's `value` path. `{}` says "no effect".
- `x-scope`: `{"session": ["sessionId"], "toolCall": ["subject.toolCall.toolCallId"]}`: per
  scope, the dotted paths of the message that may hold its key (the first present wins).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class StateAction(StrEnum):
    """What an effect does to its target."""

    UPSERT = "upsert"
    """Create the target (by `id`), or update the fields the message gives."""
    APPEND = "append"
    """Append the message's `value` to the target's `field` (a chunk)."""
    REPLACE = "replace"
    """Replace the target (or its `field`) with the message's `value` (the message itself when
    none is named)."""
    REMOVE = "remove"
    """Remove the target named by `id`."""


@dataclass(frozen=True, slots=True)
class StateEffect:
    """One effect of an `x-state` annotation, as the schema gives it."""

    scope: str
    """The state it changes: `session` (per session) or `agent` (per connection)."""
    action: str
    """A `StateAction` value; a value this generator does not know is kept as written."""
    target: str
    id: str | None = None
    """The dotted path of the message holding the target's id (`plan.planId`)."""
    field: str | None = None
    """The target's field the effect applies to (`content`, `output.data`), dotted."""
    value: str | None = None
    """The dotted path of the message holding the value (`content`, `subject.toolCall`)."""

    @property
    def known(self) -> bool:
        return self.action in {a.value for a in StateAction}


@dataclass(frozen=True, slots=True)
class Annotated:
    """Where an annotation sits: on a `$defs` definition, or on one variant of a union
    definition (the branch whose tag is `variant`)."""

    definition: str
    variant: str | None
    pointer: str
    """The JSON pointer of the annotation itself (`/$defs/SessionUpdate/anyOf/3/x-state`)."""


@dataclass(frozen=True, slots=True)
class StateAnnotation:
    at: Annotated
    effects: tuple[StateEffect, ...]
    """In the schema's order; empty: the message changes no client-held state."""


@dataclass(frozen=True, slots=True)
class ScopeAnnotation:
    at: Annotated
    keys: tuple[tuple[str, tuple[str, ...]], ...]
    """(scope, the dotted paths that may hold its key), in the schema's order; empty: the
    message is scoped by nothing (connection-wide)."""
