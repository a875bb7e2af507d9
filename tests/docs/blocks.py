"""The fenced blocks of README.md and docs/*.md, each with where it is and what its fence says.

Docs are code: every block a reader would run or copy is run by `tests/docs`. A fence's info
string says how:

- the first word is the language: `python`, `ts`, `go`, `sh`, `json` or `text` (a fence with no
  language is refused: say `text`);
- `illustrative:` and the reason: shown, never run; counted as such;
- `agent`: the block is a whole agent program; the test runs the Python starter client against it
  (`agent=v2` for an ACP v2 agent) and expects the prompt's answer streamed back;
- `client`: the block is a whole client program that starts the agent its command line names
  (its arguments: the agent's program and the program's arguments); the test runs it against the
  Python starter agent and expects the agent's words printed, and tests/docs runs it under our
  conformance suite in client mode (`client=v2` for an ACP v2 client);
- `fragment=NAME`: a part of a program; the test puts it into the program
  `tests/docs/wrappers/NAME.<ext>` (at the line `# FRAGMENT` or `// FRAGMENT`) and runs that.

Blocks of one page that are not fragments share one working folder, in page order, as a reader
following the page would (a file the first block writes is there for the second).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tests.paths import ROOT

LANGUAGES = frozenset({"python", "ts", "go", "sh", "json", "text"})
PAGES = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))

_OPEN = re.compile(r"^(?P<indent> *)```(?P<info>[^`]*)$")


@dataclass(frozen=True)
class Block:
    """One fenced block: its page, the line of its opening fence, its fence info and its text."""

    page: Path
    line: int
    language: str
    words: tuple[str, ...]
    text: str

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"

    @property
    def illustrative(self) -> bool:
        return any(word.rstrip(":") == "illustrative" for word in self.words)

    @property
    def markers(self) -> tuple[str, ...]:
        """The fence's words that say how it is run: those before `illustrative:` (what follows
        it is the reason, prose that may say "agent")."""
        for index, word in enumerate(self.words):
            if word.rstrip(":") == "illustrative":
                return self.words[:index]
        return self.words

    @property
    def agent(self) -> str | None:
        """`v1` or `v2` for a block marked `agent` (`agent` alone is v1), else None."""
        for word in self.markers:
            if word == "agent":
                return "v1"
            if word.startswith("agent="):
                return word.removeprefix("agent=")
        return None

    @property
    def client(self) -> str | None:
        """`v1` or `v2` for a block marked `client` (`client` alone is v1), else None."""
        for word in self.markers:
            if word == "client":
                return "v1"
            if word.startswith("client="):
                return word.removeprefix("client=")
        return None

    @property
    def fragment(self) -> str | None:
        for word in self.markers:
            if word.startswith("fragment="):
                return word.removeprefix("fragment=")
        return None

    @property
    def id(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}:{self.language}"


def blocks_of(page: Path) -> list[Block]:
    """Every fenced block of a page, in order; a fence left open is an error naming its line."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    index = 0
    while index < len(lines):
        opening = _OPEN.match(lines[index])
        if opening is None:
            index += 1
            continue
        indent = opening["indent"]
        info = opening["info"].strip()
        start = index
        body: list[str] = []
        index += 1
        while index < len(lines) and lines[index].strip() != "```":
            body.append(lines[index].removeprefix(indent))
            index += 1
        if index == len(lines):
            raise ValueError(f"{page.relative_to(ROOT)}:{start + 1}: a fence that is never closed")
        words = tuple(info.split())
        language = words[0] if words else ""
        found.append(Block(page, start + 1, language, words[1:], "\n".join(body) + "\n"))
        index += 1
    return found


def all_blocks() -> list[Block]:
    return [block for page in PAGES for block in blocks_of(page)]
