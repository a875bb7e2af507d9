# Copied by acp-codegen from templates/python/conformance/client_wire.py. Do not edit here:
# edit the source, then run `make generate`.

"""The client under test and the wire to it (layer: wire): the client's process, the command line it
is started with, and the socket its relay (`relay.py`) connects to.

The suite starts the client in a fresh folder, in a process group of its own, stdin from /dev/null
(not a terminal) or, with `--stdin TEXT`, from a file holding TEXT as one line (a client that reads
its prompts from standard input, then sees its end), stdout and stderr kept in files. Its command
line names the agent it should start with `{agent}`: an argument that is exactly `{agent}` becomes
the relay's command (several arguments); `{agent}` inside an argument becomes that command quoted
for a shell; a command without `{agent}` gets the relay's command appended. `{prompt}` becomes the
case's prompt text. The relay connects to the suite's socket and names its process first; the
suite's `Peer` then reads and writes the relay's socket as it would an agent's stdio
(`RelayStream`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import signal
import socket
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from .peer import parse

AGENT = "{agent}"
PROMPT = "{prompt}"
HELLO_LIMIT = 1024
"""The longest first line a relay writes (`{"relay": PID}`)."""


def relay_command(address: str) -> list[str]:
    package = __name__.rsplit(".", 1)[0]
    return [sys.executable, "-m", f"{package}.relay", address]


def client_argv(command: Sequence[str], relay: Sequence[str], prompt: str) -> list[str]:
    """`command` with `{agent}` and `{prompt}` filled in (see the module)."""
    argv: list[str] = []
    placed = False
    for argument in command:
        if argument == AGENT:
            argv += relay
            placed = True
            continue
        if AGENT in argument:
            argument = argument.replace(AGENT, shlex.join(relay))
            placed = True
        argv.append(argument.replace(PROMPT, prompt))
    return argv if placed else [*argv, *relay]


class Listener:
    """The socket a relay connects to: a Unix socket in the case's folder, else localhost TCP."""

    def __init__(self, server: asyncio.AbstractServer, address: str) -> None:
        self.server = server
        self.address = address
        self._accepted: asyncio.Queue[tuple[asyncio.StreamReader, asyncio.StreamWriter]]
        self._accepted = asyncio.Queue()

    @classmethod
    async def open(cls, folder: Path) -> Listener:
        holder: list[Listener] = []

        def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            holder[0]._accepted.put_nowait((reader, writer))

        path = folder / "relay.sock"
        if hasattr(socket, "AF_UNIX") and len(str(path)) < 100:
            server = await asyncio.start_unix_server(accepted, str(path), limit=1 << 20)
            address = f"unix:{path}"
        else:
            server = await asyncio.start_server(accepted, "127.0.0.1", 0, limit=1 << 20)
            port = server.sockets[0].getsockname()[1]
            address = f"tcp:127.0.0.1:{port}"
        listener = cls(server, address)
        holder.append(listener)
        return listener

    async def accept(self, client: ClientProcess, timeout: float) -> RelayStream | None:
        """The relay's stream, once it has connected and named its process; None when the
        client exits or `timeout` passes first."""
        waiting = asyncio.ensure_future(self._accepted.get())
        exited = asyncio.ensure_future(client.wait_exit())
        try:
            await asyncio.wait({waiting, exited}, timeout=timeout, return_when="FIRST_COMPLETED")
        finally:
            exited.cancel()
        if not waiting.done():
            waiting.cancel()
            return None
        reader, writer = waiting.result()
        try:
            hello = await asyncio.wait_for(reader.readline(), timeout)
        except (asyncio.TimeoutError, ValueError):
            writer.close()
            return None
        ok, value = parse(hello[:HELLO_LIMIT])
        pid = value.get("relay") if ok and type(value) is dict else None
        if type(pid) is not int:
            writer.close()
            return None
        return RelayStream(reader, writer, pid, client)

    async def close(self) -> None:
        self.server.close()
        with contextlib.suppress(Exception):
            await self.server.wait_closed()


class RelayStream:
    """The relay's socket as the `Stream` a `Peer` reads and writes; `process` is the client's
    (the program under test), `relay_pid` the relay's process."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        relay_pid: int,
        client: ClientProcess,
    ) -> None:
        self._reader = reader
        self._writer = writer
        self.relay_pid = relay_pid
        self.client = client

    @property
    def pid(self) -> int:
        return self.client.pid

    @property
    def process(self) -> subprocess.Popen[bytes]:
        return self.client.process

    async def read(self) -> bytes:
        try:
            chunk = await self._reader.read(1 << 16)
        except ConnectionError:
            chunk = b""
        if not chunk:  # the client closed the agent's stdin: the agent ends, as agents do
            self._writer.close()
        return chunk

    def write(self, data: bytes, *, batch: int = 0) -> None:
        self._writer.write(data)

    async def close_input(self) -> None:
        self._writer.close()
        with contextlib.suppress(Exception):
            await self._writer.wait_closed()


class ClientProcess:
    """One run of the client under test (see the module)."""

    def __init__(self, process: subprocess.Popen[bytes], stdout: IO[bytes], stderr: IO[bytes]):
        self.process = process
        self.stdout = stdout
        self.stderr = stderr
        self._exit: asyncio.Future[int] | None = None

    @classmethod
    def start(cls, argv: Sequence[str], cwd: Path, stdin: str | None = None) -> ClientProcess:
        """OSError when the program cannot be started. `stdin`: the line its standard input
        holds before its end (None: /dev/null)."""
        stdout = (cwd / ".client-stdout").open("w+b")
        stderr = (cwd / ".client-stderr").open("w+b")
        source: IO[bytes] | int = subprocess.DEVNULL
        if stdin is not None:
            feed = cwd / ".client-stdin"
            feed.write_bytes(stdin.rstrip("\n").encode() + b"\n")
            source = feed.open("rb")
        try:
            process = subprocess.Popen(
                list(argv),
                cwd=cwd,
                stdin=source,
                stdout=stdout,
                stderr=stderr,
                start_new_session=True,  # its own process group, as a terminal's foreground job
            )
        except OSError:
            stdout.close()
            stderr.close()
            raise
        finally:
            if not isinstance(source, int):
                source.close()  # the child holds its own copy
        return cls(process, stdout, stderr)

    @property
    def pid(self) -> int:
        return self.process.pid

    async def wait_exit(self) -> int:
        """The client's exit status, once it has exited."""
        if self._exit is None:
            self._exit = asyncio.ensure_future(asyncio.to_thread(self.process.wait))
        return await asyncio.shield(self._exit)

    async def exit_within(self, timeout: float) -> int | None:
        try:
            return await asyncio.wait_for(self.wait_exit(), timeout)
        except asyncio.TimeoutError:
            return None

    def sigint(self) -> None:
        """Ctrl-C, as a terminal sends it: SIGINT to the client's process group."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGINT)

    def output(self) -> str:
        return _text(self.stdout)

    def errors(self) -> str:
        return _text(self.stderr)

    async def end(self) -> None:
        """The case is over: the client's process group killed if it is still there."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
        await self.exit_within(2.0)
        self.stdout.close()
        self.stderr.close()


def _text(file: IO[bytes]) -> str:
    file.flush()
    file.seek(0)
    return file.read().decode("utf-8", "replace")


def alive(pid: int) -> bool:
    """Whether process `pid` still runs (a zombie, exited but not yet reaped, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    stat = Path(f"/proc/{pid}/stat")
    with contextlib.suppress(OSError):
        return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
    return True


async def gone_within(pid: int, timeout: float) -> bool:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while alive(pid):
        if loop.time() >= deadline:
            return False
        await asyncio.sleep(0.05)
    return True


def end_relay(pid: int) -> None:
    """The relay, if the client left it running (after the case's checks)."""
    if alive(pid):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
