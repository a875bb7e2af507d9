"""Pin ACP's JSON schemas built from the Rust crate `agent-client-protocol-schema` (crates.io).

The protocol's source of truth is that crate; upstream derives the published JSON schemas from its
types with a small unpublished program (`schema-generator/` of the protocol repository) and formats
them with prettier. `update_schema_from_crate` does the same with our own program
(tools/crate-schema):

1. copies it to a temporary cargo project whose dependency is `agent-client-protocol-schema =
   "=VERSION"`, resolves it, and seeds its `Cargo.lock` with the one the crate was published with
   (so schemars and serde_json are the versions upstream built with, and a later release of
   either changes nothing);
2. runs it once per edition (`EDITIONS`: the crate features of each) in a shared target folder
   (`target_dir()`), so a second run is quick;
3. lays each output out as upstream publishes it (`upstream_json`: prettier's JSON style) and pins
   the four files with their provenance (`schema_lock.pin`, `CrateBuild`).

Every failure is one line (`GenerationError`; `MissingTool` without cargo). docs/schemas.md tells
the whole story.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomllib

from acp_codegen.ir import Stability
from acp_codegen.problems import GenerationError, MissingTool
from acp_codegen.resources import PACKAGE_DIR
from acp_codegen.schema_lock import CRATES_IO, CrateBuild, NewFile, SchemaLock, pin
from acp_codegen.upstream_json import upstream_json

CRATE = "agent-client-protocol-schema"
PROGRAM = PACKAGE_DIR.parent / "tools" / "crate-schema"
"""Our schema program (a cargo project); it exists in a source checkout."""
BINARY = "acp-crate-schema"
MINIMUM = (1, 15, 0)
"""The oldest crate version whose types the program roots (proxy chains came in 1.15.0)."""
SHAPING_CRATES = ("schemars", "serde_json")
"""The crates besides the schema crate whose versions shape the output, recorded in the lock."""
INSTALL_CARGO = (
    "cargo is not installed; it builds the schemas from the crate (Rust 1.88 or newer: "
    "https://rustup.rs)"
)
TIMEOUT = 3600.0
"""Seconds one cargo command may take (a cold build of one edition takes about a minute)."""
_VERSION = re.compile(r"(\d+)\.(\d+)\.(\d+)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?")
_DEPENDENCY_LINE = re.compile(rf'^{re.escape(CRATE)} = "[^"\n]*"$', re.MULTILINE)


@dataclass(frozen=True, slots=True)
class CrateEdition:
    """One published schema file and how to build it: our program's cargo features and the
    crate features they turn on."""

    package_path: str
    protocol: str
    channel: Stability
    program_features: tuple[str, ...]
    crate_features: tuple[str, ...]


EDITIONS = (
    CrateEdition("schema/v1/schema.json", "v1", Stability.STABLE, (), ("default",)),
    CrateEdition(
        "schema/v1/schema.unstable.json",
        "v1",
        Stability.UNSTABLE,
        ("unstable",),
        ("default", "unstable"),
    ),
    CrateEdition(
        "schema/v2/schema.json",
        "v2",
        Stability.STABLE,
        ("v2",),
        ("default", "unstable_protocol_v2"),
    ),
    CrateEdition(
        "schema/v2/schema.unstable.json",
        "v2",
        Stability.UNSTABLE,
        ("unstable", "v2"),
        ("default", "unstable", "unstable_protocol_v2"),
    ),
)


def update_schema_from_crate(root: Path, version: str) -> SchemaLock:
    """Build every edition's schema from `agent-client-protocol-schema` `version` (crates.io)
    and pin them under `root` (schema/acp/…, schema/lock.json). Nothing under `root` changes
    unless all four files were built."""
    schemas, build = build_schemas(version)
    new = [
        NewFile(edition.package_path, edition.protocol, edition.channel, content, features)
        for edition, (content, features) in zip(EDITIONS, schemas, strict=True)
    ]
    return pin(root, SchemaLock(CRATE, version, (), CRATES_IO, build), new)


def build_schemas(
    version: str, *, program: Path = PROGRAM, target: Path | None = None
) -> tuple[list[tuple[bytes, tuple[str, ...]]], CrateBuild]:
    """Each edition's schema (in `EDITIONS` order, laid out as upstream publishes it, with the
    crate features it was built with) and the build's provenance."""
    _check_version(version)
    cargo = shutil.which("cargo")
    if cargo is None:
        raise MissingTool(INSTALL_CARGO)
    if not (program / "Cargo.toml").is_file():
        raise GenerationError(
            f"{program} is missing: update-schema --crate runs in a source checkout of "
            "acp-codegen (tools/crate-schema)"
        )
    target = target or target_dir()
    with tempfile.TemporaryDirectory(prefix="acp-crate-schema-") as tmp:
        project = Path(tmp) / "crate-schema"
        _copy_program(program, project, version)
        subject = f"{CRATE} {version}"
        metadata = _cargo_json(
            cargo, project, target, ["metadata", "--format-version", "1"], subject
        )
        published_lock = _crate_manifest(metadata, version).parent / "Cargo.lock"
        if published_lock.is_file():
            shutil.copyfile(published_lock, project / "Cargo.lock")
        schemas = []
        for edition in EDITIONS:
            text = _run_program(cargo, project, target, edition, subject)
            schemas.append((upstream_json(text).encode(), edition.crate_features))
        build = CrateBuild(
            checksum=_locked_checksum(project / "Cargo.lock", version),
            rustc=_rustc_version(project),
            dependencies=_locked_versions(project / "Cargo.lock", SHAPING_CRATES),
            program=program_digest(program),
        )
    return schemas, build


def target_dir() -> Path:
    """The cargo target folder all runs share: `$XDG_CACHE_HOME/acp-codegen/crate-schema-target`
    (`~/.cache/…` by default)."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "acp-codegen" / "crate-schema-target"


def program_digest(program: Path = PROGRAM) -> str:
    """The sha256 of the program's sources: Cargo.toml and src/, by relative path, in order."""
    digest = hashlib.sha256()
    files = [program / "Cargo.toml", *sorted((program / "src").rglob("*.rs"))]
    for path in files:
        digest.update(path.relative_to(program).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def _check_version(version: str) -> None:
    match = _VERSION.fullmatch(version)
    if match is None:
        raise GenerationError(f"--crate {version!r} is not a crate version such as 1.20.0")
    if tuple(int(part) for part in match.groups()) < MINIMUM:
        oldest = ".".join(map(str, MINIMUM))
        raise GenerationError(
            f"{CRATE} {version} is older than {oldest}, the oldest whose types tools/crate-schema "
            "roots; pin an older release from npm (--version) instead"
        )


def _copy_program(program: Path, project: Path, version: str) -> None:
    """Copy the program's Cargo.toml and src/ to `project`, depending on `=version`."""
    manifest = (program / "Cargo.toml").read_text()
    pinned, count = _DEPENDENCY_LINE.subn(f'{CRATE} = "={version}"', manifest)
    if count != 1:
        raise GenerationError(
            f'{program / "Cargo.toml"} has no line `{CRATE} = "…"` to set the version in'
        )
    project.mkdir(parents=True)
    (project / "Cargo.toml").write_text(pinned)
    shutil.copytree(program / "src", project / "src")


def _cargo(
    cargo: str, project: Path, target: Path, args: list[str], subject: str
) -> subprocess.CompletedProcess[str]:
    """Run cargo in `project`; a failure is one line naming `subject` and cargo's (or the
    program's) first error."""
    environment = {**os.environ, "CARGO_TERM_COLOR": "never", "CARGO_TARGET_DIR": str(target)}
    command = [cargo, *args]
    try:
        done = subprocess.run(
            command,
            cwd=project,
            env=environment,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise GenerationError(
            f"cargo {args[0]} for {subject} took over {TIMEOUT:.0f} s; stopped"
        ) from exc
    if done.returncode != 0:
        reason = first_error(done.stderr) or f"exit status {done.returncode}"
        raise GenerationError(f"cargo {args[0]} for {subject} failed: {reason}")
    return done


def first_error(stderr: str) -> str:
    """The line that says what went wrong: our program's own message, else cargo's first
    `error` line (with the versions crates.io has, when cargo names them), else the first
    line."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for line in lines:
        if line.startswith(f"{BINARY}: "):
            return line.removeprefix(f"{BINARY}: ")
    for index, line in enumerate(lines):
        if line.startswith("error"):
            following = lines[index + 1] if index + 1 < len(lines) else ""
            if following.startswith("candidate versions found"):
                return f"{line} ({following})"
            return line
    return lines[0] if lines else ""


def _cargo_json(cargo: str, project: Path, target: Path, args: list[str], subject: str) -> Any:
    done = _cargo(cargo, project, target, args, subject)
    try:
        return json.loads(done.stdout)
    except ValueError as exc:
        raise GenerationError(f"cargo {args[0]} printed no JSON ({exc})") from exc


def _crate_manifest(metadata: Any, version: str) -> Path:
    """Where cargo unpacked the crate (its Cargo.toml), from `cargo metadata`."""
    for package in metadata.get("packages", []) if isinstance(metadata, dict) else []:
        if package.get("name") == CRATE and package.get("version") == version:
            return Path(package["manifest_path"])
    raise GenerationError(f"cargo metadata lists no {CRATE} {version}")


def _run_program(
    cargo: str, project: Path, target: Path, edition: CrateEdition, subject: str
) -> str:
    features = ",".join(edition.program_features)
    args = ["run", "--quiet", "--bin", BINARY, "--no-default-features"]
    if features:
        args += ["--features", features]
    return _cargo(cargo, project, target, args, f"{subject} ({edition.package_path})").stdout


def _locked_packages(lock: Path) -> list[dict[str, Any]]:
    try:
        packages = tomllib.loads(lock.read_text()).get("package", [])
    except (OSError, ValueError) as exc:
        raise GenerationError(f"cannot read {lock.name} of the build: {exc}") from exc
    return [p for p in packages if isinstance(p, dict)]


def _locked_checksum(lock: Path, version: str) -> str:
    for package in _locked_packages(lock):
        if package.get("name") == CRATE and package.get("version") == version:
            checksum = package.get("checksum")
            if isinstance(checksum, str):
                return checksum
    raise GenerationError(f"Cargo.lock of the build has no checksum for {CRATE} {version}")


def _locked_versions(lock: Path, names: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """(name, version) of the crates of `names` that our program depends on, as the lock
    resolved them (`"schemars 1.2.3"` where two versions are locked, else `"serde_json"`)."""
    packages = _locked_packages(lock)
    ours = next((p for p in packages if p.get("name") == BINARY), None)
    if ours is None:
        raise GenerationError(f"Cargo.lock of the build has no package {BINARY}")
    found = []
    for entry in ours.get("dependencies", []):
        name, _, rest = str(entry).partition(" ")
        if name not in names:
            continue
        version = rest.split(" ")[0] if rest else _only_version(packages, name)
        found.append((name, version))
    return tuple(sorted(found))


def _only_version(packages: list[dict[str, Any]], name: str) -> str:
    versions = {str(p.get("version")) for p in packages if p.get("name") == name}
    if len(versions) != 1:
        raise GenerationError(f"Cargo.lock of the build locks {name} at {sorted(versions)}")
    return versions.pop()


def _rustc_version(project: Path) -> str:
    rustc = os.environ.get("RUSTC") or "rustc"
    try:
        done = subprocess.run(
            [rustc, "-V"], cwd=project, capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GenerationError(f"`{rustc} -V` failed: {exc}") from exc
    if done.returncode != 0 or not done.stdout.strip():
        raise GenerationError(f"`{rustc} -V` failed: {first_error(done.stderr) or 'no output'}")
    return done.stdout.strip()
