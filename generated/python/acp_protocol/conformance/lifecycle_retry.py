# Copied by acp-codegen from templates/python/conformance/lifecycle_retry.py. Do not edit here:
# edit the source, then run `make generate`.

"""The v2 lifecycle's prompt retry cases (layer: case family, listed by `lifecycle`): a prompt
sent again with the key of a recorded insertion is answered with that insertion's message id and
inserts nothing; a key out of the schema's range is invalid params.

The key's field comes from the edition's lifecycle (`retry_key`); where the edition has none, or
the agent does not advertise the capability that promises its prompt, the cases skip.
"""

from __future__ import annotations

from .cases import Check, Context, Outcome, Skip, describe, error_code, failed, passed
from .lifecycle_watch import SHORT_PROMPT, Session, lifecycle_of
from .steps import advertises, initialize, new_session

INVALID_PARAMS = -32602
AFTER_RETRY = 0.5
"""Seconds after a retry's answer in which no other insertion may be echoed."""
OUT_OF_RANGE = ("", "k" * 256)
"""Keys the schema rejects ("an opaque, case-sensitive string of 1 to 255 characters")."""


async def _keyed_session(ctx: Context) -> tuple[Session, str]:
    """A session of an agent that must honour the retry key: the session and the key's field."""
    prompt, lifecycle = lifecycle_of(ctx)
    if lifecycle.retry_key is None:
        raise Skip("the edition's prompt has no retry key")
    result = await initialize(ctx)
    promising = [c for c in ctx.edition.capabilities if prompt.method in c.requires]
    if promising and not any(advertises(result, c.path, c.value) for c in promising):
        where = " or ".join(".".join(c.path) for c in promising)
        raise Skip(f"the agent does not advertise {where}: the key is not required of it")
    return Session(ctx, prompt, lifecycle, await new_session(ctx)), lifecycle.retry_key


async def _retry_answers_original(ctx: Context) -> Outcome:
    session, key_field = await _keyed_session(ctx)
    key = f"conformance-{ctx.next_id()}"
    start = session.mark
    original = await session.inserted(session.send_prompt(SHORT_PROMPT, {key_field: key}))
    await session.wait(session.is_echo(original), f"user_message update {original!r}", start)
    retried_at = session.mark
    again = await session.inserted(session.send_prompt(SHORT_PROMPT, {key_field: key}))
    if again != original:
        return failed(f"the retry was answered messageId {again!r}, not {original!r}")
    await ctx.peer.quiet(AFTER_RETRY)
    echoes = [
        f
        for f in ctx.peer.received[retried_at:]
        if (session.update_of(f) or {}).get(session.lifecycle.update_tag)
        == session.lifecycle.user_message
    ]
    if echoes:
        return failed(f"the retry inserted another message ({len(echoes)} user_message update)")
    return passed(f"the retry was answered messageId {original!r}, nothing inserted")


async def _out_of_range_invalid(ctx: Context) -> Outcome:
    session, key_field = await _keyed_session(ctx)
    for key in OUT_OF_RANGE:
        answer = await session.answer(session.send_prompt(SHORT_PROMPT, {key_field: key}))
        if error_code(answer) != INVALID_PARAMS:
            shown = f"{len(key)} characters" if key else "empty"
            return failed(f"a key of {shown} was answered {describe(answer)}, not -32602")
    return passed("an empty key and one of 256 characters were each answered -32602")


TABLE: list[tuple[str, str, str, Check, float]] = [
    (
        "retry",
        "lifecycle.retry_answers_the_original_message_id",
        "a prompt sent again with the key of a recorded insertion is answered with its "
        "messageId, and inserts nothing",
        _retry_answers_original,
        AFTER_RETRY,
    ),
    (
        "retry_range",
        "lifecycle.retry_key_out_of_range_is_invalid_params",
        "a prompt whose key is empty or longer than 255 characters is answered -32602",
        _out_of_range_invalid,
        0.0,
    ),
]
"""(key of the rule quoted, id, title, check, budget), as `lifecycle.cases` lists them."""
