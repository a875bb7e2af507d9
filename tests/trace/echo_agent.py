"""A stand-in agent for the recorder's tests: writes back every line it reads, prefixed with
`echo:`, writes `started` on stderr, and on SIGTERM writes `got SIGTERM` on stderr and exits 7.
With `--bye` it writes `bye` at the end of its input; with `--exit N` it then exits N."""

from __future__ import annotations

import signal
import sys
from types import FrameType


def on_term(number: int, frame: FrameType | None) -> None:
    sys.stderr.write("got SIGTERM\n")
    sys.stderr.flush()
    sys.exit(7)


def main() -> int:
    signal.signal(signal.SIGTERM, on_term)
    sys.stderr.write("started\n")
    sys.stderr.flush()
    for line in sys.stdin.buffer:
        sys.stdout.buffer.write(b"echo:" + line)
        sys.stdout.buffer.flush()
    options = sys.argv[1:]
    if "--bye" in options:
        sys.stdout.buffer.write(b"bye\n")
    return int(options[options.index("--exit") + 1]) if "--exit" in options else 0


if __name__ == "__main__":
    sys.exit(main())
