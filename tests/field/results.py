"""The field's results collector (layer: pytest plugin, registered by conftest.py under
`--field`): for each test that records a turn (it uses the `recording` fixture), its agent and
version (registry.py), the edition the agent negotiated (read from the recording's `initialize`
answer), the client, the steps of the field it checks, its outcome, its recording and the
seconds its call took (not its set-up: the clients' build is shared), written to
tests/field/recordings/results.json after each test. Entries of tests that did not run
this time are kept: `pytest tests/field/test_X_turns.py --field` refreshes one agent. A test of
an agent's recording (it is parametrized by `recording`: the replay through every runtime) counts
for the row of the test that made the recording.

A test's steps: its `@pytest.mark.field_steps(...)` marker, else registry.py's list for it, else
the words of its name (`reject` is "write rejected", `cancel` or `ctrl_c` "cancel", …)."""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from tests.field.registry import agent_of
from tests.paths import ROOT

RESULTS = ROOT / "tests" / "field" / "recordings" / "results.json"
STEPS = (
    "words",
    "read",
    "write allowed",
    "write rejected",
    "cancel",
    "load/resume",
    "state",
    "tolerance",
)
"""The field's steps (issue 47, item 3 and 4), in the table's order."""
NAMES = {"example": "python example", "typed": "python typed"}
"""A client parameter's value, as the table names the client."""
WORDS = (
    ("words", ("words", "text", "chunks")),
    ("read", ("read",)),
    ("write rejected", ("reject", "deny", "denied")),
    ("write allowed", ("allow", "approve", "writes")),
    ("cancel", ("cancel", "ctrl_c", "interrupt")),
    ("load/resume", ("load", "resume")),
    ("state", ("state",)),
    ("tolerance", ("toleran", "decode", "replay")),
)


def steps_of(item: pytest.Item) -> list[str]:
    marker = item.get_closest_marker("field_steps")
    if marker is not None:
        return [step for step in STEPS if step in marker.args]
    function = getattr(item, "originalname", item.name)
    agent = agent_of(Path(str(item.fspath)).stem)
    listed = dict(agent.steps) if agent else {}
    if function in listed:
        return list(listed[function])
    words = function.lower()
    found = {step for step, keys in WORDS if any(key in words for key in keys)}
    if "write rejected" in found:
        found.discard("write allowed")
    return [step for step in STEPS if step in found]


def client_of(item: pytest.Item, params: dict[str, Any]) -> tuple[str, str]:
    """A test's client and the edition it asks for: its `@pytest.mark.field_client(NAME)`
    marker, its `client` parameter (a name, or a (name, edition) pair) or `lang` parameter, what
    registry.py says, else the words of its name (`example_client`, `typed`)."""
    protocol = str(params.get("protocol", ""))
    marker = item.get_closest_marker("field_client")
    if marker is not None:
        return str(marker.args[0]), protocol
    client = params.get("client", params.get("lang"))
    if isinstance(client, (tuple, list)):
        client, protocol = client[0], str(client[1]) if len(client) > 1 else protocol
    if client is not None:
        return NAMES.get(str(client), str(client)), protocol
    function = getattr(item, "originalname", item.name)
    agent = agent_of(Path(str(item.fspath)).stem)
    named = dict(agent.clients).get(function) if agent else None
    if named:
        return named, protocol
    if "example" in function:
        return "python example", protocol
    return ("python typed" if "typed" in function else ""), protocol


def negotiated(recording: Path) -> str | None:
    """`v1` / `v2`: the protocolVersion of the agent's answer to `initialize` (None: none)."""
    if not recording.exists():
        return None
    asked: set[str] = set()
    for line in recording.read_text(encoding="utf-8").splitlines():
        frame = json.loads(line) if line.strip() else {}
        message = frame.get("json")
        if not isinstance(message, dict):
            continue
        if frame.get("dir") == "sent" and message.get("method") == "initialize":
            asked.add(json.dumps(message.get("id")))
        elif frame.get("dir") == "received" and json.dumps(message.get("id")) in asked:
            version = (message.get("result") or {}).get("protocolVersion")
            return f"v{version}" if isinstance(version, int) else None
    return None


def kept(recording: Path) -> bool:
    """Whether a test's recording is one the field keeps (tests/field/recordings/)."""
    return recording.is_relative_to(RESULTS.parent) and recording.exists()


class Collector:
    """Collects an entry per recording test; writes results.json at the session's end."""

    def __init__(self) -> None:
        self.entries: dict[str, dict[str, Any]] = {}

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
        outcome = yield
        report: pytest.TestReport = outcome.get_result()
        funcargs = getattr(item, "funcargs", {})
        if "recording" not in getattr(item, "fixturenames", ()):
            return
        entry = self.entries.setdefault(item.nodeid, self.describe(item))
        if report.when == "call":
            entry["seconds"] = round(report.duration, 1)
        if report.failed:
            entry["outcome"] = "failed"
        elif report.skipped and entry["outcome"] != "failed":
            entry["outcome"] = "skipped"
        elif report.when == "call" and entry["outcome"] == "":
            entry["outcome"] = "passed"
        recording = funcargs.get("recording")
        if report.when == "teardown" and isinstance(recording, Path) and kept(recording):
            entry["recording"] = recording.name
            entry["edition"] = negotiated(recording) or entry["edition"]
        if report.when == "teardown":
            self.save()  # after each test: a run stopped half-way keeps what it found

    @staticmethod
    def describe(item: pytest.Item) -> dict[str, Any]:
        module = Path(str(item.fspath)).stem
        agent = agent_of(module)
        callspec = getattr(item, "callspec", None)
        raw: dict[str, Any] = dict(callspec.params) if callspec else {}
        params = {k: str(v) for k, v in raw.items()}
        replayed = raw.get("recording") if agent is None else None
        if isinstance(replayed, Path):
            # A test of a recording made by another test (the replay of every runtime):
            # its row is that test's (filled in when the session ends).
            return {
                "test": item.nodeid,
                "replays": replayed.name,
                "steps": steps_of(item),
                "outcome": "",
                "recording": "",
                "seconds": 0.0,
            }
        client, protocol = client_of(item, raw)
        return {
            "test": item.nodeid,
            "agent": agent.name if agent else module,
            "version": agent.version if agent else "",
            "edition": protocol,
            "client": client,
            "params": params,
            "steps": steps_of(item),
            "outcome": "",
            "recording": "",
            "seconds": 0.0,
        }

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self.save()

    def save(self) -> None:
        """Merge this run's entries into results.json. Several `--field` runs may save at once
        (one agent each): the read-merge-write holds a lock, and the file is replaced whole
        (written beside it, then renamed), so a reader never sees half of it."""
        if not self.entries:
            return
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        with open(RESULTS.with_suffix(".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            results = load()
            results.update(self.entries)
            for entry in results.values():
                if entry.get("replays"):
                    entry.update(recorded_by(entry["replays"], results.values()))
            ordered = [results[key] for key in sorted(results)]
            partial = RESULTS.with_suffix(f".{os.getpid()}.partial")
            partial.write_text(json.dumps(ordered, indent=1, ensure_ascii=False) + "\n")
            os.replace(partial, RESULTS)


def recorded_by(name: str, entries: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The agent, version, edition and client of the test that made recording `name` (from its
    file name and content when no entry names it)."""
    for entry in entries:
        if entry.get("recording") == name and not entry.get("replays"):
            keys = ("agent", "version", "edition", "client")
            return {key: entry[key] for key in keys} | {"recording": name}
    agent = agent_of(name.split(".", 1)[0])
    return {
        "agent": agent.name if agent else name.split(".", 1)[0],
        "version": agent.version if agent else "",
        "edition": negotiated(RESULTS.parent / name) or "",
        "client": "",
        "recording": name,
    }


def load(path: Path = RESULTS) -> dict[str, dict[str, Any]]:
    if not path.exists():
        return {}
    return {entry["test"]: entry for entry in json.loads(path.read_text(encoding="utf-8"))}
