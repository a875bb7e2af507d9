"""Shared by every tier: test modules written for a protocol surface the pinned schemas lack are
reported skipped, with the reason (tests/surface.py). Imports nothing of the generator, so the
runtime, typed-layer and interop tiers run where only the generated package is installed
(`make test-matrix`)."""

from __future__ import annotations

from pathlib import Path

import pytest

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
