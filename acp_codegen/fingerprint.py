"""The fingerprint of a generated tree, `generated/.fingerprint.json`: the digest of the inputs it
was rendered from (`cache.Inputs.fingerprint`), the digest of its files, and the review findings of
its schemas. `generate` compares it to return at once when nothing changed; `check` compares a
tree to the render cache's with it (`matches_cached`), rendering nothing when the cache has the
tree of these inputs. Light on purpose: it imports neither the schema validator nor the templates.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path, PurePosixPath
from typing import Any

from acp_codegen import cache
from acp_codegen.problems import GenerationError

FINGERPRINT = ".fingerprint.json"


def output_files(out_root: Path) -> list[Path]:
    """The files of a generated tree, sorted, without caches and the fingerprint itself."""
    if not out_root.is_dir():
        return []
    return sorted(
        p
        for p in out_root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.name != FINGERPRINT
    )


def tree_hash(out_root: Path) -> str:
    return cache.hash_files(out_root, output_files(out_root))


def cached_tree_hash(tree: cache.Tree) -> str:
    """`tree_hash` of the folder `tree.write` would make (paths in `output_files`' order)."""
    digest = hashlib.sha256()
    for path in sorted(PurePosixPath(name) for name in tree.files):
        if "__pycache__" in path.parts or path.name == FINGERPRINT:
            continue
        name = path.as_posix()
        digest.update(name.encode() + b"\0" + tree.files[name] + b"\0")
    return digest.hexdigest()


def text(inputs: str, outputs: str, review: tuple[str, ...]) -> str:
    """The fingerprint file's text."""
    fingerprint: dict[str, Any] = {"inputs": inputs, "outputs": outputs}
    if review:
        fingerprint["review"] = list(review)
    return json.dumps(fingerprint, indent=2) + "\n"


def recorded(out_root: Path) -> dict[str, Any] | None:
    """The fingerprint `out_root` carries, or None."""
    try:
        found = json.loads((out_root / FINGERPRINT).read_text())
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def matches_cached(root: Path, committed: Path) -> bool:
    """Whether `committed` is byte for byte what a fresh generation of `root` writes, as the
    render cache knows it: its tree of these inputs, and the fingerprint a run writes with it.
    False whenever the cache cannot tell (no such entry, an input that cannot be read): the
    caller then renders and compares."""
    try:
        inputs = cache.inputs(root)
        expected = (committed / FINGERPRINT).read_text()
    except (OSError, GenerationError):  # the full check names what is missing
        return False
    tree = cache.load(inputs.render_key, "tree")
    if not isinstance(tree, cache.Tree):
        return False
    outputs = cached_tree_hash(tree)
    return (
        expected == text(inputs.fingerprint, outputs, tree.review)
        and tree_hash(committed) == outputs
    )
