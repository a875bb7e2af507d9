"""CHANGELOG.md and `acp-codegen release-notes`: the changelog is Keep a Changelog 1.1.0 (newest
version first, each dated but Unreleased, only the format's subsections), every breaking change is
marked and says how to migrate, the generator's own version has its section, and the command
prints exactly one version's section, or fails with one line naming the versions there are.

The rules are checked on the file's text here, independently of `acp_codegen.changelog`, which
the command uses to read it; the parser's refusals are checked on small changelogs of their own.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from acp_codegen import __version__, changelog
from tests.paths import ROOT

CHANGELOG = ROOT / "CHANGELOG.md"
HEADING = re.compile(r"## \[(Unreleased|\d+\.\d+\.\d+)\](?: - (\d{4}-\d{2}-\d{2}))?")
SUBSECTIONS = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


def lines() -> list[str]:
    return CHANGELOG.read_text(encoding="utf-8").splitlines()


def headings() -> list[tuple[str, str | None]]:
    """(version, date) of every `## ` heading, in file order; fails on a heading of another
    shape."""
    found = []
    for line in lines():
        if line.startswith("## "):
            match = HEADING.fullmatch(line)
            assert match is not None, f"not a Keep a Changelog version heading: {line!r}"
            found.append((match[1], match[2]))
    return found


def section(version: str) -> str:
    """The section of `version` as the file has it: its heading to the last non-blank line before
    the next version's heading (or the end)."""
    text = lines()
    start = next(n for n, line in enumerate(text) if line.startswith(f"## [{version}]"))
    end = next((n for n in range(start + 1, len(text)) if text[n].startswith("## ")), len(text))
    body = text[start:end]
    while not body[-1].strip():
        body.pop()
    return "\n".join(body) + "\n"


def entries() -> list[str]:
    """Every list item of every version, its lines joined."""
    found: list[str] = []
    in_versions = False
    for line in lines():
        in_versions = in_versions or line.startswith("## ")
        if in_versions and line.startswith("- "):
            found.append(line[2:])
        elif in_versions and line.startswith("  ") and found:
            found[-1] += " " + line.strip()
    return found


def release_notes(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "acp_codegen.cli", "release-notes", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


# The file


def test_the_changelog_has_a_title_and_an_introduction_then_versions_newest_first() -> None:
    text = lines()
    assert text[0] == "# Changelog"
    first_version = next(n for n, line in enumerate(text) if line.startswith("## "))
    assert "Keep a Changelog" in "\n".join(text[1:first_version])
    found = headings()
    versions = [version for version, _ in found]
    assert len(set(versions)) == len(versions), versions
    assert "Unreleased" not in versions[1:], "[Unreleased] goes above every version"
    released = [(version, date) for version, date in found if version != "Unreleased"]
    assert released, "no version has a section"
    keys = [version_key(version) for version, _ in released]
    assert keys == sorted(keys, reverse=True), versions
    dates = [date for _, date in released if date is not None]
    assert len(dates) == len(released), f"a version without its date: {found}"
    assert dates == sorted(dates, reverse=True), found  # ISO dates sort as text


def test_versions_have_only_the_format_s_subsections_each_once_and_entries_in_them() -> None:
    current: list[str] | None = None
    for line in lines():
        if line.startswith("## "):
            current = []
        elif current is None or not line.strip():
            continue  # the introduction, blank lines
        elif line.startswith("### "):
            name = line[4:]
            assert name in SUBSECTIONS and name not in current, line
            current.append(name)
        else:
            assert current, f"text before a version's first subsection: {line!r}"
            assert line.startswith(("- ", "  ")) or re.fullmatch(r"\[.+\]: \S+", line), line


def test_a_breaking_change_starts_with_breaking_and_says_how_to_migrate() -> None:
    breaking = [entry for entry in entries() if entry.startswith("**Breaking**")]
    assert breaking, "no entry is marked **Breaking**"
    for entry in breaking:
        assert "Migration: " in entry, f"a **Breaking** entry without 'Migration: …': {entry}"
    for entry in entries():
        if "Breaking" in entry:
            assert entry.startswith("**Breaking**"), f"marked Breaking, but not first: {entry}"


def test_the_generators_own_version_has_its_dated_section() -> None:
    """The decision: `__version__` is always a cut version. The commit that raises it moves the
    entries of [Unreleased] under `## [<new version>] - <date>` (CHANGELOG.md's introduction)."""
    dated = {version: date for version, date in headings() if date is not None}
    assert __version__ in dated, (
        f"acp_codegen.__version__ is {__version__}, which has no `## [{__version__}] - "
        "YYYY-MM-DD` section: cut it from [Unreleased] in the commit that raises the version"
    )
    assert headings()[0][0] in ("Unreleased", __version__), "a version above the generator's own"


def test_the_parser_reads_the_file_as_the_text_says() -> None:
    log = changelog.read(CHANGELOG)
    assert [(r.version, r.date and r.date.isoformat()) for r in log.releases] == headings()
    assert [e.text.replace("\n", " ") for r in log.releases for e in r.entries] == entries()
    for release in log.releases:
        assert release.text == section(release.version)


# The command


def test_release_notes_of_a_version_prints_exactly_its_section() -> None:
    done = release_notes("0.2.0")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == section("0.2.0")
    assert done.stdout.startswith("## [0.2.0] - ")
    assert "## [Unreleased]" not in done.stdout


def test_release_notes_without_a_version_is_the_generators_own() -> None:
    done = release_notes()
    assert (done.returncode, done.stdout) == (0, section(__version__))


@pytest.mark.parametrize("spelled", ["Unreleased", "unreleased"])
def test_release_notes_of_unreleased(spelled: str) -> None:
    done = release_notes(spelled)
    assert (done.returncode, done.stdout) == (0, section("Unreleased"))


def test_an_unknown_version_is_one_line_naming_the_versions_there_are_exit_2() -> None:
    done = release_notes("0.1.9")
    assert done.returncode == 2
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    [line] = done.stderr.splitlines()
    versions = ", ".join(version for version, _ in headings())
    assert line == (
        f"acp-codegen: release-notes: CHANGELOG.md has no version '0.1.9'; its versions: {versions}"
    )


def test_make_release_notes_calls_the_command() -> None:
    # -o: the venv counts as set up (a test never reinstalls it).
    make = ["make", "--no-print-directory", "-o", ".venv/.installed-stamp"]
    done = subprocess.run(
        [*make, "release-notes", "VERSION=0.2.0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout) == (0, section("0.2.0"))


# The parser's refusals, each one line naming the line

GOOD = """\
# Changelog

Intro.

## [Unreleased]

### Added
- a thing
  on two lines

## [1.1.0] - 2026-02-01

### Fixed
- a fix

## [1.0.0] - 2026-01-01

### Added
- the start

[1.1.0]: https://example.org/1.1.0
"""


def test_a_well_formed_changelog_parses_with_its_link_references() -> None:
    log = changelog.parse(GOOD)
    assert log.versions == ("Unreleased", "1.1.0", "1.0.0")
    assert log.release("1.0.0").text == "## [1.0.0] - 2026-01-01\n\n### Added\n- the start\n"
    assert log.release("Unreleased").entries == (changelog.Entry("a thing\non two lines"),)
    assert log.links == ("[1.1.0]: https://example.org/1.1.0",)


@pytest.mark.parametrize(
    ("change", "line", "says"),
    [
        (("## [1.0.0] - 2026-01-01", "## [1.0.0]"), 16, "needs its date as YYYY-MM-DD"),
        (("## [1.0.0] - 2026-01-01", "## [1.0.0] - 01/01/2026"), 16, "needs its date"),
        (("## [1.0.0] - 2026-01-01", "## [1.2.0] - 2026-01-01"), 16, "newest first"),
        (("## [1.0.0] - 2026-01-01", "## [1.0.0] - 2026-03-01"), 16, "dated no later"),
        (("## [1.0.0] - 2026-01-01", "## [1.1.0] - 2026-01-01"), 16, "has a section already"),
        (("## [1.0.0] - 2026-01-01", "## [Unreleased]"), 16, "comes first"),
        (("## [1.0.0] - 2026-01-01", "## 1.0.0 - 2026-01-01"), 16, "a version's heading is"),
        (("## [1.0.0] - 2026-01-01", "## [one] - 2026-01-01"), 16, "is not a version"),
        (("### Fixed", "### Bug fixes"), 13, "has a subsection 'Bug fixes'"),
        (("### Fixed\n- a fix", "### Fixed\n- a fix\n### Fixed"), 15, "may appear once"),
        (("### Fixed\n", "A word first.\n### Fixed\n"), 13, "goes under a subsection"),
        (("- a fix", "* a fix"), 14, "an entry starts with `- `"),
        (("# Changelog", "Changelog"), 1, "starts with its title"),
    ],
)
def test_a_malformed_changelog_is_refused_naming_the_line(
    change: tuple[str, str], line: int, says: str
) -> None:
    assert GOOD.count(change[0]) == 1
    with pytest.raises(changelog.ChangelogError) as refused:
        changelog.parse(GOOD.replace(*change))
    message = str(refused.value)
    assert message.startswith(f"CHANGELOG.md:{line}: ") and says in message, message
    assert "\n" not in message
