"""Shared by every tier: test modules written for a protocol surface the pinned schemas lack are
reported skipped, with the reason (tests/surface.py). Imports nothing of the generator, so the
runtime, typed-layer and interop tiers run where only the generated package is installed
(`make test-matrix`); the `starters` fixture imports the generator when a test asks for it."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.services.fixtures import postgres  # noqa: F401  (a session fixture, started on demand)
from tests.surface import missing_surface, surface_files


class _WrongSurface(pytest.Module):
    """A test module written for a protocol surface the pinned schemas lack: reported skipped,
    with the reason, instead of failing at import."""

    reason = ""

    def collect(self) -> list[pytest.Item]:
        pytest.skip(self.reason)


def pytest_pycollect_makemodule(
    module_path: Path, parent: pytest.Collector
) -> pytest.Module | None:
    reason = missing_surface() if module_path in surface_files() else None
    if reason is None:
        return None
    module = _WrongSurface.from_parent(parent, path=module_path)
    module.reason = reason
    return module


@pytest.fixture(scope="session")
def starters(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The twelve starters (tests/starters/builds.py), each built once a session (TypeScript: one
    tsc run; Go: one go build), for the starter table and the field (tests/field)."""
    from tests.starters import table
    from tests.starters.builds import build_go, build_python, build_typescript, typescript_folder

    scratch = tmp_path_factory.mktemp("starters")
    built: dict[Any, Any] = {}
    folder = typescript_folder()
    try:
        for build, where in (
            (build_python, scratch / "python"),
            (build_typescript, folder),
            (build_go, scratch / "go"),
        ):
            started = time.monotonic()
            built |= build(where)
            what = f"build the {build.__name__.removeprefix('build_')} starters"
            table.TIMINGS.append((what, time.monotonic() - started))
        yield built
    finally:
        shutil.rmtree(folder, ignore_errors=True)
