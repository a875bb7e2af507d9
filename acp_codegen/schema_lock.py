"""The schema lock (`schema/lock.json`): which upstream files are pinned, as which edition, from
where, with what hash.

Each entry is one edition: protocol (`v1`, `v2`), channel (stable, unstable), its path here and in
the npm package, and its sha256. Generation refuses a schema whose sha256 differs from its entry;
`acp-codegen update-schema` (`make update-schema VERSION=x.y.z`) is the one way to change both.

Package layouts (`LAYOUTS`): from 2.0 the package ships `schema/v1/` and `schema/v2/`, each with a
stable and an unstable file; before 2.0 it shipped one `schema/schema.json`, the unstable v1
edition (sometimes beside `schema/v2/schema.unstable.json`). Whatever layout a version has, every
file it ships that a layout names is pinned.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import tarfile
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from acp_codegen.ir import Stability
from acp_codegen.problems import GenerationError, MissingTool

PACKAGE = "@agentclientprotocol/sdk"
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

    @property
    def stability(self) -> Stability:
        return Stability(self.channel)


@dataclass(frozen=True, slots=True)
class SchemaLock:
    package: str
    version: str
    files: tuple[LockedFile, ...]

    @property
    def origin(self) -> str:
        return f"{self.package}@{self.version}"

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
        files = tuple(LockedFile(**entry) for entry in raw["files"])
        lock = SchemaLock(raw["package"], raw["version"], files)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise GenerationError(
            f"{path} is missing or malformed ({exc}); run `make update-schema VERSION=x.y.z`"
        ) from exc
    if not files:
        raise GenerationError(f"{path} pins no schema file")
    return lock


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
            "the file or run `make update-schema VERSION=x.y.z`"
        )


def write_lock(root: Path, lock: SchemaLock) -> None:
    data = {
        "package": lock.package,
        "version": lock.version,
        "files": [asdict(f) for f in lock.files],
    }
    (root / "schema" / "lock.json").write_text(json.dumps(data, indent=2) + "\n")


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
        old = read_lock(root) if (root / "schema" / "lock.json").exists() else None
        files = []
        for (protocol, channel), source in found.items():
            destination = root / repo_path(protocol, channel)
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, destination)
            files.append(
                LockedFile(
                    repo_path(protocol, channel),
                    source.relative_to(package).as_posix(),
                    protocol,
                    channel.value,
                    sha256_of(destination),
                )
            )
    lock = SchemaLock(PACKAGE, version, tuple(files))
    write_lock(root, lock)
    kept = {f.path for f in files}
    for stale in old.files if old else ():
        if stale.path not in kept:
            (root / stale.path).unlink(missing_ok=True)
    return lock


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
