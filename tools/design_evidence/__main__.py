"""`python -m tools.design_evidence [--runs N] [--check]` (layer: command line): run
datamodel-code-generator (pinned in constraints/design.txt, in `.venv-design`, installed on first
use) and our generator on every pinned schema, and write what each made of it to
tools/design_evidence/evidence.json, the data docs/design.md's figures and excerpts come from.

`--check` writes nothing: it exits 1, naming each difference, when a fresh run's facts (all but
the times) differ from the committed file. Exit 2: the tool could not be installed or run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from acp_codegen.ir import Stability
from acp_codegen.loader import load_schema
from tools.design_evidence import excerpts, manifests, ours, theirs

ROOT = theirs.ROOT
EVIDENCE = Path(__file__).with_name("evidence.json")
SCHEMAS = {
    "v1": "schema/acp/v1/schema.json",
    "v1/unstable": "schema/acp/v1/schema.unstable.json",
    "v2": "schema/acp/v2/schema.json",
    "v2/unstable": "schema/acp/v2/schema.unstable.json",
}
KEPT = "v2"
"""The edition run once more with datamodel-code-generator asked to keep the annotations."""
TIMES = ("seconds", "machine")


def seconds(runs: list[theirs.Timed]) -> dict[str, float] | None:
    """The median CPU and wall-clock seconds of some runs (None: not timed)."""
    if not runs:
        return None
    return {
        "cpu": round(statistics.median(run.cpu for run in runs), 2),
        "wall": round(statistics.median(run.wall for run in runs), 2),
    }


def one_schema(key: str, path: str, folder: Path, runs: int) -> tuple[dict[str, Any], str]:
    """The facts of one schema, and datamodel-code-generator's output for it."""
    schema = ROOT / path
    protocol, _, channel = key.partition("/")
    output = folder / f"{key.replace('/', '_')}.py"
    their_times = [theirs.generate(schema, output)]
    our_times = []
    for _ in range(runs):  # interleaved, so both meet the same load
        our_times.append(ours.timed_run(schema))
        if len(their_times) < runs:
            their_times.append(theirs.generate(schema, output))
    source = output.read_text(encoding="utf-8")
    stability = Stability.UNSTABLE if channel else Stability.STABLE
    facts = {
        "path": path,
        "schema": ours.schema_facts(load_schema(schema)),
        "theirs": {
            **theirs.text_facts(source),
            **theirs.probe(output, protocol),
            "seconds": seconds(their_times),
        },
        "ours": {
            **ours.ir_facts(ours.lowered(schema, protocol, stability)),
            **ours.model_behaviour(key.replace("/", ".")),
            "seconds": seconds(our_times),
        },
    }
    return facts, source


def collect(runs: int) -> dict[str, Any]:
    theirs.ensure_venv()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        schemas, sources = {}, {}
        for key, path in SCHEMAS.items():
            print(f"{key}: {path}", file=sys.stderr)
            schemas[key], sources[key] = one_schema(key, path, folder, runs)
        theirs.generate(ROOT / SCHEMAS[KEPT], folder / "kept.py", *theirs.KEEP_EXTENSIONS)
        kept = (folder / "kept.py").read_text(encoding="utf-8")
    return {
        "tool": {"name": theirs.TOOL, "version": theirs.version(), "flags": list(theirs.FLAGS)},
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "runs": runs,
            "load": round(os.getloadavg()[0], 1),
        },
        "schemas": schemas,
        "kept_when_asked": {
            "edition": KEPT,
            "flags": list(theirs.KEEP_EXTENSIONS),
            **theirs.kept_extensions(kept),
        },
        "excerpts": excerpts.collect(sources, kept),
        "rule_book": ours.rule_book(),
        "dependencies": manifests.collect(),
    }


def without_times(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_times(v) for k, v in value.items() if k not in TIMES}
    return value


def differences(old: Any, new: Any, where: str = "") -> list[str]:
    if isinstance(old, dict) and isinstance(new, dict):
        found = []
        for key in sorted(set(old) | set(new), key=str):
            found += differences(old.get(key), new.get(key), f"{where}/{key}")
        return found
    return [] if old == new else [f"{where or '/'}: committed {old!r}, now {new!r}"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.design_evidence", description=__doc__)
    parser.add_argument("--runs", type=int, default=3, help="timed runs per schema (median)")
    # --check times nothing: datamodel-code-generator runs once per schema, ours not at all.
    parser.add_argument("--check", action="store_true", help="compare with the committed file")
    options = parser.parse_args(argv)
    try:
        found = collect(0 if options.check else options.runs)
    except (OSError, RuntimeError) as error:
        print(f"design evidence: {error}", file=sys.stderr)
        return 2
    if options.check:
        committed = json.loads(EVIDENCE.read_text(encoding="utf-8"))
        changed = differences(without_times(committed), without_times(found))
        for line in changed:
            print(f"design evidence: {line}", file=sys.stderr)
        return 1 if changed else 0
    EVIDENCE.write_text(json.dumps(found, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {EVIDENCE.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
