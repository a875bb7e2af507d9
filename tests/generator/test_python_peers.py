"""The Python target's typed peers: each request method returns the sending coroutine typed with
its result; a cast only where the result is not `Any` to a type checker (mypy --strict calls a
cast to `Coroutine[Any, Any, Any]` redundant: 1.5.1's `mcp/message`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp_codegen.ir import Specification, Stability
from acp_codegen.lowering import lower_edition
from acp_codegen.targets import Options
from acp_codegen.targets.python import generate
from acp_codegen.targets.python.roles import any_typed_results

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


def test_results_that_are_any_json_value_directly_or_through_an_alias() -> None:
    assert any_typed_results(_edition()) == {"MessageResponse", "RelayResponse"}


def test_a_peer_casts_only_results_that_are_not_any(tmp_path: Path) -> None:
    generate(Specification("inline@0", "0", (_edition(),)), tmp_path, Options(command="test"))
    peers = (tmp_path / "acp_protocol" / "v1" / "peers.py").read_text()
    assert 'cast("Coroutine[Any, Any, models.PingResponse]", sent)' in peers
    assert 'models.MessageResponse]", sent' not in peers
    assert 'models.RelayResponse]", sent' not in peers
    assert peers.count("        return sent  #") == 2
