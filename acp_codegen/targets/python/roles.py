"""The IR's roles as the Python typed layer names them: the spelling of a handler.

Roles are data in the IR; the kit names them (`kit.roles`: `Agent`, `AgentPeer`, …) and applies
the one clash rule (`kit.naming`). What is Python's: a handler is the method name with each
non-alphanumeric run turned into `_`, outer `_` dropped (`session/prompt` → `session_prompt`,
`$/cancel_request` → `cancel_request`); a notification that shares its name with a request gets
`_notification`; the base classes keep `extension_request` and `extension_notification`.
"""

from __future__ import annotations

import re

from acp_codegen import ir
from acp_codegen.targets.kit.naming import MethodSpelling
from acp_codegen.targets.kit.roles import RoleView
from acp_codegen.targets.kit.roles import role_views as kit_role_views


def handler_name(method: str) -> str:
    return re.sub(r"[^0-9A-Za-z]+", "_", method).strip("_")


RESERVED_HANDLERS = frozenset({"extension_request", "extension_notification"})
"""The base classes' own handlers of extension methods."""
HANDLERS = MethodSpelling("Python", "handler", handler_name, "_notification", RESERVED_HANDLERS)
"""How the Python target names a method's handler (`HANDLERS.names(edition)`)."""


def role_views(edition: ir.Edition) -> tuple[RoleView, ...]:
    """The edition's roles named for Python."""
    return kit_role_views(edition, HANDLERS.names(edition))
