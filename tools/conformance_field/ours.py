"""Our rows' programs (layer: builds): the starter agents of the three targets, both editions,
written by `acp-codegen scaffold` and built the way tests/starters builds them (TypeScript
against the built package, `make ts-build`; Go in one module on generated/go)."""

from __future__ import annotations

import functools
import shutil
from pathlib import Path

from tests.starters import builds as starters

from .builds import BUILD, Build, BuildError, Program


@functools.cache
def built(lang: str) -> starters.Starters:
    """The starters of one language, built once per run."""
    try:
        if lang == "python":
            return starters.build_python(fresh(BUILD / "starters" / "python"))
        if lang == "typescript":
            folder = starters.TS_BUILD / "scaffold-tests" / "conformance-field"
            if not (starters.TS_BUILD / "dist" / "index.js").exists():
                raise BuildError("the built TypeScript package is needed: run `make ts-build`")
            return starters.build_typescript(fresh(folder))
        return starters.build_go(fresh(BUILD / "starters" / "go"))
    except AssertionError as error:
        raise BuildError(str(error).splitlines()[0]) from None


def fresh(folder: Path) -> Path:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


def starter(lang: str, protocol: str, role: str) -> Build:
    def build() -> Program:
        return Program(built(lang)[lang, protocol, role].command)

    return build


BUILDS = {
    f"starter-{lang}-{protocol}-{role}": starter(lang, protocol, role)
    for lang in starters.LANGUAGES
    for protocol in starters.PROTOCOLS
    for role in starters.ROLES
}
