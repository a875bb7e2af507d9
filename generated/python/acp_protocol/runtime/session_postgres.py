# Copied by acp-codegen from templates/python/runtime/session_postgres.py. Do not edit here:
# edit the source, then run `make generate`.

"""A `SessionStore` kept in PostgreSQL, shared by every server process of an agent.

Layer: typed layer (storage of `SessionStore`, the `postgres` extra: psycopg 3 and its pool).

    store = await open_postgres_store("postgresql://agent@db/agent")
    ...
    await store.aclose()

The store is asynchronous: await its `a…` methods (`achange`, `acreate`, `alist_sessions`, …);
the generated agent already does for `session/list`. Connections come from a psycopg
`AsyncConnectionPool` (`pool_size` at most). A change is read, computed and written in one
transaction that holds the session's row (`SELECT … FOR UPDATE`): several processes changing
the same session wait for each other and none loses another's acknowledged change; a change
resolves only after its `COMMIT`, so a process killed at any moment loses nothing acknowledged.

The schema is the store's: `open_postgres_store` creates its tables (in `schema`, `public`
unless given) and migrates an older version, under an advisory lock so processes starting at
once migrate it once. The version is a row of `acp_session_store`; a database whose version is
newer than this runtime knows is refused with one line, untouched. The tables are the same in
the three runtimes (TypeScript `PostgresSessionStore`, Go `acppostgres`), so they share one.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from .session_backends import Change, SessionRecord, SessionStoreError
from .session_history import TABLE, Replay, replay

if TYPE_CHECKING:
    from psycopg import AsyncConnection
    from psycopg_pool import AsyncConnectionPool

    from .session_store import SessionStore

T = TypeVar("T")

FORMAT = "acp-codegen-session-store"
"""The `format` row of `acp_session_store`: the tables are this store's."""

SCHEMA_VERSION = 2
"""The newest schema this runtime knows; `MIGRATIONS[n - 1]` brings version n - 1 to n."""

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        "CREATE TABLE {schema}.acp_sessions (position BIGINT GENERATED ALWAYS AS IDENTITY"
        " PRIMARY KEY, session_id TEXT NOT NULL UNIQUE, cwd TEXT NOT NULL, title TEXT,"
        " updated_at TEXT, meta TEXT)",
        "CREATE INDEX acp_sessions_cwd ON {schema}.acp_sessions (cwd, position)",
    ),
    # 2: the updates `session/load` replays (session_history).
    (TABLE.replace("{schema}", "{schema}."),),
)

LOCK_KEY = 0x41435053  # "ACPS": the advisory lock held while the schema is created or migrated

APPEND = (
    "WITH last AS (SELECT coalesce(max(seq), 0) AS seq FROM {updates} WHERE session_id = %(id)s),"
    " trimmed AS (DELETE FROM {updates} WHERE session_id = %(id)s"
    " AND seq <= (SELECT seq FROM last) + cardinality(%(bodies)s::text[]) - %(keep)s)"
    " INSERT INTO {updates} (session_id, seq, body) SELECT %(id)s, last.seq + b.n, b.body"
    " FROM last, unnest(%(bodies)s::text[]) WITH ORDINALITY AS b(body, n)"
    " WHERE b.n > cardinality(%(bodies)s::text[]) - %(keep)s"
)
"""A batch of updates numbered after the session's last, the ones past the cap (`keep`)
deleted: the statement after the session's advisory lock (every runtime's store sends it)."""

EXTRA = (
    "the PostgreSQL session store needs psycopg 3 and its pool:"
    " pip install 'acp-protocol-sdk[postgres]'"
)


class PostgresBackend:
    """Records in PostgreSQL tables, through a pool of asynchronous connections."""

    blocking = False
    asynchronous = True

    def __init__(self, pool: AsyncConnectionPool[Any], schema: str, where: str) -> None:
        self._pool = pool
        self._where = where
        quoted = '"' + schema.replace('"', '""') + '"'
        self._table = f"{quoted}.acp_sessions"
        self._updates = f"{quoted}.acp_session_updates"
        self._append = APPEND.replace("{updates}", self._updates)

    async def _run(self, work: Callable[[AsyncConnection[Any]], Awaitable[T]]) -> T:
        """`work` in one transaction; every database error becomes `SessionStoreError`."""
        import psycopg

        try:
            async with self._pool.connection() as connection, connection.transaction():
                return await work(connection)
        except (psycopg.Error, TimeoutError) as error:
            message = str(error).strip().splitlines()[0] if str(error).strip() else repr(error)
            raise SessionStoreError(f"{self._where}: {message}") from None

    async def aload(self, session_id: str) -> SessionRecord | None:
        async def work(connection: AsyncConnection[Any]) -> SessionRecord | None:
            return await self._select(connection, session_id, lock=False)

        return await self._run(work)

    async def ainsert(self, record: SessionRecord) -> bool:
        async def work(connection: AsyncConnection[Any]) -> bool:
            cursor = await connection.execute(
                f"INSERT INTO {self._table} (session_id, cwd, title, updated_at, meta)"
                " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (session_id) DO NOTHING",
                _values(record),
            )
            return cursor.rowcount == 1

        return await self._run(work)

    async def aupdate(self, session_id: str, change: Change) -> SessionRecord | None:
        while True:
            outcome = await self._run(
                lambda connection: self._update(connection, session_id, change)
            )
            if not isinstance(outcome, _Raced):
                return outcome
            # Another process recorded this session between our read and our insert: read it
            # again, now with its row held, and apply `change` to what it wrote.

    async def _update(
        self, connection: AsyncConnection[Any], session_id: str, change: Change
    ) -> SessionRecord | _Raced | None:
        stored = await self._select(connection, session_id, lock=True)
        after = change(stored)
        if after is None or after is stored:
            return stored
        if stored is None:
            cursor = await connection.execute(
                f"INSERT INTO {self._table} (session_id, cwd, title, updated_at, meta)"
                " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (session_id) DO NOTHING",
                _values(after),
            )
            return after if cursor.rowcount == 1 else _RACED
        await connection.execute(
            f"UPDATE {self._table} SET cwd = %s, title = %s, updated_at = %s, meta = %s"
            " WHERE session_id = %s",
            (*_values(after)[1:], session_id),
        )
        return after

    async def apage(
        self, cwd: str | None, after: int, limit: int
    ) -> list[tuple[int, SessionRecord]]:
        async def work(connection: AsyncConnection[Any]) -> list[tuple[int, SessionRecord]]:
            cursor = await connection.execute(
                "SELECT position, session_id, cwd, title, updated_at, meta"
                f" FROM {self._table} WHERE position > %s"
                " AND (%s::text IS NULL OR cwd = %s) ORDER BY position LIMIT %s",
                (after, cwd, cwd, limit),
            )
            return [(row[0], _record(row[1:])) for row in await cursor.fetchall()]

        return await self._run(work)

    async def aappend_updates(self, session_id: str, bodies: Sequence[str], keep: int) -> None:
        """One round trip (pipeline mode): the transaction's statements are sent at once and
        answered after its COMMIT. One appender per session at a time (the advisory lock, a
        statement of its own: the next one's snapshot sees what the last holder committed),
        so the next number is read, then used; the updates the cap would delete at once are
        not written (the numbers, and the count a replay reports dropped, are the same)."""
        await self._pipelined(
            ("BEGIN", None),
            ("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (LOCK_KEY, session_id)),
            (self._append, {"id": session_id, "bodies": list(bodies), "keep": keep}),
            ("COMMIT", None),
        )

    async def _pipelined(self, *statements: tuple[str, Any]) -> None:
        """`statements` in one round trip; every database error becomes `SessionStoreError`."""
        import psycopg

        try:
            async with self._pool.connection() as connection:
                try:
                    async with connection.pipeline():
                        for query, params in statements:
                            await connection.execute(query, params)
                except psycopg.Error:
                    with contextlib.suppress(psycopg.Error):
                        await connection.rollback()  # an explicit BEGIN left aborted
                    raise
        except (psycopg.Error, TimeoutError) as error:
            raise SessionStoreError(f"{self._where}: {_first_line(error)}") from None

    async def aread_updates(self, session_id: str) -> Replay:
        async def work(connection: AsyncConnection[Any]) -> Replay:
            cursor = await connection.execute(
                f"SELECT seq, body FROM {self._updates} WHERE session_id = %s ORDER BY seq",
                (session_id,),
            )
            return replay([(int(seq), body) for seq, body in await cursor.fetchall()])

        return await self._run(work)

    async def aclose(self) -> None:
        await self._pool.close()

    async def _select(
        self, connection: AsyncConnection[Any], session_id: str, *, lock: bool
    ) -> SessionRecord | None:
        cursor = await connection.execute(
            f"SELECT session_id, cwd, title, updated_at, meta FROM {self._table}"
            f" WHERE session_id = %s{' FOR UPDATE' if lock else ''}",
            (session_id,),
        )
        row = await cursor.fetchone()
        return None if row is None else _record(row)


class _Raced:
    """An insert lost to another process's: read again."""


_RACED = _Raced()


async def open_postgres_store(
    conninfo: str,
    *,
    schema: str = "public",
    pool_size: int = 10,
    connect_timeout: float = 10.0,
    **options: Any,
) -> SessionStore:
    """A `SessionStore` in the PostgreSQL database at `conninfo` (a libpq URL or `key=value`
    string), its tables in `schema` (created, or migrated to `SCHEMA_VERSION`). `options` are
    `SessionStore`'s (`policy`, `title_limit`, `page_size`, …). Raises `SessionStoreError`, one
    line, for a server that cannot be reached or a schema this runtime cannot use."""
    try:
        from psycopg_pool import AsyncConnectionPool
    except ImportError:
        raise SessionStoreError(EXTRA) from None
    import psycopg

    from .session_store import SessionStore

    where = _where(conninfo)
    pool: AsyncConnectionPool[Any] = AsyncConnectionPool(
        conninfo,
        min_size=1,
        max_size=pool_size,
        open=False,
        timeout=connect_timeout,
        # Transactions are explicit (`transaction()`, or BEGIN … COMMIT in one pipeline).
        kwargs={"autocommit": True},
    )
    try:
        await pool.open(wait=True, timeout=connect_timeout)
    except Exception as error:  # psycopg_pool.PoolTimeout, or a bad conninfo
        await pool.close()
        raise SessionStoreError(f"{where}: cannot connect: {_first_line(error)}") from None
    try:
        async with pool.connection() as connection, connection.transaction():
            await _migrate(connection, schema, where)
    except psycopg.Error as error:
        await pool.close()
        raise SessionStoreError(f"{where}: {_first_line(error)}") from None
    except SessionStoreError:
        await pool.close()
        raise
    return SessionStore(backend=PostgresBackend(pool, schema, where), **options)


async def _migrate(connection: AsyncConnection[Any], schema: str, where: str) -> None:
    """Create or migrate the tables in `schema`, one process at a time; refuse a newer schema."""
    quoted = '"' + schema.replace('"', '""') + '"'
    await connection.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_KEY,))
    await connection.execute(f"CREATE SCHEMA IF NOT EXISTS {quoted}")
    await connection.execute(
        f"CREATE TABLE IF NOT EXISTS {quoted}.acp_session_store"
        " (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
    )
    cursor = await connection.execute(f"SELECT key, value FROM {quoted}.acp_session_store")
    rows = dict(await cursor.fetchall())
    if rows and rows.get("format") != FORMAT:
        raise SessionStoreError(
            f"{where}: {schema}.acp_session_store belongs to another program"
            f" (format {rows.get('format')!r})"
        )
    version = _version(rows.get("version", "0"), where)
    if version > SCHEMA_VERSION:
        raise SessionStoreError(
            f"{where}: session store schema version {version} is newer than this runtime's"
            f" ({SCHEMA_VERSION}): upgrade acp-protocol-sdk, or use another schema"
        )
    for number in range(version + 1, SCHEMA_VERSION + 1):
        for statement in _statements(MIGRATIONS[number - 1], quoted):
            await connection.execute(statement)
    if version < SCHEMA_VERSION:
        await connection.execute(
            f"INSERT INTO {quoted}.acp_session_store VALUES ('format', %s), ('version', %s)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (FORMAT, str(SCHEMA_VERSION)),
        )


def _statements(statements: Sequence[str], quoted: str) -> list[str]:
    return [statement.replace("{schema}", quoted) for statement in statements]


def _version(text: str, where: str) -> int:
    if not text.isdigit():
        raise SessionStoreError(f"{where}: session store schema version {text!r} is not a number")
    return int(text)


def _where(conninfo: str) -> str:
    """The server and database of `conninfo`, for messages (never its password)."""
    try:
        from psycopg.conninfo import conninfo_to_dict

        parts = conninfo_to_dict(conninfo)
    except Exception:
        return "PostgreSQL"
    host = str(parts.get("host") or "localhost")
    port = f":{parts['port']}" if parts.get("port") else ""
    database = f"/{parts['dbname']}" if parts.get("dbname") else ""
    return f"PostgreSQL {host}{port}{database}"


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _values(record: SessionRecord) -> tuple[Any, ...]:
    meta = None if record.meta is None else json.dumps(record.meta, sort_keys=True)
    return (record.session_id, record.cwd, record.title, record.updated_at, meta)


def _record(row: Sequence[Any]) -> SessionRecord:
    session_id, cwd, title, updated_at, meta = row
    return SessionRecord(
        session_id, cwd, title, updated_at, None if meta is None else json.loads(meta)
    )
