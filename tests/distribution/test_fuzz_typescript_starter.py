"""Issue 25's Done-when fuzz: 100,000 of the rule book's seeded frames (tests/wire/
envelope_corpus.json: malformed, truncated, not UTF-8, batches, ids of every kind, responses, holds
and cancels) against the TypeScript starter agent over stdio, as a user gets it: the packed
`generated/typescript` installed into an empty project, `acp-codegen scaffold agent --lang
typescript`, compiled with `tsc` (strict).

Each frame is judged by the book's oracle (JSON-RPC 2.0 §4, §5, §5.1, ACP), with the starter's one
difference from the book's test handler: it knows neither `echo` nor `hold`, so a valid request
for them is answered -32601 like any unknown method. Zero deviations: no wrong code, no answered
response, no request left unanswered, every id echoed exactly (integers beyond 2^53 included), no
unexpected `null` id.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from acp_codegen.cli import main
from tests.paths import ROOT
from tests.runtime.envelope_rules import (
    BOOK,
    PROBE,
    PROBE_ID,
    Frames,
    Outcome,
    answer_key,
    difference,
    oracle,
    shape_problem,
)

FRAMES = 100_000
CHUNK = 500
"""Frames written at a time."""
WAIT = 120.0
TSCONFIG = {
    "compilerOptions": {
        "target": "ES2022",
        "module": "Node16",
        "moduleResolution": "Node16",
        "strict": True,
        "skipLibCheck": True,
        "outDir": "out",
        "types": ["node"],
    },
    "include": ["agent.ts"],
}


def run(*command: str, cwd: Path) -> str:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def starter_agent(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[str]]:
    """The command of the starter agent, built as docs/install.md says, from the packed package."""
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        pytest.fail("node and npm are not on PATH; the TypeScript package needs node 20.3+")
    root = tmp_path_factory.mktemp("ts-starter")
    package = root / "package"
    shutil.copytree(ROOT / "generated" / "typescript", package)
    run(npm, "ci", "--no-audit", "--no-fund", cwd=package)  # `prepare` builds it (tsc, strict)
    [packed] = json.loads(run(npm, "pack", "--json", "--no-audit", "--no-fund", cwd=package))
    project = root / "project"
    project.mkdir()
    (project / "package.json").write_text('{"name": "starter", "type": "module"}\n')
    run(npm, "install", str(package / packed["filename"]), "--no-audit", "--no-fund", cwd=project)
    agent = project / "agent.ts"
    assert main(["scaffold", "agent", "--lang", "typescript", "--out", str(agent)]) == 0
    (project / "tsconfig.json").write_text(json.dumps(TSCONFIG))
    types = package / "node_modules" / "@types"
    shutil.copytree(types, project / "node_modules" / "@types")  # @types/node, for the build only
    run(str(package / "node_modules" / ".bin" / "tsc"), "-p", "tsconfig.json", cwd=project)
    yield [node, str(project / "out" / "agent.js")]


def starter_oracle(line: bytes, outcome: Outcome) -> None:
    """The book's oracle, with `echo` and `hold` unknown to the starter: -32601 for their id."""
    book = Outcome()
    oracle(line, book)
    outcome.handled.extend(book.handled)
    for key, count in book.answers.items():
        answer: dict[str, Any] = json.loads(key)
        if "result" in answer or answer.get("error") == -32800:
            key = answer_key(answer["id"], -32601)
        outcome.answers[key] += count


def categories(expected: Counter[str], got: Counter[str]) -> dict[str, int]:
    """The deviations in the issue's terms."""
    missing, unexpected = expected - got, got - expected

    def by_id(answers: Counter[str]) -> Counter[str]:
        return Counter(json.dumps(json.loads(k)["id"]) for k in answers.elements() if k[0] == "{")

    missing_ids, unexpected_ids = by_id(missing), by_id(unexpected)
    wrong_codes = sum((missing_ids & unexpected_ids).values())
    return {
        "wrong codes": wrong_codes,
        "unexpected answers (to responses and notifications)": sum(unexpected.values())
        - wrong_codes,
        "requests never answered or ids not echoed": sum(missing.values()) - wrong_codes,
        "unexpected null ids": unexpected_ids["null"],
    }


async def feed(command: list[str], frames: list[bytes], stderr: Path) -> Counter[str]:
    """Write `frames` and then the probe to the agent's stdin while reading its answers; every
    answer in comparable form, until the probe's answer and a short silence."""
    with stderr.open("wb") as log:
        agent = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=log,
            limit=64 * 1024 * 1024,
        )
        assert agent.stdin is not None and agent.stdout is not None
        stdin, stdout = agent.stdin, agent.stdout

        async def write() -> None:
            for start in range(0, len(frames), CHUNK):
                stdin.write(b"".join(line + b"\n" for line in frames[start : start + CHUNK]))
                await stdin.drain()
            stdin.write(PROBE + b"\n")
            await stdin.drain()

        writer = asyncio.create_task(write())
        got: Counter[str] = Counter()
        try:
            probed = False
            while True:
                line = await asyncio.wait_for(stdout.readline(), 2.0 if probed else WAIT)
                if not line:
                    break
                try:
                    answer = json.loads(line)
                except ValueError:
                    got[f"not JSON: {line[:80]!r}"] += 1
                    continue
                if type(answer) is dict and answer.get("id") == PROBE_ID:
                    probed = True
                    continue
                problem = shape_problem(answer)
                error = answer.get("error") if problem is None else None
                got[
                    problem
                    or answer_key(answer["id"], None if error is None else error["code"], None)
                ] += 1
        except TimeoutError:
            if not probed:
                got["(the probe was never answered)"] += 1
        finally:
            await writer
            stdin.close()
            await asyncio.wait_for(agent.wait(), 10)
    return got


async def test_a_hundred_thousand_seeded_frames_against_the_starter_agent_over_stdio(
    starter_agent: list[str], tmp_path: Path
) -> None:
    frames = Frames({**BOOK["fuzz"], "frames": FRAMES}).all()
    assert len(frames) >= FRAMES
    expected = Outcome()
    for frame in frames:
        starter_oracle(frame, expected)
    wanted: Counter[str] = Counter()
    for key, count in expected.answers.items():  # every answer of the starter's is an error
        answer = json.loads(key)
        wanted[answer_key(answer["id"], answer.get("error"), None)] += count
    got = await feed(starter_agent, frames, tmp_path / "agent.stderr")
    if got != wanted:
        counts = categories(wanted, got)
        pytest.fail(f"{len(frames)} frames: {counts}; {difference(wanted, got)}", pytrace=False)
