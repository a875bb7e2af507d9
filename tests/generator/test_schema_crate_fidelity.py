"""The fidelity of `update-schema --crate` (acp_codegen/schema_crate.py, docs/schemas.md): it
builds the four editions of crate 1.15.1, the one npm @agentclientprotocol/sdk 2.4.0's schemas
were built from, and compares them with those files. From cold it downloads the crates and
compiles the crate four times (one per edition's features): about 3 to 4 minutes on two cores;
once the shared target folder (`schema_crate.target_dir()`) is warm, a few seconds. It runs
offline when cargo's registry cache already holds the crate. `make test` runs it in its second
lane (the Makefile's SIDE_TESTS), beside the main pytest run.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from acp_codegen import schema_crate
from acp_codegen.schema_crate import EDITIONS
from acp_codegen.schema_lock import NPM, read_lock, unpack
from tests.generator.test_schema_crate import NPM_2_4_0, NPM_2_4_0_CRATE
from tests.paths import ROOT

# --- Fidelity: crate 1.15.1 gives npm 2.4.0's files -----------------------------------------


@pytest.fixture(scope="module")
def npm_2_4_0(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A folder holding npm @agentclientprotocol/sdk 2.4.0's schema files (`schema/v1/…`): the
    pinned ones while the project pins 2.4.0, else unpacked with npm."""
    lock = read_lock(ROOT)
    if lock.registry == NPM and lock.version == "2.4.0":
        folder = tmp_path_factory.mktemp("npm-2.4.0")
        for locked in lock.files:
            (folder / locked.package_path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / locked.path, folder / locked.package_path)
        yield folder
    else:
        yield unpack("2.4.0", tmp_path_factory.mktemp("npm-2.4.0"))


@pytest.fixture
def cargo_offline_when_warm(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let cargo work offline when its registry cache already holds the crate."""
    if shutil.which("cargo") is None:
        pytest.fail("cargo not found on PATH: install Rust 1.88 or newer (https://rustup.rs)")
    home = Path(os.environ.get("CARGO_HOME") or Path.home() / ".cargo")
    crate = f"agent-client-protocol-schema-{NPM_2_4_0_CRATE}.crate"
    if any((home / "registry" / "cache").glob(f"*/{crate}")):
        monkeypatch.setenv("CARGO_NET_OFFLINE", "true")


def test_crate_1_15_1_builds_npm_2_4_0_s_schemas_byte_for_byte(
    npm_2_4_0: Path, cargo_offline_when_warm: None
) -> None:
    started = time.perf_counter()
    schemas, build = schema_crate.build_schemas(NPM_2_4_0_CRATE)
    took = time.perf_counter() - started
    for edition, (content, _) in zip(EDITIONS, schemas, strict=True):
        published = (npm_2_4_0 / edition.package_path).read_bytes()
        assert NPM_2_4_0[edition.package_path] == _sha256(published), edition.package_path
        differences = _differences(json.loads(content), json.loads(published))
        assert not differences, f"{edition.package_path}:\n" + "\n".join(differences)
        if content != published:
            diff = difflib.unified_diff(
                published.decode().splitlines(), content.decode().splitlines(), "npm", "ours"
            )
            pytest.fail(f"{edition.package_path}: layout differs\n" + "\n".join(list(diff)[:40]))
    assert build.checksum == "1b2316d2cd561917bc2c16e3c64771c77e24363b56d40b58fdad091d02059992"
    # A second run (a warm target folder) writes the same bytes.
    again, _ = schema_crate.build_schemas(NPM_2_4_0_CRATE)
    assert again == schemas
    print(f"crate {NPM_2_4_0_CRATE}: four editions built in {took:.1f} s")


def _sha256(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def _differences(ours: dict[str, Any], npm: dict[str, Any]) -> list[str]:
    """What differs, key order aside: the `$defs` names, then per definition its `x-method`,
    `x-side` and description, then anything else, then the root."""
    found = []
    ours_defs, npm_defs = ours.get("$defs", {}), npm.get("$defs", {})
    if extra := sorted(set(ours_defs) - set(npm_defs)):
        found.append(f"$defs only ours: {extra}")
    if missing := sorted(set(npm_defs) - set(ours_defs)):
        found.append(f"$defs only npm's: {missing}")
    for name in sorted(set(ours_defs) & set(npm_defs)):
        for key in ("x-method", "x-side", "description"):
            if ours_defs[name].get(key) != npm_defs[name].get(key):
                found.append(
                    f"$defs/{name}/{key}: {ours_defs[name].get(key)!r} vs npm's "
                    f"{npm_defs[name].get(key)!r}"
                )
        if ours_defs[name] != npm_defs[name] and not found:
            found.append(f"$defs/{name} differs")
    if {k: v for k, v in ours.items() if k != "$defs"} != {
        k: v for k, v in npm.items() if k != "$defs"
    }:
        found.append("the root (outside $defs) differs")
    return found
