"""The render cache: the IR and the rendered output of earlier runs, so a command whose inputs did
not change writes from it (`scaffold` in a fraction of a second, `check` without rendering).

Entries live in `$XDG_CACHE_HOME/acp-codegen/render/` (`~/.cache/…` by default), one folder per
key (`Inputs`): the IR under a key of the schema files, the generator's sources and its version;
rendered output under that and the template files and the versions of the tools that shape it. A
change of any input is a new key, never a stale hit. Each entry is written to a temporary file and
renamed into place, so concurrent processes see a whole entry or none, and it carries its key, its
name and a sha256 of its payload: an entry that is corrupt, truncated or written for another key is
ignored (and rebuilt by the caller), never an error. Failing to write one is no error either. The
folders of the `KEEP` keys used last are kept; older ones are removed when a new one is made.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import shutil
import sys
import tempfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from acp_codegen import __version__
from acp_codegen.resources import PACKAGE_DIR, TEMPLATES
from acp_codegen.schema_lock import read_lock

FORMAT = 1
"""The layout of an entry; a new layout is a new key."""
KEEP = 8
"""How many key folders stay (a rendered tree of every target is about 11 MB)."""
OUTPUT_SHAPING_TOOLS = ("black", "jinja2")
"""Tools whose version shapes the output: a change of any of them is a change of input."""
_MAGIC = b"acp-codegen-cache"


def folder() -> Path:
    """`$XDG_CACHE_HOME/acp-codegen/render` (`~/.cache/acp-codegen/render` by default), beside
    the crate builds' `crate-schema-target`."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "acp-codegen" / "render"


@dataclass(frozen=True, slots=True)
class Inputs:
    """Digests of everything the generator's output depends on."""

    schemas: str
    """schema/lock.json and every file it pins."""
    sources: str
    """The generator's Python sources."""
    templates: str
    """Every template file (and the hand-written runtimes copied from them)."""
    tools: str
    """`black==…`, `jinja2==…`."""

    @property
    def fingerprint(self) -> str:
        """What `generated/.fingerprint.json` records as the inputs of a generated tree."""
        return _digest("fingerprint", self.schemas, self.sources, self.templates, self.tools)

    @property
    def ir_key(self) -> str:
        """The key of the IR: the schemas, the generator (sources and version), the Python that
        pickled it."""
        python = "{}.{}".format(*sys.version_info[:2])
        return _digest("ir", str(FORMAT), __version__, python, self.schemas, self.sources)

    @property
    def render_key(self) -> str:
        """The key of rendered output: the IR's, and the templates and tools."""
        return _digest("render", self.ir_key, self.templates, self.tools)


def inputs(root: Path, templates: Path = TEMPLATES, sources: Path = PACKAGE_DIR) -> Inputs:
    """The digests of `root`'s pinned schemas, the generator's `sources` and its `templates`.
    `GenerationError` for a missing or malformed lock, `OSError` for a file it cannot read."""
    schema_files = [root / "schema" / "lock.json"] + [root / f.path for f in read_lock(root).files]
    template_files = sorted(
        p for p in templates.rglob("*") if p.is_file() and "__pycache__" not in p.parts
    )
    tools = "".join(f"{tool}=={metadata.version(tool)}\0" for tool in OUTPUT_SHAPING_TOOLS)
    return Inputs(
        schemas=hash_files(root, schema_files),
        sources=hash_files(sources.parent, sorted(sources.rglob("*.py"))),
        templates=hash_files(templates.parent, template_files),
        tools=hashlib.sha256(tools.encode()).hexdigest(),
    )


@dataclass(frozen=True, slots=True)
class Tree:
    """A rendered folder as the cache holds it: every file's bytes and every folder, by relative
    path (with `/`), and the review findings of the schemas it was rendered from."""

    files: dict[str, bytes]
    folders: tuple[str, ...]
    review: tuple[str, ...] = ()

    @classmethod
    def read(cls, top: Path, review: tuple[str, ...] = ()) -> Tree:
        files: dict[str, bytes] = {}
        folders: list[str] = []
        for path in sorted(top.rglob("*")):
            relative = path.relative_to(top).as_posix()
            if path.is_dir():
                folders.append(relative)
            else:
                files[relative] = path.read_bytes()
        return cls(files, tuple(folders), review)

    def write(self, top: Path) -> None:
        """Write the tree into `top` (an empty or missing folder)."""
        top.mkdir(parents=True, exist_ok=True)
        for relative in self.folders:
            (top / relative).mkdir(parents=True, exist_ok=True)
        for relative, content in self.files.items():
            path = top / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)


def hash_files(base: Path, files: list[Path]) -> str:
    """The sha256 of each file's path (relative to `base`) and bytes, in the given order."""
    digest = hashlib.sha256()
    for path in files:
        digest.update(
            path.relative_to(base).as_posix().encode() + b"\0" + path.read_bytes() + b"\0"
        )
    return digest.hexdigest()


def load(key: str, name: str) -> object | None:
    """The entry `name` stored under `key`, or None: missing, unreadable, corrupt, or not written
    for this key and name."""
    path = folder() / key / name
    try:
        with path.open("rb") as file:
            header = file.readline().split()
            payload = file.read()
    except OSError:
        return None
    expected = [_MAGIC, str(FORMAT).encode(), key.encode(), name.encode()]
    if header[:4] != expected or header[4:] != [_sha256(payload)]:
        return None
    try:
        value: object = pickle.loads(payload)
    except Exception:  # a payload pickled by other code under the same digest: rebuilt
        return None
    with contextlib.suppress(OSError):
        os.utime(path.parent)  # used last: kept longest
    return value


def store(key: str, name: str, value: object) -> None:
    """Store `value` as the entry `name` under `key`, atomically; never fails (a cache that cannot
    be written is only slower)."""
    payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    header = b" ".join(
        [_MAGIC, str(FORMAT).encode(), key.encode(), name.encode(), _sha256(payload)]
    )
    where = folder() / key
    temporary = None
    try:
        fresh = not where.is_dir()
        where.mkdir(parents=True, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(dir=where, prefix=f".{name}.", suffix=".tmp")
        with os.fdopen(descriptor, "wb") as file:
            file.write(header + b"\n" + payload)
        os.replace(temporary, where / name)
        temporary = None
        if fresh:
            _prune(where.parent)
    except OSError:
        pass
    finally:
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)


def _prune(top: Path) -> None:
    """Remove all but the `KEEP` key folders used last."""
    entries = []
    for entry in top.iterdir():
        try:
            entries.append((entry.stat().st_mtime, entry))
        except OSError:  # removed meanwhile by another process's prune
            continue
    for _, entry in sorted(entries, reverse=True)[KEEP:]:
        shutil.rmtree(entry, ignore_errors=True)


def _sha256(payload: bytes) -> bytes:
    return hashlib.sha256(payload).hexdigest().encode()


def _digest(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()
