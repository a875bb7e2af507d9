# Copied by acp-codegen from templates/python/conformance/relay.py. Do not edit here:
# edit the source, then run `make generate`.

"""`python -m acp_protocol.conformance.relay ADDRESS` (layer: wire): the agent the suite hands a
client under test (`{agent}` in its command line).

The client starts this program as it would start an agent; the program connects to the suite at
ADDRESS (`unix:PATH`, or `tcp:HOST:PORT` where there are no Unix sockets), writes one line
`{"relay": PID}` so that the suite knows the process, then copies its stdin to the socket and the
socket to its stdout, byte for byte: the suite's scripted agent and the client speak through it.

It behaves as a well-behaved agent does at its edges: the end of its stdin (the client closed its
end) is passed on as the end of the socket's write side, and it exits once the suite closes the
socket; it ignores SIGINT, so that a Ctrl-C the client receives reaches the client only (an agent
started in the terminal's process group would get one too; the suite tests the client's answer to
it, not the agent's).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import sys
import threading

CHUNK = 1 << 16


def connect(address: str) -> socket.socket:
    """A socket connected to `unix:PATH` or `tcp:HOST:PORT`."""
    kind, _, where = address.partition(":")
    if kind == "unix":
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(where)
        return sock
    if kind == "tcp":
        host, _, port = where.rpartition(":")
        return socket.create_connection((host, int(port)))
    raise SystemExit(f"relay: ADDRESS is unix:PATH or tcp:HOST:PORT, not {address!r}")


def stdin_to_socket(sock: socket.socket) -> None:
    try:
        while chunk := os.read(0, CHUNK):
            sock.sendall(chunk)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_WR)  # the suite reads EOF: the client closed its end


def socket_to_stdout(sock: socket.socket) -> None:
    try:
        while chunk := sock.recv(CHUNK):
            view = memoryview(chunk)
            while view:
                view = view[os.write(1, view) :]
    except OSError:
        pass


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m acp_protocol.conformance.relay ADDRESS", file=sys.stderr)
        return 2
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sock = connect(argv[0])
    sock.sendall(json.dumps({"relay": os.getpid()}).encode() + b"\n")
    threading.Thread(target=stdin_to_socket, args=(sock,), daemon=True).start()
    reader = threading.Thread(target=socket_to_stdout, args=(sock,), daemon=True)
    reader.start()
    reader.join()  # the suite closed the socket: the case is over
    with contextlib.suppress(OSError):
        os.close(1)
    return 0


if __name__ == "__main__":
    # os._exit: the stdin thread may be blocked in a read that only the client can end.
    sys.stdout.flush()
    os._exit(main(sys.argv[1:]))
