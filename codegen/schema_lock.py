"""The schema lock (`schema/lock.json`): which upstream files are pinned, from where, what hash.

Generation refuses a schema whose sha256 differs from its lock entry; `acp-codegen update-schema`
(`make update-schema VERSION=x.y.z`) is the one way to change both together.
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

from codegen.problems import GenerationError

PACKAGE = "@agentclientprotocol/sdk"
# (path in this repository, path inside the npm package)
PINNED_FILES = (
    ("schema/acp/v1/schema.json", "schema/v1/schema.json"),
    ("schema/acp/v1/schema.unstable.json", "schema/v1/schema.unstable.json"),
)


@dataclass(frozen=True, slots=True)
class LockedFile:
    path: str
    package_path: str
    sha256: str


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


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_lock(root: Path) -> SchemaLock:
    raw = json.loads((root / "schema" / "lock.json").read_text())
    files = tuple(LockedFile(**entry) for entry in raw["files"])
    return SchemaLock(raw["package"], raw["version"], files)


def verify_lock(root: Path, lock: SchemaLock) -> None:
    """Raise `GenerationError` naming every pinned file that is missing or differs from its hash."""
    problems = []
    for locked in lock.files:
        path = root / locked.path
        if not path.exists():
            problems.append(f"  - {locked.path}: missing")
        elif (actual := sha256_of(path)) != locked.sha256:
            problems.append(
                f"  - {locked.path}: sha256 {actual} does not match the lock's {locked.sha256}"
            )
    if problems:
        raise GenerationError(
            "pinned schemas do not match schema/lock.json "
            f"({lock.origin}); restore them or run `make update-schema VERSION=x.y.z`:\n"
            + "\n".join(problems)
        )


def write_lock(root: Path, lock: SchemaLock) -> None:
    data = {
        "package": lock.package,
        "version": lock.version,
        "files": [asdict(f) for f in lock.files],
    }
    (root / "schema" / "lock.json").write_text(json.dumps(data, indent=2) + "\n")


def update_schema(root: Path, version: str) -> SchemaLock:
    """Fetch `PACKAGE@version` with `npm pack`, copy the pinned files in and rewrite the lock."""
    with tempfile.TemporaryDirectory(prefix="acp-schema-") as tmp:
        result = subprocess.run(
            ["npm", "pack", f"{PACKAGE}@{version}", "--silent"],
            cwd=tmp,
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode != 0:
            raise GenerationError(f"npm pack {PACKAGE}@{version} failed:\n{result.stderr.strip()}")
        tarball = Path(tmp) / result.stdout.strip().splitlines()[-1]
        with tarfile.open(tarball) as archive:
            archive.extractall(tmp, filter="data")
        files = []
        for repo_path, package_path in PINNED_FILES:
            source = Path(tmp) / "package" / package_path
            if not source.exists():
                raise GenerationError(f"{PACKAGE}@{version} has no {package_path}")
            destination = root / repo_path
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, destination)
            files.append(LockedFile(repo_path, package_path, sha256_of(destination)))
    lock = SchemaLock(PACKAGE, version, tuple(files))
    write_lock(root, lock)
    return lock
