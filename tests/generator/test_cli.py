"""The command line as a user meets it: help and version, and every failure as one line on
stderr naming what failed, with a documented exit status (0 ok, 1 stale or breaking, 2 bad schema
or bad input, 3 a missing tool), never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from acp_codegen import __version__
from tests.generator.conftest import PINNED
from tests.paths import ROOT


def cli(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "acp_codegen.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
    )
    return done.returncode, done.stdout, done.stderr


def one_line(stderr: str) -> str:
    """The failure's one line; fails the test on a traceback or a second line."""
    assert "Traceback" not in stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("acp-codegen: "), lines[0]
    return lines[0]


def test_version_and_help_are_written_for_people() -> None:
    code, out, _ = cli("--version")
    assert (code, out.strip()) == (0, f"acp-codegen {__version__}")
    code, out, _ = cli("--help")
    assert code == 0
    assert "exit status:" in out and "3  a tool the command needs is missing (npm)" in out
    assert "--package myapp._acp" in out


@pytest.mark.parametrize("command", ["generate", "check", "scaffold"])
def test_a_missing_schema_file_is_one_line_naming_it_exit_2(
    project_root: Path, command: str, tmp_path: Path
) -> None:
    missing = project_root / PINNED[0].path
    missing.unlink()
    args = {"scaffold": ["scaffold", "agent", "--out", str(tmp_path / "a.py")]}.get(
        command, [command]
    )
    code, _, err = cli("--root", str(project_root), *args)
    assert code == 2
    assert str(missing) + " is missing" in one_line(err)


def test_a_package_name_that_is_not_an_import_name_is_refused_exit_2(tmp_path: Path) -> None:
    code, _, err = cli("generate", "--out", str(tmp_path), "--package", "my-app.acp")
    assert code == 2
    assert "'my-app.acp' is not a dotted Python import name" in one_line(err)
    assert list(tmp_path.iterdir()) == []


def test_package_without_out_is_refused_exit_2() -> None:
    code, _, err = cli("generate", "--package", "myapp._acp")
    assert code == 2
    assert "--package needs --out DIR" in one_line(err)


def test_an_unknown_npm_version_shows_npm_s_own_reason_exit_2(project_root: Path) -> None:
    code, _, err = cli("--root", str(project_root), "update-schema", "--version", "99.99.99")
    assert code == 2
    line = one_line(err)
    assert "npm pack @agentclientprotocol/sdk@99.99.99 failed: " in line
    assert "No matching version found" in line
    assert (project_root / "schema" / "lock.json").read_text() == (
        ROOT / "schema" / "lock.json"
    ).read_text()


def test_without_npm_update_schema_exits_3(project_root: Path) -> None:
    env = {**os.environ, "PATH": str(Path(sys.executable).parent)}
    code, _, err = cli("--root", str(project_root), "update-schema", "--version", "2.4.0", env=env)
    assert code == 3
    assert "npm is not installed" in one_line(err)


def test_diff_of_a_missing_file_or_an_unknown_edition_exits_2(tmp_path: Path) -> None:
    code, _, err = cli("diff", str(tmp_path / "old.json"), str(ROOT / PINNED[0].path))
    assert code == 2
    assert "is neither a schema file, a folder of schemas, nor a version" in one_line(err)
    code, _, err = cli("diff", "2.4.0", "2.4.0", "--edition", "v1/nightly")
    assert code == 2
    assert "nightly" in one_line(err)


def test_a_usage_error_exits_2() -> None:
    code, _, err = cli("frobnicate")
    assert code == 2
    assert "invalid choice: 'frobnicate'" in err and "Traceback" not in err


def test_make_update_schema_without_version_prints_its_usage_before_any_set_up() -> None:
    done = subprocess.run(
        ["make", "--no-print-directory", "update-schema", "VERSION="],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert done.stderr.strip().splitlines()[0] == "usage: make update-schema VERSION=x.y.z"
    assert done.stdout == ""  # nothing was built or installed first


def test_a_reader_that_leaves_early_ends_the_output_quietly_exit_0() -> None:
    fixtures = ROOT / "tests" / "fixtures" / "schemas"
    old, new = (fixtures / v / "schema" / "acp" / "v1" / "schema.json" for v in ("2.0.2", "2.4.0"))
    command = [sys.executable, "-m", "acp_codegen.cli", "diff", str(old), str(new), "--json"]
    done = subprocess.run(
        f"{' '.join(command)} | head -c 1; exit ${{PIPESTATUS[0]}}",
        shell=True,
        executable="bash",
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "{", "")
