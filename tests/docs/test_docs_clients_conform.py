"""Every client the docs show passes our own conformance suite: each block marked `client` or
`client=v2` (tests/docs/blocks.py) of README.md and docs/*.md is a whole client program that
starts the agent its arguments name (built by tests/docs/programs.py, as the agents of
test_docs_agents_conform.py are); the suite runs it in client mode (docs/conformance.md, "Testing
a client") with the suite's scripted agent as that agent (`{agent}`), and no MUST or SHOULD case
fails. The docs' clients select a reject option when asked permission (`--permission reject`);
they take no prompt from their command line and do not cancel on Ctrl-C, so the cases that need
either are skips with their reason, as for any client.
"""

from __future__ import annotations

from concurrent.futures import Future

import pytest

from tests.conformance.suite import Run, run_suite
from tests.docs import programs
from tests.docs.blocks import Block, all_blocks

CLIENTS = [block for block in all_blocks() if block.client is not None]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Future[Run]]:
    """One client-mode suite run per docs client, two at once."""
    folders = {b.id: tmp_path_factory.mktemp(f"{b.page.stem}_{b.line}") for b in CLIENTS}

    def suite_run(block: Block, command: list[str]) -> Run:
        return run_suite(
            [*command, "{agent}"],
            "--protocol",
            str(block.client),
            "--permission",
            "reject",
            trace=folders[block.id] / "trace",
            mode="client",
        )

    return programs.run_each(CLIENTS, programs.base(tmp_path_factory), suite_run)


def test_the_docs_show_clients_in_python_and_typescript() -> None:
    assert {block.language for block in CLIENTS} >= {"python", "ts"}, CLIENTS


@pytest.mark.parametrize("block", CLIENTS, ids=[block.id for block in CLIENTS])
def test_the_docs_client_passes_every_must_and_should_case(
    block: Block, runs: dict[str, Future[Run]]
) -> None:
    run = runs[block.id].result()
    assert run.traces, f"{block.where}: no case ran\n{run.stdout}\n{run.stderr}"
    assert run.ids("fail", "MUST", "SHOULD") == set(), f"{block.where}:\n{run.stdout}"
    assert run.status == 0, f"{block.where}:\n{run.stdout}\n{run.stderr}"
    assert {trace["protocol"] for trace in run.traces.values()} == {block.client}
    answered = run.traces["client.answers.session/request_permission"]
    assert answered["outcome"] == "pass", f"{block.where}: {answered.get('reason')}"


STACK_TRACES = ("Traceback (most recent call last)", "\n    at ")
"""What a Python or a Node stack trace prints; a docs client's failure is one line instead."""


@pytest.mark.parametrize("block", CLIENTS, ids=[block.id for block in CLIENTS])
def test_the_docs_client_fails_with_one_line_never_a_stack_trace(
    block: Block, runs: dict[str, Future[Run]]
) -> None:
    run = runs[block.id].result()
    stacks = {
        case_id: trace["stderr"]
        for case_id, trace in run.traces.items()
        if any(marker in (trace.get("stderr") or "") for marker in STACK_TRACES)
    }
    assert not stacks, f"{block.where}: {stacks}"
