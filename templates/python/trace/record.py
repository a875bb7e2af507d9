"""The recorder (layer: process pass-through): what an editor starts instead of its agent.

It starts the agent, passes every byte both ways unchanged and at once (never re-encoded, never
held back for the file: a line is forwarded before it is recorded), passes SIGINT, SIGTERM and
SIGHUP on to the agent, and ends with the agent's exit status. The agent stays in the recorder's
process group, so an editor that ends the group ends both.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import json
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

from .frames import FORMAT_VERSION, frame_object, raw_text

CHUNK = 1 << 16
FORWARDED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Recording:
    """The open recording file: each event one line, flushed as it is written."""

    def __init__(self, out: IO[str], program: Sequence[str]) -> None:
        self.out = out
        self.started = time.monotonic()
        now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")
        self.write({"acpTrace": FORMAT_VERSION, "program": list(program), "started": now})

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def write(self, record: dict[str, Any]) -> None:
        self.out.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
        self.out.flush()

    def frame(self, direction: str, line: bytes) -> None:
        self.write(frame_object(self.elapsed(), direction, line))

    def stderr(self, line: bytes) -> None:
        self.write({"t": round(self.elapsed(), 4), "stderr": raw_text(line)})


class Lines:
    """Splits a byte stream into lines for the recording; a last line without its newline is
    recorded at the end of the stream."""

    def __init__(self, emit: Callable[[bytes], None]) -> None:
        self.emit = emit
        self.pending = b""

    def feed(self, data: bytes) -> None:
        self.pending += data
        *whole, self.pending = self.pending.split(b"\n")
        for line in whole:
            self.emit(line.removesuffix(b"\r"))

    def close(self) -> None:
        if self.pending:
            self.emit(self.pending)
            self.pending = b""


async def pump(source: asyncio.StreamReader, write: Callable[[bytes], Any], lines: Lines) -> None:
    """Copy `source` to `write` chunk by chunk as it comes, then record the chunk's lines."""
    while data := await source.read(CHUNK):
        result = write(data)
        if asyncio.iscoroutine(result):
            await result
        lines.feed(data)
    lines.close()


async def stdin_reader() -> asyncio.StreamReader:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=CHUNK)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    return reader


def write_fd(fd: int) -> Callable[[bytes], None]:
    def write(data: bytes) -> None:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]

    return write


async def record(program: Sequence[str], out: Path) -> int:
    """Run `program` between this process's stdio and the agent's, recording into `out`;
    returns the agent's exit status (128 + N when signal N ended it)."""
    with out.open("w", encoding="utf-8") as file:
        recording = Recording(file, program)
        agent = await asyncio.create_subprocess_exec(
            *program,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            limit=CHUNK,
        )
        loop = asyncio.get_running_loop()
        for number in FORWARDED_SIGNALS:
            loop.add_signal_handler(number, forward, agent, number)
        assert agent.stdin is not None and agent.stdout is not None and agent.stderr is not None
        to_agent = agent.stdin

        async def to_agent_write(data: bytes) -> None:
            to_agent.write(data)
            await to_agent.drain()

        async def editor_side() -> None:
            reader = await stdin_reader()
            try:
                await pump(
                    reader, to_agent_write, Lines(lambda line: recording.frame("sent", line))
                )
            except (BrokenPipeError, ConnectionResetError):
                pass  # the agent is gone: its exit status tells the editor
            finally:
                to_agent.close()

        editor = asyncio.create_task(editor_side())
        await asyncio.gather(
            pump(
                agent.stdout,
                write_fd(sys.stdout.fileno()),
                Lines(lambda line: recording.frame("received", line)),
            ),
            pump(agent.stderr, write_fd(sys.stderr.fileno()), Lines(recording.stderr)),
        )
        status = await agent.wait()
        editor.cancel()
        recording.write({"t": round(recording.elapsed(), 4), "exit": status})
    return 128 - status if status < 0 else status


def forward(agent: asyncio.subprocess.Process, number: int) -> None:
    """A signal for the recorder is meant for the agent."""
    if agent.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            agent.send_signal(number)
