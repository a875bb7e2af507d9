"""End to end over real stdio subprocesses, in TypeScript on node: the official TypeScript SDK
(@agentclientprotocol/sdk 2.4.0) and our generated TypeScript package.

- A TypeScript client runs each scenario against an agent and reports what it saw: their client
  (tests/interop/node/ts_client.mjs) against our Python agent (tests/interop/our_agent.py) and
  against our TypeScript agent (tests/typescript/interop_agent.ts); our TypeScript client
  (tests/typescript/interop_client.ts, the same command line and report) against our Python agent
  and our TypeScript agent.
- Our generated Python client drives a TypeScript agent: theirs (tests/interop/node/ts_agent.mjs)
  and ours, which behave alike.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from acp_protocol.runtime import CancelSignal, RequestCancelled
from acp_protocol.v1 import models
from acp_protocol.v1.client import Client, ClientConnection, ClientContext, spawn_agent

from tests.interop.support import (
    NODE_PEERS,
    OUR_AGENT,
    node,
    our_ts_program,
    read_events,
    run_json_peer,
)
from tests.runtime.support import eventually

PY_AGENT_NAME = "acp-codegen-interop-agent"
TS_AGENT_NAME = "acp-codegen-ts-interop-agent"
INFO_UPDATES = [
    {
        "sessionUpdate": "session_info_update",
        "title": "Interop title",
        "_meta": {"trace": {"step": 1, "tags": ["a", "b"]}},
    },
    {"sessionUpdate": "session_info_update", "title": None},
    {"sessionUpdate": "session_info_update", "updatedAt": "2026-11-21T12:00:00Z", "_meta": None},
]
"""What the "info" prompt of every interop agent sends: a title with `_meta`, a cleared title, a
cleared `_meta` (absent, null and a value: three different things)."""
CLIENT_AGENT_PAIRS = (
    "their-ts-client/our-python-agent",
    "their-ts-client/our-ts-agent",
    "our-ts-client/our-python-agent",
    "our-ts-client/our-ts-agent",
)


@pytest.fixture(params=CLIENT_AGENT_PAIRS)
def pair(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def pair_command(pair: str) -> tuple[list[str], str]:
    """The TypeScript client program and the agent command of `pair`, and the agent's name."""
    client_side, agent_side = pair.split("/")
    client = (
        str(NODE_PEERS / "ts_client.mjs")
        if client_side == "their-ts-client"
        else our_ts_program("interop_client")
    )
    if agent_side == "our-ts-agent":
        return [client, node(), our_ts_program("interop_agent")], TS_AGENT_NAME
    return [client, *OUR_AGENT], PY_AGENT_NAME


async def ts_client(pair: str, scenario: str) -> dict[str, Any]:
    """Run the TypeScript client's `scenario` against the pair's agent; its JSON report."""
    (client, *agent), _ = pair_command(pair)
    return await run_json_peer(node(), client, scenario, *agent)


def chunks(updates: list[dict[str, Any]]) -> list[str]:
    return [u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk"]


# -- their client, our agent -------------------------------------------------------------------


async def test_ts_client_prompts_our_agent_and_receives_the_streamed_updates(pair: str) -> None:
    """initialize → session/new → session/prompt, three chunks streamed before the answer."""
    report = await ts_client(pair, "prompt")
    assert report["initialize"]["protocolVersion"] == 1
    assert report["initialize"]["agentInfo"]["name"] == pair_command(pair)[1]
    assert report["response"] == {"stopReason": "end_turn"}
    assert chunks(report["updates"]) == ["one ", "two ", "three"]


async def test_ts_client_cancel_request_on_a_slow_prompt_gets_request_cancelled(pair: str) -> None:
    """The TS client aborts its request: `$/cancel_request` → our agent answers -32800 with the
    request id in `data`, the TS SDK's own shape."""
    report = await ts_client(pair, "cancel_request")
    error = report["prompt"]["error"]
    assert error["code"] == -32800
    assert error["data"]["requestId"] == 2  # initialize 0, session/new 1, session/prompt 2
    assert chunks(report["updates"]) == ["working"]


async def test_ts_client_session_cancel_mid_prompt_gets_stop_reason_cancelled(pair: str) -> None:
    """prompt-turn.mdx: the Agent "MUST respond to the original `session/prompt` request with the
    `cancelled` stop reason" (a result, not an error)."""
    report = await ts_client(pair, "session_cancel")
    assert report["prompt"] == {"result": {"stopReason": "cancelled"}}


async def test_ts_client_cancelling_a_prompt_sees_the_cascaded_cancel_for_the_nested_read(
    pair: str,
) -> None:
    """Our agent waits on `fs/read_text_file` when the TS client cancels the prompt: the TS client
    receives `$/cancel_request` for that nested request (its handler's signal aborts), and the
    prompt is answered -32800."""
    report = await ts_client(pair, "cascade")
    [nested_id] = report["fsRequests"]
    assert report["cancelRequests"] == [nested_id]
    assert report["fsAborted"] == [nested_id]
    assert report["prompt"]["error"]["code"] == -32800


async def test_ts_client_cancels_of_finished_and_unknown_requests_are_ignored(pair: str) -> None:
    """RFD FAQ: a request that completed "normally before the cancellation notification is
    processed": "Ignore the subsequent cancellation notification for that request ID"; an unknown
    id is ignored too (a notification is never answered). The agent then serves on."""
    report = await ts_client(pair, "stale_cancels")
    assert report["first"] == report["second"] == {"stopReason": "end_turn"}
    assert chunks(report["updates"]) == ["one ", "two ", "three"] * 2
    assert report.get("problems", []) == []  # our client: no answer to either notification


async def test_ts_client_receives_session_info_updates_intact(pair: str) -> None:
    """A title with `_meta`, a cleared title (`null`) and a cleared `_meta`: absent, null and a
    value stay three different things through the TS SDK's parser."""
    report = await ts_client(pair, "session_info")
    info = [u for u in report["updates"] if u["sessionUpdate"] == "session_info_update"]
    assert info == INFO_UPDATES


# -- our client, their agent -------------------------------------------------------------------


class RecordingClient(Client):
    def __init__(self) -> None:
        self.chunks: list[str] = []

    async def session_update(self, params: models.SessionNotification, ctx: ClientContext) -> None:
        update = params.update
        if isinstance(update, models.SessionUpdateAgentMessageChunk) and isinstance(
            update.content, models.ContentBlockText
        ):
            self.chunks.append(update.content.text)


@pytest.fixture(params=("their-ts-agent", "our-ts-agent"))
def agent_program(request: pytest.FixtureRequest) -> str:
    """The TypeScript agent our Python client drives: the official SDK's, or our generated one's."""
    if request.param == "their-ts-agent":
        return str(NODE_PEERS / "ts_agent.mjs")
    return our_ts_program("interop_agent")


@asynccontextmanager
async def ts_agent(
    client: Client, events: Path, program: str
) -> AsyncIterator[tuple[ClientConnection, models.NewSessionResponse]]:
    """Our client connected to a TypeScript agent, initialized, with one session."""
    environment = {**os.environ, "ACP_INTEROP_EVENTS": str(events)}
    async with spawn_agent(client, node(), program, env=environment) as connection:
        init = await connection.agent.initialize(models.InitializeRequest(protocol_version=1))
        assert init.protocol_version == 1
        new = models.NewSessionRequest(cwd=str(NODE_PEERS), mcp_servers=[])
        yield connection, await connection.agent.session_new(new)


def prompt(session: models.NewSessionResponse, text: str) -> models.PromptRequest:
    content = [models.ContentBlockText(type="text", text=text)]
    return models.PromptRequest(session_id=session.session_id, prompt=content)


async def test_our_client_prompts_the_ts_agent_and_receives_the_streamed_updates(
    tmp_path: Path, agent_program: str
) -> None:
    client = RecordingClient()
    async with ts_agent(client, tmp_path / "events", agent_program) as (connection, session):
        response = await connection.agent.session_prompt(prompt(session, "stream"))
    assert response.stop_reason == "end_turn"
    assert client.chunks == ["one ", "two ", "three"]


async def test_our_cancelled_caller_sends_cancel_request_to_the_ts_agent(
    tmp_path: Path, agent_program: str
) -> None:
    """Ambient cancellation: cancelling the awaiting asyncio task sends `$/cancel_request` for the
    prompt; the TS agent's request signal aborts."""
    client = RecordingClient()
    events = tmp_path / "events"
    async with ts_agent(client, events, agent_program) as (connection, session):
        call = asyncio.create_task(connection.agent.session_prompt(prompt(session, "slow")))
        await eventually(lambda: client.chunks, timeout=10)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        await eventually(lambda: len(read_events(events)) >= 2, timeout=10)
    seen = read_events(events)
    cancelled = [e for e in seen if e["event"] == "prompt_cancelled"]
    prompt_id = 3  # our ids count from 1: initialize 1, session/new 2, session/prompt 3
    assert cancelled == [{"event": "prompt_cancelled", "by": "request", "requestId": prompt_id}]
    assert {"event": "cancel_request", "requestId": prompt_id} in seen


async def test_our_graceful_cancel_gets_the_ts_agents_request_cancelled(
    tmp_path: Path, agent_program: str
) -> None:
    """Graceful: with `cancel=CancelSignal()` we wait for the peer's answer, the TS SDK's -32800."""
    client = RecordingClient()
    async with ts_agent(client, tmp_path / "events", agent_program) as (connection, session):
        signal = CancelSignal()
        call = connection.agent.session_prompt(prompt(session, "slow"), cancel=signal)
        task = asyncio.create_task(call)
        await eventually(lambda: client.chunks, timeout=10)
        signal.cancel()
        with pytest.raises(RequestCancelled) as raised:
            await task
    assert raised.value.code == -32800
    assert raised.value.data == {"requestId": 3}  # initialize 1, session/new 2, prompt 3


async def test_our_session_cancel_ends_the_ts_agents_prompt_cancelled(
    tmp_path: Path, agent_program: str
) -> None:
    client = RecordingClient()
    async with ts_agent(client, tmp_path / "events", agent_program) as (connection, session):
        task = asyncio.create_task(connection.agent.session_prompt(prompt(session, "slow")))
        await eventually(lambda: client.chunks, timeout=10)
        await connection.agent.session_cancel(
            models.CancelNotification(session_id=session.session_id)
        )
        response = await asyncio.wait_for(task, 10)
    assert response.stop_reason == "cancelled"


# -- our client, our TypeScript agent: what the official agent program does not do ---------------


class HoldingClient(RecordingClient):
    """Holds `fs/read_text_file` until it is cancelled; records session info updates."""

    def __init__(self) -> None:
        super().__init__()
        self.reads: list[str] = []
        self.cancelled_reads: list[str] = []
        self.info: list[dict[str, Any]] = []

    async def session_update(self, params: models.SessionNotification, ctx: ClientContext) -> None:
        await super().session_update(params, ctx)
        if isinstance(params.update, models.SessionUpdateSessionInfoUpdate):
            self.info.append(params.update.to_wire())

    async def fs_read_text_file(
        self, params: models.ReadTextFileRequest, ctx: ClientContext
    ) -> models.ReadTextFileResponse:
        self.reads.append(params.path)
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled_reads.append(params.path)
            raise
        raise AssertionError("unreachable")


async def test_our_cancelled_prompt_cascades_through_the_ts_agent_to_our_nested_read(
    tmp_path: Path,
) -> None:
    """Our TS agent waits on our `fs/read_text_file` when we cancel its prompt: its handler's
    signal aborts, the nested request is cancelled with it (`$/cancel_request` to us), and the
    prompt is answered -32800."""
    client = HoldingClient()
    program = our_ts_program("interop_agent")
    async with ts_agent(client, tmp_path / "events", program) as (connection, session):
        signal = CancelSignal()
        task = asyncio.create_task(
            connection.agent.session_prompt(prompt(session, "nested"), cancel=signal)
        )
        await eventually(lambda: client.reads, timeout=10)
        signal.cancel()
        with pytest.raises(RequestCancelled):
            await asyncio.wait_for(task, 10)
        await eventually(lambda: client.cancelled_reads, timeout=10)
    assert client.cancelled_reads == ["/interop/held.txt"]


async def test_our_client_receives_the_ts_agents_session_info_updates_intact(
    tmp_path: Path,
) -> None:
    """`title: null` and `_meta: null` reach our models as null, not as absent, and back."""
    client = HoldingClient()
    program = our_ts_program("interop_agent")
    async with ts_agent(client, tmp_path / "events", program) as (connection, session):
        response = await connection.agent.session_prompt(prompt(session, "info"))
    assert response.stop_reason == "end_turn"
    assert client.info == INFO_UPDATES
