"""The tests' PostgreSQL service (tests/services/postgres.py) where it cannot be had: one line
naming what to install, at once, never a hang or a traceback."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.services import postgres


def test_without_the_server_starting_one_is_one_line_naming_the_package(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(postgres, "binaries", lambda: None)
    with pytest.raises(postgres.Unavailable) as raised:
        postgres.start()
    message = str(raised.value)
    assert "\n" not in message
    assert "apt-get install postgresql" in message


def test_install_where_it_cannot_install_prints_one_line_and_succeeds(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not root (or no apt-get): `make services` says what to install and lets `make test` go
    on; the tests that need the server are skipped with the same line."""
    monkeypatch.setattr(postgres, "binaries", lambda: None)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert postgres.install() == 0
    lines = capsys.readouterr().err.splitlines()
    assert lines == [f"make test: {postgres.INSTALL}"]


def test_install_where_the_server_is_there_does_nothing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(postgres, "binaries", lambda: Path("/usr/lib/postgresql/15/bin"))
    monkeypatch.setattr(subprocess, "run", pytest.fail)  # no apt-get run
    assert postgres.install() == 0
    assert capsys.readouterr().err == ""
