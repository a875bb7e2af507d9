"""The schema lock (`schema/lock.json`): which upstream files are pinned, as which edition, from
where, with what hash.

Each entry is one edition: protocol (`v1`, `v2`), channel (stable, unstable), its path here and in
the upstream layout (`schema/v1/schema.json`…), and its sha256. Generation refuses a schema whose
sha256 differs from its entry; `acp-codegen update-schema` is the one way to change both, from one
of two registries (docs/schemas.md):

- npm (`--version`, `make update-schema VERSION=x.y.z`): the files `@agentclientprotocol/sdk`
  ships, copied as they are;
- crates.io (`--crate`, `make update-schema CRATE=x.y.z`): the files built from the Rust crate
  `agent-client-protocol-schema` by tools/crate-schema (`acp_codegen.schema_crate`). The lock
  then also records the crate's checksum, the toolchain, the crates that shape the output and
  each file's crate features (`CrateBuild`, `LockedFile.features`).

A lock written before crates.io pins existed reads as an npm lock: every newer key is optional.

Package layouts (`LAYOUTS`): from 2.0 the package ships `schema/v1/` and `schema/v2/`, each with a
stable and an unstable file; before 2.0 it shipped one `schema/schema.json`, the unstable v1
edition (sometimes beside `schema/v2/schema.unstable.json`). Whatever layout a version has, every
file it ships that a layout names is pinned.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from acp_codegen.ir import Stability
from acp_codegen.problems import GenerationError, MissingTool

PACKAGE = "@agentclientprotocol/sdk"
NPM, CRATES_IO = "npm", "crates.io"
"""The registries a lock's package comes from (`SchemaLock.registry`)."""
# (path inside the npm package, protocol, channel), in the order editions are generated.
LAYOUTS = (
    ("schema/v1/schema.json", "v1", Stability.STABLE),
    ("schema/v1/schema.unstable.json", "v1", Stability.UNSTABLE),
    ("schema/schema.json", "v1", Stability.UNSTABLE),
    ("schema/v2/schema.json", "v2", Stability.STABLE),
    ("schema/v2/schema.unstable.json", "v2", Stability.UNSTABLE),
)


@dataclass(frozen=True, slots=True)
class LockedFile:
    path: str
    package_path: str
    protocol: str
    channel: str
    sha256: str
    features: tuple[str, ...] | None = None
    """The crate features the file was built with (crates.io pins only)."""

    @property
    def stability(self) -> Stability:
        return Stability(self.channel)


@dataclass(frozen=True, slots=True)
class CrateBuild:
    """How a crates.io pin was built, as its `Cargo.lock` and toolchain said."""

    checksum: str
    """The sha256 of the crate's `.crate` file (Cargo.lock's `checksum`)."""
    rustc: str
    """`rustc -V` of the toolchain that built it."""
    dependencies: tuple[tuple[str, str], ...]
    """(crate, version) of the crates that shape the output, such as schemars."""
    program: str
    """The sha256 of the program that wrote the files (tools/crate-schema's sources)."""


@dataclass(frozen=True, slots=True)
class SchemaLock:
    package: str
    version: str
    files: tuple[LockedFile, ...]
    registry: str = NPM
    build: CrateBuild | None = None

    @property
    def origin(self) -> str:
        if self.registry == NPM:
            return f"{self.package}@{self.version}"
        return f"{self.package}@{self.version} ({self.registry})"

    def entry(self, path: str) -> LockedFile:
        for locked in self.files:
            if locked.path == path:
                return locked
        raise GenerationError(f"schema/lock.json has no entry for {path}")


def repo_path(protocol: str, channel: Stability) -> str:
    """Where an edition's schema is kept in this repository."""
    name = "schema.json" if channel is Stability.STABLE else "schema.unstable.json"
    return f"schema/acp/{protocol}/{name}"


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_lock(root: Path) -> SchemaLock:
    path = root / "schema" / "lock.json"
    try:
        raw = json.loads(path.read_text())
        files = tuple(_locked_file(entry) for entry in raw["files"])
        registry = raw.get("registry", NPM)
        if registry not in (NPM, CRATES_IO):
            raise ValueError(f"unknown registry {registry!r}")
        build = _crate_build(raw) if registry == CRATES_IO else None
        lock = SchemaLock(raw["package"], raw["version"], files, registry, build)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise GenerationError(
            f"{path} is missing or malformed ({exc}); run `make update-schema VERSION=x.y.z` "
            "(or CRATE=x.y.z)"
        ) from exc
    if not files:
        raise GenerationError(f"{path} pins no schema file")
    return lock


def _locked_file(entry: dict[str, Any]) -> LockedFile:
    features = entry.get("features")
    fields = {**entry, "features": None if features is None else tuple(map(str, features))}
    return LockedFile(**fields)


def _crate_build(raw: dict[str, Any]) -> CrateBuild:
    """A crates.io lock's provenance; a key it lacks reads as empty."""
    dependencies = raw.get("dependencies", {})
    return CrateBuild(
        str(raw.get("checksum", "")),
        str(raw.get("rustc", "")),
        tuple((str(name), str(version)) for name, version in dependencies.items()),
        str(raw.get("program", "")),
    )


def verify_lock(root: Path, lock: SchemaLock) -> None:
    """Raise `GenerationError` naming every pinned file that is missing or differs from its hash,
    in one line."""
    problems = []
    for locked in lock.files:
        path = root / locked.path
        if not path.exists():
            problems.append(f"{path} is missing")
        elif (actual := sha256_of(path)) != locked.sha256:
            problems.append(
                f"{path} has sha256 {actual[:12]}…, the lock says {locked.sha256[:12]}…"
            )
    if problems:
        raise GenerationError(
            "; ".join(problems) + f" (pinned by schema/lock.json for {lock.origin}): restore "
            "the file or run `make update-schema VERSION=x.y.z` (or CRATE=x.y.z)"
        )


def write_lock(root: Path, lock: SchemaLock) -> None:
    """Write `lock` as JSON; an npm lock has exactly the keys it had before crates.io pins."""
    data: dict[str, Any] = {"package": lock.package, "version": lock.version}
    if lock.registry != NPM:
        data["registry"] = lock.registry
    if lock.build is not None:
        data["checksum"] = lock.build.checksum
        data["rustc"] = lock.build.rustc
        data["dependencies"] = dict(lock.build.dependencies)
        data["program"] = lock.build.program
    data["files"] = [_file_data(f) for f in lock.files]
    (root / "schema" / "lock.json").write_text(json.dumps(data, indent=2) + "\n")


def _file_data(locked: LockedFile) -> dict[str, Any]:
    data: dict[str, Any] = {
        "path": locked.path,
        "package_path": locked.package_path,
        "protocol": locked.protocol,
        "channel": locked.channel,
        "sha256": locked.sha256,
    }
    if locked.features is not None:
        data["features"] = list(locked.features)
    return data


@dataclass(frozen=True, slots=True)
class NewFile:
    """One edition's schema, to be pinned: its bytes and where upstream publishes it."""

    package_path: str
    protocol: str
    channel: Stability
    content: bytes
    features: tuple[str, ...] | None = None


def pin(root: Path, lock: SchemaLock, new: list[NewFile]) -> SchemaLock:
    """Write every file of `new` to its place under `root`, then the lock (`lock` with these
    files); the previous pins that `new` does not replace are removed only then."""
    old = read_lock(root) if (root / "schema" / "lock.json").exists() else None
    files = []
    for item in new:
        destination = root / repo_path(item.protocol, item.channel)
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_bytes(item.content)
        files.append(
            LockedFile(
                repo_path(item.protocol, item.channel),
                item.package_path,
                item.protocol,
                item.channel.value,
                hashlib.sha256(item.content).hexdigest(),
                item.features,
            )
        )
    pinned = replace(lock, files=tuple(files))
    write_lock(root, pinned)
    kept = {f.path for f in files}
    for stale in old.files if old else ():
        if stale.path not in kept:
            (root / stale.path).unlink(missing_ok=True)
    return pinned


def update_schema(root: Path, version: str) -> SchemaLock:
    """Fetch `PACKAGE@version` with `npm pack`, pin every schema file it ships, rewrite the lock.

    The previous pins are removed only once the new ones are in place."""
    with tempfile.TemporaryDirectory(prefix="acp-schema-") as tmp:
        package = unpack(version, Path(tmp))
        found: dict[tuple[str, Stability], Path] = {}
        for package_path, protocol, channel in LAYOUTS:
            source = package / package_path
            if source.is_file() and (protocol, channel) not in found:
                found[(protocol, channel)] = source
        if not found:
            known = ", ".join(p for p, _, _ in LAYOUTS)
            raise GenerationError(f"{PACKAGE}@{version} ships none of the known schemas ({known})")
        new = [
            NewFile(source.relative_to(package).as_posix(), protocol, channel, source.read_bytes())
            for (protocol, channel), source in found.items()
        ]
    return pin(root, SchemaLock(PACKAGE, version, ()), new)


def unpack(version: str, tmp: Path) -> Path:
    """`npm pack` the package at `version` into `tmp`; the unpacked `package/` folder."""
    try:
        result = subprocess.run(
            ["npm", "pack", f"{PACKAGE}@{version}", "--json"],
            cwd=tmp,
            capture_output=True,
            text=True,
            check=False,
        )
    except FileNotFoundError as exc:
        raise MissingTool("npm is not installed; it fetches the schemas (node 20 + npm)") from exc
    packed = _npm_json(result.stdout)
    if result.returncode != 0 or not isinstance(packed, list) or not packed:
        reason = _npm_reason(packed, result.stderr) or f"exit status {result.returncode}"
        raise GenerationError(f"npm pack {PACKAGE}@{version} failed: {reason}")
    tarball = tmp / packed[-1]["filename"]
    with tarfile.open(tarball) as archive:
        archive.extractall(tmp, filter="data")
    return tmp / "package"


def _npm_json(stdout: str) -> Any:
    try:
        return json.loads(stdout)
    except ValueError:
        return None


def _npm_reason(packed: Any, stderr: str) -> str:
    """npm's own one-line reason: `error.summary` of its JSON, else its first `npm error` line
    that is not the error code or the pointer to its log file."""
    if isinstance(packed, dict) and isinstance(packed.get("error"), dict):
        summary = packed["error"].get("summary")
        if isinstance(summary, str) and summary.strip():
            return summary.strip().splitlines()[0]
    for line in stderr.splitlines():
        text = line.removeprefix("npm error").removeprefix("npm ERR!").strip()
        if text and not text.startswith(("code ", "A complete log")):
            return text
    return ""
