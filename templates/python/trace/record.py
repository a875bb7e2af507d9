"""The recorder (layer: process pass-through): what an editor starts instead of its agent.

It starts the agent, passes every byte both ways unchanged and at once (never re-encoded, never
held back for the file: a line is forwarded before it is recorded), passes SIGINT, SIGTERM and
SIGHUP on to the agent, and ends with the agent's exit status. The agent stays in the recorder's
process group, so an editor that ends the group ends both.

What a chunk brings is recorded in one write of its lines (an unbuffered file: nothing waits in
a buffer), each JSON line as it came (the recording's `json` is the line itself, not parsed and
encoded again), on uvloop when it is installed: the recorder's cost is measured by `make bench`
(`ours-uvloop-recorded`).
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

from ..runtime.json_codec import decode
from .frames import FORMAT_VERSION, frame_object, raw_text

CHUNK = 1 << 16
FORWARDED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Recording:
    """The open recording file (binary, unbuffered: each write is on disk's way at once)."""

    def __init__(self, out: IO[bytes], program: Sequence[str]) -> None:
        self.out = out
        self.started = time.monotonic()
        now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")
        self.write({"acpTrace": FORMAT_VERSION, "program": list(program), "started": now})

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def write(self, record: dict[str, Any]) -> None:
        self._write(json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode() + b"\n")

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            written = self.out.write(view)
            view = view[written or 0 :]

    def frame(self, direction: str, line: bytes) -> None:
        self.frames(direction, [line])

    def frames(self, direction: str, lines: list[bytes]) -> None:
        """The lines of one chunk, each a frame, in one write."""
        head = b'{"t":%.4f,"dir":"%s",' % (self.elapsed(), direction.encode())
        self._write(b"".join([head + _body(line) + b"}\n" for line in lines]))

    def stderr(self, lines: list[bytes]) -> None:
        t = round(self.elapsed(), 4)
        for line in lines:
            self.write({"t": t, "stderr": raw_text(line)})


def _body(line: bytes) -> bytes:
    """`"json":LINE` for a line that is one JSON value (as it came; a carriage return between
    its tokens would end a line for readers that take it as one), else `"raw":TEXT`."""
    if b"\r" not in line:
        try:
            decode(line)
            return b'"json":' + line
        except ValueError:
            pass
    record = frame_object(0, "", line)
    if "json" in record:
        return b'"json":' + json.dumps(record["json"], ensure_ascii=False).encode()
    return b'"raw":' + json.dumps(record["raw"], ensure_ascii=False).encode()


class Lines:
    """Splits a byte stream into lines for the recording, the lines of each chunk together; a
    last line without its newline is recorded at the end of the stream."""

    def __init__(self, emit: Callable[[list[bytes]], None]) -> None:
        self.emit = emit
        self.pending: list[bytes] = []

    def feed(self, data: bytes) -> None:
        if b"\n" not in data:
            if data:
                self.pending.append(data)  # the middle of a long line: joined once, at its end
            return
        *whole, tail = data.split(b"\n")
        if self.pending:
            whole[0] = b"".join([*self.pending, whole[0]])
        self.pending = [tail] if tail else []
        self.emit([line.removesuffix(b"\r") for line in whole])

    def close(self) -> None:
        if self.pending:
            self.emit([b"".join(self.pending)])
            self.pending = []


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
    with out.open("wb", buffering=0) as file:
        recording = Recording(file, program)
        try:
            agent = await asyncio.create_subprocess_exec(
                *program,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                limit=CHUNK,
            )
        except OSError as error:  # uvloop's names no file: the program is the one
            raise OSError(error.errno, error.strerror, error.filename or program[0]) from None
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
                    reader, to_agent_write, Lines(lambda lines: recording.frames("sent", lines))
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
                Lines(lambda lines: recording.frames("received", lines)),
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
