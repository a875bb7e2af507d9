"""The runtime map (templates/runtime_map.json, issue 39): every piece of the three hand-written
runtimes, with its file in each language or why there is none, checked against the folders."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.paths import ROOT

MAP = ROOT / "templates" / "runtime_map.json"
SUFFIX = {"python": ".py", "typescript": ".ts", "go": ".go"}
LAYERS = ("transport", "dispatcher", "typed")


def runtime_map() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(MAP.read_text(encoding="utf-8"))
    return loaded


def runtime_files(language: str) -> set[str]:
    folder = ROOT / "templates" / language / "runtime"
    return {
        path.relative_to(folder).as_posix()
        for path in folder.rglob(f"*{SUFFIX[language]}")
        if "node_modules" not in path.parts
    }


def test_the_map_names_the_three_languages_and_every_row_says_each() -> None:
    loaded = runtime_map()
    assert loaded["languages"] == list(SUFFIX)
    for row in loaded["rows"]:
        assert row["layer"] in LAYERS, row["piece"]
        assert row["summary"].strip(), row["piece"]
        for language in SUFFIX:
            entry = row[language]
            if isinstance(entry, dict):
                assert entry["why"].strip(), f"{row['piece']}: {language} says no file, not why"
            else:
                assert entry, f"{row['piece']}: {language} names no file and no reason"
    pieces = [row["piece"] for row in loaded["rows"]]
    assert len(pieces) == len(set(pieces)), "a piece has two rows"


@pytest.mark.parametrize("language", list(SUFFIX))
def test_every_runtime_file_is_on_exactly_one_row_and_every_row_names_a_real_file(
    language: str,
) -> None:
    named: list[str] = []
    for row in runtime_map()["rows"]:
        entry = row[language]
        if isinstance(entry, list):
            named += entry
    on_disk = runtime_files(language)
    assert sorted(set(named) - on_disk) == [], f"rows naming {language} files that do not exist"
    assert sorted(on_disk - set(named)) == [], f"{language} runtime files on no row of {MAP.name}"
    twice = sorted({name for name in named if named.count(name) > 1})
    assert twice == [], f"{language} files on two rows"


def test_a_piece_present_in_every_language_has_one_stem_where_it_is_one_file() -> None:
    """ "Rename to one stem per piece where the piece is the same": a piece that is one file in
    each language has the same stem in each (the exceptions are listed with their reason)."""
    differing = {}
    for row in runtime_map()["rows"]:
        entries = [row[language] for language in SUFFIX]
        if all(isinstance(e, list) and len(e) == 1 for e in entries):
            stems = {Path(e[0]).stem for e in entries}
            if len(stems) > 1:
                differing[row["piece"]] = sorted(stems)
    assert differing == KNOWN_STEMS


KNOWN_STEMS: dict[str, list[str]] = {}
"""Pieces whose one file per language still has several stems (none: each was renamed)."""
