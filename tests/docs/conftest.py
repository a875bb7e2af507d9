"""Prints how many doc blocks ran and how many are illustrative (docs are tests: README.md)."""

from __future__ import annotations

import pytest


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    from tests.docs.test_doc_blocks import COUNTS

    if COUNTS["run"]:
        terminalreporter.write_line(
            f"doc blocks: {COUNTS['run']} run, {COUNTS['illustrative']} illustrative"
        )
