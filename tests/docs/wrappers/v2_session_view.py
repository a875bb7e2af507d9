"""docs/typed-layer.md's session view, run against the v2 starter agent: `connection` is a v2
client's connection to it after `initialize`, `session_id` a session it created."""

import asyncio

from tests.docs.serving import v2_starter_session


async def main() -> None:
    async with v2_starter_session() as (connection, session_id):

        # FRAGMENT

        assert idle.stop_reason == "end_turn", idle
        words = [u for u in view.updates if u.session_update == "agent_message_chunk"]
        assert words, view.updates


asyncio.run(main())
