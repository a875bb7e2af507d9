"""`session/load` and `session/resume` answered from a session store, by any server process.

Layer: typed layer (what the router adds for an agent with a `session_store`; v2: session_resume).

An agent that sets `session_store` gets, with no code of its own:
- each `session/new` it answers recorded in the store (`acreate`, under the params' `cwd`);
- each `session/update` it sends recorded in the store's history (`session_history`), in the
  order sent, and written before the turn's answer: "the Agent MUST respond to the original
  `session/prompt` request" only once this process has committed what the turn sent, so an
  answered turn is never missing from a later replay, whichever process replays it. A write
  that fails, or that the store has not answered within `RECORD_TIMEOUT`, makes the turn's
  answer -32603 (one log line), never a turn a replay would not show;
- `session/load` answered from the store: "The Agent MUST replay the entire conversation to the
  Client in the form of `session/update` notifications" (v1 `session-setup.mdx`), then the
  result. A history past the store's cap replays its last `history_limit` updates and says how
  many it dropped in the result's `_meta` (`REPLAY_META`) and in one warning line;
- `session/resume` answered from the store: "resume the session context, allowing the
  conversation to continue without replaying the message history";
- both advertised in `initialize` (`loadSession`, `sessionCapabilities.resume`), unless the agent
  implements them itself (its own methods are used, and its updates are still recorded).

Where the edition's resume replays from a cursor the client names (its `Behaviour.resume`, ACP
v2, which has no `session/load`), `session/resume` replays as that rule says (`session_resume`):
omitted or null `replayFrom`, nothing; `{"type": "start"}`, the retained history, then the
`replay_complete` marker; another cursor, -32602. Then "a current `state_update` after any
requested history replay and before this response, even without replay" (the session's
foreground state on this connection: `running` while its work runs here, else `idle`). "After
receiving the request, the Agent MUST hold live updates for the session during replay": the
session's updates this connection sends meanwhile wait, and are recorded and sent once the
state update is. v2 answers a prompt at insertion: its answer waits for the echo's commit, and
a work's updates are committed before its idle update (inside the work, so that a
`session/cancel` arriving meanwhile still ends it `cancelled`).
The capability is the edition's as for v1 (`capabilities.session`, the baseline with
`session/resume` among it): the router advertises what the store serves.

A session the store does not know is answered -32002 (ACP's "Resource not found").
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from .behaviour import Behaviour, ResumeReplay
from .errors import InternalError, RpcError
from .request_state import DEFAULT_OPTIONS, RequestContext, RequestOptions
from .session_history import Replay, SessionHistory
from .session_resume import is_history, replay_wanted, replayed, state_snapshot
from .session_store import SessionStore

log = logging.getLogger(__name__)

UPDATE = "session/update"
REPLAY_META = "acp-codegen/replay"
"""The `_meta` key of a `session/load` result whose replay lost updates to the cap:
`{"replayed": n, "dropped": k, "limit": history_limit}`."""
RESOURCE_NOT_FOUND = -32002
RECORD_TIMEOUT = 30.0
"""Seconds each write of a connection's updates may take (read when the connection starts): a
store that has not answered by then fails the write, which makes the turn's answer -32603 as any
failed write does, so a hung database never holds an answer (the same bound in every runtime)."""


class UpdateRecorder:
    """Appends the updates a connection sends to the store's history, in order, in the
    background; `barrier()` returns once every update recorded so far is committed."""

    def __init__(self, history: SessionHistory, rule: ResumeReplay | None = None) -> None:
        self._history = history
        self._rule = rule  # what is not history is not recorded
        self._pending: list[tuple[str, Any]] = []
        self._task: asyncio.Task[None] | None = None
        self._failed: str | None = None
        self._timeout = RECORD_TIMEOUT
        self.holds: dict[str, _Hold] = {}
        """The sessions whose live updates wait for a replay in progress."""

    def record(self, params: Any) -> None:
        wire = params.to_wire() if hasattr(params, "to_wire") else params
        if not isinstance(wire, dict) or not isinstance(wire.get("sessionId"), str):
            return
        update = wire.get("update")
        if self._rule is not None and not is_history(self._rule, update):
            return
        self._pending.append((wire["sessionId"], update))
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._drain())

    async def _drain(self) -> None:
        try:
            while self._pending:
                batch, self._pending = self._pending, []
                for session_id, updates in _runs(batch):
                    written = self._history.arecord(session_id, updates)
                    try:
                        await asyncio.wait_for(written, self._timeout)
                    except asyncio.TimeoutError:
                        raise TimeoutError(
                            f"the store did not answer within {self._timeout:g}s"
                        ) from None
        except Exception as error:  # the store: SessionStoreError, the pool's, or the timeout
            self._failed = str(error) or type(error).__name__
            log.error("session updates not recorded: %s", self._failed)
        finally:
            self._task = None

    async def send(self, sender: Any, params: Any) -> None:
        """Record and send a session update once its session's replay ended, if one is in
        progress."""
        wire = params.to_wire() if hasattr(params, "to_wire") else params
        session_id = wire.get("sessionId") if isinstance(wire, dict) else None
        hold = self.holds.get(session_id) if isinstance(session_id, str) else None
        if hold is not None:
            await hold.done.wait()
        self.record(params)
        await sender.notify(UPDATE, params)

    def hold(self, session_id: str) -> _Hold:
        """Hold the session's live updates until `release`."""
        hold = self.holds.get(session_id)
        if hold is None:
            hold = self.holds[session_id] = _Hold()
        hold.count += 1
        return hold

    def release(self, session_id: str, hold: _Hold) -> None:
        hold.count -= 1
        if hold.count == 0:
            del self.holds[session_id]
            hold.done.set()

    async def settled(self) -> None:
        """Wait for what was recorded so far, without raising: a failed write stays for the next
        `barrier()` (the next answer) to report."""
        while self._task is not None:
            await asyncio.shield(self._task)

    async def barrier(self) -> None:
        """Wait for what was recorded so far; a failed write is this turn's error (the client
        must not be told a turn ended that a replay would not show)."""
        while self._task is not None:
            await asyncio.shield(self._task)
        if self._failed is not None:
            failed, self._failed = self._failed, None
            raise InternalError(data={"details": f"session updates not recorded: {failed}"})


class _Hold:
    """A session's replays in progress; `done` is set when the last one ended."""

    __slots__ = ("count", "done")

    def __init__(self) -> None:
        self.count = 0
        self.done = asyncio.Event()


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
            recorder = self._recorder
            if recorder.holds:
                return recorder.send(self._sender, params)
            recorder.record(params)
        return self._sender.notify(method, params)  # type: ignore[no-any-return]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sender, name)


Served = Callable[[Any, RequestContext], Awaitable[Any]]


class SessionReplay:
    """One connection's share of a store: its recorder and the methods answered from the store
    (`session/load`, and `session/resume` as the edition's `Behaviour.resume` says)."""

    def __init__(self, store: SessionStore, behaviour: Behaviour | None = None) -> None:
        self.store = store
        rule = None if behaviour is None else behaviour.resume
        lifecycle = None if behaviour is None else behaviour.lifecycle
        self._rule = rule
        self._states = None if lifecycle is None else lifecycle.states
        self._prompt = None if lifecycle is None else lifecycle.prompt
        self.recorder = UpdateRecorder(store.history, rule)
        self.methods: dict[str, Served] = {"session/load": self._load}
        if rule is not None and rule.cursor is None:
            self.methods[rule.method] = self._resume
        elif rule is not None and self._states is not None:
            self.methods[rule.method] = self._resume_from
        self.state_of: Callable[[str], str | None] = lambda session_id: None
        """The session's foreground state on this connection (set by the router)."""

    def sender(self, sender: Any) -> RecordingSender:
        return RecordingSender(sender, self.recorder)

    def committing(self, method: str, call: Any) -> Any:
        """`call` (a request's handler run), for the edition's inserted prompt: its work's updates
        committed before it returns, so before the work's idle update. Inside the work: a
        `session/cancel` arriving meanwhile cancels it, and it still ends `cancelled`."""
        if self._rule is None or self._rule.cursor is None or method != self._prompt:
            return call

        async def committed(request: RequestContext) -> Any:
            result = await call(request)
            await self.recorder.settled()
            return result

        return committed

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
        return self._result(session_id, replay)

    def _result(self, session_id: str, replay: Replay) -> Any:
        """`{}`, or for a replay the cap cut, `_meta` saying so (and one warning line)."""
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

    async def _resume_from(self, params: Any, request: RequestContext) -> Any:
        rule, states = self._rule, self._states
        assert rule is not None and states is not None
        session_id = params.session_id
        replaying = replay_wanted(rule, params.to_wire())  # -32602 before anything is sent
        await self._known(session_id)
        # "After receiving the request, the Agent MUST hold live updates for the session during
        # replay": from here until the current state is sent.
        hold = self.recorder.hold(session_id)
        try:
            await self.recorder.barrier()  # this connection's own updates first
            result: Any = {}
            if replaying:
                replay = await self.store.history.aread(session_id)
                for update in replayed(rule, replay.updates):  # the history, then the marker
                    await request.notify(UPDATE, {"sessionId": session_id, "update": update})
                result = self._result(session_id, replay)
            state = self.state_of(session_id) or states.idle
            snapshot = state_snapshot(states, state)
            await request.notify(UPDATE, {"sessionId": session_id, "update": snapshot})
        finally:
            self.recorder.release(session_id, hold)
        return result
