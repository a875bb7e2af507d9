"""The generated typed layer (`acp_protocol.v1.agent`, `.client`, `.peers`) on the wire.

Each test serves a small subclass of a generated base class and talks to it as a raw JSON-RPC peer,
so what is asserted is exactly what another implementation would receive.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path
from typing import Any

import pytest
from acp_protocol.runtime import CancelSignal, InvalidResponse, memory_pair
from acp_protocol.v1 import methods, models
from acp_protocol.v1 import unstable as unstable_package
from acp_protocol.v1.agent import Agent, AgentContext, connect_agent
from acp_protocol.v1.client import Client, ClientContext, connect_client, spawn_agent
from acp_protocol.v1.unstable import agent as unstable_agent

from tests.runtime.support import FORKING_AGENT, eventually, running
from tests.typed.serving import (
    PROMPT,
    SESSION,
    serving_agent,
    serving_client,
    text_chunk,
)


async def test_method_the_agent_does_not_implement_answers_method_not_found() -> None:
    """ "A method the user did not implement answers -32601, never a silent success"."""
    async with serving_agent(Agent()) as peer:
        peer.request(1, "session/prompt", PROMPT)
        answer = await peer.receive()
    assert answer["error"]["code"] == -32601
    assert answer["error"]["data"] == {"method": "session/prompt"}


async def test_notification_the_agent_does_not_implement_is_ignored() -> None:
    """Unknown notifications SHOULD be ignored (ACP `extensibility.mdx`): no answer, and the
    connection keeps working."""
    async with serving_agent(Agent()) as peer:
        peer.notify("session/cancel", {"sessionId": SESSION})
        peer.notify("_vendor/ping", {})
        await peer.expect_silence()
        peer.request(2, "initialize", {"protocolVersion": 1})
        assert (await peer.receive())["error"]["code"] == -32601


async def test_every_method_of_the_table_is_routed_for_its_side() -> None:
    """Every `x-side: agent` request of the stable table reaches the agent's handler: with
    `params: null` each one fails params validation (-32602), none answers -32601."""

    class Everything(Agent):
        pass

    agent_requests = [m for m in methods.REQUESTS.values() if m.side == "agent"]
    assert len(agent_requests) >= 10
    for spec in agent_requests:

        async def handler(self: Any, params: Any, ctx: Any) -> Any:
            raise AssertionError("params validation must fail first")

        setattr(Everything, spec.handler_name, handler)
    async with serving_agent(Everything()) as peer:
        for number, spec in enumerate(agent_requests):
            peer.request(number, spec.name, None)
        answers = await peer.receive_all(len(agent_requests))
    assert {a["error"]["code"] for a in answers} == {-32602}


async def test_invalid_params_answer_invalid_params_with_the_validation_details() -> None:
    """Params are validated with the method's model: -32602 with pydantic's error list."""

    class Prompting(Agent):
        async def session_prompt(
            self, params: models.PromptRequest, ctx: AgentContext
        ) -> models.PromptResponse:
            raise AssertionError("not reached")

    async with serving_agent(Prompting()) as peer:
        peer.request(1, "session/prompt", {"sessionId": 7})
        answer = await peer.receive()
    assert answer["error"]["code"] == -32602
    locations = [error["loc"] for error in answer["error"]["data"]["errors"]]
    assert ["sessionId"] in locations and ["prompt"] in locations


async def test_meta_stays_in_params_meta_and_never_overwrites_a_field() -> None:
    """Params stay one model: `_meta.cwd` must not replace the real `cwd` (it does in the
    official Python SDK, which flattens `_meta` into keyword arguments)."""
    seen: list[models.NewSessionRequest] = []

    class Recording(Agent):
        async def session_new(
            self, params: models.NewSessionRequest, ctx: AgentContext
        ) -> models.NewSessionResponse:
            seen.append(params)
            return models.NewSessionResponse(session_id=SESSION)

    params = {"cwd": "/real", "mcpServers": [], "_meta": {"cwd": "/from-meta", "self": 1}}
    async with serving_agent(Recording()) as peer:
        peer.request(1, "session/new", params)
        answer = await peer.receive()
    assert answer["result"] == {"sessionId": SESSION}
    assert seen[0].cwd == "/real"
    assert seen[0].meta == {"cwd": "/from-meta", "self": 1}


async def test_extension_methods_go_to_the_extension_hooks() -> None:
    """`_`-prefixed methods reach `extension_request` / `extension_notification` by full name."""
    notes: list[tuple[str, Any]] = []

    class Extended(Agent):
        async def extension_request(self, method: str, params: Any, ctx: AgentContext) -> Any:
            return {"echo": method, "params": params}

        async def extension_notification(self, method: str, params: Any, ctx: AgentContext) -> None:
            notes.append((method, params))

    async with serving_agent(Extended()) as peer:
        peer.notify("_vendor/note", {"x": 1})
        peer.request(1, "_vendor/echo", {"y": 2})
        answer = await peer.receive()
        await eventually(lambda: notes)
    assert answer["result"] == {"echo": "_vendor/echo", "params": {"y": 2}}
    assert notes == [("_vendor/note", {"x": 1})]


async def test_extension_request_without_a_hook_answers_method_not_found() -> None:
    async with serving_agent(Agent()) as peer:
        peer.request(1, "_vendor/echo", {})
        assert (await peer.receive())["error"]["code"] == -32601


async def test_unstable_methods_are_routed_only_by_the_unstable_package() -> None:
    """`session/fork` is in the unstable schema only: the stable router answers -32601 even if the
    class has a method of that name; the unstable one routes it."""

    async def session_fork(self: Any, params: Any, ctx: Any) -> Any:
        return unstable_package.models.ForkSessionResponse(session_id="forked")

    stable = type("StableFork", (Agent,), {"session_fork": session_fork})()
    unstable = type("UnstableFork", (unstable_agent.Agent,), {"session_fork": session_fork})()
    params = {"sessionId": SESSION, "cwd": "/", "mcpServers": []}
    async with serving_agent(stable) as peer:
        peer.request(1, "session/fork", params)
        assert (await peer.receive())["error"]["code"] == -32601
    async with serving_agent(unstable) as peer:
        peer.request(1, "session/fork", params)
        assert (await peer.receive())["result"]["sessionId"] == "forked"


async def test_typed_peer_returns_the_result_model() -> None:
    async with serving_client(Client()) as (peer, connection):
        call = asyncio.create_task(
            connection.agent.session_new(models.NewSessionRequest(cwd="/", mcp_servers=[]))
        )
        request = await peer.receive()
        assert request["params"] == {"cwd": "/", "mcpServers": []}
        peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {"sessionId": "new"}})
        response = await call
    assert isinstance(response, models.NewSessionResponse)
    assert response.session_id == "new"


async def test_typed_peer_raises_invalid_response_for_a_malformed_result() -> None:
    async with serving_client(Client()) as (peer, connection):
        call = asyncio.create_task(
            connection.agent.session_new(models.NewSessionRequest(cwd="/", mcp_servers=[]))
        )
        request = await peer.receive()
        peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {"session": 1}})
        with pytest.raises(InvalidResponse) as raised:
            await call
    assert raised.value.data["method"] == "session/new"


async def test_typed_peer_graceful_cancel_sends_cancel_request_and_waits() -> None:
    async with serving_client(Client()) as (peer, connection):
        signal = CancelSignal()
        request_params = models.PromptRequest.model_validate(PROMPT)
        call = asyncio.create_task(connection.agent.session_prompt(request_params, cancel=signal))
        request = await peer.receive()
        signal.cancel()
        assert (await peer.receive())["params"] == {"requestId": request["id"]}
        peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {"stopReason": "cancelled"}})
        assert (await call).stop_reason == "cancelled"


async def test_handler_returning_a_wrong_result_answers_internal_error() -> None:
    class Wrong(Agent):
        async def session_new(
            self, params: models.NewSessionRequest, ctx: AgentContext
        ) -> models.NewSessionResponse:
            return {"no": "session id"}  # type: ignore[return-value]

    async with serving_agent(Wrong()) as peer:
        peer.request(1, "session/new", {"cwd": "/", "mcpServers": []})
        answer = await peer.receive()
    assert answer["error"]["code"] == -32603


@pytest.mark.parametrize("method", ["session/new", "session/prompt"])
async def test_a_handler_failing_with_a_key_error_answers_internal_error_not_method_not_found(
    method: str,
) -> None:
    """A handler's own `KeyError` is its failure (-32603), whether or not a rule owns the method
    (`session/prompt`: v1's turn rule), never "Method not found" (-32601)."""

    class Failing(Agent):
        async def session_new(
            self, params: models.NewSessionRequest, ctx: AgentContext
        ) -> models.NewSessionResponse:
            raise KeyError("a key of the handler's own")

        async def session_prompt(
            self, params: models.PromptRequest, ctx: AgentContext
        ) -> models.PromptResponse:
            raise KeyError("a key of the handler's own")

    params = PROMPT if method == "session/prompt" else {"cwd": "/", "mcpServers": []}
    async with serving_agent(Failing()) as peer:
        peer.request(1, method, params)
        answer = await peer.receive()
    assert answer["error"]["code"] == -32603, answer


async def test_notification_with_invalid_params_is_dropped_and_the_connection_lives() -> None:
    updates: list[models.SessionNotification] = []

    class Watching(Client):
        async def session_update(
            self, params: models.SessionNotification, ctx: ClientContext
        ) -> None:
            updates.append(params)

    async with serving_client(Watching()) as (peer, _):
        peer.notify("session/update", {"sessionId": 5})
        peer.notify("session/update", text_chunk("ok").to_wire())
        await eventually(lambda: updates)
    assert len(updates) == 1


async def test_notification_handler_context_has_the_peer_and_no_request() -> None:
    contexts: list[ClientContext] = []

    class Watching(Client):
        async def session_update(
            self, params: models.SessionNotification, ctx: ClientContext
        ) -> None:
            contexts.append(ctx)

    async with serving_client(Watching()) as (peer, _):
        peer.notify("session/update", text_chunk("ok").to_wire())
        await eventually(lambda: contexts)
    assert contexts[0].request_id is None and not contexts[0].cancel_requested
    assert contexts[0].agent is contexts[0].peer


async def test_agent_and_client_from_the_generated_bases_talk_to_each_other() -> None:
    """Our agent and our client over one in-memory pipe: a prompt, a nested request, a stream."""
    received: list[str] = []

    class Reading(Client):
        async def fs_read_text_file(
            self, params: models.ReadTextFileRequest, ctx: ClientContext
        ) -> models.ReadTextFileResponse:
            return models.ReadTextFileResponse(content="contents of " + params.path)

        async def session_update(
            self, params: models.SessionNotification, ctx: ClientContext
        ) -> None:
            update = params.update
            assert isinstance(update, models.SessionUpdateAgentMessageChunk)
            assert isinstance(update.content, models.ContentBlockText)
            received.append(update.content.text)

    class Echoing(Agent):
        async def session_prompt(
            self, params: models.PromptRequest, ctx: AgentContext
        ) -> models.PromptResponse:
            read = models.ReadTextFileRequest(session_id=params.session_id, path="/a")
            contents = await ctx.client.fs_read_text_file(read)
            await ctx.client.session_update(text_chunk(contents.content))
            return models.PromptResponse(stop_reason="end_turn")

    left, right = memory_pair()
    async with connect_agent(Echoing(), left), connect_client(Reading(), right) as client:
        request = models.PromptRequest.model_validate(PROMPT)
        response = await client.agent.session_prompt(request)
    assert response.stop_reason == "end_turn"
    assert received == ["contents of /a"]


async def test_nothing_survives_leaving_spawn_agent(tmp_path: Path) -> None:
    """ "a child process must never outlive its parent's interest in it": an agent whose own child
    ignores EOF and SIGTERM (like an npm wrapper's native agent) is gone, group and all."""
    pid_file = tmp_path / "grandchild.pid"
    arguments = ("-c", FORKING_AGENT, str(pid_file), "ignore-term", "wait")
    async with spawn_agent(Client(), sys.executable, *arguments):
        await eventually(lambda: pid_file.exists() and pid_file.read_text() != "")
    assert not running(int(pid_file.read_text()))


async def test_logs_never_carry_parameter_values(caplog: pytest.LogCaptureFixture) -> None:
    """A notification with invalid params is logged by method and error location only: a secret
    in its params never reaches the log (pydantic's text would quote it as `input_value=`)."""
    secret = "sk-live-do-not-log"
    async with serving_client(Client()) as (agent, _):
        with caplog.at_level(logging.DEBUG, logger="acp_protocol"):
            agent.notify("session/update", {"sessionId": 5, "update": {"token": secret}})
            agent.request(1, "fs/read_text_file", {"sessionId": SESSION, "path": 7, "x": secret})
            await agent.receive()
    assert "session/update" in caplog.text
    assert secret not in caplog.text
