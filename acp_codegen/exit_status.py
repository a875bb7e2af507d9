"""The exit statuses of `acp-codegen`, which scripts and CI rely on (the CLI's `EPILOG` lists
them)."""

from __future__ import annotations

OK = 0
"""Success (diff: no breaking change)."""
STALE = 1
"""Generated code is stale (check), or diff found breaking changes."""
BAD_INPUT = 2
"""A bad schema or bad input: each problem is printed with its file and JSON pointer."""
MISSING_TOOL = 3
"""A tool the command needs is missing (npm, cargo)."""
INTERRUPTED = 130
"""Ctrl-C, as a shell reports a process ended by SIGINT."""
