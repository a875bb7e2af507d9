"""Params checked by hand (layer: validation, standard library only): each method reads its
params through these, and anything the schema refuses is answered -32602 ("Invalid params:
Invalid method parameter(s)", JSON-RPC 2.0 §5.1) with `data` naming where, as a JSON pointer
(`{"path": "/cwd", "problem": "required"}`). Unknown members and `_meta` are read past: the
schema's objects are open to them.
"""

from __future__ import annotations

import uuid
from typing import Any

from .wire import INVALID_PARAMS, RpcError


class Invalid(RpcError):
    def __init__(self, path: str, problem: str) -> None:
        super().__init__(
            INVALID_PARAMS,
            f"Invalid params: {path or '/'}: {problem}",
            {"path": path, "problem": problem},
        )


KINDS: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
}


def typed(value: Any, kind: str, path: str) -> Any:
    """`value` when it is of `kind` (`string`, `integer`, `boolean`, `object`, `array`,
    `absolute path`, `uint16`), else Invalid at `path`."""
    if kind == "absolute path":
        if not isinstance(value, str) or not value.startswith("/"):
            raise Invalid(path, "must be an absolute path")
        return value
    if kind == "uint16":
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 65535:
            raise Invalid(path, "must be an integer from 0 to 65535")
        return value
    if (isinstance(value, bool) and kind == "integer") or not isinstance(value, KINDS[kind]):
        raise Invalid(path, f"must be {'an' if kind[0] in 'aeiou' else 'a'} {kind}")
    return value


def members(params: Any, path: str = "") -> dict[str, Any]:
    """Params as an object (absent or null params: no members)."""
    if params is None and not path:
        return {}
    return typed(params, "object", path)  # type: ignore[no-any-return]


def need(obj: dict[str, Any], name: str, kind: str, path: str = "") -> Any:
    if name not in obj:
        raise Invalid(f"{path}/{name}", "required")
    return typed(obj[name], kind, f"{path}/{name}")


def maybe(obj: dict[str, Any], name: str, kind: str, path: str = "") -> Any:
    """An optional member: None when absent or null."""
    value = obj.get(name)
    return None if value is None else typed(value, kind, f"{path}/{name}")


def strings(obj: dict[str, Any], name: str, path: str = "", required: bool = False) -> list[str]:
    values = need(obj, name, "array", path) if required else maybe(obj, name, "array", path)
    for n, value in enumerate(values or []):
        typed(value, "string", f"{path}/{name}/{n}")
    return list(values or [])


def content_blocks(value: Any, path: str, allowed: set[str]) -> list[dict[str, Any]]:
    """A prompt's content blocks: text and resource_link always, others when advertised."""
    blocks: list[dict[str, Any]] = typed(value, "array", path)
    for n, block in enumerate(blocks):
        where = f"{path}/{n}"
        block = typed(block, "object", where)
        kind = need(block, "type", "string", where)
        if kind not in allowed:
            raise Invalid(f"{where}/type", f"content blocks of type {kind!r} are not accepted")
        if kind == "text":
            need(block, "text", "string", where)
        elif kind in ("image", "audio"):
            need(block, "data", "string", where)
            need(block, "mimeType", "string", where)
        elif kind == "resource_link":
            need(block, "uri", "string", where)
            need(block, "name", "string", where)
        elif kind == "resource":
            resource = need(block, "resource", "object", where)
            need(resource, "uri", "string", f"{where}/resource")
            if not isinstance(resource.get("text"), str) and not isinstance(
                resource.get("blob"), str
            ):
                raise Invalid(f"{where}/resource", "needs text or blob")
    return blocks


def words_of(blocks: list[dict[str, Any]]) -> list[str]:
    """What a turn streams back: the words of the text blocks, else the kinds received."""
    words = [w for b in blocks if b.get("type") == "text" for w in b["text"].split()]
    return words or ["received", *(str(b.get("type")) for b in blocks)]


def mcp_servers(obj: dict[str, Any], path: str, typed_stdio: bool, required: bool) -> list[Any]:
    """`mcpServers`: stdio servers only (the one transport advertised), recorded, not started.
    v1's stdio form has no `type` and needs `args` and `env`; v2's says `"type": "stdio"`."""
    servers = (
        need(obj, "mcpServers", "array", path)
        if required
        else maybe(obj, "mcpServers", "array", path)
    )
    names: set[str] = set()
    for n, server in enumerate(servers or []):
        where = f"{path}/mcpServers/{n}"
        server = typed(server, "object", where)
        kind = server.get("type")
        if kind != "stdio" and (typed_stdio or kind is not None):
            raise Invalid(f"{where}/type", f"MCP transport {kind!r} is not supported (stdio is)")
        name = need(server, "name", "string", where)
        if name in names:
            raise Invalid(f"{where}/name", "names must be unique within mcpServers")
        names.add(name)
        need(server, "command", "absolute path", where)
        strings(server, "args", where, required=not typed_stdio)
        env = (
            need(server, "env", "array", where)
            if not typed_stdio
            else maybe(server, "env", "array", where)
        )
        for m, variable in enumerate(env or []):
            variable = typed(variable, "object", f"{where}/env/{m}")
            need(variable, "name", "string", f"{where}/env/{m}")
            need(variable, "value", "string", f"{where}/env/{m}")
    return list(servers or [])


def new_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:16]}"
