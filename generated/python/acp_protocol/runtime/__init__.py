# Copied by acp-codegen from templates/python/runtime/__init__.py. Do not edit here:
# edit the source, then run `make generate`.

"""The hand-written runtime shipped inside the generated package.

Source: templates/python/runtime/. Layers, bottom up: `transports` (bytes and lines), `connection`
(the method-agnostic JSON-RPC dispatcher: ids, pending and in-flight tables, cancellation in the
ACP, LSP and MCP dialects), and the generated typed layer on top.
Only pydantic is required; orjson is used when installed.
"""

from .behaviour import TurnRule
from .cancellation import ACP, LSP, MCP, CancelDialect, CancelSignal
from .client_state import ClientState, StateTable
from .connection import Connection
from .errors import (
    ConnectionClosed,
    InternalError,
    InvalidParams,
    InvalidRequest,
    InvalidResponse,
    MethodNotFound,
    ParseError,
    RequestCancelled,
    RpcError,
    UnsupportedVersion,
)
from .event_loop import run
from .file_service import FileAccessError, FileService
from .frames import RequestId
from .handler import Handler, MethodHandlers
from .model import ABSENT, Absent
from .peer import Peer
from .request_state import CancelSource, RequestContext, RequestOptions
from .roles import HandlerContext, RoleConnection, Router
from .session_backends import SessionRecord
from .session_store import SessionStore
from .transports.framing import CONTENT_LENGTH, NDJSON, Framing
from .transports.memory import MemoryTransport, memory_pair
from .transports.pipes import PipeTransport, open_fds, open_stdio
from .transports.process import ProcessTransport, spawn_process
from .transports.transport import (
    DEFAULT_FRAME_LIMIT,
    MessageTransport,
    PushTransport,
    StreamTransport,
    Transport,
)

__all__ = [
    "ABSENT",
    "ACP",
    "CONTENT_LENGTH",
    "DEFAULT_FRAME_LIMIT",
    "LSP",
    "MCP",
    "NDJSON",
    "Absent",
    "CancelDialect",
    "CancelSignal",
    "CancelSource",
    "ClientState",
    "Connection",
    "ConnectionClosed",
    "FileAccessError",
    "FileService",
    "Framing",
    "Handler",
    "HandlerContext",
    "InternalError",
    "InvalidParams",
    "InvalidRequest",
    "InvalidResponse",
    "MemoryTransport",
    "MessageTransport",
    "MethodHandlers",
    "MethodNotFound",
    "ParseError",
    "Peer",
    "PipeTransport",
    "ProcessTransport",
    "PushTransport",
    "RequestCancelled",
    "RequestContext",
    "RequestId",
    "RequestOptions",
    "RoleConnection",
    "Router",
    "RpcError",
    "SessionRecord",
    "SessionStore",
    "StateTable",
    "StreamTransport",
    "Transport",
    "TurnRule",
    "UnsupportedVersion",
    "memory_pair",
    "open_fds",
    "open_stdio",
    "run",
    "spawn_process",
]
