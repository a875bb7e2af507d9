"""ACP v2's `session/resume` answered from a session store, by any process sharing it, with no
code in the agent (session_replay, session_resume): rule by rule from the v2 schema's own text
(schema/acp/v2/schema.json: ResumeSessionRequest.replayFrom, ReplayFrom, ReplayComplete,
ResumeSessionResponse). v2 has no `session/load`: resume is the only way back into a session.
What is asserted is exactly what the client receives on the wire."""

from __future__ import annotations

import asyncio
import sys
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from acp_protocol.runtime import memory_pair
from acp_protocol.runtime.session_history import Replay
from acp_protocol.runtime.session_store import SessionStore
from acp_protocol.v2 import models
from acp_protocol.v2.agent import Agent, AgentContext, connect_agent
from acp_protocol.v2.behaviour import BEHAVIOUR

from tests.conformance.suite import run_suite
from tests.runtime.support import RawPeer

INIT = {"protocolVersion": 2, "info": {"name": "c", "version": "1"}}
START = {"type": "start"}


class Talker(Agent):
    """Says each word of a prompt as a chunk; with `gate`, waits on it before the last word.
    Knows nothing of stores, resume or replay beyond the attribute."""

    def __init__(self, store: SessionStore, gate: asyncio.Event | None = None) -> None:
        self.session_store = store
        self.gate = gate

    async def initialize(
        self, params: models.InitializeRequest, ctx: AgentContext
    ) -> models.InitializeResponse:
        return models.InitializeResponse.model_validate(
            {"protocolVersion": 2, "info": {"name": "t", "version": "1"}}
        )

    async def session_new(
        self, params: models.NewSessionRequest, ctx: AgentContext
    ) -> models.NewSessionResponse:
        return models.NewSessionResponse(session_id=f"sess_{uuid.uuid4().hex}")

    async def session_prompt(self, params: models.PromptRequest, ctx: AgentContext) -> str | None:
        words = " ".join(getattr(block, "text", "") for block in params.prompt).split()
        for number, word in enumerate(words):
            if self.gate is not None and number == len(words) - 1:
                await self.gate.wait()
            update = {
                "sessionUpdate": "agent_message_chunk",
                "messageId": f"a-{ctx.message_id}",
                "content": {"type": "text", "text": word},
            }
            await ctx.client.session_update(
                models.UpdateSessionNotification.model_validate(
                    {"sessionId": params.session_id, "update": update}
                )
            )
        return None


@asynccontextmanager
async def process(agent: Talker) -> AsyncIterator[tuple[RawPeer, dict[str, Any]]]:
    """One server process's agent, the client's raw end of its connection and what `initialize`
    answered."""
    ours, theirs = memory_pair()
    async with connect_agent(agent, ours):
        peer = RawPeer(theirs)
        peer.request(0, "initialize", INIT)
        answer = await peer.receive()
        assert "result" in answer, answer
        yield peer, answer["result"]


async def until_answer(peer: RawPeer, request_id: int) -> list[dict[str, Any]]:
    """The frames up to and including the answer of `request_id`."""
    frames: list[dict[str, Any]] = []
    while not frames or frames[-1].get("id") != request_id:
        frames.append(await peer.receive())
    return frames


def kinds(frames: list[dict[str, Any]]) -> list[str]:
    """Each frame as one word: the update's kind (a state update with its state), or `answer`."""
    out = []
    for frame in frames:
        if "id" in frame and "method" not in frame:
            out.append("answer" if "result" in frame else f"error {frame['error']['code']}")
            continue
        update = frame["params"]["update"]
        kind = update["sessionUpdate"]
        if kind == "state_update":
            kind += " " + update["state"]
        elif kind == "agent_message_chunk":
            kind = update["content"]["text"]
        out.append(kind)
    return out


async def started(store: SessionStore, words: list[str]) -> str:
    """A session that a first process opened and ran `words` prompts on, then lost."""
    async with process(Talker(store)) as (peer, _):
        peer.request(1, "session/new", {"cwd": "/work"})
        session_id: str = (await peer.receive())["result"]["sessionId"]
        for number, text in enumerate(words, 2):
            peer.request(number, "session/prompt", prompt(session_id, text))
            while (await peer.receive()).get("params", {}).get("update", {}).get("state") != "idle":
                pass
    return session_id


def prompt(session_id: str, text: str) -> dict[str, Any]:
    return {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]}


def resume(session_id: str, **more: Any) -> dict[str, Any]:
    return {"sessionId": session_id, "cwd": "/work", **more}


@pytest.fixture(params=["memory", "sqlite"])
def open_store(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], SessionStore]:
    """Opens a store on the same sessions each call, as another process would (memory: one
    store shared by both agents)."""
    shared = SessionStore()
    return lambda: shared if request.param == "memory" else SessionStore(tmp_path / "s.db")


async def test_the_v2_edition_carries_the_resume_rule_from_its_schema() -> None:
    """The rule is data of the edition (its behaviour table), not a branch on its name: v2's
    schema states the cursor, its `start` type, the -32602 and the marker."""
    rule = BEHAVIOUR.resume
    assert rule is not None
    assert (rule.method, rule.cursor, rule.cursor_tag, rule.start) == (
        "session/resume",
        "replayFrom",
        "type",
        "start",
    )
    assert (rule.unsupported, rule.marker) == (-32602, "replay_complete")


async def test_a_store_serves_resume_and_the_agent_advertises_the_session_baseline(
    open_store: Callable[[], SessionStore],
) -> None:
    """AgentCapabilities.session: "Supplying `{}` means the Agent supports the baseline session
    methods: `session/new`, `session/list`, `session/resume`, `session/close`,
    `session/prompt`, `session/cancel`, and `session/update`": the store answers `session/list`
    and `session/resume`, the SDK `session/close`, the agent the rest."""
    async with process(Talker(open_store())) as (_, answer):
        assert answer["capabilities"] == {"session": {}}


async def test_without_replay_from_nothing_is_replayed_and_no_marker_is_sent(
    open_store: Callable[[], SessionStore],
) -> None:
    """ResumeSessionRequest.replayFrom: "Omitted and `null` are equivalent, and the Agent MUST
    NOT replay previous conversation history." ReplayComplete: "The Agent MUST NOT send it when
    `replayFrom` is omitted or `null`". ResumeSessionResponse: "The Agent MUST send a current
    `state_update` after any requested history replay and before this response, even without
    replay"."""
    session_id = await started(open_store(), ["a b"])
    async with process(Talker(open_store())) as (peer, _):
        peer.request(1, "session/resume", resume(session_id))
        assert kinds(await until_answer(peer, 1)) == ["state_update idle", "answer"]
        peer.request(2, "session/resume", resume(session_id, replayFrom=None))
        assert kinds(await until_answer(peer, 2)) == ["state_update idle", "answer"]


async def test_replay_from_start_replays_all_retained_history_then_the_marker_then_the_state(
    open_store: Callable[[], SessionStore],
) -> None:
    """ResumeSessionRequest.replayFrom: "Supplying `{ "type": "start" }` means the Agent MUST
    replay all retained conversation history before responding." ReplayComplete: "The Agent
    MUST send this exactly once on a session for each `session/resume` request with a
    `replayFrom` cursor, after the last replayed update for that session and before the
    response". ResumeSessionResponse: "a current `state_update` after any requested history
    replay and before this response". A state update is a snapshot, not history: "Resume MUST
    send a current-state snapshot after any replay" (StateUpdate), so the old ones are not
    replayed."""
    session_id = await started(open_store(), ["a b", "c"])
    async with process(Talker(open_store())) as (peer, _):
        peer.request(1, "session/resume", resume(session_id, replayFrom=START))
        frames = await until_answer(peer, 1)
    assert kinds(frames) == [
        "user_message",
        "a",
        "b",
        "user_message",
        "c",
        "replay_complete",
        "state_update idle",
        "answer",
    ]
    echoed = [
        f["params"]["update"]["content"][0]["text"] for f in frames if "user_message" in kinds([f])
    ]
    assert echoed == ["a b", "c"]


async def test_an_empty_replay_still_ends_with_the_marker(
    open_store: Callable[[], SessionStore],
) -> None:
    """ReplayComplete: "exactly once [...] before the response, even for an empty replay"."""
    session_id = await started(open_store(), [])
    async with process(Talker(open_store())) as (peer, _):
        peer.request(1, "session/resume", resume(session_id, replayFrom=START))
        assert kinds(await until_answer(peer, 1)) == [
            "replay_complete",
            "state_update idle",
            "answer",
        ]


@pytest.mark.parametrize(
    "cursor",
    [{"type": "_acme_offset", "offset": 3}, {"type": "messageId", "id": "m1"}, {"type": 5}],
)
async def test_a_cursor_the_store_cannot_serve_is_invalid_params_and_nothing_is_replayed(
    open_store: Callable[[], SessionStore], cursor: dict[str, Any]
) -> None:
    """ResumeSessionRequest.replayFrom: "Agents MUST reject unsupported cursor types or
    malformed cursor values with `-32602` (Invalid params), rather than substituting another
    cursor or resuming without replay." ReplayComplete: "The Agent MUST NOT send it [...] when
    it cannot finish the replay"."""
    session_id = await started(open_store(), ["a"])
    async with process(Talker(open_store())) as (peer, _):
        peer.request(1, "session/resume", resume(session_id, replayFrom=cursor))
        assert kinds(await until_answer(peer, 1)) == ["error -32602"]


async def test_an_unknown_session_is_resource_not_found() -> None:
    """As v1's: a session the store does not know is -32002, with nothing sent before it."""
    async with process(Talker(SessionStore())) as (peer, _):
        peer.request(1, "session/resume", resume("nobody", replayFrom=START))
        assert kinds(await until_answer(peer, 1)) == ["error -32002"]


class SlowHistory:
    """The store's history, whose reads wait on `release` (a replay in progress)."""

    def __init__(self, store: SessionStore, release: asyncio.Event, reading: asyncio.Event):
        self._history = store.history
        self._release = release
        self._reading = reading
        self.limit = store.history.limit

    async def aread(self, session_id: str) -> Replay:
        self._reading.set()
        await self._release.wait()
        return await self._history.aread(session_id)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._history, name)


async def test_live_updates_are_held_during_replay_and_the_state_is_current() -> None:
    """ReplayComplete: "After receiving the request, the Agent MUST hold live updates for the
    session during replay." SessionUpdate `replay_complete`: "Every update for the session
    between the `session/resume` request and this update is replayed history. Every update after
    it is not." The work still running on this connection makes the current state `running`."""
    store = SessionStore()
    gate, reading, release = asyncio.Event(), asyncio.Event(), asyncio.Event()
    async with process(Talker(store, gate)) as (peer, _):
        peer.request(1, "session/new", {"cwd": "/work"})
        session_id = (await peer.receive())["result"]["sessionId"]
        peer.request(2, "session/prompt", prompt(session_id, "a live"))
        before = [await peer.receive() for _ in range(4)]  # echo, running, answer, "a"
        assert sorted(kinds(before)) == sorted(
            ["user_message", "state_update running", "answer", "a"]
        )
        store.history = SlowHistory(store, release, reading)  # type: ignore[assignment]
        peer.request(3, "session/resume", resume(session_id, replayFrom=START))
        await reading.wait()
        gate.set()  # the work says "live" while the replay is being read
        await asyncio.sleep(0.05)
        release.set()
        frames = await until_answer(peer, 3)
        if "live" not in kinds(frames):
            frames.append(await peer.receive())
    # The replay is what was sent before the request; "live" is released after it.
    assert kinds(frames)[:4] == ["user_message", "a", "replay_complete", "state_update running"]
    assert sorted(kinds(frames)[4:]) == ["answer", "live"]


def test_the_conformance_suites_session_and_lifecycle_cases_pass_with_only_a_store() -> None:
    """The suite's own v2 cases (`sessions.resume_*`: replayFrom, replay_complete, the state
    update; `lifecycle.*`: the prompt's work, cancel and close with the store recording beside
    them) against an agent whose resume, list and close are the store's and the SDK's."""
    agent = Path(__file__).parents[1] / "fixture_agents" / "v2_store_agent.py"
    run = run_suite(
        [sys.executable, str(agent)], "--protocol", "v2", "--only", "sessions.*,lifecycle.*"
    )
    assert run.status == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "sessions.resume_replay_complete_once_before_answer" in run.stdout
