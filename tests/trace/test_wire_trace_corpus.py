"""ACP_TRACE's record of each line an agent reads, from tests/corpus/wire_trace (the same cases
tests/typescript/wire_trace.test.ts and tests/go/wire_trace_test.go read): a line that is not
UTF-8 is recorded as `hex:` and its bytes, like the recorder's (`trace.frames.raw_text`), so
the three runtimes write the same record for the same bytes."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from acp_protocol.runtime import Connection, memory_pair
from acp_protocol.trace.frames import read_frames

CORPUS = Path(__file__).parents[1] / "corpus" / "wire_trace" / "read_lines.json"
CASES: list[dict[str, Any]] = json.loads(CORPUS.read_text(encoding="utf-8"))["cases"]


async def first_record(line: bytes, folder: Path) -> dict[str, Any]:
    """The record of `line`, read by a connection that recorded itself into `folder`."""
    peer, own = memory_pair()
    connection = Connection(own)
    connection.start()
    peer.write(line + b"\n")
    await peer.close()
    await asyncio.wait_for(connection.wait_closed(), 10)
    await connection.close()
    (path,) = folder.glob("agent-*.jsonl")
    with path.open(encoding="utf-8") as lines:
        records = [json.loads(text) for text in lines]
    assert records[0]["side"] == "agent"
    list(read_frames(path))  # the recorder's reader takes it
    record: dict[str, Any] = records[1]
    assert record.pop("t") >= 0
    return record


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_each_line_read_is_recorded_as_the_shared_corpus_says(
    case: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACP_TRACE", str(tmp_path / "agent-{n}.jsonl"))
    assert asyncio.run(first_record(bytes.fromhex(case["line_hex"]), tmp_path)) == case["record"]
