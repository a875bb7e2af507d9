"""ACP v2 as it behaves: the generated v2 typed layer against a raw peer, rule by rule.

Each test quotes the v2 schema description it checks (schema/acp/v2/schema.json); what is
asserted is exactly what another implementation receives on the wire.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from acp_protocol.runtime import memory_pair
from acp_protocol.runtime.session_store import SessionStore
from acp_protocol.v1 import agent as v1_agent
from acp_protocol.v2 import models
from acp_protocol.v2.agent import Agent, AgentContext, connect_agent
from acp_protocol.v2.client import Client, ClientContext, connect_client

from tests.runtime.support import RawPeer

SESSION = "s-1"


def prompt(text: str, session: str = SESSION) -> dict[str, Any]:
    return {"sessionId": session, "prompt": [{"type": "text", "text": text}]}


def state(frame: dict[str, Any]) -> str | None:
    update = frame.get("params", {}).get("update", {})
    return update.get("state") if update.get("sessionUpdate") == "state_update" else None


class WordsAgent(Agent):
    """Streams the prompt back a word at a time, with a pause standing for the model's work;
    asks permission first when the prompt says so."""

    def __init__(self, pause: float = 0.01) -> None:
        self.pause = pause
        self.permission_outcome: Any = None

    async def initialize(
        self, params: models.InitializeRequest, ctx: AgentContext
    ) -> models.InitializeResponse:
        # Echoes the client's version: the SDK must answer its own.
        return models.InitializeResponse.model_validate(
            {"protocolVersion": params.protocol_version, "info": {"name": "w", "version": "1"}}
        )

    async def session_prompt(self, params: models.PromptRequest, ctx: AgentContext) -> str | None:
        text = " ".join(getattr(block, "text", "") for block in params.prompt)
        if "permission" in text:
            answer = await ctx.client.session_request_permission(
                models.RequestPermissionRequest.model_validate(
                    {
                        "sessionId": params.session_id,
                        "title": "Run the tool?",
                        "options": [{"optionId": "ok", "name": "OK", "kind": "allow_once"}],
                    }
                )
            )
            self.permission_outcome = answer.to_wire()["outcome"]
        for word in text.split():
            await asyncio.sleep(self.pause)
            await ctx.client.session_update(
                models.UpdateSessionNotification.model_validate(
                    {
                        "sessionId": params.session_id,
                        "update": {
                            "sessionUpdate": "agent_message_chunk",
                            "messageId": "a-" + str(ctx.message_id),
                            "content": {"type": "text", "text": word},
                        },
                    }
                )
            )
        return None


@asynccontextmanager
async def serving(agent: Agent | v1_agent.Agent) -> AsyncIterator[RawPeer]:
    ours, theirs = memory_pair()
    connect = connect_agent if isinstance(agent, Agent) else v1_agent.connect_agent
    async with connect(agent, ours):  # type: ignore[arg-type]
        yield RawPeer(theirs)


async def until(peer: RawPeer, done: Any) -> list[dict[str, Any]]:
    """Frames until (and with) the first for which `done(frame)` holds."""
    frames = []
    while True:
        frame = await peer.receive()
        frames.append(frame)
        if done(frame):
            return frames


async def test_a_prompt_is_answered_at_insertion_and_its_work_reported_running_then_idle() -> None:
    """PromptResponse: "Response acknowledging that a user prompt was inserted [...] Processing
    and completion are reported through `state_update` session updates."; StateUpdate: "the agent
    MUST report `running` when foreground work starts [...] and `idle` when it ends"."""
    async with serving(WordsAgent()) as peer:
        peer.request(1, "session/prompt", prompt("hello big world"))
        frames = await until(peer, lambda f: state(f) == "idle")
    answer = next(f for f in frames if f.get("id") == 1)
    message_id = answer["result"]["messageId"]
    updates = [f["params"]["update"] for f in frames if f.get("method") == "session/update"]
    assert updates[0] == {
        "sessionUpdate": "user_message",
        "messageId": message_id,
        "content": [{"type": "text", "text": "hello big world"}],
    }
    assert updates[1] == {"sessionUpdate": "state_update", "state": "running"}
    words = [u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk"]
    assert words == ["hello", "big", "world"]
    assert updates[-1] == {
        "sessionUpdate": "state_update",
        "state": "idle",
        "stopReason": "end_turn",
    }
    assert frames.index(answer) < len(frames) - 1  # answered before the work ended


async def test_session_cancel_ends_the_work_cancelled_and_answers_held_prompts_minus_32800() -> (
    None
):
    """CancelSessionNotification: "Notification to cancel a session's foreground work and its
    prompts not yet inserted."; held prompts are answered `-32800`."""
    async with serving(WordsAgent(pause=0.05)) as peer:
        peer.request(1, "session/prompt", prompt("one two three four five six"))
        await until(peer, lambda f: f.get("id") == 1)
        peer.request(2, "session/prompt", prompt("held"))
        await until(peer, lambda f: f.get("params", {}).get("update", {}).get("content"))
        peer.notify("session/cancel", {"sessionId": SESSION})
        frames = await peer.receive_all(2)  # in either order
    idle = next(f for f in frames if state(f) == "idle")["params"]["update"]
    assert idle["stopReason"] == "cancelled"
    held = next(f for f in frames if f.get("id") == 2)
    assert held["error"]["code"] == -32800


async def test_a_prompt_sent_while_work_runs_is_inserted_when_the_work_ends() -> None:
    async with serving(WordsAgent()) as peer:
        peer.request(1, "session/prompt", prompt("first"))
        peer.request(2, "session/prompt", prompt("second"))
        frames = await until(peer, lambda f: f.get("id") == 2)
    states = [state(f) for f in frames if state(f)]
    assert states == ["running", "idle", "running"]  # the second waited for the first's idle


async def test_session_close_sends_the_idle_cancelled_update_before_its_answer() -> None:
    """CloseSessionRequest: "When closing cancels active foreground work, the Agent MUST send
    the final updates for that work and the idle `state_update` with `stopReason: "cancelled"`
    before responding successfully to `session/close`."; "Closing a session that does not exist
    or is not active SHOULD succeed"."""
    async with serving(WordsAgent(pause=0.05)) as peer:
        peer.request(1, "session/prompt", prompt("a b c d e f g"))
        await until(peer, lambda f: f.get("id") == 1)
        peer.request(2, "session/close", {"sessionId": SESSION})
        frames = await until(peer, lambda f: f.get("id") == 2)
        peer.request(3, "session/close", {"sessionId": "never-opened"})
        unknown = await peer.receive()
    idle = [i for i, f in enumerate(frames) if state(f) == "idle"]
    assert idle and frames[idle[0]]["params"]["update"]["stopReason"] == "cancelled"
    assert frames[-1] == {"jsonrpc": "2.0", "id": 2, "result": {}}
    assert unknown == {"jsonrpc": "2.0", "id": 3, "result": {}}


class ClosingAgent(WordsAgent):
    """Frees its own state on close, then answers as the SDK would (`super()`)."""

    def __init__(self, pause: float) -> None:
        super().__init__(pause)
        self.closed: list[str] = []

    async def session_close(
        self, params: models.CloseSessionRequest, ctx: AgentContext
    ) -> models.CloseSessionResponse:
        self.closed.append(params.session_id)
        return await super().session_close(params, ctx)


async def test_an_agents_session_close_override_runs_after_the_work_ended_and_super_succeeds() -> (
    None
):
    """The SDK cancels the work and sends its idle update first; the override frees what it
    holds and `super()` answers the close successfully (never `-32601`)."""
    agent = ClosingAgent(pause=0.05)
    async with serving(agent) as peer:
        peer.request(1, "session/prompt", prompt("a b c d e f g"))
        await until(peer, lambda f: f.get("id") == 1)
        peer.request(2, "session/close", {"sessionId": SESSION})
        frames = await until(peer, lambda f: f.get("id") == 2)
    assert any(state(f) == "idle" for f in frames)
    assert frames[-1] == {"jsonrpc": "2.0", "id": 2, "result": {}}
    assert agent.closed == [SESSION]


async def test_cancelling_the_work_cancels_its_pending_permission_request() -> None:
    """The work's nested requests are cancelled with it: the client gets `$/cancel_request` for
    the pending `session/request_permission`, and the work ends idle `cancelled`."""
    async with serving(WordsAgent()) as peer:
        peer.request(1, "session/prompt", prompt("ask permission"))
        asked = (await until(peer, lambda f: f.get("method") == "session/request_permission"))[-1]
        peer.notify("session/cancel", {"sessionId": SESSION})
        frames = await until(peer, lambda f: f.get("method") == "$/cancel_request")
        assert frames[-1]["params"] == {"requestId": asked["id"]}
        peer.send(
            {"jsonrpc": "2.0", "id": asked["id"], "result": {"outcome": {"outcome": "cancelled"}}}
        )
        frames = await until(peer, lambda f: state(f) == "idle")
    assert frames[-1]["params"]["update"]["stopReason"] == "cancelled"


async def test_work_awaiting_a_permission_reports_requires_action_then_running_again() -> None:
    """StateUpdate: "The agent SHOULD report `requires_action` when the foreground workflow as a
    whole cannot progress without user action, including permissions or elicitations. Once
    reported, it MUST report `running` when progress resumes"."""
    async with serving(WordsAgent()) as peer:
        peer.request(1, "session/prompt", prompt("ask permission"))
        frames = await until(peer, lambda f: f.get("method") == "session/request_permission")
        assert [state(f) for f in frames if state(f)] == ["running", "requires_action"]
        asked = frames[-1]
        outcome = {"outcome": "selected", "optionId": "ok"}
        peer.send({"jsonrpc": "2.0", "id": asked["id"], "result": {"outcome": outcome}})
        frames = await until(peer, lambda f: state(f) == "idle")
    states = [state(f) for f in frames if state(f)]
    assert states == ["running", "idle"]  # resumed before the words, then the end
    words = [f for f in frames if f.get("params", {}).get("update", {}).get("content")]
    assert frames.index(words[0]) > next(i for i, f in enumerate(frames) if state(f) == "running")
    assert frames[-1]["params"]["update"]["stopReason"] == "end_turn"


async def test_work_cancelled_while_awaiting_the_user_goes_idle_without_running() -> None:
    """RequiresActionStateUpdate: "Once reported, agents MUST report `running` when progress
    resumes, or `idle` if the work ends without resuming"."""
    async with serving(WordsAgent()) as peer:
        peer.request(1, "session/prompt", prompt("ask permission"))
        asked = (await until(peer, lambda f: f.get("method") == "session/request_permission"))[-1]
        peer.notify("session/cancel", {"sessionId": SESSION})
        await until(peer, lambda f: f.get("method") == "$/cancel_request")
        peer.send(
            {"jsonrpc": "2.0", "id": asked["id"], "result": {"outcome": {"outcome": "cancelled"}}}
        )
        frames = await until(peer, lambda f: state(f) == "idle")
    assert [state(f) for f in frames if state(f)] == ["idle"]


async def test_initialize_answers_the_agents_own_version_never_the_clients() -> None:
    """InitializeResponse.protocolVersion: "The highest protocol version supported by the agent
    that is at or below the version requested by the client. If no such version exists,
    initialization fails with error code -32022."; a v1 agent asked for 2 answers 1."""
    info = {"name": "c", "version": "1"}
    async with serving(WordsAgent()) as peer:
        peer.request(1, "initialize", {"protocolVersion": 7, "info": info})
        newer = await peer.receive()
        peer.request(2, "initialize", {"protocolVersion": 1, "info": info})
        older = await peer.receive()
    assert newer["result"]["protocolVersion"] == 2
    assert older["error"]["code"] == -32022
    assert older["error"]["data"] == {"requested": 1, "supported": [2]}

    class Echo(v1_agent.Agent):
        async def initialize(self, params: Any, ctx: Any) -> Any:
            return {"protocolVersion": params.protocol_version}

    async with serving(Echo()) as peer:
        peer.request(1, "initialize", {"protocolVersion": 2})
        assert (await peer.receive())["result"]["protocolVersion"] == 1


class BaselineAgent(WordsAgent):
    """WordsAgent (`session/prompt`) with `session/new` and `session/resume` too: with a store
    answering `session/list` and the SDK's `session/close`, the whole session baseline."""

    async def session_new(
        self, params: models.NewSessionRequest, ctx: AgentContext
    ) -> models.NewSessionResponse:
        return models.NewSessionResponse(session_id=SESSION)

    async def session_resume(
        self, params: models.ResumeSessionRequest, ctx: AgentContext
    ) -> models.ResumeSessionResponse:
        return models.ResumeSessionResponse()


async def initialize_and_list(agent: Agent) -> tuple[dict[str, Any], dict[str, Any]]:
    async with serving(agent) as peer:
        peer.request(1, "initialize", {"protocolVersion": 2, "info": {"name": "c", "version": "1"}})
        answer = (await peer.receive())["result"]
        peer.request(2, "session/list", {})
        return answer, await peer.receive()


async def test_capabilities_session_is_advertised_only_when_the_whole_baseline_is_served() -> None:
    """AgentCapabilities.session: "Supplying `{}` means the agent supports the baseline session
    methods: `session/new`, `session/list`, `session/resume`, `session/close`, `session/prompt`,
    `session/cancel`, and `session/update`"; never v1's `agentCapabilities` path."""
    agent = BaselineAgent()
    agent.session_store = SessionStore()
    agent.session_store.create(SESSION, "/work")
    answer, listed = await initialize_and_list(agent)
    assert answer["capabilities"] == {"session": {}}
    assert "agentCapabilities" not in answer
    assert [s["sessionId"] for s in listed["result"]["sessions"]] == [SESSION]
    # A store alone serves session/list, not session/new nor session/resume: no promise.
    words = WordsAgent()
    words.session_store = SessionStore()
    answer, listed = await initialize_and_list(words)
    assert "session" not in answer.get("capabilities", {})
    assert "result" in listed
    # The baseline without a store (nor a session_list of its own): session/list answers -32601.
    answer, listed = await initialize_and_list(BaselineAgent())
    assert "session" not in answer.get("capabilities", {})
    assert listed["error"]["code"] == -32601


async def test_a_v2_session_store_patches_meta_by_top_level_key() -> None:
    """SessionInfoUpdate._meta: "keys it omits are unchanged, a key set to `null` is removed,
    and any other value replaces that key's stored value without merging nested objects"."""
    store = SessionStore()
    agent = WordsAgent()
    agent.session_store = store
    async with serving(agent):
        assert store.policy == "patch"
    store.create(SESSION, "/work")
    store.apply_update(SESSION, {"_meta": {"keep": 1, "drop": 2, "nested": {"a": 1}}})
    store.apply_update(SESSION, {"_meta": {"drop": None, "nested": {"b": 2}}})
    record = store.get(SESSION)
    assert record is not None and record.meta == {"keep": 1, "nested": {"b": 2}}
    assert SessionStore(policy="merge").policy == "merge"


async def test_cancelling_an_unknown_tool_call_or_terminal_is_invalid_params() -> None:
    """CancelToolCallRequest: "The Agent responds with `-32602` if the tool call is unknown,
    already final, or not cancellable." (and CancelTerminalRequest alike)."""
    async with serving(WordsAgent()) as peer:
        peer.request(1, "tool_call/cancel", {"sessionId": SESSION, "toolCallId": "t9"})
        peer.request(2, "terminal/cancel", {"sessionId": SESSION, "terminalId": "x"})
        tool, terminal = await peer.receive_all(2)
    assert (tool["error"]["code"], tool["error"]["data"]) == (-32602, {"toolCallId": "t9"})
    assert (terminal["error"]["code"], terminal["error"]["data"]) == (-32602, {"terminalId": "x"})


class WaitingClient(Client):
    async def session_request_permission(
        self, params: models.RequestPermissionRequest, ctx: ClientContext
    ) -> models.RequestPermissionResponse:
        await asyncio.Event().wait()  # the user never answers
        raise AssertionError("unreachable")


async def test_a_permission_request_the_agent_cancels_is_answered_cancelled() -> None:
    """RequestPermissionOutcome: "The client answers a request the agent cancels with
    `$/cancel_request` with this outcome." (v1 answers -32800)."""
    ours, theirs = memory_pair()
    async with connect_client(WaitingClient(), ours):
        peer = RawPeer(theirs)
        peer.request(
            5,
            "session/request_permission",
            {
                "sessionId": SESSION,
                "title": "Run the tool?",
                "options": [{"optionId": "ok", "name": "OK", "kind": "allow_once"}],
            },
        )
        await asyncio.sleep(0.02)
        peer.cancel(5)
        answer = await peer.receive()
    assert answer == {"jsonrpc": "2.0", "id": 5, "result": {"outcome": {"outcome": "cancelled"}}}


async def test_a_peer_sends_underscore_extension_requests_and_notifications() -> None:
    """Custom methods start with `_`; any other name is refused before anything is sent."""
    ours, theirs = memory_pair()
    async with connect_client(WaitingClient(), ours) as connection:
        peer = RawPeer(theirs)
        asked = asyncio.create_task(connection.agent.extension_request("_acme/ping", {"n": 1}))
        request = await peer.receive()
        assert (request["method"], request["params"]) == ("_acme/ping", {"n": 1})
        peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {"pong": 1}})
        assert await asked == {"pong": 1}
        await connection.agent.extension_notification("_acme/note")
        assert (await peer.receive())["method"] == "_acme/note"
        try:
            _ = connection.agent.extension_request("session/prompt")
        except ValueError as error:
            assert "start with '_'" in str(error)
        else:
            raise AssertionError("a non-extension method was accepted")


def test_the_schemas_named_error_codes_are_constants() -> None:
    """ErrorCode: "Unsupported protocol version" (-32022) exists in v2 only."""
    from acp_protocol.v1 import methods as v1_methods
    from acp_protocol.v2 import methods as v2_methods

    assert v2_methods.UNSUPPORTED_PROTOCOL_VERSION == -32022
    assert v2_methods.ERROR_CODES[-32800] == "Request cancelled"
    assert -32022 not in v1_methods.ERROR_CODES
    assert v1_methods.RESOURCE_NOT_FOUND == -32002
