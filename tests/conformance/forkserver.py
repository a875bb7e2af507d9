"""Test support: a fork server for the broken fixture agents (tests/conformance/broken).

A fixture agent's start is mostly Python importing the runtime and the generated models (about
0.3 s of CPU), and the suite starts one for most of its cases: about 100 a run, over 40 runs in
test_broken_agents.py. The server imports them once; `forked_agent(name)` is the command line of a
launcher (tests/conformance/launch.py, the standard library only) that hands its stdin, stdout,
stderr, working folder and environment to the server, which forks a child running the fixture on
them. The launcher ends as the child does (exit status or signal), and the child is killed when
the launcher ends first (the suite ending its process group). So the suite still sees one program
per case that reads its stdin, writes its stdout, exits at EOF or is killed, as with
`python -m tests.conformance.broken.NAME`, at a fraction of the start-up.

The server is started by the first `forked_agent` call of a test session and ends with it (or
when the process that started it is gone).
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import importlib
import json
import os
import runpy
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import traceback
from pathlib import Path
from typing import Any

from tests.paths import ROOT

PRELOAD = (
    "tests.conformance.broken.base",
    "tests.conformance.broken.base_v2",
    "tests.conformance.broken.features",
)
"""What every fixture imports (the runtime, the typed layer), imported once."""
EDITIONS = ("acp_protocol.v1", "acp_protocol.v2")
LAUNCHER = Path(__file__).with_name("launch.py")

_server: subprocess.Popen[str] | None = None
_socket = ""
_lock = threading.Lock()


def forked_agent(name: str) -> list[str]:
    """The command line of fixture `name` of tests/conformance/broken, started by the fork server
    (run from the checkout's root, as `run_suite` runs the suite)."""
    return [
        sys.executable,
        "-S",
        "-I",
        str(LAUNCHER),
        _started(),
        f"tests.conformance.broken.{name}",
    ]


def _started() -> str:
    global _server, _socket
    with _lock:
        if _server is None or _server.poll() is not None:
            folder = tempfile.mkdtemp(prefix="acp-forkserver-")
            path = os.path.join(folder, "socket")
            _server = subprocess.Popen(
                [sys.executable, "-m", "tests.conformance.forkserver", path],
                cwd=ROOT,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                text=True,
            )
            assert _server.stdout is not None
            ready = _server.stdout.readline()
            assert ready == "ready\n", f"the fork server did not start: {ready!r}"
            _socket = path
            atexit.register(_stop, _server, folder)
        return _socket


def _stop(server: subprocess.Popen[str], folder: str) -> None:
    server.terminate()
    with contextlib.suppress(subprocess.TimeoutExpired):
        server.wait(5)
    server.kill()
    with contextlib.suppress(OSError):
        os.unlink(os.path.join(folder, "socket"))
        os.rmdir(folder)


# -- the server ------------------------------------------------------------------------------


def warm() -> None:
    """What a child would otherwise do at each start: import the fixtures' modules, every model
    of both editions (loaded by group on first use), and build each method's validators (built on
    first use, cached)."""
    from acp_protocol.runtime.validators import validator_for

    for module in PRELOAD:
        importlib.import_module(module)
    for edition in EDITIONS:
        models = importlib.import_module(f"{edition}.models")
        for name in models.__all__:
            getattr(models, name)
        methods = importlib.import_module(f"{edition}.methods")
        for spec in [*methods.REQUESTS.values(), *methods.NOTIFICATIONS.values()]:
            for wire_type in (spec.params_type, spec.result_type):
                if wire_type is not None:
                    validator_for(wire_type)


def serve(path: str) -> None:
    """Fork a child per launcher that connects to `path`; tell each launcher how its child ended."""
    parent = os.getppid()
    warm()
    gc.freeze()  # the children's collections leave the imported objects' pages shared
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(path)
    listener.listen(64)
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_read, False)
    os.set_blocking(wake_write, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.set_wakeup_fd(wake_write)
    links: dict[int, socket.socket] = {}
    print("ready", flush=True)
    try:
        while os.getppid() == parent:
            readable, _, _ = select.select([listener.fileno(), wake_read], [], [], 1.0)
            if wake_read in readable:
                with contextlib.suppress(BlockingIOError):
                    os.read(wake_read, 4096)
            if listener.fileno() in readable:
                link, _ = listener.accept()
                try:
                    others = [listener.fileno(), wake_read, wake_write]
                    others += [other.fileno() for other in links.values()]
                    links[fork(link, others)] = link
                except (OSError, ValueError):
                    link.close()
            reap(links)
    finally:
        for pid in links:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def fork(link: socket.socket, others: list[int]) -> int:
    """Read a launcher's request and its three descriptors; fork the child that runs it."""
    message, fds, _, _ = socket.recv_fds(link, 1 << 20, 3)
    try:
        if len(fds) != 3:
            raise ValueError(f"{len(fds)} descriptors")
        request = json.loads(message)
        pid = os.fork()
        if pid == 0:
            code = 70
            try:
                code = child(link, fds, request, others)
            finally:
                os._exit(code)
        return pid
    finally:
        for fd in fds:
            os.close(fd)


def child(link: socket.socket, fds: list[int], request: dict[str, Any], others: list[int]) -> int:
    """In the forked child: become the program the launcher stands for, run the fixture, and
    return its exit status."""
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    for fd in others:
        os.close(fd)
    os.setsid()
    for number, fd in enumerate(fds):
        os.dup2(fd, number)
    for fd in fds:
        if fd > 2:
            os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    threading.Thread(target=watch, args=(link,), daemon=True).start()
    code = 0
    try:
        runpy.run_module(request["module"], run_name="__main__", alter_sys=True)
    except SystemExit as ended:
        code = exit_status(ended.code)
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    except BaseException:
        traceback.print_exc()
        code = 1
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    return code


def exit_status(code: object) -> int:
    """The process's exit status for `sys.exit(code)`, as Python gives it."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def watch(link: socket.socket) -> None:
    """The launcher's end closed (it was killed): the child is killed too."""
    with contextlib.suppress(OSError):
        while link.recv(64):
            pass
    os.kill(os.getpid(), signal.SIGKILL)


def reap(links: dict[int, socket.socket]) -> None:
    """Tell the launcher of every child that ended how it ended."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        link = links.pop(pid, None)
        if link is None:
            continue
        if os.WIFSIGNALED(status):
            ended = f"signal {os.WTERMSIG(status)}"
        else:
            ended = f"exit {os.waitstatus_to_exitcode(status)}"
        with contextlib.suppress(OSError):
            link.send(ended.encode())
        link.close()


if __name__ == "__main__":
    serve(sys.argv[1])
