# Copied by acp-codegen from templates/python/runtime/bridge/connect.py. Do not edit here:
# edit the source, then run `make generate`.

"""`bridge connect`: a remote ACP agent, by URL, as a stdio agent.

Layer: transport. An editor that only spawns stdio agents spawns the bridge; the bridge copies
this process's stdin to the remote agent and what the agent sends to stdout, frame by frame and
unchanged (`transports.remote`: `http(s)://` Streamable HTTP, `ws(s)://` WebSocket). Nothing is
decoded but to know which requests still wait for an answer.

- The end of stdin (the editor is done) is a half-close, as for a stdio agent: the answers to the
  requests already sent are still forwarded, for `eof_grace` seconds at most, then the remote
  connection is ended (what was written is sent first, then `DELETE`, or the WebSocket's close).
- The remote going away (the server stops, refuses, or the network fails) ends the bridge: the
  caller gets it as the outcome, to say in one line.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import ssl
from collections.abc import Callable, Mapping

from ..errors import ConnectionClosed
from ..json_codec import decode
from ..transports.http_routing import id_key, is_response
from ..transports.pipes import open_stdio
from ..transports.remote import open_remote
from ..transports.transport import DEFAULT_FRAME_LIMIT, FrameReader, OversizedFrame, Transport

log = logging.getLogger(__name__)


class Outcome(enum.Enum):
    """How `forward_stdio` ended."""

    EDITOR_DONE = "stdin ended, and every request sent was answered (or eof_grace passed)"
    EDITOR_GONE = "stdout was closed: nobody reads the agent any more"
    REMOTE_GONE = "the remote agent ended the connection"


async def forward_stdio(
    url: str,
    *,
    token: str | None = None,
    headers: Mapping[str, str] | None = None,
    eof_grace: float = 5.0,
    frame_limit: int = DEFAULT_FRAME_LIMIT,
    on_outcome: Callable[[Outcome], None] | None = None,
    verify: bool | ssl.SSLContext = True,
) -> Outcome:
    """Forward this process's stdin/stdout to the agent at `url` until either side ends;
    `on_outcome` is told how as soon as it is known, before the remote connection is closed.

    Raises what `open_remote` raises (`MissingExtra`, `ValueError` for another scheme,
    `ConnectionError` when a WebSocket is refused) before anything is forwarded."""
    remote = await open_remote(
        url, token=token, headers=headers, frame_limit=frame_limit, verify=verify
    )
    try:
        stdio = await open_stdio()
        try:
            outcome = await _Forwarder(stdio, remote, frame_limit).run(eof_grace)
            if on_outcome is not None:
                on_outcome(outcome)
            return outcome
        finally:
            await stdio.close()
    finally:
        await remote.close()


class _Forwarder:
    def __init__(self, editor: Transport, remote: Transport, frame_limit: int) -> None:
        self._editor = editor
        self._remote = remote
        self._frame_limit = frame_limit
        self._pending: set[str] = set()  # the editor's requests not answered yet
        self._all_answered = asyncio.Event()
        self._all_answered.set()

    async def run(self, eof_grace: float) -> Outcome:
        loop = asyncio.get_running_loop()
        to_remote = loop.create_task(self._to_remote())
        to_editor = loop.create_task(self._to_editor())
        try:
            done, _ = await asyncio.wait(
                {to_remote, to_editor}, return_when=asyncio.FIRST_COMPLETED
            )
            first = done.pop().result()
            if first is not Outcome.EDITOR_DONE:
                return first
            # Half-close: what was sent is still answered, for `eof_grace` seconds at most.
            answered = loop.create_task(self._all_answered.wait())
            await asyncio.wait(
                {answered, to_editor}, timeout=eof_grace, return_when=asyncio.FIRST_COMPLETED
            )
            answered.cancel()
            if to_editor.done():  # before we closed it: the remote ended the connection
                return to_editor.result()
            return Outcome.EDITOR_DONE
        finally:
            for task in (to_remote, to_editor):
                task.cancel()
            await asyncio.gather(to_remote, to_editor, return_exceptions=True)

    async def _to_remote(self) -> Outcome:
        """The editor's frames to the remote agent, as they came."""
        reader = FrameReader(self._editor.read, self._frame_limit)
        remote = self._remote
        try:
            while (lines := await reader.next_lines()) is not None:
                frames = []
                for line in lines:
                    if isinstance(line, OversizedFrame):
                        log.error(
                            "a frame of %d bytes from stdin is over the limit: dropped", line.size
                        )
                    elif line.strip():
                        self._track_request(line)
                        frames.append(line)
                if frames:
                    remote.write(b"\n".join(frames) + b"\n")
                    if remote.writing_paused():
                        await remote.drain()
        except ConnectionClosed:
            return Outcome.REMOTE_GONE
        return Outcome.EDITOR_DONE

    async def _to_editor(self) -> Outcome:
        """The remote agent's frames to stdout, as they came (whole lines)."""
        editor = self._editor
        try:
            while data := await self._remote.read():
                if self._pending:
                    self._track_answers(data)
                editor.write(data)
                if editor.writing_paused():
                    await editor.drain()
        except ConnectionClosed:
            return Outcome.EDITOR_GONE
        return Outcome.REMOTE_GONE

    def _track_request(self, line: bytes) -> None:
        if b'"method"' not in line or b'"id"' not in line:
            return  # not a request
        with contextlib.suppress(ValueError):
            message = decode(line)
            if isinstance(message, dict) and "method" in message:
                key = id_key(message.get("id"))
                if key is not None:
                    self._pending.add(key)
                    self._all_answered.clear()

    def _track_answers(self, data: bytes) -> None:
        for line in data.split(b"\n"):
            if not line or b'"method"' in line:
                continue  # a request or notification of the agent's (or nothing)
            with contextlib.suppress(ValueError):
                message = decode(line)
                if isinstance(message, dict) and is_response(message):
                    key = id_key(message.get("id"))
                    if key is not None:
                        self._pending.discard(key)
        if not self._pending:
            self._all_answered.set()
