"""docs/typed-layer.md's client state, run against the v2 starter agent: `connection` is a v2
client's connection to it after `initialize`, `session_id` a session it created."""

import asyncio

from tests.docs.serving import v2_starter_session


async def main() -> None:
    async with v2_starter_session() as (connection, session_id):

        # FRAGMENT

        assert snapshot["targets"]["agentMessage"], snapshot
        assert snapshot["targets"]["state"]["state"] == "idle", snapshot


asyncio.run(main())
