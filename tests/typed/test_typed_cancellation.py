"""Cancellation in the generated typed layer (v1), on the wire: `session/cancel` and
`$/cancel_request` on a prompt, the cascade to its nested requests, a handler that catches its
cancellation, and a client's pending permission questions once it sent `session/cancel`."""

from __future__ import annotations

import asyncio

from acp_protocol.runtime import CancelSource
from acp_protocol.v1 import models
from acp_protocol.v1.agent import Agent, AgentContext
from acp_protocol.v1.client import Client, ClientContext

from tests.typed.serving import (
    PROMPT,
    SESSION,
    NestedReadAgent,
    serving_agent,
    serving_client,
    text_chunk,
)


async def test_session_cancel_answers_prompt_cancelled_after_cancelling_its_nested_request() -> (
    None
):
    """prompt-turn.mdx: the Agent "MUST respond to the original `session/prompt` request with the
    `cancelled` stop reason"; the nested request is cancelled first ("Propagate cancellation to
    any nested/child requests"), as in the spec's diagram."""
    agent = NestedReadAgent()
    async with serving_agent(agent) as peer:
        peer.request(1, "session/prompt", PROMPT)
        update, nested = await peer.receive_all(2)
        assert update["method"] == "session/update" and nested["method"] == "fs/read_text_file"
        peer.notify("session/cancel", {"sessionId": SESSION})
        cancel = await peer.receive()
        assert cancel == {
            "jsonrpc": "2.0",
            "method": "$/cancel_request",
            "params": {"requestId": nested["id"]},
        }
        peer.send({"jsonrpc": "2.0", "id": nested["id"], "error": {"code": -32800, "message": "x"}})
        answer = await peer.receive()
    assert answer == {"jsonrpc": "2.0", "id": 1, "result": {"stopReason": "cancelled"}}
    assert agent.contexts[0].cancel_source is CancelSource.SESSION


async def test_cancel_request_on_a_prompt_is_answered_request_cancelled() -> None:
    """`$/cancel_request` is the protocol-level cancel: -32800 with the request id, not a result."""
    async with serving_agent(NestedReadAgent()) as peer:
        peer.request("p", "session/prompt", PROMPT)
        _, nested = await peer.receive_all(2)
        peer.cancel("p")
        assert (await peer.receive())["params"] == {"requestId": nested["id"]}
        peer.send({"jsonrpc": "2.0", "id": nested["id"], "error": {"code": -32800, "message": "x"}})
        answer = await peer.receive()
    assert answer["error"] == {
        "code": -32800,
        "message": "Request cancelled",
        "data": {"requestId": "p"},
    }


async def test_session_cancel_for_another_session_leaves_the_prompt_running() -> None:
    async with serving_agent(NestedReadAgent()) as peer:
        peer.request(1, "session/prompt", PROMPT)
        _, nested = await peer.receive_all(2)
        peer.notify("session/cancel", {"sessionId": "another"})
        await peer.expect_silence()
        peer.send({"jsonrpc": "2.0", "id": nested["id"], "result": {"content": "x"}})
        assert (await peer.receive())["result"] == {"stopReason": "end_turn"}


async def test_prompt_handler_may_catch_the_cancellation_and_answer_itself() -> None:
    """Graceful: the handler sees `cancel_requested`, may stream a last update ("MAY send
    `session/update` ... before responding") and returns its own result."""

    class Graceful(Agent):
        async def session_prompt(
            self, params: models.PromptRequest, ctx: AgentContext
        ) -> models.PromptResponse:
            try:
                await asyncio.sleep(60)  # the model's work
            except asyncio.CancelledError:
                assert ctx.cancel_requested
                await ctx.client.session_update(text_chunk("partial"))
                return models.PromptResponse(stop_reason="cancelled", meta={"partial": True})
            raise AssertionError("not cancelled")

    async with serving_agent(Graceful()) as peer:
        peer.request(1, "session/prompt", PROMPT)
        await peer.expect_silence()
        peer.notify("session/cancel", {"sessionId": SESSION})
        update, answer = await peer.receive_all(2)
    assert update["params"]["update"]["content"]["text"] == "partial"
    assert answer["result"] == {"stopReason": "cancelled", "_meta": {"partial": True}}


async def test_sending_session_cancel_answers_pending_permission_requests_cancelled() -> None:
    """prompt-turn.mdx: the Client "MUST respond to all pending `session/request_permission`
    requests with the `cancelled` outcome" once it sent `session/cancel`."""
    asked = asyncio.Event()

    class Asking(Client):
        async def session_request_permission(
            self, params: models.RequestPermissionRequest, ctx: ClientContext
        ) -> models.RequestPermissionResponse:
            asked.set()
            await asyncio.Event().wait()  # the user never answers
            raise AssertionError("not reached")

    permission = {
        "sessionId": SESSION,
        "toolCall": {"toolCallId": "t-1"},
        "options": [{"optionId": "allow", "name": "Allow", "kind": "allow_once"}],
    }
    async with serving_client(Asking()) as (peer, connection):
        peer.request(9, "session/request_permission", permission)
        await asyncio.wait_for(asked.wait(), 2)
        await connection.agent.session_cancel(models.CancelNotification(session_id=SESSION))
        cancel, answer = await peer.receive_all(2)
    assert cancel["method"] == "session/cancel"
    assert answer == {"jsonrpc": "2.0", "id": 9, "result": {"outcome": {"outcome": "cancelled"}}}
