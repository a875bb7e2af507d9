"""The module path a Go starter project's go.mod declares (the Go target's `scaffold --project`).

A folder's name is not always a module path: Go refuses `module go` ("invalid module path"),
`toolchain`, the names of its own package patterns (`std`, `cmd`, `all`, `tool`, `work`: "not an
importable package") and an element Windows reserves (`con`, `aux`, `nul`, `prn`, `com1`…,
`lpt1`…: "disallowed as path element component on Windows"). `choose` takes `--module` when
given (refusing one Go refuses, in one line), else the project's name when Go takes it, else
`acp-` and the name, and says so.
"""

from __future__ import annotations

import re

from acp_codegen.problems import GenerationError

RESERVED_PATHS = frozenset({"go", "toolchain", "std", "cmd", "all", "tool", "work"})
"""Whole module paths the go command refuses to build (checked with go 1.26)."""
WINDOWS_NAMES = frozenset(
    {
        "con",
        "prn",
        "aux",
        "nul",
        *(f"com{n}" for n in range(1, 10)),
        *(f"lpt{n}" for n in range(1, 10)),
    }
)
_ELEMENT = re.compile(r"^[A-Za-z0-9._~+-]+$")
_MAJOR = re.compile(r"^v[0-9]+$")
PREFIX = "acp-"
"""Put before a project name Go refuses as a module path (`go` → `acp-go`)."""


def problem(path: str, sdk: str) -> str | None:
    """Why Go refuses `path` as the module path of a main module, or None."""
    if path in RESERVED_PATHS:
        return "a name Go reserves"
    if path == sdk:
        return f"the generated module's own path, which go.mod requires as {sdk}"
    if path.startswith("-"):
        return "a path Go refuses (a leading dash)"
    for element in path.split("/"):
        if not _ELEMENT.match(element) or element in (".", ".."):
            return f"a path Go refuses (element {element!r}: letters, digits and -._~+ only)"
        if element.endswith("."):
            return f"a path Go refuses (element {element!r} ends in a dot)"
        if element.split(".")[0].lower() in WINDOWS_NAMES:
            return f"a path Go refuses (element {element!r}: a name Windows reserves)"
    return None


def choose(name: str, given: str | None, sdk: str) -> tuple[str, str | None]:
    """The module path and, when it is not the project's name, the line that says why."""
    if given is not None:
        reason = problem(given, sdk)
        if reason is not None:
            raise GenerationError(f"--module {given!r} is {reason}")
        return given, None
    reason = problem(name, sdk)
    if reason is None:
        return name, None
    path = PREFIX + name
    return path, (
        f"{name!r} (the folder's name) is {reason}, so go.mod says `module {path}` "
        "(--module PATH names another)"
    )


def binary(path: str) -> str:
    """The program `go build` writes for the module: its last element, not a major version."""
    elements = path.split("/")
    if len(elements) > 1 and _MAJOR.match(elements[-1]):
        return elements[-2]
    return elements[-1]
