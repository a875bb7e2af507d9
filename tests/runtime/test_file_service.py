"""A hostile agent against the client's file service (runtime/file_service.py).

"a file outside the allowed roots is never served": every path is resolved, symlinks included,
and refused outside the roots with an error naming them; only regular files are opened, never on
the event loop; `line`/`limit` read only what they ask for.
"""

from __future__ import annotations

import asyncio
import os
import time
import tracemalloc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from acp_protocol.runtime import FileAccessError, FileService, memory_pair
from acp_protocol.v1.client import Client, connect_client

from tests.runtime.support import RawPeer

SESSION = "s-1"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "notes.txt").write_text("one\ntwo\nthree\n")
    return folder


@asynccontextmanager
async def client_serving(service: FileService) -> AsyncIterator[RawPeer]:
    """Our client with `file_service` set; the test plays the agent over raw frames."""
    client = Client()
    client.file_service = service
    ours, theirs = memory_pair()
    async with connect_client(client, ours):
        yield RawPeer(theirs)


async def ask(agent: RawPeer, request_id: int, method: str, params: dict[str, Any]) -> Any:
    agent.request(request_id, method, {"sessionId": SESSION, **params})
    return await agent.receive()


@pytest.mark.parametrize(
    "path",
    ["/etc/passwd", "/proc/self/environ", "{root}/../outside.txt", "{root}/link-out", "notes.txt"],
)
async def test_reads_outside_the_roots_are_refused_naming_the_roots(root: Path, path: str) -> None:
    (root.parent / "outside.txt").write_text("secret")
    (root / "link-out").symlink_to(root.parent / "outside.txt")
    async with client_serving(FileService([root])) as agent:
        answer = await ask(agent, 1, "fs/read_text_file", {"path": path.format(root=root)})
    error = answer["error"]
    assert error["code"] == -32602
    assert str(root) in error["message"]
    assert error["data"]["roots"] == [str(root)]
    assert "secret" not in str(answer)


async def test_a_file_under_the_root_is_served_with_line_and_limit(root: Path) -> None:
    async with client_serving(FileService([root])) as agent:
        path = str(root / "notes.txt")
        whole = await ask(agent, 1, "fs/read_text_file", {"path": path})
        part = await ask(agent, 2, "fs/read_text_file", {"path": path, "line": 2, "limit": 1})
        missing = await ask(agent, 3, "fs/read_text_file", {"path": str(root / "nope")})
    assert whole["result"] == {"content": "one\ntwo\nthree\n"}
    assert part["result"] == {"content": "two\n"}
    assert missing["error"]["code"] == -32002
    # The code's title in the schema first: agents tell "not found" by these words (gemini-cli).
    assert missing["error"]["message"].startswith("Resource not found: no such file: ")


async def test_a_device_behind_a_symlink_is_refused(root: Path) -> None:
    """`/dev/zero` would grow until MemoryError: a symlink to it resolves outside the roots, and a
    root that contains it still serves no device."""
    (root / "zero").symlink_to("/dev/zero")
    service = FileService([root])
    with pytest.raises(FileAccessError, match="outside the allowed roots"):
        await service.read_text_file(str(root / "zero"))
    with pytest.raises(FileAccessError, match="not a regular file"):
        await FileService(["/dev"]).read_text_file("/dev/zero")


async def test_a_fifo_is_refused_and_never_blocks_a_concurrent_request(root: Path) -> None:
    fifo = root / "pipe"
    os.mkfifo(fifo)
    async with client_serving(FileService([root])) as agent:
        started = time.perf_counter()
        agent.request(1, "fs/read_text_file", {"sessionId": SESSION, "path": str(fifo)})
        agent.request(
            2, "fs/read_text_file", {"sessionId": SESSION, "path": str(root / "notes.txt")}
        )
        answers = {a["id"]: a for a in [await agent.receive(), await agent.receive()]}
    assert time.perf_counter() - started < 2
    assert "not a regular file" in answers[1]["error"]["message"]
    assert answers[2]["result"]["content"].startswith("one")


async def test_line_and_limit_stay_bounded_in_memory(root: Path) -> None:
    """One line of a 40 MB file costs that line, not the file; a reply over `max_bytes` is
    refused before it is built."""
    big = root / "big.log"
    with big.open("w") as file:
        for number in range(400_000):
            file.write(f"line {number:09d} " + "x" * 84 + "\n")
    huge_line = root / "one-line.log"
    huge_line.write_bytes(b"y" * (30 * 1024 * 1024))
    service = FileService([root], max_bytes=1024 * 1024)
    tracemalloc.start()
    try:
        text = await service.read_text_file(str(big), line=200_000, limit=1)
        with pytest.raises(FileAccessError, match="exceed"):
            await service.read_text_file(str(huge_line), line=1, limit=1)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert text.startswith("line 000199999 ")
    assert peak < 4 * 1024 * 1024


async def test_writes_are_atomic_and_follow_the_same_rules(root: Path) -> None:
    (root / "link-out").symlink_to(root.parent / "outside.txt")
    async with client_serving(FileService([root])) as agent:
        path = str(root / "notes.txt")
        written = await ask(agent, 1, "fs/write_text_file", {"path": path, "content": "new\n"})
        escaped = await ask(
            agent, 2, "fs/write_text_file", {"path": str(root / "link-out"), "content": "x"}
        )
    assert written["result"] == {}
    assert (root / "notes.txt").read_text() == "new\n"
    assert escaped["error"]["code"] == -32602
    assert not (root.parent / "outside.txt").exists()
    assert sorted(p.name for p in root.iterdir()) == ["link-out", "notes.txt"]


async def test_reading_happens_off_the_event_loop(root: Path) -> None:
    """The loop keeps turning while a large read runs in the worker thread."""
    big = root / "big.txt"
    big.write_text(("z" * 99 + "\n") * 90_000)
    ticks = 0
    done = asyncio.Event()

    async def tick() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            await asyncio.sleep(0)

    ticker = asyncio.create_task(tick())
    await FileService([root]).read_text_file(str(big))
    done.set()
    await ticker
    assert ticks > 1


async def test_without_a_file_service_the_client_answers_method_not_found() -> None:
    ours, theirs = memory_pair()
    async with connect_client(Client(), ours):
        agent = RawPeer(theirs)
        answer = await ask(agent, 1, "fs/read_text_file", {"path": "/etc/passwd"})
    assert answer["error"]["code"] == -32601
