"""An edition's behaviour (`ir.Behaviour`) as the TypeScript templates need it: the generated
`behaviour.ts` constants, the foreground work handler's name, and the types the lifecycle's
typed layer is written with, each found in the edition's definitions from the lifecycle's data.

The work handler of an INSERTION lifecycle is the prompt method's own handler (`session/prompt` →
`sessionPrompt`): as in the Python target, it is the foreground work and returns the stop reason;
the SDK answers the request.
"""

from __future__ import annotations

from dataclasses import dataclass

from acp_codegen import ir
from acp_codegen.ir.behaviour import Behaviour, PromptAnswer
from acp_codegen.problems import GenerationError


@dataclass(frozen=True, slots=True)
class LifecycleTypes:
    """The types of an INSERTION lifecycle's typed layer, by name in the edition's `types.ts`."""

    work_handler: str
    """The prompt method's handler (`sessionPrompt`), which is the foreground work."""
    update: str
    """The union of a session's updates (`SessionUpdate`)."""
    block: str
    """A prompt's content block (`ContentBlock`)."""
    prompt_params: str
    prompt_result: str
    stop_reasons: tuple[str, ...]
    """The idle state update's known stop reasons (the union is open: any string too)."""


@dataclass(frozen=True, slots=True)
class BehaviourView:
    behaviour: Behaviour
    lifecycle: LifecycleTypes | None
    """None unless the prompt is answered at insertion."""

    @property
    def meta_policy(self) -> str:
        """The `_meta` policy of `SessionInfoUpdate` (`merge` where no rule says otherwise)."""
        rule = self.behaviour.meta_rule("SessionInfoUpdate")
        return rule.policy.value if rule is not None else "merge"


def behaviour_view(
    edition: ir.Edition, handlers: dict[tuple[str, ir.MethodKind], str]
) -> BehaviourView:
    behaviour = edition.behaviour
    lifecycle = behaviour.lifecycle
    if (
        lifecycle is None
        or lifecycle.answer is not PromptAnswer.INSERTION
        or lifecycle.states is None
    ):
        return BehaviourView(behaviour, None)
    by_name = {d.name: d for d in edition.definitions}
    states = lifecycle.states
    work = handlers.get((lifecycle.prompt, ir.MethodKind.REQUEST))
    if work is None:
        raise GenerationError(f"{edition.source}: no `{lifecycle.prompt}` request to do the work")
    update = _union_with(by_name, states.update_tag, states.update_value)
    state = _variant_union(by_name, update, states.update_value)
    stop_reasons = _stop_reasons(edition, _variant(by_name, state, states.idle), states.stop_reason)
    if update is None or stop_reasons is None:
        raise GenerationError(
            f"{edition.source}: no `{states.update_value}` idle update to type the stop reasons"
        )
    prompt = next(
        m for m in edition.methods if m.name == lifecycle.prompt and m.kind is ir.MethodKind.REQUEST
    )
    block = _array_item(by_name, prompt.params)
    return BehaviourView(
        behaviour,
        LifecycleTypes(
            work,
            update.name,
            block,
            prompt.params,
            prompt.result or "",
            stop_reasons,
        ),
    )


def _union_with(by_name: dict[str, ir.Definition], tag: str, value: str) -> ir.TaggedUnion | None:
    """The union tagged `tag` with a variant `value` (the session update union)."""
    return next(
        (
            d
            for d in by_name.values()
            if isinstance(d, ir.TaggedUnion)
            and d.tag == tag
            and any(v.tag == value for v in d.variants)
        ),
        None,
    )


def _variant(
    by_name: dict[str, ir.Definition], union: ir.TaggedUnion | None, tag: str
) -> ir.Definition | None:
    """The definition of `union`'s variant `tag`."""
    variant = None if union is None else next((v for v in union.variants if v.tag == tag), None)
    return None if variant is None else by_name.get(variant.type.name)


def _variant_union(
    by_name: dict[str, ir.Definition], union: ir.TaggedUnion | None, tag: str
) -> ir.TaggedUnion | None:
    target = _variant(by_name, union, tag)
    return target if isinstance(target, ir.TaggedUnion) else None


def _stop_reasons(
    edition: ir.Edition, idle: ir.Definition | None, field: str
) -> tuple[str, ...] | None:
    """The idle update's known stop reasons: the tags of a union told apart by the stop reason
    (2.1 and later), or the members of the enumeration its stop reason field holds (before)."""
    if isinstance(idle, ir.TaggedUnion) and idle.tag == field:
        return tuple(v.tag for v in idle.variants)
    if isinstance(idle, ir.Struct):
        found = edition.field_of(idle, field)
        kind = None if found is None else found.type
        if isinstance(kind, ir.Nullable):
            kind = kind.inner
        name = kind.name if isinstance(kind, ir.Ref) else None
        enum = next((d for d in edition.definitions if d.name == name), None)
        if isinstance(enum, ir.Enumeration):
            return tuple(str(m.value) for m in enum.members)
    return None


def _array_item(by_name: dict[str, ir.Definition], params: str) -> str:
    """The item type of the prompt params' one array-of-definition field."""
    struct = by_name.get(params)
    if isinstance(struct, ir.Struct):
        for f in struct.fields:
            if isinstance(f.type, ir.Array) and isinstance(f.type.items, ir.Ref):
                return f.type.items.name
    raise GenerationError(f"{params} has no array of content blocks for the prompt")
