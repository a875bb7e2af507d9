"""Prompt content blocks (layer: case family): the baseline `resource_link` block is accepted in
a prompt by every agent, and each kind the agent advertises in its prompt capabilities (image,
audio, embedded context) is accepted too; a kind not advertised makes its case a skip.

Accepted means answered as the edition answers a prompt: v1 with a stop reason at the end of
the turn, v2 with the inserted message's id.
"""

from __future__ import annotations

from typing import Any

from .behaviour import accepted, open_session, prompt_answer, prompt_capability, said
from .cases import Case, Check, Context, Outcome, failed, passed, skipped
from .data import EditionData
from .levels import level_of

BASELINE = (
    "PromptRequest/properties/prompt",
    "As a baseline, the Agent MUST support `text` and `resource_link` content blocks, while "
    "other variants are optionally enabled via `PromptCapabilities`.",
)
PIXEL = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9"
    "awAAAABJRU5ErkJggg=="
)
"""A PNG of one pixel."""
SILENCE = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA="
"""An empty WAV file."""
TURN_WAIT = 10.0
"""Seconds a v1 turn may take to answer (the answer ends the turn)."""


def blocks(edition: EditionData) -> dict[str, dict[str, Any]]:
    """One block of each kind the suite sends (the baseline `resource_link`, then the kinds a
    capability enables), by capability name."""
    link = {"type": "resource_link", "name": "notes.txt", "uri": "file:///tmp/notes.txt"}
    resource = {"uri": "file:///tmp/notes.txt", "mimeType": "text/plain", "text": "a note"}
    return {
        "resource_link": link,
        "image": {"type": "image", "mimeType": "image/png", "data": PIXEL},
        "audio": {"type": "audio", "mimeType": "audio/wav", "data": SILENCE},
        "embeddedContext": {"type": "resource", "resource": resource},
    }


def cases(edition: EditionData) -> list[Case]:
    if edition.prompt is None:
        return []
    baseline = said(edition, *BASELINE)
    found = [
        Case(
            "content.resource_link_accepted",
            "a prompt with a resource_link block is accepted (baseline, advertised or not)",
            level_of(baseline.text),
            baseline,
            _accepts("resource_link", None),
            budget=TURN_WAIT,
        )
    ]
    for name, kind in (("image", "image"), ("audio", "audio"), ("embeddedContext", "resource")):
        quote = said(edition, f"PromptCapabilities/properties/{name}", _capability_text(name))
        found.append(
            Case(
                f"content.{kind}_accepted",
                f"advertised by the prompt capability {name}, a prompt with {kind} content is "
                "accepted (informative: the capability's text has no MUST or SHOULD)",
                level_of(quote.text),
                quote,
                _accepts(name, name),
                budget=TURN_WAIT,
            )
        )
    return found


def _capability_text(name: str) -> str:
    if name == "embeddedContext":
        return "Agent supports embedded context in `session/prompt` requests."
    return f"Agent supports `{name}` content blocks."


def _accepts(block: str, capability: str | None) -> Check:
    async def check(ctx: Context) -> Outcome:
        result, created = await open_session(ctx)
        if capability is not None and not prompt_capability(ctx.edition, result, capability):
            return skipped(f"the agent does not advertise the prompt capability {capability}")
        text = {"type": "text", "text": "what is in the attached block?"}
        sent = [text, blocks(ctx.edition)[block]]
        answer = await prompt_answer(ctx, created["sessionId"], sent, wait=TURN_WAIT)
        why = accepted(ctx, answer)
        if why is not None:
            return failed(f"the prompt with a {sent[1]['type']} block was {why}")
        return passed()

    return check
