"""`acp-codegen scaffold agent|client --lang typescript|go [--protocol v2] --project DIR`: a folder
that builds exactly as its README.md says, from a clean start (TypeScript: `npm install`, `npm run
build`; Go: `go build` with no network), and whose program then talks ACP: the built agent answers
the Python starter client, the built client prompts the Python starter agent, and the words of
the prompt come back. The folder's own rules: one of --out and --project, a folder with files
only with --force, the same files for the same command, each file naming that command."""

from __future__ import annotations

import functools
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from acp_codegen import pipeline
from acp_codegen.cli import main
from tests.paths import ROOT

LANGUAGES = ("typescript", "go")
PROTOCOLS = ("v1", "v2")
ROLES = ("agent", "client")
CASES = [(lang, protocol, role) for lang in LANGUAGES for protocol in PROTOCOLS for role in ROLES]
PROMPT = "hello from the project test"
BUILD_ENVIRONMENT = {
    # npm: the packages from the cache when it has them (as `make test` installs other locks).
    "npm_config_prefer_offline": "true",
    "npm_config_audit": "false",
    "npm_config_fund": "false",
    "npm_config_update_notifier": "false",
    # go: the build must need no network (the generated module is standard library only).
    "GOFLAGS": "-mod=mod",
    "GOPROXY": "off",
    "GOTOOLCHAIN": "local",
}


@pytest.fixture(scope="module", autouse=True)
def schemas_loaded_once() -> Iterator[None]:
    """Each `main([...])` loads the pinned schemas (seconds); this module's commands share one
    load per root, so writing a dozen projects costs one."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pipeline, "load_specification", functools.cache(pipeline.load_specification))
        yield


def scaffold(*argv: str) -> int:
    return main(["scaffold", *argv])


def project_argv(lang: str, protocol: str, role: str, folder: Path, *more: str) -> list[str]:
    return [role, "--lang", lang, "--protocol", protocol, "--project", str(folder), *more]


def sh_blocks(readme: Path) -> list[str]:
    """The ```sh blocks of a README, in order."""
    return re.findall(r"^```sh\n(.*?)^```$", readme.read_text(), flags=re.M | re.S)


def build_as_the_readme_says(folder: Path) -> None:
    """The README's first ```sh block, run as it is in the folder (bash -e)."""
    block = sh_blocks(folder / "README.md")[0]
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block],
        cwd=folder,
        env={**os.environ, **BUILD_ENVIRONMENT},
        capture_output=True,
        text=True,
        timeout=900,
    )
    output = (done.stdout + done.stderr)[-6000:]
    assert done.returncode == 0, f"{folder.name}: the README's build failed:\n{output}"


@pytest.fixture(scope="module")
def projects(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str, str], Path]:
    """The eight projects, written by the command line and built as their READMEs say (in
    parallel: npm's downloads and the compilers overlap)."""
    for tool in ("npm", "node", "go"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is not on PATH: the scaffolded projects need node 20.3+ and Go")
    parent = tmp_path_factory.mktemp("projects")
    folders = {case: parent / "-".join(case) for case in CASES}
    for case, folder in folders.items():
        assert scaffold(*project_argv(*case, folder)) == 0
    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(build_as_the_readme_says, folders.values()))
    return folders


@pytest.fixture(scope="module")
def python_starters(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Path]:
    """The Python starters (`scaffold agent|client --protocol v1|v2 --out FILE`)."""
    folder = tmp_path_factory.mktemp("python-starters")
    starters = {}
    for protocol in PROTOCOLS:
        for role in ROLES:
            out = folder / f"{protocol}_{role}.py"
            assert scaffold(role, "--protocol", protocol, "--out", str(out)) == 0
            starters[protocol, role] = out
    return starters


def run_line(folder: Path) -> list[str]:
    """The README's run block: the command line that runs the built program."""
    blocks = sh_blocks(folder / "README.md")
    assert len(blocks) == 2, "a build block and a run block"
    [line] = blocks[1].strip().splitlines()
    return shlex.split(line)


@pytest.mark.parametrize("case", CASES, ids=["-".join(case) for case in CASES])
def test_the_built_project_talks_acp_with_the_python_starter(
    case: tuple[str, str, str],
    projects: dict[tuple[str, str, str], Path],
    python_starters: dict[tuple[str, str], Path],
) -> None:
    _, protocol, role = case
    folder = projects[case]
    words = run_line(folder)
    if role == "agent":
        client = python_starters[protocol, "client"]
        command = [sys.executable, str(client), "--prompt", PROMPT, *words]
    else:
        # `<program> --prompt "hello" AGENT-PROGRAM [ARGUMENTS...]`, with our prompt and agent.
        flag = next(word for word in words if word.lstrip("-") == "prompt")
        agent = [sys.executable, str(python_starters[protocol, "agent"])]
        command = [*words[: words.index(flag)], flag, PROMPT, *agent]
        assert words[words.index(flag) + 2 :] == ["AGENT-PROGRAM", "[ARGUMENTS...]"]
    done = subprocess.run(
        command, cwd=folder, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 0, f"{shlex.join(command)}:\n{done.stdout}\n{done.stderr}"
    assert PROMPT in " ".join(done.stdout.split()), done.stdout


def test_the_typescript_project_builds_on_the_packages_own_pins(
    projects: dict[tuple[str, str, str], Path],
) -> None:
    """typescript and @types/node exactly as generated/typescript pins them, the generated
    package by a `file:` path to the copy the folder carries, and that copy built by `npm
    install` (nothing written into the checkout's generated/typescript)."""
    folder = projects["typescript", "v1", "agent"]
    manifest = json.loads((folder / "package.json").read_text())
    sdk = json.loads((ROOT / "generated" / "typescript" / "package.json").read_text())
    assert manifest["type"] == "module" and manifest["private"] is True
    assert manifest["devDependencies"] == {
        name: sdk["devDependencies"][name] for name in ("@types/node", "typescript")
    }
    assert manifest["dependencies"] == {"acp-protocol-sdk": "file:acp-protocol-sdk"}
    assert set(manifest["scripts"]) == {"build", "start"}
    copy = folder / "acp-protocol-sdk"
    assert json.loads((copy / "package.json").read_text())["version"] == sdk["version"]
    assert (copy / "dist" / "v1" / "index.js").is_file()
    assert (folder / "dist" / "agent.js").is_file()
    assert not (ROOT / "generated" / "typescript" / "dist").exists()


def test_the_go_project_requires_the_generated_module_replaced_by_its_relative_path(
    projects: dict[tuple[str, str, str], Path],
) -> None:
    folder = projects["go", "v2", "client"]
    go_mod = (folder / "go.mod").read_text()
    relative = Path(os.path.relpath(ROOT / "generated" / "go", folder)).as_posix()
    assert f"module {folder.name}\n" in go_mod
    assert "require acp-protocol-sdk v0.0.0\n" in go_mod
    assert f"replace acp-protocol-sdk => {relative}\n" in go_mod
    assert not (folder / "go.sum").exists()  # nothing to download, nothing to sum
    assert (folder / folder.name).is_file()  # `go build` named the program after the module


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_project_starter_is_what_out_writes(lang: str, tmp_path: Path) -> None:
    out = tmp_path / "starter"
    assert scaffold("client", "--lang", lang, "--protocol", "v2", "--out", str(out)) == 0
    folder = tmp_path / "project"
    assert scaffold(*project_argv(lang, "v2", "client", folder)) == 0
    starter = folder / ("src/client.ts" if lang == "typescript" else "main.go")
    assert starter.read_text() == out.read_text()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_same_command_writes_the_same_files_each_naming_it(
    lang: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--project my-agent` run in two folders at the same depth writes byte-identical files;
    every file but the starter (which names `scaffold --out`'s command) and package-lock.json
    (JSON, without a comment member) names the command that writes the folder again."""
    trees = []
    for side in ("a", "b"):
        (tmp_path / side).mkdir()
        monkeypatch.chdir(tmp_path / side)
        assert scaffold(*project_argv(lang, "v1", "agent", Path("my-agent"), "--unstable")) == 0
        folder = tmp_path / side / "my-agent"
        trees.append(
            {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
        )
    assert trees[0] == trees[1]
    command = f"acp-codegen scaffold agent --lang {lang} --unstable --project my-agent"
    starter = Path("src/agent.ts" if lang == "typescript" else "main.go")
    unnamed = {path for path in trees[1] if path.name == "package-lock.json"}
    for path in sorted(trees[1].keys() - {starter} - unnamed):
        text = trees[1][path].decode()
        assert command in text and f"{command} --force" not in text, path  # as it was run
    assert b"--lang " + lang.encode() in trees[1][starter]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_header_names_the_command_as_run_with_force_only_when_it_was_given(
    lang: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder written without `--force` says so, and that writing it anew takes `--force` (the
    folder has files now); written with `--force`, it names that command."""
    monkeypatch.chdir(tmp_path)
    command = f"acp-codegen scaffold client --lang {lang} --project my-client"
    assert scaffold("client", "--lang", lang, "--project", "my-client") == 0
    readme = (tmp_path / "my-client" / "README.md").read_text()
    assert f"Written by `{command}`: run it again with --force to write" in readme
    assert scaffold("client", "--lang", lang, "--project", "my-client", "--force") == 0
    readme = (tmp_path / "my-client" / "README.md").read_text()
    assert f"Written by `{command} --force`: run it again to write" in readme


def test_a_python_project_is_the_starter_and_a_readme_that_pip_installs_the_package(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "py-agent"
    assert scaffold("agent", "--project", str(folder)) == 0
    assert sorted(p.name for p in folder.iterdir()) == ["README.md", "agent.py"]
    build = sh_blocks(folder / "README.md")[0].splitlines()
    pip = shlex.split(build[-1])
    assert pip[:2] == [".venv/bin/pip", "install"]
    assert (folder / pip[2] / "pyproject.toml").is_file()
    assert (folder / pip[2]).resolve() == ROOT / "generated" / "python"


def one_line_failure(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert scaffold(*argv) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1, err
    return err


def test_one_of_out_and_project_is_required(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    neither = one_line_failure(capsys, "agent", "--lang", "go")
    both = one_line_failure(
        capsys, "agent", "--out", str(tmp_path / "a.py"), "--project", str(tmp_path / "p")
    )
    for err in (neither, both):
        assert "one of --out FILE" in err and "--project DIR" in err
    assert not any(tmp_path.iterdir())


def test_a_folder_with_files_needs_force_and_keeps_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "my-agent"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine\n")
    err = one_line_failure(capsys, *project_argv("go", "v1", "agent", folder))
    assert "is not empty; pass --force" in err
    assert [p.name for p in folder.iterdir()] == ["notes.txt"]
    assert scaffold(*project_argv("go", "v1", "agent", folder, "--force")) == 0
    assert sorted(p.name for p in folder.iterdir()) == [
        "README.md",
        "go.mod",
        "main.go",
        "notes.txt",
    ]
    assert (folder / "notes.txt").read_text() == "mine\n"
    (tmp_path / "file").write_text("")
    err = one_line_failure(capsys, *project_argv("go", "v1", "agent", tmp_path / "file"))
    assert "is a file, not a folder" in err


def test_a_project_cannot_take_the_generated_packages_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "ACP-Protocol-SDK"
    err = one_line_failure(capsys, *project_argv("typescript", "v1", "agent", folder))
    assert "a project named acp-protocol-sdk" in err
    assert not folder.exists() or not any(folder.iterdir())


def test_without_a_generated_module_to_point_at_it_says_so_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A root with schemas and no generated/ (as an installed acp-codegen has)."""
    root = tmp_path / "root"
    shutil.copytree(ROOT / "schema", root / "schema")
    folder = tmp_path / "my-agent"
    assert main(["--root", str(root), "scaffold", *project_argv("go", "v1", "agent", folder)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1, err
    assert f"{root / 'generated' / 'go'}, which does not exist" in err
    assert "--out" in err
