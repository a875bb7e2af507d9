"""Running client cases (layer: runner): the client cases of an edition, and each case on a
client of its own, several at once, with a deadline.

A case gets a fresh folder (the client's working directory, and the Unix socket its relay
connects to), the client started with `{agent}` and `{prompt}` filled in (client_wire), the
relay's socket spoken to by a `Peer`, then the check. At the end of the case the socket is
closed (the relay exits, as an agent whose input ends), the client's process group and a relay
it left behind are killed, and the folder removed. Results are the agent runner's `Result`, so
the reports are the same.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import client_lifecycle, client_permission, client_requests, client_session
from .cases import Case, Context, Failure, Outcome, Skip, failed, skipped
from .client_agent import ClientRun
from .client_wire import (
    AGENT,
    PROMPT,
    ClientProcess,
    Listener,
    client_argv,
    end_relay,
    relay_command,
)
from .peer import NoAnswer, Peer
from .runner import STDERR_TAIL, Edition, Result, ToolError, editions, load_edition
from .stopping import Stop

PROMPT_TEXT = "hello from the conformance suite"
"""What `{prompt}` becomes."""
STARTUP = 3
"""The client and its relay get this many timeouts to start (two programs, cases in parallel)."""


@dataclass(frozen=True, slots=True)
class ClientSettings:
    command: tuple[str, ...]
    timeout: float = 5.0
    jobs: int = 4
    sigint: bool = False
    """The client cancels its turn on Ctrl-C: run the `client.cancel.*` cases."""
    permission: str | None = None
    """The option kind the client selects for a permission request ("allow", "reject")."""
    stdin: str | None = None
    """The line the client's standard input holds (`{prompt}` filled in); None: /dev/null."""

    @property
    def has_prompt(self) -> bool:
        return any(PROMPT in text for text in (*self.command, self.stdin or ""))

    def stdin_line(self, prompt: str) -> str | None:
        return None if self.stdin is None else self.stdin.replace(PROMPT, prompt)


def all_client_cases(edition: Edition) -> list[Case]:
    return [
        *client_session.cases(edition.data, edition.models),
        *client_requests.cases(edition.data, edition.models),
        *client_permission.cases(edition.data),
        *client_lifecycle.cases(edition.data, edition.models),
    ]


async def run_case(case: Case, edition: Edition, settings: ClientSettings, root: str) -> Result:
    folder = Path(tempfile.mkdtemp(prefix="c", dir=root))
    listener = await Listener.open(folder)
    argv = client_argv(settings.command, relay_command(listener.address), PROMPT_TEXT)
    try:
        client = ClientProcess.start(argv, folder, settings.stdin_line(PROMPT_TEXT))
    except OSError as error:
        await listener.close()
        raise ToolError(f"cannot start {argv[0]!r}: {error.strerror or error}") from None
    began = time.monotonic()
    frames: list[Any] = []
    try:
        stream = await listener.accept(client, STARTUP * settings.timeout)
        if stream is None:
            code = client.process.poll()
            how = (
                f"it exited ({code})"
                if code is not None
                else f"not within {STARTUP * settings.timeout:g} s"
            )
            said = [line for line in client.errors().splitlines() if line.strip()]
            if said:  # what it printed last says why, as a person running it would see
                how += f"; its stderr ends {said[-1].strip()[:200]!r}"
            outcome = failed(f"the client did not start its agent ({AGENT}): {how}")
        else:
            peer = Peer(stream, None)
            run = ClientRun(
                peer,
                edition.data,
                edition.models,
                settings.timeout,
                str(folder),
                client=client,
                stream=stream,
                prompt=PROMPT_TEXT,
                folder=folder,
                has_prompt=settings.has_prompt,
                sigint=settings.sigint,
                permission=settings.permission,
            )
            outcome = await _checked(case, run)
            await peer.close()
            end_relay(stream.relay_pid)
            frames = peer.transcript
        stderr = client.errors()[-STDERR_TAIL:]
    finally:
        await client.end()
        await listener.close()
        shutil.rmtree(folder, ignore_errors=True)
    return Result(case, outcome, time.monotonic() - began, frames, stderr)


async def _checked(case: Case, run: Context) -> Outcome:
    deadline = 2 * run.timeout + case.budget
    try:
        return await asyncio.wait_for(case.check(run), deadline)
    except asyncio.TimeoutError:
        return failed(f"no answer within {deadline:g} s")
    except (NoAnswer, Failure) as error:
        return failed(str(error))
    except Skip as error:
        return skipped(str(error))


async def run_clients(
    cases: Sequence[Case],
    edition: Edition,
    settings: ClientSettings,
    on_result: Callable[[Result], Any] = lambda _: None,
    stop: Stop | None = None,
) -> list[Result]:
    """Every case on a client of its own, `settings.jobs` at once, `on_result` told of each as
    it finishes; results in the cases' order. Once `stop` says so (`--fail-fast`) the cases
    still running are abandoned and those not started never run."""
    stop = Stop() if stop is None else stop
    gate = asyncio.Semaphore(max(1, settings.jobs))
    done: dict[str, Result] = {}
    tasks: list[asyncio.Future[None]] = []
    with tempfile.TemporaryDirectory(prefix="acp-c-") as root:

        async def one(case: Case) -> None:
            async with gate:
                try:
                    result = await run_case(case, edition, settings, root)
                except Exception:  # the suite's own error ends every case at once
                    for task in tasks:
                        if task is not asyncio.current_task():
                            task.cancel()
                    raise
            if stop.reason:
                return  # a case that ended after the stop is not reported
            done[case.id] = result
            on_result(result)
            if stop.see(result):
                for task in tasks:
                    if task is not asyncio.current_task():
                        task.cancel()

        tasks += [asyncio.ensure_future(one(case)) for case in cases]
        try:
            ended = await asyncio.gather(*tasks, return_exceptions=True)
            for outcome in ended:  # the suite's own error
                if isinstance(outcome, Exception):
                    raise outcome
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    return [done[case.id] for case in cases if case.id in done]


async def detect_client_protocol(settings: ClientSettings, unstable: bool) -> str:
    """The edition to test (`--protocol auto`): the version the client's `initialize` asks."""
    keys = [k for k in editions() if k.endswith("/unstable") == unstable]
    if not keys:
        raise ToolError("no edition to test")
    edition = load_edition(max(keys, key=lambda k: int(k.split("/")[0].removeprefix("v"))))
    asked: list[Any] = []

    async def first(ctx: Context) -> Outcome:
        frame = await ctx.peer.wait_for(lambda f: True, ctx.timeout, "the client's initialize")
        params = frame.message.get("params") if frame.message else None
        asked.append(params.get(edition.data.negotiation.field) if type(params) is dict else None)
        return skipped("")

    probe = Case("detect", "", "informative", edition.data.negotiation.quote, first)
    with tempfile.TemporaryDirectory(prefix="acp-c-") as root:
        result = await run_case(probe, edition, settings, root)
    version = asked[0] if asked else None
    if type(version) is not int:
        raise ToolError(
            f"--protocol auto: {result.outcome.reason or 'no initialize'}; give --protocol"
        )
    for key in keys:
        if int(key.split("/")[0].removeprefix("v")) == version:
            return key
    raise ToolError(f"--protocol auto: the client asks version {version}, which has no edition")
