"""The starter specification (docs/install.md, "Starters"), as one table: for each protocol
version, every starter client (Python, TypeScript, Go) against every starter agent of that
version and against the official TypeScript SDK's agent (@agentclientprotocol/sdk 2.4.0,
tests/interop/node): 3 x 4 pairs a version.

- the prompt's words come back, and the client prints the stop reason (`--` before the agent
  program, and the agent's own `--verbose`, passed through);
- `ask …`: the agent asks the client's permission; denied when stdin is not a terminal, allowed
  with `--approve-all`;
- `read PATH` (v1: v2 has no file system methods): a file in the client's working directory comes
  back through the client;
- Ctrl-C (SIGINT to the client's process group, as a terminal sends it) once the first word is
  printed, while the agent works on a slow prompt: the client cancels the prompt (v1
  `session/cancel`, v2 its `session/cancel`), prints `[cancelled]`, exits 0, no traceback; five
  times a pair, so that a race shows;
- v2: what a client prints is read from its session's state, the same for the three clients: a
  tool call's line carries the title an earlier update gave when a later one brings only its
  status (tests/starters/tool_call_agent.py);
- v2: a turn's words are printed after the agent reported the new session idle at once, before
  any prompt, as the official Rust SDK's v2 agents do (tests/starters/idle_first_agent.py);
- a client meeting an agent of the other version fails with one line naming both versions;
- no run leaves an agent process behind.

Each starter is built once (tests/starters/builds.py); the runs go four at a time
(tests/starters/table.py). The table's timing is printed at the end of the session."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from tests.starters import table
from tests.starters.builds import (
    LANGUAGES,
    PROTOCOLS,
    Starter,
    Starters,
    idle_first_agent,
    official_agent,
    tool_call_agent,
)
from tests.starters.idle_first_agent import EXPECTED as IDLE_FIRST_WORDS
from tests.starters.table import Outcome, Run
from tests.starters.tool_call_agent import EXPECTED as TOOL_CALL_LINES

REPEATS = 5
"""Ctrl-C runs per pair."""
SLOW = " ".join(str(n) for n in range(400))
"""A prompt a starter agent streams back for 20 s (50 ms a word)."""
NOTES = "first line of the notes\nsecond line\n"


@dataclass(frozen=True)
class Script:
    """What to send to an agent, and what its client prints back (before the stop reason)."""

    words: str
    words_back: str
    ask: str
    allowed: str
    denied: str
    slow: str
    not_after_ctrl_c: str | None
    env: tuple[tuple[str, str], ...] = ()


STARTER_SCRIPT = Script(
    words="hello table",
    words_back="You said: hello table ",
    ask="ask may I?",
    allowed="Allowed. ",
    denied="Not allowed. ",
    slow=SLOW,
    not_after_ctrl_c=" 399 ",
)
OFFICIAL_SCRIPTS = {
    # ts_agent.mjs: "stream" streams three words, "slow" one and then waits for the cancel.
    "v1": Script(
        words="stream",
        words_back="one two three",
        ask="ask may I?",
        allowed="Allowed. ",
        denied="Not allowed. ",
        slow="slow",
        not_after_ctrl_c=None,
    ),
    # ts_v2_agent.mjs: echoes the prompt; "permission" in it asks first (denied: nothing comes).
    "v2": Script(
        words="hello table",
        words_back="hello table",
        ask="ask for permission",
        allowed="ask for permission",
        denied="",
        slow=SLOW,
        not_after_ctrl_c="399",
        env=(("ACP_V2_WORD_DELAY_MS", "50"),),
    ),
}


def script(agent: Starter) -> Script:
    return OFFICIAL_SCRIPTS[agent.protocol] if agent.lang == "official" else STARTER_SCRIPT


def agents(starters: Starters, protocol: str) -> list[Starter]:
    return [*(starters[lang, protocol, "agent"] for lang in LANGUAGES), official_agent(protocol)]


def clients(starters: Starters, protocol: str) -> list[Starter]:
    return [starters[lang, protocol, "client"] for lang in LANGUAGES]


@dataclass(frozen=True)
class Adder:
    """Adds a run of `client` against `agent` to a behaviour's runs."""

    runs: dict[str, list[Run]]
    client: Starter
    agent: Starter
    env: tuple[tuple[str, str], ...]

    def __call__(
        self,
        behaviour: str,
        prompt: str,
        *,
        options: tuple[str, ...] = (),
        separator: bool = False,
        agent_args: tuple[str, ...] = (),
        ctrl_c: bool = False,
    ) -> None:
        run = Run(self.client, self.agent, prompt, options, separator, agent_args, ctrl_c, self.env)
        self.runs.setdefault(behaviour, []).append(run)


def table_runs(starters: Starters) -> dict[str, list[Run]]:
    """Each behaviour's runs, every client against every agent of its version."""
    runs: dict[str, list[Run]] = {}
    for protocol in PROTOCOLS:
        for client in clients(starters, protocol):
            for agent in agents(starters, protocol):
                say = script(agent)
                add = Adder(runs, client, agent, say.env)
                add("words", say.words, separator=True, agent_args=("--verbose",))
                add("denied", say.ask)
                add("allowed", say.ask, options=("--approve-all",))
                if protocol == "v1":
                    add("read", "read notes.txt")
                for _ in range(REPEATS):
                    add("ctrl_c", say.slow, ctrl_c=True)
        if protocol == "v2":
            for client in clients(starters, protocol):
                runs.setdefault("tool_call", []).append(Run(client, tool_call_agent(), "hi"))
                runs.setdefault("idle_first", []).append(Run(client, idle_first_agent(), "hi"))
        other = {"v1": "v2", "v2": "v1"}[protocol]
        for client in clients(starters, protocol):
            for agent in agents(starters, other):
                runs.setdefault("versions", []).append(Run(client, agent, "hello"))
    return runs


@pytest.fixture(scope="session")
def outcomes(
    starters: Starters, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, list[Outcome]]:
    """Every run of the table, four at a time, by behaviour."""
    cwd = tmp_path_factory.mktemp("client_cwd")
    (cwd / "notes.txt").write_text(NOTES)
    runs = table_runs(starters)
    started = time.monotonic()
    flat = [run for behaviour in runs.values() for run in behaviour]
    done = iter(table.execute_all(flat, cwd))
    table.TIMINGS.append((f"{len(flat)} runs, {table.POOL} at a time", time.monotonic() - started))
    return {behaviour: [next(done) for _ in batch] for behaviour, batch in runs.items()}


def failures(outcomes: list[Outcome], check: Callable[[Outcome], None]) -> str:
    """The outcomes `check` (an assertion per outcome) rejects, described, or ""."""
    bad = []
    for outcome in outcomes:
        try:
            check(outcome)
        except AssertionError as error:
            bad.append(f"{outcome.describe()}\n  → {error}")
    return "\n".join(bad)


def ended(outcome: Outcome, text: str) -> None:
    """Exit 0, no traceback, `text` then the stop reason `end_turn` on stdout."""
    assert outcome.returncode == 0 and not outcome.failure, "failed"
    assert "Traceback" not in outcome.stderr, "a traceback"
    assert outcome.stdout == f"{text}\n[end_turn]\n", f"expected {text!r}"


def test_every_starter_client_prints_the_words_of_every_agent_of_its_version(
    outcomes: dict[str, list[Outcome]],
) -> None:
    """`client --prompt TEXT -- AGENT_PROGRAM --verbose`: the agent's own option is passed
    through; the words stream back, then `[end_turn]`."""
    runs = outcomes["words"]
    assert len(runs) == 2 * 3 * 4
    bad = failures(runs, lambda o: ended(o, script(o.run.agent).words_back))
    assert not bad, bad


def test_ask_is_denied_when_stdin_is_not_a_terminal_and_approve_all_is_not_given(
    outcomes: dict[str, list[Outcome]],
) -> None:
    bad = failures(outcomes["denied"], lambda o: ended(o, script(o.run.agent).denied))
    assert not bad, bad


def test_ask_is_allowed_with_approve_all(outcomes: dict[str, list[Outcome]]) -> None:
    bad = failures(outcomes["allowed"], lambda o: ended(o, script(o.run.agent).allowed))
    assert not bad, bad


def test_read_path_of_a_file_in_the_clients_folder_comes_back_through_the_client(
    outcomes: dict[str, list[Outcome]],
) -> None:
    """v1 (v2 has no file system methods): `read notes.txt` is read from the session's cwd, the
    client's working directory, which the client serves."""
    runs = outcomes["read"]
    assert len(runs) == 3 * 4
    bad = failures(runs, lambda o: ended(o, "first line of the notes "))
    assert not bad, bad


def test_every_v2_starter_client_prints_a_tool_calls_title_and_status_from_the_state(
    outcomes: dict[str, list[Outcome]],
) -> None:
    """A `tool_call_update` with a title and `in_progress`, the agent's text, then one with only
    `completed`: each line shows the tool call as the state holds it (the title kept, "Omission
    leaves the title unchanged"), the text between; the three clients print the same stdout."""
    runs = outcomes["tool_call"]
    assert len(runs) == 3
    bad = failures(runs, lambda o: ended(o, TOOL_CALL_LINES))
    assert not bad, bad


def test_every_v2_starter_client_prints_the_words_after_a_new_session_reported_idle_at_once(
    outcomes: dict[str, list[Outcome]],
) -> None:
    """`session/new` answered, then `state_update` `idle` (no stop reason); the prompt answered
    `m1`, its `user_message` echo, `running`, eight chunks of message `m2`, `idle` `end_turn`:
    the three clients print the eight words, then `[end_turn]`."""
    runs = outcomes["idle_first"]
    assert len(runs) == 3
    bad = failures(runs, lambda o: ended(o, IDLE_FIRST_WORDS))
    assert not bad, bad


def cancelled(outcome: Outcome) -> None:
    assert not outcome.failure, "failed"
    assert "Traceback" not in outcome.stderr, "a traceback"
    assert outcome.returncode == 0, "not exit 0"
    assert outcome.stdout.endswith("\n[cancelled]\n"), "no [cancelled]"
    last = script(outcome.run.agent).not_after_ctrl_c
    assert last is None or last not in outcome.stdout, "the prompt ran to its end"


def test_ctrl_c_in_any_starter_client_prints_cancelled_and_exits_0(
    outcomes: dict[str, list[Outcome]],
) -> None:
    """SIGINT once the first word is printed: the client cancels the prompt (v1:
    `session/cancel`, answered with the `cancelled` stop reason; v2: `session/cancel`, the work
    ends with an idle update, stop reason `cancelled`), waits for that, prints `[cancelled]` and
    exits 0. Five times a pair."""
    runs = outcomes["ctrl_c"]
    assert len(runs) == 2 * 3 * 4 * REPEATS
    bad = failures(runs, cancelled)
    assert not bad, bad


def one_version_error(outcome: Outcome) -> None:
    mine, theirs = outcome.run.client.protocol[1:], outcome.run.agent.protocol[1:]
    assert outcome.returncode == 1 and "Traceback" not in outcome.stderr, "not one failure"
    lines = outcome.stderr.strip().splitlines()
    assert len(lines) == 1, "not one line"
    said = rf"asked for version {mine}, the agent (answered|supports) {theirs}\b"
    assert "-32022" in lines[0] and re.search(said, lines[0]), "not naming both versions"


def test_a_client_meeting_an_agent_of_the_other_version_fails_with_one_line_naming_both(
    outcomes: dict[str, list[Outcome]],
) -> None:
    """A v2 client and a v1 agent (which answers `initialize` with version 1, in v1's shape),
    and a v1 client and a v2 agent (which answers -32022): one line, -32022, both versions."""
    runs = outcomes["versions"]
    assert len(runs) == 2 * 3 * 4
    bad = failures(runs, one_version_error)
    assert not bad, bad


def test_no_run_leaves_an_agent_process_behind(outcomes: dict[str, list[Outcome]]) -> None:
    """The client ends its agent with the connection, Ctrl-C included."""
    everything = [outcome for runs in outcomes.values() for outcome in runs]

    def gone(outcome: Outcome) -> None:
        assert not outcome.leftovers, "an agent outlived its client"

    bad = failures(everything, gone)
    assert not bad, bad
