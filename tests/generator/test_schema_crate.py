"""Pinning ACP's schemas from the Rust crate `agent-client-protocol-schema` (`update-schema
--crate`, acp_codegen/schema_crate.py, tools/crate-schema; docs/schemas.md).

Without cargo: upstream's layout (prettier's JSON style) byte for byte on the pinned files, the
lock's provenance and its backwards compatibility, every failure as one line, determinism of the
writing, and the committed crate-1.20.0 fixture root.

With cargo, the fidelity test (crate 1.15.1 gives npm 2.4.0's files) is
test_schema_crate_fidelity.py.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_codegen import schema_crate
from acp_codegen.ir import Stability
from acp_codegen.loader import load_schema
from acp_codegen.problems import GenerationError
from acp_codegen.schema_crate import EDITIONS, first_error, program_digest
from acp_codegen.schema_lock import (
    CRATES_IO,
    NPM,
    CrateBuild,
    LockedFile,
    NewFile,
    SchemaLock,
    pin,
    read_lock,
    verify_lock,
    write_lock,
)
from acp_codegen.upstream_json import upstream_json
from acp_codegen.validation import validate_schema
from tests.generator.test_cli import cli, one_line
from tests.paths import ROOT

FIXTURE = ROOT / "tests" / "fixtures" / "schemas" / "crate-1.20.0"
"""A project root pinning crate 1.20.0's schemas (`acp-codegen --root` takes it)."""
NPM_2_4_0 = {
    "schema/v1/schema.json": "0d0b1ca83c4872e5473f68926a894c7a8203b59b118e2a79bfe43dd76fbcbc1a",
    "schema/v1/schema.unstable.json": (
        "ce7881d10c854bcac4f0e7d3a9ce4fb0f612ec0a09e64b572940beec4668c189"
    ),
    "schema/v2/schema.json": "b6c91055df549d6f1db1d76d692d0561dad433e03d8ed114ea9b5baed9da72c5",
    "schema/v2/schema.unstable.json": (
        "49e10f8c1935854363ed5b176cc6560d856642ba5020c97d264d34de4b6f1b31"
    ),
}
"""The sha256 of each schema file npm @agentclientprotocol/sdk 2.4.0 ships."""
NPM_2_4_0_CRATE = "1.15.1"
"""The crate version those files were built from: its `$defs` and their every value match 2.4.0's
files, and 1.15.0 and 1.17.0 differ (see docs/schemas.md)."""


# --- Upstream's layout ----------------------------------------------------------------------


def serde_pretty(text: str) -> str:
    """`text` as serde_json's pretty printer writes it: what the crate program prints."""
    return json.dumps(json.loads(text), indent=2, ensure_ascii=False)


@pytest.mark.parametrize("locked", read_lock(ROOT).files, ids=lambda f: f.path)
def test_the_layout_gives_the_pinned_files_byte_for_byte(locked: LockedFile) -> None:
    """Upstream formats its schemas with prettier; laying out the pinned files' content again
    from serde_json's form gives the same bytes (1.4 MB of prettier's output)."""
    published = (ROOT / locked.path).read_text()
    assert upstream_json(serde_pretty(published)) == published


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        # A non-empty object always spans lines; an empty one is {}.
        ({"a": {}, "b": []}, '{\n  "a": {},\n  "b": []\n}\n'),
        # An array fits on one line with the comma after it: 80 columns fit, 81 do not.
        ({"k": ["x" * 68], "z": 0}, '{\n  "k": ["' + "x" * 68 + '"],\n  "z": 0\n}\n'),
        (
            {"k": ["x" * 69], "z": 0},
            '{\n  "k": [\n    "' + "x" * 69 + '"\n  ],\n  "z": 0\n}\n',
        ),
        ({"k": ["x" * 69]}, '{\n  "k": ["' + "x" * 69 + '"]\n}\n'),
        ({"k": ["x" * 70]}, '{\n  "k": [\n    "' + "x" * 70 + '"\n  ]\n}\n'),
        # Wide characters take two columns.
        ({"k": ["日" * 32, "x"]}, '{\n  "k": ["' + "日" * 32 + '", "x"]\n}\n'),
        ({"k": ["日" * 33, "x"]}, '{\n  "k": [\n    "' + "日" * 33 + '",\n    "x"\n  ]\n}\n'),
        # An array holding a non-empty object breaks; one of empty objects need not.
        ({"k": [{"a": 1}]}, '{\n  "k": [\n    {\n      "a": 1\n    }\n  ]\n}\n'),
        ({"k": [{}, {}]}, '{\n  "k": [{}, {}]\n}\n'),
        # Two or more arrays of two or more elements: one a line, however short.
        ({"k": [[1, 2], [3, 4]]}, '{\n  "k": [\n    [1, 2],\n    [3, 4]\n  ]\n}\n'),
        ({"k": [[1, 2], [3]]}, '{\n  "k": [[1, 2], [3]]\n}\n'),
        # Numbers that do not fit fill their lines.
        (
            {"k": list(range(1, 31))},
            '{\n  "k": [\n    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, '
            "20, 21,\n    22, 23, 24, 25, 26, 27, 28, 29, 30\n  ]\n}\n",
        ),
        # Strings keep serde_json's escapes; UTF-8 stays.
        ({"d": 'a "b"\n\u00fc\u0001'}, '{\n  "d": "a \\"b\\"\\n\u00fc\\u0001"\n}\n'),
    ],
)
def test_the_layout_follows_prettier(value: Any, expected: str) -> None:
    assert upstream_json(json.dumps(value, indent=2, ensure_ascii=False)) == expected


def test_the_layout_keeps_numbers_as_prettier_writes_them() -> None:
    text = '{"n": [1.50, 1.0, 1E+05, 2e-07, 0.50, 10, -3, 1.5e0]}'
    assert upstream_json(text) == '{\n  "n": [1.5, 1.0, 1e5, 2e-7, 0.5, 10, -3, 1.5]\n}\n'


def test_the_layout_of_something_that_is_not_json_is_one_line() -> None:
    with pytest.raises(GenerationError, match="the schema program printed no JSON"):
        upstream_json("warning: unused\n{}")


# --- The lock -------------------------------------------------------------------------------


def test_an_npm_lock_reads_and_writes_back_unchanged(tmp_path: Path) -> None:
    lock = read_lock(ROOT)
    (tmp_path / "schema").mkdir()
    write_lock(tmp_path, lock)
    assert (tmp_path / "schema" / "lock.json").read_bytes() == (
        ROOT / "schema" / "lock.json"
    ).read_bytes()
    if lock.registry == NPM:
        assert lock.build is None and lock.origin == f"{lock.package}@{lock.version}"
        assert all(f.features is None for f in lock.files)


def test_a_lock_written_before_crates_io_pins_reads_with_defaults(tmp_path: Path) -> None:
    (tmp_path / "schema").mkdir()
    entry = {"path": "a", "package_path": "b", "protocol": "v1", "channel": "stable"}
    lock_file = tmp_path / "schema" / "lock.json"
    lock_file.write_text(
        json.dumps(
            {
                "package": "@agentclientprotocol/sdk",
                "version": "2.0.2",
                "files": [{**entry, "sha256": "0"}],
            }
        )
    )
    lock = read_lock(tmp_path)
    assert (lock.registry, lock.build, lock.files[0].features) == (NPM, None, None)
    assert lock.origin == "@agentclientprotocol/sdk@2.0.2"


def test_the_crate_fixture_s_lock_records_its_provenance() -> None:
    lock = read_lock(FIXTURE)
    verify_lock(FIXTURE, lock)
    assert lock.origin == "agent-client-protocol-schema@1.20.0 (crates.io)"
    assert (lock.package, lock.version, lock.registry) == (
        "agent-client-protocol-schema",
        "1.20.0",
        CRATES_IO,
    )
    assert lock.build is not None
    # crates.io's checksum of agent-client-protocol-schema-1.20.0.crate (Cargo.lock, the index).
    assert lock.build.checksum == (
        "563da494a1e024efcd6dfce15e5d0be6b08b3317f93c134a62a00f348032a762"
    )
    assert lock.build.rustc.startswith("rustc ")
    assert dict(lock.build.dependencies).keys() == {"schemars", "serde_json"}
    assert [(f.path, f.package_path, f.features) for f in lock.files] == [
        (
            f"schema/acp/{e.protocol}/{Path(e.package_path).name}",
            e.package_path,
            e.crate_features,
        )
        for e in EDITIONS
    ]


def test_the_crate_fixture_was_built_by_this_program() -> None:
    """The fixture's lock names the program that wrote it: a changed tools/crate-schema needs
    the fixture built again (`acp-codegen --root tests/fixtures/schemas/crate-1.20.0
    update-schema --crate 1.20.0`)."""
    build = read_lock(FIXTURE).build
    assert build is not None and build.program == program_digest()


def test_the_crate_fixture_carries_v2_s_state_and_scope_annotations() -> None:
    counts = {}
    for locked in read_lock(FIXTURE).files:
        doc = json.loads((FIXTURE / locked.path).read_text())
        counts[locked.path] = (_count_key(doc, "x-state"), _count_key(doc, "x-scope"))
    assert counts == {
        "schema/acp/v1/schema.json": (0, 0),
        "schema/acp/v1/schema.unstable.json": (0, 0),
        "schema/acp/v2/schema.json": (28, 4),
        "schema/acp/v2/schema.unstable.json": (34, 6),
    }


@pytest.mark.parametrize("locked", read_lock(FIXTURE).files, ids=lambda f: f.path)
def test_the_crate_fixture_s_schemas_are_valid(locked: LockedFile) -> None:
    path = FIXTURE / locked.path
    assert validate_schema(load_schema(path), path.name) == []


def _count_key(value: Any, key: str) -> int:
    if isinstance(value, dict):
        return (key in value) + sum(_count_key(v, key) for v in value.values())
    if isinstance(value, list):
        return sum(_count_key(v, key) for v in value)
    return 0


def test_unknown_registry_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "schema").mkdir()
    (tmp_path / "schema" / "lock.json").write_text(
        json.dumps({"package": "p", "version": "1", "registry": "pypi", "files": []})
    )
    with pytest.raises(GenerationError, match="unknown registry 'pypi'"):
        read_lock(tmp_path)


def test_pinning_twice_writes_the_same_bytes_and_drops_stale_pins(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "schema" / "acp" / "v3").mkdir(parents=True)
    stale = root / "schema" / "acp" / "v3" / "schema.json"
    stale.write_text("{}\n")
    old = LockedFile("schema/acp/v3/schema.json", "schema/v3/schema.json", "v3", "stable", "0")
    write_lock(root, SchemaLock("p", "0", (old,)))
    build = CrateBuild("c" * 64, "rustc 1.95.0", (("schemars", "1.2.3"),), "d" * 64)
    lock = SchemaLock("agent-client-protocol-schema", "9.9.9", (), CRATES_IO, build)
    new = [
        NewFile(e.package_path, e.protocol, e.channel, f'{{"n": {i}}}\n'.encode(), e.crate_features)
        for i, e in enumerate(EDITIONS)
    ]
    pin(root, lock, new)
    first = {p: p.read_bytes() for p in sorted((root / "schema").rglob("*")) if p.is_file()}
    pin(root, lock, new)
    second = {p: p.read_bytes() for p in sorted((root / "schema").rglob("*")) if p.is_file()}
    assert first == second
    assert not stale.exists()
    assert read_lock(root) == SchemaLock(
        lock.package, lock.version, read_lock(root).files, CRATES_IO, build
    )
    assert [f.channel for f in read_lock(root).files] == [
        Stability.STABLE.value,
        Stability.UNSTABLE.value,
        Stability.STABLE.value,
        Stability.UNSTABLE.value,
    ]


def test_the_program_digest_is_of_its_sources_only(tmp_path: Path) -> None:
    copy = tmp_path / "crate-schema"
    shutil.copytree(schema_crate.PROGRAM, copy, ignore=shutil.ignore_patterns("target"))
    (copy / "Cargo.lock").write_text("# not a source\n")
    assert program_digest(copy) == program_digest()
    (copy / "src" / "main.rs").write_text((copy / "src" / "main.rs").read_text() + "\n")
    assert program_digest(copy) != program_digest()


# --- Failures, each one line ----------------------------------------------------------------


def test_without_cargo_update_schema_crate_exits_3(project_root: Path) -> None:
    env = {**os.environ, "PATH": str(Path(sys.executable).parent)}
    code, _, err = cli("--root", str(project_root), "update-schema", "--crate", "1.20.0", env=env)
    assert code == 3
    assert "cargo is not installed" in one_line(err)
    assert "https://rustup.rs" in err
    assert (project_root / "schema" / "lock.json").read_bytes() == (
        ROOT / "schema" / "lock.json"
    ).read_bytes()


@pytest.mark.parametrize(
    ("version", "message"),
    [
        ("1.20", "--crate '1.20' is not a crate version such as 1.20.0"),
        ("latest", "--crate 'latest' is not a crate version"),
        ("1.14.0", "agent-client-protocol-schema 1.14.0 is older than 1.15.0"),
    ],
)
def test_a_version_that_cannot_be_built_is_one_line_exit_2(
    project_root: Path, version: str, message: str
) -> None:
    code, _, err = cli("--root", str(project_root), "update-schema", "--crate", version)
    assert code == 2
    assert message in one_line(err)


def test_version_and_crate_together_are_a_usage_error(project_root: Path) -> None:
    code, _, err = cli(
        "--root", str(project_root), "update-schema", "--version", "2.4.0", "--crate", "1.20.0"
    )
    assert code == 2
    assert "not allowed with argument" in err and "Traceback" not in err


def test_a_cargo_failure_is_its_first_error_line_exit_2(project_root: Path, tmp_path: Path) -> None:
    """A cargo that fails (here a stand-in printing what cargo prints for a version crates.io
    does not have) is reported as its first `error` line, and nothing is pinned."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "cargo"
    fake.write_text(
        "#!/bin/sh\n"
        "echo '    Updating crates.io index' >&2\n"
        "echo 'error: failed to select a version for the requirement "
        '`agent-client-protocol-schema = "=1.99.0"`\' >&2\n'
        "echo 'candidate versions found which didn'\"'\"'t match: 1.20.0, 1.17.0' >&2\n"
        "exit 101\n"
    )
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    code, _, err = cli("--root", str(project_root), "update-schema", "--crate", "1.99.0", env=env)
    assert code == 2
    assert one_line(err) == (
        "acp-codegen: cargo metadata for agent-client-protocol-schema 1.99.0 failed: error: "
        'failed to select a version for the requirement `agent-client-protocol-schema = "=1.99.0"` '
        "(candidate versions found which didn't match: 1.20.0, 1.17.0)"
    )
    assert (project_root / "schema" / "lock.json").read_bytes() == (
        ROOT / "schema" / "lock.json"
    ).read_bytes()


def test_first_error_picks_the_line_that_says_what_went_wrong() -> None:
    compile_error = (
        "   Compiling agent-client-protocol-schema v1.20.0\n"
        "error[E0432]: unresolved import `acp::ProxyRequest`\n"
        "  --> src/main.rs:20:11\n"
        "error: could not compile `acp-crate-schema` (bin) due to 1 previous error\n"
    )
    assert first_error(compile_error) == "error[E0432]: unresolved import `acp::ProxyRequest`"
    program_error = "acp-crate-schema: cannot write the schema: Broken pipe\nerror: process didn't"
    assert first_error(program_error) == "cannot write the schema: Broken pipe"
    assert first_error("warning: something\n") == "warning: something"
    assert first_error("") == ""


def test_make_update_schema_with_version_and_crate_refuses_before_any_set_up() -> None:
    done = subprocess.run(
        ["make", "--no-print-directory", "update-schema", "VERSION=2.4.0", "CRATE=1.20.0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert done.stderr.strip().splitlines()[0] == (
        "make update-schema: give VERSION= (npm) or CRATE= (crates.io), not both"
    )
    assert done.stdout == ""
