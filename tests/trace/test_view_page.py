"""`trace view FILE --html OUT` in a real browser: Debian's headless Chromium, driven by
playwright-core (tests/trace/browser: its own npm lock, no browser download), loads the pages of
two field recordings (a v1 turn with a permission, a v2 turn cancelled) with no console error and
no fetch, shows the counts the recording holds, links every summary item to a frame that exists,
and its search box leaves shown exactly the frames holding the term. One browser for all."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from acp_protocol.trace.__main__ import main

from tests.trace.recordings import Held, one

BROWSER = Path(__file__).with_name("browser")
CHROMIUM = Path("/usr/bin/chromium")


def term_of(held: Held) -> str:
    """A term to search for: the recording's first tool call id, else its first session id."""
    ids = sorted(held.tool_call_ids())
    if ids:
        return ids[0]
    answers = (m.get("result") for _, m in held.messages("received"))
    return next(str(a["sessionId"]) for a in answers if isinstance(a, dict) and "sessionId" in a)


def holding(held: Held, term: str) -> int:
    """The frames whose text holds `term` (any case), as the page shows a frame's text."""
    texts = (
        json.dumps(f["json"], ensure_ascii=False) if "json" in f else f["raw"] for f in held.frames
    )
    return sum(1 for text in texts if term.lower() in text.lower())


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Held, str, dict[str, Any]]]:
    if not CHROMIUM.exists() or not (BROWSER / "node_modules" / "playwright-core").exists():
        pytest.skip(
            "needs Debian's chromium and tests/trace/browser's playwright-core: "
            "make test installs both (tests/trace/browser/chromium.sh, npm ci)"
        )
    out = tmp_path_factory.mktemp("pages")
    pages = []
    for n, held in enumerate(
        (one(1, "session/request_permission"), one(2, "session/cancel", "session/prompt"))
    ):
        page = out / f"page{n}.html"
        assert main(["view", str(held.path), "--html", str(page)]) == 0
        pages.append((held, term_of(held), page))
    asked = json.dumps([{"page": str(page), "term": term} for _, term, page in pages])
    node = shutil.which("node") or "node"
    done = subprocess.run(
        [node, str(BROWSER / "page_check.mjs"), asked],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return [
        (held, term, found)
        for (held, term, _), found in zip(pages, json.loads(done.stdout), strict=True)
    ]


def test_the_page_loads_with_no_console_error_and_fetches_nothing(
    seen: list[tuple[Held, str, dict[str, Any]]],
) -> None:
    for held, _, found in seen:
        assert found["errors"] == [], held.path.name


def test_the_page_shows_the_turns_tool_calls_and_frames_the_recording_holds(
    seen: list[tuple[Held, str, dict[str, Any]]],
) -> None:
    for held, _, found in seen:
        counts = found["counts"]
        assert counts["turns"] == len(held.requests("sent", "session/prompt")), held.path.name
        assert counts["tools"] == len(held.tool_call_ids()), held.path.name
        assert counts["frames"] == found["frames"] == len(held.frames), held.path.name
        asked = held.requests("received", "session/request_permission")
        assert counts["permissions"] == len(asked), held.path.name


def test_every_link_leads_to_a_frame_on_the_page(
    seen: list[tuple[Held, str, dict[str, Any]]],
) -> None:
    for held, _, found in seen:
        assert found["links"] > len(held.requests("sent", "session/prompt")), held.path.name
        assert found["broken"] == 0, held.path.name


def test_a_search_shows_exactly_the_frames_holding_the_term(
    seen: list[tuple[Held, str, dict[str, Any]]],
) -> None:
    for held, term, found in seen:
        expected = holding(held, term)
        assert 0 < expected < len(held.frames), (held.path.name, term)
        assert found["shown"] == expected, (held.path.name, term)
        assert found["label"] == f"{expected} of {len(held.frames)} frames"
        assert found["cleared"] == len(held.frames)
