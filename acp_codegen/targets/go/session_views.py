"""The client's session views of an edition whose prompt is answered at insertion (ACP v2): which
role receives the state notification (its handler feeds the views with `acp.Observe`) and the
types `acp.SessionView[Update, Block]` is made with (its peer's `Session(id)` makes one), each
found in the edition's definitions from the lifecycle's data, never by an edition's name.
"""

from __future__ import annotations

from dataclasses import dataclass

from acp_codegen import ir
from acp_codegen.ir.behaviour import PromptAnswer
from acp_codegen.problems import GenerationError
from acp_codegen.targets.go.tables import RoleView


@dataclass(frozen=True, slots=True)
class SessionViews:
    """Schema names (the templates spell them in Go with `view.go` and `ref_decoder`)."""

    role: str
    """The role whose handler receives `notification` (the client)."""
    notification: str
    """The state notification's method (`session/update`)."""
    update: str
    """The union of a session's updates (`SessionUpdate`)."""
    block: str
    """A prompt's content block (`ContentBlock`)."""
    prompt_result: str
    """The prompt's answer (`PromptResponse`), decoded for its schema checks."""
    session_id: str
    """The type of the prompt's `sessionId` (`SessionId`)."""


def session_views(edition: ir.Edition, roles: list[RoleView]) -> SessionViews | None:
    """The session views of `edition`, or None where the prompt is not answered at insertion or
    no role receives its state updates."""
    life = edition.behaviour.lifecycle
    if life is None or life.answer is not PromptAnswer.INSERTION or life.states is None:
        return None
    states = life.states
    receiver = next(
        (r for r in roles if any(m.name == states.notification for m in r.role.notifications)),
        None,
    )
    prompt = next(
        (m for m in edition.methods if m.name == life.prompt and m.kind is ir.MethodKind.REQUEST),
        None,
    )
    if receiver is None or prompt is None or prompt.result is None:
        return None
    by_name = {d.name: d for d in edition.definitions}
    update = next(
        (
            d
            for d in edition.definitions
            if isinstance(d, ir.TaggedUnion)
            and d.tag == states.update_tag
            and any(v.tag == states.update_value for v in d.variants)
        ),
        None,
    )
    if update is None:
        raise GenerationError(
            f"{edition.source}: no union tagged {states.update_tag!r} with a"
            f" {states.update_value!r} variant for the session views"
        )
    for r in roles:
        if r.role.name == receiver.role.peer and "Session" in {
            m.name for m in (*r.requests, *r.notifications)
        }:
            raise GenerationError(
                f"{edition.source}: the {r.role.name} peer's method Session would be both a"
                " request and the session view"
            )
    params = by_name.get(prompt.params or "")
    fields = params.fields if isinstance(params, ir.Struct) else ()
    block = next(
        (
            f.type.items.name
            for f in fields
            if isinstance(f.type, ir.Array) and isinstance(f.type.items, ir.Ref)
        ),
        None,
    )
    session = next(
        (f.type.name for f in fields if f.wire_name == "sessionId" and isinstance(f.type, ir.Ref)),
        None,
    )
    if block is None or session is None:
        raise GenerationError(
            f"{edition.source}: {prompt.params} has no sessionId and array of content blocks"
            " for the session views"
        )
    return SessionViews(
        receiver.role.name, states.notification, update.name, block, prompt.result, session
    )
