"""Schema problems as values: every check reports all it finds, each with its location."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, order=True)
class SchemaProblem:
    """One thing wrong with an input schema, located by file and JSON pointer."""

    source: str
    pointer: str
    message: str

    def __str__(self) -> str:
        return f"{self.source}#{self.pointer}: {self.message}"


class SchemaProblems(Exception):
    """Raised when validation found problems; carries all of them, sorted."""

    def __init__(self, problems: list[SchemaProblem]) -> None:
        self.problems = sorted(set(problems))
        lines = "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(f"{len(self.problems)} schema problem(s):\n{lines}")


class GenerationError(Exception):
    """A generation step failed for a reason that is not a schema problem (lock, naming, input)."""


class MissingTool(GenerationError):
    """A program the step needs is not installed (npm); the CLI exits 3."""


def pointer_escape(token: str) -> str:
    """Escape one reference token as RFC 6901 requires (`~` → `~0`, `/` → `~1`)."""
    return token.replace("~", "~0").replace("/", "~1")


def pointer_join(pointer: str, *tokens: str | int) -> str:
    return pointer + "".join("/" + pointer_escape(str(t)) for t in tokens)
