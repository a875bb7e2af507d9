"""The services the tests share, each started once a test run (session scope) and only when a
test asks for it: `postgres`, the DSN of a throwaway PostgreSQL server (tests/services/postgres.py).
A machine without the server skips those tests with the one line naming what to install."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.services import postgres as postgres_service


@pytest.fixture(scope="session")
def postgres() -> Iterator[str]:
    """A PostgreSQL server's DSN (database `postgres`, user `acp`, no password), for the run."""
    try:
        server = postgres_service.start()
    except postgres_service.Unavailable as error:
        pytest.skip(str(error))
    try:
        yield server.dsn
    finally:
        server.stop()
