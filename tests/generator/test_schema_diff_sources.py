"""`acp-codegen diff` inputs: `crate:V`, `npm:V`, a folder laid out as schema/acp, and a bare
version, which is the crate when schema/lock.json pins that crate version and the npm package
otherwise, said in one line on stderr (offline: the pinned crate is read from schema/acp; npm is
a stand-in)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from acp_codegen import cli, schema_diff
from acp_codegen.pipeline import ROOT
from acp_codegen.schema_lock import read_lock

PINNED = read_lock(ROOT)
FIXTURE_2_4_0 = ROOT / "tests" / "fixtures" / "schemas" / "2.4.0"


def pinned_crate() -> str:
    if PINNED.registry != "crates.io":
        pytest.skip(f"schema/lock.json pins {PINNED.origin}, not a crate")
    return PINNED.version


def no_npm(monkeypatch: pytest.MonkeyPatch) -> None:
    def unpack(version: str, tmp: Path) -> Path:
        raise AssertionError(f"npm pack {version} was run")

    monkeypatch.setattr(schema_diff, "unpack", unpack)


def json_report(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[dict[str, object], str]:
    status = cli.main(["diff", *argv, "--json"])
    out, err = capsys.readouterr()
    assert status in (0, 1), err
    report: dict[str, object] = json.loads(out)
    return report, err


def test_a_bare_version_the_lock_pins_as_a_crate_is_that_crate_read_from_schema_acp(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    version = pinned_crate()
    no_npm(monkeypatch)
    for edition in ("v1", "v2/unstable"):
        report, err = json_report(capsys, version, f"crate:{version}", "--edition", edition)
        assert report["summary"] == {
            "changes": 0,
            "breaking_for_agents": 0,
            "breaking_for_clients": 0,
        }
        assert str(report["old"]).startswith(f"agent-client-protocol-schema@{version} (crates.io)")
        assert str(report["old"]).endswith(
            "schema/acp/v1/schema.json" if edition == "v1" else "schema/acp/v2/schema.unstable.json"
        )
        assert err.splitlines() == [
            f"acp-codegen: {version} is crate:{version}, the agent-client-protocol-schema version "
            f"schema/lock.json pins (npm:{version} names the npm package)"
        ]


def test_a_crate_and_a_folder_laid_out_as_schema_acp_compare_without_npm(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    version = pinned_crate()
    no_npm(monkeypatch)
    same, err = json_report(capsys, f"crate:{version}", str(ROOT / "schema" / "acp"))
    assert same["summary"] == {"changes": 0, "breaking_for_agents": 0, "breaking_for_clients": 0}
    assert err == ""  # crate:V and a folder say what they are
    older, _ = json_report(capsys, str(FIXTURE_2_4_0), f"crate:{version}", "--edition", "v2")
    assert older["old"] == f"{FIXTURE_2_4_0} schema/acp/v2/schema.json"
    assert older["summary"]["changes"] > 0  # type: ignore[index]


def test_a_folder_without_the_edition_lists_those_it_has(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "v1").mkdir()
    (tmp_path / "v1" / "schema.json").write_bytes((ROOT / "schema/acp/v1/schema.json").read_bytes())
    assert cli.main(["diff", str(tmp_path), str(tmp_path), "--edition", "v2"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"acp-codegen: {tmp_path} has no edition v2; its editions: v1"
    ]


def test_a_bare_version_the_lock_does_not_pin_is_the_npm_package_and_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    asked = []

    def unpack(version: str, tmp: Path) -> Path:
        asked.append(version)
        package = tmp / "package" / "schema" / "v1"
        package.mkdir(parents=True)
        (package / "schema.json").write_bytes(
            (FIXTURE_2_4_0 / "schema/acp/v1/schema.json").read_bytes()
        )
        return tmp / "package"

    monkeypatch.setattr(schema_diff, "unpack", unpack)
    report, err = json_report(capsys, "2.4.0", "npm:2.4.0")
    assert asked == ["2.4.0", "2.4.0"]
    assert report["old"] == report["new"] == "@agentclientprotocol/sdk@2.4.0 schema/v1/schema.json"
    assert err.splitlines() == [
        "acp-codegen: 2.4.0 is npm:2.4.0, @agentclientprotocol/sdk, not a crate version "
        "schema/lock.json pins (crate:2.4.0 names the crate)"
    ]
    if PINNED.registry == "crates.io":  # npm:V is npm even when V is the pinned crate's version
        json_report(capsys, f"npm:{PINNED.version}", "2.4.0")
        assert asked[-2:] == [PINNED.version, "2.4.0"]


def test_a_version_npm_does_not_have_is_one_line_naming_the_source_tried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    npm = tmp_path / "npm"  # answers as npm 10 does for a version it does not know
    npm.write_text(
        "#!/bin/sh\n"
        'echo \'{"error": {"code": "ETARGET", "summary": '
        '"No matching version found for @agentclientprotocol/sdk@9.9.9."}}\'\n'
        "exit 1\n"
    )
    npm.chmod(npm.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    for arg in ("9.9.9", "npm:9.9.9"):
        assert cli.main(["diff", arg, str(ROOT / "schema" / "acp")]) == 2
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 1, err
        assert err[0].startswith(
            "acp-codegen: npm pack @agentclientprotocol/sdk@9.9.9 failed: No matching version"
        )
        assert ("crate:9.9.9 names the crate" in err[0]) == (arg == "9.9.9")


def test_an_argument_that_is_no_input_names_the_three_kinds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for arg, said in (
        (
            "no-such-file",
            "is neither a schema file, a folder of schemas, nor a version like "
            "crate:1.20.0, npm:2.4.0 or 2.4.0",
        ),
        ("crate:1.2", "crate: takes a version like crate:1.20.0"),
        ("npm:latest", "npm: takes a version like npm:1.20.0"),
    ):
        assert cli.main(["diff", arg, arg]) == 2
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 1 and said in err[0], err


def test_a_crate_version_crates_io_does_not_have_is_one_line_naming_the_crate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    cargo = tmp_path / "cargo"  # answers `cargo metadata` as cargo does for an unknown version
    cargo.write_text(
        "#!/bin/sh\n"
        "echo 'error: failed to select a version for the requirement "
        '`agent-client-protocol-schema = "=9.9.9"`\' >&2\n'
        "echo 'candidate versions found which didn'\\''t match: 1.20.0, 1.19.1' >&2\n"
        "exit 101\n"
    )
    cargo.chmod(cargo.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert cli.main(["diff", "crate:9.9.9", str(ROOT / "schema" / "acp")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1, err
    assert err[0].startswith(
        "acp-codegen: cargo metadata for agent-client-protocol-schema 9.9.9 failed: error: "
        "failed to select a version"
    )
    assert "candidate versions found" in err[0]
