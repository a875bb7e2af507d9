"""The field's third-party agents recorded (layer: runner and report; issue 49: recordings of
"the production agents [...] round-trip: replaying the recorded bytes reproduces them exactly, and
`trace check` on each reports exactly the violations the conformance suite reports for the same
program (same ids)").

For each row of `RECORDED`, `make conformance` also runs the suite's cases a recording can judge
(passive.json's `suiteCases`, the agent's side) with the program behind `trace record` and a
`tee` on each side of it, as tests/trace/test_check_side_by_side.py runs our starters (the
helpers of tests/trace/side_by_side.py), and publishes next to field.json:

- docs/conformance/recordings/<key>/NN.jsonl.gz: the recording of each agent process the suite
  started, gzipped (no name, no time in the gzip header: a rerun that records the same bytes
  writes the same file);
- docs/conformance/recordings/<key>.json: the run (its date, the suite's exit status, the cases
  it ran and the ids it failed) and, per recording, whether the agent exited on its own and
  what the `tee`s saw the agent read and write: its length and the SHA-256 of its first
  `checked` bytes (all of it where the agent exited; where the suite ended the process group,
  as much as both the `tee` and the recording hold, the last bytes may be lost in a pipe).

tests/trace/test_check_field_recordings.py holds them to it offline, in `make test`.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from acp_protocol.trace.check_rules import judged_by_a_recording, suite_case_globs
from acp_protocol.trace.frames import replayed

from tests.trace.side_by_side import Taps, disagreement, exited, tapped, violations

from .builds import BUILD, ROOT
from .rows import Row
from .run import run_row

RECORDED = (
    "codex-acp",
    "claude-agent-acp",
    "claude-agent-acp-v2",
    "gemini-cli",
    "official-rust-v1",
    "official-rust-v2",
    "coder-go",
)
"""The rows recorded: the production agents, and the official Rust SDK's and coder's Go SDK's
example agents (the side-by-side test of `make test` has our starters and the official
TypeScript SDK's agents)."""
RECORDINGS = ROOT / "docs" / "conformance" / "recordings"


def agent_globs() -> list[str]:
    """passive.json's `suiteCases` of the agent's side (the suite runs an agent here)."""
    return [glob for glob in suite_case_globs() if not glob.startswith("client.")]


def digest(wire: bytes, checked: int) -> dict[str, Any]:
    return {
        "bytes": len(wire),
        "checked": checked,
        "sha256": hashlib.sha256(wire[:checked]).hexdigest(),
    }


def gzipped(path: Path, out: Path) -> None:
    with out.open("wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
        gz.write(path.read_bytes())


def record_row(row: Row, folder: Path | None = None, into: Path = RECORDINGS) -> dict[str, Any]:
    """Run the row's recorded suite run and publish it (`into`); its manifest, or `{"error":
    …}` when the program was not built or the suite did not run."""
    folder = folder or BUILD / "recorded" / row.key
    shutil.rmtree(folder, ignore_errors=True)
    taps = folder / "taps"
    taps.mkdir(parents=True)
    ran = run_row(row, agent_globs(), folder / "run", lambda command: tapped(command, taps))
    if "error" in ran.result:
        return {"error": ran.result["error"]}
    result = ran.result
    failed = sorted(result["failed"])
    outside = [case for case in failed if not judged_by_a_recording(case)]
    assert not outside, f"the suite ran cases a recording cannot judge: {outside}"
    target = into / row.key
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    recordings = []
    found: set[str] = set()
    for number, path in enumerate(Taps(taps).recordings()):
        whole = exited(path)
        wire, replay = Taps(taps).wire(path), replayed(path)
        name = f"{number:02}.jsonl.gz"
        gzipped(path, target / name)
        sides = {}
        for direction in ("sent", "received"):
            shorter = min(len(wire[direction]), len(replay[direction]))
            sides[direction] = digest(wire[direction], len(wire[direction]) if whole else shorter)
        recordings.append({"file": f"{row.key}/{name}", "exited": whole, **sides})
        found |= {v.case for v in violations(path) if v.side == "agent"}
    manifest = {
        "key": row.key,
        "implementation": row.implementation,
        "version": row.version,
        "edition": row.protocol,
        "date": result["date"],
        "command": result["command"],
        "only": agent_globs(),
        "status": result["status"],
        "cases": result["cases"],
        "failed": failed,
        "recordings": recordings,
    }
    (into / f"{row.key}.json").write_text(
        json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    manifest["disagreement"] = disagreement(found, set(failed))
    return manifest


def summary(manifest: dict[str, Any], into: Path = RECORDINGS) -> Sequence[str]:
    """What `make conformance` says of a recorded run: one line, and one per disagreement."""
    if "error" in manifest:
        return [f"recorded: {manifest['error']}"]
    size = sum((into / r["file"]).stat().st_size for r in manifest["recordings"])
    lines = [
        f"recorded: {len(manifest['recordings'])} conversations ({size / 1024:.0f} KiB gzipped),"
        f" {manifest['cases']} cases, the suite failed {len(manifest['failed'])}"
    ]
    lines += [f"  trace check disagrees: {line}" for line in manifest["disagreement"]]
    return lines
