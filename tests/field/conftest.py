"""The field's switches: `--field` runs the agents that only `make field` installs (without it
their tests are skipped, naming the command), and keeps each run's recording under
tests/field/recordings/ (committed: the tolerance tests replay them in every runtime)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

RECORDINGS = Path(__file__).with_name("recordings")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--field",
        action="store_true",
        help="run the whole field (agents `make field` installs) and keep the recordings",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Under `--field`, the results collector (results.py) writes recordings/results.json."""
    config.addinivalue_line("markers", "field_steps(*steps): the field steps a test checks")
    config.addinivalue_line("markers", "field_client(name): the client a field test runs")
    if config.getoption("--field", default=False) and not config.pluginmanager.has_plugin(
        "field-results"
    ):
        from tests.field.results import Collector

        config.pluginmanager.register(Collector(), "field-results")


@pytest.fixture
def field_mode(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--field"))


@pytest.fixture
def needs_field(field_mode: bool) -> None:
    """For a test of an agent only `make field` installs."""
    if not field_mode:
        pytest.skip("an agent of the whole field: run `make field`")


@pytest.fixture
def recording(request: pytest.FixtureRequest, tmp_path: Path, field_mode: bool) -> Path:
    """Where this test's run writes its recording: kept under tests/field/recordings/ (named
    after the test) with `--field`, else in the test's temporary folder."""
    if not field_mode:
        return tmp_path / "recording.jsonl"
    RECORDINGS.mkdir(exist_ok=True)
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", request.node.name).strip("_")
    return RECORDINGS / f"{Path(str(request.node.fspath)).stem}.{name}.jsonl"
