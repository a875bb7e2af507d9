"""Recording this process's connections when `ACP_TRACE=FILE` is set (not W3C trace context:
that is `trace_context`).

Layer: dispatcher. The connection hands this every frame it reads, before routing it, and every
frame it writes, after the transport took it; nothing here knows an ACP method. The recording is
`acp_protocol.trace`'s format (`trace.frames`): a header, then one line per frame with its time,
direction and JSON value (its text as `raw` when it is not JSON).

Directions are the recorder's: `sent` is toward the agent, `received` what the agent wrote. Which
side this process is comes from the first frame: "Clients MUST initialize the connection" (ACP
`initialization.mdx`), so the side that writes first is the client (its writes are `sent`) and
the side that reads first the agent (its writes are `received`); the header names it (`side`).

Files: `{pid}` and `{n}` in FILE become the process id and the connection's number in this
process (1, 2, …); without `{n}`, the second connection of the process writes `FILE` with `.2`
before its extension, and so on. A FILE that cannot be opened is one warning line on stderr and
the connection goes on unrecorded.

The wire never waits for the file: frames are collected in memory and written once per
event-loop turn (and when the connection closes).
"""

from __future__ import annotations

import asyncio
import datetime
import itertools
import os
import sys
import time
from typing import Any

from ..trace.frames import FORMAT_VERSION, frame_object, raw_text
from .json_codec import encode

ENVIRONMENT = "ACP_TRACE"
"""The variable naming the recording (`{pid}`, `{n}` substituted)."""

_numbers = itertools.count(1)


def trace_path(template: str, number: int, pid: int) -> str:
    """The file of this process's connection `number` (1-based) under `template`."""
    path = template.replace("{pid}", str(pid)).replace("{n}", str(number))
    if number > 1 and "{n}" not in template:
        root, extension = os.path.splitext(path)
        path = f"{root}.{number}{extension}"
    return path


def open_trace(environ: Any = os.environ) -> WireTrace | None:
    """The recording of a new connection when ACP_TRACE is set; None (after one warning line on
    stderr when the file cannot be opened) otherwise."""
    template = environ.get(ENVIRONMENT)
    if not template:
        return None
    path = trace_path(template, next(_numbers), os.getpid())
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    except OSError as error:
        sys.stderr.write(
            f"acp: {ENVIRONMENT}: cannot write {path}: {error.strerror or error}; "
            "the connection goes on unrecorded\n"
        )
        return None
    return WireTrace(fd)


class WireTrace:
    """One connection's recording: `incoming` and `outgoing` lines, flushed each loop turn."""

    __slots__ = ("_fd", "_header", "_pending", "_scheduled", "_side", "_started")

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._started = time.monotonic()
        now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")
        self._header: dict[str, Any] = {
            "acpTrace": FORMAT_VERSION,
            "program": list(getattr(sys, "orig_argv", sys.argv)),
            "started": now,
            "pid": os.getpid(),
        }
        self._side: str | None = None
        self._pending: list[bytes] = []
        self._scheduled = False

    def outgoing(self, line: bytes) -> None:
        """A frame this side wrote (our own JSON, without its newline)."""
        if self._side is None:
            self._begin("client")
        self._add(line, "sent" if self._side == "client" else "received", True)

    def incoming(self, line: bytes, is_json: bool) -> None:
        """A frame this side read (`is_json`: it decoded as one JSON value)."""
        if self._side is None:
            self._begin("agent")
        line = line.removesuffix(b"\r")
        self._add(line, "received" if self._side == "client" else "sent", is_json)

    def dropped(self, head: bytes, size: int) -> None:
        """A frame read over the size limit: its first bytes as `raw`, and its `size`."""
        if self._side is None:
            self._begin("agent")
        record = frame_object(
            self._elapsed(), "received" if self._side == "client" else "sent", b""
        )
        record["raw"], record["size"] = raw_text(head), size
        self._queue(encode(record))

    def close(self) -> None:
        """Write what is collected (the header at least) and close the file; idempotent."""
        if self._fd < 0:
            return
        if self._side is None:
            self._begin(None)
        self._flush()
        os.close(self._fd)
        self._fd = -1

    def _begin(self, side: str | None) -> None:
        self._side = side
        self._header["side"] = side
        self._queue(encode(self._header))

    def _elapsed(self) -> float:
        return time.monotonic() - self._started

    def _add(self, line: bytes, direction: str, is_json: bool) -> None:
        t = self._elapsed()
        if is_json and b"\r" not in line:
            # The frame's own JSON, as it was on the wire (a line holds no newline; a carriage
            # return between tokens would end a line for readers that take it as one).
            self._queue(b'{"t":%.4f,"dir":"%s","json":%s}' % (t, direction.encode(), line))
        else:
            self._queue(encode(frame_object(t, direction, line)))

    def _queue(self, record: bytes) -> None:
        if self._fd < 0:
            return
        self._pending.append(record)
        if not self._scheduled:
            try:
                asyncio.get_running_loop().call_soon(self._flush)
                self._scheduled = True
            except RuntimeError:  # no loop (closing): written at once
                self._flush()

    def _flush(self) -> None:
        self._scheduled = False
        if not self._pending or self._fd < 0:
            return
        data = b"\n".join(self._pending) + b"\n"
        self._pending = []
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view) :]
        except OSError as error:
            sys.stderr.write(
                f"acp: {ENVIRONMENT}: writing the recording failed: {error.strerror or error}; "
                "the connection goes on unrecorded\n"
            )
            os.close(self._fd)
            self._fd = -1
