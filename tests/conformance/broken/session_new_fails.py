"""The base agent (base.py) with one bug: `session/new` is answered with an error (-32603),
so no prompt case can reach its own rule."""

from __future__ import annotations

from typing import Any

from acp_protocol.runtime import InternalError, RequestContext

from tests.conformance.broken import base


class NoSessions(base.Agent):
    async def session_new(self, params: Any, ctx: RequestContext) -> Any:
        raise InternalError("no sessions today")


base.Agent = NoSessions  # type: ignore[misc]
base.serve(base.Bugs())
