"""The TypeScript runtime's PostgreSQL session store against the run's server: the store corpus
(tests/typescript/session_store_corpus.test.ts, its PostgreSQL cases), and a TypeScript writer
beside a Python one on the same session, the TypeScript one killed mid-write: one database, two
runtimes, nothing acknowledged lost. Needs `make ts-build` (run before pytest by `make test`)."""

from __future__ import annotations

import json
import os
import subprocess
import uuid

import pytest

from tests.paths import ROOT
from tests.runtime.test_session_store_postgres import killed_beside_python, writer

BUILD = ROOT / ".build" / "typescript"
TESTS = BUILD / "dist-test" / "test"

pytestmark = pytest.mark.skipif(
    not (TESTS / "postgres_writer.js").exists(),
    reason="the TypeScript tests are not built: make ts-build",
)


def test_the_typescript_store_corpus_passes_on_postgres(postgres: str) -> None:
    done = subprocess.run(
        [
            "node",
            "--test",
            "--test-name-pattern=^postgres: ",
            str(TESTS / "session_store_corpus.test.js"),
        ],
        cwd=BUILD,
        env={**os.environ, "ACP_TEST_POSTGRES": postgres},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    cases = json.loads((ROOT / "tests" / "corpus" / "session_store" / "cases.json").read_text())
    assert f"# pass {len(cases)}\n" in done.stdout  # every case of the corpus, on PostgreSQL
    assert "# fail 0\n" in done.stdout


def test_a_typescript_batch_of_updates_is_one_round_trip_to_the_database(postgres: str) -> None:
    """tests/typescript/session_store_round_trips.test.ts: a proxy counts the round trips."""
    done = subprocess.run(
        ["node", "--test", str(TESTS / "session_store_round_trips.test.js")],
        cwd=BUILD,
        env={**os.environ, "ACP_TEST_POSTGRES": postgres},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "# pass 2\n" in done.stdout and "# skipped 0\n" in done.stdout


async def test_a_typescript_writer_killed_beside_a_python_one_loses_nothing_acknowledged(
    postgres: str,
) -> None:
    # The TypeScript writer makes the schema (version 2, with the updates table session/load
    # replays, as the Python store's): the Python writer then finds it current.
    schema = f"runtimes_{uuid.uuid4().hex}"
    await killed_beside_python(["node", str(TESTS / "postgres_writer.js")], postgres, schema, "ts")


def test_a_schema_the_python_store_made_is_one_the_typescript_store_writes_to(
    postgres: str,
) -> None:
    """Every runtime knows the same newest schema version: none refuses another's as newer."""
    schema = f"runtimes_{uuid.uuid4().hex}"
    first = writer(postgres, schema, "py", 1)
    _, errors = first.communicate(timeout=120)
    assert first.returncode == 0, errors
    done = subprocess.run(
        ["node", str(TESTS / "postgres_writer.js"), postgres, schema, "ts", "1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ts-0"
