"""The harness of test_every_schema.py: every published schema root generated into a scratch
folder, and each target checked there as the pinned one is checked in `make test`.

A schema root is a folder that works as `acp-codegen --root <folder>`: the repository itself
(its pinned `schema/`) and every `tests/fixtures/schemas/<name>/` that holds a `schema/lock.json`.
For each root, one job renders the three targets (in a subprocess, one target's failure does not
keep the others from being written), then these jobs check what was written:

- python: every module of the package imports and every models name builds its validator
  (every_schema_probe.py, with the scratch package first on `sys.path`), and `mypy` with the
  project's configuration (strict, the pydantic plugin) passes on the package;
- typescript: `tsc -p tsconfig.json` (the package's own, strict) compiles it, against the
  `node_modules` that `make ts-build` installs from the package's lock;
- go: `go vet ./...` in the module (it type-checks every package).

The jobs of every root run in one pool, as many at a time as there are cores; the roots with the
most schema text start first. `python -m tests.generator.every_schema` runs them all and prints
the time each step took.
"""

from __future__ import annotations

import functools
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.paths import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "schemas"
TS_BUILD = ROOT / ".build" / "typescript"
TSC = TS_BUILD / "node_modules" / ".bin" / "tsc"
PROBE = Path(__file__).resolve().with_name("every_schema_probe.py")
TARGETS = ("python", "typescript", "go")
SHOWN_LINES = 40
"""How many lines of a failed command's output a failure shows (its first errors)."""
TIMEOUT = 900


@dataclass(frozen=True, slots=True)
class SchemaRoot:
    name: str
    """The test id: the fixture folder's name, or `pinned-<version>` for the repository."""
    path: Path
    version: str
    """The release the lock pins (`@agentclientprotocol/sdk`'s, or the crate's)."""
    size: int
    """Bytes of schema text: bigger roots take longer, and start first."""


def schema_roots() -> list[SchemaRoot]:
    """The repository's pinned schemas, then every fixture root (a folder under
    tests/fixtures/schemas with a `schema/lock.json`), in version order; a fixture whose files
    are the pinned ones (the same sha256s) is left out, the pinned root checks it."""
    fixtures = sorted(
        (lock.parent.parent for lock in FIXTURES.glob("*/schema/lock.json")),
        key=lambda path: _natural(path.name),
    )
    pinned = _hashes(ROOT)
    return [
        _root(ROOT, pinned=True),
        *(_root(path, pinned=False) for path in fixtures if _hashes(path) != pinned),
    ]


def _hashes(path: Path) -> frozenset[str]:
    lock = json.loads((path / "schema" / "lock.json").read_text())
    return frozenset(str(entry["sha256"]) for entry in lock["files"])


def _root(path: Path, *, pinned: bool) -> SchemaRoot:
    lock = json.loads((path / "schema" / "lock.json").read_text())
    version = str(lock["version"])
    size = sum((path / entry["path"]).stat().st_size for entry in lock["files"])
    return SchemaRoot(f"pinned-{version}" if pinned else path.name, path, version, size)


def _natural(name: str) -> list[tuple[int, str]]:
    return [(int(part), "") if part.isdigit() else (-1, part) for part in re.split(r"(\d+)", name)]


@dataclass(frozen=True, slots=True)
class Step:
    """One command's outcome (or a render's, or a precondition's)."""

    label: str
    ok: bool
    output: str
    seconds: float = 0.0
    cpu: float = 0.0
    """CPU seconds of the command and its children."""
    where: str = ""

    def failure(self, root: SchemaRoot, target: str) -> str:
        """The failure message: which root, target and command, and the first lines it wrote."""
        lines = self.output.strip().splitlines()
        shown = lines[:SHOWN_LINES]
        if len(lines) > SHOWN_LINES:
            shown += [f"… {len(lines) - SHOWN_LINES} more lines; the last:", lines[-1]]
        where = f" in {self.where}" if self.where else ""
        return f"{root.name} ({root.path}) {target}: {self.label} failed{where}:\n" + "\n".join(
            "    " + line for line in shown
        )


def run_command(label: str, argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> Step:
    """Run `argv` (stdout and stderr as one stream), with the wall and CPU seconds it took (the
    CPU time of the command and its children: what it costs, however busy the machine is)."""
    started = time.perf_counter()
    with tempfile.TemporaryFile("w+") as captured:
        try:
            process = subprocess.Popen(
                argv,
                cwd=cwd,
                env={**os.environ, **(env or {})},
                stdin=subprocess.DEVNULL,
                stdout=captured,
                stderr=subprocess.STDOUT,
                text=True,
                start_new_session=True,
            )
        except OSError as exc:
            return Step(label, False, f"{argv[0]}: {exc}", 0.0, 0.0, str(cwd))
        timer = threading.Timer(TIMEOUT, os.killpg, (process.pid, signal.SIGKILL))
        timer.start()
        try:
            _, status, usage = os.wait4(process.pid, 0)
        finally:
            timer.cancel()
        process.returncode = os.waitstatus_to_exitcode(status)
        captured.seek(0)
        output = captured.read()
    seconds = time.perf_counter() - started
    cpu = usage.ru_utime + usage.ru_stime
    if process.returncode != 0:
        killed = f" (killed after {TIMEOUT} s)" if seconds >= TIMEOUT else ""
        output = f"exit status {process.returncode}{killed}\n{output}"
    return Step(label, process.returncode == 0, output, seconds, cpu, str(cwd))


# --- The jobs ---------------------------------------------------------------------------------


def render_job(root: SchemaRoot, out: Path) -> dict[str, Step]:
    """Render every target of `root` into `out/generated/<target>`, in a subprocess (the
    renders of several roots run side by side); a step per target, the first one's including
    the loading of the schemas."""
    generated = out / "generated"
    report = out / "render.json"
    command = [sys.executable, "-m", "tests.generator.every_schema", "render", str(root.path)]
    step = run_command("render", [*command, str(generated), str(report)], ROOT)
    if not step.ok or not report.is_file():
        return dict.fromkeys(TARGETS, step)
    outcome: dict[str, dict[str, Any]] = json.loads(report.read_text())
    load = outcome["load"]
    if load["error"] is not None:
        failed = Step("loading the schemas", False, load["error"], load["seconds"], load["cpu"])
        return dict.fromkeys(TARGETS, failed)
    steps: dict[str, Step] = {}
    for target in TARGETS:
        done = outcome[target]
        label = f"rendering the {target} target"
        seconds, cpu = done["seconds"], done["cpu"]
        if not steps:
            label = f"loading the schemas and {label}"
            seconds, cpu = seconds + load["seconds"], cpu + load["cpu"]
        error = done["error"]
        where = str(generated / target)
        steps[target] = Step(label, error is None, error or "", seconds, cpu, where)
    return steps


def python_probe(root: SchemaRoot, out: Path) -> Step:
    package = out / "generated" / "python"
    return run_command(
        "importing every module and building every model (every_schema_probe.py)",
        [sys.executable, str(PROBE), str(package / "acp_protocol"), str(root.path)],
        out,
        {"PYTHONPATH": str(package), "PYTHONDONTWRITEBYTECODE": "1"},
    )


def python_mypy(root: SchemaRoot, out: Path) -> Step:
    """mypy as `make lint` runs it on generated/python/acp_protocol (the project's configuration:
    strict, Python 3.11, the pydantic plugin); no cache is written (none would be read again)."""
    config = ROOT / "pyproject.toml"
    argv = [sys.executable, "-m", "mypy", "--config-file", str(config), "--cache-dir", os.devnull]
    return run_command("mypy (strict)", [*argv, "acp_protocol"], out / "generated" / "python")


def typescript_tsc(root: SchemaRoot, out: Path) -> Step:
    """`tsc -p tsconfig.json` as `make ts-build` runs it, with declarations emitted (some errors
    are only found then), against .build/typescript/node_modules. `--skipLibCheck`: the
    declarations of node_modules (@types/node, ws) are the same for every root, and `make
    ts-build` checks them; skipping them saves a third of each run."""
    package = out / "generated" / "typescript"
    if not TSC.is_file():
        return Step("tsc", False, f"{TSC.relative_to(ROOT)} is missing: run `make ts-build`")
    wanted = json.loads((package / "package.json").read_text()).get("devDependencies")
    installed = json.loads((TS_BUILD / "package.json").read_text()).get("devDependencies")
    if wanted != installed:
        message = (
            f"the package's devDependencies {wanted} are not those .build/typescript installed "
            f"({installed}): run `make ts-build`"
        )
        return Step("tsc", False, message)
    modules = package / "node_modules"
    if not modules.exists():
        modules.symlink_to(TS_BUILD / "node_modules", target_is_directory=True)
    argv = [str(TSC), "-p", "tsconfig.json", "--skipLibCheck"]
    return run_command("tsc -p tsconfig.json (strict)", argv, package)


GO_ENV = {"GOTOOLCHAIN": "local", "GOFLAGS": "-buildvcs=false -trimpath"}
"""The machine's own toolchain, no VCS stamping, and paths trimmed: the build cache then serves
a module whose files did not change from any scratch folder (the pinned one, on a second run)."""


def go_vet(root: SchemaRoot, out: Path) -> Step:
    """`go vet ./...`: the type check of the whole module and vet's analyses (a `go build` on
    top would add only the code generation, about 30 s a 2.x schema on a cold cache)."""
    module = out / "generated" / "go"
    go = shutil.which("go")
    if go is None:
        return Step("go vet", False, "go not found on PATH: install Go 1.24 or newer")
    return run_command("go vet ./...", [go, "vet", "./..."], module, GO_ENV)


Check = Callable[[SchemaRoot, Path], Step]
CHECKS: dict[str, tuple[Check, ...]] = {
    "python": (python_probe, python_mypy),
    "typescript": (typescript_tsc,),
    "go": (go_vet,),
}
# Within a root, the longest check is queued first.
QUEUE_ORDER = (go_vet, python_mypy, typescript_tsc, python_probe)


# --- The pool ---------------------------------------------------------------------------------


def workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 2


class Harness:
    """Runs the jobs of the roots it is given in one thread pool (each job is a subprocess):
    first every root's render, biggest root first, then each root's checks as its render ends."""

    def __init__(self, workspace: Path, max_workers: int | None = None) -> None:
        self.workspace = workspace
        self._pool = ThreadPoolExecutor(max_workers or workers(), thread_name_prefix="schema")
        self._lock = threading.Lock()
        self._steps: dict[str, dict[str, list[Future[Step]]]] = {}

    def start(self, roots: Iterable[SchemaRoot]) -> None:
        for root in sorted(roots, key=lambda r: -r.size):
            with self._lock:
                if root.name in self._steps:
                    continue
                slots = {t: [Future[Step]() for _ in range(1 + len(CHECKS[t]))] for t in TARGETS}
                self._steps[root.name] = slots
            out = self.workspace / root.name
            out.mkdir(parents=True, exist_ok=True)
            rendered = self._pool.submit(render_job, root, out)
            rendered.add_done_callback(functools.partial(self._rendered, root, out, slots))

    def _rendered(
        self,
        root: SchemaRoot,
        out: Path,
        slots: dict[str, list[Future[Step]]],
        done: Future[dict[str, Step]],
    ) -> None:
        try:
            renders = done.result()
        except BaseException as exc:  # a bug of the harness: every target shows it
            trace = "".join(traceback.format_exception(exc))
            renders = dict.fromkeys(TARGETS, Step("render", False, trace))
        queued: list[tuple[int, Check, Future[Step]]] = []
        for target in TARGETS:
            slots[target][0].set_result(renders[target])
            for check, slot in zip(CHECKS[target], slots[target][1:], strict=True):
                if renders[target].ok:
                    queued.append((QUEUE_ORDER.index(check), check, slot))
                else:
                    slot.set_result(Step(check.__name__, True, "not run: no render"))
        for _, check, slot in sorted(queued, key=lambda item: item[0]):
            self._pool.submit(_settle, slot, check, root, out)

    def steps(self, root: SchemaRoot, target: str) -> list[Step]:
        """The render and the checks of `target` for `root` (started if it was not), in order,
        once they are done."""
        self.start([root])
        return [slot.result() for slot in self._steps[root.name][target]]

    def passed(self, root: SchemaRoot) -> bool:
        """Whether every step of `root` is done, and ok."""
        slots = self._steps.get(root.name, {})
        return bool(slots) and all(
            slot.done() and slot.result().ok for target in slots.values() for slot in target
        )

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


def _settle(slot: Future[Step], check: Check, root: SchemaRoot, out: Path) -> None:
    try:
        slot.set_result(check(root, out))
    except BaseException as exc:  # a bug of the harness: the test shows it
        slot.set_result(Step(check.__name__, False, "".join(traceback.format_exception(exc))))


# --- The render subprocess, and the timing table ----------------------------------------------


def render_targets(root: Path, generated: Path, report: Path) -> None:
    """Load `root`'s schemas once and render each target into `generated/<target>`; write to
    `report` the error (None when there was none), wall and CPU seconds of the load and of each
    target's render."""
    from acp_codegen.pipeline import load_specification, render
    from acp_codegen.problems import GenerationError, SchemaProblems

    outcome: dict[str, dict[str, Any]] = {}
    started, cpu = time.perf_counter(), time.process_time()
    try:
        spec = load_specification(root)
    except (SchemaProblems, GenerationError) as exc:
        outcome["load"] = {"error": str(exc)}
    else:
        outcome["load"] = {"error": None}
    children = resource.getrusage(resource.RUSAGE_CHILDREN)  # the validating processes
    outcome["load"]["seconds"] = time.perf_counter() - started
    outcome["load"]["cpu"] = time.process_time() - cpu + children.ru_utime + children.ru_stime
    if outcome["load"]["error"] is None:
        for target in TARGETS:
            started, cpu = time.perf_counter(), time.process_time()
            error: str | None = None
            try:
                render(spec, generated, (target,))
            except (SchemaProblems, GenerationError) as exc:
                error = str(exc)
            except Exception:  # a crash of the target: where it happened is the news
                error = traceback.format_exc()
            outcome[target] = {
                "error": error,
                "seconds": time.perf_counter() - started,
                "cpu": time.process_time() - cpu,
            }
    report.write_text(json.dumps(outcome))


def main(argv: list[str]) -> int:
    """`render ROOT GENERATED REPORT`: the render subprocess. Otherwise: check the roots named
    (all when none is), print each step's wall and CPU seconds, and each failure."""
    if argv[:1] == ["render"]:
        render_targets(Path(argv[1]), Path(argv[2]), Path(argv[3]))
        return 0
    started = time.perf_counter()
    roots = [root for root in schema_roots() if not argv or root.name in argv]
    failed = cpu = 0.0
    with tempfile.TemporaryDirectory(prefix="every-schema-") as workspace:
        harness = Harness(Path(workspace))
        harness.start(roots)
        for root in roots:
            for target in TARGETS:
                for step in harness.steps(root, target):
                    cpu += step.cpu
                    mark = "ok" if step.ok else "FAILED"
                    print(
                        f"{root.name:>14} {target:<10} {step.seconds:6.1f} s {step.cpu:6.1f} s CPU"
                        f"  {mark:6} {step.label}"
                    )
                    if not step.ok:
                        failed += 1
                        print(step.failure(root, target), file=sys.stderr)
                        break
        harness.close()
    wall = time.perf_counter() - started
    print(f"{len(roots)} schema roots, {workers()} workers: {wall:.1f} s, {cpu:.1f} s CPU")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
