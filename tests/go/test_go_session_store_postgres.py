"""The Go runtime's PostgreSQL session store (generated/go/postgres, the nested module
acp-protocol-sdk/postgres on pgx) against the run's server: the store corpus on memory, a file
and PostgreSQL (tests/go/postgres/store_corpus_test.go), and a Go writer beside a Python one on
the same session, the Go one killed mid-write: nothing acknowledged lost. The acp module itself
stays standard library only (its go.mod requires nothing)."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

from tests.go.support import BIN, TESTS, assert_ok, run_go
from tests.paths import ROOT
from tests.runtime.test_session_store_postgres import killed_beside_python

MODULE = TESTS / "postgres"


def test_the_acp_module_requires_nothing_and_the_postgres_one_is_its_own() -> None:
    acp = (ROOT / "generated" / "go" / "go.mod").read_text()
    assert "require" not in acp
    nested = (ROOT / "generated" / "go" / "postgres" / "go.mod").read_text()
    assert "module acp-protocol-sdk/postgres" in nested
    assert "github.com/jackc/pgx/v5 " in nested


def test_the_go_store_corpus_passes_on_every_backend_with_postgres(postgres: str) -> None:
    assert_ok(run_go(["go", "vet", "./..."], ROOT / "generated" / "go" / "postgres"))
    done = run_go(["go", "test", "-count=1", "-v", "./..."], MODULE, ACP_TEST_POSTGRES=postgres)
    assert_ok(done)
    # PostgreSQL's cases ran too (only a memory store skips: the cases that open a store again)
    assert "--- SKIP: TestStoreCorpusOnEveryBackend/postgres:" not in done.stdout
    assert "--- SKIP: TestStoreCorpusOnEveryBackend/file:" not in done.stdout
    assert done.stdout.count("--- PASS: TestStoreCorpusOnEveryBackend/postgres:") > 0


def built_writer() -> Path:
    assert_ok(run_go(["go", "build", "-o", str(BIN / "postgres-writer"), "./writer"], MODULE))
    return BIN / "postgres-writer"


async def test_a_go_writer_killed_beside_a_python_one_loses_nothing_acknowledged(
    postgres: str,
) -> None:
    # The Go writer makes the schema (version 2, with the updates table session/load replays,
    # as the Python store's): the Python writer then finds it current.
    program = await asyncio.to_thread(built_writer)
    await killed_beside_python([str(program)], postgres, f"go_{uuid.uuid4().hex}", "go")
