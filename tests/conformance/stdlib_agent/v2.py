"""ACP v2 (layer: the prompt lifecycle, standard library only), written from
schema/acp/v2/schema.json. `session/prompt` is answered when its message is inserted, with its
`messageId` ("The Agent MUST return the inserted message's ID without waiting for processing to
finish"), and echoed in a `user_message` update; the work it starts reports `running`, streams
the words back 50 ms apart, and ends `idle` with a stop reason ("the Agent MUST report `running`
when foreground work starts, … and `idle` when it ends. The Agent SHOULD include a stop reason").
A prompt sent while work runs is held, and inserted when the work ends. `session/cancel` and
`session/close` end the work `idle` / `cancelled` and answer held prompts -32800. A retry with
the `idempotencyKey` of a recorded insertion is answered with its `messageId`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from .checks import (
    Invalid,
    content_blocks,
    maybe,
    mcp_servers,
    members,
    need,
    new_id,
    strings,
    words_of,
)
from .sessions import AUTH_METHOD, STYLES, Session, Store, choose_style, pause
from .wire import METHOD_NOT_FOUND, REQUEST_CANCELLED, Connection, RpcError, log

CONTENT = {"text", "resource_link", "image", "audio", "resource"}


def initialize_result() -> dict[str, Any]:
    prompt: dict[str, Any] = {"image": {}, "audio": {}, "embeddedContext": {}}
    return {
        "protocolVersion": 2,
        "info": {"name": "stdlib-agent", "title": "Standard-library agent", "version": "1"},
        "capabilities": {"session": {"prompt": prompt, "mcp": {"stdio": {}}, "delete": {}}},
        "authMethods": [
            {
                "type": "agent",
                "methodId": AUTH_METHOD["id"],
                **{k: AUTH_METHOD[k] for k in ("name", "description")},
            }
        ],
    }


@dataclass
class Held:
    answer: asyncio.Future[str]
    blocks: list[dict[str, Any]]
    key: str | None


@dataclass
class Lane:
    """A v2 session's prompts: the held ones, in order, and the keys of its insertions."""

    held: list[Held] = field(default_factory=list)
    keys: dict[str, str] = field(default_factory=dict)
    stop: str | None = None


class V2:
    def __init__(self, connection: Connection, client: dict[str, Any]) -> None:
        self.connection = connection
        self.client = client
        """The client's capabilities (the latest `initialize`'s)."""
        self.store = Store()
        self.lanes: dict[str, Lane] = {}
        self.requests = {
            "auth/login": self.login,
            "auth/logout": self.logout,
            "session/new": self.new,
            "session/list": self.list_sessions,
            "session/resume": self.resume,
            "session/close": self.close,
            "session/delete": self.delete,
            "session/set_config_option": self.set_config_option,
            "session/prompt": self.prompt,
            "tool_call/cancel": self.cancel_tool_call,
            "terminal/cancel": self.cancel_terminal,
        }

    async def request(self, method: str, params: Any, request_id: Any) -> Any:
        handler = self.requests.get(method)
        if handler is None:
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method}")
        return await handler(members(params))

    def notification(self, method: str, params: Any) -> None:
        if method == "session/cancel" and isinstance(params, dict):
            session = self.store.sessions.get(params.get("sessionId"))  # type: ignore[arg-type]
            if session is not None:
                self.cancel(session)

    def cancel(self, session: Session) -> None:
        """Foreground work ends `cancelled`; earlier prompts not inserted are answered -32800."""
        lane = self.lanes[session.session_id]
        held, lane.held = lane.held, []
        for prompt in held:
            if not prompt.answer.done():
                prompt.answer.set_exception(RpcError(REQUEST_CANCELLED, "Request cancelled"))
        if session.work is not None:
            session.cancel.set()

    def update(self, session: Session, update: dict[str, Any]) -> None:
        self.connection.notify(
            "session/update", {"sessionId": session.session_id, "update": update}
        )

    def options(self, session: Session) -> list[dict[str, Any]]:
        return [
            {
                "configId": "style",
                "name": "Reply style",
                "type": "select",
                "currentValue": session.style,
                "options": STYLES,
            }
        ]

    # -- authentication and tools --------------------------------------------------------------
    async def login(self, p: dict[str, Any]) -> Any:
        if need(p, "methodId", "string") != AUTH_METHOD["id"]:
            raise Invalid("/methodId", "not an advertised authentication method")
        return {}

    async def logout(self, p: dict[str, Any]) -> Any:
        return {}

    async def cancel_tool_call(self, p: dict[str, Any]) -> Any:
        need(p, "sessionId", "string")
        raise Invalid(
            "/toolCallId", f"no cancellable tool call {need(p, 'toolCallId', 'string')!r}"
        )

    async def cancel_terminal(self, p: dict[str, Any]) -> Any:
        need(p, "sessionId", "string")
        raise Invalid("/terminalId", f"no cancellable terminal {need(p, 'terminalId', 'string')!r}")

    # -- session setup -----------------------------------------------------------------------
    async def new(self, p: dict[str, Any]) -> Any:
        cwd = need(p, "cwd", "absolute path")
        strings(p, "additionalDirectories")
        servers = mcp_servers(p, "", typed_stdio=True, required=False)
        session = Session(new_id("session"), cwd, servers)
        self.store.sessions[session.session_id] = session
        self.lanes[session.session_id] = Lane()
        return {"sessionId": session.session_id, "configOptions": self.options(session)}

    async def resume(self, p: dict[str, Any]) -> Any:
        session_id = need(p, "sessionId", "string")
        cwd = need(p, "cwd", "absolute path")
        servers = mcp_servers(p, "", typed_stdio=True, required=False)
        replay = maybe(p, "replayFrom", "object")
        if replay is not None and replay.get("type") != "start":
            raise Invalid(
                "/replayFrom/type", f"replay cursor {replay.get('type')!r} is not supported"
            )
        session = self.store.get(session_id)
        if cwd != session.cwd:
            raise Invalid("/cwd", "not the session's working directory")
        session.mcp_servers = servers
        if replay is not None:  # the whole retained history, then the marker
            for who, message_id, blocks in session.history:
                kind = "user_message" if who == "user" else "agent_message"
                self.update(
                    session, {"sessionUpdate": kind, "messageId": message_id, "content": blocks}
                )
            self.update(session, {"sessionUpdate": "replay_complete"})
        self.update(
            session,
            {"sessionUpdate": "state_update", "state": "running" if session.work else "idle"},
        )
        return {"configOptions": self.options(session)}

    async def list_sessions(self, p: dict[str, Any]) -> Any:
        maybe(p, "cursor", "string")
        cwd = p.get("cwd")
        if cwd is not None:
            need(p, "cwd", "absolute path")
        return {"sessions": self.store.listed(cwd)}

    async def close(self, p: dict[str, Any]) -> Any:
        session = self.store.sessions.get(need(p, "sessionId", "string"))
        if session is not None:  # "Closing a session that does not exist … SHOULD succeed"
            await self.end(session)
        return {}

    async def delete(self, p: dict[str, Any]) -> Any:
        await self.end(self.store.get(need(p, "sessionId", "string")))
        return {}

    async def end(self, session: Session) -> None:
        """Cancel as `session/cancel` does, wait for the work's idle update, then forget."""
        self.store.sessions.pop(session.session_id, None)  # no prompt is inserted any more
        self.cancel(session)
        if session.work is not None:
            await asyncio.wait([session.work])
        self.cancel(session)  # prompts held meanwhile

    async def set_config_option(self, p: dict[str, Any]) -> Any:
        session_id, config_id = need(p, "sessionId", "string"), need(p, "configId", "string")
        kind = need(p, "type", "string")
        if kind != "id":
            raise Invalid("/type", f"style takes an id value, not {kind!r}")
        value = need(p, "value", "string")
        session = self.store.get(session_id)
        choose_style(session, config_id, value)
        return {"configOptions": self.options(session)}

    # -- prompts and their work --------------------------------------------------------------
    async def prompt(self, p: dict[str, Any]) -> Any:
        session_id = need(p, "sessionId", "string")
        blocks = content_blocks(need(p, "prompt", "array"), "/prompt", CONTENT)
        if not blocks:
            raise Invalid("/prompt", "must not be empty")
        key = maybe(p, "idempotencyKey", "string")  # null: no key
        if key is not None and not 1 <= len(key) <= 255:  # len counts code points
            raise Invalid("/idempotencyKey", "must be 1 to 255 characters")
        session = self.store.get(session_id)
        lane = self.lanes[session_id]
        if key is not None and key in lane.keys:
            return {"messageId": lane.keys[key]}
        if session.work is None and not lane.held:
            return {"messageId": self.insert(session, blocks, key)}
        held = Held(asyncio.get_running_loop().create_future(), blocks, key)
        lane.held.append(held)
        try:
            return {"messageId": await held.answer}
        finally:  # `$/cancel_request` for a held prompt: it is never inserted
            if held in lane.held:
                lane.held.remove(held)

    def insert(self, session: Session, blocks: list[dict[str, Any]], key: str | None) -> str:
        message_id = new_id("user")
        session.history.append(("user", message_id, blocks))
        if key is not None:
            self.lanes[session.session_id].keys[key] = message_id
        self.update(
            session, {"sessionUpdate": "user_message", "messageId": message_id, "content": blocks}
        )
        session.cancel = asyncio.Event()
        session.work = asyncio.ensure_future(self.work(session, blocks))
        return message_id

    def next_held(self, session: Session) -> None:
        lane = self.lanes[session.session_id]
        while lane.held and session.work is None and session.session_id in self.store.sessions:
            held = lane.held.pop(0)
            if held.answer.done():
                continue
            if (
                held.key is not None and held.key in lane.keys
            ):  # a retry of what was inserted meanwhile
                held.answer.set_result(lane.keys[held.key])
            else:
                held.answer.set_result(self.insert(session, held.blocks, held.key))

    async def work(self, session: Session, blocks: list[dict[str, Any]]) -> None:
        stop = "error"
        try:
            self.update(session, {"sessionUpdate": "state_update", "state": "running"})
            stop = await self.steps(session, blocks)
        except Exception as error:  # inserted work that fails ends `error`
            stop = "cancelled" if session.cancel.is_set() else "error"
            log(f"work failed: {error!r}")
        finally:
            if session.cancel.is_set():
                stop = "cancelled"  # "report the `cancelled` stop reason, not `error`"
            self.update(
                session, {"sessionUpdate": "state_update", "state": "idle", "stopReason": stop}
            )
            session.work = None
            session.touch()
            self.next_held(session)

    async def steps(self, session: Session, blocks: list[dict[str, Any]]) -> str:
        words = words_of(blocks)
        if words[0].lower() == "ask" and (stop := await self.asked(session, " ".join(words))):
            return stop
        reply: list[dict[str, Any]] = []
        reply_id = new_id("agent")
        session.history.append(("agent", reply_id, reply))
        for word in words:
            if session.cancel.is_set():
                return "cancelled"
            block = {"type": "text", "text": session.say(word) + " "}
            reply.append(block)
            self.update(
                session,
                {"sessionUpdate": "agent_message_chunk", "messageId": reply_id, "content": block},
            )
            await pause(session.cancel)
        return "cancelled" if session.cancel.is_set() else "end_turn"

    async def asked(self, session: Session, text: str) -> str | None:
        """Ask permission, the work blocked on it (`requires_action`); None when allowed."""
        self.update(session, {"sessionUpdate": "state_update", "state": "requires_action"})
        options = [
            {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
            {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
        ]
        question = {"sessionId": session.session_id, "title": text, "options": options}
        request_id, answer = self.connection.request("session/request_permission", question)
        cancelled: asyncio.Future[Any] = asyncio.ensure_future(session.cancel.wait())
        both: list[asyncio.Future[Any]] = [answer, cancelled]
        await asyncio.wait(both, return_when=asyncio.FIRST_COMPLETED)
        cancelled.cancel()
        if not answer.done():  # "It MUST cancel each of them with `$/cancel_request`"
            self.connection.forget(request_id)
            self.connection.notify("$/cancel_request", {"requestId": request_id})
            return "cancelled"
        outcome = (answer.result().get("result") or {}).get("outcome") or {}
        if outcome.get("outcome") == "selected" and outcome.get("optionId") == "allow":
            self.update(session, {"sessionUpdate": "state_update", "state": "running"})
            return None
        # not approved ("An error response is not approval"): the work ends without resuming
        return "cancelled" if outcome.get("outcome") == "cancelled" else "end_turn"
