"""`scaffold --lang go --project DIR`: go.mod's module path is one Go takes. A folder's name is
not always one (`go`, `toolchain`, `std`, `con`…): the project then gets `acp-NAME` and the
command says so; `--module PATH` names it, and a path Go refuses is one line. Go itself is the
judge (`go build`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_codegen import cli
from acp_codegen.targets.go import MODULE
from acp_codegen.targets.go.module_path import problem
from tests.go.support import run_go


def go_builds_as(path: str, folder: Path) -> bool:
    """Whether Go builds a main package whose go.mod says `module PATH`."""
    folder.mkdir(parents=True)
    (folder / "go.mod").write_text(f"module {path}\n\ngo 1.22\n")
    (folder / "main.go").write_text("package main\n\nfunc main() {}\n")
    return run_go(["go", "build", "-o", str(folder / "program"), "."], folder).returncode == 0


def test_the_paths_go_refuses_are_those_the_module_path_rule_refuses(tmp_path: Path) -> None:
    paths = [
        "go", "toolchain", "std", "cmd", "all", "tool", "work", "con", "aux.x", "a..", "-x",
        "my-agent", "go-client", "acp-go", "example.com/me/tool/v2", "x_y~z", "local", "main",
    ]  # fmt: skip
    for index, path in enumerate(paths):
        refused = problem(path, MODULE) is not None
        assert refused == (not go_builds_as(path, tmp_path / str(index))), path


def scaffold_go(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], folder: str, *more: str
) -> tuple[int, str, Path]:
    status = cli.main(
        ["scaffold", "client", "--lang", "go", "--project", str(tmp_path / folder), *more]
    )
    return status, capsys.readouterr().err, tmp_path / folder


def module_line(folder: Path) -> str:
    return next(
        line for line in (folder / "go.mod").read_text().splitlines() if line.startswith("module ")
    )


def test_a_folder_named_go_gets_a_module_path_go_builds_and_the_command_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, err, folder = scaffold_go(tmp_path, capsys, "go")
    assert status == 0
    assert module_line(folder) == "module acp-go"
    assert err.splitlines() == [
        "acp-codegen: 'go' (the folder's name) is a name Go reserves, so go.mod says "
        "`module acp-go` (--module PATH names another)"
    ]
    built = run_go(["go", "build"], folder)
    assert built.returncode == 0, built.stderr
    assert (folder / "acp-go").is_file()
    assert "go build    # writes ./acp-go" in (folder / "README.md").read_text()


def test_a_folder_name_go_takes_is_the_module_path_unsaid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, err, folder = scaffold_go(tmp_path, capsys, "go-client")
    assert (status, err, module_line(folder)) == (0, "", "module go-client")


def test_module_names_the_path_and_one_go_refuses_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, err, folder = scaffold_go(tmp_path, capsys, "go", "--module", "example.com/me/tool/v2")
    assert (status, err, module_line(folder)) == (0, "", "module example.com/me/tool/v2")
    assert "--module example.com/me/tool/v2 --project" in (folder / "go.mod").read_text()
    assert "go build    # writes ./tool" in (folder / "README.md").read_text()
    for refused in ("toolchain", "con", MODULE):
        status, err, folder = scaffold_go(
            tmp_path, capsys, refused + "-folder", "--module", refused
        )
        assert status == 2 and len(err.splitlines()) == 1, err
        assert err.startswith(f"acp-codegen: --module {refused!r} is ")
        assert not folder.exists()


def test_module_is_for_a_go_project_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for lang, where in (("typescript", "--project"), ("go", "--out")):
        argv = ["scaffold", "agent", "--lang", lang, where, str(tmp_path / "x"), "--module", "m"]
        assert cli.main(argv) == 2
        assert capsys.readouterr().err.splitlines() == [
            "acp-codegen: --module is go.mod's module path: it takes --lang go --project DIR"
        ]
        assert not (tmp_path / "x").exists()
