"""The Python target's typed peers: each request method returns the sending coroutine as it is,
typed with its result (the sender's `Coroutine[Any, Any, Any]` is one to a type checker), with no
`typing.cast`: a function call per request at run time, and one mypy --strict calls redundant
where the result is any JSON value (1.5.1's `mcp/message`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp_codegen.ir import Specification, Stability
from acp_codegen.lowering import lower_edition
from acp_codegen.targets import Options
from acp_codegen.targets.python import generate

SCHEMA = "https://json-schema.org/draft/2020-12/schema"


def _method(name: str, **schema: Any) -> dict[str, Any]:
    return {**schema, "x-method": name, "x-side": "agent"}


DEFS: dict[str, Any] = {
    "MessageRequest": _method("message", type="object", properties={}),
    "MessageResponse": _method("message", description="Any JSON value is valid."),
    "RelayRequest": _method("relay", type="object", properties={}),
    "RelayResponse": _method("relay", **{"$ref": "#/$defs/Payload"}),
    "Payload": {"description": "Also any JSON value."},
    "PingRequest": _method("ping", type="object", properties={}),
    "PingResponse": _method("ping", type="object", properties={"ok": {"type": "boolean"}}),
}


def _edition() -> Any:
    doc = {"$schema": SCHEMA, "$defs": DEFS}
    return lower_edition(
        doc, protocol="v1", channel=Stability.STABLE, source="inline.json", sha256="0"
    )


def test_a_peer_returns_the_sending_coroutine_typed_with_its_result(tmp_path: Path) -> None:
    generate(Specification("inline@0", "0", (_edition(),)), tmp_path, Options(command="test"))
    peers = (tmp_path / "acp_protocol" / "v1" / "peers.py").read_text()
    assert "cast(" not in peers
    for method, result in (("ping", "PingResponse"), ("message", "MessageResponse")):
        assert f"-> Coroutine[Any, Any, models.{result}]:" in peers
        assert f'return self._sender.request("{method}", params, options)' in peers
