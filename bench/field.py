"""Workload (l): a production agent's prompt turn through our clients and the official TypeScript
SDK's, against the same loopback model mock (issue 47, item 6).

claude-agent-acp 0.101.0 (from `make test`'s lock, tests/interop/production) runs offline as the
field tests run it (tests/field/agents.py: a home folder of its own, every proxy on a closed port,
`ANTHROPIC_BASE_URL` on the Anthropic Messages mock of tests/field/mocks/anthropic.py), the mock
answering every model request with the same text in DELTAS deltas and no tool. Each client
program (bench/stdio: `field_client.py` on our Python typed client `acp_protocol.v1.client`,
`ours_ts/field_client.ts` on our TypeScript package, built by `make ts-build`, `go/field_client`
on our Go package, `ts/field_client.mjs` on @agentclientprotocol/sdk from bench/stdio/ts's lock)
starts the agent once, initializes (v1), opens one session and runs WARM untimed turns (the
first turn's first chunk is a notice of Claude Code's own, "**Warning:** We're changing auto mode
…", sent before the model's words), then TIMED turns, each timed from sending `session/prompt`
to the first `agent_message_chunk` its handler sees (`first`) and to the prompt's answer (`end`).
The four run interleaved, each round in another order, all against the one mock.

What is measured is mostly the agent: between the prompt and its answer, claude-agent-acp hands
the prompt to the Claude Code program it runs, which posts to the mock and streams the answer
back through the agent's node process, and the agent makes side requests of its own (a title, a
suggestion). That is hundreds of milliseconds a turn, and seconds on a loaded machine; a client's
share is reading a frame per chunk and the answer (tens of microseconds each). So the goal is
only that a client of ours adds nothing a user could see: the ratio of medians, ours / the TS
SDK's, at most 1.10; on a busy machine it says more about the machine than about the clients.
Run: python bench/field.py [--smoke]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import two_process

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the field's offline set-up and mock (tests/field)

from tests.field.agents import (  # noqa: E402
    CLAUDE_VERSION,
    claude_command,
    claude_offline,
    wait_for_no_survivors,
)
from tests.field.mocks.anthropic import responder  # noqa: E402
from tests.field.mocks.script import Script, Text  # noqa: E402
from tests.field.mocks.server import serve  # noqa: E402

STDIO = BENCH / "stdio"
OFFICIAL = "official-ts"
AGENT = f"claude-agent-acp {CLAUDE_VERSION}"
LABELS = {"ours-python": "our Python", "ours-ts": "our TypeScript", "ours-go": "our Go"}
GOAL = 1.10
FULL = {"rounds": 3, "warm": 5, "timed": 15, "deltas": 50}
SMOKE = {"rounds": 1, "warm": 0, "timed": 1, "deltas": 5}


def clients(python: str) -> dict[str, list[str]]:
    """Label → the client program's command, before `WARM TIMED -- AGENT…`."""
    return {
        "ours-python": [python, str(STDIO / "field_client.py")],
        "ours-ts": ["node", str(two_process.OURS_TS / "field_client.js")],
        "ours-go": [str(two_process.GO_BENCH / "field_client")],
        OFFICIAL: ["node", str(STDIO / "ts" / "field_client.mjs")],
    }


def script(deltas: int) -> Script:
    """Every model request (the turn's, and the agent's side requests) answered by the same text."""
    return Script([], fallback=Text(tuple(f"word{i} " for i in range(deltas))))


def run_client(label: str, command: list[str], url: str, warm: int, timed: int) -> dict[str, Any]:
    """One client program's samples; the agent and its children gone afterwards."""
    with tempfile.TemporaryDirectory(prefix="acp-bench-field-") as folder:
        offline = claude_offline(Path(folder) / "home", ask=())
        offline.env[offline.mock_variable] = url
        work = Path(folder) / "work"
        work.mkdir()
        agent = ["node", *claude_command()]
        done = subprocess.run(
            [*command, str(warm), str(timed), "--", *agent],
            env=offline.env,
            cwd=work,
            capture_output=True,
            text=True,
            timeout=900,
        )
        left = wait_for_no_survivors(offline.marker, 10.0)
        for pid in left:  # the agent's processes, started by this run
            os.kill(pid, signal.SIGKILL)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"field {label} failed:\n{done.stderr[-2000:]}")
    samples: dict[str, Any] = json.loads(lines[-1])
    samples["survivors"] = len(left)
    return samples


def measure(python: str, rounds: int, warm: int, timed: int, deltas: int) -> dict[str, Any]:
    """Every client's samples over `rounds` interleaved rounds, medians and ratios to the TS SDK."""
    two_process.build_go()
    commands = clients(python)
    for command in commands.values():
        if not Path(command[-1]).exists():
            raise SystemExit(f"{command[-1]} missing: run `make ts-build` (and `make bench`)")
    pooled: dict[str, dict[str, list[float]]] = {
        label: {"first": [], "end": [], "chunks": []} for label in commands
    }
    survivors = 0
    requests = dict.fromkeys(commands, 0)  # model requests the agent made, per client
    load: list[float] = []  # the machine's 1-minute load average after each round
    mocked = script(deltas)
    with serve(responder(mocked)) as url:
        labels = list(commands)
        for round_ in range(rounds):
            shift = round_ % len(labels)
            for label in labels[shift:] + labels[:shift]:
                before = len(mocked.requests)
                samples = run_client(label, commands[label], url, warm, timed)
                requests[label] += len(mocked.requests) - before
                for key in ("first", "end", "chunks"):
                    pooled[label][key] += samples[key]
                survivors += samples["survivors"]
            load.append(os.getloadavg()[0])
            print(f"field round {round_ + 1}/{rounds} done", file=sys.stderr)
    result: dict[str, Any] = {
        "agent": AGENT,
        "settings": {"rounds": rounds, "warm": warm, "timed": timed, "deltas": deltas},
        "model_requests": len(mocked.requests),
        "survivors": survivors,
        "load_average": load,
        "clients": {
            label: {
                "first_ms": {"median": statistics.median(by["first"]), "runs": by["first"]},
                "end_ms": {"median": statistics.median(by["end"]), "runs": by["end"]},
                "chunks": statistics.median(by["chunks"]),
                "model_requests": requests[label],
            }
            for label, by in pooled.items()
        },
    }
    official = result["clients"][OFFICIAL]
    result["ratios"] = {
        label: {
            phase: result["clients"][label][phase]["median"] / official[phase]["median"]
            for phase in ("first_ms", "end_ms")
        }
        for label in LABELS
    }
    return result


def goals(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Per client of ours: time to the first chunk and to the answer, / the TS SDK's (medians)."""
    words = {"first_ms": "first chunk", "end_ms": "turn's end"}
    return [
        {
            "workload": "field",
            "measure": f"{words[phase]}, {name} / TS SDK",
            "value": result["ratios"][label][phase],
            "goal": GOAL,
            "at_most": True,
        }
        for label, name in LABELS.items()
        for phase in ("first_ms", "end_ms")
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="one round of one short turn")
    args = parser.parse_args()
    size = SMOKE if args.smoke else FULL
    result = measure(sys.executable, **size)
    print(json.dumps(result))
    for row in goals(result):
        print(f"{row['measure']:<44} {row['value']:5.2f}  goal <= {row['goal']}", file=sys.stderr)


if __name__ == "__main__":
    main()
