"""The starter table's timing, in the session's summary."""

from __future__ import annotations

import pytest

from tests.starters import table


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if table.TIMINGS:
        terminalreporter.section("starter table timing")
        for what, seconds in table.TIMINGS:
            terminalreporter.write_line(f"{what}: {seconds:.1f} s")
