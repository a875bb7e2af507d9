"""Every pinned edition against its own schema: a sample of every method's params and result and
of every union branch (tests/generator/schema_samples.py) is valid JSON Schema, parses into the
generated model, lands on the branch's own variant (never a catch-all it does not declare) and
dumps back byte for byte. Parametrized by the lock, so a re-pinned version is tested as it is.
"""

from __future__ import annotations

import importlib
import json
from types import ModuleType
from typing import Any

import jsonschema
import pytest
from pydantic import BaseModel, TypeAdapter

from acp_codegen.pipeline import ROOT
from acp_codegen.schema_lock import LockedFile, read_lock
from tests.generator.schema_samples import branch_samples, instance

LOCKED = read_lock(ROOT).files


def _module(locked: LockedFile, name: str) -> ModuleType:
    channel = "" if locked.channel == "stable" else ".unstable"
    return importlib.import_module(f"acp_protocol.{locked.protocol}{channel}.{name}")


def _defs(locked: LockedFile) -> dict[str, Any]:
    defs: dict[str, Any] = json.loads((ROOT / locked.path).read_text())["$defs"]
    return defs


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _round_trip(wire_type: Any, value: Any) -> Any:
    adapter: TypeAdapter[Any] = TypeAdapter(wire_type)
    parsed = adapter.validate_python(value)
    dumped = adapter.dump_python(parsed, mode="json", by_alias=True, exclude_unset=True)
    assert _canonical(dumped) == _canonical(value)
    return parsed


def _assert_valid(defs: dict[str, Any], name: str, value: Any) -> None:
    schema = {"$defs": defs, "$ref": f"#/$defs/{name}"}
    jsonschema.Draft202012Validator(schema).validate(value)


EDITION_IDS = [f"{f.protocol}-{f.channel}" for f in LOCKED]


@pytest.mark.parametrize("locked", LOCKED, ids=EDITION_IDS)
def test_every_defs_name_imports_under_its_own_name(locked: LockedFile) -> None:
    models = _module(locked, "models")
    assert [name for name in _defs(locked) if not hasattr(models, name)] == []


@pytest.mark.parametrize("locked", LOCKED, ids=EDITION_IDS)
def test_a_sample_of_every_method_params_and_result_round_trips(locked: LockedFile) -> None:
    defs = _defs(locked)
    table = _module(locked, "methods")
    checked = 0
    for spec in table.METHODS:
        for wire_type in (spec.params_type, spec.result_type):
            if wire_type is None:
                continue
            name = getattr(wire_type, "__name__", None) or str(wire_type)
            value = instance(defs[name], defs)
            _assert_valid(defs, name, value)
            _round_trip(wire_type, value)
            checked += 1
    assert checked >= len(table.METHODS)


@pytest.mark.parametrize("locked", LOCKED, ids=EDITION_IDS)
def test_every_union_branch_parses_into_its_own_variant(locked: LockedFile) -> None:
    """A branch the schema names is never taken for the catch-all, and the declared catch-all
    ("other") keeps every field of what it gets."""
    defs = _defs(locked)
    models = _module(locked, "models")
    checked = 0
    for name, node in defs.items():
        if not any(k in node for k in ("anyOf", "oneOf")):
            continue
        for label, value, other in branch_samples(name, defs):
            _assert_valid(defs, name, value)
            parsed = _round_trip(getattr(models, name), value)
            if isinstance(parsed, BaseModel):
                kind = type(parsed).__name__
                assert other == (kind.startswith("Unknown") or kind.endswith("Other")), label
            checked += 1
    assert checked > 0
