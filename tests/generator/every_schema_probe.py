"""Does a generated Python package load? Run as a script, with the package's folder first on
`sys.path` (test_every_schema.py does), as

    python every_schema_probe.py <the acp_protocol folder> <the schema root it was generated from>

It checks that `acp_protocol` is the copy named (not the one installed from generated/), that it
says which release it was generated from, that every module of it imports, and that for every
pinned edition every `$defs` name is a name of its `models` module and every name that module
exports builds its validator (the models are built on first use: `defer_build`). Every failure is
printed, one traceback each; the exit status is the number of failures (0: it loads).
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import sys
import traceback
from pathlib import Path
from typing import Any


def probe(package_dir: Path, root: Path) -> list[str]:
    failures: list[str] = []
    package = importlib.import_module("acp_protocol")
    loaded = Path(str(package.__file__)).resolve().parent
    if loaded != package_dir.resolve():
        return [f"acp_protocol was imported from {loaded}, not from {package_dir}"]
    lock = json.loads((root / "schema" / "lock.json").read_text())
    if lock["version"] != package.SCHEMA_VERSION:
        failures.append(
            f"SCHEMA_VERSION is {package.SCHEMA_VERSION!r}, the lock pins {lock['version']!r}"
        )

    modules = [info.name for info in pkgutil.walk_packages(package.__path__, "acp_protocol.")]
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:
            failures.append(f"import {name}:\n{traceback.format_exc()}")

    validators = importlib.import_module("acp_protocol.runtime.validators")
    for entry in lock["files"]:
        edition = entry["protocol"] + ("" if entry["channel"] == "stable" else ".unstable")
        try:
            models = importlib.import_module(f"acp_protocol.{edition}.models")
        except Exception:
            failures.append(f"import acp_protocol.{edition}.models:\n{traceback.format_exc()}")
            continue
        defs: dict[str, Any] = json.loads((root / entry["path"]).read_text())["$defs"]
        missing = sorted(name for name in defs if not hasattr(models, name))
        if missing:
            failures.append(f"acp_protocol.{edition}.models lacks $defs names {missing}")
        for name in models.__all__:
            try:
                validators.validator_for(getattr(models, name))
            except Exception:
                failures.append(f"{edition}.models.{name}:\n{traceback.format_exc()}")
    print(f"{len(modules)} modules imported, {len(lock['files'])} editions' models built")
    return failures


def main(argv: list[str]) -> int:
    failures = probe(Path(argv[0]), Path(argv[1]))
    for failure in failures:
        print(failure, file=sys.stderr)
    return min(len(failures), 100)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
