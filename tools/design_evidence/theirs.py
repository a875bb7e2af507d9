"""datamodel-code-generator on the pinned schemas (layer: evidence): its environment, its runs,
what its output holds, read as text and through `probe.py` in its own interpreter.

The environment is `.venv-design`, installed from `constraints/design.txt` alone: the tool pins
its own pydantic, which need not be the project's (`constraints/dev.txt`), so it never enters
`.venv`.
"""

from __future__ import annotations

import json
import re
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / ".venv-design"
CONSTRAINTS = ROOT / "constraints" / "design.txt"
PROBE = Path(__file__).with_name("probe.py")
TOOL = "datamodel-code-generator"

FLAGS = (
    "--input-file-type",
    "jsonschema",
    "--preset",
    "standard-py311-20261027",
    "--target-python-version",
    "3.11",
    "--use-tag-as-union-variant-name",
    "--skip-root-model",
    "--no-collapse-root-models",
    "--use-type-alias",
    "--enum-field-as-literal",
    "all",
    "--use-generic-base-class",
    "--aliases",
    '{"_meta":"meta"}',
    "--use-schema-description",
    "--formatters",
    "black",
    "isort",
)
"""Its best invocation for ACP (docs/design.md names where it comes from): named variants from
tags, no envelope unions, every `$defs` entry kept by name, black as the official SDK uses."""
KEEP_EXTENSIONS = ("--model-extra-keys-without-x-prefix", "x-method", "x-side", "x-state")
"""Asked to keep the annotations: copied onto classes as `json_schema_extra`."""

NUMBERED = re.compile(r"^(?:class (\w*?[A-Za-z]\d+)\(|(\w*?[A-Za-z]\d+) = TypeAliasType\()", re.M)


def python() -> Path:
    return VENV / "bin" / "python"


def version() -> str:
    """The tool's version, as constraints/design.txt pins it."""
    pins = dict(
        line.split("==", 1) for line in CONSTRAINTS.read_text().splitlines() if "==" in line
    )
    return pins[TOOL]


def ensure_venv() -> None:
    """Create `.venv-design` from the constraints file unless it is there with that version."""
    stamp = VENV / ".installed"
    if stamp.is_file() and stamp.read_text() == CONSTRAINTS.read_text():
        return
    print(f"installing {TOOL}=={version()} into {VENV.name} …", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(VENV)], check=True)
    subprocess.run(
        [str(python()), "-m", "pip", "install", "--quiet", "-c", str(CONSTRAINTS), TOOL],
        check=True,
    )
    stamp.write_text(CONSTRAINTS.read_text())


@dataclass(frozen=True)
class Timed:
    """One process, run to its end: its wall-clock seconds and its CPU seconds (user + system,
    its children's included), which a busy machine changes less."""

    wall: float
    cpu: float
    done: subprocess.CompletedProcess[str]


def timed(command: list[str], cwd: Path | None = None) -> Timed:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Timed(wall, cpu, done)


def generate(schema: Path, output: Path, *extra: str) -> Timed:
    """One CLI run, as a user runs it (interpreter start included)."""
    command = [str(VENV / "bin" / "datamodel-codegen"), "--input", str(schema), "--output"]
    run = timed([*command, str(output), *FLAGS, *extra])
    if run.done.returncode != 0:
        raise RuntimeError(f"{TOOL} failed on {schema.name}: {run.done.stderr.strip()[-500:]}")
    return run


def text_facts(source: str) -> dict[str, Any]:
    """What the module holds, counted from its text."""
    numbered = sorted({a or b for a, b in NUMBERED.findall(source)})
    return {
        "lines": source.count("\n"),
        "classes": len(re.findall(r"^class \w+\(", source, re.M)),
        "type_aliases": len(re.findall(r"^\w+ = TypeAliasType\(", source, re.M)),
        "numbered_names": len(numbered),
        "numbered_examples": numbered[:6],
        "discriminators": source.count("discriminator="),
        "x_method": len(re.findall(r"'method': '", source)),
        "x_state": len(re.findall(r"'state': \{", source)),
        "lenient_decoding": source.count("x-deserialize"),
    }


def kept_extensions(source: str) -> dict[str, int]:
    """With `KEEP_EXTENSIONS`: on how many classes each annotation landed."""
    return {
        "method": len(re.findall(r"'method': '", source)),
        "side": len(re.findall(r"'side': '", source)),
        "state": len(re.findall(r"'state': \{", source)),
    }


def probe(module: Path, protocol: str) -> dict[str, Any]:
    done = subprocess.run(
        [str(python()), str(PROBE), str(module), protocol],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"probe of {module.name} failed: {done.stderr.strip()[-500:]}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def excerpt(source: str, start: str, lines: int) -> str:
    """`lines` lines of `source` from the first line that starts with `start`."""
    all_lines = source.splitlines()
    index = next(i for i, line in enumerate(all_lines) if line.startswith(start))
    return "\n".join(all_lines[index : index + lines]) + "\n"
