"""The v2 prompt lifecycle's conformance data (layer: generator, Python target): the wire names
of an edition's lifecycle answered at insertion (`Edition.behaviour.lifecycle`), and the schema
sentences its cases rest on, each with the level its words carry.

Each case of the suite's lifecycle family names a key of `SAID`; the text is read from the IR
where the schema says it (the sentences of a definition's description holding the fragment, a
field's or a variant's description), never written here: the fragments only find it. A fragment
the schema no longer says leaves its case on the lifecycle rule's own text, marked for review
(as the behaviour rules' quotes are).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from acp_codegen import ir
from acp_codegen.ir.behaviour import PromptAnswer, PromptLifecycle, StateUpdates
from acp_codegen.targets.python.conformance_schema import (
    QuoteView,
    definition_quote,
    field_quote,
    find_method,
    level,
    sentences_saying,
    variant_quote,
)


@dataclass(frozen=True, slots=True)
class SaidView:
    """A case's schema text and the level its words carry."""

    key: str
    level: str
    quote: QuoteView


@dataclass(frozen=True, slots=True)
class LifecycleView:
    close: str | None
    message_id: str
    states: StateUpdates
    said: tuple[SaidView, ...]
    retry_key: str | None


Finder = Callable[[ir.Edition, PromptLifecycle], QuoteView | None]


def _field(edition: ir.Edition, lifecycle: PromptLifecycle) -> QuoteView | None:
    """The prompt result's message id field ("Agents MUST echo the message")."""
    prompt = find_method(edition, lifecycle.prompt, ir.MethodKind.REQUEST)
    if prompt is None or prompt.result is None or lifecycle.message_id is None:
        return None
    return field_quote(edition, prompt.result, (lifecycle.message_id,))


def _retry(fragment: str) -> Finder:
    """The sentences of the prompt request's retry key field that say `fragment`."""

    def find(edition: ir.Edition, lifecycle: PromptLifecycle) -> QuoteView | None:
        prompt = find_method(edition, lifecycle.prompt, ir.MethodKind.REQUEST)
        if prompt is None or prompt.params is None or lifecycle.retry_key is None:
            return None
        described = field_quote(edition, prompt.params, (lifecycle.retry_key,))
        said = None if described is None else sentences_saying(described.text, fragment)
        return None if described is None or said is None else QuoteView(said, described.pointer)

    return find


def _sentence(definition: str, fragment: str) -> Finder:
    return lambda edition, _: definition_quote(edition, definition, fragment)


def _cancelled(edition: ir.Edition, lifecycle: PromptLifecycle) -> QuoteView | None:
    """The idle update's `cancelled` stop reason ("Agents MUST report this stop reason")."""
    return variant_quote(edition, "IdleStateUpdate", lifecycle.cancelled)


def _cancel_outcome(edition: ir.Edition, lifecycle: PromptLifecycle) -> QuoteView | None:
    """The rule that a permission request the agent cancels is answered `cancelled`."""
    asks = lifecycle.states.user_action if lifecycle.states is not None else ()
    outcome = next((o for o in edition.behaviour.cancel_outcomes if o.method in asks), None)
    record = next((r for r in edition.behaviour.rules if outcome and r.spec == outcome.spec), None)
    quote = record.quotes[0] if record is not None and record.quotes else None
    if quote is None or quote.pointer is None:
        return None
    return QuoteView(quote.text, "#" + quote.pointer.removeprefix("#"))


SAID: tuple[tuple[str, Finder], ...] = (
    ("insertion", _field),
    ("states", _sentence("StateUpdate", "MUST report `running` when foreground work starts")),
    ("stop_reason", _sentence("StateUpdate", "SHOULD include a stop reason on that idle update")),
    (
        "requires_action",
        _sentence("StateUpdate", "SHOULD report `requires_action` when the foreground workflow"),
    ),
    ("resumes", _sentence("StateUpdate", "MUST report `running` when progress resumes")),
    ("cancelled", _cancelled),
    ("cancel_outcome", _cancel_outcome),
    (
        "close_order",
        _sentence("CloseSessionRequest", "MUST send the final updates for that work and the idle"),
    ),
    (
        "close_after",
        _sentence("CloseSessionRequest", "After the close response, the Agent sends no"),
    ),
    (
        "close_prompts",
        _sentence(
            "CloseSessionRequest",
            "MUST answer that request with `-32800` (Request cancelled). If the message has "
            "already been inserted, the Agent MUST respond successfully",
        ),
    ),
    ("retry", _retry("MUST support the key. A retry of a recorded insertion returns the original")),
    ("retry_range", _retry("Agents MUST reject any other value with `-32602`")),
)
"""Each lifecycle case's text: where the schema says it."""


def lifecycle_view(edition: ir.Edition) -> LifecycleView | None:
    """The lifecycle answered at insertion of `edition` (None: its prompt is answered at
    completion, or it has none)."""
    lifecycle = edition.behaviour.lifecycle
    if (
        lifecycle is None
        or lifecycle.answer is not PromptAnswer.INSERTION
        or lifecycle.states is None
        or lifecycle.message_id is None
    ):
        return None
    said = []
    for key, finder in SAID:
        quote = finder(edition, lifecycle) or QuoteView(lifecycle.spec, None)
        said.append(SaidView(key, level(quote.text), quote))
    return LifecycleView(
        lifecycle.close, lifecycle.message_id, lifecycle.states, tuple(said), lifecycle.retry_key
    )
