"""The v2 client's session view: a prompt → its message id, the session's updates in order, and
the idle update that ends the prompt's work, with its stop reason. Our v2 agent and our v2 client
over an in-memory pair; each test quotes the v2 schema description it checks."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from acp_protocol.runtime import memory_pair
from acp_protocol.v2 import builders, models
from acp_protocol.v2.agent import connect_agent
from acp_protocol.v2.client import Client, ClientConnection, ClientContext, connect_client

from tests.typed.test_v2_behaviour import SESSION, WordsAgent


class Listening(Client):
    """A client that also handles `session/update` itself: the view sees the same updates."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    async def session_update(
        self, params: models.UpdateSessionNotification, ctx: ClientContext
    ) -> None:
        self.seen.append(params.update.to_wire()["sessionUpdate"])


@asynccontextmanager
async def pair(
    client: Client | None = None, pause: float = 0.01
) -> AsyncIterator[ClientConnection]:
    ours, theirs = memory_pair()
    agent = connect_agent(WordsAgent(pause), theirs)
    async with agent, connect_client(client or Client(), ours) as connection:
        yield connection


def words(updates: list[Any]) -> list[str]:
    chunks = [u for u in updates if isinstance(u, models.SessionUpdateAgentMessageChunk)]
    return [c.content.text for c in chunks if isinstance(c.content, models.ContentBlockText)]


async def test_a_new_session_is_idle_until_a_state_update_reports_otherwise() -> None:
    """StateUpdate: "A new session defaults to idle until a state update reports otherwise.\" """
    async with pair() as connection:
        view = connection.session(SESSION)
        assert view.state == "idle"
        assert (await asyncio.wait_for(view.idle(), 1)).stop_reason is None


async def test_a_prompt_returns_its_message_id_and_idle_its_stop_reason() -> None:
    """PromptResponse: "Response acknowledging that a user prompt was inserted [...] Processing
    and completion are reported through `state_update` session updates.\" """
    async with pair() as connection:
        view = connection.session(SESSION)
        message_id = await view.prompt([builders.content_block.text("hello big world")])
        idle = await asyncio.wait_for(view.idle(message_id), 5)
    assert idle.stop_reason == "end_turn"
    echo = view.updates[0]
    assert isinstance(echo, models.SessionUpdateUserMessage)
    assert echo.message_id == message_id
    assert isinstance(view.updates[1], models.SessionUpdateStateUpdateRunning)
    assert words(view.updates) == ["hello", "big", "world"]
    assert isinstance(view.updates[-1], models.SessionUpdateStateUpdateIdleEndTurn)
    assert view.state == "idle" and view.stop_reason == "end_turn"


async def test_cancel_ends_the_work_with_the_idle_cancelled_update() -> None:
    """CancelSessionNotification: "cancel a session's foreground work"; StopReason `cancelled`:
    "Agents MUST report this stop reason on an idle `state_update` when cancellation ends active
    foreground work"."""
    async with pair(pause=0.05) as connection:
        view = connection.session(SESSION)
        message_id = await view.prompt([builders.content_block.text("one two three four five")])
        async for update in view.stream():
            if isinstance(update, models.SessionUpdateAgentMessageChunk):
                break
        await view.cancel()
        idle = await asyncio.wait_for(view.idle(message_id), 5)
    assert idle.stop_reason == "cancelled"
    assert len(words(view.updates)) < 5


async def test_idle_of_a_held_prompt_waits_for_its_own_work_not_the_one_ahead() -> None:
    """A prompt sent while work runs is inserted when the work ends: its idle is the first after
    its own `user_message` echo."""
    async with pair() as connection:
        view = connection.session(SESSION)
        first = await view.prompt([builders.content_block.text("a b c")])
        second = await view.prompt([builders.content_block.text("d e")])
        assert (await asyncio.wait_for(view.idle(second), 5)).stop_reason == "end_turn"
        assert (await asyncio.wait_for(view.idle(first), 5)).stop_reason == "end_turn"
    assert first != second
    assert words(view.updates) == ["a", "b", "c", "d", "e"]


async def test_the_clients_own_update_handler_sees_every_update_the_view_sees() -> None:
    client = Listening()
    async with pair(client) as connection:
        view = connection.session(SESSION)
        await view.idle(await view.prompt([builders.content_block.text("x y")]))
        await asyncio.sleep(0)
    assert client.seen == [u.to_wire()["sessionUpdate"] for u in view.updates]


async def test_a_message_echoed_as_a_user_message_chunk_is_inserted_too() -> None:
    """PromptResponse.messageId: "The corresponding user-message session update carries this same
    identifier". codex-acp 2.6.0 echoes the prompt as a `user_message_chunk` with the message id
    (its `x-state`: appended to that user message), not a `user_message`: the idle that follows
    still ends the prompt's work (before, `idle(message_id)` waited forever)."""
    from acp_protocol.runtime.session_view import SessionView
    from acp_protocol.v2.behaviour import LIFECYCLE

    assert LIFECYCLE is not None
    view: SessionView[Any, Any] = SessionView(SESSION, LIFECYCLE, sender=None)  # type: ignore[arg-type]
    chunk = {
        "sessionUpdate": "user_message_chunk",
        "messageId": "m1",
        "content": {"type": "text", "text": "hi"},
    }
    for wire in (
        {"sessionUpdate": "state_update", "state": "running"},
        chunk,
        {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"},
    ):
        view.receive(wire, wire)
    assert (await asyncio.wait_for(view.idle("m1"), 1)).stop_reason == "end_turn"
