"""Real ACP messages (tests/corpus/, written from the spec's examples) through the generated models.

Each corpus file is a list of JSON-RPC frames; a response follows the request with its id. Every
frame's params/result must validate into known variants with no unknown fields (so the open unions
cannot hide a typo) and dump back to the same JSON, byte for byte once canonicalised (sorted keys,
no whitespace: JSON object member order carries no meaning).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from acp_protocol.v1 import methods, models
from acp_protocol.v1.unstable import methods as unstable_methods
from pydantic import BaseModel, TypeAdapter

from tests.paths import ROOT, STABLE_SCHEMA

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "v1"
CORPUS_FILES = sorted(CORPUS.glob("*.json"))


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def frames_with_types(path: Path, table: Any) -> list[tuple[str, Any, Any]]:
    """(label, wire value, wire type) for the params or result of every frame in a corpus file."""
    out: list[tuple[str, Any, Any]] = []
    method_of_id: dict[Any, str] = {}
    for index, frame in enumerate(json.loads(path.read_text())):
        label = f"{path.name}[{index}]"
        if "method" in frame and "id" in frame:
            method_of_id[frame["id"]] = frame["method"]
            out.append((label, frame["params"], table.REQUESTS[frame["method"]].params_type))
        elif "method" in frame:
            out.append((label, frame["params"], table.NOTIFICATIONS[frame["method"]].params_type))
        else:
            spec = table.REQUESTS[method_of_id[frame["id"]]]
            out.append((label, frame["result"], spec.result_type))
    return out


def assert_fully_known(value: Any, where: str) -> None:
    """No `Unknown…` variant and no unknown field anywhere in a parsed message."""
    if isinstance(value, BaseModel):
        assert not type(value).__name__.startswith("Unknown"), f"{where}: unknown variant {value!r}"
        assert not value.model_extra, f"{where}: unknown fields {sorted(value.model_extra)}"
        for name in type(value).model_fields:
            assert_fully_known(getattr(value, name), f"{where}.{name}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            assert_fully_known(item, f"{where}[{index}]")


@pytest.mark.parametrize("table", [methods, unstable_methods], ids=["stable", "unstable"])
@pytest.mark.parametrize("path", CORPUS_FILES, ids=[p.stem for p in CORPUS_FILES])
def test_corpus_message_round_trips_exactly(path: Path, table: Any) -> None:
    for label, wire, wire_type in frames_with_types(path, table):
        adapter: TypeAdapter[Any] = TypeAdapter(wire_type)
        parsed = adapter.validate_python(wire)
        assert_fully_known(parsed, label)
        dumped = adapter.dump_python(parsed, mode="json", by_alias=True, exclude_unset=True)
        assert canonical(dumped) == canonical(wire), label


def test_corpus_covers_every_stable_method() -> None:
    covered = {
        frame["method"]
        for path in CORPUS_FILES
        for frame in json.loads(path.read_text())
        if "method" in frame
    }
    assert covered == {spec.name for spec in methods.METHODS}


def test_corpus_covers_every_session_update_variant() -> None:
    schema = json.loads((ROOT / STABLE_SCHEMA).read_text())
    variants = {
        branch["properties"]["sessionUpdate"]["const"]
        for branch in schema["$defs"]["SessionUpdate"]["oneOf"]
    }
    frames = json.loads((CORPUS / "session_update.json").read_text())
    assert {f["params"]["update"]["sessionUpdate"] for f in frames} == variants


def test_session_update_parses_into_its_variant_class() -> None:
    frames = json.loads((CORPUS / "session_update.json").read_text())
    note = models.SessionNotification.model_validate(frames[1]["params"])
    assert isinstance(note.update, models.SessionUpdateAgentMessageChunk)
    assert note.meta == {"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}
