"""The field's production agents with a model to talk to (layer: builds): an agent of the field
(tests/field, `make field`) run exactly as its whole-turn tests run it, offline (a home folder of
its own, no key of this machine, every proxy a closed loopback port) and pointed at its vendor's
model-API mock on loopback, so that the suite's prompt turns get an answer instead of an
authentication error.

- claude-agent-acp 0.101.0 (@agentclientprotocol, tests/interop/production's lock): the
  Anthropic Messages mock (tests/field/mocks/anthropic.py); every model request is answered with
  a few words, so a turn ends `end_turn`. It speaks v1 and v2: a row for each.
- gemini-cli 0.61.0 (tests/field/locks/gemini, installed by `make field` or
  `tests.field.gemini.install()`): the Gemini API mock (tests/field/mocks/gemini.py), the same
  few words. It speaks v1.

The mock is served by this process (a thread) for as long as it runs: `make conformance` runs
the suite on the row while it lives.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil

from .builds import BUILD, Build, BuildError, Program

ANSWER = "Hello from the loopback model."
"""What the mocked model answers to every request."""

_MOCKS = contextlib.ExitStack()
"""The mocks started by this process, closed when it exits (at exit, while their threads still
run: left to the interpreter's finalization, a mock's shutdown waits forever for its stopped
thread, and `make conformance` never exits)."""
atexit.register(_MOCKS.close)


def claude_agent() -> Build:
    def build() -> Program:
        from tests.field.agents import CLAUDE_AGENT, claude_offline
        from tests.field.mocks import anthropic
        from tests.field.mocks.script import Script, words
        from tests.field.mocks.server import serve

        if not CLAUDE_AGENT.exists():
            raise BuildError("claude-agent-acp is not installed: run `make conformance` (npm ci)")
        home = BUILD / "home" / "claude-agent-acp-mocked"
        shutil.rmtree(home, ignore_errors=True)
        offline = claude_offline(home)
        url = _MOCKS.enter_context(serve(anthropic.responder(Script([], words(ANSWER)))))
        offline.env[offline.mock_variable] = url
        env: dict[str, str | None] = {name: None for name in os.environ}
        env |= offline.env
        return Program((str(CLAUDE_AGENT),), env)

    return build


def gemini_agent() -> Build:
    def build() -> Program:
        from tests.field import gemini
        from tests.field.mocks import gemini as gemini_mock
        from tests.field.mocks.script import Script, words
        from tests.field.mocks.server import serve

        if not gemini.AGENT.exists():
            raise BuildError("gemini-cli is not installed: run `make field`")
        home = BUILD / "home" / "gemini-cli-mocked"
        shutil.rmtree(home, ignore_errors=True)
        offline = gemini.gemini_offline(home)
        url = _MOCKS.enter_context(serve(gemini_mock.responder(Script([], words(ANSWER)))))
        offline.env[offline.mock_variable] = url
        env: dict[str, str | None] = {name: None for name in os.environ}
        env |= offline.env
        return Program(gemini.command(), env)

    return build


BUILDS: dict[str, Build] = {
    "claude-agent-acp-mocked": claude_agent(),
    "gemini-cli-mocked": gemini_agent(),
}
