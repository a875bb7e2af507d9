"""What the v2 lifecycle cases share (layer: cases): a session opened on the program, prompts
sent to it, and its `session/update`s read as the lifecycle's data names them (the state
updates `running` / `requires_action` / `idle`, the echo of an inserted message, the agent's
streamed chunks), plus requests of the program the suite holds unanswered.

Nothing here knows a wire name: each comes from the edition's `LifecycleEntry`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from .cases import Context, Failure, Skip, describe
from .data import LifecycleEntry, PromptEntry
from .peer import Frame, is_notification, is_response, same_id
from .running import seen_running
from .steps import initialize, new_session, prompt_params

SHORT_PROMPT = "hello from the conformance suite"
"""A prompt whose work ends soon (the starters stream its words back: 6 words, 0.3 s)."""
MEDIUM_PROMPT = " ".join(f"step{n}" for n in range(16))
"""A prompt whose work lasts about a second on the starters (a prompt sent meanwhile is held)."""
ASK_PROMPT = "ask the conformance suite for permission"
"""A prompt the starters answer by asking the client's permission first (`ask …`)."""
PERMISSION_OUTCOME_CANCELLED = {"outcome": {"outcome": "cancelled"}}
"""The permission outcome the suite answers (RequestPermissionOutcome's `cancelled`)."""


def lifecycle_of(ctx: Context) -> tuple[PromptEntry, LifecycleEntry]:
    prompt = ctx.edition.prompt
    if prompt is None or prompt.lifecycle is None:
        raise Skip("the edition answers no prompt at insertion: the v2 lifecycle does not apply")
    return prompt, prompt.lifecycle


@dataclass
class Session:
    """One session of the program under test, and the lifecycle it is read with."""

    ctx: Context
    prompt: PromptEntry
    lifecycle: LifecycleEntry
    id: str

    @classmethod
    async def open(cls, ctx: Context) -> Session:
        prompt, lifecycle = lifecycle_of(ctx)
        await initialize(ctx)
        return cls(ctx, prompt, lifecycle, await new_session(ctx))

    @property
    def mark(self) -> int:
        """The index of the next frame the program writes."""
        return len(self.ctx.peer.received)

    def send_prompt(self, text: str, extra: dict[str, Any] | None = None) -> int:
        """Send a prompt (not waiting for its answer), with the members of `extra` added to its
        params; its request id."""
        request_id = self.ctx.next_id()
        params = prompt_params(self.ctx, self.id, text)
        self.ctx.peer.request(request_id, self.prompt.method, {**params, **(extra or {})})
        return request_id

    def update_of(self, frame: Frame) -> dict[str, Any] | None:
        """The `update` of a `session/update` of this session, else None."""
        if not is_notification(frame, self.prompt.update) or frame.message is None:
            return None
        params = frame.message.get("params")
        if type(params) is not dict or params.get("sessionId") != self.id:
            return None
        update = params.get("update")
        return update if type(update) is dict else None

    def state_of(self, frame: Frame) -> str | None:
        """The state a frame reports for this session (`running`, `idle`, …), else None."""
        update = self.update_of(frame)
        life = self.lifecycle
        if update is None or update.get(life.update_tag) != life.update_value:
            return None
        state = update.get(life.state_tag)
        return state if type(state) is str else None

    def is_state(self, states: Collection[str]) -> Callable[[Frame], bool]:
        return lambda frame: self.state_of(frame) in states

    def is_echo(self, message_id: str) -> Callable[[Frame], bool]:
        """The `user_message` update of the inserted message `message_id`."""

        def matches(frame: Frame) -> bool:
            update = self.update_of(frame)
            life = self.lifecycle
            return (
                update is not None
                and update.get(life.update_tag) == life.user_message
                and update.get("messageId") == message_id
            )

        return matches

    def stop_reason(self, frame: Frame) -> Any:
        update = self.update_of(frame) or {}
        return update.get(self.lifecycle.stop_reason)

    async def wait(
        self, matches: Callable[[Frame], bool], what: str, start: int, timeout: float | None = None
    ) -> Frame:
        """The first frame from `start` on that `matches` (NoAnswer naming `what`)."""
        limit = self.ctx.timeout if timeout is None else timeout
        return await self.ctx.peer.wait_for(matches, limit, what, start=start)

    async def answer(self, request_id: int, timeout: float | None = None) -> dict[str, Any]:
        limit = self.ctx.timeout if timeout is None else timeout
        return await self.ctx.peer.answer(request_id, limit, self.prompt.method)

    async def inserted(self, request_id: int, timeout: float | None = None) -> str:
        """The message id a prompt was answered with (a Failure for any other answer)."""
        answer = await self.answer(request_id, timeout)
        result = answer.get("result")
        message_id = result.get(self.lifecycle.message_id) if type(result) is dict else None
        if type(message_id) is not str or not message_id:
            raise Failure(
                f"{self.prompt.method} was answered with {describe(answer)}, "
                f"no {self.lifecycle.message_id}"
            )
        return message_id

    async def turn(self, start: int, timeout: float | None = None) -> tuple[Frame, Frame]:
        """The turn's first working state (`running`, or `requires_action`) from `start` on,
        and the `idle` after it; NoAnswer saying which did not come."""
        life = self.lifecycle
        working = await self.wait(
            self.is_state((life.running, life.requires_action)),
            f"{life.running} state_update",
            start,
            timeout,
        )
        at = self.ctx.peer.received.index(working) + 1
        idle = await self.wait(
            self.is_state((life.idle,)), f"{life.idle} state_update after it", at, timeout
        )
        return working, idle

    async def seen_running(self, start: int, what: str) -> Frame:
        """The first frame from `start` on that shows the work running (a `running` or
        `requires_action` state, or an agent chunk), waited for as long as an answer may take;
        a Skip naming `what` (the action the case was to take) when the work ended (`idle`)
        first or showed nothing (running.seen_running)."""
        life = self.lifecycle

        def working(frame: Frame) -> bool:
            update = self.update_of(frame)
            return update is not None and (
                update.get(life.update_tag) == life.agent_chunk
                or self.state_of(frame) in (life.running, life.requires_action)
            )

        return await seen_running(self.ctx, working, self.is_state((life.idle,)), start, what)


class Held:
    """The program's requests, no longer answered at once (the suite's client answers a
    permission request `cancelled` as it arrives) but kept for the case to answer: the suite
    plays a client holding a question before its user. The case answers the ones of `methods`;
    any other request of the program stays unanswered while the case runs."""

    def __init__(self, ctx: Context, methods: Collection[str]) -> None:
        self.ctx = ctx
        self.methods = set(methods)
        ctx.peer.hold_requests()  # the case answers them

    def is_request(self, frame: Frame) -> bool:
        message = frame.message
        return (
            message is not None
            and message.get("method") in self.methods
            and "id" in message
            and "result" not in message
        )

    async def next(self, start: int, timeout: float) -> Frame:
        return await self.ctx.peer.wait_for(
            self.is_request, timeout, f"{' or '.join(sorted(self.methods))} request", start=start
        )

    def answer(self, request: Frame, result: Any) -> None:
        assert request.message is not None
        self.ctx.peer.send({"jsonrpc": "2.0", "id": request.message["id"], "result": result})

    @staticmethod
    def is_cancel_of(request: Frame, cancel: str) -> Callable[[Frame], bool]:
        """The protocol-level cancel (`$/cancel_request`) naming `request`'s id."""
        assert request.message is not None
        request_id = request.message["id"]

        def matches(frame: Frame) -> bool:
            params = frame.message.get("params") if frame.message else None
            return (
                is_notification(frame, cancel)
                and type(params) is dict
                and same_id(params.get("requestId"), request_id)
            )

        return matches


def answered(frame: Frame, request_id: int) -> bool:
    return is_response(frame, request_id)
