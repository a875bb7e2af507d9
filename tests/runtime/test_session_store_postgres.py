"""The PostgreSQL session store (`acp_protocol.runtime.session_postgres`) beyond the corpus
(tests/runtime/test_session_store_corpus.py): several processes writing the same sessions, a
writer killed mid-write, and the schema it creates, migrates and refuses. Against one real
server for the whole run (the `postgres` fixture, tests/services/)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import uuid

import pytest

pytest.importorskip("psycopg_pool", reason="the postgres extra (psycopg) is missing")

import psycopg
from acp_protocol.runtime.session_backends import SessionStoreError
from acp_protocol.runtime.session_postgres import SCHEMA_VERSION, open_postgres_store

WRITER = """
import asyncio, sys
from acp_protocol.runtime.session_postgres import open_postgres_store

async def main(dsn, schema, name, count):
    store = await open_postgres_store(dsn, schema=schema, policy="merge", pool_size=2)
    for number in range(count):
        # Every writer records the session too: the first insert wins, the others read it.
        await store.acreate("shared", "/w")
        await store.achange("shared", meta={f"{name}-{number}": number})
        print(f"{name}-{number}", flush=True)  # acknowledged: the change is committed
    await store.aclose()

asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])))
"""


def writer(dsn: str, schema: str, name: str, count: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, dsn, schema, name, str(count)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


async def stored_meta(dsn: str, schema: str) -> dict[str, int]:
    store = await open_postgres_store(dsn, schema=schema)
    try:
        record = await store.aget("shared")
    finally:
        await store.aclose()
    assert record is not None and record.meta is not None
    return record.meta


async def killed_beside_python(command: list[str], dsn: str, schema: str, name: str) -> None:
    """Another runtime's writer (`command` DSN SCHEMA NAME COUNT, one acknowledged key a line)
    makes the schema, a Python writer joins it, the first is SIGKILLed after 40 acknowledged
    changes: nothing either acknowledged is lost (one database, two runtimes)."""
    victim = subprocess.Popen(
        [*command, dsn, schema, name, "100000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert victim.stdout is not None
    acknowledged = [await asyncio.to_thread(victim.stdout.readline)]
    survivor = writer(dsn, schema, "py", 60)
    acknowledged += [await asyncio.to_thread(victim.stdout.readline) for _ in range(39)]
    os.kill(victim.pid, signal.SIGKILL)
    rest, errors = victim.communicate(timeout=60)
    acknowledged += rest.splitlines()
    _, survivor_errors = survivor.communicate(timeout=120)
    assert victim.returncode == -signal.SIGKILL, errors
    assert survivor.returncode == 0, survivor_errors
    meta = await stored_meta(dsn, schema)
    assert {line.strip() for line in acknowledged} - set(meta) == set()
    assert {f"py-{i}" for i in range(60)} <= set(meta)


async def test_processes_writing_the_same_session_lose_nothing_and_fail_nowhere(
    postgres: str,
) -> None:
    """Each change holds the session's row (`SELECT … FOR UPDATE`) from its read to its
    commit: three processes merging 40 keys each into one session's `_meta` keep all 120."""
    schema = f"shared_{uuid.uuid4().hex}"
    writers = [writer(postgres, schema, name, 40) for name in ("a", "b", "c")]
    outcomes = [w.communicate(timeout=120) for w in writers]
    assert [w.returncode for w in writers] == [0, 0, 0], [err for _, err in outcomes]
    meta = await stored_meta(postgres, schema)
    assert sorted(meta) == sorted(f"{n}-{i}" for n in "abc" for i in range(40))


async def test_a_writer_killed_mid_write_loses_nothing_it_acknowledged(postgres: str) -> None:
    """A change is acknowledged after its COMMIT: a writer SIGKILLed while it writes (beside
    another that goes on) loses none of the changes it printed, nor the other's."""
    schema = f"killed_{uuid.uuid4().hex}"
    victim = writer(postgres, schema, "victim", 100_000)
    survivor = writer(postgres, schema, "survivor", 100)
    assert victim.stdout is not None
    acknowledged = [await asyncio.to_thread(victim.stdout.readline) for _ in range(40)]
    os.kill(victim.pid, signal.SIGKILL)
    rest, _ = victim.communicate(timeout=60)
    acknowledged += rest.splitlines()
    _, survivor_err = survivor.communicate(timeout=120)
    assert victim.returncode == -signal.SIGKILL
    assert survivor.returncode == 0, survivor_err
    meta = await stored_meta(postgres, schema)
    lost = {line.strip() for line in acknowledged} - set(meta)
    assert lost == set()
    assert {f"survivor-{i}" for i in range(100)} <= set(meta)


async def test_processes_opening_a_new_schema_at_once_create_it_once(postgres: str) -> None:
    """The tables are created under an advisory lock: four stores opened at once all work."""
    schema = f"fresh_{uuid.uuid4().hex}"
    stores = await asyncio.gather(*(open_postgres_store(postgres, schema=schema) for _ in range(4)))
    for number, store in enumerate(stores):
        await store.acreate(f"s{number}", "/w")
    listed = await stores[0].alist_sessions()
    assert sorted(s["sessionId"] for s in listed["sessions"]) == ["s0", "s1", "s2", "s3"]
    for store in stores:
        await store.aclose()


async def test_a_schema_newer_than_this_runtime_is_refused_and_left_untouched(
    postgres: str,
) -> None:
    schema = f"future_{uuid.uuid4().hex}"
    await (await open_postgres_store(postgres, schema=schema)).aclose()
    newer = str(SCHEMA_VERSION + 1)
    async with await psycopg.AsyncConnection.connect(postgres, autocommit=True) as connection:
        await connection.execute(
            f"UPDATE {schema}.acp_session_store SET value = %s WHERE key = 'version'", (newer,)
        )
        with pytest.raises(SessionStoreError, match=f"version {newer} is newer than this"):
            await open_postgres_store(postgres, schema=schema)
        cursor = await connection.execute(
            f"SELECT value FROM {schema}.acp_session_store WHERE key = 'version'"
        )
        assert await cursor.fetchone() == (newer,)


async def test_a_schema_of_version_zero_is_migrated_to_the_current_one(postgres: str) -> None:
    """A store whose version row predates its tables (version 0) gets them and the version."""
    schema = f"old_{uuid.uuid4().hex}"
    async with await psycopg.AsyncConnection.connect(postgres, autocommit=True) as connection:
        await connection.execute(f"CREATE SCHEMA {schema}")
        await connection.execute(
            f"CREATE TABLE {schema}.acp_session_store (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
        )
        await connection.execute(
            f"INSERT INTO {schema}.acp_session_store VALUES"
            " ('format', 'acp-codegen-session-store'), ('version', '0')"
        )
        store = await open_postgres_store(postgres, schema=schema)
        await store.acreate("s", "/w")
        await store.aclose()
        cursor = await connection.execute(
            f"SELECT value FROM {schema}.acp_session_store WHERE key = 'version'"
        )
        assert await cursor.fetchone() == (str(SCHEMA_VERSION),)


async def test_another_programs_table_of_that_name_is_refused(postgres: str) -> None:
    schema = f"other_{uuid.uuid4().hex}"
    async with await psycopg.AsyncConnection.connect(postgres, autocommit=True) as connection:
        await connection.execute(f"CREATE SCHEMA {schema}")
        await connection.execute(
            f"CREATE TABLE {schema}.acp_session_store (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
        )
        await connection.execute(
            f"INSERT INTO {schema}.acp_session_store VALUES ('format', 'invoices')"
        )
    with pytest.raises(SessionStoreError, match="belongs to another program"):
        await open_postgres_store(postgres, schema=schema)


async def test_a_server_that_cannot_be_reached_is_one_line_naming_it() -> None:
    with pytest.raises(SessionStoreError) as raised:
        await open_postgres_store("postgresql://acp@127.0.0.1:1/agents", connect_timeout=0.5)
    message = str(raised.value)
    assert message.startswith("PostgreSQL 127.0.0.1:1/agents: cannot connect")
    assert "\n" not in message


async def test_the_synchronous_methods_of_a_postgres_store_say_to_await_the_a_methods(
    postgres: str,
) -> None:
    store = await open_postgres_store(postgres, schema=f"sync_{uuid.uuid4().hex}")
    try:
        with pytest.raises(TypeError, match=r"asynchronous \(PostgreSQL\): await its a… methods"):
            store.create("s", "/w")
    finally:
        await store.aclose()


async def test_new_sessions_get_fresh_ids_and_are_listed_in_the_order_recorded(
    postgres: str,
) -> None:
    store = await open_postgres_store(postgres, schema=f"new_{uuid.uuid4().hex}")
    try:
        made = [await store.anew_session("/w", title=f"t{n}") for n in range(3)]
        assert len({record.session_id for record in made}) == 3
        assert all(record.session_id.startswith("sess_") for record in made)
        listed = (await store.alist_sessions("/w"))["sessions"]
        assert [s["sessionId"] for s in listed] == [record.session_id for record in made]
        assert [s["title"] for s in listed] == ["t0", "t1", "t2"]
    finally:
        await store.aclose()
