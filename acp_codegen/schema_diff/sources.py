"""Where `acp-codegen diff` reads a schema from (the diff's input layer): a schema file, a folder
laid out as `schema/acp` is (or a checkout holding one), `crate:VERSION` (the Rust crate
`agent-client-protocol-schema`) or `npm:VERSION` (`@agentclientprotocol/sdk`).

A bare VERSION names the crate when it is the crate version `schema/lock.json` pins (its files
are `schema/acp`, checked against the lock, so nothing is built), else the npm package; the
choice is said in one line (`Source.note`), or, when that version cannot be had, in the one line
that says so. A crate version that is not pinned is built as
`update-schema --crate` builds one (cargo). Each source gives its editions' files by the name
`--edition` uses (`v1`, `v1/unstable`, `v2`, `v2/unstable`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from acp_codegen import ir
from acp_codegen.problems import GenerationError
from acp_codegen.schema_crate import CRATE, EDITIONS, build_schemas
from acp_codegen.schema_lock import (
    CRATES_IO,
    LAYOUTS,
    PACKAGE,
    SchemaLock,
    read_lock,
    repo_path,
    verify_lock,
)

VERSION = re.compile(r"^\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?$")
CRATE_PREFIX, NPM_PREFIX = "crate:", "npm:"
SCHEMA_ACP = Path("schema") / "acp"
"""Where a checkout keeps its pinned schemas; a folder argument is laid out as this one is."""


@dataclass(frozen=True, slots=True)
class Source:
    kind: str
    """"crate", "npm" or "folder"."""
    where: str
    """The version, or the folder as given."""
    note: str | None = None
    """For a bare version: which source it was taken as, and how to name the other."""


def edition_name(protocol: str, channel: ir.Stability) -> str:
    """How `--edition` names a file: `v1` (stable), `v1/unstable`."""
    return protocol if channel is ir.Stability.STABLE else f"{protocol}/{channel.value}"


def pinned_crate(root: Path) -> str | None:
    """The crate version `root`'s schema/lock.json pins, if it pins a crate."""
    try:
        lock = read_lock(root)
    except GenerationError:
        return None
    return lock.version if lock.registry == CRATES_IO else None


def resolve(arg: str, root: Path) -> Source:
    """Which source `arg` (not a schema file) names."""
    for kind, prefix in (("crate", CRATE_PREFIX), ("npm", NPM_PREFIX)):
        if arg.startswith(prefix):
            version = arg.removeprefix(prefix)
            if not VERSION.match(version):
                raise GenerationError(f"{arg!r}: {prefix} takes a version like {prefix}1.20.0")
            return Source(kind, version)
    if Path(arg).is_dir():
        return Source("folder", arg)
    if not VERSION.match(arg):
        raise GenerationError(
            f"{arg!r} is neither a schema file, a folder of schemas, nor a version like "
            "crate:1.20.0, npm:2.4.0 or 2.4.0"
        )
    if arg == pinned_crate(root):
        note = f"the {CRATE} version schema/lock.json pins (npm:{arg} names the npm package)"
        return Source("crate", arg, f"{arg} is crate:{arg}, {note}")
    note = f"{PACKAGE}, not a crate version schema/lock.json pins (crate:{arg} names the crate)"
    return Source("npm", arg, f"{arg} is npm:{arg}, {note}")


def folder_files(folder: Path) -> dict[str, Path]:
    """The editions of a folder laid out as `schema/acp` is (`v1/schema.json`, …), or of a
    checkout holding `schema/acp`."""
    if (folder / SCHEMA_ACP).is_dir():
        folder = folder / SCHEMA_ACP
    found = {}
    for edition in EDITIONS:
        path = folder / Path(repo_path(edition.protocol, edition.channel)).relative_to(SCHEMA_ACP)
        if path.is_file():
            found[edition_name(edition.protocol, edition.channel)] = path
    return found


def package_files(package: Path) -> dict[str, Path]:
    """The editions of an unpacked npm package (the first layout naming an edition wins)."""
    return {
        edition_name(proto, chan): package / p
        for p, proto, chan in reversed(LAYOUTS)
        if (package / p).is_file()
    }


def crate_files(version: str, root: Path, tmp: Path) -> tuple[dict[str, Path], str, Path]:
    """The editions of crate `version`, the report's name for it and the folder its files are
    named from: the pinned files when `root` pins that version, else built with cargo into
    `tmp`."""
    label = f"{CRATE}@{version} ({CRATES_IO})"
    if version == pinned_crate(root):
        lock: SchemaLock = read_lock(root)
        verify_lock(root, lock)
        return folder_files(root / SCHEMA_ACP), f"{label}, pinned:", root
    schemas, _ = build_schemas(version)  # a failure is one line naming the crate and version
    for edition, (content, _features) in zip(EDITIONS, schemas, strict=True):
        path = tmp / Path(repo_path(edition.protocol, edition.channel)).relative_to(SCHEMA_ACP)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    return folder_files(tmp), label, tmp
