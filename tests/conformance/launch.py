"""Test support, the launcher of a fork-served fixture agent (tests/conformance/forkserver.py).

Run as `python -S -I launch.py SOCKET MODULE` (the standard library only: it starts in a few
milliseconds). It hands its stdin, stdout and stderr, its working folder and its environment to the
fork server at SOCKET, which forks a child running MODULE on them; then it waits for the child and
ends as it did (its exit status, or killed by the same signal). Killed itself (the suite ends its
process group), the child sees the link close and is killed too.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys


def main(path: str, module: str) -> int:
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as link:
        try:
            link.connect(path)
        except OSError as error:
            print(f"launch.py: no fork server at {path}: {error}", file=sys.stderr)
            return 70
        request = {"module": module, "cwd": os.getcwd(), "env": dict(os.environ)}
        socket.send_fds(link, [json.dumps(request).encode()], [0, 1, 2])
        # the child holds the program's stdin and stdout now: the launcher lets them go
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        ended = link.recv(64).decode()
    kind, _, value = ended.partition(" ")
    if kind == "signal":
        if int(value) != signal.SIGKILL:
            signal.signal(int(value), signal.SIG_DFL)
        os.kill(os.getpid(), int(value))
    if kind == "exit":
        return int(value)
    print(f"launch.py: the fork server ended before {module} did", file=sys.stderr)
    return 70


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
