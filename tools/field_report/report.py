"""docs/field.md's generated parts (layer: report), made from the field's results
(tests/field/recordings/results.json, written by the collector tests/field/results.py) and its
recordings:

- the table: a row per agent, version, edition and client; a column per step of the field, ✓
  (every test of it passed), ✗ (one failed) or a dash (none ran), each linking to a recording;
- per agent and version, what it sends beyond the pinned schema: every message the agent sent in
  its recordings walked along the negotiated edition's schema (beyond.py), grouped by what and
  where, each with an example, how often, the first recording, and where else in the pinned
  schemas it is known (the edition's unstable schema, the other edition); a message under
  protocolVersion 2 that the v1 schema takes whole is "a v1 body".

The output depends only on those files: the same recordings make the same page.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .beyond import Finding, knows, message_findings, received_messages

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
CLIENTS = ("python", "typescript", "go")
CLIENT_NAMES = {"example": "python example", "typed": "python typed"}
"""A results file's short client names, as the table names them."""
WHAT = {
    "member": "unknown member",
    "variant": "unknown variant",
    "method": "unknown method",
    "missing": "required member missing",
    "type": "value of another type",
    "frame": "not one JSON object",
    "v1 body": "a v1 body under protocolVersion 2",
}
OTHER = {"v1": "v2", "v2": "v1"}
EXAMPLE_CHARACTERS = 70
NONE = "\N{EN DASH}"
"""What an empty cell shows."""


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def example(value: Any) -> str:
    if value is None:
        return NONE
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    if len(text) > EXAMPLE_CHARACTERS:
        text = text[: EXAMPLE_CHARACTERS - 1] + "…"
    return "`" + cell(text).replace("`", "'") + "`"


def agent_order(agents: Iterable[str]) -> list[str]:
    from tests.field.registry import AGENTS

    known = [a.name for a in AGENTS]
    return sorted(set(agents), key=lambda n: (known.index(n) if n in known else len(known), n))


def client_order(client: str) -> tuple[int, str]:
    return (CLIENTS.index(client) if client in CLIENTS else len(CLIENTS), client)


def table(entries: list[dict[str, Any]], link: str) -> str:
    """The field's table; `link` is the recordings folder relative to the page."""
    rows: dict[tuple[str, str, str, str], dict[str, list[dict[str, Any]]]] = {}
    for entry in entries:
        client = CLIENT_NAMES.get(entry["client"], entry["client"]) or NONE
        key = (entry["agent"], entry["version"], entry["edition"] or NONE, client)
        steps = rows.setdefault(key, {})
        for step in entry["steps"]:
            steps.setdefault(step, []).append(entry)
    order = agent_order(k[0] for k in rows)
    lines = [
        "| agent | version | edition | client | " + " | ".join(STEPS) + " |",
        "| --- | --- | --- | --- |" + " --- |" * len(STEPS),
    ]
    for key in sorted(rows, key=lambda k: (order.index(k[0]), k[1], k[2], client_order(k[3]))):
        marks = [mark(rows[key].get(step, []), link) for step in STEPS]
        lines.append(f"| {' | '.join(cell(part) for part in key)} | {' | '.join(marks)} |")
    return "\n".join(lines)


def mark(entries: list[dict[str, Any]], link: str) -> str:
    ran = sorted(
        (e for e in entries if e["outcome"] in ("passed", "failed")), key=lambda e: e["test"]
    )
    if not ran:
        return NONE
    failed = [e for e in ran if e["outcome"] == "failed"]
    sign = "✗" if failed else "✓"
    shown = next((e for e in failed or ran if e["recording"]), None)
    return f"[{sign}]({link}/{shown['recording']})" if shown else sign


@dataclass
class Seen:
    """One finding of an agent, over all its recordings."""

    kind: str
    message: str
    pointer: str
    edition: str
    example: Any
    recording: str
    """The first recording it is in, and the label of its link."""
    label: str
    known: list[str]
    times: int = 1


def described(message: Any, requests: dict[str, str]) -> str:
    """What a message is: `session/update` (notification), `session/new` answer, …"""
    if not isinstance(message, dict):
        return "a frame"
    if isinstance(message.get("method"), str):
        kind = "request" if "id" in message else "notification"
        return f"`{message['method']}` {kind}"
    asked = requests.get(json.dumps(message.get("id")), "?")
    return f"`{asked}` {'error' if 'error' in message else 'answer'}"


def general(pointer: str) -> str:
    """A pointer with its array indices as `*` (one line for every element)."""
    return re.sub(r"/\d+(?=/|$)", "/*", pointer)


def findings_of(
    frames: list[dict[str, Any]],
    edition: str,
    recording: tuple[str, str],
    found: dict[tuple[str, ...], Seen],
) -> None:
    for message, requests in received_messages(frames):
        primary = message_findings(message, requests, edition)
        if not primary:
            continue
        elsewhere = {
            f"{edition} unstable": set(
                message_findings(message, requests, edition, "schema.unstable")
            ),
            OTHER[edition]: set(message_findings(message, requests, OTHER[edition])),
        }
        if not knows(message, requests, OTHER[edition]):
            elsewhere[OTHER[edition]] = {Finding("method", "", None), Finding("member", "")}
        what = described(message, requests)
        if edition == "v2" and v1_body(primary, elsewhere["v1"]):
            note(found, Finding("v1 body", "", None), what, edition, message, recording, [])
        for finding in primary:
            known = [name for name, others in elsewhere.items() if not covers(others, finding)]
            note(found, finding, what, edition, finding.value, recording, known)


def v1_body(v2: list[Finding], v1: set[Finding]) -> bool:
    """A message under protocolVersion 2 is a v1 body when the v1 schema takes it whole and
    the v2 schema misses a member it requires there (an answer lacking v2's `info`)."""
    return not v1 and any(f.kind == "missing" for f in v2)


def covers(findings: set[Finding], finding: Finding) -> bool:
    """Whether `findings` (of another schema) hold `finding`, or one at a place above it."""
    if finding.kind == "method":
        return any(f.kind == "method" and f.pointer == finding.pointer for f in findings)
    return any(
        f.kind != "method" and (finding.pointer + "/").startswith(f.pointer + "/") for f in findings
    )


def note(
    found: dict[tuple[str, ...], Seen],
    finding: Finding,
    what: str,
    edition: str,
    value: Any,
    recording: tuple[str, str],
    known: list[str],
) -> None:
    pointer = finding.pointer if finding.kind == "method" else general(finding.pointer)
    key = (finding.kind, what, pointer, edition)
    if key in found:
        found[key].times += 1
        return
    found[key] = Seen(finding.kind, what, pointer, edition, value, *recording, known)


def read_frames(path: Path) -> list[dict[str, Any]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def beyond(entries: list[dict[str, Any]], recordings: Path, link: str) -> str:
    """Per agent and version, what it sends beyond the pinned schema."""
    by_agent: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for entry in entries:
        by_agent.setdefault((entry["agent"], entry["version"]), []).append(entry)
    order = agent_order(agent for agent, _ in by_agent)
    parts = []
    for agent, version in sorted(by_agent, key=lambda k: (order.index(k[0]), k[1])):
        done = recorded(by_agent[agent, version], recordings)
        parts.append(f"### {agent} {version}".rstrip())
        if not done:
            parts.append("\nNo recording yet: `make field` makes them.\n")
            continue
        found: dict[tuple[str, ...], Seen] = {}
        editions = sorted({edition for _, edition, _ in done if edition in OTHER})
        for name, edition, label in done:
            if edition in OTHER:
                findings_of(read_frames(recordings / name), edition, (name, label), found)
        parts.append(
            f"\nFrom {len(done)} recordings (negotiated {', '.join(editions)}):"
            f" {len(found) or 'nothing'} beyond the pinned schema.\n"
        )
        if found:
            parts.append(seen_table(found, link) + "\n")
    return "\n".join(parts).rstrip() + "\n"


def recorded(entries: list[dict[str, Any]], recordings: Path) -> list[tuple[str, str, str]]:
    """Each recording of `entries` once (a turn's, and the replays of it), with its edition and
    the label of its links (client and edition), in the order of their names."""
    found: dict[str, tuple[str, str]] = {}
    for entry in sorted(entries, key=lambda e: (bool(e.get("replays")), e["test"])):
        name = entry["recording"]
        if name and name not in found and (recordings / name).exists():
            client = CLIENT_NAMES.get(entry["client"], entry["client"]) or "recording"
            label = f"{client} {entry['edition']}".strip()
            found[name] = (entry["edition"], label)
    return [(name, *found[name]) for name in sorted(found)]


def seen_table(found: dict[tuple[str, ...], Seen], link: str) -> str:
    lines = [
        "| what | message | where | edition | known to | example | times | first seen |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    kinds = list(WHAT)
    for key in sorted(found, key=lambda k: (kinds.index(k[0]), k[1], k[2], k[3])):
        seen = found[key]
        where = f"`{cell(seen.pointer)}`" if seen.pointer else NONE
        known = ", ".join(seen.known) or NONE
        first = f"[{seen.label}]({link}/{seen.recording})"
        lines.append(
            f"| {WHAT[seen.kind]} | {seen.message} | {where} | {seen.edition} | {known} |"
            f" {example(seen.example)} | {seen.times} | {first} |"
        )
    return "\n".join(lines)


def relative_link(recordings: Path, page: Path) -> str:
    return Path(os.path.relpath(recordings, page.parent)).as_posix()
