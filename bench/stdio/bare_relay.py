"""A relay that records nothing (bench (j)'s `ours-uvloop-relayed`): the agent started behind it,
stdin to the agent's and the agent's stdout to ours, a thread each doing blocking reads and
writes, as `trace record` relays, with nothing else.

It is the reference for the recorder's cost: any process between an editor and its agent adds
two hand-overs per message (a wake-up, a read and a write each), whatever it does with the
bytes. `trace record` over this relay, in the same rounds, is what the recording itself costs.
Run: `python bare_relay.py AGENT_PROGRAM [ARGS…]`."""

from __future__ import annotations

import os
import subprocess
import sys
import threading


def relay(source: int, target: int) -> None:
    """Copy `source` to `target` as it comes, until `source` ends or `target` is gone."""
    try:
        while data := os.read(source, 1 << 16):
            view = memoryview(data)
            while view:
                view = view[os.write(target, view) :]
    except OSError:
        pass


def main() -> int:
    agent = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    assert agent.stdin is not None and agent.stdout is not None
    back = threading.Thread(target=relay, args=(agent.stdout.fileno(), 1), daemon=True)
    back.start()
    relay(0, agent.stdin.fileno())
    agent.stdin.close()
    back.join()
    return agent.wait()


if __name__ == "__main__":
    sys.exit(main())
