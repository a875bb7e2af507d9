"""The project's changelog (CHANGELOG.md) as data, read as Keep a Changelog 1.1.0 describes it.

The file is a `# ` title and an introduction, then one `## ` section per version, newest first:
`## [Unreleased]` (at most one, at the top) and `## [X.Y.Z] - YYYY-MM-DD`. Each version has
`### ` subsections named as the format names them (Added, Changed, Deprecated, Removed, Fixed,
Security), each a list of entries (`- ` and its lines indented by two spaces). Link references
(`[0.2.0]: https://…`) may close the file. Anything else is a `ChangelogError` naming the line,
so `acp-codegen release-notes` never prints a half-understood section.

An entry starting with `**Breaking**` asks something of its reader (the changelog's own
introduction says what); the project's rule, held by tests/generator/test_changelog.py, is that
such an entry also says how to migrate, in a sentence starting `Migration:`.
"""

from __future__ import annotations

import datetime
import itertools
import re
from dataclasses import dataclass
from pathlib import Path

from acp_codegen.problems import GenerationError
from acp_codegen.resources import DATA_ROOT

PATH = DATA_ROOT / "CHANGELOG.md"
"""This project's changelog: at the checkout's root, or inside an installed wheel's package."""
UNRELEASED = "Unreleased"
SUBSECTIONS = ("Added", "Changed", "Deprecated", "Removed", "Fixed", "Security")
BREAKING = "**Breaking**"
MIGRATION = "Migration:"

_HEADING = re.compile(r"## \[(?P<version>[^\]]+)\](?: - (?P<date>\S+))?")
_VERSION = re.compile(r"(?P<core>\d+\.\d+\.\d+)(?:-(?P<pre>[0-9A-Za-z.-]+))?")
_LINK = re.compile(r"\[[^\]]+\]: \S+")


class ChangelogError(GenerationError):
    """The changelog is not as Keep a Changelog describes it, or lacks the version asked for."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One list item: its text without the `- `, its lines joined by newlines as written."""

    text: str

    @property
    def breaking(self) -> bool:
        return self.text.startswith(BREAKING)


@dataclass(frozen=True, slots=True)
class Subsection:
    name: str
    entries: tuple[Entry, ...]


@dataclass(frozen=True, slots=True)
class Release:
    """One version's section. `text` is the section as written, its heading first, ending with
    one newline (the blank lines before the next section left out)."""

    version: str
    date: datetime.date | None
    subsections: tuple[Subsection, ...]
    text: str

    @property
    def entries(self) -> tuple[Entry, ...]:
        return tuple(entry for part in self.subsections for entry in part.entries)


@dataclass(frozen=True, slots=True)
class Changelog:
    intro: str
    releases: tuple[Release, ...]
    links: tuple[str, ...]
    source: str = "CHANGELOG.md"

    @property
    def versions(self) -> tuple[str, ...]:
        return tuple(release.version for release in self.releases)

    def release(self, version: str) -> Release:
        """The section of `version` (`Unreleased` in any case); a `ChangelogError` naming the
        versions there are when it has none."""
        for release in self.releases:
            if release.version == version or (
                release.version == UNRELEASED and version.lower() == UNRELEASED.lower()
            ):
                return release
        there = ", ".join(self.versions) or "none"
        raise ChangelogError(
            f"release-notes: {self.source} has no version {version!r}; its versions: {there}"
        )


def read(path: Path = PATH) -> Changelog:
    return parse(path.read_text(encoding="utf-8"), path.name)


def parse(text: str, source: str = "CHANGELOG.md") -> Changelog:
    """The changelog in `text`; `source` names it in errors (`CHANGELOG.md:12: …`)."""
    lines = text.splitlines()
    if not lines or not lines[0].startswith("# "):
        raise ChangelogError(f"{source}:1: a changelog starts with its title, `# Changelog`")
    starts = [n for n, line in enumerate(lines) if line.startswith("## ")]
    links_at = _links_start(lines)
    intro = "\n".join(lines[1 : starts[0] if starts else links_at]).strip()
    releases: list[Release] = []
    for index, start in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else links_at
        releases.append(_release(lines, start, end, source))
    _check_order(releases, [n + 1 for n in starts], source)
    links = tuple(line for line in lines[links_at:] if line.strip())
    return Changelog(intro, tuple(releases), links, source)


def _links_start(lines: list[str]) -> int:
    """Where the closing link references begin (blank lines among them allowed)."""
    start = len(lines)
    for n in range(len(lines) - 1, 0, -1):
        if _LINK.fullmatch(lines[n]):
            start = n
        elif lines[n].strip():
            break
    return start


def _release(lines: list[str], start: int, end: int, source: str) -> Release:
    heading = _HEADING.fullmatch(lines[start].rstrip())
    where = f"{source}:{start + 1}"
    if heading is None:
        raise ChangelogError(
            f"{where}: a version's heading is `## [X.Y.Z] - YYYY-MM-DD` or `## [{UNRELEASED}]`,"
            f" not {lines[start]!r}"
        )
    version, written = heading["version"], heading["date"]
    date: datetime.date | None = None
    if version == UNRELEASED:
        if written is not None:
            raise ChangelogError(f"{where}: [{UNRELEASED}] has no date")
    else:
        if _VERSION.fullmatch(version) is None:
            raise ChangelogError(f"{where}: {version!r} is not a version such as 1.2.3")
        try:
            date = datetime.date.fromisoformat(written or "")
        except ValueError:
            raise ChangelogError(
                f"{where}: version {version} needs its date as YYYY-MM-DD (`## [{version}] - "
                f"2026-11-26`), not {written!r}"
            ) from None
    subsections: list[Subsection] = []
    name: str | None = None
    entries: list[list[str]] = []
    last = start
    for n in range(start + 1, end):
        line = lines[n].rstrip()
        if not line:
            continue
        last = n
        if line.startswith("### "):
            if name is not None:
                subsections.append(_subsection(name, entries))
            name, entries = line[4:].strip(), []
            if name not in SUBSECTIONS or name in (part.name for part in subsections):
                raise ChangelogError(
                    f"{source}:{n + 1}: version {version} has a subsection {name!r}; each of "
                    f"{', '.join(SUBSECTIONS)} may appear once"
                )
        elif name is None:
            raise ChangelogError(
                f"{source}:{n + 1}: version {version}'s text goes under a subsection "
                f"(### {' / '.join(SUBSECTIONS)})"
            )
        elif line.startswith("- "):
            entries.append([line[2:]])
        elif line.startswith("  ") and entries:
            entries[-1].append(line.strip())
        else:
            raise ChangelogError(
                f"{source}:{n + 1}: an entry starts with `- ` and goes on indented by two spaces"
            )
    if name is not None:
        subsections.append(_subsection(name, entries))
    text = "\n".join(lines[start : last + 1]) + "\n"
    return Release(version, date, tuple(subsections), text)


def _subsection(name: str, entries: list[list[str]]) -> Subsection:
    return Subsection(name, tuple(Entry("\n".join(entry)) for entry in entries))


def _check_order(releases: list[Release], at: list[int], source: str) -> None:
    seen: dict[str, int] = {}
    for index, (release, line) in enumerate(zip(releases, at, strict=True)):
        if release.version == UNRELEASED and index != 0:
            raise ChangelogError(f"{source}:{line}: [{UNRELEASED}] comes first, above the versions")
        if release.version in seen:
            raise ChangelogError(
                f"{source}:{line}: version {release.version} has a section already "
                f"(line {seen[release.version]})"
            )
        seen[release.version] = line
    dated = [(r, n) for r, n in zip(releases, at, strict=True) if r.date is not None]
    for (newer, _), (older, line) in itertools.pairwise(dated):
        assert newer.date is not None and older.date is not None
        if _order(older.version) >= _order(newer.version) or older.date > newer.date:
            raise ChangelogError(
                f"{source}:{line}: versions go newest first, each dated no later than the one "
                f"above: {older.version} ({older.date}) is below {newer.version} ({newer.date})"
            )


def _order(version: str) -> tuple[tuple[int, ...], int, str]:
    """Semantic-version precedence, enough for a changelog: a pre-release sorts below its
    release (pre-release labels compare as text)."""
    match = _VERSION.fullmatch(version)
    assert match is not None  # checked when the heading was read
    core = tuple(int(part) for part in match["core"].split("."))
    return core, 0 if match["pre"] else 1, match["pre"] or ""
