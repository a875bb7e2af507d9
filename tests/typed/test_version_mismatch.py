"""A client and an agent of different protocol versions: `initialize` fails with one version error
(`UnsupportedVersion`, -32022 "Unsupported protocol version") that names both versions, whichever
side is newer; never a complaint about the shape of the other version's messages.

InitializeResponse.protocolVersion: "The highest protocol version supported by the agent that is
at or below the version requested by the client. If no such version exists, initialization fails
with error code -32022." A v2 agent asked for 1 answers -32022 before it reads the rest of the
params (a v1 client sends no `info`); a v1 agent asked for 2 answers 1, and the v2 client, which
cannot speak 1, says so instead of failing to read a v1 answer as a v2 one."""

from __future__ import annotations

import pytest
from acp_protocol.runtime import UnsupportedVersion, memory_pair
from acp_protocol.v1 import client as v1_client
from acp_protocol.v1 import models as v1_models
from acp_protocol.v1.agent import connect_agent as serve_v1
from acp_protocol.v2 import client as v2_client
from acp_protocol.v2 import models as v2_models
from acp_protocol.v2.agent import connect_agent as serve_v2

from tests.typed.test_client_versions import V1Agent
from tests.typed.test_v2_behaviour import WordsAgent


async def test_a_v1_client_meeting_a_v2_agent_gets_a_version_error_naming_both() -> None:
    ours, theirs = memory_pair()
    client = v1_client.connect_client(v1_client.Client(), ours)
    async with serve_v2(WordsAgent(), theirs), client as connection:
        with pytest.raises(UnsupportedVersion) as raised:
            await connection.agent.initialize(v1_models.InitializeRequest(protocol_version=1))
    assert raised.value.code == -32022
    assert raised.value.data == {"requested": 1, "supported": [2]}
    assert str(raised.value) == (
        "Unsupported protocol version (-32022): the client asked for version 1, "
        "the agent supports 2"
    )


async def test_a_v2_client_meeting_a_v1_agent_gets_a_version_error_naming_both() -> None:
    ours, theirs = memory_pair()
    info = v2_models.Implementation(name="client", version="0")
    client = v2_client.connect_client(v2_client.Client(), ours)
    async with serve_v1(V1Agent(), theirs), client as connection:
        with pytest.raises(UnsupportedVersion) as raised:
            await connection.agent.initialize(
                v2_models.InitializeRequest(protocol_version=2, info=info)
            )
    assert raised.value.code == -32022
    assert raised.value.data == {"requested": 2, "answered": 1}
    assert str(raised.value) == (
        "Unsupported protocol version (-32022): the client asked for version 2, "
        "the agent answered 1"
    )


async def test_the_same_versions_still_initialize() -> None:
    ours, theirs = memory_pair()
    info = v2_models.Implementation(name="client", version="0")
    client = v2_client.connect_client(v2_client.Client(), ours)
    async with serve_v2(WordsAgent(), theirs), client as connection:
        answer = await connection.agent.initialize(
            v2_models.InitializeRequest(protocol_version=2, info=info)
        )
    assert answer.protocol_version == 2
