"""A client built on the generated `acp_protocol.v2.client`, for the interop tests: it spawns
the agent given as its arguments, runs one scenario (argv[1]) and prints one JSON report.

Scenarios: `prompt` (through the session view: a prompt's messageId and its updates until idle),
`cancel` (a long prompt, a second one held behind it, `session/cancel` after two chunks),
`permission` (the agent asks; the user never answers; `session/cancel`: the agent's
`$/cancel_request` is answered `cancelled` by the SDK), `close` (`session/close` during work),
`meta` (each `session_info_update` applied by the edition's `_meta` policy, then `session/list`).
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from acp_protocol.runtime import RpcError
from acp_protocol.runtime.session_store import SessionStore
from acp_protocol.v2 import builders, models
from acp_protocol.v2.behaviour import BEHAVIOUR
from acp_protocol.v2.client import Client, ClientContext, spawn_agent

LONG = " ".join(f"word{i}" for i in range(1, 61))


class Recorder(Client):
    """Keeps every session update (wire form) and every event, in arrival order."""

    def __init__(self) -> None:
        self.events: list[Any] = []
        self.changed = asyncio.Event()
        self.mirror = SessionStore(policy=BEHAVIOUR.meta_policy)
        self.permission_cancelled = False

    def record(self, event: Any) -> None:
        self.events.append(event)
        self.changed.set()

    async def session_update(
        self, params: models.UpdateSessionNotification, ctx: ClientContext
    ) -> None:
        update = params.to_wire()["update"]
        if update["sessionUpdate"] == "session_info_update":
            self.mirror.apply_update(params.session_id, update)
        self.record(update)

    async def session_request_permission(
        self, params: models.RequestPermissionRequest, ctx: ClientContext
    ) -> models.RequestPermissionResponse:
        self.record({"permission": "asked"})
        try:
            await asyncio.Event().wait()  # the user never answers
        except asyncio.CancelledError:
            self.permission_cancelled = ctx.cancel_source == "peer"
            raise  # the SDK answers the edition's outcome of a cancelled permission request
        raise AssertionError("unreachable")

    async def until(self, predicate: Any) -> None:
        while not any(predicate(e) for e in self.events):
            self.changed.clear()
            await self.changed.wait()


def is_state(state: str) -> Any:
    return lambda e: e.get("sessionUpdate") == "state_update" and e.get("state") == state


def chunks(count: int) -> Any:
    return (
        lambda _: sum(1 for e in recorder.events if e.get("sessionUpdate") == "agent_message_chunk")
        >= count
    )


async def prompt(agent: Any, session_id: str, text: str) -> Any:
    request = models.PromptRequest.model_validate(
        {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]}
    )
    try:
        return (await agent.session_prompt(request)).to_wire()
    except RpcError as error:
        return {"error": error.code}


async def main(scenario: str, program: str, *args: str) -> dict[str, Any]:
    report: dict[str, Any] = {}
    async with spawn_agent(recorder, program, *args) as connection:
        agent = connection.agent
        init = models.InitializeRequest.model_validate(
            {"protocolVersion": 2, "info": {"name": "our-v2-client", "version": "0"}}
        )
        report["initialize"] = (await agent.initialize(init)).to_wire()
        new = models.NewSessionRequest.model_validate({"cwd": "/interop", "mcpServers": []})
        session_id = (await agent.session_new(new)).session_id
        cancel = models.CancelSessionNotification(session_id=session_id)
        if scenario == "prompt":  # through the session view
            view = connection.session(session_id)
            message_id = await view.prompt([builders.content_block.text("hello big world")])
            report["prompt"] = {"messageId": message_id}
            report["view_stop_reason"] = (await view.idle(message_id)).stop_reason
            report["view_updates"] = [u.to_wire()["sessionUpdate"] for u in view.updates]
            await recorder.until(is_state("idle"))
        elif scenario == "meta":
            report["prompt"] = await prompt(agent, session_id, "set title")
            await recorder.until(is_state("idle"))
        elif scenario == "cancel":
            report["prompt"] = await prompt(agent, session_id, LONG)
            held = asyncio.create_task(prompt(agent, session_id, "held"))
            await recorder.until(chunks(2))
            await agent.session_cancel(cancel)
            report["held"] = await held
            await recorder.until(is_state("idle"))
        elif scenario == "permission":
            report["prompt"] = await prompt(agent, session_id, "please ask permission")
            await recorder.until(lambda e: e.get("permission") == "asked")
            await agent.session_cancel(cancel)
            await recorder.until(is_state("idle"))
            report["permission_cancelled_by_peer"] = recorder.permission_cancelled
        elif scenario == "close":
            report["prompt"] = await prompt(agent, session_id, LONG)
            await recorder.until(chunks(2))
            close = models.CloseSessionRequest(session_id=session_id)
            await agent.session_close(close)
            recorder.record({"closed": True})
        if scenario == "meta":
            record = recorder.mirror.get(session_id)
            report["meta"] = None if record is None else record.meta
            listed = await agent.session_list(models.ListSessionsRequest())
            report["list"] = listed.to_wire()
    report["events"] = recorder.events
    return report


recorder = Recorder()

if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(*sys.argv[1:]))))
