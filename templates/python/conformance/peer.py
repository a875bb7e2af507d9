"""A raw-frame peer of the program under test (layer: wire).

The suite does not speak ACP through a `Connection`: it writes exactly the bytes a case names
(valid JSON values, malformed lines, raw bytes) and reads every line the program writes, so that
what the program does with each frame is seen as it is. The program runs under the runtime's
`spawn_process`: in a process group of its own that ends with the case. Every frame both ways is
kept in `transcript` with its time, for the report and the trace.

Requests the program sends (an agent asking for a permission or a file) are answered at once by
`answer_request`, so a turn never waits on the suite.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO, Any, Literal, Protocol

from ..runtime.transports.process import spawn_process
from ..runtime.transports.transport import FrameReader
from ..trace.frames import raw_text

FRAME_LIMIT = 64 * 1024 * 1024
"""The longest line read from the program (a longer one is recorded by its size only)."""
CLOSE_GRACE = 0.3
EXIT_GRACE = 2.0
"""Seconds the program gets, at least, to exit once a case closed its stdin (`close_input`)."""
"""Seconds the program gets to exit once its stdin is closed at the end of a case."""
START_ALLOWANCE = 20.0
"""Seconds a program may take from its start to its first frame: a cold start (an interpreter
importing its SDK, `npx` resolving a package, a loaded machine) is not an answer's latency, so
the first answer's wait runs at least this long from the start."""


class NoAnswer(Exception):
    """The program did not write what a case waits for: one line saying what and for how long."""


class Unsendable(Exception):
    """The stream has no form for what a case asks (an agent behind a URL: the end of its stdin,
    a frame its transport cannot carry): the case is a skip with this line."""


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse(line: bytes) -> tuple[bool, Any]:
    """(True, value) for a line holding one strict JSON value (RFC 8259: no NaN, no Infinity),
    else (False, None). Integers are read exactly, never through a double."""
    try:
        return True, json.loads(line.decode("utf-8"), parse_constant=_no_constants)
    except ValueError:
        return False, None


def encode(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def same_id(a: Any, b: Any) -> bool:
    """Two JSON ids are the same value of the same type (7 is not "7", and True is not 1)."""
    return type(a) is type(b) and a == b


@dataclass(frozen=True, slots=True)
class Frame:
    """One line either way: its time (seconds since the program started), its direction, its
    JSON value (`is_json`), and its text (`raw`; bytes that are not UTF-8 as `hex:…`) when it
    is not JSON or was sent as given bytes (`send_line`), where the exact text matters."""

    t: float
    dir: Literal["sent", "received"]
    is_json: bool
    value: Any
    raw: str | None = None

    def to_json(self) -> dict[str, Any]:
        frame: dict[str, Any] = {"t": round(self.t, 4), "dir": self.dir}
        if self.raw is None:
            frame["json"] = self.value
        else:
            frame["raw"] = self.raw
        return frame

    @property
    def message(self) -> dict[str, Any] | None:
        """The frame as a JSON object (a message), or None."""
        return self.value if self.is_json and type(self.value) is dict else None


RequestAnswerer = Callable[[str, Any], dict[str, Any]]
"""(method, params) → the response's `result` or `error` member, for requests the program sends."""


def answer_request(method: str, params: Any) -> dict[str, Any]:
    """The suite plays a client that serves nothing: a permission request is answered
    `cancelled`, any other request -32601."""
    if method == "session/request_permission":
        return {"result": {"outcome": {"outcome": "cancelled"}}}
    return {"error": {"code": -32601, "message": "Method not found: the conformance client"}}


class Process(Protocol):
    pid: int

    def poll(self) -> int | None: ...


class Stream(Protocol):
    """What a peer speaks over: the program's stdin/stdout (`ProcessTransport`), or the socket of
    the relay a client under test started (`client_wire.RelayStream`)."""

    @property
    def pid(self) -> int: ...

    @property
    def process(self) -> Process: ...

    async def read(self) -> bytes: ...

    def write(self, data: bytes, *, batch: int = 0) -> None: ...

    async def close_input(self) -> None: ...


class Peer:
    """The program under test, spoken to frame by frame (see the module)."""

    def __init__(self, transport: Stream, answerer: RequestAnswerer | None) -> None:
        self._transport = transport
        self._answerer = answerer
        self._loop = asyncio.get_running_loop()
        self._started = self._loop.time()
        self.transcript: list[Frame] = []
        self.received: list[Frame] = []
        self._changed = asyncio.Event()
        self.ended = False
        self._input_closed = False
        self._closing: asyncio.Task[None] | None = None
        self._reader = asyncio.create_task(self._read())

    def hold_requests(self) -> None:
        """Stop answering the program's requests as they arrive (the answerer given at the
        start): the case answers them itself, or leaves them pending."""
        self._answerer = None

    @classmethod
    async def spawn(
        cls,
        command: Sequence[str],
        *,
        stderr: int | IO[Any] | None = None,
        answerer: RequestAnswerer | None = answer_request,
        exit_timeout: float = EXIT_GRACE,
    ) -> Peer:
        """Start `command` (OSError when it cannot be started). Once a case closes its input
        (`close_input`), the program gets `exit_timeout` seconds to answer what it read and
        exit before its process group is ended (the runner gives it the suite's timeout)."""
        transport = await spawn_process(
            command[0], *command[1:], stderr=stderr, exit_timeout=exit_timeout, kill_timeout=0.5
        )
        return cls(transport, answerer)

    @property
    def pid(self) -> int:
        return self._transport.pid

    def now(self) -> float:
        return self._loop.time() - self._started

    # -- writing ---------------------------------------------------------------------------

    def send(self, value: Any) -> None:
        """Write one JSON value as a line."""
        self._write(encode(value), Frame(self.now(), "sent", True, value))

    def send_line(self, line: bytes) -> None:
        """Write `line` as it is, then a newline (for frames that are not JSON, or whose exact
        bytes matter)."""
        ok, value = parse(line)
        self._write(line, Frame(self.now(), "sent", ok, value, raw_text(line)))

    def request(self, request_id: Any, method: str, params: Any = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def notify(self, method: str, params: Any = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def _write(self, data: bytes, frame: Frame) -> None:
        if self._input_closed:
            raise NoAnswer("the suite wrote after closing the program's input")
        self.transcript.append(frame)
        try:
            self._transport.write(data + b"\n")
        except Unsendable:
            self.transcript.pop()
            raise
        except Exception as error:  # the program is gone: the wait that follows says so
            self.transcript.append(
                Frame(self.now(), "sent", False, None, f"(not written: {error})")
            )

    # -- reading ---------------------------------------------------------------------------

    async def _read(self) -> None:
        lines = FrameReader(self._transport.read, FRAME_LIMIT)
        try:
            while (batch := await lines.next_lines()) is not None:
                for line in batch:
                    if isinstance(line, bytes):
                        self._received(line)
                    else:
                        raw = f"(a line of {line.size} bytes, over the suite's limit)"
                        self._add(Frame(self.now(), "received", False, None, raw))
        except Exception as error:  # a broken pipe ends the stream like EOF
            self._add(Frame(self.now(), "received", False, None, f"(read failed: {error})"))
        finally:
            self.ended = True
            self._changed.set()

    def _received(self, line: bytes) -> None:
        if not line.strip(b" \t\r"):
            return
        ok, value = parse(line)
        frame = Frame(self.now(), "received", ok, value, None if ok else raw_text(line))
        self._add(frame)
        message = frame.message
        if message is not None and self._answerer is not None and not self._input_closed:
            method, has_id = message.get("method"), "id" in message
            if type(method) is str and has_id:
                outcome = self._answerer(method, message.get("params"))
                self.send({"jsonrpc": "2.0", "id": message["id"], **outcome})

    def _add(self, frame: Frame) -> None:
        self.transcript.append(frame)
        self.received.append(frame)
        self._changed.set()

    async def wait_for(
        self, matches: Callable[[Frame], bool], timeout: float, what: str, *, start: int = 0
    ) -> Frame:
        """The first received frame from index `start` on that `matches`; NoAnswer naming
        `what` when none comes within `timeout` seconds or the program's output ends."""
        deadline = self._loop.time() + timeout
        if not self.received:  # the program's first frame: its start is not a latency
            deadline = max(deadline, self._started + START_ALLOWANCE)
        seen = start
        while True:
            while seen < len(self.received):
                frame = self.received[seen]
                seen += 1
                if matches(frame):
                    return frame
            if self.ended:
                raise NoAnswer(f"the program ended its output before {what}{self._exit_note()}")
            left = deadline - self._loop.time()
            if left <= 0 and not self.received:
                raise NoAnswer(f"no {what} within {START_ALLOWANCE:g} s of the program's start")
            if left <= 0:
                raise NoAnswer(f"no {what} within {timeout:g} s")
            self._changed.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._changed.wait(), left)

    async def answer(self, request_id: Any, timeout: float, what: str) -> dict[str, Any]:
        """The response to our request `request_id` (a `result` or an `error`)."""
        frame = await self.wait_for(
            lambda f: is_response(f, request_id), timeout, f"answer to {what}"
        )
        assert frame.message is not None
        return frame.message

    async def quiet(self, seconds: float) -> list[Frame]:
        """The frames received during the next `seconds`."""
        start = len(self.received)
        await asyncio.sleep(seconds)
        return self.received[start:]

    def exit_status(self) -> int | None:
        """The program's exit status once it has ended (negative: the signal that ended it);
        None while it runs, or for an agent behind a URL."""
        process = getattr(self._transport, "process", None)
        return None if process is None else process.poll()

    def _exit_note(self) -> str:
        code = self._transport.process.poll()
        return "" if code is None else f" (it exited with status {code})"

    # -- ending ----------------------------------------------------------------------------

    def close_input(self) -> None:
        """Close the program's stdin (EOF) and go on reading what it still writes; its process
        group is ended if it has not exited 2 s later. `Unsendable` over a stream with no
        half-close (`program = False`: an agent behind a URL)."""
        if not getattr(self._transport, "program", True):
            raise Unsendable("needs a program the suite starts (not --url)")
        self._end_input()

    def _end_input(self) -> None:
        if self._closing is None:
            self._input_closed = True
            self._closing = asyncio.create_task(self._transport.close_input())

    async def close(self) -> None:
        """End the case: stdin closed, `CLOSE_GRACE` seconds to exit, then the whole process
        group killed."""
        self._end_input()
        assert self._closing is not None
        done, _ = await asyncio.wait({self._closing}, timeout=CLOSE_GRACE)
        if not done:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._transport.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            await self._closing
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._reader, 1.0)


def is_response(frame: Frame, request_id: Any) -> bool:
    message = frame.message
    return (
        message is not None
        and "method" not in message
        and ("result" in message or "error" in message)
        and "id" in message
        and same_id(message["id"], request_id)
    )


def is_notification(frame: Frame, method: str) -> bool:
    message = frame.message
    return message is not None and message.get("method") == method and "id" not in message
