"""One client for v1 and v2 agents (`acp_protocol.agents.connect_agent_versions`): it asks for
the newest version it offers and goes on in the one the agent answers. InitializeResponse
.protocolVersion: "The highest protocol version supported by the agent that is at or below the
version requested by the client"."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from acp_protocol.agents import connect_agent_versions
from acp_protocol.runtime import InvalidRequest, memory_pair
from acp_protocol.v1 import agent as v1_agent
from acp_protocol.v1 import client as v1_client
from acp_protocol.v1 import models as v1_models
from acp_protocol.v2 import builders
from acp_protocol.v2 import client as v2_client
from acp_protocol.v2.agent import connect_agent

from tests.runtime.support import RawPeer
from tests.typed.test_v2_behaviour import WordsAgent

V1_PARAMS = {"clientCapabilities": {}, "clientInfo": {"name": "both", "version": "0"}}
V2_PARAMS = {"info": {"name": "both", "version": "0"}}


class V1Agent(v1_agent.Agent):
    """Echoes the version asked, as a careless v1 agent would (its SDK answers 1)."""

    def __init__(self) -> None:
        self.initialize_params: dict[str, Any] = {}

    async def initialize(
        self, params: v1_models.InitializeRequest, ctx: v1_agent.AgentContext
    ) -> v1_models.InitializeResponse:
        self.initialize_params = params.to_wire()
        return v1_models.InitializeResponse(protocol_version=params.protocol_version)

    async def session_new(
        self, params: v1_models.NewSessionRequest, ctx: v1_agent.AgentContext
    ) -> v1_models.NewSessionResponse:
        return v1_models.NewSessionResponse(session_id="v1-session")

    async def session_prompt(
        self, params: v1_models.PromptRequest, ctx: v1_agent.AgentContext
    ) -> v1_models.PromptResponse:
        return v1_models.PromptResponse(stop_reason="end_turn")


def both() -> dict[str, Any]:
    return {
        "v1": (v1_client.Client(), V1_PARAMS),
        "v2": (v2_client.Client(), V2_PARAMS),
    }


async def test_a_v2_agent_is_reached_in_v2_with_the_v2_client_and_its_session_view() -> None:
    ours, theirs = memory_pair()
    async with connect_agent(WordsAgent(), theirs):
        agent = await connect_agent_versions(ours, **both())
        async with agent.connection:
            assert agent.version == 2
            assert isinstance(agent.connection, v2_client.ClientConnection)
            view = agent.connection.session("s-1")
            message_id = await view.prompt([builders.content_block.text("hi there")])
            idle = await asyncio.wait_for(view.idle(message_id), 5)
    assert idle.stop_reason == "end_turn"


async def test_a_v1_agent_answers_1_and_the_client_continues_in_v1() -> None:
    ours, theirs = memory_pair()
    implementation = V1Agent()
    async with v1_agent.connect_agent(implementation, theirs):
        agent = await connect_agent_versions(ours, **both())
        async with agent.connection:
            assert agent.version == 1
            assert isinstance(agent.connection, v1_client.ClientConnection)
            assert agent.initialize.protocol_version == 1
            new = v1_models.NewSessionRequest(cwd="/work", mcp_servers=[])
            session_id = (await agent.connection.agent.session_new(new)).session_id
            text = v1_models.ContentBlockText(text="hi")
            prompt = v1_models.PromptRequest(session_id=session_id, prompt=[text])
            answer = await agent.connection.agent.session_prompt(prompt)
    assert answer.stop_reason == "end_turn"
    # One `initialize`, asking for 2, with each version's params (the newest's win on a clash).
    assert implementation.initialize_params["protocolVersion"] == 2
    assert implementation.initialize_params["clientInfo"] == V1_PARAMS["clientInfo"]
    assert implementation.initialize_params["info"] == V2_PARAMS["info"]


async def test_an_answer_in_a_version_not_offered_closes_the_connection_with_one_clear_error() -> (
    None
):
    ours, theirs = memory_pair()
    peer = RawPeer(theirs)
    connecting = asyncio.create_task(connect_agent_versions(ours, **both()))
    asked = await peer.receive()
    assert asked["method"] == "initialize" and asked["params"]["protocolVersion"] == 2
    peer.send({"jsonrpc": "2.0", "id": asked["id"], "result": {"protocolVersion": 3}})
    with pytest.raises(InvalidRequest) as raised:
        await connecting
    assert raised.value.data == {"answered": 3, "offered": [1, 2]}


async def test_only_v1_offered_asks_for_1() -> None:
    ours, theirs = memory_pair()
    async with v1_agent.connect_agent(V1Agent(), theirs):
        agent = await connect_agent_versions(ours, v1=(v1_client.Client(), V1_PARAMS))
        async with agent.connection:
            assert agent.version == 1
