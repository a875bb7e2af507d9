"""Noticing a handler that blocks the event loop (layer: diagnostics, beside the dispatcher).

A handler that calls `time.sleep` or does long CPU work between two awaits stops every other
request, notification and cancel of every connection on its event loop; elsewhere that shows up
only as a timeout. While a connection with a `blocking_threshold` is open, a `BlockWatch` runs on
its loop: the loop ticks every `threshold / 4`, and a daemon thread looks at the tick. When the
loop has not ticked for longer than the threshold, the thread reads what the loop's thread is
running (its stack) and keeps the outermost function that is not asyncio's or this runtime's (the
handler; a loop found waiting for I/O, as on a machine too busy to run it, is not blocked); when the
loop ticks again, one warning names it and how long the loop was blocked:

    the event loop was blocked for 0.81 s by Slow.session_prompt (agent.py:42)

The time is how late the loop's tick came: the block's length, less up to one tick
(`threshold / 4`), less the time the loop's thread was ready to run but waited for a CPU (Linux:
`/proc/thread-self/schedstat`), so a machine too busy to run the process is not blamed on a
handler. Nothing runs on a message's path: the cost is one timer callback per tick (and one
small read of that file) and a thread that sleeps.
"""

from __future__ import annotations

import asyncio
import logging
import os
import selectors
import sys
import threading
import time
import weakref
from types import FrameType

log = logging.getLogger(__name__)

DEFAULT_BLOCKING_THRESHOLD = 0.5
"""Seconds a handler may hold the event loop before it is reported (`Connection(...,
blocking_threshold=None)` turns the watch off)."""

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
"""The generated package (its runtime and typed layer): never the handler."""
_ASYNCIO = os.path.dirname(os.path.abspath(asyncio.__file__))
_SELECTORS = os.path.abspath(selectors.__file__)
_LOOP = (_PACKAGE, _ASYNCIO, _SELECTORS)
"""Where a frame of the loop itself lives: a loop found there is waiting for I/O, not blocked."""
_UVLOOP = f"{os.sep}uvloop{os.sep}"
"""uvloop's loop runs in C under `uvloop.run`: a loop found there is waiting for I/O too."""
_SCHEDSTAT = "/proc/thread-self/schedstat"
"""Linux: the calling thread's time on a CPU, time ready to run but waiting for one (ns), …."""
_WATCHES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, BlockWatch] = (
    weakref.WeakKeyDictionary()
)


class BlockWatch:
    """The watch of one event loop, shared by the connections open on it."""

    def __init__(self, loop: asyncio.AbstractEventLoop, threshold: float) -> None:
        self.loop = loop
        self.threshold = threshold
        self.interval = threshold / 4
        self.users = 0
        self.last_tick = time.monotonic()
        self.last_wait = runqueue_wait()
        # What the thread saw running during a block: (the tick the block began after, culprit).
        self.seen: tuple[float, str | None] | None = None
        self.loop_thread = threading.get_ident()
        self.stopped = threading.Event()
        self.timer: asyncio.TimerHandle | None = None
        self.thread = threading.Thread(target=self._watch, name="acp-block-watch", daemon=True)

    def start(self) -> None:
        self.timer = self.loop.call_later(self.interval, self._tick)
        self.thread.start()

    def stop(self) -> None:
        self.stopped.set()
        if self.timer is not None:
            self.timer.cancel()

    def _tick(self) -> None:
        now = time.monotonic()
        wait = runqueue_wait()  # on the loop's thread: its own wait for a CPU since the last tick
        blocked = now - self.last_tick - self.interval - (wait - self.last_wait)
        self.last_wait = wait
        seen = self.seen
        if blocked > self.threshold and seen is not None and seen[0] == self.last_tick:
            # Late, and the watch saw code running (not the loop waiting for I/O while this
            # process was not scheduled, on a busy machine).
            culprit = seen[1]
            if culprit is not None:
                log.warning("the event loop was blocked for %.2f s by %s", blocked, culprit)
        self.last_tick = now
        if not self.stopped.is_set():
            self.timer = self.loop.call_later(self.interval, self._tick)

    def _watch(self) -> None:
        while not self.stopped.wait(self.interval):
            tick = self.last_tick
            late = time.monotonic() - tick - self.interval
            if late > self.threshold and (self.seen is None or self.seen[0] != tick):
                frame = sys._current_frames().get(self.loop_thread)
                self.seen = (tick, describe(frame))


def describe(frame: FrameType | None) -> str | None:
    """The function the loop (asyncio or this package) called that is running now, as
    `Class.method (file.py:line)`: the innermost frame outside the loop whose caller is the loop's
    (a handler, even when it is inside a helper of its own); None when there is none (the loop
    waits for I/O: only the program that started the loop is outside it)."""
    while frame is not None:
        caller = frame.f_back
        if (
            caller is not None
            and not _in_loop(os.path.abspath(frame.f_code.co_filename))
            and _in_loop(os.path.abspath(caller.f_code.co_filename))
        ):
            code = frame.f_code
            name = getattr(code, "co_qualname", code.co_name)
            return f"{name} ({os.path.basename(code.co_filename)}:{frame.f_lineno})"
        frame = caller
    return None


def _in_loop(path: str) -> bool:
    return path.startswith(_LOOP) or _UVLOOP in path


def runqueue_wait() -> float:
    """Seconds the calling thread has waited, ready to run, for a CPU (Linux's schedstat);
    0.0 where the system does not say."""
    try:
        with open(_SCHEDSTAT, "rb") as stat:
            return int(stat.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


def watch(threshold: float | None) -> BlockWatch | None:
    """Join (or start) the running loop's watch; None when `threshold` is None."""
    if threshold is None:
        return None
    loop = asyncio.get_running_loop()
    current = _WATCHES.get(loop)
    if current is None or current.stopped.is_set():
        current = _WATCHES[loop] = BlockWatch(loop, threshold)
        current.start()
    current.users += 1
    return current


def unwatch(current: BlockWatch | None) -> None:
    """Leave the watch; the last connection out stops it."""
    if current is None:
        return
    current.users -= 1
    if current.users <= 0:
        current.stop()
        if _WATCHES.get(current.loop) is current:
            del _WATCHES[current.loop]  # the watch holds its loop: the entry would keep both
