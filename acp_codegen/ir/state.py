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
    fallback: str | None = None
    """What keys the target when the message lacks the `id` path: `turn`, the session's current
    prompt turn (v1's chunks may carry no `messageId`). Never from a schema: the rule table's."""

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
    rule: str | None = None
    """None: the schema's own `x-state`. Otherwise the name of the rule-table entry it comes
    from (`StateRule`, for a schema without annotations: v1); `at.pointer` is then the branch
    the entry applies to."""


@dataclass(frozen=True, slots=True)
class StateRule:
    """An `x-state` annotation the schema does not carry, as a behaviour rule's value
    (`acp_codegen.lowering.state_rules`): what one variant of `definition` does to client-held
    state. Applied only where the schema has the variant and the fields it names, and where the
    schema does not annotate the variant (or the definition) itself."""

    definition: str
    variant: str | None
    """The union branch's tag; None: the definition itself (a method's params)."""
    effects: tuple[StateEffect, ...]
    spec: str
    """Why: the schema's or the spec's words the entry rests on."""


@dataclass(frozen=True, slots=True)
class ScopeAnnotation:
    at: Annotated
    keys: tuple[tuple[str, tuple[str, ...]], ...]
    """(scope, the dotted paths that may hold its key), in the schema's order; empty: the
    message is scoped by nothing (connection-wide)."""
