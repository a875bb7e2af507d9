"""Every agent the docs show passes our own conformance suite: each block marked `agent` or
`agent=v2` (tests/docs/blocks.py) of README.md and docs/*.md is a whole program (built by
tests/docs/programs.py: Python run as written; TypeScript compiled in the session's one tsc run
of the docs tests; Go built in their module); it is run by the suite in agent mode
(`--protocol auto`, `--jobs 2`), and no MUST or SHOULD case fails. Cases the agent cannot show
(a capability it does not advertise, a turn that ended before it could be cancelled) are skips
with their reason, as for any agent. A docs page per language shows an agent that asks
permission (`Careful`): each shows every permission case and acts on the answer.

Not run here: fragments (`fragment=NAME`) are parts of a program, put into a wrapper of
tests/docs/wrappers by test_doc_blocks.py; the agent they talk to (docs/transports.md's
`MyAgent`, the v2 starter under docs/typed-layer.md's session view) is the test's own
(tests/docs/serving.py) or a starter, and the starters pass the suite in
tests/conformance/test_starter_agents.py.
"""

from __future__ import annotations

import re
import subprocess
import sys
from concurrent.futures import Future
from pathlib import Path

import pytest

from acp_codegen.cli import main as acp_codegen
from tests.conformance.suite import Run, run_suite
from tests.docs import programs
from tests.docs.blocks import Block, all_blocks

AGENTS = [block for block in all_blocks() if block.agent is not None]


def suite_run(command: list[str], folder: Path) -> Run:
    """The default suite against the agent `command` starts."""
    return run_suite(command, "--protocol", "auto", "--jobs", "2", trace=folder / "trace")


WANTS = {
    "test_a_streaming_docs_agent_is_cancelled_and_closed_while_its_turn_runs": "Words",
    "test_the_docs_agent_that_asks_permission_shows_every_permission_case": "Careful",
}
"""The tests that read the run of the agents defining a type, by that type's name (the one of
the test's `language`, when it has that parameter)."""

PERMISSION_LANGUAGES = ("python", "ts", "go")
"""A docs page per language shows an agent that asks permission: docs/typed-layer.md (Python),
docs/typescript-target.md, docs/go-target.md."""


@pytest.fixture(scope="module")
def runs(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Future[Run]]:
    """One suite run per docs agent a selected test reads, two at once (a run often waits on
    the agent: a turn's words, the quiet after a close), each block's run shared by its tests."""
    wanted: dict[str, Block] = {}
    for item in request.session.items:
        if not isinstance(item, pytest.Function) or item.module is not sys.modules[__name__]:
            continue
        params = item.callspec.params if hasattr(item, "callspec") else {}
        block = params.get("block")
        if isinstance(block, Block):
            wanted[block.id] = block
        elif item.originalname in WANTS:
            found = agent_defining(WANTS[item.originalname], str(params.get("language", "python")))
            wanted[found.id] = found
    folders = {key: tmp_path_factory.mktemp(f"{b.page.stem}_{b.line}") for key, b in wanted.items()}

    def run(block: Block, command: list[str]) -> Run:
        return suite_run(command, folders[block.id])

    return programs.run_each(wanted.values(), programs.base(tmp_path_factory), run)


def agent_defining(name: str, language: str = "python") -> Block:
    """The docs agent block of `language` that defines the type `name` (a Python or TypeScript
    class, a Go type spelled in lower case)."""
    spelled = re.compile(rf"^(?:class|type) {name}\b", re.IGNORECASE | re.MULTILINE)
    found = [b for b in AGENTS if b.language == language and spelled.search(b.text)]
    assert len(found) == 1, f"the docs have {len(found)} {language} agent blocks defining {name}"
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


@pytest.mark.parametrize("language", PERMISSION_LANGUAGES)
def test_the_docs_agent_that_asks_permission_shows_every_permission_case(
    language: str, runs: dict[str, Future[Run]]
) -> None:
    """The docs' `Careful` agents (docs/typed-layer.md, docs/typescript-target.md,
    docs/go-target.md) ask before every task: the suite's permission cases (which hold the
    question, then answer it `cancelled`) all judge each, none skipped."""
    run = runs[agent_defining("Careful", language).id].result()
    for case in (
        "lifecycle.permission_reports_requires_action",
        "lifecycle.cancelled_permission_outcome_resumes_or_ends",
        "lifecycle.cancel_while_asking_cancels_the_permission_request",
    ):
        trace = run.traces[case]
        assert trace["outcome"] == "pass", f"{case}: {trace['outcome']}: {trace.get('reason')}"


@pytest.fixture(scope="module")
def v2_starter_client(tmp_path_factory: pytest.TempPathFactory) -> Path:
    client = tmp_path_factory.mktemp("starter") / "client.py"
    assert acp_codegen(["scaffold", "client", "--protocol", "v2", "--out", str(client)]) == 0
    return client


@pytest.mark.parametrize("language", PERMISSION_LANGUAGES)
@pytest.mark.parametrize(
    ("choice", "said"),
    [("--approve-all", "tidy the desk"), ("--deny-all", "Not done: you rejected it.")],
)
def test_the_docs_agent_acts_on_the_permission_answer(
    language: str,
    choice: str,
    said: str,
    v2_starter_client: Path,
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Allowed, `Careful` does the task (streams its words back); rejected, it ends the turn
    saying so: the v2 starter client's `--approve-all` / `--deny-all` answer the question."""
    client = v2_starter_client
    agent = programs.program(agent_defining("Careful", language), programs.base(tmp_path_factory))
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
