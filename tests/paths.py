"""Where things are in this checkout, for tests of every tier (no generator import needed)."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
"""The project root."""


def pinned_schema(protocol: str, channel: str) -> str:
    """The repository path of a pinned edition's schema, read from schema/lock.json."""
    lock = json.loads((ROOT / "schema" / "lock.json").read_text())
    for entry in lock["files"]:
        if entry["protocol"] == protocol and entry["channel"] == channel:
            return str(entry["path"])
    return f"schema/acp/{protocol}/(no {channel} schema pinned)"


STABLE_SCHEMA = pinned_schema("v1", "stable")
UNSTABLE_SCHEMA = pinned_schema("v1", "unstable")
