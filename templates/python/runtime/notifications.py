"""Incoming notifications: one queue and one worker, so they are handled in arrival order.

Layer: dispatcher. The connection puts each notification here as it is read; the worker hands
them to the handler one at a time (a `session/update` stream never reorders, and a slow handler
delays the next notification, never a response or a cancel). A deque and a wake-up future rather
than an `asyncio.Queue`: half the cost per message.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable, Sized
from typing import Any

from .errors import MethodNotFound
from .handler import Handler

log = logging.getLogger(__name__)


class NotificationQueue:
    """The notifications read and not yet handled, and the worker that handles them."""

    __slots__ = ("_handler", "_idle", "_idle_waiters", "_on_taken", "_queue", "_waiter")

    def __init__(self, handler: Handler, on_taken: Callable[[], None]) -> None:
        self._handler = handler
        self._on_taken = on_taken  # the connection's flow control: room may have been made
        self._queue: deque[tuple[str, Any]] = deque()
        self._waiter: asyncio.Future[None] | None = None  # the idle worker's wake-up
        self._idle = True  # nothing queued or being handled
        self._idle_waiters: list[asyncio.Future[None]] = []  # `drained()` calls

    def __len__(self) -> int:
        return len(self._queue)

    @property
    def queue(self) -> Sized:
        """What waits, to be counted (the connection asks after every read)."""
        return self._queue

    def put(self, method: str, params: Any) -> None:
        self._queue.append((method, params))
        self._idle = False
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None  # woken once: the rest of a batch of reads skips this
            if not waiter.done():
                waiter.set_result(None)

    async def run(self) -> None:
        """The worker: handle each notification in arrival order, for as long as it runs."""
        queue = self._queue
        handler = self._handler
        on_taken = self._on_taken
        loop = asyncio.get_running_loop()
        while True:
            if not queue:
                self._became_idle()
                self._waiter = waiter = loop.create_future()
                await waiter
                continue
            method, params = queue.popleft()
            on_taken()
            try:
                # The handler's own coroutine, not one wrapping it: one coroutine per message.
                handling = handler.handle_notification(method, params)
                if handling is not None:
                    await handling
            except MethodNotFound:
                log.debug("ignored unknown notification %s", method)
            except Exception:
                log.exception("handler of notification %s failed", method)

    def _became_idle(self) -> None:
        self._idle = True
        for waiter in self._idle_waiters:
            if not waiter.done():
                waiter.set_result(None)
        self._idle_waiters.clear()

    async def drained(self, timeout: float) -> bool:
        """Wait until everything queued was handled; False when `timeout` ran out first."""
        if self._idle:
            return True
        waiter = asyncio.get_running_loop().create_future()
        self._idle_waiters.append(waiter)
        try:
            await asyncio.wait_for(waiter, timeout)
        except asyncio.TimeoutError:  # `TimeoutError` itself only from Python 3.11
            return False
        return True
