"""Every agent the docs show passes our own conformance suite: each block marked `agent` or
`agent=v2` (tests/docs/blocks.py) of README.md and docs/*.md is a whole program (Python run as
written; TypeScript compiled by the docs tests' tsc run, tests/docs/compiled.py; Go built in their
module); it is run by the suite in agent mode (`--protocol auto`, `--jobs 2`), and no MUST or
SHOULD case fails. Cases the agent cannot show (a capability it does not advertise, a turn that
ended before it could be cancelled) are skips with their reason, as for any agent.

Not run here: fragments (`fragment=NAME`) are parts of a program, put into a wrapper of
tests/docs/wrappers by test_doc_blocks.py; the agent they talk to (docs/transports.md's
`MyAgent`, the v2 starter under docs/typed-layer.md's session view) is the test's own
(tests/docs/serving.py) or a starter, and the starters pass the suite in
tests/conformance/test_starter_agents.py.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from acp_codegen.cli import main as acp_codegen
from tests.conformance.suite import Run, run_suite
from tests.docs import compiled
from tests.docs.blocks import Block, all_blocks

AGENTS = [block for block in all_blocks() if block.agent is not None]


def program(block: Block, folder: Path) -> list[str]:
    """The block as a reader saves it and builds it: the command that starts it."""
    if block.language == "ts":
        built = compiled.typescript_build(folder)  # every ts block, one tsc run
        name = compiled.source_name(block, "ts")
        errors = built.diagnostics[""] + built.diagnostics[name]
        assert not errors, "\n".join(errors)
        return ["node", str(built.folder / "out" / name.replace(".ts", ".js"))]
    if block.language == "go":
        package = compiled.go_module(folder) / compiled.source_name(block, "go").removesuffix(".go")
        package.mkdir()
        (package / "main.go").write_text(block.text, encoding="utf-8")
        done = compiled.go(["go", "build", "-o", "program", "."], package)
        assert done.returncode == 0, done.stdout + done.stderr
        return [str(package / "program")]
    path = folder / f"{block.page.stem}_{block.line}.py"
    path.write_text(block.text, encoding="utf-8")
    return [sys.executable, str(path)]


def suite_run(block: Block, folder: Path) -> Run:
    """The default suite against the block's agent."""
    return run_suite(
        program(block, folder), "--protocol", "auto", "--jobs", "2", trace=folder / "trace"
    )


WANTS = {
    "test_a_streaming_docs_agent_is_cancelled_and_closed_while_its_turn_runs": "Words",
    "test_the_docs_agent_that_asks_permission_shows_every_permission_case": "Careful",
}
"""The tests that read the run of the agent defining a class, by that class."""


@pytest.fixture(scope="module")
def runs(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Future[Run]]]:
    """One suite run per docs agent a selected test reads, two at once (a run often waits on
    the agent: a turn's words, the quiet after a close), each block's run shared by its tests."""
    wanted: dict[str, Block] = {}
    for item in request.session.items:
        if not isinstance(item, pytest.Function) or item.module is not sys.modules[__name__]:
            continue
        callspec = getattr(item, "callspec", None)
        block = callspec.params.get("block") if callspec is not None else None
        if isinstance(block, Block):
            wanted[block.id] = block
        elif item.originalname in WANTS:
            found = agent_defining(WANTS[item.originalname])
            wanted[found.id] = found
    with ThreadPoolExecutor(max_workers=2) as pool:
        yield {
            key: pool.submit(
                suite_run, block, tmp_path_factory.mktemp(f"{block.page.stem}_{block.line}")
            )
            for key, block in wanted.items()
        }


def agent_defining(name: str) -> Block:
    """The docs agent block that defines the class `name`."""
    found = [block for block in AGENTS if f"class {name}(" in block.text]
    assert len(found) == 1, f"the docs have {len(found)} agent blocks defining {name}"
    return found[0]


def test_the_docs_show_agents_in_every_language() -> None:
    assert {block.language for block in AGENTS} == {"python", "ts", "go"}, AGENTS


@pytest.mark.parametrize("block", AGENTS, ids=[block.id for block in AGENTS])
def test_the_docs_agent_passes_every_must_and_should_case(
    block: Block, runs: dict[str, Future[Run]]
) -> None:
    run = runs[block.id].result()
    assert run.traces, f"{block.where}: no case ran\n{run.stdout}\n{run.stderr}"
    assert run.ids("fail", "MUST", "SHOULD") == set(), f"{block.where}:\n{run.stdout}"
    assert run.status == 0, f"{block.where}:\n{run.stdout}\n{run.stderr}"
    assert {trace["protocol"] for trace in run.traces.values()} == {block.agent}


def test_a_streaming_docs_agent_is_cancelled_and_closed_while_its_turn_runs(
    runs: dict[str, Future[Run]],
) -> None:
    """docs/typed-layer.md's `Words` streams the busy prompt's words; its loop yields between
    words, so a `session/cancel` or `session/close` sent mid-turn is read while the turn runs
    (a loop that never yields reads them after the work ended: the cases cannot judge it)."""
    run = runs[agent_defining("Words").id].result()
    for case in (
        "lifecycle.cancel_ends_the_work_idle_cancelled",
        "lifecycle.close_reports_idle_cancelled_before_its_answer",
    ):
        trace = run.traces[case]
        assert trace["outcome"] == "pass", f"{case}: {trace['outcome']}: {trace.get('reason')}"


def test_the_docs_agent_that_asks_permission_shows_every_permission_case(
    runs: dict[str, Future[Run]],
) -> None:
    """docs/typed-layer.md's `Careful` asks before every task: the suite's permission cases
    (which hold the question, then answer it `cancelled`) all judge it, none skipped."""
    run = runs[agent_defining("Careful").id].result()
    for case in (
        "lifecycle.permission_reports_requires_action",
        "lifecycle.cancelled_permission_outcome_resumes_or_ends",
        "lifecycle.cancel_while_asking_cancels_the_permission_request",
    ):
        trace = run.traces[case]
        assert trace["outcome"] == "pass", f"{case}: {trace['outcome']}: {trace.get('reason')}"


@pytest.mark.parametrize(
    ("choice", "said"),
    [("--approve-all", "tidy the desk"), ("--deny-all", "Not done: you rejected it.")],
)
def test_the_docs_agent_acts_on_the_permission_answer(
    choice: str, said: str, tmp_path: Path
) -> None:
    """Allowed, `Careful` does the task (streams its words back); rejected, it ends the turn
    saying so: the v2 starter client's `--approve-all` / `--deny-all` answer the question."""
    client = tmp_path / "client.py"
    assert acp_codegen(["scaffold", "client", "--protocol", "v2", "--out", str(client)]) == 0
    agent = program(agent_defining("Careful"), tmp_path)
    done = subprocess.run(
        [sys.executable, str(client), choice, "--prompt", "tidy the desk", *agent],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [line.strip() for line in done.stdout.splitlines() if line.strip()]
    assert lines[-2:] == [said, "[end_turn]"], done.stdout
