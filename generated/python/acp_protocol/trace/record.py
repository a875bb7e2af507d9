# Copied by acp-codegen from templates/python/trace/record.py. Do not edit here:
# edit the source, then run `make generate`.

"""The recorder (layer: process pass-through): what an editor starts instead of its agent.

It starts the agent, passes every byte both ways unchanged and at once (never re-encoded, never
held back for the file), passes SIGINT, SIGTERM and SIGHUP on to the agent, and ends with the
agent's exit status. The agent stays in the recorder's process group, so an editor that ends the
group ends both.

One relay per stream (the editor's stdin to the agent's, in the main thread so that a signal is
passed on before anything read after it; the agent's stdout and stderr to ours, a thread each)
reads a chunk, hands it with its time to the writer thread through a queue, and writes it on at
once, in blocking system calls that let the other threads run: the relay never waits for the
file, nor for the splitting into lines, nor for the JSON check. Handed over before it is
written on, a chunk is in the queue before the other side can answer it, so the recording keeps
cause before effect (a request before its answer) whichever thread runs first. The writer
records what a few milliseconds brought in one write, each JSON line as it came (the
recording's `json` is the line itself, not parsed and encoded again). The ends go through the
same queue, so they are written in order with the frames: the editor's end of its input (read
before the agent's stdin is closed, so before anything the agent writes after it), the agent's
end of its output, and its exit (`frames`: format 2). The recorder's cost is
measured by `make bench` (`ours-uvloop-recorded`). A recording file that fails mid-way ends
the recording with one line on stderr, never the conversation (`Recording`).
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import queue
import select
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

from ..runtime.json_codec import decode
from .frames import FORMAT_VERSION, frame_object, raw_text

CHUNK = 1 << 16
FORWARDED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
GATHER = 0.005
"""Seconds the writer lets chunks gather after the first one wakes it: one wake-up and one write
for a burst, not one per chunk (the chunks were forwarded already)."""
SWITCH_INTERVAL = 0.0002
"""A relay thread back from a system call waits at most this long for the writer to let it run
(Python's default, 5 ms, would hold a frame back that long behind the writer's work)."""


class Recording:
    """The open recording file (binary, unbuffered: each write is on disk's way at once).

    A file that cannot take the header fails the start (`OSError`: one line, status 2, no agent
    started). One that fails later (a full disk, a reader gone) ends the recording, never the
    conversation: one line on stderr, and every later write is dropped (`broken`)."""

    def __init__(self, out: IO[bytes], program: Sequence[str]) -> None:
        self.out = out
        self.broken = False
        self.started = time.monotonic()
        now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")
        self._write({"acpTrace": FORMAT_VERSION, "program": list(program), "started": now})

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def write(self, record: dict[str, Any]) -> None:
        self.write_bytes(_record_bytes(record))

    def _write(self, record: dict[str, Any]) -> None:
        self._write_all(_record_bytes(record))

    def write_bytes(self, data: bytes) -> None:
        """`data` (whole records) in the file, all of it; nothing once the file failed."""
        if self.broken:
            return
        try:
            self._write_all(data)
        except OSError as error:
            self.broken = True
            name = getattr(self.out, "name", "the recording")
            line = f"trace record: {name}: {error.strerror or error}; the rest is not recorded\n"
            # One write of one short line: never split by the agent's stderr passing through.
            with contextlib.suppress(OSError):
                os.write(sys.stderr.fileno(), line.encode(errors="replace"))

    def _write_all(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            written = self.out.write(view)
            view = view[written or 0 :]

    def frame(self, direction: str, line: bytes) -> None:
        self.frames(direction, [line])

    def frames(self, direction: str, lines: list[bytes]) -> None:
        """The lines of one chunk, each a frame, in one write."""
        self.write_bytes(encode_frames(self.elapsed(), direction, lines))

    def stderr(self, lines: list[bytes]) -> None:
        self.write_bytes(encode_stderr(self.elapsed(), lines))

    def exit(self, status: int) -> None:
        self.write_bytes(encode_exit(self.elapsed(), status))


def encode_exit(t: float, status: int) -> bytes:
    """The agent's exit: its status (negative: the signal that ended it, named)."""
    record: dict[str, Any] = {"t": round(t, 4), "exit": status}
    if status < 0:
        with contextlib.suppress(ValueError):
            record["signal"] = signal.Signals(-status).name
    return _record_bytes(record)


def encode_eof(t: float, direction: str) -> bytes:
    """A side's end: `sent`, the editor closed the agent's input; `received`, the agent ended
    its output."""
    return _record_bytes({"t": round(t, 4), "eof": direction})


def _record_bytes(record: dict[str, Any]) -> bytes:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def encode_frames(t: float, direction: str, lines: list[bytes], ended: bool = True) -> bytes:
    """The records of `lines` (each without its newline), each a frame read `t` seconds into
    the recording; `ended` False: the stream's last line, which had no newline."""
    head = b'{"t":%.4f,"dir":"%s",' % (t, direction.encode())
    if ended:  # the common case first: a line with its newline alone
        # Every line one JSON value with no carriage return (what a conversation is made of):
        # the records in one join, each line checked in one pass of the decoder.
        body = (b"}\n" + head + b'"json":').join(lines)
        if b"\r" not in body:
            try:
                deque(map(decode, lines), maxlen=0)
            except ValueError:
                pass
            else:
                return head + b'"json":' + body + b"}\n"
        return b"".join(
            [
                head + (_frame(line, ended) if line[-1:] == b"\r" else _body(line)) + b"}\n"
                for line in lines
            ]
        )
    return b"".join([head + _frame(line, ended) + b"}\n" for line in lines])


def _frame(line: bytes, ended: bool) -> bytes:
    """What ended a line, when it was not a newline alone, is its `end` (before its `json` or
    `raw`, so that a `json` is always the record's last member): `"\\r\\n"`, or `""` for a
    last line with no newline."""
    if not ended:
        return b'"end":"",' + _body(line)
    if line.endswith(b"\r"):
        return b'"end":"\\r\\n",' + _body(line[:-1])
    return _body(line)


def encode_stderr(t: float, lines: list[bytes]) -> bytes:
    t = round(t, 4)
    return b"".join(
        json.dumps(
            {"t": t, "stderr": raw_text(line.removesuffix(b"\r"))}, ensure_ascii=False
        ).encode()
        + b"\n"
        for line in lines
    )


def _body(line: bytes) -> bytes:
    """`"json":LINE` for a line that is one JSON value (as it came), else `"raw":TEXT`. A JSON
    line with a carriage return between its tokens (which would end a line for readers that
    take it as one) is encoded again, the line as it came its `line`."""
    if b"\r" not in line:
        try:
            decode(line)
            return b'"json":' + line
        except ValueError:
            pass
    record = frame_object(0, "", line)
    if "json" in record:  # encoded again: the line as it came is its `line`, for a replay
        exact = json.dumps(raw_text(line), ensure_ascii=False).encode()
        again = json.dumps(record["json"], ensure_ascii=False).encode()
        return b'"line":' + exact + b',"json":' + again
    return b'"raw":' + json.dumps(record["raw"], ensure_ascii=False).encode()


class Lines:
    """Splits a byte stream into lines for the recording (each without its newline, a carriage
    return before it kept), the lines of each chunk together; a last line without its newline
    is handed to `last` at the end of the stream (to `emit` when there is no `last`)."""

    def __init__(
        self,
        emit: Callable[[list[bytes]], None],
        last: Callable[[bytes], None] | None = None,
    ) -> None:
        self.emit = emit
        self.last = last
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
        self.emit(whole)

    def close(self) -> None:
        if self.pending:
            line = b"".join(self.pending)
            self.last(line) if self.last is not None else self.emit([line])
            self.pending = []


Chunk = tuple[float, str, bytes]
"""(monotonic time, stream, bytes) from a relay thread to the writer; b"" ends the stream.
Two events: ("eof", b""), the editor closed the agent's input; ("exit", STATUS), the agent's
exit."""


def relay(
    source: int,
    target: int,
    stream: str,
    chunks: queue.SimpleQueue[Chunk | None],
    stop: int | None = None,
) -> bool:
    """Copy `source` to `target` chunk by chunk as it comes, each chunk handed to the writer
    first (a queue: nothing waits), so that what answers it is recorded after it. Once `target`
    is gone (the agent exited, the editor closed our stdout) the chunks are still read and
    recorded, no longer forwarded. With `stop` (a pipe's reading end): it also ends once `stop`
    can be read. Whether `source` ended (False: `stop` ended the relay)."""
    read, write, put, clock = os.read, os.write, chunks.put, time.monotonic
    ready = _ready(source, stop)
    forwarding = True
    ended = True
    try:
        while (ended := ready()) and (data := read(source, CHUNK)):
            put((clock(), stream, data))
            if forwarding:
                try:
                    written = write(target, data)
                    if written < len(data):
                        view = memoryview(data)[written:]
                        while view:
                            view = view[write(target, view) :]
                except OSError:
                    forwarding = False
    except OSError:
        ended = True  # the source is gone: its end
    put((clock(), stream, b""))
    return ended


def _ready(source: int, stop: int | None) -> Callable[[], bool]:
    """Waits until `source` can be read (True) or `stop` can (False)."""
    if stop is None:
        return lambda: True
    poller = select.poll()
    poller.register(source, select.POLLIN)
    poller.register(stop, select.POLLIN)
    return lambda: any(fd == source for fd, _ in poller.poll())


def writer(recording: Recording, chunks: queue.SimpleQueue[Chunk | None]) -> None:
    """Record the chunks as they come, each stream split into lines, until the None."""
    started, batch, batch_time = recording.started, list[bytes](), [0.0]

    def emitter(stream: str) -> Lines:
        if stream == "stderr":
            return Lines(lambda lines: batch.append(encode_stderr(batch_time[0], lines)))
        return Lines(
            lambda lines: batch.append(encode_frames(batch_time[0], stream, lines)),
            lambda line: batch.append(encode_frames(batch_time[0], stream, [line], False)),
        )

    streams = {stream: emitter(stream) for stream in ("sent", "received", "stderr")}
    while True:
        item = chunks.get()
        time.sleep(GATHER)
        while item is not None:
            t, stream, data = item
            batch_time[0] = t - started
            if stream == "eof":
                batch.append(encode_eof(batch_time[0], "sent"))
            elif stream == "exit":
                batch.append(encode_exit(batch_time[0], int(data)))
            elif data:
                streams[stream].feed(data)
            else:
                streams[stream].close()
                if stream == "received":
                    batch.append(encode_eof(batch_time[0], "received"))
            try:
                item = chunks.get_nowait()
            except queue.Empty:
                break
        recording.write_bytes(b"".join(batch))
        batch.clear()
        if item is None:
            return


def record(program: Sequence[str], out: Path) -> int:
    """Run `program` between this process's stdio and the agent's, recording into `out`;
    returns the agent's exit status (128 + N when signal N ended it)."""
    with out.open("wb", buffering=0) as file:
        recording = Recording(file, program)
        try:
            agent = subprocess.Popen(
                list(program),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
            )
        except OSError as error:
            raise OSError(error.errno, error.strerror, error.filename or program[0]) from None
        for number in FORWARDED_SIGNALS:
            signal.signal(number, lambda number, _: forward(agent, number))
        assert agent.stdin is not None and agent.stdout is not None and agent.stderr is not None
        sys.setswitchinterval(SWITCH_INTERVAL)
        chunks: queue.SimpleQueue[Chunk | None] = queue.SimpleQueue()
        threads = [
            threading.Thread(target=relay, args=(fd, to, stream, chunks), daemon=True)
            for fd, to, stream in (
                (agent.stdout.fileno(), sys.stdout.fileno(), "received"),
                (agent.stderr.fileno(), sys.stderr.fileno(), "stderr"),
            )
        ]
        stop, agent_gone = os.pipe()

        def agent_side() -> None:
            for thread in threads:
                thread.join()
            status = agent.wait()
            chunks.put((time.monotonic(), "exit", b"%d" % status))  # after its output's end
            os.write(agent_gone, b"\0")  # the editor's side stops reading

        watcher = threading.Thread(target=agent_side, daemon=True)
        recorder = threading.Thread(target=writer, args=(recording, chunks), daemon=True)
        for thread in [*threads, watcher, recorder]:
            thread.start()
        # The editor's side in the main thread, where a signal interrupts the wait and is passed
        # on before anything read after it (an editor that sends SIGTERM then closes our stdin).
        if relay(sys.stdin.fileno(), agent.stdin.fileno(), "sent", chunks, stop):
            chunks.put((time.monotonic(), "eof", b""))  # before the agent can see it
        agent.stdin.close()  # the editor's end is the agent's
        watcher.join()
        status = agent.wait()
        chunks.put(None)
        recorder.join()
    return 128 - status if status < 0 else status


def forward(agent: subprocess.Popen[bytes], number: int) -> None:
    """A signal for the recorder is meant for the agent."""
    if agent.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            agent.send_signal(number)
