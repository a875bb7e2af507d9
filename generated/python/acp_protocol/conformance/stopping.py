# Copied by acp-codegen from templates/python/conformance/stopping.py. Do not edit here:
# edit the source, then run `make generate`.

"""Ending a run early (layer: runner): `--fail-fast` stops at the first MUST failure, and a
program whose first request, `initialize`, is never answered with its id stops the run at once
(no case could judge its own rule). The cases not run are counted in the summary.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .runner import Result


class Stop:
    """Whether, and why, the run stops before its last case (`reason`); `must`: the stop is
    itself a MUST failure (exit status 1) even where no case's own level is MUST."""

    def __init__(self, fail_fast: bool = False) -> None:
        self.fail_fast = fail_fast
        self.reason = ""
        self.must = False

    def see(self, result: Result) -> bool:
        """Take a finished case into account: True when the run must stop now."""
        if self.reason:
            return True
        if result.stops:
            self.reason = (
                f"{result.case.id}: {result.stops} (JSON-RPC 2.0 §5: the response's id \"MUST "
                'be the same as the value of the id member in the Request Object"): no case '
                "can be judged"
            )
            self.must = True
        elif self.fail_fast and result.case.level == "MUST" and result.outcome.status == "fail":
            self.reason = f"--fail-fast: {result.case.id} failed, a MUST case"
        return bool(self.reason)
