"""A stand-in agent for the recorder's tests: writes back every line it reads, prefixed with
`echo:`, writes `started` on stderr, and on SIGTERM writes `got SIGTERM` on stderr and exits 7.
With `--exit N` it exits N at the end of its input."""

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
    return int(sys.argv[2]) if sys.argv[1:2] == ["--exit"] else 0


if __name__ == "__main__":
    sys.exit(main())
