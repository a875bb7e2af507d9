"""Every published schema generates, and what it generates compiles: for the pinned schemas and
for every fixture root under tests/fixtures/schemas (releases of `@agentclientprotocol/sdk`,
README.md there), each target is rendered into a scratch folder and checked as the pinned one is
in `make test`: the Python package imports, builds its models and passes `mypy --strict`;
`tsc --strict` compiles the TypeScript package; `go vet` passes on the Go module.

The roots' jobs run side by side (every_schema.py); the first test to ask waits for its own.
A failure names the root, the target and the command, with the first lines it printed. A pair
known to fail is in `KNOWN_FAILURES`, marked strict xfail: when it is fixed, its test fails until
the entry is removed.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.generator.every_schema import TARGETS, Harness, SchemaRoot, schema_roots

ROOTS = schema_roots()

KNOWN_FAILURES: dict[tuple[str, str], str] = {}
"""(root name, target) → what fails, for pairs that are known to fail."""


def _cases() -> list[object]:
    cases: list[object] = []
    for root in ROOTS:
        for target in TARGETS:
            reason = KNOWN_FAILURES.get((root.name, target))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            cases.append(pytest.param(root, target, id=f"{root.name}-{target}", marks=marks))
    return cases


@pytest.fixture(scope="module")
def harness(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Harness]:
    """One pool for the module, started on every root a selected test of it checks."""
    workspace = tmp_path_factory.mktemp("every-schema")
    running = Harness(workspace)
    selected = [
        item.callspec.params.get("root")
        for item in request.session.items
        if isinstance(item, pytest.Function)
        and item.module is request.module
        and hasattr(item, "callspec")
    ]
    running.start(root for root in selected if isinstance(root, SchemaRoot))
    yield running
    running.close()
    for root in ROOTS:  # what failed is kept, to look at
        if (workspace / root.name).is_dir() and running.passed(root):
            shutil.rmtree(workspace / root.name, ignore_errors=True)


def test_every_fixture_root_is_found() -> None:
    names = [root.name for root in ROOTS]
    assert names[0].startswith("pinned-")
    assert {"0.4.5", "0.16.0", "1.5.1", "1.9.0", "2.0.2", "2.4.0"} <= set(names[1:])
    assert sum(root.version == "1.20.0" for root in ROOTS) == 1  # pinned: the fixture is left out
    for root in ROOTS[1:]:
        assert root.path.parent == Path(__file__).resolve().parents[1] / "fixtures" / "schemas"


@pytest.mark.parametrize(("root", "target"), _cases())
def test_the_schema_generates_a_target_that_compiles(
    harness: Harness, root: SchemaRoot, target: str
) -> None:
    for step in harness.steps(root, target):
        if not step.ok:
            pytest.fail(step.failure(root, target), pytrace=False)


NEW_IN_CRATE_1_20 = ("plan_update", "plan_removed", "subagent_update", "session_message")
"""v1 stable `session/update` variants of schema crate 1.20 that npm 2.4.0's schemas lack."""


@pytest.mark.parametrize("target", TARGETS)
def test_crate_1_20_types_the_new_v1_stable_surfaces_in_every_target(
    harness: Harness, target: str
) -> None:
    """Crate 1.20's v1 stable schema adds `plan_update`, `plan_removed`, `subagent_update`,
    `session_message(_chunk)` updates and a `systemPrompt` on `session/new|load|resume`: each
    target types them in its v1 (stable) package."""
    (root,) = [r for r in ROOTS if r.version == "1.20.0"]  # pinned, or a fixture
    assert all(step.ok for step in harness.steps(root, target))
    v1 = {
        "python": "python/acp_protocol/v1/_models",
        "typescript": "typescript/src/v1/types.ts",
        "go": "go/v1/types.go",
    }[target]
    path = harness.workspace / root.name / "generated" / v1
    text = "\n".join(p.read_text() for p in ([path] if path.is_file() else path.rglob("*.py")))
    for tag in NEW_IN_CRATE_1_20:
        variant = "SessionUpdate" + "".join(part.title() for part in tag.split("_"))
        assert variant in text, (target, variant)
    assert ("system_prompt" if target == "python" else "systemPrompt") in text
