"""The PostgreSQL store's cost per batch of session updates: one round trip to the database
(pipeline mode: BEGIN, the session's advisory lock, the append-and-trim statement and COMMIT sent
at once), counted by a proxy in front of the run's server (tests/services/round_trips.py), with
the guarantees the transaction gave before: order, the cap and the count it dropped, several
writers on one session."""

from __future__ import annotations

import asyncio
import uuid

import pytest

pytest.importorskip("psycopg_pool", reason="the postgres extra (psycopg) is missing")

from acp_protocol.runtime.session_postgres import open_postgres_store

from tests.services.round_trips import RoundTrips


def said(writer: str, count: int) -> list[dict[str, object]]:
    return [{"sessionUpdate": "agent_message_chunk", "n": f"{writer}{n}"} for n in range(count)]


async def test_a_batch_of_updates_is_one_round_trip_to_the_database(postgres: str) -> None:
    async with RoundTrips(postgres) as proxy:
        schema = f"trips_{uuid.uuid4().hex}"
        store = await open_postgres_store(proxy.dsn, schema=schema, pool_size=1, history_limit=15)
        try:
            await store.acreate("s", "/w")
            trips = []
            for batch in range(3):
                before = proxy.count
                await store.history.arecord("s", said(f"b{batch}-", 10))
                trips.append(proxy.count - before)
            replay = await store.history.aread("s")
        finally:
            await store.aclose()
    assert trips == [1, 1, 1]
    assert [update["n"] for update in replay.updates] == [
        *(f"b1-{n}" for n in range(5, 10)),
        *(f"b2-{n}" for n in range(10)),
    ]
    assert replay.dropped == 15


async def test_a_batch_larger_than_the_cap_keeps_its_last_updates_and_counts_the_rest(
    postgres: str,
) -> None:
    store = await open_postgres_store(postgres, schema=f"cap_{uuid.uuid4().hex}", history_limit=3)
    try:
        await store.history.arecord("s", said("a", 2))
        await store.history.arecord("s", said("b", 5))
        replay = await store.history.aread("s")
    finally:
        await store.aclose()
    assert [update["n"] for update in replay.updates] == ["b2", "b3", "b4"]
    assert replay.dropped == 4


async def test_writers_appending_to_one_session_at_once_lose_nothing_and_keep_their_order(
    postgres: str,
) -> None:
    """Three stores (as three processes would) append 20 batches each to one session at once:
    every update is kept once, numbered without a gap, each writer's in the order it sent."""
    schema = f"writers_{uuid.uuid4().hex}"
    stores = [await open_postgres_store(postgres, schema=schema, pool_size=2) for _ in range(3)]

    async def write(store_index: int) -> None:
        for batch in range(20):
            updates = said(f"w{store_index}-{batch}-", 3)
            await stores[store_index].history.arecord("shared", updates)

    try:
        await asyncio.gather(*(write(n) for n in range(3)))
        replay = await stores[0].history.aread("shared")
    finally:
        for store in stores:
            await store.aclose()
    kept = [str(update["n"]) for update in replay.updates]
    assert replay.dropped == 0 and len(kept) == len(set(kept)) == 180
    for writer in range(3):
        mine = [n for n in kept if n.startswith(f"w{writer}-")]
        assert mine == [f"w{writer}-{b}-{n}" for b in range(20) for n in range(3)]
