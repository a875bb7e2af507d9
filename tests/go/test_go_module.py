"""The Go module (generated/go) checked with the Go toolchain: every file gofmt-clean and marked
generated, `go vet` on the module and on its tests, and `go test -race` on tests/go: the Go
tests of the generated packages through their public API, against the official corpus
(tests/corpus), the corpus synthesized here from every pinned schema, and the spec's rules.

A missing Go toolchain fails each test with one line naming what to install: never a skip.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.generator.schema_samples import branch_samples, instance
from tests.go.support import TESTS, assert_ok, run_go
from tests.paths import ROOT

MODULE = ROOT / "generated" / "go"
SAMPLES = ROOT / ".build" / "go" / "samples.json"
"""The synthesized corpus, rewritten only when it changes (so `go test` may reuse its cache)."""
GENERATED = re.compile(r"^// Code generated .* DO NOT EDIT\.$")


def go_files() -> list[Path]:
    return sorted(MODULE.rglob("*.go"))


def test_the_module_is_generated() -> None:
    assert (MODULE / "go.mod").is_file(), "generated/go is missing: run `make generate`"
    packages = {p.parent.relative_to(MODULE).as_posix() for p in go_files()}
    assert {".", "wire", "v1", "v1/unstable", "v2", "v2/unstable"} <= packages


def test_every_go_file_says_it_is_generated_and_how_to_regenerate_it() -> None:
    for path in [*go_files(), MODULE / "go.mod"]:
        first = path.read_text().splitlines()[0]
        assert GENERATED.match(first), f"{path}: {first}"
        assert "make generate" in first, path


def test_generated_go_and_its_tests_are_gofmt_clean() -> None:
    result = run_go(["gofmt", "-l", str(MODULE), str(TESTS)], ROOT)
    assert_ok(result)
    assert result.stdout == "", f"not gofmt-clean:\n{result.stdout}"


@pytest.mark.parametrize("folder", [MODULE, TESTS], ids=["module", "tests"])
def test_go_vet_passes(folder: Path) -> None:
    assert_ok(run_go(["go", "vet", "./..."], folder))


def test_go_tests_pass_under_the_race_detector() -> None:
    write_if_changed(SAMPLES, json.dumps(synthesized_corpus(), indent=1) + "\n")
    assert_ok(run_go(["go", "test", "-race", "./..."], TESTS, ACP_GO_SAMPLES=str(SAMPLES)))


def write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def synthesized_corpus() -> list[dict[str, Any]]:
    """For every pinned edition: a minimal instance of every `$defs` type and one of every
    union branch (tests/generator/schema_samples.py), each valid against the schema."""
    lock = json.loads((ROOT / "schema" / "lock.json").read_text())
    samples: list[dict[str, Any]] = []
    for entry in lock["files"]:
        edition = entry["protocol"] + ("" if entry["channel"] == "stable" else "/unstable")
        defs: dict[str, Any] = json.loads((ROOT / entry["path"]).read_text())["$defs"]
        for name in defs:
            value = instance(defs[name], defs)
            samples.append(_sample(defs, edition, name, f"{edition} {name}", value, None))
            if any(k in defs[name] for k in ("anyOf", "oneOf")):
                for label, branch, catch_all in branch_samples(name, defs):
                    samples.append(
                        _sample(defs, edition, name, f"{edition} {label}", branch, catch_all)
                    )
    return samples


def _sample(
    defs: dict[str, Any], edition: str, name: str, label: str, value: Any, catch_all: bool | None
) -> dict[str, Any]:
    jsonschema.Draft202012Validator({"$defs": defs, "$ref": f"#/$defs/{name}"}).validate(value)
    return {
        "edition": edition,
        "type": name,
        "label": label,
        "value": value,
        "branch": catch_all is not None,
        "catchAll": bool(catch_all),
    }
