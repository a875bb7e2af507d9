"""`session/load` and `session/resume` answered from a session store, by any server process.

Layer: typed layer (what the router adds for an agent with a `session_store`, ACP v1).

An agent that sets `session_store` gets, with no code of its own:
- each `session/new` it answers recorded in the store (`acreate`, under the params' `cwd`);
- each `session/update` it sends recorded in the store's history (`session_history`), in the
  order sent, and written before the turn's answer: "the Agent MUST respond to the original
  `session/prompt` request" only once this process has committed what the turn sent, so an
  answered turn is never missing from a later replay, whichever process replays it;
- `session/load` answered from the store: "The Agent MUST replay the entire conversation to the
  Client in the form of `session/update` notifications" (v1 `session-setup.mdx`), then the
  result. A history past the store's cap replays its last `history_limit` updates and says how
  many it dropped in the result's `_meta` (`REPLAY_META`) and in one warning line;
- `session/resume` answered from the store: "resume the session context, allowing the
  conversation to continue without replaying the message history";
- both advertised in `initialize` (`loadSession`, `sessionCapabilities.resume`), unless the agent
  implements them itself (its own methods are used, and its updates are still recorded).

A session the store does not know is answered -32002 (ACP's "Resource not found").
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from .errors import InternalError, RpcError
from .request_state import DEFAULT_OPTIONS, RequestContext, RequestOptions
from .session_history import SessionHistory
from .session_store import SessionStore

log = logging.getLogger(__name__)

UPDATE = "session/update"
REPLAY_META = "acp-codegen/replay"
"""The `_meta` key of a `session/load` result whose replay lost updates to the cap:
`{"replayed": n, "dropped": k, "limit": history_limit}`."""
RESOURCE_NOT_FOUND = -32002


class UpdateRecorder:
    """Appends the updates a connection sends to the store's history, in order, in the
    background; `barrier()` returns once every update recorded so far is committed."""

    def __init__(self, history: SessionHistory) -> None:
        self._history = history
        self._pending: list[tuple[str, Any]] = []
        self._task: asyncio.Task[None] | None = None
        self._failed: str | None = None

    def record(self, params: Any) -> None:
        wire = params.to_wire() if hasattr(params, "to_wire") else params
        if not isinstance(wire, dict) or not isinstance(wire.get("sessionId"), str):
            return
        self._pending.append((wire["sessionId"], wire.get("update")))
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._drain())

    async def _drain(self) -> None:
        try:
            while self._pending:
                batch, self._pending = self._pending, []
                for session_id, updates in _runs(batch):
                    await self._history.arecord(session_id, updates)
        except Exception as error:  # the store: SessionStoreError, or the pool's
            self._failed = str(error) or type(error).__name__
            log.error("session updates not recorded: %s", self._failed)
        finally:
            self._task = None

    async def barrier(self) -> None:
        """Wait for what was recorded so far; a failed write is this turn's error (the client
        must not be told a turn ended that a replay would not show)."""
        while self._task is not None:
            await asyncio.shield(self._task)
        if self._failed is not None:
            failed, self._failed = self._failed, None
            raise InternalError(data={"details": f"session updates not recorded: {failed}"})


def _runs(batch: list[tuple[str, Any]]) -> list[tuple[str, list[Any]]]:
    """The batch as consecutive runs of one session each, order kept."""
    runs: list[tuple[str, list[Any]]] = []
    for session_id, update in batch:
        if runs and runs[-1][0] == session_id:
            runs[-1][1].append(update)
        else:
            runs.append((session_id, [update]))
    return runs


class RecordingSender:
    """A sender (connection or request context) whose `session/update`s are recorded."""

    __slots__ = ("_recorder", "_sender")

    def __init__(self, sender: Any, recorder: UpdateRecorder) -> None:
        self._sender = sender
        self._recorder = recorder

    def request(
        self, method: str, params: Any = None, options: RequestOptions = DEFAULT_OPTIONS
    ) -> Coroutine[Any, Any, Any]:
        return self._sender.request(method, params, options)  # type: ignore[no-any-return]

    def notify(self, method: str, params: Any = None) -> Coroutine[Any, Any, None]:
        if method == UPDATE:
            self._recorder.record(params)
        return self._sender.notify(method, params)  # type: ignore[no-any-return]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sender, name)


Served = Callable[[Any, RequestContext], Awaitable[Any]]


class SessionReplay:
    """One connection's share of a store: its recorder and the methods answered from the store."""

    def __init__(self, store: SessionStore) -> None:
        self.store = store
        self.recorder = UpdateRecorder(store.history)
        self.methods: dict[str, Served] = {
            "session/load": self._load,
            "session/resume": self._resume,
        }

    def sender(self, sender: Any) -> RecordingSender:
        return RecordingSender(sender, self.recorder)

    async def answered(self, method: str, params: Any, result: Any) -> None:
        """After the agent's answer, before it is sent: record a new session; commit a turn's
        updates."""
        if method == "session/prompt":
            await self.recorder.barrier()
        elif method == "session/new":
            session_id = getattr(result, "session_id", None)
            if isinstance(session_id, str):
                await self.store.acreate(session_id, params.cwd)

    async def _known(self, session_id: str) -> None:
        if await self.store.aget(session_id) is None:
            raise RpcError("Resource not found", {"sessionId": session_id}, code=RESOURCE_NOT_FOUND)

    async def _load(self, params: Any, request: RequestContext) -> Any:
        session_id = params.session_id
        await self._known(session_id)
        await self.recorder.barrier()  # this connection's own updates first
        replay = await self.store.history.aread(session_id)
        for update in replay.updates:
            # Sent on the request's own sender: written before the answer, not recorded again.
            await request.notify(UPDATE, {"sessionId": session_id, "update": update})
        if not replay.dropped:
            return {}
        limit = self.store.history.limit
        log.warning(
            "session %s: replayed its last %d updates; %d older ones are past the store's"
            " history_limit (%d)",
            session_id,
            len(replay.updates),
            replay.dropped,
            limit,
        )
        meta = {"replayed": len(replay.updates), "dropped": replay.dropped, "limit": limit}
        return {"_meta": {REPLAY_META: meta}}

    async def _resume(self, params: Any, request: RequestContext) -> Any:
        await self._known(params.session_id)
        return {}
