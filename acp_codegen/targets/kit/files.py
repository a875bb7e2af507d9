"""Writing a target's output: rendered templates, text, and copies of hand-written sources.

A target writes every file through one `Writer`: its template environment, its templates folder
and, where the language has one, the formatter its text goes through (Python: black, for `.py`
files; the Go and TypeScript templates lay their code out themselves). A hand-written source
(`templates/<lang>/runtime/…`) is copied under a header naming it and the command that writes it
again; how the header goes into a file is the target's, by the file's ending (`preambles`): code
takes it on top (`prepend`), a JSON data file, which has no comments, as a member.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

Preamble = Callable[[str, str], str]
"""(header, a source's text) → the copy's text."""


def prepend(header: str, text: str) -> str:
    """The header on top of the source (the header template ends the way the file goes on)."""
    return header + text


def as_written(path: Path, text: str) -> str:
    """No formatter: the templates lay the code out."""
    return text


@dataclass(frozen=True, slots=True)
class Writer:
    env: jinja2.Environment
    templates: Path
    """The target's templates folder (`templates/go`): copied sources are named from it."""
    format: Callable[[Path, str], str] = as_written
    """A file's text as it is written (given its path)."""

    def render(self, path: Path, template: str, **context: Any) -> None:
        """Write the template `template` rendered with `context` to `path`."""
        self.write(path, self.env.get_template(template).render(**context))

    def write(self, path: Path, text: str, *, formatted: bool = False) -> None:
        """Write `text` to `path` (its folders made), through `format` unless `formatted`."""
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text if formatted else self.format(path, text))

    def copy(
        self,
        folder: str,
        out: Path,
        *,
        header: str,
        command: str,
        preambles: Mapping[str, Preamble],
    ) -> None:
        """Copy every file under `templates/<lang>/<folder>/` whose ending `preambles` names
        into `out`, at the same relative path, under the template `header` rendered with
        `source` (the path below the templates folder: `runtime/flow_control.go`) and `command`."""
        sources = self.templates / folder
        for source in sorted(sources.rglob("*")):
            preamble = preambles.get(source.suffix)
            if preamble is None or "__pycache__" in source.parts or not source.is_file():
                continue
            said = self.env.get_template(header).render(
                source=source.relative_to(self.templates).as_posix(), command=command
            )
            text = preamble(said, source.read_text(encoding="utf-8"))
            self.write(out / source.relative_to(sources), text)
