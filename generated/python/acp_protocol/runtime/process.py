# Copied by acp-codegen from templates/python/runtime/process.py. Do not edit here:
# edit the source, then run `make generate`.

"""Moved to `transports.process`: this module keeps old imports working.

Layer: transport (a re-export; new code imports from `acp_protocol.runtime` or `.transports`).
"""

from .transports.process import EXIT_GRACE, ProcessTransport, spawn_process

__all__ = ["EXIT_GRACE", "ProcessTransport", "spawn_process"]
