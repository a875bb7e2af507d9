"""A remote agent's connection that comes back when lost, its sessions resumed or loaded.

Layer: typed layer (client side of a remote agent; opt-in: `connect_remote(..., reconnect=
Reconnect())` in each edition's client module).

When the transport ends without our asking (the server process died, the network dropped):
- every request in flight fails at once with `ConnectionClosed` (the dispatcher's rule: nothing
  in flight is dropped silently; a prompt whose answer never came is the caller's to retry);
- a new transport is opened to the same URL, up to `Reconnect.attempts` times, waiting
  `Reconnect.delay(n)` before attempt n (exponential backoff with a cap); each attempt logs one
  line, `reconnect 2/5 to URL: …`;
- on it, `initialize` is sent again with the params the client sent first, then each session
  the client opened (`session/new`), loaded or resumed is resumed (`session/resume`, when the
  agent advertises `sessionCapabilities.resume`: no replay) or else loaded (`session/load`,
  `loadSession`: its replay reaches the client's `session_update` as it did the first time);
  an agent that advertises neither cannot take the sessions over, and the attempt fails;
- the connection object the caller holds then serves the new connection (`connection.agent`
  is the new peer: read it each time, do not keep an old one), and `await
  connection.reconnected()` returns; after the last failed attempt it raises `ConnectionClosed`.

Behind a load balancer the new connection may reach another server process: it serves the
sessions when the processes share a session store (docs/scale.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from .errors import ConnectionClosed
from .request_state import DEFAULT_OPTIONS, RequestOptions
from .roles import RoleConnection
from .transports.transport import Transport

log = logging.getLogger(__name__)

TRACKED = frozenset({"initialize", "session/new", "session/load", "session/resume"})


@dataclass(frozen=True)
class Reconnect:
    """How a lost remote connection is retried: `attempts` at most, the n-th after
    `min(first_delay * factor ** (n - 1), max_delay)` seconds, each given `attempt_timeout`
    seconds to connect, initialize and take the sessions over."""

    attempts: int = 5
    first_delay: float = 0.1
    factor: float = 2.0
    max_delay: float = 5.0
    attempt_timeout: float = 10.0

    def __post_init__(self) -> None:
        if self.attempts < 1 or self.first_delay < 0 or self.factor < 1 or self.max_delay < 0:
            raise ValueError("Reconnect: attempts >= 1, delays >= 0, factor >= 1")

    def delay(self, attempt: int) -> float:
        return float(min(self.first_delay * self.factor ** (attempt - 1), self.max_delay))


class Reconnection:
    """Keeps `connection` (a client's `RoleConnection`) connected: see the module."""

    def __init__(
        self,
        url: str,
        policy: Reconnect,
        open_transport: Callable[[], Awaitable[Transport]],
        connect: Callable[[Transport], RoleConnection[Any]],
    ) -> None:
        self.url = url
        self.policy = policy
        self._open = open_transport
        self._connect = connect
        self._initialize: Any = None
        self.sessions: dict[str, dict[str, Any]] = {}
        """The sessions taken over on a new connection: id → `cwd`, `mcpServers`."""
        self._connected = asyncio.Event()
        self._connected.set()
        self._gave_up = False
        self._closing = False
        self._facade: RoleConnection[Any] | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self, connection: RoleConnection[Any]) -> None:
        self._facade = connection
        self._track(connection)
        self._task = asyncio.get_running_loop().create_task(self._watch())

    async def close(self) -> None:
        """The caller is done: a loss from now on is not retried."""
        self._closing = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def reconnected(self) -> None:
        """Return once connected (at once when the connection was never lost); raise
        `ConnectionClosed` when the attempts are spent."""
        if self._facade is not None and self._facade.connection.closed and not self._gave_up:
            self._connected.clear()  # lost, and the watch may not have woken to it yet
        await self._connected.wait()
        if self._gave_up:
            raise ConnectionClosed(
                f"reconnecting to {self.url} failed {self.policy.attempts} times"
            )

    # -- what a new connection must ask again ------------------------------------------------

    def _track(self, connection: RoleConnection[Any]) -> None:
        peer: Any = connection.peer
        peer._sender = _Tracking(peer._sender, self)

    def note(self, method: str, params: Any, answer: Any) -> None:
        wire = params.to_wire() if hasattr(params, "to_wire") else dict(params or {})
        if method == "initialize":
            self._initialize = wire
            return
        session_id = wire.get("sessionId") or getattr(answer, "session_id", None)
        if isinstance(answer, dict):
            session_id = session_id or answer.get("sessionId")
        if isinstance(session_id, str):
            self.sessions[session_id] = {
                "cwd": wire.get("cwd", ""),
                "mcpServers": wire.get("mcpServers", []),
            }

    # -- the loop ------------------------------------------------------------------------------

    async def _watch(self) -> None:
        while True:
            assert self._facade is not None
            await self._facade.connection.wait_closed()
            if self._closing:
                return
            self._connected.clear()
            if not await self._retry():
                self._gave_up = True
                self._connected.set()
                return
            self._connected.set()

    async def _retry(self) -> bool:
        total = self.policy.attempts
        for attempt in range(1, total + 1):
            await asyncio.sleep(self.policy.delay(attempt))
            try:
                fresh, how = await asyncio.wait_for(self._attempt(), self.policy.attempt_timeout)
            except Exception as error:  # one line per attempt, whatever failed
                reason = str(error).strip().splitlines()[0] if str(error).strip() else ""
                log.warning(
                    "reconnect %d/%d to %s: failed: %s",
                    attempt,
                    total,
                    self.url,
                    reason or type(error).__name__,
                )
                continue
            self._adopt(fresh)
            log.warning(
                "reconnect %d/%d to %s: connected, %d session(s) %s",
                attempt,
                total,
                self.url,
                len(self.sessions),
                how,
            )
            return True
        log.error("reconnect to %s: gave up after %d attempts", self.url, total)
        return False

    async def _attempt(self) -> tuple[RoleConnection[Any], str]:
        """A new connection, initialized, with every session taken over; closed on failure."""
        fresh = self._connect(await self._open())
        fresh.start()
        try:
            answer = await fresh.connection.request("initialize", self._initialize)
            capabilities = (answer or {}).get("agentCapabilities") or {}
            if "resume" in (capabilities.get("sessionCapabilities") or {}):
                method, how = "session/resume", "resumed"
            elif capabilities.get("loadSession") is True:
                method, how = "session/load", "loaded"
            elif self.sessions:
                raise ConnectionClosed("the agent advertises neither session/resume nor load")
            else:
                method, how = "", "(none open)"
            for session_id, params in list(self.sessions.items()):
                await fresh.connection.request(method, {"sessionId": session_id, **params})
        except BaseException:
            await fresh.close()
            raise
        return fresh, how

    def _adopt(self, fresh: RoleConnection[Any]) -> None:
        facade = self._facade
        assert facade is not None
        facade.connection = fresh.connection
        facade.peer = fresh.peer
        facade._router = fresh._router
        self._track(facade)


class _Tracking:
    """The client's sender, noting the requests a new connection must make again."""

    __slots__ = ("_reconnection", "_sender")

    def __init__(self, sender: Any, reconnection: Reconnection) -> None:
        self._sender = sender
        self._reconnection = reconnection

    def request(
        self, method: str, params: Any = None, options: RequestOptions = DEFAULT_OPTIONS
    ) -> Coroutine[Any, Any, Any]:
        sent: Coroutine[Any, Any, Any] = self._sender.request(method, params, options)
        return self._noted(method, params, sent) if method in TRACKED else sent

    async def _noted(self, method: str, params: Any, sent: Coroutine[Any, Any, Any]) -> Any:
        answer = await sent
        self._reconnection.note(method, params, answer)
        return answer

    def notify(self, method: str, params: Any = None) -> Coroutine[Any, Any, None]:
        return self._sender.notify(method, params)  # type: ignore[no-any-return]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sender, name)
