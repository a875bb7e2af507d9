"""The generation pipeline: lock → load → validate → lower (IR) → targets → swap into `generated/`.

Targets render into a staging folder beside `generated/`, which replaces it only when every target
succeeded: a failed run leaves `generated/` as it was. `generated/.fingerprint.json` records a hash
of the inputs (schemas, lock, generator, templates, tool versions) and of the output tree, so a run
with nothing changed returns at once. The IR and rendered trees and starters are kept in the render
cache (`cache`) under those inputs: a run whose inputs an earlier one had writes from it. Each step
is reported to the command's progress (`progress`).
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp_codegen import cache, fingerprint, progress
from acp_codegen.fingerprint import FINGERPRINT as FINGERPRINT  # re-exported: drift, tests
from acp_codegen.fingerprint import output_files as output_files
from acp_codegen.fingerprint import tree_hash as tree_hash
from acp_codegen.ir import Edition, Specification, Stability
from acp_codegen.loader import load_schema
from acp_codegen.lowering import lower_edition
from acp_codegen.lowering.behaviour import RULES
from acp_codegen.problems import GenerationError, SchemaProblem, SchemaProblems
from acp_codegen.resources import DATA_ROOT
from acp_codegen.schema_lock import read_lock, verify_lock
from acp_codegen.targets import TARGETS, Options, load_target
from acp_codegen.validation import validate_schema

ROOT = DATA_ROOT
"""The default project root: `schema/` (and, in a source checkout, `generated/`)."""


def load_specification(root: Path = ROOT, *, strict: bool = False) -> Specification:
    """Verify the lock, then load, validate and lower every pinned edition; every problem of
    every edition and stage is reported at once (`SchemaProblems`). Review findings
    (`Specification.review`) are problems too when `strict`."""
    lock = read_lock(root)
    verify_lock(root, lock)
    paths = [root / locked.path for locked in lock.files]
    progress.step(f"checking {len(paths)} schemas against the JSON Schema metaschema")
    # The metaschema check dominates; the documents are checked in parallel.
    with ProcessPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(_load_and_validate, paths))
    problems = [problem for _, found in results for problem in found]
    editions: list[Edition] = []
    stable: dict[str, Edition] = {}
    ordered = sorted(
        zip(lock.files, results, strict=True),
        key=lambda item: (item[0].protocol, item[0].stability is Stability.UNSTABLE),
    )
    for locked, (doc, found) in ordered:
        if found:
            continue
        progress.step(f"lowering {locked.protocol} {locked.stability.value}")
        try:
            edition = lower_edition(
                doc,
                protocol=locked.protocol,
                channel=locked.stability,
                source=Path(locked.path).name,
                sha256=locked.sha256,
                stable=stable.get(locked.protocol),
                rules=RULES,
            )
        except SchemaProblems as exc:
            problems += exc.problems
            continue
        if edition.channel is Stability.STABLE:
            stable[edition.protocol] = edition
        editions.append(edition)
    if strict:
        problems += [finding for edition in editions for finding in edition.review]
    if problems:
        raise SchemaProblems(problems)
    return Specification(lock.origin, lock.version, tuple(editions))


def _load_and_validate(path: Path) -> tuple[dict[str, Any], list[SchemaProblem]]:
    try:
        doc = load_schema(path)
    except SchemaProblems as exc:
        return {}, exc.problems
    return doc, validate_schema(doc, path.name)


def render(spec: Specification, out_root: Path, targets: tuple[str, ...] = TARGETS) -> None:
    """Render every target into `out_root/<target>` (an empty or missing folder). Targets render
    two at a time in worker processes: the Python target's formatting (black) takes most of the
    time, and the others render beside it."""
    if len(targets) < 2:
        for target in targets:
            progress.step(f"rendering {target}")
            _render_target(spec, out_root, target)
        return
    remaining = list(targets)
    progress.step("rendering " + ", ".join(remaining))
    with ProcessPoolExecutor(max_workers=2) as pool:
        futures = {pool.submit(_render_target, spec, out_root, t): t for t in targets}
        try:
            for done in as_completed(futures):
                problems = done.result()
                if problems:
                    raise SchemaProblems(problems)
                remaining.remove(futures[done])
                if remaining:
                    progress.step("rendering " + ", ".join(remaining))
        except BaseException:
            for future in futures:
                future.cancel()
            raise


def _render_target(spec: Specification, out_root: Path, target: str) -> list[SchemaProblem]:
    """Render `target` into `out_root/<target>`; the schema problems it found (handed back as a
    list: `SchemaProblems` does not cross a process boundary whole)."""
    target_dir = out_root / target
    target_dir.mkdir(parents=True, exist_ok=True)
    try:
        load_target(target)(spec, target_dir, Options())
    except SchemaProblems as exc:
        return exc.problems
    return []


def specification(
    root: Path = ROOT, *, strict: bool = False, use_cache: bool = True
) -> Specification:
    """`load_specification`, from the render cache when an earlier run loaded the same schemas
    with the same generator (and stored there when not)."""
    inputs = _inputs(root) if use_cache else None
    key = inputs.ir_key if inputs is not None else None
    spec = cache.load(key, "ir") if key is not None else None
    if not isinstance(spec, Specification):
        progress.expect(1 + len(read_lock(root).files))
        spec = load_specification(root, strict=strict)
        if key is not None:
            cache.store(key, "ir", spec)
    if strict and spec.review:
        raise SchemaProblems(list(spec.review))
    return spec


@dataclass(frozen=True, slots=True)
class Outcome:
    changed: bool
    out_root: Path
    review: tuple[str, ...] = ()
    """The review findings of the schemas generated from, one line each (kept in the
    fingerprint, so a run with nothing to do reports them too)."""


def generate(
    root: Path = ROOT,
    out_root: Path | None = None,
    *,
    force: bool = False,
    strict: bool = False,
    use_cache: bool = True,
) -> Outcome:
    """Regenerate `out_root` (default root/generated) unless its fingerprint says it is current.
    `strict`: a review finding is a failure (`SchemaProblems`), and nothing is written.
    `use_cache`: False renders afresh (and refreshes the render cache)."""
    out_root = out_root or root / "generated"
    verify_lock(root, read_lock(root))  # a missing or edited schema is named before anything
    inputs = cache.inputs(root)
    recorded = fingerprint.recorded(out_root)
    if (
        not force
        and not strict
        and recorded is not None
        and recorded.get("inputs") == inputs.fingerprint
        and recorded.get("outputs") == tree_hash(out_root)
    ):
        return Outcome(False, out_root, tuple(str(line) for line in recorded.get("review", [])))
    if strict:
        specification(root, strict=True, use_cache=use_cache)  # a finding fails before writing
    out_root.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=out_root.parent, prefix=".generated-staging-"))
    try:
        tree = _rendered(root, inputs, "tree", staging, Options(), TARGETS, use_cache)
        written = fingerprint.text(inputs.fingerprint, tree_hash(staging), tree.review)
        (staging / FINGERPRINT).write_text(written)
        _swap(staging, out_root)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return Outcome(True, out_root, tree.review)


def generate_package(
    root: Path,
    out: Path,
    package: str,
    command: str,
    target: str = "python",
    *,
    strict: bool = False,
    use_cache: bool = True,
) -> Outcome:
    """Write `target`'s package under the import name `package` into `out` (vendoring: `out` is
    the folder its top-level package sits in). Only the package's own folder is replaced, and
    only when rendering succeeded. The outcome names that folder."""
    parts = package_parts(package)
    destination = out.joinpath(*parts)
    verify_lock(root, read_lock(root))
    inputs = cache.inputs(root)
    if strict:
        specification(root, strict=True, use_cache=use_cache)
    name = "package-" + hashlib.sha256(f"{target}\0{package}\0{command}".encode()).hexdigest()
    destination.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=destination.parent, prefix=".acp-codegen-staging-"))
    try:
        options = Options(package=package, command=command)
        tree = _rendered(root, inputs, name, staging, options, (target,), use_cache)
        _swap(staging.joinpath(*parts), destination)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return Outcome(True, destination, tree.review)


def _rendered(
    root: Path,
    inputs: cache.Inputs,
    name: str,
    staging: Path,
    options: Options,
    targets: tuple[str, ...],
    use_cache: bool,
) -> cache.Tree:
    """Write `targets` rendered with `options` into the empty folder `staging`: from the render
    cache's entry `name` when it has one, else rendered (in a folder of its own per target unless
    `options.package`, as `generate` lays `generated/` out) and stored there."""
    tree = cache.load(inputs.render_key, name) if use_cache else None
    if isinstance(tree, cache.Tree):
        tree.write(staging)
        return tree
    progress.expect(len(targets))
    spec = specification(root, use_cache=use_cache)
    if options.package is None:
        render(spec, staging, targets)
    else:
        for target in targets:
            progress.step(f"rendering {target} as {options.package}")
            load_target(target)(spec, staging, options)
    tree = cache.Tree.read(staging, tuple(str(finding) for finding in spec.review))
    cache.store(inputs.render_key, name, tree)
    return tree


def _inputs(root: Path) -> cache.Inputs | None:
    """The render cache's view of `root`, or None when a file cannot be read (loading names it)."""
    try:
        return cache.inputs(root)
    except (OSError, GenerationError):
        return None


def package_parts(package: str) -> list[str]:
    """The folders of a dotted import name; a `GenerationError` when it is not one."""
    parts = package.split(".")
    if not all(part.isidentifier() for part in parts):
        raise GenerationError(f"--package {package!r} is not a dotted Python import name")
    return parts


def _swap(staging: Path, out_root: Path) -> None:
    backup = out_root.with_name(out_root.name + ".previous")
    shutil.rmtree(backup, ignore_errors=True)
    if out_root.exists():
        out_root.rename(backup)
    staging.rename(out_root)
    shutil.rmtree(backup, ignore_errors=True)
