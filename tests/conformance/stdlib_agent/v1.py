"""ACP v1 (layer: sessions and prompt turns, standard library only), written from
schema/acp/v1/schema.json. A prompt is answered when its turn ends, with its stop reason; the
turn streams the prompt's words back as `agent_message_chunk` updates, 50 ms apart. A prompt
starting "ask" first asks permission (`session/request_permission`). `session/cancel` ends the
turn `cancelled` ("This stop reason MUST be returned when the client sends a `session/cancel`
notification"). A `plan_update` is sent only to a client that advertised `plan` ("Agents MUST
NOT send this update unless the Client advertised `plan`").
"""

from __future__ import annotations

import asyncio
from typing import Any

from .checks import Invalid, content_blocks, maybe, mcp_servers, members, need, new_id, words_of
from .sessions import AUTH_METHOD, MODES, STYLES, Session, Store, choose_style, pause
from .wire import METHOD_NOT_FOUND, Connection, RpcError

CONTENT = {"text", "resource_link", "image", "audio", "resource"}


def capabilities() -> dict[str, Any]:
    return {
        "loadSession": True,
        "promptCapabilities": {"image": True, "audio": True, "embeddedContext": True},
        "mcpCapabilities": {"http": False, "sse": False},
        "sessionCapabilities": {"list": {}, "resume": {}, "close": {}, "delete": {}},
    }


def initialize_result(version: int) -> dict[str, Any]:
    return {
        "protocolVersion": version,
        "agentCapabilities": capabilities(),
        "authMethods": [AUTH_METHOD],
        "agentInfo": {"name": "stdlib-agent", "title": "Standard-library agent", "version": "1"},
    }


class V1:
    def __init__(self, connection: Connection, client: dict[str, Any]) -> None:
        self.connection = connection
        self.client = client
        """The client's capabilities (the latest `initialize`'s)."""
        self.store = Store()
        self.requests = {
            "authenticate": self.authenticate,
            "logout": self.logout,
            "session/new": self.new,
            "session/load": self.load,
            "session/list": self.list_sessions,
            "session/resume": self.resume,
            "session/close": self.close,
            "session/delete": self.delete,
            "session/set_mode": self.set_mode,
            "session/set_config_option": self.set_config_option,
            "session/prompt": self.prompt,
        }

    async def request(self, method: str, params: Any, request_id: Any) -> Any:
        handler = self.requests.get(method)
        if handler is None:
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method}")
        return await handler(members(params))

    def notification(self, method: str, params: Any) -> None:
        if method == "session/cancel" and isinstance(params, dict):
            session = self.store.sessions.get(params.get("sessionId"))  # type: ignore[arg-type]
            if session is not None and session.work is not None:
                session.cancel.set()
        # any other notification is read and ignored

    def update(self, session: Session, update: dict[str, Any]) -> None:
        self.connection.notify(
            "session/update", {"sessionId": session.session_id, "update": update}
        )

    def state(self, session: Session) -> dict[str, Any]:
        return {
            "modes": {"currentModeId": session.mode, "availableModes": MODES},
            "configOptions": [
                {
                    "id": "style",
                    "name": "Reply style",
                    "type": "select",
                    "currentValue": session.style,
                    "options": STYLES,
                }
            ],
        }

    # -- authentication ----------------------------------------------------------------------
    async def authenticate(self, p: dict[str, Any]) -> Any:
        if need(p, "methodId", "string") != AUTH_METHOD["id"]:
            raise Invalid("/methodId", "not an advertised authentication method")
        return {}

    async def logout(self, p: dict[str, Any]) -> Any:
        return {}

    # -- session setup -----------------------------------------------------------------------
    async def new(self, p: dict[str, Any]) -> Any:
        cwd = need(p, "cwd", "absolute path")
        servers = mcp_servers(p, "", typed_stdio=False, required=True)
        session = Session(new_id("session"), cwd, servers)
        self.store.sessions[session.session_id] = session
        return {"sessionId": session.session_id, **self.state(session)}

    async def load(self, p: dict[str, Any]) -> Any:
        session = self.reopen(p, required=True)
        for who, message_id, blocks in session.history:  # the history, replayed before the answer
            kind = "user_message_chunk" if who == "user" else "agent_message_chunk"
            for block in blocks:
                self.update(
                    session, {"sessionUpdate": kind, "content": block, "messageId": message_id}
                )
        return self.state(session)

    async def resume(self, p: dict[str, Any]) -> Any:
        return self.state(self.reopen(p, required=False))

    def reopen(self, p: dict[str, Any], required: bool) -> Session:
        session_id = need(p, "sessionId", "string")
        cwd = need(p, "cwd", "absolute path")
        servers = mcp_servers(p, "", typed_stdio=False, required=required)
        session = self.store.get(session_id)
        session.cwd, session.mcp_servers = cwd, servers
        return session

    async def list_sessions(self, p: dict[str, Any]) -> Any:
        maybe(p, "cursor", "string")
        cwd = p.get("cwd")
        if cwd is not None:
            need(p, "cwd", "absolute path")
        return {"sessions": self.store.listed(cwd)}

    async def close(self, p: dict[str, Any]) -> Any:
        session = self.store.sessions.get(need(p, "sessionId", "string"))
        if session is not None:  # closing a session not (or no longer) open succeeds
            await self.stop(session)
            self.store.sessions.pop(session.session_id, None)
        return {}

    async def delete(self, p: dict[str, Any]) -> Any:
        session = self.store.get(need(p, "sessionId", "string"))
        await self.stop(session)
        self.store.sessions.pop(session.session_id, None)
        return {}

    async def stop(self, session: Session) -> None:
        """Cancel the running turn, as `session/cancel` does, and wait until it is answered."""
        if session.work is not None:
            session.cancel.set()
            await asyncio.wait([session.work])

    async def set_mode(self, p: dict[str, Any]) -> Any:
        session_id, mode = need(p, "sessionId", "string"), need(p, "modeId", "string")
        session = self.store.get(session_id)
        if mode not in [m["id"] for m in MODES]:
            raise Invalid("/modeId", f"no mode {mode!r}")
        session.mode = mode
        self.update(session, {"sessionUpdate": "current_mode_update", "currentModeId": mode})
        return {}

    async def set_config_option(self, p: dict[str, Any]) -> Any:
        session_id, config_id = need(p, "sessionId", "string"), need(p, "configId", "string")
        if "value" not in p:
            raise Invalid("/value", "required")
        if p.get("type") == "boolean":
            need(p, "value", "boolean")
        session = self.store.get(session_id)
        choose_style(session, config_id, p["value"])
        return {"configOptions": self.state(session)["configOptions"]}

    # -- the prompt turn ---------------------------------------------------------------------
    async def prompt(self, p: dict[str, Any]) -> Any:
        session_id = need(p, "sessionId", "string")
        blocks = content_blocks(need(p, "prompt", "array"), "/prompt", CONTENT)
        session = self.store.get(session_id)
        while session.work is not None:  # one turn at a time: a second prompt waits its turn
            await asyncio.wait([session.work])
        session.cancel = asyncio.Event()
        session.work = asyncio.ensure_future(self.turn(session, blocks))
        try:
            return {"stopReason": await asyncio.shield(session.work)}
        except asyncio.CancelledError:  # `$/cancel_request` for the prompt: its turn ends too
            session.cancel.set()
            raise
        finally:
            if session.work is not None and session.work.done():
                session.work = None

    async def turn(self, session: Session, blocks: list[dict[str, Any]]) -> str:
        try:
            return await self.turn_steps(session, blocks)
        finally:
            session.work = None
            session.touch()

    async def turn_steps(self, session: Session, blocks: list[dict[str, Any]]) -> str:
        session.history.append(("user", new_id("user"), blocks))
        words = words_of(blocks)
        if isinstance(self.client.get("plan"), dict):  # advertised: `{}`, not null
            plan = {"type": "markdown", "planId": "plan-1", "content": f"- say {len(words)} words"}
            self.update(session, {"sessionUpdate": "plan_update", "plan": plan})
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
            chunk = {
                "sessionUpdate": "agent_message_chunk",
                "content": block,
                "messageId": reply_id,
            }
            self.update(session, chunk)
            await pause(session.cancel)
        return "cancelled" if session.cancel.is_set() else "end_turn"

    async def asked(self, session: Session, text: str) -> str | None:
        """Ask permission; None when allowed, else the turn's stop reason."""
        tool = new_id("tool")
        self.update(
            session,
            {
                "sessionUpdate": "tool_call",
                "toolCallId": tool,
                "title": text,
                "kind": "other",
                "status": "pending",
            },
        )
        options = [
            {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
            {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
        ]
        question = {
            "sessionId": session.session_id,
            "toolCall": {"toolCallId": tool, "title": text},
            "options": options,
        }
        request_id, answer = self.connection.request("session/request_permission", question)
        cancelled: asyncio.Future[Any] = asyncio.ensure_future(session.cancel.wait())
        both: list[asyncio.Future[Any]] = [answer, cancelled]
        await asyncio.wait(both, return_when=asyncio.FIRST_COMPLETED)
        cancelled.cancel()
        if not answer.done():  # cancelled first: the client answers `cancelled`, read and dropped
            self.connection.forget(request_id)
            self.update(
                session,
                {"sessionUpdate": "tool_call_update", "toolCallId": tool, "status": "failed"},
            )
            return "cancelled"
        outcome = (answer.result().get("result") or {}).get("outcome") or {}
        yes = outcome.get("outcome") == "selected" and outcome.get("optionId") == "allow"
        status = "completed" if yes else "failed"
        self.update(
            session, {"sessionUpdate": "tool_call_update", "toolCallId": tool, "status": status}
        )
        if yes:
            return None
        # not approved (an error answer is no approval either): the turn ends without acting
        return "cancelled" if outcome.get("outcome") == "cancelled" else "end_turn"
