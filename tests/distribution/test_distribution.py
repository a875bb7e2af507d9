"""Both distributions as a user installs them, in fresh venvs, outside this checkout.

- The generated package (`acp-protocol-sdk`, generated/python/pyproject.toml): its built wheel
  installs under the oldest and newest supported Python with the lowest pydantic it declares, and
  an in-memory agent <-> client round trip runs (round_trip.py).
- The generated wheel's conformance suite (`python -m acp_protocol.conformance`) runs against an
  agent written in JavaScript, with its reports.
- The generator (`acp-codegen`): its built wheel carries its templates and pinned schemas, and
  runs `scaffold`, `generate --out --package` and `check` from an empty folder.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import venv
from pathlib import Path
from xml.etree import ElementTree

import pytest

from tests.interop.support import NODE_PEERS, node
from tests.matrix import find_python, lowest_pydantic
from tests.paths import ROOT

HERE = Path(__file__).resolve().parent


SKIPPED = ("__pycache__", ".venv*", "node_modules", ".git", "*.egg-info", "dist", "build")


def run(
    command: list[str], cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"
    return done


def build_wheel(source: Path, out: Path, *skipped: str) -> Path:
    """`python -m build --wheel` of a copy of `source` (nothing is written into the checkout)."""
    copy = out / "source"
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns(*SKIPPED, *skipped))
    run([sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(copy)], cwd=out)
    [wheel] = out.glob("*.whl")
    return wheel


@pytest.fixture(scope="module")
def generated_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(ROOT / "generated" / "python", tmp_path_factory.mktemp("generated-wheel"))


@pytest.mark.parametrize("python", ["3.10", "3.13"])
def test_the_generated_wheel_round_trips_with_the_lowest_pydantic(
    generated_wheel: Path, python: str, tmp_path: Path
) -> None:
    schema = json.loads((ROOT / "schema" / "lock.json").read_text())["version"]
    assert generated_wheel.name.startswith(f"acp_protocol_sdk-{schema}+codegen.")
    env_dir = tmp_path / "venv"
    run([str(find_python(python)), "-m", "venv", str(env_dir)], cwd=tmp_path)
    pip = [str(env_dir / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    run([*pip, str(generated_wheel), f"pydantic=={lowest_pydantic()}"], cwd=tmp_path)
    script = shutil.copy(HERE / "round_trip.py", tmp_path / "round_trip.py")
    done = run([str(env_dir / "bin" / "python"), str(script)], cwd=tmp_path)
    assert done.stdout.split()[0] == "ok"
    assert done.stdout.split()[1].startswith(python)
    assert done.stdout.split()[2] == lowest_pydantic()


def test_the_generator_wheel_scaffolds_generates_and_checks_outside_the_checkout(
    tmp_path: Path,
) -> None:
    out = tmp_path / "dist"
    out.mkdir()
    wheel = build_wheel(ROOT, out, "generated", "tests", "bench", "examples")
    assert wheel.name.startswith("acp_codegen-")
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = str(env_dir / "bin" / "python")
    run([python, "-m", "pip", "install", "--quiet", str(wheel)], cwd=tmp_path)
    tool = str(env_dir / "bin" / "acp-codegen")
    user = tmp_path / "user"
    (user / "src" / "myapp").mkdir(parents=True)
    (user / "src" / "myapp" / "__init__.py").write_text("")

    run([tool, "scaffold", "agent", "--out", "agent.py"], cwd=user)
    assert "class StarterAgent(Agent)" in (user / "agent.py").read_text()
    run([tool, "generate", "--out", "src", "--package", "myapp._acp"], cwd=user)
    assert run([tool, "check", "--out", "src", "--package", "myapp._acp"], cwd=user).returncode == 0
    outside = subprocess.run([tool, "generate"], cwd=user, capture_output=True, text=True)
    assert outside.returncode == 2
    assert "outside a source checkout needs --out DIR --package NAME" in outside.stderr
    # The wheel carries CHANGELOG.md: the release notes of the installed version.
    version = wheel.name.split("-")[1]
    assert run([tool, "release-notes"], cwd=user).stdout.startswith(f"## [{version}] - ")

    # The vendored copy imports under its own name, with relative imports only.
    probe = (
        "import sys, myapp._acp.v1.agent as agent, myapp._acp.v1.helpers as helpers;"
        "assert not [m for m in sys.modules if m.startswith('acp_protocol')];"
        "print(sorted(helpers.text_block('hi').to_wire().items()))"
    )
    done = run([sys.executable, "-c", probe], cwd=user, env={"PYTHONPATH": str(user / "src")})
    assert done.stdout.strip() == "[('text', 'hi'), ('type', 'text')]"


def test_the_generated_wheel_runs_the_conformance_suite_against_a_node_agent(
    generated_wheel: Path, tmp_path: Path
) -> None:
    """Issue 37's "done when": `pip install` of the generated wheel, then `python -m
    acp_protocol.conformance agent -- node agent.js` runs the suite against an agent written in
    another language (the official TypeScript SDK's agent of tests/interop/node), with a progress
    line, a summary, JUnit and HTML."""
    agent = NODE_PEERS / "ts_agent.mjs"
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = str(env_dir / "bin" / "python")
    run([python, "-m", "pip", "install", "--quiet", str(generated_wheel)], cwd=tmp_path)
    # the negotiation family, and a MUST case this agent fails (its SDK answers the id 2^53+1 as
    # 2^53: JavaScript numbers): the exit status says a MUST case failed
    broken = "envelope.request_with_id_2_53_plus_1_is_answered_with_that_exact_id"
    done = subprocess.run(
        [
            *(python, "-m", "acp_protocol.conformance", "agent", "--protocol", "v1"),
            *("--only", "negotiation.*", "--only", broken, "--timeout", "20"),
            *("--junit", "report.xml", "--html", "report.html", "--", node(), str(agent)),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"FAIL  MUST         {broken}" in done.stdout
    assert "MUST " in done.stdout.splitlines()[-4] and "1 failed" in done.stdout.splitlines()[-4]
    assert done.stdout.splitlines()[-1].endswith("1 MUST cases failed")
    assert "\r" in done.stderr or "/" in done.stderr  # the progress line
    suite = ElementTree.parse(tmp_path / "report.xml").getroot()
    cases = {str(case.get("name")).split()[0]: case for case in suite.iter("testcase")}
    assert cases[broken].find("failure") is not None
    assert len([name for name in cases if name.startswith("negotiation.")]) == 5
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and broken in page
