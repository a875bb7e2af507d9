"""`make test-matrix`: the runtime, typed-layer and interop tiers under every supported Python.

The generated package supports Python 3.10-3.13 and pydantic from the lowest version its
pyproject.toml declares; the generator and the main test run need 3.11. Each run below gets a venv
of its own (`.venv-matrix/<python>-pydantic<version>`, rebuilt only when its pins change) with the
exact versions of constraints/matrix.txt, this checkout and its generated package on the path
(a `.pth` file, as the editable install does), then runs pytest on `TIERS`. Interpreters are
looked up in pyenv's versions folder, then on PATH (`python3.10`); a missing one fails the target
with one line saying which and how to get it.

Usage: python -m tests.matrix [--only 3.10]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tests.paths import ROOT

TIERS = ("tests/runtime", "tests/typed", "tests/interop")
PACKAGES = (
    "pytest",
    "pytest-asyncio",
    "hypothesis",
    "orjson",
    "uvloop",
    "agent-client-protocol",
    "pygls",
    "psycopg[binary]",  # the `postgres` extra: its store and replay tests run under every Python
    "psycopg-pool",
)
CONSTRAINTS = ROOT / "constraints" / "matrix.txt"
VENVS = ROOT / ".venv-matrix"


@dataclass(frozen=True)
class Run:
    python: str
    pydantic: str

    @property
    def name(self) -> str:
        return f"{self.python}-pydantic{self.pydantic}"


def runs() -> list[Run]:
    """The lowest Python with the lowest pydantic; the newer Pythons with the locked pydantic."""
    lowest, locked = lowest_pydantic(), locked_pydantic()
    return [Run("3.10", lowest), Run("3.12", locked), Run("3.13", locked)]


def lowest_pydantic() -> str:
    """The lowest pydantic the generated distribution declares (`pydantic>=2.10,<3` → 2.10.0)."""
    text = (ROOT / "generated" / "python" / "pyproject.toml").read_text()
    found = re.search(r'"pydantic>=([0-9.]+)', text)
    if found is None:
        raise SystemExit("test-matrix: generated/python/pyproject.toml declares no pydantic>=")
    parts = found.group(1).split(".")
    return ".".join([*parts, "0", "0"][:3])


def locked_pydantic() -> str:
    found = re.search(r"^pydantic==(\S+)$", (ROOT / "constraints" / "dev.txt").read_text(), re.M)
    if found is None:
        raise SystemExit("test-matrix: constraints/dev.txt pins no pydantic")
    return found.group(1)


def find_python(version: str) -> Path:
    """The newest pyenv install of 3.X, else `python3.X` on PATH (not a pyenv shim: a shim fails
    for a version that is installed but not selected)."""
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    installs = sorted(
        pyenv.glob(f"{version}.*/bin/python{version}"),
        key=lambda p: [int(n) for n in re.findall(r"\d+", p.parts[-3])],
    )
    if installs:
        return installs[-1]
    on_path = shutil.which(f"python{version}")
    if on_path and "shims" not in Path(on_path).parts:
        return Path(on_path)
    raise SystemExit(
        f"test-matrix: Python {version} not found (looked in {pyenv} and for python{version} on "
        f"PATH); install it, for example `pyenv install {version}`"
    )


def prepare(run: Run) -> Path:
    """The run's venv, built (or rebuilt when its pins changed); returns its python."""
    venv = VENVS / run.name
    python = venv / "bin" / "python"
    pins = CONSTRAINTS.read_bytes() + f"{PACKAGES} pydantic=={run.pydantic}".encode()
    stamp = venv / ".pins-sha256"
    digest = hashlib.sha256(pins).hexdigest()
    if python.exists() and stamp.exists() and stamp.read_text() == digest:
        return python
    shutil.rmtree(venv, ignore_errors=True)
    _check([str(find_python(run.python)), "-m", "venv", str(venv)], f"venv for {run.name}")
    install = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    _check(
        [*install, "-c", str(CONSTRAINTS), *PACKAGES, f"pydantic=={run.pydantic}"],
        f"pip install for {run.name}",
    )
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(site, "acp_codegen_checkout.pth").write_text(f"{ROOT}\n{ROOT / 'generated' / 'python'}\n")
    stamp.write_text(digest)
    return python


def _check(command: list[str], what: str) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
        errors = [line for line in lines if "error" in line.lower()]
        reason = (errors or lines or [f"exit status {done.returncode}"])[0]
        raise SystemExit(f"test-matrix: {what} failed: {reason}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.matrix", description=__doc__)
    parser.add_argument("--only", help="run one Python version, such as 3.10")
    args = parser.parse_args(argv)
    selected = [r for r in runs() if args.only in (None, r.python)]
    failed = []
    for run in selected:
        started = time.perf_counter()
        python = prepare(run)
        print(f"test-matrix: Python {run.python}, pydantic {run.pydantic}", flush=True)
        # No cache provider: runs of different Pythons share the checkout.
        done = subprocess.run(
            [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", *TIERS], cwd=ROOT
        )
        took = time.perf_counter() - started
        print(f"test-matrix: {run.name}: exit {done.returncode} ({took:.0f} s)", flush=True)
        if done.returncode != 0:
            failed.append(run.name)
    if failed:
        print(f"test-matrix: failed under {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
